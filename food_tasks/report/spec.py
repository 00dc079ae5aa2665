"""The report's vocabulary: what a benchmark's tables look like (:class:`BenchmarkSpec` and its parts), the
registry of the benchmarks' specs, their published numbers, and the blocks of the document model."""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass

from food_tasks.stats.confidence import MIN_UNITS
from food_tasks.tasks.registry import PUBLISHED_DIR, record, records

DATA_DIR = PUBLISHED_DIR  # published numbers of a report spec that no registry record declares: <name>.json
FILTER = "none"
MISSING = "–"
UNDEFINED = "undefined"  # a NaN metric (no pair to compare ...): each table says why
FEW = "†"
FEW_NOTE = (
    f"{FEW}: fewer than {MIN_UNITS} independent units (clusters) behind the value: its normal interval is not to be "
    "trusted (it is 0 wide when every unit scored the same; where it would cross the metric's bounds, a bounded "
    "interval is shown instead)."
)
# The marks and intervals are explained once, in the report's first section; a table that carries them points there
# (an anchor inside the report: it travels with the one-file HTML, as a link to a file beside it would not).
LEGEND_TITLE = "How to read this report"
LEGEND_LINK = "[how to read this report](#how-to-read-this-report)"  # the heading's anchor (GitHub's and ours)
MARKS_NOTE = f"±, [low, high], {FEW}, undefined and absent: see {LEGEND_LINK}."
# Where the error bars are explained, in the food-tasks source tree: named in words (the report travels without it).
ERROR_BARS_DOC = "docs/error_bars.md"
INTERVAL_NOTE = (
    "± half-width of the 95% interval (1.96 standard errors, clustered where documents share a context; the "
    f"method is explained in {ERROR_BARS_DOC} of the food-tasks source); the paper's numbers come without one. Where "
    "every independent unit scored alike (a 0 wide normal interval), a rate at 0 or 100% shows its Wilson interval "
    "over those units in brackets; a score that is not a proportion (a caption metric, an F1, an error) has no "
    "Wilson interval and says so. Where the normal interval would leave the metric's range (a rate below 0 or "
    "above 100%, a spread or an error below 0), the brackets show the interval the results file stores instead "
    "(<metric>_stderr_ci): a rate's Wilson interval over the units its clustered standard error is worth, or the "
    "percentile interval of the seeded cluster bootstrap (RStd and other skewed statistics)."
)
BINOMIAL_NOTE = (
    "[low, high]: the 95% Wilson interval of each group's rate over its n documents taken as independent "
    "(documents of one dish, question or image in a group make it somewhat too narrow); unlike the normal "
    "interval it is never 0 wide at 0 of n or n of n and stays within 0-100%. Charts draw the same intervals."
)
MARKS = (
    f"{MISSING}: not in the run's results (the task or metric was not run).",
    f"{UNDEFINED}: the metric has no value on this run (a rate over an empty set: no pair to compare, no dish "
    f"answered right without context ...); *{UNDEFINED} [k]* points to the reason under its table.",
    "*absent [k]*: a metric that could not be computed (a model or a mapping not given ...), its reason under the "
    "table.",
)


# ("h", level, text) | ("p", text) | ("list", items) | ("table", header, rows) | ("details", summary, header, rows)
# | ("img", path, alt) | ("warn", text) | ("verbatim", header, rows): a table of untrusted text (model output), shown
# as written. In "p" and "warn" text, lines starting with "- " are a bulleted list.
Block = tuple


@dataclass(frozen=True)
class Source:
    """Where a cell comes from: a task (template) and its robust and official metric names.

    A task template names a full-data task: it may use the name parts of the benchmark's splits (``{split}``, as
    :attr:`Variant.fill` gives them), ``{m}`` (mode suffix) and ``{mode}`` (mode name); a metric template ``{mode}``.
    A variant declared by a task (a packaged sample: :attr:`Variant.kind`) is never spelled in a template: its
    column's task is the run's task that declares itself that variant of the full-data task the template names.
    """

    task: str
    metric: str
    official: str | None = None


@dataclass(frozen=True)
class Variant:
    """One section of a benchmark's tables: which tasks fill its columns.

    Attributes:
        label: the section's heading ("test_large", "packaged sample").
        reference: the key of its published numbers (``{variant}`` of :attr:`TableSpec.reference`); None: the
            paper has none for it.
        fill: the name parts that make the templates of :class:`Source` full-data task names (``{split}``: ``_zh``,
            ``_smallref``), as ``(placeholder, text)`` pairs.
        kind: a variant kind that tasks declare in their config's metadata (``"sample"``:
            :data:`food_tasks.tasks.registry.VARIANT_KEYS`): a column's task is then the run's task that declares
            ``(kind, <the full-data task its template names>)`` (:class:`food_tasks.report.cells.Placed`), and
            a run of the full-data task itself is not shown here. None: the full-data tasks themselves.
        tag: the section's word in the heat map's column names (``<benchmark>_<tag>``) and in the file names of its
            charts; a label only, never read back as a task name.
    """

    label: str
    reference: str | None = None
    fill: tuple[tuple[str, str], ...] = ()
    kind: str | None = None
    tag: str = ""


@dataclass(frozen=True)
class Column:
    """One column of a benchmark's main table.

    Attributes:
        key: the column's key in the reference data.
        sources: where the run's value comes from (the first source the run has).
        rate: a failure rate or count shown beside the scores (the same in the official and robust rows).
        scale: display factor of the column's values (1: as the metric reports them; every accuracy and rate
            is already in percent).
        lower_is_better: an error score (MAPE, MAE): the heat map colours its lowest run best.
        parts: when no source ran (a partial run: one subtask, not its group), the mean of these over the
            parts that ran, shown as :class:`Partial` ("12.50 (1 of 4)"); only for a mean the group itself
            takes over its parts unweighted.
        differs: why the official and robust values of this column can differ, printed under the table
            when they do for a run.
        undefined: why the metric can be undefined (NaN), printed under the table when it is.
        proportion: the value is a share of independent units (an accuracy, a rate): where its normal interval is
            0 wide at 0 or 100%, its Wilson interval is shown instead. False for any other score (a caption
            metric, an F1, an MRR): a Wilson interval means nothing there, so such a cell says it has no interval.
    """

    key: str
    label: str
    sources: tuple[Source, ...]
    decimals: int = 2
    rate: bool = False
    scale: float = 1.0
    lower_is_better: bool = False
    parts: tuple[Source, ...] = ()
    differs: str = ""
    undefined: str = ""
    proportion: bool = True


@dataclass(frozen=True)
class Partial:
    """A column's value computed from the parts of a task that ran (:attr:`Column.parts`)."""

    value: float
    ran: int
    of: int


@dataclass(frozen=True)
class TableSpec:
    title: str
    reference: str | None  # table key in the benchmark's reference file ({variant} is replaced)
    columns: tuple[Column, ...]
    modes: tuple[tuple[str, str, str], ...] = (("", "", ""),)  # (label, suffix, name)


@dataclass(frozen=True)
class CurveSpec:
    """A metric over a sequence of tasks (accuracy by number of views, say): a table and a line chart."""

    title: str
    x_label: str
    points: tuple[tuple[str, str], ...]  # (x value label, task template: a full-data task, as Source's)
    metric: str
    y_label: str = ""
    decimals: int = 2
    # (variant kind, its points) where a declared variant's tasks are other points than ``points`` say (a sample
    # that scores two views where the full benchmark's base task scores one)
    by_kind: tuple[tuple[str, tuple[tuple[str, str], ...]], ...] = ()
    # a share of units (an accuracy): its interval stays within 0-100 % (Wilson where the normal one would leave
    # it); False for an error score (MAPE), whose interval is the results file's stored one or the normal one
    proportion: bool = True

    def points_of(self, kind: str | None) -> tuple[tuple[str, str], ...]:
        """The points of a section whose tasks declare variant ``kind`` (None: the full-data tasks)."""
        return dict(self.by_kind).get(kind or "", self.points)


@dataclass(frozen=True)
class BenchmarkSpec:
    name: str
    title: str
    prefixes: tuple[str, ...]
    tables: tuple[TableSpec, ...]
    variants: tuple[Variant, ...]  # one section each, in this order
    headline: tuple[str, ...]  # column keys (first table, first mode) for the heat map
    # Sections after the tables: breakdown(runs that have the variant, the variant placed, charts) -> blocks.
    breakdown: Callable[..., list[Block]] | None = None  # (runs: Sequence[Run], placed: Placed, charts: Charts)
    notes: tuple[str, ...] = ()
    curves: tuple[CurveSpec, ...] = ()
    # A file of DATA_DIR: published models' beyond-accuracy measures, placed beside the runs' in the "beyond accuracy"
    # section (food_tasks.report.beyond.published_blocks reads its "columns" and "models").
    published_beyond: str | None = None


def registry() -> tuple[BenchmarkSpec, ...]:
    """The benchmark specs, in the order of :data:`food_tasks.tasks.registry.PACKAGES`, loaded on first use (the
    benchmark modules that hold them import this one); callers look it up as ``spec.registry()`` (a test may replace
    it)."""
    if not _LOADED:
        with_report = [b for b in records() if b.report is not None]
        specs = tuple(b.report.load() for b in with_report)
        mismatched = [(b.name, s.name) for b, s in zip(with_report, specs) if b.name != s.name]
        if mismatched:
            raise ValueError(f"report specs named unlike their registry records (record, spec): {mismatched}")
        _LOADED.append(specs)
    return _LOADED[0]


_LOADED: list[tuple[BenchmarkSpec, ...]] = []


def spec_for(task: str) -> BenchmarkSpec | None:
    """The registry entry whose prefix starts ``task`` (longest prefix wins)."""
    matches = [(len(p), s) for s in registry() for p in s.prefixes if task.startswith(p)]
    return max(matches, key=lambda x: x[0])[1] if matches else None


def reference_data(name: str) -> dict:
    """The published numbers of one benchmark (the file its registry record names; ``DATA_DIR/<name>.json``
    for a spec no record declares), ``{}`` when absent."""
    found = record(name)
    path = found.published_path if found is not None else DATA_DIR / f"{name}.json"
    return json.loads(path.read_text(encoding="utf-8")) if path is not None and path.is_file() else {}
