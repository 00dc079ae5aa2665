"""Food-500 Cap in ``food-tasks report``: paper Tables 4 (captioning) and 3 (SLA per region), and the breakdown
per region of the user's category-to-region mapping."""

from __future__ import annotations

from collections.abc import Sequence

from food_tasks.benchmarks.food500cap.data import REGIONS_ENV
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
    absent_reason,
    binomial_interval,
    bounds_text,
    fmt,
)
from food_tasks.tasks.registry import SAMPLE

PAPER_REGIONS = ("Chinese", "Worldwide", "Japanese", "Western", "Latin-American", "Asian", "Indian")
TASK = "food500cap_caption{split}"


def region_breakdown(runs: Sequence[Run], placed: Placed, charts: Charts) -> list[Block]:
    """Per region of the user's category-to-region mapping (``per_region``)."""
    task = placed.name(TASK)
    tables = {r.label: t for r in runs if isinstance(t := placed.value(r, task, "per_region"), dict)}
    if not tables:  # no mapping given: the region columns of the Table 3 rows say why too
        ran = any(placed.task(r, task) is not None for r in runs)
        return (
            [
                (
                    "p",
                    "*Not shown:* per-region breakdown: no category-to-region mapping was given "
                    f"(`{REGIONS_ENV}`, the benchmark README).",
                )
            ]
            if ran
            else []
        )
    blocks: list[Block] = [("h", 3, "Per region (your category-to-region mapping)")]
    series = {
        k: {
            g: row["sla_accurate"]
            for g, row in t.items()
            if isinstance(row, dict) and isinstance(row.get("sla_accurate"), (int, float))
        }
        for k, t in tables.items()
    }
    errors = {
        k: {
            g: binomial_interval(row.get("sla_accurate"), row.get("n")) for g, row in t.items() if isinstance(row, dict)
        }
        for k, t in tables.items()
    }
    image = charts.language_bars(
        series, "Food-500 Cap SLA-accurate by region", f"{placed.shown(runs, task)}_regions", errors
    )
    if image:
        blocks.append(("img", image, "SLA-accurate by region"))
    fields = (
        ("n", "Images", 0),
        ("sla_accurate", "SLA acc.", 2),
        ("sla_relaxed", "SLA rel.", 2),
        ("bleu4", "BLEU-4", 2),
        ("meteor", "METEOR", 2),
        ("rouge_l", "ROUGE-L", 2),
        ("cider", "CIDEr", 2),
    )
    for label, table in tables.items():
        rows = []
        for region, row in sorted(table.items()):
            row = row if isinstance(row, dict) else {}
            rows.append(
                [region]
                + [
                    (
                        "absent"
                        if absent_reason(row.get(k)) is not None
                        else fmt(row.get(k), d)
                        + (bounds_text(binomial_interval(row.get(k), row.get("n")), 1) if k.startswith("sla") else "")
                    )
                    for k, _, d in fields
                ]
            )
        blocks.append(("details", f"{label}: caption metrics per region", ["Region"] + [h for _, h, _ in fields], rows))
    blocks.append(("p", MARKS_NOTE))
    return blocks


SPEC = BenchmarkSpec(
    name="food500cap",
    title="Food-500 Cap",
    prefixes=("food500cap_",),
    variants=(
        Variant("test split, generic prompt", "paper", (("split", ""),)),
        Variant("test split, food-aware prompt", "paper", (("split", "_food"),), tag="food"),
        Variant("all 24,700 images, generic prompt", "paper", (("split", "_all"),), tag="all"),
        Variant("packaged sample", None, (("split", ""),), kind=SAMPLE, tag=SAMPLE),
    ),
    tables=(
        TableSpec(
            "Captioning (paper Table 4; metrics x 100, CLIP-S in [0, 1]; SLA % from Table 3)",
            "table4",
            (
                Column(
                    "avg_len",
                    "Avg. len",
                    (Source(TASK, "mean_caption_words", "mean_caption_words"),),
                    proportion=False,
                ),
                *(  # caption metrics are not shares of images: no Wilson interval
                    Column(key, label, (Source(TASK, key, key),), proportion=False)
                    for key, label in (
                        ("bleu4", "BLEU-4"),
                        ("meteor", "METEOR"),
                        ("rouge_l", "ROUGE-L"),
                        ("cider", "CIDEr"),
                    )
                ),
                Column("clipscore", "CLIP-S", (Source(TASK, "clipscore", "clipscore"),), 3, proportion=False),
                Column("sla_accurate", "SLA accurate", (Source(TASK, "sla_accurate", "sla_accurate"),)),
                Column("sla_relaxed", "SLA relaxed", (Source(TASK, "sla_relaxed", "sla_relaxed"),)),
                Column("parse_fail", "Unparsed %", (Source(TASK, "parse_fail_rate"),), rate=True),
                Column("image_missing", "Images missing", (Source(TASK, "image_missing"),), 0, rate=True),
            ),
        ),
        TableSpec(
            "SLA % per region (paper Table 3)",
            "table3",
            (
                Column("overall", "Overall", (Source(TASK, "sla_{mode}", "sla_{mode}"),)),
                *(
                    Column(
                        region,
                        region,
                        (Source(TASK, f"per_region/{region}/sla_{{mode}}", f"per_region/{region}/sla_{{mode}}"),),
                    )
                    for region in PAPER_REGIONS
                ),
            ),
            (("Accurate", "", "accurate"), ("Relaxed", "", "relaxed")),
        ),
    ),
    headline=("cider", "sla_accurate"),
    breakdown=region_breakdown,
    notes=(
        (
            "No official scoring code exists: the metrics are the standard COCO caption toolkit and CLIP-S, one "
            "scorer, so one row per run. The paper's captioners ran on all 24,700 images: orders of magnitude, not "
            "parity targets; CIDEr depends on the image set (never compare across splits or --limit runs). "
            "*absent [k]*: a metric that could not be computed, with its reason below the table."
        ),
    ),
)
