"""The constants of our intervals and verdicts, without numpy: :mod:`food_tasks.stats.uncertainty` computes with them,
the report and the CLI print them (importing them from here keeps ``food-tasks report`` free of numpy until it
compares runs)."""

from __future__ import annotations

import math
from typing import Any

Z95 = 1.959963984540054  # two-sided 95 %
Z80 = 0.8416212335729143  # one-sided 80 % power
DEFAULT_ITERS = 1000  # bootstrap resamples when lmms-eval asks for its default (100,000 is far more than an SE needs)
MIN_UNITS = 30  # fewer independent units (clusters) than this: the normal approximation is not trusted
TOO_FEW = "too few units to tell"  # the verdict below MIN_UNITS, in compare, beyond-accuracy and the report


def wilson(successes: float, n: float, z: float = Z95) -> tuple[float, float] | None:
    """Wilson score interval of a proportion ``successes / n`` (fractions; ``successes`` may be a rate times n).

    Unlike the normal interval it behaves at the bounds: 0 of n gives ``[0, z^2 / (n + z^2)]``, n of n its
    mirror, never a zero-width interval; it never leaves [0, 1]. None when ``n`` is not a positive number.
    """
    if isinstance(n, bool) or not isinstance(n, (int, float)) or not isinstance(successes, (int, float)):
        return None
    if not math.isfinite(n) or n <= 0 or not math.isfinite(successes):
        return None
    p = min(max(successes / n, 0.0), 1.0)
    z2 = z * z
    denom = 1.0 + z2 / n
    centre = (p + z2 / (2 * n)) / denom
    half = z * math.sqrt(p * (1 - p) / n + z2 / (4 * n * n)) / denom
    low = 0.0 if p == 0.0 else max(0.0, centre - half)
    high = 1.0 if p == 1.0 else min(1.0, centre + half)
    return low, high


def wilson_effective(value: float, se: float | None, top: float, units: float | None) -> tuple[float, float] | None:
    """The Wilson interval of a clustered proportion ``value`` on a ``[0, top]`` scale (``top`` 100 for percent),
    over its effective number of independent units ``p (1 - p) / (se / top)^2`` (the units the standard error ``se``
    is worth: Korn and Graubard's design-effect adjustment); at 0 or ``top``, or with ``se`` 0, over ``units``, the
    independent units (clusters) behind it. On the value's scale, never outside ``[0, top]``; None without a count."""
    if not all(isinstance(x, (int, float)) and not isinstance(x, bool) for x in (value, top)) or top <= 0:
        return None
    if not math.isfinite(value):
        return None
    p = min(max(value / top, 0.0), 1.0)
    n: float | None = None
    if se is not None and math.isfinite(se) and se > 0 and 0.0 < p < 1.0:
        n = p * (1.0 - p) / (se / top) ** 2
    elif isinstance(units, (int, float)) and not isinstance(units, bool):
        n = float(units)
    found = wilson(p * n, n) if n is not None else None
    return (found[0] * top, found[1] * top) if found is not None else None


P_FLOOR = 1e-6  # p-values below this print as "< 1e-6": the normal tail is not known that far out


def p_text(p: object) -> str:
    """A p-value as ``food-tasks compare`` and the report print it: three decimals (``0.049``, ``1.000``), two
    significant digits below 0.001 (``4.4e-05``), ``< 1e-6`` below :data:`P_FLOOR`; ``not testable`` for a
    ``"absent: not testable ..."`` value (:data:`food_tasks.hooks.rotation.NOT_TESTABLE`); ``n/a`` for anything else
    that is not a finite number (None, NaN, a bool)."""
    if isinstance(p, str) and p.startswith("absent: not testable"):
        return "not testable"
    if isinstance(p, bool) or not isinstance(p, (int, float)) or not math.isfinite(p):
        return "n/a"
    if p < P_FLOOR:
        return "< 1e-6"
    return f"{p:.3f}" if p >= 0.001 else f"{p:.1e}"


def interval_p(c: Any, scale: float = 1.0, decimals: int = 2) -> tuple[str, str]:
    """The 95% interval and p-value cells of a comparison (a :class:`food_tasks.stats.uncertainty.Comparison`;
    :func:`p_text`), the interval's bounds times ``scale`` with ``decimals`` decimals: ``n/a`` for an undefined
    difference, and below :data:`MIN_UNITS` independent units, where no verdict is given: the normal interval is not to
    be trusted there (it can cross the metric's bounds: +108.67 points for a difference of two percentages) and
    neither is its p-value. ``food-tasks compare`` and the report's tables of differences both use it."""
    if not math.isfinite(c.diff) or c.clusters < MIN_UNITS or c.low is None or c.high is None:
        return "n/a", "n/a"
    return f"[{c.low * scale:+.{decimals}f}, {c.high * scale:+.{decimals}f}]", p_text(c.p)
