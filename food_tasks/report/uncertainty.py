"""The report's uncertainty section: standard errors and the smallest detectable difference of each benchmark's
headline numbers, paired differences with verdicts between runs, and the selection bias of best-of-template groups."""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

from food_tasks.report.cells import Placed, column_interval, fmt, is_nan, number, source_cell, stored_interval
from food_tasks.report.spec import FEW, MARKS_NOTE, MISSING, BenchmarkSpec, Block, Column, TableSpec
from food_tasks.runs.paired import NOT_IN_SAMPLES, WHY_NOT_PAIRED, best_of_bias, compare_one, group_entries
from food_tasks.runs.run import Run
from food_tasks.stats.confidence import MIN_UNITS, TOO_FEW, Z80, Z95, interval_p

POWER_NOTE = (
    "Smallest detectable difference: how far another model's score must lie from this one to be detected with 80% "
    "power at 5% significance. *Paired* (two or more models): 2.80 x the standard error of the paired difference "
    "A - B over the documents both runs scored (clustered by each benchmark's unit, docs/error_bars.md), per other "
    "model; the models' errors on a question are correlated, so it is usually smaller. *Single run* (one model, or "
    "no samples files to pair on): 2.80 x sqrt(2) x this run's standard error, for a comparison with an independent "
    "run of the same size."
)
PAIRED_NOTE = (
    "A - B on the documents both runs scored, matched by document identity (never by position); 95% interval and "
    "p-value of the paired difference (clustered analytic for means, paired cluster bootstrap otherwise). "
    '"No detectable difference" when the interval contains 0; units are the independent clusters (dishes, '
    "questions, images): with fewer than 30 no interval, p-value or verdict is given (n/a: a normal interval there "
    "can cross the metric's bounds). Robust scorer."
)
MAX_PAIRS = 10  # model pairs compared per benchmark (the first runs')


def _detectable(figure: float, decimals: int) -> str:
    """A smallest detectable difference; none where the standard error behind it is 0 (every unit scored alike: a
    difference of 0 is not one a test detects)."""
    return fmt(figure, decimals) if figure > 0 else "n/a (standard error 0)"


def _headline(spec: BenchmarkSpec, run: Run, placed: Placed) -> list[tuple[Column, Any, str, str]]:
    """(column, value, task, metric) of the benchmark's headline columns the run has (robust scorer, first mode)."""
    table = spec.tables[0]
    out = []
    for column in table.columns:
        if column.key not in spec.headline:
            continue
        value, task, metric = source_cell(run, column, placed, table.modes[0], False)
        if task and metric and isinstance(value, (int, float)) and not isinstance(value, bool):
            out.append((column, value, task, metric))
    return out


def uncertainty_blocks(spec: BenchmarkSpec, runs: Sequence[Run], placed: Placed) -> list[Block]:
    """Standard errors and the smallest detectable difference of the headline numbers (paired over the shared documents
    with two or more runs, single-run otherwise); with two or more runs, paired differences and verdicts; for a
    best-of-templates group, the selection bias of its max. A section that cannot be built says why in one line."""
    pairs = _pair_results(spec, runs, placed) if len(runs) >= 2 else []
    power, without = [], []
    for run in runs:
        for column, value, task, metric in _headline(spec, run, placed):
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
                figure = "; ".join(f"{_detectable(m * column.scale, d)}{mark} vs {other.label}" for other, m in paired)
                basis = "paired: 2.80 x SE of A - B on the shared documents"
            else:
                figure = _detectable((Z95 + Z80) * math.sqrt(2) * scaled, d)
                mine = [row for a, b, c, t, row in pairs if (a is run or b is run) and t == task and c == column]
                partial = any(c.key not in spec.headline for a, b, c, _, _ in pairs if a is run or b is run)
                why = (
                    ""
                    if len(runs) < 2
                    else " (no samples files to pair on)"
                    if None in mine
                    else " (no other model has it"
                    + ("; Paired differences use the tasks both ran)" if partial else ")")
                    if not mine
                    else " (no paired standard error)"
                )
                basis = "single run: 2.80 x sqrt(2) x SE" + why
            bounds = stored_interval(run, task, metric)
            shown = column_interval(value, se, run.unit_count(task, metric), column, bounds) + mark
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
        blocks += [("h", 3, "Uncertainty"), ("table", header, power), ("p", POWER_NOTE), ("p", MARKS_NOTE)]
    if not power and not without and runs:
        names = ", ".join(c.label for c in spec.tables[0].columns if c.key in spec.headline)
        what = "Uncertainty: it covers" if pairs else "Uncertainty and Paired differences: they cover"
        blocks.append(
            (
                "p",
                f"*Not shown:* {what} the headline numbers ({names}), and no run has one here; run their tasks "
                "(the groups, not only subtasks) to see them.",
            )
        )
        return blocks + _paired_blocks(pairs, spec)
    if without:
        blocks.append(
            (
                "p",
                "*Not shown:* no Uncertainty row for " + "; ".join(without) + " (a standard error needs "
                "lmms-eval's bootstrap, not `--bootstrap_iters 0`, and a defined value).",
            )
        )
    blocks += _best_of_blocks(spec, runs, placed)
    if len(runs) >= 2 and pairs:
        blocks += _paired_blocks(pairs, spec)
    elif len(runs) >= 2:
        blocks.append(
            (
                "p",
                "*Not shown:* Paired differences: no two runs have a scored task of this benchmark in common; run "
                "the same tasks (with `--log_samples`) for the models to compare.",
            )
        )
    elif runs and _headline(spec, runs[0], placed):
        blocks.append(
            (
                "p",
                "*Not shown:* Paired differences: one model only; pass two or more runs of these tasks "
                "(with `--log_samples`) to compare them on their shared documents.",
            )
        )
    return blocks


def _error_run(run: Run, task: str) -> Run | None:
    """The run when it holds ``task`` (its samples files are read when first paired), else None."""
    return run if task in run.files else None


def _shared(spec: BenchmarkSpec, a: Run, b: Run, placed: Placed) -> list[tuple[Column, str, str]]:
    """(column, task, metric) the two runs can be paired on: the headline columns both have from the same task;
    when they share none (one run has the group, the other one subtask), the scored columns of the first table
    both have from the same task (the subtasks both ran)."""
    table = spec.tables[0]
    mine = {(column.key, task, metric) for column, _, task, metric in _headline(spec, a, placed)}
    shared = [(c, t, m) for c, _, t, m in _headline(spec, b, placed) if (c.key, t, m) in mine]
    if shared:
        return shared
    for column in table.columns:
        if column.rate or column.key in spec.headline:
            continue
        found = [source_cell(run, column, placed, table.modes[0], False) for run in (a, b)]
        (va, ta, ma), (_, tb, mb) = found
        if ta and ma and (ta, ma) == (tb, mb) and number(va) is not None:
            shared.append((column, ta, ma))
    return shared


def _pair_results(spec: BenchmarkSpec, runs: Sequence[Run], placed: Placed) -> list[tuple[Run, Run, Column, str, Any]]:
    """(A, B, column, task, compare row or None) for every pair of runs (the first :data:`MAX_PAIRS`) and column
    both have (:func:`_shared`); the row is None when a run (or a task of the group) has no samples file."""
    out = []
    pairs = [(a, b) for i, a in enumerate(runs) for b in runs[i + 1 :]][:MAX_PAIRS]
    for a, b in pairs:
        for column, task, metric in _shared(spec, a, b, placed):
            ra, rb = _error_run(a, task), _error_run(b, task)
            if ra is None or rb is None or any(r.task(leaf) is None for r in (ra, rb) for leaf in r.leaves(task)):
                out.append((a, b, column, task, None))  # a task (or a task of the group) without its samples file
                continue
            row = compare_one(ra, rb, task, metric)
            if row is not None:  # None: no per-document estimator to pair on
                out.append((a, b, column, task, row))
    return out


def _paired_blocks(pairs: Sequence[tuple[Run, Run, Column, str, Any]], spec: BenchmarkSpec) -> list[Block]:
    rows, missing, few = [], set(), []
    unpaired: set[str] = set()
    if not pairs:
        return []
    for a, b, column, task, row in pairs:
        if row is None:
            missing.add(task)
            continue
        c = row.comparison
        if c is None:
            if row.note == NOT_IN_SAMPLES:  # a judge's figure: its verdicts are not in the samples files
                unpaired.add(f"`{task}` {column.label}")
            continue
        scale, d = column.scale, column.decimals
        verdict = c.verdict(not column.lower_is_better, a.label, b.label)
        if row.note:
            few.append(f"{a.label} vs {b.label}, `{task}`: {row.note}")
        # never a difference beside an undefined value (a results file's bare NaN where its samples give one)
        sides = ((a, getattr(row, "a", None)), (b, getattr(row, "b", None)))
        undefined = [r.label for r, v in sides if isinstance(v, float) and math.isnan(v)]
        if undefined and math.isfinite(c.diff):
            verdict = f"{' and '.join(undefined)}: undefined, no difference"
        if c.se is None or not math.isfinite(c.diff) or undefined:  # undefined on these documents (no pair ...)
            rows.append(
                [
                    f"{a.label} vs {b.label}",
                    column.label,
                    "n/a",
                    "n/a",
                    "n/a",
                    f"{c.n} ({c.clusters})",
                    "n/a",
                    verdict if not math.isfinite(c.diff) or undefined else "no standard error",
                ]
            )
            continue
        rows.append(
            [
                f"{a.label} vs {b.label}",
                column.label,
                f"{c.diff * scale:+.{d}f}",
                *interval_p(c, scale, d),
                f"{c.n} ({c.clusters})",
                _detectable(c.mde * scale, d),
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
        partial = sorted({c.label for _, _, c, _, row in pairs if row is not None and c.key not in spec.headline})
        if partial:
            names = ", ".join(c.label for c in spec.tables[0].columns if c.key in spec.headline)
            blocks.append(
                (
                    "p",
                    f"Paired on {', '.join(partial)}: the tasks both runs have. The headline numbers ({names}) are "
                    "paired when both runs have their groups.",
                )
            )
    if few:
        blocks.append(
            (
                "warn",
                f"{TOO_FEW.capitalize()}: fewer than {MIN_UNITS} independent units (clusters), no verdict for:\n"
                + "\n".join(f"- {line}" for line in few),
            )
        )
    if unpaired:
        blocks.append(("p", f"No paired difference for {', '.join(sorted(unpaired))}: {WHY_NOT_PAIRED}."))
    if missing:
        blocks.append(
            (
                "p",
                "No paired comparison for " + ", ".join(f"`{t}`" for t in sorted(missing)) + ": it needs both runs' "
                "samples files (lmms-eval `--log_samples`) beside their results files.",
            )
        )
    return blocks


def _best_of_blocks(spec: BenchmarkSpec, runs: Sequence[Run], placed: Placed) -> list[Block]:
    rows, missing = [], []
    for run in runs:
        for column, _value, task, metric in _headline(spec, run, placed):
            loaded = _error_run(run, task)
            if loaded is None or task not in loaded.groups:
                continue
            entries = [e for e in group_entries(task) if str(e.get("metric")) == metric]
            best_of = bool(entries) and getattr(entries[-1].get("aggregation"), "__name__", "") == "group_max"
            found = best_of_bias(loaded, task, metric) if best_of else None
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
            "resampled jointly in every template). The mean of the k templates has no selection bias; compare models "
            "on it.",
        ),
    ]


def generic_blocks(task: str, runs: Sequence[Run]) -> list[Block]:
    """A task no benchmark claims (a regional task): the Paired differences table of its headline metric (its facts'
    :attr:`~food_tasks.lmms.facts.TaskFacts.headline`) between every two runs that have its samples files, as a
    benchmark's; and one line for each section it does not get, saying why (its values table already gives each
    value's 95% interval, so it needs no Uncertainty table)."""
    have = [r for r in runs if task in r.files]
    found = next((r for r in have if r.task(task) is not None), None)
    metric = found.facts_of(task).headline if found is not None else None
    why = "*Not shown:* Uncertainty: the table above gives each value with its 95% interval (its standard error, "
    blocks: list[Block] = [("p", why + "method and units are in the results file).")]
    pairs = [(a, b) for i, a in enumerate(have) for b in have[i + 1 :]][:MAX_PAIRS]
    rows = [(a, b, compare_one(a, b, task, metric)) for a, b in pairs] if metric else []
    if not rows:
        reason = (
            "one run of this task; two or more are paired on the documents both scored"
            if len(have) < 2
            else "no samples files (re-run with --log_samples) or no per-document headline metric"
        )
        return [*blocks, ("p", f"*Not shown:* Paired differences: {reason}.")]
    lower = not next((r.higher_is_better for _, _, r in rows if r is not None), True)
    column = Column(metric, f"`{metric}`", (), lower_is_better=lower)
    spec = BenchmarkSpec(task, task, (task,), (TableSpec(task, None, (column,)),), (), (metric,))  # its headline
    return blocks + _paired_blocks([(a, b, column, task, row) for a, b, row in rows], spec)
