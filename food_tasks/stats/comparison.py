"""Two runs compared, from what was read of them: every row of ``food-tasks compare`` (and of the report's paired
tables) computed before any text is made.

The reading is :func:`food_tasks.runs.paired.read_pair` (or the report's readers): each task or group both runs
report as a :class:`Read` (its facts, both runs' records and reported values), each image-gain pair as a
:class:`GainRead`. Here they become :class:`Row` objects and image gains with their verdicts, with the paired
statistics of :mod:`food_tasks.stats.paired` and the consistency measures of :mod:`food_tasks.stats.consistency`
(nothing of ours is imported but the statistics):

* a task's metric: A minus B on the documents both runs scored (:func:`~food_tasks.stats.paired.compare_tasks`,
  matched by the first of the task's tables holding the metric); a judge's figure (its verdicts are not in the samples
  files) keeps its two reported values and :data:`NOT_IN_SAMPLES`;
* a group's metric: one joint paired cluster bootstrap over its tasks' documents, reduced as the group declares
  (:func:`~food_tasks.stats.paired.paired_group`);
* a measure of :data:`MEASURES`: like a metric where its table declares it with an estimator; one computed across
  tasks (``xling_*`` pooled over a benchmark's language tasks, ``misled_rate`` / ``hint_gain`` of a group) from
  both runs' records as a mean of per-unit values (:func:`~food_tasks.stats.paired.paired_means`);
  ``position_bias_p`` is a p-value: shown side by side, never differenced;
* an image gain: :func:`~food_tasks.stats.paired.paired_gain`, or the reason there is none.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from food_tasks.stats import consistency
from food_tasks.stats import uncertainty as stats
from food_tasks.stats.paired import (
    ImageGain,
    RunTask,
    compare_tasks,
    from_samples,
    headline_of,
    paired_gain,
    paired_group,
    paired_means,
)

# Why a judge figure has no paired difference (:attr:`food_tasks.stats.estimators.Estimator.from_samples`): the
# row's note (it fits compare's last column), and the sentence compare and the report print once.
NOT_IN_SAMPLES = "judge verdicts not in samples"
WHY_NOT_PAIRED = (
    "the per-row judge verdicts are not in the samples files (the judge grades a task's rows when it aggregates), "
    "so compare the two reported values; a paired comparison needs both runs' verdicts, and neither `food-tasks "
    "compare` nor the report calls a judge"
)
XLING = ("xling_all_correct", "xling_agreement")
CONTEXT = ("misled_rate", "hint_gain", "misled_rate_same_image", "hint_gain_same_image")
CONTEXT += ("context_loss_rate", "misled_excess")  # the misled rate's control (food_tasks.stats.consistency)
CIRCULAR = ("circular_acc", "rotation_mean_acc")
POSITION = ("position_rstd", "position_bias_p")
MEASURES = (*XLING, *CONTEXT, *CIRCULAR, *POSITION)
LOWER_IS_BETTER = {m for m, higher in consistency.HIGHER_IS_BETTER.items() if higher is False} | {"position_rstd"}


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
    declared: Any = None  # the metric as its task's table declares it (its scale, its estimator, its decimals)
    verdict: str = field(default="", init=False)  # the comparison's verdict between A and B ("" without one)
    decimals: int = field(default=2, init=False)  # its values' decimals: the declared metric's (2 without one)

    def __post_init__(self) -> None:
        c = self.comparison
        object.__setattr__(self, "verdict", c.verdict(self.higher_is_better) if c is not None else "")
        object.__setattr__(self, "decimals", self.declared.places if self.declared is not None else 2)


Records = Mapping[tuple[int, str], "RunTask | None"]  # (run: 0 for A, 1 for B; task) -> its records (None: no file)


@dataclass(frozen=True)
class Read:
    """One task or group that both runs report, as read from their files: what its rows are computed from.

    ``facts``: its facts (:class:`food_tasks.lmms.facts.TaskFacts`: tables, headline, a group's entries); ``values``:
    the reported value of each metric in each run (NaN: undefined); ``members``: the tasks whose records it is
    computed from (a group's tasks, or the task itself), with their facts; ``records``: every task's records read
    of both runs (shared by the reads of one comparison, filled once after all of them are planned); ``keys``: the
    metrics a group's row reports in run A, in order; ``paths``: each run's results file (where a samples file is
    missing); ``pooled``: each run's records of every task are read (a consistency family across tasks)."""

    name: str
    facts: Any
    values: tuple[Mapping[str, Any], Mapping[str, Any]]
    members: tuple[tuple[str, Any], ...]
    records: Records
    keys: tuple[str, ...] = ()
    paths: tuple[str, str] = ("", "")
    group: bool = False
    pooled: bool = False

    @property
    def a(self) -> RunTask | None:
        """Run A's records of the task (None for a group, or without a samples file)."""
        return None if self.group else self.records.get((0, self.name))

    @property
    def b(self) -> RunTask | None:
        """Run B's records of the task (None for a group, or without a samples file)."""
        return None if self.group else self.records.get((1, self.name))

    @property
    def missing(self) -> str:
        """The results file beside which a samples file of the task is missing (run A's first)."""
        return self.paths[0] if self.a is None else self.paths[1]

    @property
    def pairs(self) -> tuple[tuple[RunTask, RunTask, Any], ...] | None:
        """Each member task's records in runs A and B, with its facts; None when one lacks its samples file."""
        found = tuple((self.records.get((0, t)), self.records.get((1, t)), facts) for t, facts in self.members)
        return None if any(x is None or y is None for x, y, _ in found) else found  # type: ignore[return-value]

    @property
    def pools(self) -> tuple[dict[str, RunTask], dict[str, RunTask]] | None:
        """Each run's records of every task read (None when not ``pooled``)."""
        if not self.pooled:
            return None
        return tuple({t: r for (s, t), r in self.records.items() if s == side and r is not None} for side in (0, 1))  # type: ignore[return-value]


@dataclass(frozen=True)
class GainRead:
    """A task and its image-free twin as read: the records of each (None: no samples file) in ``records`` under
    ``sides`` (the run each comes from: 0 for A, 1 for B), and the results file each is beside."""

    label: str  # the model
    runs: str  # "A/A", "A/B" ...: which run the score with the image, and the one without it, come from
    task: str
    twin: str
    sides: tuple[int, int]
    paths: tuple[str, str]
    records: Records
    tabled: tuple[bool, bool] = (True, True)  # each has a metric table to read its samples with (its facts)

    @property
    def with_image(self) -> RunTask | None:
        """The task with images, as its run read it (None: its samples file is missing)."""
        return self.records.get((self.sides[0], self.task))

    @property
    def without_image(self) -> RunTask | None:
        """The image-free twin, as its run read it (None: its samples file is missing)."""
        return self.records.get((self.sides[1], self.twin))

    @property
    def lacking(self) -> tuple[tuple[str, str], ...]:
        """``(task, results file)`` of each samples file missing."""
        found = ((self.task, self.paths[0], self.with_image), (self.twin, self.paths[1], self.without_image))
        return tuple((name, path) for name, path, records in found if records is None)

    @property
    def judged(self) -> bool:
        """Whether the task's headline metric is a judge's figure (its verdicts are not in the samples files)."""
        found = self.with_image
        name = headline_of(found) if found is not None else None
        return name is not None and not from_samples(found.table.get(name))  # type: ignore[union-attr]


@dataclass
class Compared:
    """Everything ``food-tasks compare`` prints, computed: the main rows, image gains (or why none) and measures."""

    rows: list[Row] = field(default_factory=list)
    gains: list[tuple[str, str, ImageGain]] = field(default_factory=list)  # (model, runs, gain)
    no_gain: list[tuple[str, str, str]] = field(default_factory=list)  # (task, model, why there is no gain)
    measures: list[Row] = field(default_factory=list)

    @property
    def judged_na(self) -> bool:
        """Whether a row is a judge's figure without a paired difference."""
        return any(r.note == NOT_IN_SAMPLES for r in self.rows)


def few_note(comparison: stats.Comparison | None) -> str:
    """The warning of a comparison on too few independent units ("" when it has enough, or without one)."""
    return comparison.few_note() if comparison is not None else ""


def task_row(read: Read, metric: str, iters: int) -> Row | None:
    """A minus B for one metric of a task both runs read back, matched by document identity in the first of the
    task's tables that holds the metric; None when none does, without an estimator, or without both samples files;
    no comparison, the reported values and :data:`NOT_IN_SAMPLES`, for a judge's figure (:func:`from_samples`)."""
    ta, tb = read.a, read.b
    found = read.facts.metric(metric)
    if ta is None or tb is None or found is None or found[1].estimator is None:
        return None
    table, declared = found
    values = read.values[0].get(metric), read.values[1].get(metric)
    if not from_samples(declared):  # the judge's verdicts are not in the files: never re-judged here
        return Row(read.name, metric, *values, None, declared.higher_is_better, NOT_IN_SAMPLES, declared)
    comparison = compare_tasks(ta.under(table), tb.under(table), [metric], iters, read.name).get(metric)
    return Row(read.name, metric, *values, comparison, declared.higher_is_better, few_note(comparison), declared)


def task_rows(read: Read, headline: bool, iters: int) -> list[Row]:
    """The rows of a task: its headline metric (``headline``), else every metric with an estimator; one row saying
    why without a samples file."""
    if read.a is None or read.b is None:
        note = (
            f"no samples file of this task beside {read.missing} (run with --log_samples)"
            if read.facts.table is not None
            else "no metric table to read its samples with: not a task we ship (by its name) nor a regional task"
        )
        return [Row(read.name, "", None, None, None, True, note)]
    table = read.a.table
    names = [m.name for m in table.values() if m.estimator is not None and m.alias_of is None]
    chosen = ([read.facts.headline] if read.facts.headline else []) if headline else names
    return [row for name in chosen if (row := task_row(read, name, iters)) is not None]


def group_rows(read: Read, iters: int, headline: bool = False, metric: str | None = None) -> list[Row]:
    """The group's metrics in the order its ``aggregate_metric_list`` declares them (``headline``: the first one;
    ``metric``: that one alone, the others' bootstraps not run)."""
    entries = read.facts.entries
    members = read.pairs
    if not entries or members is None:
        return []
    order = {str(e.get("metric")): i for i, e in reversed(list(enumerate(entries)))}
    out = []
    for key in read.keys:
        name, _, filter_key = key.partition(",")
        if not filter_key or "_stderr" in name or name.endswith(("_n", "_clusters")):
            continue
        if (headline and order.get(name) != 0) or metric not in (None, name):
            continue
        matching = [e for e in entries if str(e.get("metric")) in name]
        found = [facts.metric(name) for _, _, facts in members]
        if not matching or any(f is None or f[1].estimator is None for f in found):
            continue
        values = read.values[0].get(name), read.values[1].get(name)
        declared = found[0][1]  # type: ignore[index]
        if not all(from_samples(f[1]) for f in found):  # type: ignore[index]
            out.append(Row(read.name, name, *values, None, declared.higher_is_better, NOT_IN_SAMPLES, declared))
            continue
        pairs = [(x, y) for x, y, _ in members]
        metrics = [f[1] for f in found]  # type: ignore[index]
        result = paired_group(read.name, name, matching[-1], pairs, metrics, iters)
        note = result.few_note() if result is not None else ""
        out.append(Row(read.name, name, *values, result, declared.higher_is_better, note, declared))
    return sorted(out, key=lambda row: order.get(row.metric, len(order)))


def one_row(read: Read, metric: str, iters: int) -> Row | None:
    """A minus B for one task's or group's metric (None when either run lacks it or its samples files)."""
    if read.group:
        return next(iter(group_rows(read, iters, metric=metric)), None)
    return task_row(read, metric, iters)


def xling_units(read: Read, side: int, what: str) -> list[tuple[Any, Any, float]] | None:
    """Per item (asked in two languages at least): 1 when right in every language (``all_correct``) or when every
    language chose the same option (``agreement``); the items of the task, or of its family pooled over the run's
    tasks as a run pools them (:func:`food_tasks.stats.consistency.family_pools`: a benchmark's separate language
    tasks). None when the task declares no consistency view."""
    pool = read.pools[side] if read.pools is not None else {}
    data = pool.get(read.name)
    view = consistency.view_of(data.table) if data is not None else None
    if data is None or view is None:
        return None
    records = list(data.records)
    if view.family is not None:
        pools = consistency.family_pools(pool)
        records = [r for v, pairs in pools if v == view and any(t == read.name for t, _ in pairs) for _, r in pairs]
    return consistency.item_units(records, view, what)


def context_units(read: Read, side: int, what: str) -> list[tuple[Any, Any, float]] | None:
    """The per-dish rows of a group's ``misled_rate`` / ``hint_gain``
    (:func:`food_tasks.stats.consistency.context_rows`)."""
    found = read.pairs
    if not found:
        return None
    members = [m[side] for m in found]
    views = {consistency.view_of(m.table) for m in members}
    if len(views) != 1 or None in views:
        return None
    records = [r for m in members for r in m.records]
    return consistency.context_rows(records, views.pop()).get(what)  # type: ignore[arg-type]


def measure_row(read: Read, metric: str, iters: int) -> Row | None:
    """A minus B of one measure of :data:`MEASURES` for a task or group both runs report it for (None otherwise)."""
    va, vb = read.values[0].get(metric), read.values[1].get(metric)
    if va is None or vb is None:
        return None
    higher = metric not in LOWER_IS_BETTER
    if metric == "position_bias_p":
        return Row(read.name, metric, va, vb, None, higher, "a p-value: not differenced")
    row = one_row(read, metric, iters)
    if row is not None and row.comparison is not None:
        return row
    what = metric.removeprefix("xling_")
    units = (
        (xling_units(read, 0, what), xling_units(read, 1, what))
        if metric in XLING and not read.group
        else (context_units(read, 0, metric), context_units(read, 1, metric))
        if metric in CONTEXT and read.group
        else (None, None)
    )
    if units[0] is None or units[1] is None:
        return Row(read.name, metric, va, vb, None, higher, "no samples files of its tasks (run with --log_samples)")
    # In percent, as every accuracy and rate of every benchmark (food_tasks.hooks.convention.SCALES).
    result = paired_means(units[0], units[1], 100.0, iters, stats.seed_for(read.name, metric), metric in XLING)
    return Row(read.name, metric, va, vb, result, higher, result.few_note())


def measure_rows(reads: Iterable[Read], iters: int, skip: Iterable[tuple[str, str]] = ()) -> list[Row]:
    """Every measure of :data:`MEASURES` both runs report, per task and group (``skip``: rows shown elsewhere)."""
    done = set(skip)
    rows = []
    for read in reads:
        for metric in MEASURES:
            if (read.name, metric) not in done and (row := measure_row(read, metric, iters)) is not None:
                rows.append(row)
    return rows


def gain_missing_reason(read: GainRead) -> str:
    """Why there is no image gain of the task over its twin: the samples file it lacks and that the run needs
    ``--log_samples``, its headline metric a judge's figure, or no document scored by both."""
    if not read.lacking and read.judged:
        return f"its headline metric is a judge's figure: {WHY_NOT_PAIRED}"
    untabled = [name for name, known in zip((read.task, read.twin), read.tabled) if not known]
    if untabled:  # not a task we ship (by its name) nor a regional task: its samples cannot be read
        return f"no metric table to read the samples of {' and '.join(untabled)} with (not a task we ship)"
    why = "; ".join(f"no samples file of {name} beside {path}" for name, path in read.lacking)
    return (
        f"{why} (run with --log_samples)" if read.lacking else f"no document scored by both {read.task} and {read.twin}"
    )


def image_gain(read: GainRead, iters: int) -> ImageGain | None:
    """The image gain of the task over its twin (:func:`food_tasks.stats.paired.paired_gain`, as the run writes it
    into the results JSON); None without both samples files, a headline metric, or a shared document, or for a judge's
    headline figure."""
    if read.with_image is None or read.without_image is None or read.judged:
        return None
    return paired_gain(read.with_image, read.without_image, read.task, read.twin, iters)


def main_rows(reads: Sequence[Read], headline: bool, iters: int = stats.DEFAULT_ITERS) -> list[Row]:
    """The rows of ``food-tasks compare``'s main table: each task's, then each group's (``headline``: each one's
    headline metric, else every metric with an estimator)."""
    rows: list[Row] = []
    for read in reads:
        rows += group_rows(read, iters, headline=headline) if read.group else task_rows(read, headline, iters)
    return rows


def compared(
    reads: Sequence[Read], gains: Sequence[GainRead], headline: bool, iters: int = stats.DEFAULT_ITERS
) -> Compared:
    """Every row ``food-tasks compare`` prints: the tasks' rows then the groups' (``headline``: each one's headline
    metric, else all), the image gains (or why none), then the measures not shown in the main rows."""
    out = Compared(main_rows(reads, headline, iters))
    for gain in gains:
        if (found := image_gain(gain, iters)) is not None:
            out.gains.append((gain.label, gain.runs, found))
        else:  # said, never dropped: a pair without its samples files (or without a document both scored)
            out.no_gain.append((gain.task, gain.label, gain_missing_reason(gain)))
    out.measures = measure_rows(reads, iters, {(r.name, r.metric) for r in out.rows})
    return out
