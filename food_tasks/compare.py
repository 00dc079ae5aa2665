"""Runs read back from lmms-eval's files, and their paired comparison (``food-tasks compare``, the report).

A :class:`Run` is one results file (the newest below a folder, :mod:`food_tasks.runfiles`) and, per task, its
samples file (``--log_samples``: the first metric of each task logs the whole per-document record). Two runs are
compared on the documents both scored, matched by identity (:func:`food_tasks.errorbars.compare_tasks`); a
group's aggregate by one joint paired cluster bootstrap; a best-of-templates group's selection bias.
"""

from __future__ import annotations

import json
import math
import textwrap
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from food_tasks import stats
from food_tasks.confidence import p_text
from food_tasks.errorbars import RunTask, compare_tasks, few_note, group_entries, metric_of, reduce_group, tables_for
from food_tasks.hooks import Metric
from food_tasks.runfiles import newest_results, read_records, samples_file


@dataclass
class Run:
    """One run read back from lmms-eval's files: its results JSON and, per task, its samples file."""

    path: Path
    data: dict
    label: str
    read: dict[str, RunTask | None] = field(
        default_factory=dict, repr=False, compare=False
    )  # task -> its samples, read once

    @property
    def tasks(self) -> list[str]:
        """Tasks (not groups) the run reports."""
        return [t for t in (self.data.get("results") or {}) if t in (self.data.get("configs") or {})]

    @property
    def groups(self) -> list[str]:
        """Groups the run reports a value for (lmms-eval lists them under results, and under groups too)."""
        subtasks = self.data.get("group_subtasks") or {}
        reported = {**(self.data.get("results") or {}), **(self.data.get("groups") or {})}
        return [g for g, children in subtasks.items() if children and g in reported]

    def value(self, name: str, metric: str) -> Any:
        """The reported value of ``metric`` (any filter) for task or group ``name``; None when the run has none, NaN
        when it is undefined (``null`` in the results file, as lmms-eval writes it through our harness)."""
        for section in ("results", "groups"):
            row = (self.data.get(section) or {}).get(name) or {}
            for key, value in row.items():
                if key.partition(",")[0] == metric:
                    return math.nan if value is None else value
        return None

    def task(self, task: str) -> RunTask | None:
        """The task's table and per-document records (None when there is no samples file or table)."""
        if task not in self.read:
            tables = tables_for(task, (self.data.get("configs") or {}).get(task))
            path = samples_file(self.path, task) if tables else None
            self.read[task] = RunTask(tables[0], read_records(path, tables[0]), tables) if path else None
        return self.read[task]

    def leaves(self, name: str) -> list[str]:
        """The tasks under a group (recursively), or [name] for a task."""
        children = (self.data.get("group_subtasks") or {}).get(name)
        if not children:
            return [name]
        return [leaf for child in children for leaf in self.leaves(child)]


def load_run(path: str | Path) -> Run:
    """A run from its results file, or from the newest results file below a folder."""
    path = Path(path)
    if path.is_dir():
        found = newest_results(path)
        if found is None:
            raise FileNotFoundError(f"{path}: no lmms-eval results file (*_results.json) below this folder")
        path = found
    if not path.is_file():
        raise FileNotFoundError(f"{path}: no such results file or folder")
    from food_tasks.report.runs import model_label  # the report's short name: one label per model everywhere

    data = json.loads(path.read_text(encoding="utf-8"))
    return Run(path, data, model_label(data))


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
        for name in names[:1] if metrics == "headline" else names:
            result = compare_tasks(ta, tb, [name], iters, task).get(name)
            metric = ta.table[name]
            note = few_note(result)
            rows.append(
                Row(task, name, a.value(task, name), b.value(task, name), result, metric.higher_is_better, note)
            )
    for group in [g for g in a.groups if g in b.groups]:
        rows += _compare_group(a, b, group, iters, headline=metrics == "headline")
    return rows


def _compare_group(a: Run, b: Run, group: str, iters: int, headline: bool = False) -> list[Row]:
    """The group's metrics in the order its ``aggregate_metric_list`` declares them (``headline``: the first one)."""
    entries = group_entries(group)
    if not entries:
        return []
    order = {str(e.get("metric")): i for i, e in reversed(list(enumerate(entries)))}
    leaves = a.leaves(group)
    members = [(a.task(t), b.task(t)) for t in leaves]
    if any(x is None or y is None for x, y in members):
        return []
    out = []
    row = {**((a.data.get("results") or {}).get(group) or {}), **((a.data.get("groups") or {}).get(group) or {})}
    for key in row:
        name, _, filter_key = key.partition(",")
        if not filter_key or "_stderr" in name or name.endswith(("_n", "_clusters")):
            continue
        if headline and order.get(name) != 0:
            continue
        matching = [e for e in entries if str(e.get("metric")) in name]
        found = [metric_of(x.tables or (x.table,), name) for x, _ in members]
        if not matching or any(f is None or f[1].estimator is None for f in found):
            continue
        result = _paired_group(group, name, matching[-1], members, [f[1] for f in found], iters)  # type: ignore[index]
        note = few_note(result)
        out.append(
            Row(group, name, a.value(group, name), b.value(group, name), result, found[0][1].higher_is_better, note)
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
        if ta is None or tb is None:
            return None
        found = metric_of(ta.tables or (ta.table,), metric)
        if found is None or found[1].estimator is None:
            return None
        result = compare_tasks(
            RunTask(found[0], ta.records, ta.tables), RunTask(found[0], tb.records, tb.tables), [metric], iters, name
        )
        comparison = result.get(metric)
        note = few_note(comparison)
        return Row(
            name, metric, a.value(name, metric), b.value(name, metric), comparison, found[1].higher_is_better, note
        )
    if name in a.groups and name in b.groups:
        return next((row for row in _compare_group(a, b, name, iters) if row.metric == metric), None)
    return None


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
    members = [run.task(t) for t in run.leaves(group)]
    if not members or any(m is None for m in members):
        return None
    found = [metric_of(m.tables or (m.table,), metric) for m in members]  # type: ignore[union-attr]
    if any(f is None or f[1].estimator is None for f in found):
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


# --------------------------------------------------------------------------- the table `food-tasks compare` prints

HEADER = ("metric", "A", "B", "A - B", "95% interval", "p", "docs (units)", "verdict")
WIDTH = 120  # the widest line `food-tasks compare` prints: each task or group heads its rows, long notes wrap
EXPLANATION = (
    "Differences A - B on the documents both runs scored, 95% intervals (clustered; paired bootstrap for\n"
    "statistics that are not means); 'no detectable difference' when the interval contains 0; units are the\n"
    f"independent clusters (dishes, questions, images): with fewer than {stats.MIN_UNITS} no verdict, interval or p.\n"
)


def table_rows(rows: list[Row]) -> list[tuple[str, ...]]:
    """One line of cells per comparison row, the task or group name first (a row without a comparison says why
    in its last cell). The verdict does not repeat the unit count of the cell before it."""
    table = []
    for row in rows:
        c = row.comparison
        if c is None:
            table.append((row.name, row.metric or "-", "", "", "", "", "", "", row.note))
            continue
        verdict = c.verdict(row.higher_is_better, "A", "B")
        if verdict in ("A > B", "A < B"):
            better = (c.diff > 0) == row.higher_is_better
            verdict += f" ({'A' if better else 'B'} better)"
        defined = math.isfinite(c.diff)
        table.append(
            (
                row.name,
                row.metric,
                value_text(row.a),
                value_text(row.b),
                f"{c.diff:+.2f}" if defined else "n/a",
                *interval_p(c),
                f"{c.n} ({c.clusters})",
                verdict,
            )
        )
    return table


def interval_p(c: stats.Comparison, scale: float = 1.0, decimals: int = 2) -> tuple[str, str]:
    """The 95% interval and p-value cells of a comparison (:func:`food_tasks.confidence.p_text`), the interval's
    bounds times ``scale`` with ``decimals`` decimals: ``n/a`` for an undefined difference, and below
    :data:`food_tasks.stats.MIN_UNITS` independent units, where no verdict is given: the normal interval is not to
    be trusted there (it can cross the metric's bounds: +108.67 points for a difference of two percentages) and
    neither is its p-value. ``food-tasks compare`` and the report's tables of differences both use it."""
    if not math.isfinite(c.diff) or c.clusters < stats.MIN_UNITS or c.low is None or c.high is None:
        return "n/a", "n/a"
    return f"[{c.low * scale:+.{decimals}f}, {c.high * scale:+.{decimals}f}]", p_text(c.p)


def aligned(header: tuple[str, ...], table: list[tuple[str, ...]]) -> list[str]:
    """The header and the rows as text lines, each column padded to its widest cell."""
    widths = [max(len(str(x)) for x in column) for column in zip(header, *table)]
    return ["  ".join(str(x).ljust(w) for x, w in zip(line, widths)).rstrip() for line in (header, *table)]


def lines(table: list[tuple[str, ...]], width: int = WIDTH, header: tuple[str, ...] = HEADER) -> list[str]:
    """What ``food-tasks compare`` prints: the header, then each task or group on a line of its own followed by
    its metrics (indented, columns aligned over the whole table); a cell that would pass ``width`` (a note: why
    a row has no comparison) wraps at word boundaries under the column it starts in. ``header`` names the
    columns after the first (the task or group)."""
    indent = "  "
    body = aligned(header, [row[1:] for row in table])
    start = len(body[0]) - len(header[-1])  # where the last column starts
    out = [indent + body[0]]
    previous = None
    for row, line in zip(table, body[1:]):
        if row[0] != previous:
            out.append(row[0])
            previous = row[0]
        line = indent + line
        if len(line) > width:
            head, tail = line[: len(indent) + start], line[len(indent) + start :]
            wrapped = textwrap.wrap(tail, max(20, width - len(head)), break_long_words=False, break_on_hyphens=False)
            line = head + "\n".join([wrapped[0], *(" " * len(head) + w for w in wrapped[1:])])
        out += line.split("\n")
    return out


def value_text(value: object) -> str:
    """A run's value in the table: a number with two decimals, nothing for None (not in the run), an undefined
    metric (NaN: null in the results JSON) as ``undefined`` and an absent one as ``absent`` (its reason is in the
    results JSON), as the report and the printed table say them; other values cut to 20 characters at a word
    boundary."""
    if isinstance(value, float) and math.isnan(value):
        return "undefined"
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return f"{value:.2f}"
    if value is None:
        return ""
    text = str(value)
    if text.startswith("absent:"):
        return "absent"
    return text if len(text) <= 20 else textwrap.shorten(text, 20, placeholder="...")
