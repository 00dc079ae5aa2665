"""Cells of the report's tables: where a column's value comes from in a run, and how a value is written."""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any

from food_tasks.confidence import Z95
from food_tasks.report.runs import Run
from food_tasks.report.spec import MISSING, BenchmarkSpec, Column, Partial


def fmt(value: Any, decimals: int) -> str:
    """A cell's text: ``decimals`` decimals for a number, the missing mark for None, NaN as NaN."""
    if value is None:
        return MISSING
    if isinstance(value, Partial):
        return f"{fmt(value.value, decimals)} ({value.ran} of {value.of})"
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return str(value)
    if isinstance(value, float) and math.isnan(value):
        return "NaN"
    return f"{value:.{decimals}f}"


def cell(run: Run, column: Column, variant: str, mode: tuple[str, str, str], official: bool) -> tuple[Any, str | None]:
    """(value, task) of the first source the run has. Official rows take only sources with an official
    metric (a robust number is never shown as official); rate columns are the same in both rows."""
    value, task, _ = source_cell(run, column, variant, mode, official)
    return value, task


def source_cell(run: Run, column: Column, variant: str, mode: tuple[str, str, str], official: bool) -> tuple[Any, str | None, str | None]:
    """:func:`cell` and the metric the value came from (None for a :class:`Partial` or nothing)."""
    for source in column.sources:
        if official and not column.rate and not source.official:
            continue
        fill = {"v": variant, "m": mode[1], "mode": mode[2]}
        task = source.task.format(**fill)
        if task not in run.metrics:
            continue
        metric = (source.official if official and not column.rate else source.metric).format(**fill)
        value = lookup(run.metrics[task], metric)
        scale = source.official_scale if official and not column.rate and source.official_scale is not None else column.scale
        if isinstance(value, (int, float)) and not isinstance(value, bool) and scale != 1.0:
            value = value * scale
        if value is not None:
            return value, task, metric
    return (*parts(run, column, variant, mode, official), None)


def parts(run: Run, column: Column, variant: str, mode: tuple[str, str, str], official: bool) -> tuple[Any, str | None]:
    """The mean of :attr:`Column.parts` over the parts the run has (:class:`Partial`), or ``(None, None)``."""
    fill = {"v": variant, "m": mode[1], "mode": mode[2]}
    found: list[tuple[float, str]] = []
    for source in column.parts:
        metric = source.official if official and not column.rate else source.metric
        task = source.task.format(**fill)
        value = lookup(run.metrics[task], metric.format(**fill)) if metric and task in run.metrics else None
        if isinstance(value, (int, float)) and not isinstance(value, bool) and not math.isnan(value):
            found.append((value * column.scale, task))
    if not found:
        return None, None
    return Partial(sum(v for v, _ in found) / len(found), len(found), len(column.parts)), found[0][1]


def lookup(metrics: Mapping[str, Any], metric: str) -> Any:
    """A metric's value; ``a/b/c`` walks into dict metrics (``per_region/Chinese/sla_accurate``). An
    ``"absent: <reason>"`` string met on the way is the value (rendered as absent with its reason)."""
    value: Any = metrics
    for part in metric.split("/"):
        if absent_reason(value) is not None:
            return value
        value = value.get(part) if isinstance(value, Mapping) else None
    return value


def absent_reason(value: Any) -> str | None:
    """The reason of an ``"absent: <reason>"`` metric value (a metric that could not be computed), else None."""
    if isinstance(value, str) and value.startswith("absent:"):
        return value.split(":", 1)[1].strip()
    return None


def tasks_of(spec: BenchmarkSpec, run: Run, variant: str) -> set[str]:
    """The tasks of ``spec`` (variant ``variant``) that the run has."""
    out = set()
    for table in spec.tables:
        for mode in table.modes:
            for column in table.columns:
                for source in column.sources + column.parts:
                    task = source.task.format(v=variant, m=mode[1], mode=mode[2])
                    if task in run.metrics:
                        out.add(task)
    return out


def binomial_half_width(percent: Any, n: Any) -> float | None:
    """The 95% half-width (percentage points) of a proportion given in percent over ``n`` independent documents."""
    if not isinstance(percent, (int, float)) or not isinstance(n, (int, float)) or n <= 0 or math.isnan(percent):
        return None
    p = min(max(percent / 100.0, 0.0), 1.0)
    return Z95 * 100.0 * math.sqrt(p * (1 - p) / n)


def mean_half_width(widths: Sequence[float | None]) -> float | None:
    """The half-width of the mean of independent cells (None if any cell has none)."""
    if not widths or any(w is None for w in widths):
        return None
    return math.sqrt(sum(w * w for w in widths)) / len(widths)  # type: ignore[operator]


def is_nan(value: Any) -> bool:
    """True for a float NaN."""
    return isinstance(value, float) and math.isnan(value)


def number(value: Any) -> float | None:
    """The value when it is a number (not a bool), else None."""
    return value if isinstance(value, (int, float)) and not isinstance(value, bool) else None


