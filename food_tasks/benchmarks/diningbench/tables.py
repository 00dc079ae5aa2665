"""Metric tables of the DiningBench tasks: every metric of each task kind declared once
(:mod:`food_tasks.hooks.convention`).

``food_tasks.utils.diningbench`` builds its ``process_results`` hooks from ``TABLES`` and
``yaml_tasks/diningbench/_generate_configs.py`` writes each task's ``metric_list`` from it.
"""

from __future__ import annotations

from functools import partial

from food_tasks.benchmarks.diningbench import circular as db_circular
from food_tasks.benchmarks.diningbench import scoring as db_scoring
from food_tasks.hooks import rotation
from food_tasks.hooks.convention import TRUNCATED_RATE, Metric, MetricTable
from food_tasks.stats import metrics
from food_tasks.stats import uncertainty as stats

# Scales: accuracies and rates in percent, as in every benchmark (the paper and the official code print fractions;
# ours, the _official ones included, are x 100); ROUGE F x 100, as every benchmark's text overlap; MAE and RMSE in
# kcal / g; MAPE in %.
# Error bars (yaml_tasks/diningbench/README.md): a document is a row of the JSONL file (idx), one per row and
# task, and the row is one dish: its own cluster (independent rows). Means and rates: analytic; RMSE and the
# averages over the four components: bootstrap over rows.
KEY = stats.column("idx")

_INVALID = Metric(
    "invalid_rate",
    partial(metrics.percent_of, db_scoring.cls_invalid_rate),
    higher_is_better=False,
    scale="percent",
    estimator=stats.mean(stats.field("pred", test="none", unless="image_missing"), 100.0, binary=True),
)
_CANNOT_READ = Metric(
    "cannot_read_rate_official",
    partial(metrics.percent_of, db_scoring.cls_unreadable_official),
    higher_is_better=False,
    scale="percent",
    estimator=stats.mean(stats.field("unreadable_official"), 100.0, binary=True),
)
_IMAGE_MISSING = Metric("image_missing", db_scoring.image_missing, higher_is_better=False, scale="count")
TABLES = {
    "cls": MetricTable(
        Metric(
            "acc",
            partial(metrics.percent_of, db_scoring.cls_acc),
            scale="percent",
            estimator=stats.mean(stats.field("correct", unless="image_missing"), 100.0, binary=True),
        ),
        Metric(
            "acc_official",
            partial(metrics.percent_of, partial(db_scoring.cls_acc, official=True)),
            scale="percent",
            estimator=stats.mean(stats.field("correct_official"), 100.0, binary=True),
        ),
        _INVALID,
        _CANNOT_READ,
        _INVALID.alias("parse_fail_rate"),
        _CANNOT_READ.alias("parse_fail_rate_official"),
        _IMAGE_MISSING,
        TRUNCATED_RATE,
        *db_circular.POSITIONS,
        version=1.4,  # 1.4: position_bias_p a test of homogeneity, position_rstd (README changelog)
        key=KEY,
        consistency=db_scoring.CONSISTENCY,
    ),
    "nutrition": MetricTable(
        *db_scoring.nutrition_metrics(False),
        *db_scoring.nutrition_metrics(True),
        Metric("range_values", db_scoring.nutrition_range_values, higher_is_better=False, scale="count"),
        Metric("gold_missing", db_scoring.nutrition_gold_missing, higher_is_better=False, scale="count"),
        _IMAGE_MISSING,
        TRUNCATED_RATE,
        version=1.3,
        key=KEY,
    ),
    "vqa": MetricTable(
        *(
            Metric(
                name,
                partial(metrics.percent_of, partial(db_scoring.judge_metric, name=name)),
                higher_is_better=name.startswith("judge_acc"),
                scale="percent",
                estimator=db_scoring.JudgeRatio(name, 100.0),
            )
            for name in ("judge_acc", "judge_acc_official", "judge_error_rate", "judge_unparsed_rate")
        ),
        # Several judges (FOOD_TASKS_JUDGE_MODEL=a,b) and repeats (FOOD_TASKS_JUDGE_REPEATS): null when undefined
        # (one judge; the flip rate: one repeat). Cluster bootstrap on the rows.
        *(
            Metric(
                name,
                partial(metrics.percent_of, partial(db_scoring.judge_metric, name=name)),
                higher_is_better=name != "judge_flip_rate",
                scale="percent",
                estimator=db_scoring.JudgeFigure(name, 100.0),
            )
            for name in ("judge_agreement", "judge_majority_acc", "judge_flip_rate")
        ),
        Metric(
            "judge_kappa",
            partial(db_scoring.judge_metric, name="judge_kappa"),
            scale="score",
            estimator=db_scoring.JudgeFigure("judge_kappa"),
        ),
        Metric(
            "judge_rule_disagree_rate",
            partial(metrics.percent_of, partial(db_scoring.judge_metric, name="judge_rule_disagree_rate")),
            higher_is_better=False,
            scale="percent",
            estimator=db_scoring.JudgeRatio("judge_rule_disagree_rate", 100.0),
        ),
        Metric(
            "judge_injection_suspect_rate",
            partial(metrics.percent_of, db_scoring.injection_suspect_rate),
            higher_is_better=False,
            scale="percent",
            estimator=stats.mean(stats.field("injection_suspect"), 100.0),
        ),
        *(
            Metric(
                f"{name}_f",
                partial(metrics.percent_of, partial(db_scoring.rouge_mean, name=name)),
                scale="score",
                estimator=stats.mean(partial(db_scoring.rouge_value, name=name), 100.0),
            )
            for name in ("rouge1", "rouge2", "rougeL")
        ),
        Metric("judge_info", partial(db_scoring.judge_metric, name="judge_info"), scale="info"),
        _IMAGE_MISSING,
        TRUNCATED_RATE,
        version=1.5,  # 1.5: the judge protocol (JSON or final-line verdict, data block), new fallback reader (README)
        key=KEY,
    ),
}

# The _circular classification tasks' table (food_tasks.hooks.rotation.Circular): the classification task's metrics,
# plus the circular ones. A document is (row, rotation); the cluster is the row, so standard errors resample records,
# never rotations.
CIRCULAR_TABLE = MetricTable(
    *TABLES["cls"].values(),
    *rotation.circular_metrics(stats.field("correct", unless="image_missing")),
    version=TABLES["cls"].version,
    key=stats.column("idx", "rotation"),
    cluster=stats.column("idx"),
)

# The tables of each process_results hook the task YAML names (food_tasks.lmms.facts reads a run's tables here, without
# importing the hook module; tests/core/test_registration.py checks them against the hooks' own).
HOOK_TABLES = {
    "process_results_cls": (TABLES["cls"],),
    "process_results_nutrition": (TABLES["nutrition"],),
    "process_results_vqa": (TABLES["vqa"],),
    "process_results_circular": (CIRCULAR_TABLE,),
}
