"""Metric tables of the FoodieQA tasks: every metric declared once (:mod:`food_tasks.hooks.convention`), a table per
template.

``food_tasks.utils.foodieqa`` builds its ``process_results`` hook from ``TABLES`` and
``yaml_tasks/foodieqa/_generate_configs.py`` writes each task's ``metric_list`` from it.
"""

from __future__ import annotations

from food_tasks.benchmarks.foodieqa import circular as fq_circular
from food_tasks.benchmarks.foodieqa import scoring as fq_scoring
from food_tasks.hooks import rotation
from food_tasks.hooks.convention import TRUNCATED_RATE, Metric, MetricTable
from food_tasks.stats import uncertainty as stats

# Scales as the paper prints them: accuracies and rates in percent. Inside a task acc_mean, acc_best and
# acc_p<k> equal acc (template k's task reports acc_p<k>); the groups reduce them over the four templates
# (mean, max, and each template's own value).

# Error bars: a document is its position in the published file (index); the cluster is the question (qid):
# the four templates of a setting ask the same questions, so their best-of-four is resampled jointly.
KEY, CLUSTER = stats.column("index"), stats.column("qid", noun="questions")
_PAPER_ESTIMATOR = stats.Custom(fq_scoring.paper_correct_rows, stats.ratio_combine(100.0))
_ACC = Metric(
    "acc", fq_scoring.acc, estimator=stats.mean(stats.field("correct", unless="image_missing"), 100.0, binary=True)
)
_PAPER = Metric("acc_paper_protocol", fq_scoring.acc_paper_protocol, estimator=_PAPER_ESTIMATOR)
_INVALID = Metric(
    "invalid_rate",
    fq_scoring.invalid_rate,
    higher_is_better=False,
    estimator=stats.mean(stats.field("invalid", unless="image_missing"), 100.0, binary=True),
)
_COMMON = (
    _ACC,
    _ACC.alias("acc_mean"),
    _ACC.alias("acc_best"),
    _PAPER,
    _PAPER.alias("acc_paper_protocol_best"),
    _INVALID,
    Metric(
        "paper_fallback_rate",
        fq_scoring.paper_fallback_rate,
        higher_is_better=False,
        estimator=stats.mean(stats.field("paper", test="none", unless="image_missing"), 100.0, binary=True),
    ),
    Metric("per_question_type", fq_scoring.per_question_type, scale="breakdown"),
    Metric("per_question_type_paper_protocol", fq_scoring.per_question_type_paper_protocol, scale="breakdown"),
    Metric("per_category", fq_scoring.per_category, scale="breakdown"),
    Metric("image_missing", fq_scoring.image_missing, higher_is_better=False, scale="count"),
    TRUNCATED_RATE,
    *fq_circular.POSITIONS,
)
# One table per prompt template k (its task reports acc_p<k> too); parse_fail_rate repeats invalid_rate
# under the name shared across benchmarks.
# 1.1: per_category counts records without a category (其他), prompts keep braces of questions verbatim, a
# question with an undecodable image leaves every metric (image_missing).
TABLES = {
    f"p{k}": MetricTable(
        *_COMMON,
        _ACC.alias(f"acc_p{k}"),
        _INVALID.alias("parse_fail_rate"),
        version=1.2,  # 1.2: position_bias_p a test of homogeneity, position_rstd (README changelog)
        key=KEY,
        cluster=CLUSTER,
        consistency=fq_scoring.CONSISTENCY,
    )
    for k in range(4)
}

# The _circular VQA tasks' table (food_tasks.hooks.rotation.Circular). A document is (index, rotation); the cluster
# stays the question (qid). The paper-protocol metrics are left out: their seeded random fallback is drawn in file
# order, which rotations of one question do not have.
_CIRCULAR_KEEP = (
    "acc",
    "invalid_rate",
    "per_question_type",
    "per_category",
    "image_missing",
    "truncated_rate",
    "parse_fail_rate",
    "position_bias",
    "position_bias_p",
    "position_rstd",
)
CIRCULAR_TABLE = MetricTable(
    *(TABLES["p0"][name] for name in _CIRCULAR_KEEP),
    *rotation.circular_metrics(stats.field("correct", unless="image_missing")),
    version=TABLES["p0"].version,
    key=stats.column("index", "rotation"),
    cluster=CLUSTER,
)

# The tables of each process_results hook the task YAML names (food_tasks.lmms.facts reads a run's tables here, without
# importing the hook module; tests/core/test_registration.py checks them against the hooks' own).
HOOK_TABLES = {"process_results": tuple(TABLES.values()), "process_results_circular": (CIRCULAR_TABLE,)}
