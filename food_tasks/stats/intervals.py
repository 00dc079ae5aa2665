"""95 % intervals that stay within a statistic's range.

A standard error gives the normal interval ``value +- 1.96 se``. That interval is kept where it lies within the
range the statistic can take, and replaced where it would leave it:

* a **proportion** (a mean of values in [0, 1]: accuracies, rates, shares of items; on its scale, 0-100 for
  percent) by its Wilson interval over the effective number of independent units (``p (1 - p) / se^2``: the
  clustered standard error's worth of independent units; at 0 or 100 %, the clusters themselves),
  :func:`food_tasks.stats.confidence.wilson_effective`;
* any other statistic that cannot be negative (a mean error, BLEU, a macro mean of non-negative values) by the
  percentile interval of its cluster bootstrap (the 2.5th and 97.5th percentiles of the resampled values: each is a
  value of the statistic, so the interval never leaves its range);
* a **skewed** statistic (an estimator with ``skewed = True``: RStd, a standard deviation of a few recalls, biased
  upward on few answers) always takes the percentile interval, which is asymmetric and may lie above the value.

Where no resample was drawn (the bootstrap turned off), the normal interval is cut at the bound and says so.
The method is named with the interval (:attr:`Interval.method`), and the results JSON stores it beside the standard
error where it is not the normal one (``<metric>_stderr_ci``). Every resample is seeded and drawn over clusters in
canonical order (:mod:`food_tasks.stats.uncertainty`), so an interval is a function of the set of documents.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from food_tasks.stats.confidence import Z95, wilson_effective
from food_tasks.stats.estimators import Custom, Estimator, Macro, Ratio, ratio_combine

NORMAL = "normal"
WILSON = "Wilson, effective n"
PERCENTILE = "cluster bootstrap percentile"
CUT = "normal, cut at the bound"
UNBOUNDED = (-math.inf, math.inf)


@dataclass(frozen=True)
class Interval:
    """A 95 % interval and how it was computed (:data:`NORMAL`, :data:`WILSON`, :data:`PERCENTILE`, :data:`CUT`)."""

    low: float
    high: float
    method: str

    def as_dict(self) -> dict[str, Any]:
        """``{"low", "high", "method"}``: the results JSON's ``<metric>_stderr_ci``."""
        return {"low": self.low, "high": self.high, "method": self.method}


def support(
    estimator: Estimator, rows: np.ndarray, value: float | None = None, draws: np.ndarray | None = None
) -> tuple[float, float]:
    """The range the estimator's statistic can take on these documents.

    Its declared ``bounds``; for a ratio of ``[num, den]`` rows (a mean, a micro rate) ``(0, scale)`` when every
    row has ``0 <= num <= den`` (a proportion), ``(0, inf)`` when every ``num`` is non-negative; for a macro mean
    the same from its per-group columns (rows per document or summed per cluster); for any other statistic
    ``(0, inf)`` when its value and every resampled value are non-negative; ``(-inf, inf)`` otherwise."""
    declared = getattr(estimator, "bounds", None)
    if declared is not None:
        return float(declared[0]), float(declared[1])
    rows = np.asarray(rows, dtype=float)
    scale = _ratio_scale(estimator)
    if scale is not None and rows.ndim == 2 and rows.shape[1] == 2:
        num, den = rows[:, 0], rows[:, 1]
        counted = den != 0
        if counted.any() and np.all(den[counted] > 0) and np.all(num[counted] >= 0) and scale > 0:
            return (0.0, scale) if np.all(num[counted] <= den[counted]) else (0.0, math.inf)
        return UNBOUNDED
    if isinstance(estimator, Macro) and rows.ndim == 2 and rows.shape[1]:
        g = rows.shape[1] // 2
        num, den = rows[:, :g], rows[:, g:]
        counted = den != 0
        if counted.any() and np.all(num[counted] >= 0) and estimator.scale > 0:
            return (0.0, float(estimator.scale)) if np.all(num[counted] <= den[counted]) else (0.0, math.inf)
        return UNBOUNDED
    if value is not None and draws is not None and math.isfinite(value) and value >= 0:
        finite = draws[np.isfinite(draws)]
        if finite.size and finite.min() >= 0:
            return (0.0, math.inf)
    return UNBOUNDED


def _ratio_scale(estimator: Estimator) -> float | None:
    if isinstance(estimator, Ratio):
        return float(estimator.scale)
    combine = getattr(estimator, "_combine", None) if isinstance(estimator, Custom) else None
    return float(combine.scale) if isinstance(combine, ratio_combine) else None


def is_binary(estimator: Estimator, rows: np.ndarray) -> bool:
    """Every counted document scores 0 or 1 (a ratio's ``num`` is 0 or its ``den``; a macro mean's value 0 or 1):
    a share of successes, whose 0-wide interval at 0 or 100 % is Wilson's over its units."""
    rows = np.asarray(rows, dtype=float)
    if _ratio_scale(estimator) is not None and rows.ndim == 2 and rows.shape[1] == 2:
        num, den = rows[:, 0], rows[:, 1]
        counted = den != 0
        return bool(counted.any() and np.all((num[counted] == 0) | (num[counted] == den[counted])))
    if isinstance(estimator, Macro) and rows.ndim == 2 and rows.shape[1]:
        g = rows.shape[1] // 2
        values = rows[:, :g][rows[:, g:] != 0]
        return bool(values.size and np.all((values == 0) | (values == 1)))
    return False


def is_proportion(bounds: tuple[float, float]) -> bool:
    """A range ``(0, top)`` with a finite top: the statistic is a proportion on a ``[0, top]`` scale."""
    return bounds[0] == 0 and math.isfinite(bounds[1]) and bounds[1] > 0


def percentile(draws: np.ndarray | None, iters: int) -> tuple[float, float] | None:
    """The 2.5th and 97.5th percentiles of the finite resampled values (None when fewer than half are finite)."""
    if draws is None:
        return None
    finite = np.sort(draws[np.isfinite(draws)])
    if len(finite) < max(2, iters // 2):
        return None
    low, high = np.percentile(finite, [2.5, 97.5])
    return float(low), float(high)


def choose(
    value: float | None,
    se: float | None,
    bounds: tuple[float, float],
    units: float | None,
    draws: np.ndarray | None = None,
    iters: int = 0,
    skewed: bool = False,
    binary: bool = False,
) -> Interval | None:
    """The 95 % interval of ``value`` (see the module's rules); None without a standard error or a finite value.

    ``bounds``: the statistic's range (:func:`support`); ``units``: the independent units behind it (a proportion's
    Wilson interval at its bound uses them); ``draws``: its cluster bootstrap's resampled values, when drawn;
    ``binary``: every document scores 0 or 1 (:func:`is_binary`): a 0-wide interval at 0 or 100 % becomes Wilson's
    over the units (otherwise it stays the normal one, 0 wide: every unit scored alike)."""
    if se is None or value is None or not math.isfinite(value) or not math.isfinite(se):
        return None
    if skewed:
        found = percentile(draws, iters)
        if found is not None and found[0] < found[1]:  # 0 wide: every resample alike, as the normal interval says
            return Interval(*found, PERCENTILE)
    low, high = value - Z95 * se, value + Z95 * se
    lo, hi = bounds
    at_bound = se == 0 and value in (lo, hi)
    if lo <= low and high <= hi and not (at_bound and binary and is_proportion(bounds)):
        return Interval(low, high, NORMAL)
    if is_proportion(bounds):
        found = wilson_effective(value, se, hi, units)
        if found is not None:
            return Interval(*found, WILSON)
    found = percentile(draws, iters)
    if found is not None:
        return Interval(*found, PERCENTILE)
    return Interval(max(low, lo), min(high, hi), CUT)


def of_estimator(
    estimator: Estimator,
    rows: np.ndarray,
    value: float,
    se: float | None,
    units: float | None,
    draws: np.ndarray | None = None,
    iters: int = 0,
    redraw: Callable[[], np.ndarray] | None = None,
) -> Interval | None:
    """The 95 % interval of an estimator's ``value`` on these documents' ``rows`` (:func:`choose` over its
    :func:`support`; a share of successes, :func:`is_binary`, where the estimator declares ``binary``), in one
    call. ``draws``: its cluster bootstrap's resampled values, when drawn; else ``redraw`` draws them (``iters``
    resamples) only where the normal interval would be cut at the bound and there are two units or more."""
    bounds = support(estimator, rows, value, draws)
    binary = bool(getattr(estimator, "binary", False)) and is_binary(estimator, rows)
    found = choose(value, se, bounds, units, draws, iters, estimator.skewed, binary)
    if draws is None and redraw is not None and found is not None and found.method == CUT and iters > 0:
        if units is not None and units >= 2:
            return choose(value, se, bounds, units, redraw(), iters, estimator.skewed, binary)
    return found


def value_bounds(values: Sequence[float], scale: float, difference: bool = False) -> tuple[float, float]:
    """The range of a mean of per-unit ``values`` times ``scale``: ``(0, scale)`` when every value is in [0, 1] (a
    proportion), ``(-scale, scale)`` in [-1, 1] (a paired difference of two proportions; always so for a
    ``difference``, whose values may all happen to be 0), unbounded otherwise."""
    finite = [v for v in values if math.isfinite(v)]
    if finite and scale > 0 and min(finite) >= 0 and max(finite) <= 1 and not difference:
        return 0.0, scale
    if finite and scale > 0 and min(finite) >= -1 and max(finite) <= 1:
        return -scale, scale
    return UNBOUNDED
