"""DiningBench in ``food-tasks report``: paper Tables 2 (Chinese) and 4 (English), per-nutrient errors, and
accuracy / MAPE by number of views (curves)."""

from __future__ import annotations

from food_tasks.report import BenchmarkSpec, Column, CurveSpec, Source, TableSpec

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
    cls, nut, vqa = "diningbench_cls{v}", "diningbench_nutrition{v}", "diningbench_vqa{v}"
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


def _view_points() -> tuple[tuple[str, str], ...]:
    return (("1 (reference photo)", "{task}{v}"), ("2", "{task}{v}_v2"), ("3", "{task}{v}_v3"), ("4", "{task}{v}_v4"))


# The packaged sample's tasks score two views (utils/diningbench.py docs_sample_*: views (0, 1)), not one.
SAMPLE_POINTS = (("2", "{task}{v}"),)


SPEC = BenchmarkSpec(
    name="diningbench",
    title="DiningBench",
    prefixes=("diningbench_",),
    variants=(
        ("Chinese (paper Table 2)", "_zh", "zh"),
        ("English (paper Table 4)", "_en", "en"),
        ("Chinese, CoT (not in the paper's tables)", "_zh_cot", None),
        ("English, CoT (not in the paper's tables)", "_en_cot", None),
        ("packaged sample (2 views)", "_sample", None),
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
                    (Source("diningbench_nutrition{v}", f"{name}_{stat}", f"{name}_{stat}_official"),),
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
            tuple((x, t.replace("{task}", "diningbench_cls")) for x, t in _view_points()),
            "acc",
            "Class ACC (%)",
            by_variant=(("_sample", tuple((x, t.replace("{task}", "diningbench_cls")) for x, t in SAMPLE_POINTS)),),
        ),
        CurveSpec(
            "Nutrition Avg MAPE (%) by number of views",
            "views",
            tuple((x, t.replace("{task}", "diningbench_nutrition")) for x, t in _view_points()),
            "avg_mape",
            "Avg MAPE (%)",
            by_variant=(
                ("_sample", tuple((x, t.replace("{task}", "diningbench_nutrition")) for x, t in SAMPLE_POINTS)),
            ),
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
