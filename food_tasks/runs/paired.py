"""Two runs compared one task or group at a time (the report's paired tables): :func:`compare_one` reads it
(:func:`food_tasks.runs.run.read_one`) and computes its row (:func:`food_tasks.stats.comparison.one_row`);
:func:`best_of_bias`: a best-of-templates group's selection bias (:func:`food_tasks.stats.paired.best_of`).
``food-tasks compare`` reads both runs whole instead (:func:`food_tasks.runs.run.read_pair`)."""

from __future__ import annotations

from food_tasks.lmms.facts import group_entries as facts_group_entries
from food_tasks.runs.run import Run, read_one, read_pair
from food_tasks.stats import uncertainty as stats
from food_tasks.stats.comparison import (
    NOT_IN_SAMPLES,
    WHY_NOT_PAIRED,
    Row,
    few_note,
    main_rows,
    one_row,
)
from food_tasks.stats.paired import BestOf, best_of, from_samples

__all__ = [
    "NOT_IN_SAMPLES",
    "WHY_NOT_PAIRED",
    "BestOf",
    "Row",
    "best_of_bias",
    "compare_one",
    "compare_runs",
    "from_samples",
    "few_note",
    "group_entries",
]


def group_entries(group: str) -> list[dict]:
    """The ``aggregate_metric_list`` of one of our groups (aggregation callables resolved), or []: what a run's facts
    hold for it (:func:`food_tasks.lmms.facts.group_entries`)."""
    return [dict(e) for e in facts_group_entries(group)]


def compare_runs(a: Run, b: Run, metrics: str = "headline", iters: int = stats.DEFAULT_ITERS) -> list[Row]:
    """Paired differences of every task and group both runs report (``metrics``: ``headline``, each one's headline
    metric, or ``all``): the main rows of ``food-tasks compare`` (:func:`food_tasks.stats.comparison.main_rows`)."""
    return main_rows(read_pair(a, b).reads, metrics == "headline", iters)


def compare_one(a: Run, b: Run, name: str, metric: str, iters: int = stats.DEFAULT_ITERS) -> Row | None:
    """A minus B for one task's or group's metric (None when either run lacks it or its samples files)."""
    read = read_one(a, b, name)
    return one_row(read, metric, iters) if read is not None else None


def best_of_bias(run: Run, group: str, metric: str, iters: int = stats.DEFAULT_ITERS) -> BestOf | None:
    """The selection bias of a group whose metric is the max over its tasks (None for other groups, or
    without the tasks' samples files): :func:`food_tasks.stats.paired.best_of`."""
    entries = [e for e in group_entries(group) if str(e.get("metric")) == metric]
    if not entries or getattr(entries[-1].get("aggregation"), "__name__", "") != "group_max":
        return None
    members = run.members(group)
    if not members:
        return None
    found = [run.facts_of(t).metric(metric) for t in run.leaves(group)]
    if any(f is None or f[1].estimator is None or not from_samples(f[1]) for f in found):
        return None
    return best_of(group, metric, [(m, f[0], f[1]) for m, f in zip(members, found)], iters)  # type: ignore[index]
