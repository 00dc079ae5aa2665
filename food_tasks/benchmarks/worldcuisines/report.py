"""WorldCuisines in ``food-tasks report``: paper Tables 7 (accuracy) and 8 (BERTScore) per split, and the
per-language breakdown (bar chart, per-subtask tables)."""

from __future__ import annotations

from collections.abc import Sequence

from food_tasks.report import (
    MARKS_NOTE,
    BenchmarkSpec,
    Block,
    Charts,
    Column,
    Placed,
    Run,
    Source,
    TableSpec,
    Variant,
    binomial_interval,
    bounds_text,
    fmt,
)
from food_tasks.tasks.registry import SAMPLE

SUBTASKS = (("1a", "1a_nocontext"), ("1b", "1b_contextualized"), ("1c", "1c_adversarial"), ("2", "2_location"))


def _accuracy_columns() -> tuple[Column, ...]:
    cols = []
    for short, sub in SUBTASKS:
        cols.append(
            Column(
                f"{short}_mcq", f"{short} MCQ", (Source(f"worldcuisines_mcq{{split}}_{sub}", "acc", "acc_official"),)
            )
        )
        cols.append(
            Column(
                f"{short}_oeq",
                f"{short} OEQ",
                (Source(f"worldcuisines_oeq{{split}}_{sub}", "acc_multi", "acc_multi_official"),),
            )
        )
    cols.append(Column("avg_mcq", "Avg MCQ", (Source("worldcuisines_mcq{split}", "acc", "acc_official"),)))
    cols.append(Column("avg_oeq", "Avg OEQ", (Source("worldcuisines_oeq{split}", "acc_multi", "acc_multi_official"),)))
    # The group's unparsed rate is the unweighted mean over its subtasks: after a partial run (one subtask),
    # the same mean over the subtasks that ran.
    cols.append(
        Column(
            "invalid_mcq",
            "MCQ unparsed %",
            (Source("worldcuisines_mcq{split}", "invalid_rate"),),
            rate=True,
            parts=tuple(Source(f"worldcuisines_mcq{{split}}_{sub}", "invalid_rate") for _, sub in SUBTASKS),
        )
    )
    return tuple(cols)


def language_breakdown(runs: Sequence[Run], placed: Placed, charts: Charts) -> list[Block]:
    """Per language (robust scorer): MCQ and OEQ accuracy averaged over the four subtasks, a bar chart and one
    table per run (per subtask, with the MCQ unparsed rate)."""
    blocks: list[Block] = []
    for kind, metric, label in (("mcq", "acc", "MCQ accuracy"), ("oeq", "acc_multi", "OEQ accuracy (multi-reference)")):
        per_run: dict[str, dict[str, float]] = {}
        errors: dict[str, dict[str, tuple[float, float] | None]] = {}
        tables = []
        for run in runs:
            cells: dict[str, dict[str, float]] = {}
            sizes: dict[str, dict[str, float]] = {}
            for short, sub in SUBTASKS:
                table = placed.value(
                    run, placed.name("worldcuisines_{kind}{split}_{sub}", kind=kind, sub=sub), "per_language"
                )
                for lang, row in (table or {}).items():
                    if isinstance(row, dict) and metric in row:
                        cells.setdefault(lang, {})[short] = row[metric]
                        if isinstance(row.get("n"), (int, float)):
                            sizes.setdefault(lang, {})[short] = row["n"]
                        if "invalid_rate" in row:
                            cells[lang].setdefault("_inv", []).append(row["invalid_rate"])  # type: ignore[union-attr]
            if not cells:
                continue
            per_run[run.label] = {
                lang: sum(v for k, v in c.items() if k != "_inv") / max(1, sum(k != "_inv" for k in c))
                for lang, c in cells.items()
            }
            # Per language the dishes are independent within a subtask; the mean over subtasks is taken as a rate over
            # all their documents (the same dishes recur in the subtasks: the interval is a lower bound).
            errors[run.label] = {
                lang: binomial_interval(per_run[run.label][lang], sum(sizes[lang].values()))
                if lang in sizes and len(sizes[lang]) == len(cells[lang]) - ("_inv" in cells[lang])
                else None
                for lang in cells
            }
            header = ["Language"] + [s for s, _ in SUBTASKS] + ["Mean"] + (["Unparsed %"] if kind == "mcq" else [])
            rows = []
            for lang in sorted(cells):
                c = cells[lang]
                n = sizes.get(lang, {})
                row = [lang] + [
                    fmt(c.get(s), 2) + bounds_text(binomial_interval(c.get(s), n.get(s)), 1) for s, _ in SUBTASKS
                ]
                row.append(fmt(per_run[run.label][lang], 2) + bounds_text(errors[run.label].get(lang), 1))
                if kind == "mcq":
                    inv = c.get("_inv") or []
                    row.append(fmt(sum(inv) / len(inv) if inv else None, 2))
                rows.append(row)
            tables.append((run.label, header, rows))
        if not per_run:
            continue
        blocks.append(("h", 3, f"Per language: {label} (robust scorer)"))
        image = charts.language_bars(
            per_run, f"WorldCuisines {label} by language", f"worldcuisines_{kind}{placed.suffix}_languages", errors
        )
        if image:
            blocks.append(("img", image, f"{label} by language"))
        for run_label, header, rows in tables:
            blocks.append(("details", f"{run_label}: {label} per language and subtask", header, rows))
        blocks.append(("p", "The mean over subtasks is taken as one rate over all their documents. " + MARKS_NOTE))
    return blocks


SPEC = BenchmarkSpec(
    name="worldcuisines",
    title="WorldCuisines (paper Table 7)",
    prefixes=("worldcuisines_",),
    variants=(
        Variant("test_large", "large", (("split", ""),)),
        Variant(
            "smallref (400 items of the published Test Small)", "smallref", (("split", "_smallref"),), tag="smallref"
        ),
        Variant("HF test_small", None, (("split", "_small"),), tag="small"),
        Variant("packaged sample", None, (("split", ""),), kind=SAMPLE, tag=SAMPLE),  # test_large rows
    ),
    tables=(
        TableSpec("Accuracy (%)", "{variant}", _accuracy_columns()),
        TableSpec(
            "OEQ BERTScore F1 x100 (paper Table 8)",
            "bertscore_{variant}",
            tuple(
                Column(key, label, (Source(task, "bertscore_f1", "bertscore_f1"),), proportion=False)
                for key, label, task in (
                    ("1a", "1a", "worldcuisines_oeq{split}_1a_nocontext"),
                    ("1b", "1b", "worldcuisines_oeq{split}_1b_contextualized"),
                    ("1c", "1c", "worldcuisines_oeq{split}_1c_adversarial"),
                    ("2", "2", "worldcuisines_oeq{split}_2_location"),
                    ("avg", "Average", "worldcuisines_oeq{split}"),
                )
            ),
        ),
    ),
    headline=("avg_mcq", "avg_oeq"),
    breakdown=language_breakdown,
    # The released smallref MCQ predictions of the paper's models, scored by scripts/published_beyond_worldcuisines.py
    published_beyond="worldcuisines_beyond.json",
    notes=(
        (
            "OEQ = multi-reference substring accuracy. Paper numbers are produced by the official scorer: "
            "compare them with the *official* rows."
        ),
    ),
)
