"""The report's document: every section's blocks (tables, notes, charts) from the runs, and :func:`build_report`,
which writes it as ``report.md`` and ``report.html``."""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import food_tasks.report.spec as specs
from food_tasks.report.beyond import beyond_blocks
from food_tasks.report.cells import (
    Placed,
    absent_reason,
    binomial_interval,
    bounds_text,
    cell,
    column_interval,
    fmt,
    interval_of,
    is_nan,
    number,
    run_interval,
    source_cell,
    stored_interval,
    tasks_of,
    undefined_as_nan,
    with_interval,
)
from food_tasks.report.charts import Charts
from food_tasks.report.judges import family_blocks, judges_blocks
from food_tasks.report.render import to_html, to_markdown
from food_tasks.report.runs import (
    breakdown_sizes,
    comparability_problems,
    flagged_tasks,
    group_members,
    info_metrics,
    lead_metrics,
    task_aliases,
)
from food_tasks.report.spec import (
    BINOMIAL_NOTE,
    FEW,
    FEW_NOTE,
    INTERVAL_NOTE,
    LEGEND_TITLE,
    MARKS,
    MARKS_NOTE,
    MISSING,
    UNDEFINED,
    BenchmarkSpec,
    Block,
    Column,
    CurveSpec,
    Partial,
    Source,
    TableSpec,
    Variant,
    reference_data,
    spec_for,
)
from food_tasks.report.uncertainty import generic_blocks as generic_uncertainty
from food_tasks.report.uncertainty import uncertainty_blocks
from food_tasks.runs import Run, load_runs
from food_tasks.stats.confidence import Z95


def benchmark_blocks(spec: BenchmarkSpec, runs: Sequence[Run], charts: Charts) -> list[Block]:
    """A benchmark's sections, per variant the runs hold: comparability warnings, its main tables beside the paper's
    numbers, the uncertainty section, its breakdown and its curves."""
    blocks: list[Block] = []
    ref = reference_data(spec.name)
    for variant in spec.variants:
        placed = Placed(variant)
        present = [r for r in runs if tasks_of(spec, r, placed)]
        if not present:
            continue
        blocks.append(("h", 2, f"{spec.title} — {variant.label}"))
        tasks = set().union(*(tasks_of(spec, r, placed) for r in present))
        problems = comparability_problems(present, tasks)
        partial = [
            f"{r.label} evaluated {e} of {o} documents of `{t}` (--limit or missing data)"
            for r in present
            for t, (e, o) in sorted(r.partial.items())
            if t in tasks
        ]
        flagged = flagged_tasks(problems) | {t for r in present for t in r.partial if t in tasks}
        if problems:
            blocks.append(
                (
                    "warn",
                    "Not comparable: these runs used different settings, so their numbers are not "
                    "comparable side by side:\n" + "\n".join(f"- {p}" for p in problems),
                )
            )
        if partial:
            blocks.append(
                ("warn", "Partial runs, not comparable with the paper:\n" + "\n".join(f"- {p}" for p in partial))
            )
        for note in spec.notes:
            blocks.append(("p", note))
        judges = _judge_lines(present, tasks)
        if judges:
            blocks.append(("p", "Judge (LLM-as-a-judge tasks):\n" + "\n".join(judges)))
        truncated = _truncated_lines(present, tasks)
        if truncated:
            blocks.append(("warn", TRUNCATED_NOTE + "\n" + "\n".join(truncated)))
        for table in spec.tables:
            blocks += _main_table(table, present, placed, ref, variant.reference, flagged)
        blocks += uncertainty_blocks(spec, present, placed)
        if spec.breakdown is not None:
            found = spec.breakdown(present, placed, charts)
            what = (spec.breakdown.__doc__ or "breakdown").split(":")[0].split("(")[0].strip()
            blocks += found or [
                ("p", f"*Not shown:* {what} breakdown: no run's results hold the per-group table it draws.")
            ]
        for curve in spec.curves:
            blocks += _curve_blocks(curve, present, placed, charts)
    return blocks


def _judge_lines(runs: Sequence[Run], tasks: Iterable[str]) -> list[str]:
    """One line per run and judged task: the judge model and endpoint host logged in ``judge_info``."""
    lines = []
    for run in runs:
        for task in sorted(tasks):
            info = run.value(task, "judge_info")
            if isinstance(info, Mapping):
                where = f" at {info['endpoint']}" if info.get("endpoint") else ""
                note = f" ({info['note']})" if info.get("note") else ""
                lines.append(f"- {run.label}, `{task}`: {info.get('model') or 'none'}{where}{note}")
    return lines


TRUNCATED_NOTE = (
    "Outputs that ran out of tokens (`truncated_rate`: reasoning never closed, or the whole `max_new_tokens` "
    "used), scored as they are; the benchmark's README names the setting that raises the budget:"
)


def _truncated_lines(runs: Sequence[Run], tasks: Iterable[str]) -> list[str]:
    """One line per run and task whose ``truncated_rate`` is above 0."""
    lines = []
    for run in runs:
        for task in sorted(tasks):
            value = run.value(task, "truncated_rate")
            if isinstance(value, (int, float)) and not isinstance(value, bool) and value > 0:
                lines.append(f"- {run.label}, `{task}`: {fmt(value, 2)} %")
    return lines


def _curve_blocks(curve: CurveSpec, runs: Sequence[Run], placed: Placed, charts: Charts) -> list[Block]:
    points = curve.points_of(placed.variant.kind)
    xs, names = [x for x, _ in points], [placed.name(t) for _, t in points]
    tasks = {r.label: [placed.task(r, n) for n in names] for r in runs}  # None: not in the run
    series = {r.label: [r.value(t, curve.metric) if t else None for t in tasks[r.label]] for r in runs}
    series = {k: v for k, v in series.items() if sum(isinstance(y, (int, float)) for y in v) >= 2}  # 2+ points
    inputs = {r.label: [run_interval(r, t or "", curve.metric) for t in tasks[r.label]] for r in runs}
    errors = {
        k: [interval_of(*i[:3], curve.decimals, 1.0, curve.proportion, i[3]) for i in v] for k, v in inputs.items()
    }
    errors = {k: [b[:2] if b else None for b in v] for k, v in errors.items() if k in series}
    if not series:
        ran = sorted(
            {x for r in runs for x, n in zip(xs, names) if number(placed.value(r, n, curve.metric)) is not None}
        )
        if not ran:
            return []
        if len(points) < 2:  # this variant's tasks have one point of the curve only
            return [
                (
                    "p",
                    f"*Not shown:* {curve.title}: these tasks have one {curve.x_label} value ({xs[0]}); the full "
                    "benchmark's tasks have the curve.",
                )
            ]
        return [
            (
                "p",
                f"*Not shown:* {curve.title}: a curve needs two or more of its points ({', '.join(xs)}) in "
                f"one run; these runs have {', '.join(ran)}.",
            )
        ]
    blocks: list[Block] = [("h", 3, curve.title)]
    image = charts.curve(
        series,
        xs,
        curve.title,
        curve.x_label,
        curve.y_label or curve.metric,
        re.sub(r"\W+", "_", f"{placed.shown(runs, names[0])}_{curve.metric}_curve"),
        errors,
    )
    if image:
        blocks.append(("img", image, curve.title))

    def point(k: str, i: int) -> str:
        return with_interval(*inputs[k][i][:3], curve.decimals, 1.0, curve.proportion, inputs[k][i][3])

    blocks.append(
        ("table", [curve.x_label] + list(series), [[x] + [point(k, i) for k in series] for i, x in enumerate(xs)])
    )
    return blocks


Mode = tuple[str, str, str]  # (label shown, metric fill {m}, reference-data mode)
Error = tuple[Any, bool, Any, Any]  # (standard error or None, fewer than MIN_UNITS clusters, clusters, stored_interval)
NO_ERROR: Error = (None, False, None, None)


@dataclass
class CellNotes:
    """What the cells of one main table leave for the notes under it: numbered reasons for absent and undefined
    cells, and whether any cell was partial, carried an interval, or rested on too few clusters."""

    reasons: list[tuple[str, str]] = field(default_factory=list)
    partial: bool = False
    intervals: bool = False
    few: bool = False

    def numbered(self, kind: str, reason: str) -> str:
        """``"absent [k]"``: the cell's text pointing at reason k of the notes (one number per distinct reason)."""
        if (kind, reason) not in self.reasons:
            self.reasons.append((kind, reason))
        return f"{kind} [{self.reasons.index((kind, reason)) + 1}]"

    def text(self, value: Any, column: Column, error: Error = NO_ERROR) -> str:
        """A cell's text: the value (with its 95% interval when it has a standard error), or a numbered reason."""
        self.partial |= isinstance(value, Partial)
        reason = absent_reason(value)
        if reason is not None:
            return self.numbered("absent", reason)
        if isinstance(value, float) and math.isnan(value):
            return self.numbered("undefined", column.undefined or "the metric is undefined (NaN) on this run")
        se, thin, units, bounds = error
        if se is not None and isinstance(value, (int, float)) and not isinstance(value, bool):
            self.intervals, self.few = True, self.few or thin
            shown = column_interval(value, se, units, column, bounds)
            return shown + (FEW if thin else "")
        return fmt(value, column.decimals)

    def lines(self, differ: Sequence[Column]) -> list[str]:
        """The notes under the table, in the order a reader meets the marks."""
        notes = [f"{kind} [{k}]: {reason}" for k, (kind, reason) in enumerate(self.reasons, 1)]
        if self.intervals or self.few:
            notes.append(MARKS_NOTE)  # the interval and dagger notes, said once in the legend
        notes += [f"{c.label}, official and robust differ: {c.differs}" for c in differ]
        if self.partial:
            notes.append(
                "(k of n): computed from the k of the n subtasks that ran, as their group would be over all n."
            )
        return notes


def _sourced(run: Run, column: Column, placed: Placed, mode: Mode, official: bool) -> tuple[Any, str | None, Error]:
    """The column's value for the run, the task it came from, and its error."""
    value, task, metric = source_cell(run, column, placed, mode, official)
    if not (task and metric):
        return value, task, NO_ERROR
    bounds = stored_interval(run, task, metric)
    return value, task, (run.se(task, metric), run.few(task, metric), run.unit_count(task, metric), bounds)


def _run_rows(
    run: Run, table: TableSpec, placed: Placed, flagged: set[str], notes: CellNotes, differ: list[Column]
) -> list[list[str]]:
    """The run's rows of a main table, per mode: one "official = robust" row when both scorers agree on every
    column, else an official and a robust row. Columns whose scorers disagree are added to ``differ``."""
    multi_mode = len(table.modes) > 1
    rows = []
    for mode in table.modes:
        cells = [[_sourced(run, c, placed, mode, official) for c in table.columns] for official in (True, False)]
        as_official, as_robust = ([fmt(v, 6) for v, _, _ in values] for values in cells)  # NaN == NaN as text
        differ += [
            c
            for c, (a, _, _), (b, _, _), fa, fb in zip(table.columns, *cells, as_official, as_robust)
            if c.differs and c not in differ and a is not None and b is not None and fa != fb
        ]
        if as_official == as_robust:
            scorers = [("official = robust", cells[0])]
        else:
            scorers = [("official", cells[0]), ("robust", cells[1])]
        for scorer, values in scorers:
            if not any(v is not None for v, _, _ in values):
                continue
            mark = " ⚠" if {t for _, t, _ in values if t} & flagged else ""
            head = [f"**{run.label}**{mark}"] + ([mode[0]] if multi_mode else []) + [scorer]
            rows.append(head + [notes.text(v, c, e) for c, (v, _, e) in zip(table.columns, values)])
    return rows


def _reference_rows(table: TableSpec, ref_table: Mapping[str, Any]) -> list[list[str]]:
    """The published numbers under the runs' rows, marked "paper" (a model with a note gets a star)."""
    multi_mode = len(table.modes) > 1
    rows = []
    for row in ref_table["rows"]:
        mode_label = next((m[0] for m in table.modes if m[2] == row.get("mode")), row.get("mode") or "")
        cells = [row["model"] + (" *" if row.get("note") else "")] + ([mode_label] if multi_mode else [])
        cells.append("paper")
        cells += [fmt(row["values"].get(c.key), c.decimals) for c in table.columns]
        rows.append(cells)
    return rows


def _main_table(
    table: TableSpec,
    runs: Sequence[Run],
    placed: Placed,
    ref: Mapping[str, Any],
    ref_key: str | None,
    flagged: set[str],
) -> list[Block]:
    """A benchmark's main table laid out like its paper's: each run's rows above the published numbers, with
    the notes its cells call for, and where the reference rows come from."""
    header = ["Model"] + (["Mode"] if len(table.modes) > 1 else []) + ["Scorer"] + [c.label for c in table.columns]
    notes, differ = CellNotes(), []
    rows = [row for run in runs for row in _run_rows(run, table, placed, flagged, notes, differ)]
    if not rows:
        return []
    ref_table = None
    if ref_key and table.reference:  # a variant without published numbers has ref_key None
        ref_table = (ref.get("tables") or {}).get(table.reference.replace("{variant}", ref_key))
    if ref_table:
        rows += _reference_rows(table, ref_table)
    blocks: list[Block] = [("h", 3, table.title), ("table", header, rows)]
    lines = notes.lines(differ)
    if lines:
        blocks.append(("p", "\n".join(lines)))
    if ref_table:
        starred = [f"* {r['model']}: {r['note']}" for r in ref_table["rows"] if r.get("note")]
        source = f"Reference rows (*paper*): {ref_table['source']}."
        blocks.append(("p", source + ("\n" + "\n".join(starred) if starred else "")))
    else:
        blocks.append(("p", "No published numbers for this variant."))
    return blocks


def series_blocks(
    heading: str,
    image: Any,
    alt: str,
    first: str,
    series: Mapping[str, Mapping[str, Any]],
    counts: Mapping[str, Mapping[str, Any]],
    column: Callable[[str], str],
    errors: Mapping[str, Mapping[str, tuple[float, float] | None]] | None = None,
) -> list[Block]:
    """A breakdown section: its heading, its chart (when one was drawn) and a table of every run's value per group,
    its 95% interval (``errors``: Wilson bounds, :func:`binomial_interval`, explained in the legend) and the group's
    size in brackets."""
    blocks: list[Block] = [("h", 3, heading)]
    if image:
        blocks.append(("img", image, alt))
    groups = sorted({g for values in series.values() for g in values})

    def text(r: str, g: str) -> str:
        bounds = (errors or {}).get(r, {}).get(g)
        return f"{fmt(series[r].get(g), 2)}{bounds_text(bounds, 1)} ({counts.get(r, {}).get(g, MISSING)})"

    rows = [[g] + [text(r, g) for r in series] for g in groups]
    blocks.append(("table", [first] + [column(r) for r in series], rows))
    if errors and any(b is not None for e in errors.values() for b in e.values()):
        blocks.append(("p", MARKS_NOTE))
    return blocks


def _generic_cell(run: Run, task: str, metric: str) -> str:
    """A generic table's cell: the value, with its 95% interval when the run has a standard error for it."""
    value, se = run.value(task, metric), run.se(task, metric)
    if se is None or not isinstance(value, (int, float)) or isinstance(value, bool) or math.isnan(value):
        return fmt(value, 2)
    stored = stored_interval(run, task, metric)  # the results file's where ± would leave the range (issue 44)
    shown = with_interval(value, se, None, 2, 1.0, False, stored) if stored else f"{fmt(value, 2)} ± {fmt(Z95 * se, 2)}"
    return shown + (FEW if run.few(task, metric) else "")


def generic_blocks(
    tasks: Sequence[str], runs: Sequence[Run], charts: Charts, groups: Mapping[str, Sequence[str]] | None = None
) -> list[Block]:
    """Tasks no registry entry claims: scalar metrics per run, a bar chart per dict metric of flat numbers; each
    section titled by the task's alias (its name beside it) where it has one. ``groups``: those of ``tasks`` that are
    groups (their members), shown as lmms-eval aggregated them."""
    blocks: list[Block] = []
    aliases = task_aliases(runs, tasks)
    for task in tasks:
        have = [r for r in runs if task in r.metrics]
        blocks.append(("h", 2, f"{aliases[task]} (`{task}`)" if task in aliases else f"Task `{task}`"))
        intro = (
            "A task outside the packaged benchmarks (a regional task, say): one scorer, so one value per run and no "
            "paper rows; its metrics as its results file holds them."
        )
        if task in (groups or {}):
            members = ", ".join(f"`{m}`" for m in (groups or {})[task])
            intro = f"A group of {members}: its figures as lmms-eval aggregates them (its `aggregate_metric_list`)."
        blocks.append(("p", intro))
        problems = comparability_problems(have, [task])
        if problems:
            blocks.append(("warn", "Not comparable:\n" + "\n".join(f"- {p}" for p in problems)))
        info = info_metrics(have, task)  # bookkeeping (judge_info): never charted or tabled as numbers
        lead = lead_metrics(have, task)  # a declared headline leads the table and the breakdowns (judge_acc)
        names = sorted(
            {
                m
                for r in have
                for m, v in r.metrics[task].items()
                if isinstance(v, (int, float)) and m != "alias" and m not in info
            }
        )
        names.sort(key=lambda m: m not in lead)
        if names:
            rows = [[f"`{m}`"] + [_generic_cell(r, task, m) for r in have] for m in names]
            blocks.append(("table", ["Metric"] + [r.label for r in have], rows))
            if any(" ± " in c for row in rows for c in row):
                blocks.append(("p", MARKS_NOTE))
        blocks += generic_uncertainty(task, have)  # paired differences of its headline; why no Uncertainty table
        dicts = sorted({m for r in have for m, v in r.metrics[task].items() if isinstance(v, dict) and m not in info})
        dicts.sort(key=lambda m: not any(m.startswith(f"{h}_by_") for h in lead))
        for metric in dicts:
            column = metric.split("_by_")[-1]
            # the group sizes of a breakdown (regional tasks report them)
            sizes = breakdown_sizes(metric, column, dicts)
            if any(d != metric and breakdown_sizes(d, column, dicts) == metric for d in dicts):
                continue  # shown beside the breakdown it sizes
            series = {r.label: r.value(task, metric) for r in have if isinstance(r.value(task, metric), dict)}
            flat = {k: {g: v for g, v in s.items() if isinstance(v, (int, float))} for k, s in series.items()}
            if not any(flat.values()):
                continue
            counts = {r.label: r.value(task, sizes) for r in have if isinstance(r.value(task, sizes), dict)}
            errors = (
                {
                    k: {g: binomial_interval(v, (counts.get(k) or {}).get(g)) for g, v in s.items()}
                    for k, s in flat.items()
                }
                if counts and metric.startswith(("acc_by_", "judge_acc_by_"))
                else None
            )
            image = charts.language_bars(flat, f"{task}: {metric}", f"{task}_{metric}", errors)
            if counts and metric != sizes:
                blocks += series_blocks(
                    f"`{metric}`", image, metric, column, flat, counts, lambda r: f"{r} (n)", errors
                )
                continue
            blocks.append(("h", 3, f"`{metric}`"))
            if image:
                blocks.append(("img", image, metric))
            groups = sorted({g for s in flat.values() for g in s})
            blocks.append(
                ("table", [column] + list(flat), [[g] + [fmt(flat[k].get(g), 2) for k in flat] for g in groups])
            )
    return blocks


def heatmap_blocks(runs: Sequence[Run], charts: Charts, others: Sequence[str] = ()) -> list[Block]:
    """Models x benchmark headline numbers (robust scorer), when several runs are given; other tasks
    contribute their ``acc``."""
    if len(runs) < 2:
        return [
            (
                "p",
                "*Not shown:* Models by benchmark (heat map): one model only; pass the results of two or more "
                "models to see their headline numbers side by side.",
            )
        ]
    columns: list[tuple[str, Column, Placed, tuple[str, str, str]]] = []
    for spec in specs.registry():
        table = spec.tables[0]
        for placed in map(Placed, spec.variants):
            if not any(tasks_of(spec, r, placed) for r in runs):
                continue
            for key in spec.headline:
                column = next(c for c in table.columns if c.key == key)
                columns.append((f"{spec.name}{placed.suffix}: {column.label}", column, placed, table.modes[0]))
    plain = Placed(Variant(""))  # a task no spec claims: itself
    for task in others:
        if any(isinstance(r.value(task, "acc"), (int, float)) for r in runs):
            columns.append((f"{task}: acc", Column("acc", "acc", (Source(task, "acc"),)), plain, ("", "", "")))
    matrix = [[number(cell(r, c, placed, mode, False)[0]) for _, c, placed, mode in columns] for r in runs]
    used = [j for j in range(len(columns)) if any(row[j] is not None for row in matrix)]  # e.g. no group average run
    columns, matrix = [columns[j] for j in used], [[row[j] for j in used] for row in matrix]
    keep = [i for i, row in enumerate(matrix) if any(v is not None for v in row)]
    runs, matrix = [runs[i] for i in keep], [matrix[i] for i in keep]
    if len(runs) < 2 or not columns:
        return [
            (
                "p",
                "*Not shown:* Models by benchmark (heat map): fewer than two models have a headline number "
                "(a benchmark's group average, or a task's `acc`); run the groups to see it.",
            )
        ]
    labels = [name for name, *_ in columns]
    blocks: list[Block] = [("h", 2, "Models by benchmark (headline numbers, robust scorer)")]
    image = charts.heatmap(
        [r.label for r in runs], labels, matrix, "food_tasks_heatmap", [c.lower_is_better for _, c, _, _ in columns]
    )
    if image:
        blocks.append(("img", image, "models by benchmark"))

    def text(run: Run, value: Any, column: Column, placed: Placed, mode: tuple[str, str, str]) -> str:
        if is_nan(value):
            return UNDEFINED
        _, task, metric = source_cell(run, column, placed, mode, False)
        if value is None or not task or not metric:
            return fmt(value, column.decimals)
        few = FEW if run.se(task, metric) is not None and run.few(task, metric) else ""
        se, units = run.se(task, metric), run.unit_count(task, metric)
        return column_interval(value, se, units, column, stored_interval(run, task, metric)) + few

    rows = [
        [r.label] + [text(r, v, c, placed, mode) for v, (_, c, placed, mode) in zip(row, columns)]
        for r, row in zip(runs, matrix)
    ]
    blocks.append(("table", ["Model"] + labels, rows))
    if any(" ± " in c or " [" in c or "(no interval" in c for row in rows for c in row[1:]):
        blocks.append(("p", MARKS_NOTE))
    if any(is_nan(v) for row in matrix for v in row):
        blocks.append(("p", f"{UNDEFINED}: the metric has no value on this run; the benchmark's table below says why."))
    return blocks


def legend_blocks(runs: Sequence[Run]) -> list[Block]:
    """The report's legend, said once: the official and robust rows (where a benchmark's table has them), the
    intervals and the marks the tables carry; the tables point to it (:data:`MARKS_NOTE`)."""
    blocks: list[Block] = [("h", 2, LEGEND_TITLE)]
    if any(spec_for(t) is not None for r in runs for t in r.metrics):
        blocks.append(
            (
                "p",
                "*official*: the benchmark's own parser and scorer (compare with the paper rows); *robust*: "
                "our parser (reasoning removed, multilingual answer forms, ambiguity = unparsed). Rates beside "
                "the scores count outputs that could not be parsed and inputs whose images were missing.",
            )
        )
    return blocks + [("list", [INTERVAL_NOTE, FEW_NOTE, BINOMIAL_NOTE, *MARKS])]


def build_report(paths: Iterable[str | Path], out_dir: str | Path, charts: bool = True) -> dict[str, Any]:
    """Writes ``report.md`` (linking ``charts/*.png``), ``report.html`` (one file: the charts embedded) and
    ``charts/*.png`` (for papers) into ``out_dir``; ``charts=False``: the tables only (drawing is most of a
    report's time), and the report says so.

    Returns:
        ``{"markdown", "html", "charts", "runs"}`` (paths and run labels).

    Raises:
        ReportInputError: no results files, or a file that is not an lmms-eval results file.
    """
    runs = load_runs(paths)  # every input read before anything is written (a typo leaves no folder behind)
    not_strict = undefined_as_nan(runs)  # a null metric (strict JSON) is undefined, as a bare NaN is (warned)
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    drawn = Charts(out, enabled=charts)
    blocks: list[Block] = [("h", 1, "food-tasks report"), ("p", "Runs:")]
    blocks.append(
        (
            "list",
            [
                f"**{r.label}**"
                + (f" (`{r.model}`)" if r.model and r.model != r.label else "")
                + ": "
                + ", ".join(f"`{p}`" for p in r.paths)
                for r in runs
            ],
        )
    )
    if not_strict:  # a bare NaN (another tool, a hand edit): read as undefined, whatever the samples say
        head = "Not strict JSON (a bare not-a-number or infinity, another tool's or a hand edit), read as undefined:"
        blocks.append(("warn", head + "\n" + "\n".join(f"- {w}" for w in not_strict)))
    blocks += legend_blocks(runs)
    blocks += family_blocks(runs)  # a judge from the evaluated model's own family: said once
    if not charts:
        blocks.append(("p", "Charts not drawn (--no-charts): the tables hold every value."))
    elif drawn.plt is None:
        blocks.append(("warn", "matplotlib is not installed: no charts (pip install 'food-tasks[report]')."))
    # Tasks no registry entry claims; groups (no config of their own) are left out.
    others = sorted(
        {
            t
            for r in runs
            for t in r.metrics
            if spec_for(t) is None
            and t in r.fingerprints
            and any(isinstance(v, (int, float, dict)) and m != "alias" for m, v in r.metrics[t].items())
        }
    )
    blocks += heatmap_blocks(runs, drawn, others)
    for spec in specs.registry():
        blocks += benchmark_blocks(spec, runs, drawn)
        blocks += beyond_blocks(spec, runs, drawn)
    groups = group_members(runs, others)  # a regional group's aggregated row, before its tasks
    blocks += generic_blocks(sorted({*others, *groups}), runs, drawn, groups)
    blocks += judges_blocks(runs)  # tasks judged by two or more judges: their agreement, cost, disagreements
    md_path, html_path = out / "report.md", out / "report.html"
    md_path.write_text(to_markdown(blocks), encoding="utf-8")
    html_path.write_text(to_html(blocks, "food-tasks report", out), encoding="utf-8")
    return {"markdown": md_path, "html": html_path, "charts": drawn.files, "runs": [r.label for r in runs]}
