"""Two runs compared on the documents both scored, from their files (``food-tasks compare``, the report).

A task's metrics are compared by document identity (:func:`food_tasks.lmms.errorbars.compare_tasks`, the function a run
calls for ``--baseline``); a group's aggregate by one joint paired cluster bootstrap over its tasks' documents, reduced
as the group declares (:func:`food_tasks.lmms.errorbars.reduce_group`, as during a run); a best-of-templates group's
selection bias.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from food_tasks.hooks.convention import Metric, MetricTable
from food_tasks.lmms.errorbars import RunTask, compare_tasks, headline_of, reduce_group
from food_tasks.runs.run import Run
from food_tasks.stats import uncertainty as stats
from food_tasks.stats.confidence import p_text
from food_tasks.tasks import catalogue

# Why a judge figure has no paired difference (:attr:`food_tasks.stats.estimators.Estimator.from_samples`): the
# row's note (it fits compare's last column), and the sentence compare and the report print once.
NOT_IN_SAMPLES = "judge verdicts not in samples"
WHY_NOT_PAIRED = (
    "the per-row judge verdicts are not in the samples files (the judge grades a task's rows when it aggregates), "
    "so compare the two reported values; a paired comparison needs both runs' verdicts, and neither `food-tasks "
    "compare` nor the report calls a judge"
)


def from_samples(metric: Metric | None) -> bool:
    """Whether a metric's per-document rows can be rebuilt from samples files (False: a judge's figure, which
    ``food-tasks compare`` and the report leave unpaired rather than call a judge)."""
    return metric is None or metric.estimator is None or bool(getattr(metric.estimator, "from_samples", True))


def few_note(comparison: stats.Comparison | None) -> str:
    """The warning of a comparison on too few independent units ("" when it has enough, or without one)."""
    return comparison.few_note() if comparison is not None else ""


def group_entries(group: str) -> list[dict]:
    """The ``aggregate_metric_list`` of one of our groups (aggregation callables resolved), or []."""
    path = catalogue.index().get(group)
    if path is None:
        return []
    entries = catalogue.yaml_key(path, "aggregate_metric_list") or []
    out = []
    for entry in entries:
        how = entry.get("aggregation", "mean")
        out.append({**entry, "aggregation": catalogue.function(how) or how})
    return out


def metric_of(tables: Sequence[MetricTable], name: str) -> tuple[MetricTable, Metric] | None:
    """The first table holding metric ``name``, and the metric."""
    for table in tables:
        if name in table:
            return table, table[name]
    return None


@dataclass(frozen=True)
class Row:
    """One line of a comparison: a task's or group's metric, both values, and A minus B."""

    name: str
    metric: str
    a: Any
    b: Any
    comparison: stats.Comparison | None
    higher_is_better: bool
    note: str = ""
    declared: Metric | None = None  # the metric as its task's table declares it (its scale, its estimator)


def compare_runs(a: Run, b: Run, metrics: str = "headline", iters: int = stats.DEFAULT_ITERS) -> list[Row]:
    """Paired differences of every task and group both runs report (``metrics``: ``headline`` (the first metric
    with an estimator of each task and each group metric) or ``all``)."""
    rows: list[Row] = []
    shared_tasks = [t for t in a.tasks if t in b.tasks]
    for task in shared_tasks:
        ta, tb = a.task(task), b.task(task)
        if ta is None or tb is None:
            missing = a.path if ta is None else b.path
            rows.append(
                Row(
                    task,
                    "",
                    None,
                    None,
                    None,
                    True,
                    f"no samples file of this task beside {missing} (run with --log_samples)",
                )
            )
            continue
        names = [m.name for m in ta.table.values() if m.estimator is not None and m.alias_of is None]
        headline = headline_of(ta)  # the one rule of the report's headline, the image gain and --baseline
        chosen = ([headline] if headline else []) if metrics == "headline" else names  # each with an estimator
        rows += [row for name in chosen if (row := _task_row(a, b, task, name, ta, tb, iters)) is not None]
    for group in [g for g in a.groups if g in b.groups]:
        rows += _compare_group(a, b, group, iters, headline=metrics == "headline")
    return rows


def _compare_group(
    a: Run, b: Run, group: str, iters: int, headline: bool = False, metric: str | None = None
) -> list[Row]:
    """The group's metrics in the order its ``aggregate_metric_list`` declares them (``headline``: the first one;
    ``metric``: that one alone, the others' bootstraps not run)."""
    entries = group_entries(group)
    if not entries:
        return []
    order = {str(e.get("metric")): i for i, e in reversed(list(enumerate(entries)))}
    leaves = a.leaves(group)
    members = [(a.task(t), b.task(t)) for t in leaves]
    if any(x is None or y is None for x, y in members):
        return []
    out = []
    for key in a.row(group):
        name, _, filter_key = key.partition(",")
        if not filter_key or "_stderr" in name or name.endswith(("_n", "_clusters")):
            continue
        if (headline and order.get(name) != 0) or metric not in (None, name):
            continue
        matching = [e for e in entries if str(e.get("metric")) in name]
        found = [metric_of(x.tables or (x.table,), name) for x, _ in members]
        if not matching or any(f is None or f[1].estimator is None for f in found):
            continue
        values = a.reported(group, name), b.reported(group, name)
        declared = found[0][1]  # type: ignore[index]
        if not all(from_samples(f[1]) for f in found):  # type: ignore[index]
            out.append(Row(group, name, *values, None, declared.higher_is_better, NOT_IN_SAMPLES, declared))
            continue
        result = _paired_group(group, name, matching[-1], members, [f[1] for f in found], iters)  # type: ignore[index]
        note = result.few_note() if result is not None else ""
        out.append(
            Row(
                group,
                name,
                *values,
                result,
                found[0][1].higher_is_better,
                note,
                found[0][1],
            )
        )  # type: ignore[index]
    return sorted(out, key=lambda row: order.get(row.metric, len(order)))


def _paired_group(
    group: str,
    name: str,
    entry: Mapping[str, Any],
    members: Sequence[tuple[RunTask, RunTask]],
    metrics: list[Metric],
    iters: int,
) -> stats.Comparison | None:
    """A minus B of a group's aggregate: one joint paired cluster bootstrap over the documents both runs scored."""
    parts = []
    n = 0
    ids = []
    for (ta, tb), metric in zip(members, metrics):
        keys_a, keys_b = ta.by_key(), tb.by_key()
        shared = [k for k in keys_a if k in keys_b]
        ra, rb = [keys_a[k] for k in shared], [keys_b[k] for k in shared]
        ids.append([ta.table.cluster_of(r) for r in ra])
        parts.append((metric.estimator, metric.estimator.rows(ra), metric.estimator.rows(rb), None, len(ra)))
        n += len(shared)
    inverses, c = stats.joint_index(ids)  # canonical cluster numbers: the same seed resamples the same clusters
    parts = [(est, ra, rb, inverse, size) for (est, ra, rb, _, size), inverse in zip(parts, inverses)]
    sizes = [p[4] for p in parts]
    full = np.array(
        [
            [float(est.combine(stats.cluster_sums(rows, inv, c).sum(0))) for rows in (ra, rb)]
            for est, ra, rb, inv, _ in parts
        ]
    )
    diff = float(
        reduce_group(entry, full[:, 0][None, :], sizes)[0] - reduce_group(entry, full[:, 1][None, :], sizes)[0]
    )
    if iters <= 0 or c < 2:
        return stats.Comparison(diff, None, None, None, None, n, c, None, "none")
    weights = stats.bootstrap_weights(c, iters, stats.seed_for(group, metrics[0].alias_of or name))
    va = np.stack(
        [
            np.asarray(est.combine(weights @ stats.cluster_sums(ra, inv, c)), dtype=float)
            for est, ra, _, inv, _ in parts
        ],
        axis=1,
    )
    vb = np.stack(
        [
            np.asarray(est.combine(weights @ stats.cluster_sums(rb, inv, c)), dtype=float)
            for est, _, rb, inv, _ in parts
        ],
        axis=1,
    )
    diffs = reduce_group(entry, va, sizes) - reduce_group(entry, vb, sizes)
    diffs = diffs[np.isfinite(diffs)]
    if len(diffs) < max(2, iters // 2):
        return stats.Comparison(diff, None, None, None, None, n, c, None, "none")
    se = float(np.std(diffs, ddof=1))
    p = stats.normal_p(diff / se) if se > 0 else (1.0 if diff == 0 else 0.0)
    return stats.Comparison(
        diff,
        se,
        diff - stats.Z95 * se,
        diff + stats.Z95 * se,
        p,
        n,
        c,
        (stats.Z95 + stats.Z80) * se,
        "paired bootstrap",
    )


def compare_one(a: Run, b: Run, name: str, metric: str, iters: int = stats.DEFAULT_ITERS) -> Row | None:
    """A minus B for one task's or group's metric (None when either run lacks it or its samples files)."""
    if name in a.tasks and name in b.tasks:
        ta, tb = a.task(name), b.task(name)
        return _task_row(a, b, name, metric, ta, tb, iters) if ta is not None and tb is not None else None
    if name in a.groups and name in b.groups:
        return next(iter(_compare_group(a, b, name, iters, metric=metric)), None)
    return None


def _task_row(a: Run, b: Run, task: str, metric: str, ta: RunTask, tb: RunTask, iters: int) -> Row | None:
    """A minus B for one metric of a task both runs read back (``ta``, ``tb``), matched by document identity in the
    first of the task's tables that holds the metric; None when none does, or without an estimator; no comparison,
    the reported values and :data:`NOT_IN_SAMPLES`, for a judge's figure (:func:`from_samples`)."""
    found = metric_of(ta.tables or (ta.table,), metric)
    if found is None or found[1].estimator is None:
        return None
    table, declared = found
    values = a.reported(task, metric), b.reported(task, metric)  # the reported values, then the comparison
    if not from_samples(declared):  # the judge's verdicts are not in the files: never re-judged here
        return Row(task, metric, *values, None, declared.higher_is_better, NOT_IN_SAMPLES, declared)
    ta, tb = ta.under(table), tb.under(table)  # matched by the table that holds the metric
    comparison = compare_tasks(ta, tb, [metric], iters, task).get(metric)
    return Row(task, metric, *values, comparison, declared.higher_is_better, few_note(comparison), declared)


@dataclass(frozen=True)
class BestOf:
    """A best-of-k group (the max of its tasks' values): the max, the mean of the k, and the max's upward
    selection bias estimated by the cluster bootstrap (mean resampled max minus the max of the resampled means)."""

    best: float
    mean: float
    bias: float
    se: float | None
    tasks: int


def best_of_bias(run: Run, group: str, metric: str, iters: int = stats.DEFAULT_ITERS) -> BestOf | None:
    """The selection bias of a group whose metric is the max over its tasks (None for other groups, or
    without the tasks' samples files). The same clusters (questions) are resampled in every task."""
    entries = [e for e in group_entries(group) if str(e.get("metric")) == metric]
    if not entries or getattr(entries[-1].get("aggregation"), "__name__", "") != "group_max":
        return None
    members = run.members(group)
    if not members:
        return None
    found = [metric_of(m.tables or (m.table,), metric) for m in members]
    if any(f is None or f[1].estimator is None or not from_samples(f[1]) for f in found):
        return None
    # canonical cluster numbers across the tasks (the records: RunTask keeps them in canonical order)
    pairs = list(zip(members, found))
    ids = [[table.cluster_of(r) for r in member.records] for member, (table, _) in pairs]  # type: ignore[misc, union-attr]
    inverses, c = stats.joint_index(ids)
    blocks = [
        (m.estimator, m.estimator.rows(member.records), inv)  # type: ignore[misc, union-attr]
        for (member, (_, m)), inv in zip(pairs, inverses)
    ]
    full = np.array([float(est.combine(stats.cluster_sums(rows, inv, c).sum(0))) for est, rows, inv in blocks])
    best, mean_of = float(np.nanmax(full)), float(np.nanmean(full))
    if iters <= 0 or c < 2:
        return BestOf(best, mean_of, math.nan, None, len(blocks))
    weights = stats.bootstrap_weights(c, iters, stats.seed_for(group, metric, "best-of"))
    draws = np.stack(
        [np.asarray(est.combine(weights @ stats.cluster_sums(rows, inv, c)), dtype=float) for est, rows, inv in blocks],
        axis=1,
    )
    maxima = np.nanmax(draws, axis=1)
    # Bias = E*[max_k t*_k] - max_k E*[t*_k]: the bootstrap means of the k templates stand in for the full-sample
    # values (equal in expectation for a mean), which removes the Monte Carlo noise of the draws' average from the
    # difference and keeps it >= 0 (the mean of maxima is never below the maximum of means).
    return BestOf(
        best,
        mean_of,
        float(np.mean(maxima) - np.nanmax(np.nanmean(draws, axis=0))),
        float(np.std(maxima, ddof=1)),
        len(blocks),
    )


def interval_p(c: stats.Comparison, scale: float = 1.0, decimals: int = 2) -> tuple[str, str]:
    """The 95% interval and p-value cells of a comparison (:func:`food_tasks.stats.confidence.p_text`), the interval's
    bounds times ``scale`` with ``decimals`` decimals: ``n/a`` for an undefined difference, and below
    :data:`food_tasks.stats.uncertainty.MIN_UNITS` independent units, where no verdict is given: the normal interval is
    not to be trusted there (it can cross the metric's bounds: +108.67 points for a difference of two percentages) and
    neither is its p-value. ``food-tasks compare`` and the report's tables of differences both use it."""
    if not math.isfinite(c.diff) or c.clusters < stats.MIN_UNITS or c.low is None or c.high is None:
        return "n/a", "n/a"
    return f"[{c.low * scale:+.{decimals}f}, {c.high * scale:+.{decimals}f}]", p_text(c.p)
