"""Cells of the report's tables: where a column's value comes from in a run, and how a value is written."""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
from typing import Any

from food_tasks.lmms import runfiles
from food_tasks.report.runs import Run
from food_tasks.report.spec import FILTER, MISSING, UNDEFINED, BenchmarkSpec, Column, Partial, Variant
from food_tasks.stats.confidence import Z95, wilson, wilson_effective


class Placed:
    """A :class:`~food_tasks.report.spec.Variant` placed in runs: the run's task for each full-data task name its
    templates make (the name itself, or for a declared kind the run's task declaring it)."""

    def __init__(self, variant: Variant) -> None:
        self.variant = variant
        self._found: dict[int, dict[str, str]] = {}  # id(run) -> {full-data task: the run's task of this kind}

    @property
    def suffix(self) -> str:
        """``_<tag>`` (empty for the main section): the section's part of a chart's file name, a label only."""
        return f"_{self.variant.tag}" if self.variant.tag else ""

    def name(self, template: str, **more: str) -> str:
        """The full-data task a template names in this section (``more``: the mode's parts, ``{m}``, ``{mode}``)."""
        return template.format(**dict(self.variant.fill), **more)

    def task(self, run: Run, name: str) -> str | None:
        """The run's task that stands for full-data task ``name`` in this section, None when the run has none."""
        kind = self.variant.kind
        if kind is None:
            return name if name in run.metrics else None
        if id(run) not in self._found:
            found: dict[str, str] = {}
            for task, facts in sorted(run.facts.items()):  # every task and group the run reports
                if facts.variant is not None and facts.variant[0] == kind:
                    found.setdefault(facts.variant[1], task)
            self._found[id(run)] = found
        return self._found[id(run)].get(name)

    def value(self, run: Run, name: str, metric: str) -> Any:
        """``metric`` of the run's task for full-data task ``name`` (None when the run has none)."""
        task = self.task(run, name)
        return run.value(task, metric) if task is not None else None

    def shown(self, runs: list[Run] | tuple[Run, ...], name: str) -> str:
        """The name a chart of full-data task ``name`` is filed under: the first run's task for it (``name`` when
        no run has one)."""
        return next((t for r in runs if (t := self.task(r, name)) is not None), name)


def fmt(value: Any, decimals: int) -> str:
    """A cell's text: ``decimals`` decimals for a number, the missing mark for None, the undefined mark for NaN
    (:func:`undefined_as_nan`: a results file's ``null`` metric reads as NaN too)."""
    if value is None:
        return MISSING
    if isinstance(value, Partial):
        return f"{fmt(value.value, decimals)} ({value.ran} of {value.of})"
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return str(value)
    if isinstance(value, float) and math.isnan(value):
        return UNDEFINED
    return f"{value:.{decimals}f}"


def undefined_as_nan(runs: Iterable[Run]) -> list[str]:
    """A metric whose value is ``null`` in a results file (an undefined metric, written as strict JSON) becomes NaN
    in the runs, as a metric written as ``NaN`` is: both read as undefined everywhere in the report, never as a
    metric the run lacks (a metric the run lacks has no key at all). Returns, first, each results file that is not
    strict JSON (a bare ``NaN``: another tool, a hand edit) and what is non-standard, for the report's warning."""
    runs = list(runs)
    not_strict = [f"`{p}`: {_where(data)}" for run in runs for p, data in run.data.items() if runfiles.not_strict(data)]
    for run in runs:
        for values in run.metrics.values():
            for metric, value in values.items():
                if value is None:
                    values[metric] = math.nan
    return not_strict


def _where(data: Mapping[str, Any], shown: int = 3) -> str:
    """Where a results file holds a number strict JSON cannot write (:func:`food_tasks.lmms.runfiles.non_finite`)."""
    found = [where for where, _ in runfiles.non_finite(data)]
    return ", ".join(found[:shown]) + (f" and {len(found) - shown} more" if len(found) > shown else "")


def cell(
    run: Run, column: Column, placed: Placed, mode: tuple[str, str, str], official: bool
) -> tuple[Any, str | None]:
    """(value, task) of the first source the run has (in the section ``placed``). Official rows take only sources
    with an official metric (a robust number is never shown as official); rate columns are the same in both rows."""
    value, task, _ = source_cell(run, column, placed, mode, official)
    return value, task


def source_cell(
    run: Run, column: Column, placed: Placed, mode: tuple[str, str, str], official: bool
) -> tuple[Any, str | None, str | None]:
    """:func:`cell` and the metric the value came from (None for a :class:`Partial` or nothing)."""
    for source in column.sources:
        if official and not column.rate and not source.official:
            continue
        fill = {"m": mode[1], "mode": mode[2]}
        task = placed.task(run, placed.name(source.task, **fill))
        if task is None:
            continue
        metric = (source.official if official and not column.rate else source.metric).format(**fill)
        value = lookup(run.metrics[task], metric)
        if isinstance(value, (int, float)) and not isinstance(value, bool) and column.scale != 1.0:
            value = value * column.scale
        if value is not None:
            return value, task, metric
    return (*parts(run, column, placed, mode, official), None)


def parts(
    run: Run, column: Column, placed: Placed, mode: tuple[str, str, str], official: bool
) -> tuple[Any, str | None]:
    """The mean of :attr:`Column.parts` over the parts the run has (:class:`Partial`), or ``(None, None)``."""
    fill = {"m": mode[1], "mode": mode[2]}
    found: list[tuple[float, str]] = []
    for source in column.parts:
        metric = source.official if official and not column.rate else source.metric
        task = placed.task(run, placed.name(source.task, **fill))
        value = lookup(run.metrics[task], metric.format(**fill)) if metric and task is not None else None
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


def tasks_of(spec: BenchmarkSpec, run: Run, placed: Placed) -> set[str]:
    """The tasks of ``spec`` that the run has in the section ``placed``."""
    out = set()
    for table in spec.tables:
        for mode in table.modes:
            for column in table.columns:
                for source in column.sources + column.parts:
                    task = placed.task(run, placed.name(source.task, m=mode[1], mode=mode[2]))
                    if task is not None:
                        out.add(task)
    return out


def binomial_interval(percent: Any, n: Any) -> tuple[float, float] | None:
    """The 95% Wilson interval (percent) of a proportion given in percent over ``n`` independent units
    (:func:`food_tasks.stats.confidence.wilson`: never zero-wide at 0/n or n/n, never outside [0, 100])."""
    if not isinstance(percent, (int, float)) or isinstance(percent, bool) or math.isnan(percent):
        return None
    found = wilson(percent / 100.0 * n, n) if isinstance(n, (int, float)) and not isinstance(n, bool) else None
    return (100.0 * found[0], 100.0 * found[1]) if found is not None else None


def bounds_text(bounds: tuple[float, float] | None, decimals: int) -> str:
    """`` [low, high]`` of an interval (empty without one)."""
    return f" [{fmt(bounds[0], decimals)}, {fmt(bounds[1], decimals)}]" if bounds is not None else ""


def interval_of(
    value: Any,
    se: float | None,
    units: Any,
    decimals: int,
    scale: float = 1.0,
    proportion: bool = True,
    bounds: tuple[float, float] | None = None,
) -> tuple[float, float, bool] | None:
    """The 95% interval :func:`with_interval` writes, as ``(low, high, normal)`` on the shown scale (``normal``:
    the symmetric ``v ± 1.96 se``); None where it writes none (no value or standard error, or all units alike).
    Charts draw their error bars from it, so a bar never leaves the range the table's interval keeps."""
    if number(value) is None or math.isnan(value):
        return None
    if bounds is not None:
        return bounds[0] * scale, bounds[1] * scale, False
    if se is None:
        return None
    half = Z95 * se * scale
    top = (100.0 if decimals <= 2 else 1.0) if proportion and decimals >= 1 else None
    if half > 0 and top is not None and 0 <= value <= top and (value - half < 0 or value + half > top):
        found = wilson_effective(value, se * scale, top, units)
        if found is not None:
            return found[0], found[1], False
    if half > 0:
        return value - half, value + half, True
    top = 100.0 if value in (0, 100) and decimals <= 2 else 1.0 if value in (0, 1) and decimals >= 3 else None
    top = top if proportion and decimals >= 1 else None
    found = wilson(value / top * units, units) if top is not None and number(units) else None
    return (found[0] * top, found[1] * top, False) if found is not None else None


def with_interval(
    value: Any,
    se: float | None,
    units: Any,
    decimals: int,
    scale: float = 1.0,
    proportion: bool = True,
    bounds: tuple[float, float] | None = None,
) -> str:
    """A value and its 95% interval: ``v ± 1.96 se`` (``se`` on the metric's scale, times ``scale``); ``bounds``
    (the stored interval where it is not the normal one, :func:`stored_interval`, on the metric's scale) as
    ``v [low, high]``. A proportion whose normal interval would leave 0-100 % (0-1) gets its Wilson interval over
    the units the standard error is worth (:func:`food_tasks.stats.confidence.wilson_effective`); where the normal
    interval would be 0 wide (every independent unit scored alike), a proportion at its bound gets the Wilson
    interval over its ``units``, and any other value (``proportion=False``: an error score, a count shown without
    decimals) says it has no interval (:func:`interval_of` gives the bounds)."""
    text = fmt(value, decimals)
    if number(value) is None or math.isnan(value) or (bounds is None and se is None):
        return text
    found = interval_of(value, se, units, decimals, scale, proportion, bounds)
    if found is None:
        return f"{text} (no interval: all units alike)"
    if found[2]:
        return f"{text} ± {fmt(Z95 * se * scale, decimals)}"
    return text + bounds_text(found[:2], decimals)


def column_interval(
    value: Any, se: float | None, units: Any, column: Column, bounds: tuple[float, float] | None = None
) -> str:
    """:func:`with_interval` for a cell of ``column`` (its decimals and scale; a Wilson interval only for a
    proportion that is not an error score)."""
    proportion = column.proportion and not column.lower_is_better
    return with_interval(value, se, units, column.decimals, column.scale, proportion, bounds)


def stored_interval(run: Run, task: str, metric: str) -> tuple[float, float] | None:
    """The 95% interval the results file stores for ``metric`` where it is not the normal one
    (``<metric>_stderr_ci``: Wilson for a proportion, the cluster bootstrap's percentile interval for a skewed or
    bounded statistic, :mod:`food_tasks.stats.intervals`), on the metric's scale; None otherwise."""
    for key, found in run.row(task).items():
        name, _, filter_key = str(key).partition(",")
        if name == f"{metric}_stderr_ci" and filter_key == FILTER and isinstance(found, Mapping):
            low, high = number(found.get("low")), number(found.get("high"))
            return (low, high) if low is not None and high is not None else None
    return None


def run_interval(run: Run, task: str, metric: str) -> tuple[Any, Any, Any, tuple[float, float] | None]:
    """``(value, se, units, stored interval)`` of a run's metric: the inputs of :func:`interval_of` and
    :func:`with_interval` (before their ``decimals``)."""
    value, se, units = run.value(task, metric), run.se(task, metric), run.unit_count(task, metric)
    return value, se, units, stored_interval(run, task, metric)


def is_nan(value: Any) -> bool:
    """True for a float NaN."""
    return isinstance(value, float) and math.isnan(value)


def number(value: Any) -> float | None:
    """The value when it is a number (not a bool), else None."""
    return value if isinstance(value, (int, float)) and not isinstance(value, bool) else None
