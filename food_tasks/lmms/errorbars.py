"""Standard errors, ``n`` and paired comparisons for our tasks and groups, from their documents.

During a run (:mod:`food_tasks.lmms.harness` calls these from lmms-eval's aggregation step):

* :func:`task_statistics`: for every metric of one of our tasks that declares an estimator
  (:attr:`food_tasks.hooks.convention.Metric.estimator`), its standard error (clustered analytic for ratios, cluster
  bootstrap otherwise; :mod:`food_tasks.stats.uncertainty`) into lmms-eval's ``<metric>_stderr`` (and
  ``_stderr_clustered`` for ratios), and the documents and clusters behind it;
* :func:`finish`: ``<metric>_n`` / ``<metric>_clusters`` next to each such metric in the results JSON; the
  standard error of each group's own aggregate (mean, best-of-templates, official rounding) by one joint
  cluster bootstrap over the documents of all its tasks (lmms-eval's pooled formula assumes independent
  subtasks and a plain mean; neither holds here); and, with lmms-eval's ``--baseline``, a paired
  comparison of each task's headline metric against the baseline run, matched by document identity.

The paired statistics (:func:`~food_tasks.stats.paired.compare_tasks` for ``--baseline``,
:func:`~food_tasks.stats.paired.paired_gain` for the image gain, :func:`~food_tasks.stats.paired.reduce_group`, the
headline rule :func:`~food_tasks.stats.paired.headline_of`) live in :mod:`food_tasks.stats.paired`; afterwards,
from files, :mod:`food_tasks.runs` (``food-tasks compare`` and the report) computes with the same functions.

Bootstrap resamples: lmms-eval's default ``bootstrap_iters`` (100,000) is replaced by
:data:`food_tasks.stats.uncertainty.DEFAULT_ITERS` (or ``FOOD_TASKS_BOOTSTRAP_ITERS``); another value passed to
``simple_evaluate`` is used as given; 0 turns the bootstrap off (analytic errors stay).
"""

from __future__ import annotations

import math
import os
from collections.abc import Hashable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
from loguru import logger

from food_tasks.hooks.convention import Metric, MetricTable, Payload
from food_tasks.lmms.runfiles import read_records, samples_file
from food_tasks.stats import consistency, intervals
from food_tasks.stats import uncertainty as stats
from food_tasks.stats.paired import RunTask, compare_tasks, headline_of, paired_gain, reduce_group
from food_tasks.tasks import registry

LMMS_EVAL_DEFAULT_ITERS = 100_000
ITERS_ENV = "FOOD_TASKS_BOOTSTRAP_ITERS"
MIN_SHARED = stats.MIN_UNITS  # fewer shared clusters than this: a comparison says it has too few to be trusted


def bootstrap_iters(requested: Any) -> int:
    """The resamples to draw: lmms-eval's default means ours; 0 (or less) turns the bootstrap off."""
    env = os.environ.get(ITERS_ENV, "").strip()
    if env:
        return max(0, int(env))
    if not isinstance(requested, int) or requested == LMMS_EVAL_DEFAULT_ITERS:
        return stats.DEFAULT_ITERS
    return max(0, requested)


@dataclass
class TaskData:
    """One of our tasks' per-document records, their table and clusters, and each metric's estimate."""

    table: MetricTable
    records: list[Mapping[str, Any]]
    clusters: list[Hashable]
    estimates: dict[str, stats.Estimate] = field(default_factory=dict)
    failed: int = 0
    sums: dict = field(default_factory=dict)  # stats.estimate_many(keep=...): per-cluster statistics for the groups
    variant: tuple[str, str] | None = None  # (kind, base task) its config's metadata declares: registry.variant_in


# Task name -> data of the run in progress (rank 0 only: lmms-eval aggregates there). Cleared by finish().
_RUN: dict[str, TaskData] = {}
_ITERS = [stats.DEFAULT_ITERS]


def current_iters() -> int:
    """The resamples of the run in progress (set by :func:`task_statistics`)."""
    return _ITERS[0]


def _payloads(items: Sequence[Any]) -> bool:
    return bool(items) and all(isinstance(x, Payload) for x in items)


def task_statistics(
    task: str,
    sample_metrics: Mapping[tuple[str, str], Sequence[Any]],
    agg_metrics: dict,
    iters: int,
    metadata: Mapping[str, Any] | None = None,
) -> None:
    """Fill ``<metric>_stderr,<filter>`` of one task's metrics that have an estimator; remember the task.

    Args:
        task: the task name; sample_metrics: lmms-eval's ``{(metric, filter): per-document values}``;
        agg_metrics: lmms-eval's aggregated values of the task (updated in place); iters: resamples;
        metadata: the task config's ``metadata``, where a variant names its base task (:func:`registry.variant_in`).
    """
    _ITERS[0] = iters
    data: TaskData | None = None
    wanted: list[tuple[str, str, Metric]] = []
    for (name, filter_key), items in sample_metrics.items():
        if not _payloads(items):
            continue
        if data is None:
            table = items[0].table
            # canonical: same documents, same numbers
            records = table.in_order([p.record for p in items], [p.key for p in items])
            data = TaskData(table, records, [table.cluster_of(r) for r in records], failed=sum(p.failed for p in items))
        if items[0].metric.estimator is not None:
            wanted.append((name, filter_key, items[0].metric))
    if data is None:
        return
    for (name, filter_key, _), est in zip(wanted, _estimates(data, [m for _, _, m in wanted], iters, task)):
        data.estimates[name] = est
        agg_metrics[f"{name}_stderr,{filter_key}"] = est.se if est.se is not None else "N/A"
    data.variant = registry.variant_in(metadata)
    _RUN[task] = data
    if data.failed:
        logger.warning(
            f"food-tasks: {task}: {data.failed} of {len(data.records)} requests got no answer from the backend "
            "(lmms-eval's failure marker); they are scored as unparseable (parse_fail_rate)."
        )


def _estimates(data: TaskData, metrics: list[Metric], iters: int, task: str) -> list[stats.Estimate]:
    try:
        return stats.estimate_many(
            [m.estimator for m in metrics], data.records, data.clusters, iters, stats.seed_for(task), keep=data.sums
        )
    except Exception as err:  # noqa: BLE001 - an error bar must never cost the run its numbers
        logger.warning(f"food-tasks: {task}: no standard errors ({type(err).__name__}: {err})")
        return [stats.Estimate(None, len(data.records), 0, "none") for _ in metrics]


def clustered_errors(task: str, agg_metrics: dict) -> None:
    """After lmms-eval's own CLT step, for our metrics with an estimator: ``_stderr_clustered`` is our standard
    error where it is clustered (analytic or bootstrap; "N/A", lmms-eval's "no clustering", where every document
    is its own cluster) and ``_stderr_clt`` the same estimator with every document independent, both on the
    metric's scale (lmms-eval's own read the 0/1 per-document scores)."""
    data = _RUN.get(task)
    if data is None:
        return
    for key in list(agg_metrics):
        name, _, filter_key = key.partition(",")
        for suffix in ("_stderr_clustered", "_stderr_clt"):
            if not name.endswith(suffix):
                continue
            metric = data.table.get(name.removesuffix(suffix))
            est = data.estimates.get(name.removesuffix(suffix))
            if metric is None or est is None:
                continue
            if suffix == "_stderr_clustered":
                agg_metrics[key] = est.se if est.clustered else "N/A"
            else:
                agg_metrics[key] = est.clt if est.clt is not None else "N/A"


STABILITY = ("_expected_accuracy", "_consensus_accuracy", "_internal_variance", "_consistency_rate")


def set_aside_stability(results: dict) -> dict:
    """Take our tasks' ``--repeats`` stability values out of ``results`` while lmms-eval consolidates groups.

    lmms-eval 0.7.3 averages every key of a group's tasks that is not a standard error, and asserts that each has
    one: the stability values have none, so any group of tasks run with ``--repeats`` fails. They are per task
    statistics; they come back after the groups (:func:`restore`)."""
    aside: dict[str, dict] = {}
    for task in _RUN:
        row = results.get(task)
        if isinstance(row, dict):
            keys = [k for k in row if k.partition(",")[0].endswith(STABILITY)]
            if keys:
                aside[task] = {k: row.pop(k) for k in keys}
    return aside


def restore(results: dict, aside: dict) -> None:
    """Put back into ``results`` what was set aside while lmms-eval consolidated groups, each key in its row: the
    stability metrics (:func:`set_aside_stability`) and the per-value breakdowns
    (:func:`food_tasks.lmms.names.set_aside_breakdowns`)."""
    for task, values in aside.items():
        results.setdefault(task, {}).update(values)


# --------------------------------------------------------------------------- after the groups


def finish(
    results: dict, groups: Mapping[str, tuple[Mapping[str, Any], list[str]]], baseline: str | None, iters: int
) -> None:
    """Add ``_n``/``_clusters``, group standard errors and the ``--baseline`` comparison; forget the run.

    Args:
        results: lmms-eval's per-task and per-group results (updated in place).
        groups: group name -> (group config, its tasks), for groups that aggregate metrics.
        baseline: lmms-eval's ``--baseline`` argument (a run's results file, samples file or folder), or None.
    """
    try:
        for task, data in _RUN.items():
            row = results.get(task)
            if row is None:
                continue
            for name, est in data.estimates.items():
                for key in [k for k in row if k.partition(",")[0] == name]:
                    filter_key = key.partition(",")[2]
                    row[f"{name}_n,{filter_key}"] = est.n
                    row[f"{name}_clusters,{filter_key}"] = est.clusters
                    row[f"{name}_stderr_method,{filter_key}"] = stats.describe(est, data.table.cluster_noun)
                    if est.interval is not None and est.interval.method != intervals.NORMAL:
                        row[f"{name}_stderr_ci,{filter_key}"] = est.interval.as_dict()
        for group, (config, tasks) in groups.items():
            if group in results and all(t in _RUN for t in tasks):
                _group_statistics(group, results[group], config, [(t, _RUN[t]) for t in tasks], iters)
        # Measures across tasks (languages in separate tasks, contexts of one group): food_tasks.stats.consistency.
        consistency.run_statistics(results, groups, _RUN)
        _image_gains(results, iters)  # a task and its image-free twin in one run
        if baseline:
            for task, data in _RUN.items():
                if task in results:
                    _baseline(task, results[task], data, baseline, iters)
    finally:
        _RUN.clear()


def _group_statistics(
    group: str, row: dict, config: Mapping[str, Any], members: list[tuple[str, TaskData]], iters: int
) -> None:
    entries = config.get("aggregate_metric_list") or []
    for key in list(row):
        name, _, filter_key = key.partition(",")
        if (
            not filter_key
            or "_stderr" in name
            or name.endswith(("_n", "_clusters"))
            or not isinstance(row[key], (int, float))
        ):
            continue
        # lmms-eval's rule: entries match metric names by substring, the last match wins
        matching = [e for e in entries if str(e.get("metric")) in name]
        if not matching:
            continue
        entry = matching[-1]
        metrics = [data.table.get(name) for _, data in members]
        if any(m is None or m.estimator is None for m in metrics):
            continue
        try:
            est = _group_se(group, name, entry, [(data, m) for (_, data), m in zip(members, metrics)], iters)
        except Exception as err:  # noqa: BLE001
            logger.warning(f"food-tasks: {group}: no standard error for {name} ({type(err).__name__}: {err})")
            continue
        method = stats.describe(est, members[0][1].table.cluster_noun)
        row[f"{name}_stderr,{filter_key}"] = est.se if est.se is not None else "N/A"
        row[f"{name}_stderr_clt,{filter_key}"] = est.clt if est.clt is not None else "N/A"
        row[f"{name}_stderr_clustered,{filter_key}"] = est.se if est.clustered else "N/A"
        joint = f", joint over the group's {len(members)} tasks" if est.se is not None else ""
        row[f"{name}_stderr_method,{filter_key}"] = method + joint
        row[f"{name}_n,{filter_key}"] = est.n
        row[f"{name}_clusters,{filter_key}"] = est.clusters
        if est.interval is not None and est.interval.method != intervals.NORMAL:
            row[f"{name}_stderr_ci,{filter_key}"] = est.interval.as_dict()


def _group_se(
    group: str, name: str, entry: Mapping[str, Any], members: list[tuple[TaskData, Metric]], iters: int
) -> stats.Estimate:
    """One joint cluster bootstrap over every member task's documents; each resample applies the group's own
    reduction to the members' resampled values. Its ``clt``: the same with every document its own unit."""
    blocks = []
    for data, metric in members:
        kept = data.sums.get(id(metric.estimator))
        if kept is None:  # not computed in the task step (no estimate there): compute it now
            keep: dict = {}
            stats.estimate_many([metric.estimator], data.records, data.clusters, 0, keep=keep)
            kept, ids = keep[id(metric.estimator)], keep["clusters"]
        else:
            ids = data.sums["clusters"]
        blocks.append((kept, ids))
    # clusters numbered in one canonical order across the tasks: a seed resamples the same dishes in any run
    units, n_units = stats.joint_index([ids for _, ids in blocks])
    n = sum(kept.n for kept, _ in blocks)
    counted_global = np.zeros(n_units, dtype=bool)
    for (kept, _), local in zip(blocks, units):
        counted_global[local[kept.counted]] = True
    clusters = int(counted_global.sum())
    if iters <= 0 or clusters < 2:
        return stats.Estimate(
            None,
            n,
            clusters,
            "none",
            note="bootstrap turned off (0 resamples)" if iters <= 0 else f"fewer than 2 independent units ({clusters})",
        )
    # Seeded by the metric an alias repeats (parse_fail_rate = invalid_rate ...): equal values, equal errors.
    seed = stats.seed_for(group, members[0][1].alias_of or name)
    sizes = [len(data.records) for data, _ in members]
    parts = [(m.estimator, local, kept.sums) for (_, m), (kept, _), local in zip(members, blocks, units)]
    draws = reduce_group(entry, stats.resample(parts, n_units, iters, seed), sizes)
    se = stats.spread(draws, iters)
    if n_units == sum(sizes):  # every cluster is one document: the independent-documents figure is the same
        clt = se
    else:  # every document of every task its own unit (records are in canonical order: TaskData)
        starts = np.cumsum([0, *sizes])
        parts = [
            (m.estimator, np.arange(starts[i], starts[i + 1]), m.estimator.rows(data.records))
            for i, (data, m) in enumerate(members)
        ]
        clt = stats.spread(reduce_group(entry, stats.resample(parts, int(starts[-1]), iters, seed), sizes), iters)
    if se is None:
        return stats.Estimate(None, n, clusters, "none", clt, note="fewer than half of the resamples give a number")
    # the 95 % interval within the range its members' statistics share (food_tasks.stats.intervals)
    value = float(
        reduce_group(entry, np.array([[float(np.asarray(p[0].combine(p[2].sum(0)))) for p in parts]]), sizes)[0]
    )
    ranges = [intervals.support(p[0], kept.sums) for p, (kept, _) in zip(parts, blocks)]
    bounds = (min(r[0] for r in ranges), max(r[1] for r in ranges))
    ci = intervals.choose(value, se, bounds, clusters, draws, iters)
    return stats.Estimate(se, n, clusters, "bootstrap", clt, iters, interval=ci)


def _image_gains(results: dict, iters: int) -> None:
    """``image_gain`` and ``answerable_without_image`` (each with ``_stderr``, and ``image_gain_n`` /
    ``image_gain_clusters``) in the row of every task whose image-free twin this run scored too: the numbers
    ``food-tasks compare`` and the report give for the pair (:func:`paired_gain`)."""
    for twin, without in _RUN.items():
        task = without.variant[1] if without.variant and without.variant[0] == "noimage" else None
        row = results.get(task) if task in _RUN else None
        if row is None:
            continue
        with_image = _RUN[task]  # type: ignore[index]
        try:
            found = paired_gain(
                RunTask(with_image.table, with_image.records),
                RunTask(without.table, without.records),
                task,
                twin,
                iters,
            )
        except (ValueError, KeyError) as err:  # records without identity: no pairing (compare says the same)
            logger.warning(f"food-tasks: {task}: no image gain over {twin} ({type(err).__name__}: {err})")
            continue
        if found is None:
            continue
        key = next((k for k in row if k.partition(",")[0] == found.metric), f"{found.metric},none")
        filter_key = key.partition(",")[2] or "none"
        c = found.gain
        row.update(
            {
                f"image_gain,{filter_key}": c.diff,
                f"image_gain_stderr,{filter_key}": c.se if c.se is not None else "N/A",
                f"image_gain_n,{filter_key}": c.n,
                f"image_gain_clusters,{filter_key}": c.clusters,
                f"answerable_without_image,{filter_key}": found.without_image,
                f"answerable_without_image_stderr,{filter_key}": found.without_se
                if found.without_se is not None
                else "N/A",
            }
        )


def _baseline(task: str, row: dict, data: TaskData, baseline: str, iters: int) -> None:
    """lmms-eval's ``paired_*`` columns for the task's headline metric (:func:`headline_of`)."""
    name = headline_of(data)
    if name is None:
        return
    headline = data.table[name]
    if headline.estimator is not None and not headline.estimator.from_samples:
        logger.warning(
            f"food-tasks: --baseline: {task}'s headline {name} is a judge figure whose verdicts are not in the samples "
            "files; no paired comparison for it (compare the two runs' reported values)"
        )
        return
    path = samples_file(Path(baseline), task)
    if path is None:
        logger.warning(
            f"food-tasks: --baseline {baseline}: no samples file of {task} there (the baseline run needs "
            "--log_samples); no paired comparison for it"
        )
        return
    try:
        other = RunTask(data.table, read_records(path, data.table))
        result = compare_tasks(RunTask(data.table, data.records), other, [headline.name], iters, task).get(
            headline.name
        )
    except (OSError, ValueError) as err:
        logger.warning(f"food-tasks: --baseline {path}: {err}")
        return
    if result is None:
        return
    base_value = headline.reduce(list(other.by_key().values()))
    row.update(
        {
            "paired_baseline": path.name,
            "paired_metric": headline.name,
            "paired_baseline_score": base_value,
            "paired_diff": result.diff,
            "paired_ci_lower": result.low,
            "paired_ci_upper": result.high,
            "paired_pvalue": result.p,
            "paired_n": result.n,
        }
    )
    if result.clusters < MIN_SHARED:
        logger.warning(
            f"food-tasks: {task}: the baseline shares only {result.n} documents in {result.clusters} independent units "
            "(clusters) with this run: too few to compare"
        )


def finite(value: Any) -> bool:
    """True for a finite int or float (a bool is no number here)."""
    return isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)
