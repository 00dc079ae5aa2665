"""FAM-Bench in ``food-tasks report``: paper Tables 1 and 2 (one row per prompting mode), and the per-condition
breakdown of Task 1 (a radar chart like the paper's Figure 5)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from food_tasks.report import (
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
    series_blocks,
)
from food_tasks.tasks.registry import SAMPLE

CTC_UNDEFINED = (
    "CTC has no pair to compare: no question had both a readable ranking (a permutation of A-D) and "
    "four readable option decisions (`ctc_pool` and `ctc_pairs` are 0 in the results JSON), as when every "
    "output is unparsed."
)
MODES = (("baseline", "", "baseline"), ("cot", "_cot", "cot"), ("ki", "_ki", "ki"), ("cot+ki", "_cot_ki", "cot_ki"))


def condition_breakdown(runs: Sequence[Run], placed: Placed, charts: Charts) -> list[Block]:
    """Task 1 decision accuracy per health condition (robust scorer), one radar chart and table per mode."""
    blocks: list[Block] = []
    for mode_label, msuffix, _ in MODES:
        series: dict[str, dict[str, float]] = {}
        counts: dict[str, dict[str, Any]] = {}
        errors: dict[str, dict[str, tuple[float, float] | None]] = {}
        for run in runs:
            table = placed.value(run, f"fambench_task1{msuffix}", "per_condition")
            if isinstance(table, dict) and table:
                series[run.label] = {c: row.get("decision_acc") for c, row in table.items() if isinstance(row, dict)}
                counts[run.label] = {c: row.get("n") for c, row in table.items() if isinstance(row, dict)}
                errors[run.label] = {
                    c: binomial_interval(v, counts[run.label].get(c)) for c, v in series[run.label].items()
                }
        if not series:
            continue
        image = charts.radar(
            series,
            f"FAM-Bench Task 1 per-condition accuracy ({mode_label})",
            f"fambench_task1{msuffix}{placed.suffix}_conditions",
        )
        blocks += series_blocks(
            f"Per condition: Task 1 decision accuracy (%), {mode_label} (robust scorer)",
            image,
            f"per-condition accuracy, {mode_label}",
            "Condition",
            series,
            counts,
            lambda r: f"{r} (n)",
            errors,
        )
    return blocks


SPEC = BenchmarkSpec(
    name="fambench",
    title="FAM-Bench",
    prefixes=("fambench_",),
    variants=(Variant("full data", "table"), Variant("packaged sample", kind=SAMPLE, tag=SAMPLE)),
    tables=(
        TableSpec(
            "Paper Table 1 (text+image)",
            "table1",
            (
                Column("t1_acc", "T1 Acc", (Source("fambench_task1{m}", "decision_acc", "decision_acc_official"),)),
                Column(
                    "t1_macro_f1",
                    "T1 Macro F1",
                    (Source("fambench_task1{m}", "rationale_macro_f1", "rationale_macro_f1_official"),),
                    4,
                    proportion=False,  # not a share of documents: no Wilson interval
                ),
                Column(
                    "t1_micro_f1",
                    "T1 Micro F1",
                    (Source("fambench_task1{m}", "rationale_micro_f1", "rationale_micro_f1_official"),),
                    4,
                    proportion=False,  # not a share of documents: no Wilson interval
                ),
                Column(
                    "t2_acc",
                    "T2 Acc",
                    (
                        Source("fambench_task2{m}", "top1_acc", "top1_acc_official"),
                        Source("fambench_task2_ctc_all", "top1_acc_{mode}"),
                        Source("fambench_task2_ctc{m}", "top1_acc"),
                    ),
                ),
                Column(
                    "t2_mrr",
                    "T2 MRR",
                    (
                        Source("fambench_task2{m}", "mrr", "mrr_official"),
                        Source("fambench_task2_ctc_all", "mrr_{mode}"),
                        Source("fambench_task2_ctc{m}", "mrr"),
                    ),
                    4,
                    proportion=False,
                ),
                Column(
                    "ctc",
                    "CTC",
                    (
                        Source("fambench_task2_ctc_all", "ctc_{mode}"),  # the official code has no CTC
                        Source("fambench_task2_ctc{m}", "ctc"),
                    ),
                    4,
                    undefined=CTC_UNDEFINED,
                    proportion=False,
                ),
                Column("t1_invalid", "T1 unparsed %", (Source("fambench_task1{m}", "invalid_rate"),), rate=True),
                Column(
                    "t1_images_missing",
                    "T1 images missing",
                    (Source("fambench_task1{m}", "image_missing"),),
                    0,
                    rate=True,
                ),
                Column(
                    "t2_images_missing",
                    "T2 images missing",
                    (
                        Source("fambench_task2{m}", "image_missing"),
                        Source("fambench_task2_ctc_all", "image_missing"),
                        Source("fambench_task2_ctc{m}", "image_missing"),
                    ),
                    0,
                    rate=True,
                ),
            ),
            MODES,
        ),
        TableSpec(
            "Paper Table 2 (decision accuracy %, input ablation)",
            "table2",
            (
                Column("t1_ti", "T1 T+I", (Source("fambench_task1{m}", "decision_acc", "decision_acc_official"),)),
                Column(
                    "t1_t",
                    "T1 T-only",
                    (Source("fambench_task1_textonly{m}", "decision_acc", "decision_acc_official"),),
                ),
                Column(
                    "t1_i",
                    "T1 I-only",
                    (Source("fambench_task1_imageonly{m}", "decision_acc", "decision_acc_official"),),
                ),
                Column(
                    "t2_ti",
                    "T2 T+I",
                    (
                        Source("fambench_task2{m}", "top1_acc", "top1_acc_official"),
                        Source("fambench_task2_ctc_all", "top1_acc_{mode}"),
                        Source("fambench_task2_ctc{m}", "top1_acc"),
                    ),
                ),
                Column("t2_t", "T2 T-only", (Source("fambench_task2_textonly{m}", "top1_acc", "top1_acc_official"),)),
                Column("t2_i", "T2 I-only", (Source("fambench_task2_imageonly{m}", "top1_acc", "top1_acc_official"),)),
            ),
            MODES,
        ),
    ),
    headline=("t1_acc", "t2_acc", "ctc"),
    breakdown=condition_breakdown,
    notes=(
        (
            "Accuracies in %, F1/MRR/CTC in [0, 1]. Robust T2 MRR counts unparsed rankings as 0 over all "
            "questions (the paper's definition); the official code divides by parsed rows only. The paper's Macro "
            "F1 may be the code's per-row mean (official row) or a per-condition mean "
            "(`rationale_macro_f1_by_condition` in the results JSON)."
        ),
    ),
)
