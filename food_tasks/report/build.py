"""The report's document: every section's blocks (tables, notes, charts) from the runs, and :func:`build_report`,
which writes it as ``report.md`` and ``report.html``."""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

import food_tasks.report.spec as specs
from food_tasks.confidence import MIN_UNITS, Z80, Z95
from food_tasks.report.beyond import beyond_blocks
from food_tasks.report.cells import (
    absent_reason,
    binomial_interval,
    bounds_text,
    cell,
    fmt,
    is_nan,
    number,
    source_cell,
    tasks_of,
    with_interval,
)
from food_tasks.report.charts import Charts
from food_tasks.report.render import to_html, to_markdown
from food_tasks.report.runs import Run, comparability_problems, flagged_tasks, load_runs
from food_tasks.report.spec import (
    BINOMIAL_NOTE,
    FEW,
    FEW_NOTE,
    INTERVAL_NOTE,
    MISSING,
    UNDEFINED,
    BenchmarkSpec,
    Block,
    Column,
    CurveSpec,
    Partial,
    Source,
    reference_data,
    spec_for,
)


def benchmark_blocks(spec: BenchmarkSpec, runs: Sequence[Run], charts: Charts) -> list[Block]:
    blocks: list[Block] = []
    ref = reference_data(spec.name)
    for variant_label, suffix, ref_key in spec.variants:
        present = [r for r in runs if tasks_of(spec, r, suffix)]
        if not present:
            continue
        blocks.append(("h", 2, f"{spec.title} — {variant_label}"))
        tasks = set().union(*(tasks_of(spec, r, suffix) for r in present))
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
        for table in spec.tables:
            blocks += _main_table(spec, table, present, suffix, ref, ref_key, flagged)
        blocks += uncertainty_blocks(spec, present, suffix)
        if spec.breakdown is not None:
            found = spec.breakdown(present, suffix, charts)
            what = (spec.breakdown.__doc__ or "breakdown").split(":")[0].split("(")[0].strip()
            blocks += found or [
                ("p", f"*Not shown:* {what} breakdown: no run's results hold the per-group table it draws.")
            ]
        for curve in spec.curves:
            blocks += _curve_blocks(curve, present, suffix, charts)
    return blocks


# --------------------------------------------------------------------------- uncertainty

POWER_NOTE = (
    "Smallest detectable difference: how far another model's score must lie from this one to be detected with 80% "
    "power at 5% significance. *Paired* (two or more models): 2.80 x the standard error of the paired difference "
    "A - B over the documents both runs scored (clustered as the README says), per other model; the models' "
    "errors on a question are correlated, so it is usually smaller. *Single run* (one model, or no samples files "
    "to pair on): 2.80 x sqrt(2) x this run's standard error, for a comparison with an independent run of the "
    "same size."
)
PAIRED_NOTE = (
    "A - B on the documents both runs scored, matched by document identity (never by position); 95% interval and "
    "p-value of the paired difference (clustered analytic for means, paired cluster bootstrap otherwise). "
    '"No detectable difference" when the interval contains 0; units are the independent clusters (dishes, '
    "questions, images): with fewer than 30 the interval is not trusted and no verdict is given. Robust scorer."
)
MAX_PAIRS = 10  # model pairs compared per benchmark (the first runs')


def _headline(spec: BenchmarkSpec, run: Run, suffix: str) -> list[tuple[Column, Any, str, str]]:
    """(column, value, task, metric) of the benchmark's headline columns the run has (robust scorer, first mode)."""
    table = spec.tables[0]
    out = []
    for column in table.columns:
        if column.key not in spec.headline:
            continue
        value, task, metric = source_cell(run, column, suffix, table.modes[0], False)
        if task and metric and isinstance(value, (int, float)) and not isinstance(value, bool):
            out.append((column, value, task, metric))
    return out


def uncertainty_blocks(spec: BenchmarkSpec, runs: Sequence[Run], suffix: str) -> list[Block]:
    """Standard errors and the smallest detectable difference of the headline numbers (paired over the shared documents
    with two or more runs, single-run otherwise); with two or more runs, paired differences and verdicts; for a
    best-of-templates group, the selection bias of its max. A section that cannot be built says why in one line."""
    cache: dict = {}  # one read of each run's files (and samples) for every section below
    pairs = _pair_results(spec, runs, suffix, cache) if len(runs) >= 2 else []
    power, without = [], []
    for run in runs:
        for column, value, task, metric in _headline(spec, run, suffix):
            se = run.se(task, metric)
            if se is None:
                why = (
                    "undefined on this run (its table says why)"
                    if is_nan(value)
                    else "no standard error in the results file"
                )
                without.append(f"`{task}` {metric} ({run.label}): {why}")
                continue
            scaled, d = se * column.scale, column.decimals
            mark = FEW if run.few(task, metric) else ""
            units = run.units.get(task, {}).get(metric)
            paired = [
                (b if a is run else a, row.comparison.mde)
                for a, b, c, t, row in pairs
                if (a is run or b is run)
                and t == task
                and c == column
                and row is not None
                and row.comparison is not None
                and row.comparison.mde is not None
            ]
            if paired:
                figure = "; ".join(f"{fmt(m * column.scale, d)}{mark} vs {other.label}" for other, m in paired)
                basis = "paired: 2.80 x SE of A - B on the shared documents"
            else:
                figure = fmt((Z95 + Z80) * math.sqrt(2) * scaled, d) if scaled > 0 else "n/a (standard error 0)"
                mine = [row for a, b, c, t, row in pairs if (a is run or b is run) and t == task and c == column]
                why = (
                    ""
                    if len(runs) < 2
                    else " (no samples files to pair on)"
                    if None in mine
                    else " (no other model has it)"
                    if not mine
                    else " (no paired standard error)"
                )
                basis = "single run: 2.80 x sqrt(2) x SE" + why
            shown = (
                with_interval(value, se, run.unit_count(task, metric), d, column.scale, not column.lower_is_better)
                + mark
            )
            count = fmt(units, 0) if isinstance(units, (int, float)) else MISSING
            power.append(
                [
                    f"**{run.label}**",
                    column.label,
                    shown,
                    fmt(scaled, d),
                    count,
                    figure if paired else figure + mark,
                    basis,
                ]
            )
    blocks: list[Block] = []
    if power:
        header = [
            "Model",
            "Metric",
            "Value ± 95%",
            "Std. error",
            "Independent units",
            "Smallest detectable difference",
            "Basis",
        ]
        blocks += [("h", 3, "Uncertainty"), ("table", header, power), ("p", POWER_NOTE)]
        if any(FEW in row[2] for row in power):
            blocks.append(("p", FEW_NOTE))
    if not power and not without and runs:
        names = ", ".join(c.label for c in spec.tables[0].columns if c.key in spec.headline)
        blocks.append(
            (
                "p",
                f"*Not shown:* Uncertainty and Paired differences: they cover the headline numbers "
                f"({names}), and no run has one here; run their tasks (the groups, not only subtasks) "
                "to see them.",
            )
        )
        return blocks
    if without:
        blocks.append(
            (
                "p",
                "*Not shown:* no Uncertainty row for " + "; ".join(without) + " (a standard error needs "
                "lmms-eval's bootstrap, not `--bootstrap_iters 0`, and a defined value).",
            )
        )
    blocks += _best_of_blocks(spec, runs, suffix, cache)
    if len(runs) >= 2:
        blocks += _paired_blocks(pairs)
    elif runs and _headline(spec, runs[0], suffix):
        blocks.append(
            (
                "p",
                "*Not shown:* Paired differences: one model only; pass two or more runs of these tasks "
                "(with `--log_samples`) to compare them on their shared documents.",
            )
        )
    return blocks


def _error_run(run: Run, task: str, cache: dict) -> Any:
    from food_tasks import compare

    path = run.files.get(task)
    if path is None:
        return None
    if path not in cache:
        loaded = compare.load_run(path)
        loaded.label = run.label
        cache[path] = loaded
    return cache[path]


def _pair_results(
    spec: BenchmarkSpec, runs: Sequence[Run], suffix: str, cache: dict
) -> list[tuple[Run, Run, Column, str, Any]]:
    """(A, B, column, task, compare row or None) for every pair of runs (the first :data:`MAX_PAIRS`) and headline
    column both have; the row is None when a run (or a task of the group) has no samples file."""
    from food_tasks import compare

    out = []
    pairs = [(a, b) for i, a in enumerate(runs) for b in runs[i + 1 :]][:MAX_PAIRS]
    for a, b in pairs:
        targets = {(task, metric): column for column, _, task, metric in _headline(spec, a, suffix)}
        for column, _, task, metric in _headline(spec, b, suffix):
            if (task, metric) not in targets:
                continue
            ra, rb = _error_run(a, task, cache), _error_run(b, task, cache)
            if ra is None or rb is None or any(r.task(leaf) is None for r in (ra, rb) for leaf in r.leaves(task)):
                out.append((a, b, column, task, None))  # a task (or a task of the group) without its samples file
                continue
            row = compare.compare_one(ra, rb, task, metric)
            if row is not None:  # None: no per-document estimator to pair on
                out.append((a, b, column, task, row))
    return out


def _paired_blocks(pairs: Sequence[tuple[Run, Run, Column, str, Any]]) -> list[Block]:
    rows, missing, few = [], set(), []
    for a, b, column, task, row in pairs:
        if row is None:
            missing.add(task)
            continue
        c = row.comparison
        if c is None:
            continue
        scale, d = column.scale, column.decimals
        verdict = c.verdict(not column.lower_is_better, a.label, b.label)
        if row.note:
            few.append(f"{a.label} vs {b.label}, `{task}`: {row.note}")
        if c.se is None or not math.isfinite(c.diff):  # undefined on these documents (no pair for CTC ...)
            rows.append(
                [
                    f"{a.label} vs {b.label}",
                    column.label,
                    "n/a",
                    "n/a",
                    "n/a",
                    f"{c.n} ({c.clusters})",
                    "n/a",
                    verdict if not math.isfinite(c.diff) else "no standard error",
                ]
            )
            continue
        rows.append(
            [
                f"{a.label} vs {b.label}",
                column.label,
                f"{c.diff * scale:+.{d}f}",
                f"[{c.low * scale:+.{d}f}, {c.high * scale:+.{d}f}]",
                f"{c.p:.3g}",
                f"{c.n} ({c.clusters})",
                fmt(c.mde * scale, d),
                verdict,
            ]
        )
    blocks: list[Block] = []
    if rows:
        blocks += [
            ("h", 3, "Paired differences"),
            (
                "table",
                [
                    "A vs B",
                    "Metric",
                    "A - B",
                    "95% interval",
                    "p",
                    "Shared documents (units)",
                    "Detectable (paired)",
                    "Verdict",
                ],
                rows,
            ),
            ("p", PAIRED_NOTE),
        ]
    if few:
        blocks.append(
            (
                "warn",
                f"Too few independent units (clusters) to compare; no verdict below {MIN_UNITS}:\n"
                + "\n".join(f"- {line}" for line in few),
            )
        )
    if missing:
        blocks.append(
            (
                "p",
                "No paired comparison for " + ", ".join(f"`{t}`" for t in sorted(missing)) + ": it needs both runs' "
                "samples files (lmms-eval `--log_samples`) beside their results files.",
            )
        )
    return blocks


def _best_of_blocks(spec: BenchmarkSpec, runs: Sequence[Run], suffix: str, cache: dict) -> list[Block]:
    from food_tasks import compare

    rows, missing = [], []
    for run in runs:
        for column, value, task, metric in _headline(spec, run, suffix):
            loaded = _error_run(run, task, cache)
            if loaded is None or task not in loaded.groups:
                continue
            entries = [e for e in compare.group_entries(task) if str(e.get("metric")) == metric]
            best_of = bool(entries) and getattr(entries[-1].get("aggregation"), "__name__", "") == "group_max"
            found = compare.best_of_bias(loaded, task, metric) if best_of else None
            if best_of and found is None:
                missing.append(f"`{task}` ({run.label})")
            if found is None or math.isnan(found.bias):
                continue
            s, d = column.scale, column.decimals
            rows.append(
                [
                    f"**{run.label}**",
                    column.label,
                    fmt(found.best * s, d),
                    fmt(found.mean * s, d),
                    f"{found.bias * s:+.{d}f}",
                ]
            )
    note: list[Block] = []
    if missing:
        note.append(
            (
                "p",
                "*Not shown:* selection bias of the best of k templates for " + ", ".join(missing) + ": it "
                "needs the samples files of every template (lmms-eval `--log_samples`).",
            )
        )
    if not rows:
        return note
    return note + [
        ("table", ["Model", "Best-of group", "Best of k", "Mean of k", "Selection bias of the best"], rows),
        (
            "p",
            "A best-of-k number picks the best of k templates on the same questions, so it is biased upwards: the "
            "bias is the cluster bootstrap's mean resampled best minus the best of the resampled means (questions "
            "resampled jointly in every template). The mean of the k templates has no selection bias; compare models on it.",
        ),
    ]


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


def _curve_blocks(curve: CurveSpec, runs: Sequence[Run], suffix: str, charts: Charts) -> list[Block]:
    xs = [x for x, _ in curve.points]
    series = {r.label: [r.value(t.format(v=suffix), curve.metric) for _, t in curve.points] for r in runs}
    series = {
        k: v for k, v in series.items() if sum(isinstance(y, (int, float)) for y in v) >= 2
    }  # a curve has 2+ points
    errors = {
        r.label: [
            Z95 * se if (se := r.se(t.format(v=suffix), curve.metric)) is not None else None for _, t in curve.points
        ]
        for r in runs
        if r.label in series
    }
    if not series:
        ran = sorted(
            {x for r in runs for x, t in curve.points if number(r.value(t.format(v=suffix), curve.metric)) is not None}
        )
        if not ran:
            return []
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
        re.sub(r"\W+", "_", f"{curve.points[0][1].format(v=suffix)}_{curve.metric}_curve"),
        errors,
    )
    if image:
        blocks.append(("img", image, curve.title))

    def point(k: str, i: int) -> str:
        width = errors.get(k, [None] * len(xs))[i]
        text = fmt(series[k][i], curve.decimals)
        return f"{text} ± {fmt(width, curve.decimals)}" if width is not None and series[k][i] is not None else text

    blocks.append(
        ("table", [curve.x_label] + list(series), [[x] + [point(k, i) for k in series] for i, x in enumerate(xs)])
    )
    return blocks


def _main_table(spec, table, runs, suffix, ref, ref_key, flagged) -> list[Block]:  # type: ignore[no-untyped-def]
    multi_mode = len(table.modes) > 1
    header = ["Model"] + (["Mode"] if multi_mode else []) + ["Scorer"] + [c.label for c in table.columns]
    rows = []
    reasons: list[tuple[str, str]] = []  # "absent [k]" / "undefined [k]" cells: (kind, reason) k below the table
    differ: list[Column] = []  # columns whose official and robust values differ for some run
    partial = False

    def numbered(kind: str, reason: str) -> str:
        if (kind, reason) not in reasons:
            reasons.append((kind, reason))
        return f"{kind} [{reasons.index((kind, reason)) + 1}]"

    intervals = few = False

    def cell_text(value: Any, column: Column, error: tuple[Any, ...] = (None, False, None)) -> str:
        nonlocal partial, intervals, few
        partial |= isinstance(value, Partial)
        reason = absent_reason(value)
        if reason is not None:
            return numbered("absent", reason)
        if isinstance(value, float) and math.isnan(value):
            return numbered("undefined", column.undefined or "the metric is undefined (NaN) on this run")
        se, thin, units = error
        if se is not None and isinstance(value, (int, float)) and not isinstance(value, bool):
            intervals, few = True, few or thin
            shown = with_interval(value, se, units, column.decimals, column.scale, not column.lower_is_better)
            return shown + (FEW if thin else "")
        return fmt(value, column.decimals)

    def with_se(run: Run, column: Column, mode: tuple[str, str, str], official: bool) -> tuple[Any, Any, tuple]:
        value, task, metric = source_cell(run, column, suffix, mode, official)
        if not (task and metric):
            return value, task, (None, False, None)
        se = run.se(task, metric)
        # cell_text scales errors by the column's factor; an official metric with a factor of its own (a fraction
        # beside our percent) gets its error in that factor.
        fill = {"v": suffix, "m": mode[1], "mode": mode[2]}
        own = [
            s.official_scale
            for s in column.sources
            if official
            and not column.rate
            and s.official_scale is not None
            and s.official
            and s.official.format(**fill) == metric
            and s.task.format(**fill) == task
        ]
        if own and se is not None and column.scale:
            se = se * own[0] / column.scale
        return value, task, (se, run.few(task, metric), run.unit_count(task, metric))

    for run in runs:
        for mode in table.modes:
            triples = [[with_se(run, c, mode, official) for c in table.columns] for official in (True, False)]
            pair = [[(v, t) for v, t, _ in values] for values in triples]
            same = [fmt(v, 6) for v, _ in pair[0]] == [fmt(v, 6) for v, _ in pair[1]]  # NaN == NaN here
            differ += [
                c
                for c, (a, _), (b, _) in zip(table.columns, *pair)
                if c.differs and c not in differ and a is not None and b is not None and fmt(a, 6) != fmt(b, 6)
            ]
            for scorer, values in (
                (("official = robust", triples[0]),) if same else (("official", triples[0]), ("robust", triples[1]))
            ):
                if not any(v is not None for v, _, _ in values):
                    continue
                mark = " ⚠" if {t for _, t, _ in values if t} & flagged else ""
                cells = [f"**{run.label}**{mark}"] + ([mode[0]] if multi_mode else []) + [scorer]
                rows.append(cells + [cell_text(v, c, se) for c, (v, _, se) in zip(table.columns, values)])
    if not rows:
        return []
    ref_table = None
    if ref_key and table.reference:  # a variant without published numbers has ref_key None
        ref_table = (ref.get("tables") or {}).get(table.reference.replace("{variant}", ref_key))
    if ref_table:
        for row in ref_table["rows"]:
            mode_label = next((m[0] for m in table.modes if m[2] == row.get("mode")), row.get("mode") or "")
            cells = [row["model"] + (" *" if row.get("note") else "")] + ([mode_label] if multi_mode else [])
            cells.append("paper")
            cells += [fmt(row["values"].get(c.key), c.decimals) for c in table.columns]
            rows.append(cells)
    blocks: list[Block] = [("h", 3, table.title), ("table", header, rows)]
    notes = [f"{kind} [{k}]: {reason}" for k, (kind, reason) in enumerate(reasons, 1)]
    if intervals:
        notes.append(INTERVAL_NOTE)
    if few:
        notes.append(FEW_NOTE)
    notes += [f"{c.label}, official and robust differ: {c.differs}" for c in differ]
    if partial:
        notes.append("(k of n): computed from the k of the n subtasks that ran, as their group would be over all n.")
    if notes:
        blocks.append(("p", "\n".join(notes)))
    if ref_table:
        notes = [f"* {r['model']}: {r['note']}" for r in ref_table["rows"] if r.get("note")]
        blocks.append(
            ("p", f"Reference rows (*paper*): {ref_table['source']}." + ("\n" + "\n".join(notes) if notes else ""))
        )
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
    its 95% interval (``errors``: Wilson bounds, :func:`binomial_interval`) and the group's size in brackets."""
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
        blocks.append(("p", BINOMIAL_NOTE))
    return blocks


def generic_blocks(tasks: Sequence[str], runs: Sequence[Run], charts: Charts) -> list[Block]:
    """Tasks no registry entry claims: scalar metrics per run, a bar chart per dict metric of flat numbers."""
    blocks: list[Block] = []
    for task in tasks:
        have = [r for r in runs if task in r.metrics]
        blocks.append(("h", 2, f"Task `{task}`"))
        problems = comparability_problems(have, [task])
        if problems:
            blocks.append(("warn", "Not comparable:\n" + "\n".join(f"- {p}" for p in problems)))
        names = sorted(
            {m for r in have for m, v in r.metrics[task].items() if isinstance(v, (int, float)) and m != "alias"}
        )
        if names:

            def cell(r: Run, m: str) -> str:
                value, se = r.value(task, m), r.se(task, m)
                if se is None or not isinstance(value, (int, float)) or isinstance(value, bool) or math.isnan(value):
                    return fmt(value, 2)
                return f"{fmt(value, 2)} ± {fmt(Z95 * se, 2)}{FEW if r.few(task, m) else ''}"

            rows = [[f"`{m}`"] + [cell(r, m) for r in have] for m in names]
            blocks.append(("table", ["Metric"] + [r.label for r in have], rows))
            if any(" ± " in c for row in rows for c in row):
                blocks.append(
                    ("p", INTERVAL_NOTE + (" " + FEW_NOTE if any(FEW in c for row in rows for c in row) else ""))
                )
        dicts = sorted({m for r in have for m, v in r.metrics[task].items() if isinstance(v, dict)})
        for metric in dicts:
            column = metric.split("_by_")[-1]
            sizes = f"n_by_{column}"  # the group sizes of a breakdown (regional tasks report them)
            if metric == sizes and any(d != sizes and d.endswith(f"_by_{column}") for d in dicts):
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
                if counts and metric.startswith("acc_by_")
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
    columns: list[tuple[str, Column, str, tuple[str, str, str]]] = []
    for spec in specs.registry():
        table = spec.tables[0]
        for _, suffix, _ in spec.variants:
            if not any(tasks_of(spec, r, suffix) for r in runs):
                continue
            for key in spec.headline:
                column = next(c for c in table.columns if c.key == key)
                columns.append((f"{spec.name}{suffix}: {column.label}", column, suffix, table.modes[0]))
    for task in others:
        if any(isinstance(r.value(task, "acc"), (int, float)) for r in runs):
            columns.append((f"{task}: acc", Column("acc", "acc", (Source(task, "acc"),)), "", ("", "", "")))
    matrix = [[number(cell(r, c, suffix, mode, False)[0]) for _, c, suffix, mode in columns] for r in runs]
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

    def text(run: Run, value: Any, column: Column, suffix: str, mode: tuple[str, str, str]) -> str:
        if is_nan(value):
            return UNDEFINED
        _, task, metric = source_cell(run, column, suffix, mode, False)
        if value is None or not task or not metric:
            return fmt(value, column.decimals)
        few = FEW if run.se(task, metric) is not None and run.few(task, metric) else ""
        se, units = run.se(task, metric), run.unit_count(task, metric)
        return with_interval(value, se, units, column.decimals, column.scale, not column.lower_is_better) + few

    rows = [
        [r.label] + [text(r, v, c, suffix, mode) for v, (_, c, suffix, mode) in zip(row, columns)]
        for r, row in zip(runs, matrix)
    ]
    blocks.append(("table", ["Model"] + labels, rows))
    if any(" ± " in c or " [" in c for row in rows for c in row[1:]):
        blocks.append(("p", INTERVAL_NOTE + (" " + FEW_NOTE if any(FEW in c for row in rows for c in row) else "")))
    if any(is_nan(v) for row in matrix for v in row):
        blocks.append(("p", f"{UNDEFINED}: the metric has no value on this run; the benchmark's table below says why."))
    return blocks


def build_report(paths: Iterable[str | Path], out_dir: str | Path) -> dict[str, Any]:
    """Writes ``report.md`` (linking ``charts/*.png``), ``report.html`` (one file: the charts embedded) and
    ``charts/*.png`` (for papers) into ``out_dir``.

    Returns:
        ``{"markdown", "html", "charts", "runs"}`` (paths and run labels).

    Raises:
        ReportInputError: no results files, or a file that is not an lmms-eval results file.
    """
    runs = load_runs(paths)  # every input read before anything is written (a typo leaves no folder behind)
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    charts = Charts(out)
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
    blocks.append(
        (
            "p",
            (
                "*official*: the benchmark's own parser and scorer (compare with the paper rows); *robust*: "
                "our parser (reasoning removed, multilingual answer forms, ambiguity = unparsed). Rates beside "
                "the scores count outputs that could not be parsed and inputs whose images were missing."
            ),
        )
    )
    if charts.plt is None:
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
    blocks += heatmap_blocks(runs, charts, others)
    for spec in specs.registry():
        blocks += benchmark_blocks(spec, runs, charts)
        blocks += beyond_blocks(spec, runs, charts)
    blocks += generic_blocks(others, runs, charts)
    md_path, html_path = out / "report.md", out / "report.html"
    md_path.write_text(to_markdown(blocks), encoding="utf-8")
    html_path.write_text(to_html(blocks, "food-tasks report", out), encoding="utf-8")
    return {"markdown": md_path, "html": html_path, "charts": charts.files, "runs": [r.label for r in runs]}
