"""``food-tasks report``: lmms-eval results files -> a Markdown and HTML report with charts.

Each benchmark's main table is laid out like its paper's table: the user's runs (one row with the
official-parity metrics, one with the robust metrics, and the parse-failure / missing-image rates
beside them) above the published reference numbers, which are data files citing their source
(``food_tasks/report_data/<benchmark>.json``). Breakdowns follow (per language, per condition, per
question type, per region: bar or radar charts with tables) and curves over a sequence of tasks (say,
accuracy by number of views). Several runs are shown side by side, with a models-by-benchmark heat map;
runs whose task versions, generation settings, prompts or judge settings differ are flagged as not
comparable.

This package holds the generic pieces: :mod:`.spec` (what a table looks like, the registry of specs, the blocks of
the document model), :mod:`.runs` (runs read with :mod:`food_tasks.lmms.runfiles`), :mod:`.cells` (values and their
text), :mod:`.variants` (which of a run's tasks fill a section: a declared variant, the packaged sample, found by
its declaration), :mod:`.build` (every section's blocks; :func:`build_report`), :mod:`.uncertainty` (standard
errors, paired differences, best-of bias), :mod:`.charts` (PNG charts) and :mod:`.render`
(the one document model written as Markdown and as HTML). Each benchmark's layout is a :class:`BenchmarkSpec` in
its own package (``food_tasks/benchmarks/<name>/report.py``), named by its registry record
(:attr:`food_tasks.tasks.registry.Benchmark.report`); :func:`registry` collects them in the order of
:mod:`food_tasks.benchmarks` (keyed by task-name prefix), with the published numbers the record names.
Tasks no entry claims (regional tasks, for example) get a generic table of their scalar metrics and a
bar chart per dict metric (``acc_by_region``).
"""

from __future__ import annotations

from food_tasks.errors import ReportInputError
from food_tasks.report.build import (
    benchmark_blocks,
    build_report,
    generic_blocks,
    heatmap_blocks,
    legend_blocks,
    series_blocks,
)
from food_tasks.report.cells import Placed, absent_reason, binomial_interval, bounds_text, fmt, with_interval
from food_tasks.report.charts import Charts
from food_tasks.report.render import to_html, to_markdown
from food_tasks.report.runs import Run, comparability_problems, find_results, load_runs, short_label
from food_tasks.report.spec import (
    BINOMIAL_NOTE,
    FEW_NOTE,
    INTERVAL_NOTE,
    LEGEND_TITLE,
    MARKS_NOTE,
    BenchmarkSpec,
    Block,
    Column,
    CurveSpec,
    Partial,
    Source,
    TableSpec,
    Variant,
    reference_data,
    registry,
    spec_for,
)
from food_tasks.report.uncertainty import PAIRED_NOTE, POWER_NOTE, uncertainty_blocks

__all__ = [
    "BINOMIAL_NOTE",
    "FEW_NOTE",
    "INTERVAL_NOTE",
    "LEGEND_TITLE",
    "MARKS_NOTE",
    "PAIRED_NOTE",
    "POWER_NOTE",
    "BenchmarkSpec",
    "Block",
    "Charts",
    "Column",
    "CurveSpec",
    "Partial",
    "Placed",
    "ReportInputError",
    "Run",
    "Source",
    "TableSpec",
    "Variant",
    "absent_reason",
    "benchmark_blocks",
    "binomial_interval",
    "bounds_text",
    "build_report",
    "comparability_problems",
    "find_results",
    "fmt",
    "generic_blocks",
    "heatmap_blocks",
    "legend_blocks",
    "load_runs",
    "reference_data",
    "registry",
    "series_blocks",
    "short_label",
    "spec_for",
    "to_html",
    "to_markdown",
    "uncertainty_blocks",
    "with_interval",
]
