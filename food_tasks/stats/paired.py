"""Paired statistics of two sets of per-document records: the statistics of ``food-tasks compare``, the report's
paired tables, the image gain and lmms-eval's ``--baseline`` (:mod:`food_tasks.lmms.errorbars` during a run,
:mod:`food_tasks.runs` from files), on records matched by document identity, never by position.

* :class:`RunTask`: one task's table and records; :func:`compare_tasks`: A minus B of a task's metrics;
* :func:`headline_of`: the headline rule; :func:`paired_gain`: a task's image gain over its image-free twin;
* :func:`reduce_group`: a group's reduction of its tasks' values (mean, weighted, best-of, official rounding);
  :func:`paired_group`: A minus B of a group's aggregate, one joint paired cluster bootstrap; :func:`best_of`: a
  best-of-templates group's selection bias;
* :func:`paired_means`: two runs' means of per-unit values (consistency measures) on the same clusters.

A table is duck-typed (a :class:`food_tasks.hooks.convention.MetricTable`: ``doc_key``, ``cluster_of``,
``in_order``, ``headline`` and its metrics by name); nothing of ours is imported but the statistics.
"""

from __future__ import annotations

import math
from collections.abc import Hashable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from food_tasks.stats import uncertainty as stats

Unit = tuple[Hashable, Hashable, float]  # (unit, cluster, value): a per-unit value of a consistency measure


def reduce_group(entry: Mapping[str, Any], values: np.ndarray, sizes: list[int]) -> np.ndarray:
    """The group's reduction of its tasks' values, per resample (rows of ``values``)."""
    how = entry.get("aggregation", "mean")
    weighted = bool(entry.get("weight_by_size"))
    if how == "mean" or getattr(how, "__name__", "") in (
        "group_mean",
        "group_mean_official",
        "group_mean_official_numpy",
    ):
        # The official rounding of a mean moves it by at most 0.005: its error is the mean's.
        return values @ (np.asarray(sizes) / sum(sizes)) if weighted else values.mean(axis=1)
    if callable(how):
        return np.array([how(list(v), sizes, weighted) for v in values], dtype=float)
    raise ValueError(f"unknown group aggregation {how!r}")


@dataclass
class RunTask:
    """One task of a run read back from its files: the table and each document's record, keyed by identity."""

    table: Any  # a food_tasks.hooks.convention.MetricTable: doc_key, cluster_of, in_order, its metrics by name
    records: list[Mapping[str, Any]]
    tables: tuple[Any, ...] = ()

    def __post_init__(self) -> None:
        self.records = self.table.in_order(self.records)  # whatever order the samples file holds them in

    def by_key(self) -> dict[Hashable, Mapping[str, Any]]:
        """The task's records by document identity (the table's ``doc_key``)."""
        return {self.table.doc_key(r): r for r in self.records}

    def under(self, table: Any) -> RunTask:
        """The same task with its records reduced, and matched, by another of its tables (itself for its own)."""
        return self if table is self.table else RunTask(table, self.records, self.tables)


def compare_tasks(
    a: RunTask, b: RunTask, metrics: Iterable[str], iters: int, task: str = ""
) -> dict[str, stats.Comparison]:
    """A minus B for each named metric, on the documents both runs scored (matched by identity, never position)."""
    keys_a, keys_b = a.by_key(), b.by_key()
    if None in keys_a or None in keys_b:
        raise ValueError(f"{task}: its records carry no document identity; runs cannot be matched")
    shared = [k for k in keys_a if k in keys_b]
    records_a = [keys_a[k] for k in shared]
    records_b = [keys_b[k] for k in shared]
    clusters = [a.table.cluster_of(r) for r in records_a]
    out = {}
    for name in metrics:
        metric = a.table.get(name)
        # A judge figure's per-row verdicts are not in the samples: no pairing (and never a judge call from here).
        if metric is None or metric.estimator is None or not metric.estimator.from_samples or not shared:
            continue
        out[name] = stats.compare(
            metric.estimator, records_a, records_b, clusters, iters, stats.seed_for(task, metric.alias_of or name)
        )
    return out


@dataclass(frozen=True)
class ImageGain:
    """A task with images against its image-free twin on the documents both scored (values on the metric's scale)."""

    task: str
    twin: str
    metric: str
    with_image: float
    without_image: float  # answerable_without_image
    without_se: float | None
    gain: stats.Comparison  # image_gain: with minus without, paired by document, clustered
    higher_is_better: bool
    verdict: str = field(default="", init=False)  # the gain's verdict: "with > without", "no detectable difference" ...

    def __post_init__(self) -> None:
        object.__setattr__(self, "verdict", self.gain.verdict(self.higher_is_better, "with", "without"))


def headline_of(data: Any) -> str | None:
    """The task's headline metric (``data``: anything with a ``table``, a run's task data or a :class:`RunTask`): the
    one its table declares (``MetricTable.headline``, the report's headline column), else the first of its table
    with an estimator (as ``food-tasks compare`` takes it). The one rule of the report's headline, the image gain,
    ``food-tasks compare`` and lmms-eval's ``--baseline``."""
    first = next((m.name for m in data.table.values() if m.estimator is not None and m.alias_of is None), None)
    return data.table.headline or first


def paired_gain(ta: RunTask, tb: RunTask, task: str, twin: str, iters: int) -> ImageGain | None:
    """The image gain of ``task`` (records ``ta``) over its image-free ``twin`` (``tb``): the headline metric with
    the image minus without it on the documents both scored, paired by identity and clustered
    (:func:`compare_tasks`), and the image-free score on those documents with its clustered standard error. None
    without a headline metric or a shared document."""
    name = headline_of(ta)
    gain = compare_tasks(ta, tb, [name], iters, task).get(name) if name is not None else None
    if gain is None or name is None:
        return None
    keys_a = ta.by_key()
    shared = [r for k, r in tb.by_key().items() if k in keys_a]
    metric = tb.table.get(name) or ta.table[name]
    estimator = metric.estimator
    clusters = [tb.table.cluster_of(r) for r in shared]
    inverse, c = stats.cluster_index(clusters)
    without = float(estimator.combine(stats.cluster_sums(estimator.rows(shared), inverse, c).sum(0)))
    se = stats.estimate(estimator, shared, clusters, iters, stats.seed_for(twin, name)).se
    return ImageGain(task, twin, name, without + gain.diff, without, se, gain, metric.higher_is_better)


def from_samples(metric: Any) -> bool:
    """Whether a metric's per-document rows can be rebuilt from samples files (False: a judge's figure, which
    ``food-tasks compare`` and the report leave unpaired rather than call a judge)."""
    return metric is None or metric.estimator is None or bool(getattr(metric.estimator, "from_samples", True))


def paired_group(
    group: str,
    name: str,
    entry: Mapping[str, Any],
    members: Sequence[tuple[RunTask, RunTask]],
    metrics: Sequence[Any],
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


@dataclass(frozen=True)
class BestOf:
    """A best-of-k group (the max of its tasks' values): the max, the mean of the k, and the max's upward
    selection bias estimated by the cluster bootstrap (mean resampled max minus the max of the resampled means)."""

    best: float
    mean: float
    bias: float
    se: float | None
    tasks: int


def best_of(group: str, metric: str, blocks: Sequence[tuple[RunTask, Any, Any]], iters: int) -> BestOf:
    """The selection bias of a group whose ``metric`` is the max over its tasks: ``blocks`` holds each task's
    records, the table that holds the metric and the metric. The same clusters (questions) are resampled in every
    task."""
    # canonical cluster numbers across the tasks (the records: RunTask keeps them in canonical order)
    ids = [[table.cluster_of(r) for r in member.records] for member, table, _ in blocks]
    inverses, c = stats.joint_index(ids)
    parts = [(m.estimator, m.estimator.rows(member.records), inv) for (member, _, m), inv in zip(blocks, inverses)]
    full = np.array([float(est.combine(stats.cluster_sums(rows, inv, c).sum(0))) for est, rows, inv in parts])
    best, mean_of = float(np.nanmax(full)), float(np.nanmean(full))
    if iters <= 0 or c < 2:
        return BestOf(best, mean_of, math.nan, None, len(parts))
    weights = stats.bootstrap_weights(c, iters, stats.seed_for(group, metric, "best-of"))
    draws = np.stack(
        [np.asarray(est.combine(weights @ stats.cluster_sums(rows, inv, c)), dtype=float) for est, rows, inv in parts],
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
        len(parts),
    )


def paired_means(
    a: Iterable[Unit], b: Iterable[Unit], scale: float, iters: int, seed: int, pair_units: bool
) -> stats.Comparison:
    """Mean of ``a``'s per-unit values minus ``b``'s (``scale`` x), clustered, the same clusters for both runs.

    ``pair_units``: only the units both runs have count (an item answered in several languages by both); otherwise
    each run keeps its own units (``misled_rate`` counts the dishes a run got right without context) and the two
    ratios are compared over the union of their units, each unit in its cluster (the linearised paired ratio
    difference of :func:`food_tasks.stats.uncertainty.compare`)."""
    va = {u: (c, v) for u, c, v in a}
    vb = {u: (c, v) for u, c, v in b}
    units = sorted(va.keys() & vb.keys() if pair_units else va.keys() | vb.keys(), key=stats.canonical)
    records_a = [{"v": va[u][1] if u in va else None} for u in units]
    records_b = [{"v": vb[u][1] if u in vb else None} for u in units]
    clusters = [(va.get(u) or vb[u])[0] for u in units]
    return stats.compare(stats.mean(stats.field("v"), scale), records_a, records_b, clusters, iters, seed)
