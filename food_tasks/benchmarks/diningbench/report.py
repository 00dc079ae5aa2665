"""DiningBench in ``food-tasks report``: paper Tables 2 (Chinese) and 4 (English), per-nutrient errors, and
accuracy / MAPE by number of views (curves)."""

from __future__ import annotations

from food_tasks.report import BenchmarkSpec, Column, CurveSpec, Source, TableSpec, Variant
from food_tasks.tasks.registry import SAMPLE

CLS_UNPARSED = (
    "the official parser reads the first letter of the output whatever it is (only an empty output, "
    "or one without any letter, is unreadable), so a long or off-format answer counts as read and is "
    "scored wrong; the robust parser counts an output without one unambiguous option letter as unparsed."
)
NUTRITION_UNPARSED = (
    "the official parser reads the whole output, or the object inside a fenced block, as strict "
    "JSON with the four keys (English or Chinese) and numeric values; the robust parser also reads "
    "the last balanced object with a tolerant JSON reader, variant keys and numbers written as text "
    '("580 kcal", ranges at their midpoint), and rejects negative or non-finite values.'
)


def _main_columns() -> tuple[Column, ...]:
    cls, nut, vqa = "diningbench_cls{cls}", "diningbench_nutrition{nutrition}", "diningbench_vqa{vqa}"
    return (
        Column("cls_acc", "Class ACC", (Source(cls, "acc", "acc_official"),)),
        Column(
            "cls_unparsed",
            "Class unparsed %",
            (Source(cls, "invalid_rate", "cannot_read_rate_official"),),
            differs=CLS_UNPARSED,
        ),
        *(
            Column(
                f"{short}_mape",
                f"{label} MAPE",
                (Source(nut, f"{name}_mape", f"{name}_mape_official"),),
                lower_is_better=True,
            )
            for short, label, name in (
                ("cal", "Cal", "calories"),
                ("prot", "Prot", "protein"),
                ("carbs", "Carbs", "carbohydrates"),
                ("fat", "Fat", "fat"),
            )
        ),
        *(
            Column(
                f"avg_{stat}",
                f"Avg {stat.upper()}",
                (Source(nut, f"avg_{stat}", f"avg_{stat}_official"),),
                lower_is_better=True,
            )
            for stat in ("mae", "rmse", "mape")
        ),
        Column(
            "nut_unparsed",
            "Nutrition unparsed %",
            (Source(nut, "parse_fail_rate", "parse_fail_rate_official"),),
            differs=NUTRITION_UNPARSED,
        ),
        Column("vqa_acc", "VQA ACC", (Source(vqa, "judge_acc", "judge_acc_official"),)),
        Column("judge_errors", "Judge errors %", (Source(vqa, "judge_error_rate"),), rate=True),
    )


def _view_points(kind: str) -> tuple[tuple[str, str], ...]:
    """A kind's tasks by number of views: ``diningbench_<kind>{<kind>}`` (one view) and its ``_v2`` to ``_v4``."""
    task = f"diningbench_{kind}{{{kind}}}"
    return (("1 (reference photo)", task), ("2", f"{task}_v2"), ("3", f"{task}_v3"), ("4", f"{task}_v4"))


def _split(split: str) -> tuple[tuple[str, str], ...]:
    """The name part of a language section's tasks, the same for every kind (``_zh``, ``_en_cot``)."""
    return tuple((kind, split) for kind in ("cls", "nutrition", "vqa"))


# The packaged sample's tasks (utils/diningbench.py docs_sample_*) are samples of the full-data tasks these name: the
# classification sample scores two views in English, the nutrition sample two views in Chinese, the VQA sample English
# (each declares it: sample_of); one point of each curve, not the full benchmark's one-view task.
SAMPLE_FILL = (("cls", "_en_v2"), ("nutrition", "_zh_v2"), ("vqa", "_en"))


SPEC = BenchmarkSpec(
    name="diningbench",
    title="DiningBench",
    prefixes=("diningbench_",),
    variants=(
        Variant("Chinese (paper Table 2)", "zh", _split("_zh"), tag="zh"),
        Variant("English (paper Table 4)", "en", _split("_en"), tag="en"),
        Variant("Chinese, CoT (not in the paper's tables)", None, _split("_zh_cot"), tag="zh_cot"),
        Variant("English, CoT (not in the paper's tables)", None, _split("_en_cot"), tag="en_cot"),
        Variant("packaged sample (2 views)", None, SAMPLE_FILL, kind=SAMPLE, tag=SAMPLE),
    ),
    tables=(
        TableSpec(
            "Main table (Class/VQA ACC in %, MAPE %, Avg MAE/RMSE over the four nutrients)",
            "{variant}",
            _main_columns(),
        ),
        TableSpec(
            "Per-nutrient MAE and RMSE (kcal, g; not in the paper)",
            None,
            tuple(
                Column(
                    f"{name}_{stat}",
                    f"{label} {stat.upper()}",
                    (Source("diningbench_nutrition{nutrition}", f"{name}_{stat}", f"{name}_{stat}_official"),),
                )
                for stat in ("mae", "rmse")
                for name, label in (
                    ("calories", "Cal"),
                    ("protein", "Prot"),
                    ("carbohydrates", "Carbs"),
                    ("fat", "Fat"),
                )
            ),
        ),
    ),
    headline=("cls_acc", "avg_mape", "vqa_acc"),
    curves=(
        CurveSpec(
            "Classification accuracy by number of views",
            "views",
            _view_points("cls"),
            "acc",
            "Class ACC (%)",
            by_kind=((SAMPLE, (("2", "diningbench_cls{cls}"),)),),
        ),
        CurveSpec(
            "Nutrition Avg MAPE (%) by number of views",
            "views",
            _view_points("nutrition"),
            "avg_mape",
            "Avg MAPE (%)",
            by_kind=((SAMPLE, (("2", "diningbench_nutrition{nutrition}"),)),),
            proportion=False,
        ),
    ),
    notes=(
        (
            "Class and VQA ACC in %, as every accuracy here: the paper prints fractions (0.6526), its rows here are "
            "x 100 (65.26); MAPE in %, MAE/RMSE in kcal and g (the "
            "averages mix units, calories dominate). The paper's tables use the reference photo only (code default). "
            "VQA: *robust* = correct / judged, with the judge-error rate beside it; *official* counts judge errors "
            "as wrong. Runs with different judge models are flagged as not comparable."
        ),
    ),
)
