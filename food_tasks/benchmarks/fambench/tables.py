"""Metric tables of the FAM-Bench tasks: every metric of each task kind declared once
(:mod:`food_tasks.hooks.convention`).

``food_tasks.utils.fambench`` builds its ``process_results`` hooks from ``TABLES`` and
``yaml_tasks/fambench/_generate_configs.py`` writes each task's ``metric_list`` from it.
"""

from __future__ import annotations

from functools import partial

from food_tasks.benchmarks.fambench import scoring as fb_scoring
from food_tasks.benchmarks.fambench.prompts import MODES
from food_tasks.hooks.convention import TRUNCATED_RATE, Metric, MetricTable
from food_tasks.stats import metrics
from food_tasks.stats import uncertainty as stats

# Scales: accuracies and every rate in percent, as in every benchmark (the official code prints the JSON parse
# rate as a fraction: ours, json_parse_rate_official included, is x 100); F1, MRR, Kendall tau and CTC in [0, 1],
# as the paper prints them.

# Error bars (yaml_tasks/fambench/README.md): Task 1's document is its row (index) and its cluster the dish
# (rated under several conditions); Task 2's document is (question, kind, mode) and its cluster the question
# (its rank and decision documents, in every mode). Means and rates: clustered analytic; micro P/R/F1,
# per-condition macro F1 and CTC: cluster bootstrap.
T1_KEY, T1_CLUSTER = stats.column("index"), stats.column("dish", noun="dishes")
T2_KEY, T2_CLUSTER = stats.column("question_id", "kind", "mode"), stats.column("question_id", noun="questions")


def _t1_mean(name: str, test: str | None = None, scale: float = 1.0) -> stats.Ratio:
    return stats.mean(stats.field(name, unless="image_missing", test=test), scale)


def _t1_prf(which: int, official: bool = False) -> stats.Custom:
    return stats.Custom(
        partial(fb_scoring.t1_prf_rows, official=official), partial(fb_scoring.prf_combine, which=which)
    )


def _options(official: bool, what: str = "match") -> stats.Ratio:
    return stats.Ratio(partial(fb_scoring.option_hits, official=official, what=what), fb_scoring.option_count, 100.0)


def _ctc(modes: tuple[str, ...] | None = None, mode: str | None = None, official: bool = False) -> stats.Custom:
    return stats.Custom(partial(fb_scoring.ctc_rows, modes=modes, mode=mode, official=official), stats.ratio_combine())


_IMAGE_MISSING = Metric("image_missing", fb_scoring.image_missing, higher_is_better=False, scale="count")
_T1_INVALID = Metric(
    "invalid_rate",
    partial(metrics.percent_of, fb_scoring.t1_invalid_rate),
    higher_is_better=False,
    scale="percent",
    estimator=_t1_mean("decision", test="none", scale=100.0),
)
_TOP1 = Metric(
    "top1_acc", partial(fb_scoring.t2_topk, k=1), estimator=stats.mean(partial(fb_scoring.topk_hit, k=1), 100.0)
)
_MRR = Metric("mrr", fb_scoring.t2_mrr, scale="score", estimator=stats.mean(fb_scoring.rr_value))
_OPTION_ACC = Metric("option_decision_acc", fb_scoring.t2_option_acc, estimator=_options(False))
TABLES = {
    "task1": MetricTable(
        Metric("decision_acc", fb_scoring.t1_acc, estimator=_t1_mean("correct", scale=100.0)),
        Metric(
            "decision_acc_official",
            partial(fb_scoring.t1_acc, official=True),
            estimator=_t1_mean("correct_official", scale=100.0),
        ),
        Metric("rationale_macro_f1", fb_scoring.t1_macro, scale="score", estimator=_t1_mean("f1")),
        Metric(
            "rationale_macro_f1_by_condition",
            fb_scoring.t1_macro_by_condition,
            scale="score",
            decimals=4,
            estimator=stats.Custom(fb_scoring.t1_condition_rows, fb_scoring.condition_macro_combine),
        ),
        Metric(
            "rationale_micro_f1", partial(fb_scoring.t1_micro, which=2), scale="score", decimals=4, estimator=_t1_prf(2)
        ),
        Metric(
            "rationale_micro_precision",
            partial(fb_scoring.t1_micro, which=0),
            scale="score",
            decimals=4,
            estimator=_t1_prf(0),
        ),
        Metric(
            "rationale_micro_recall",
            partial(fb_scoring.t1_micro, which=1),
            scale="score",
            decimals=4,
            estimator=_t1_prf(1),
        ),
        Metric(
            "rationale_macro_f1_official",
            partial(fb_scoring.t1_macro, official=True),
            scale="score",
            estimator=_t1_mean("f1_official"),
        ),
        Metric(
            "rationale_micro_f1_official",
            partial(fb_scoring.t1_micro, which=2, official=True),
            scale="score",
            decimals=4,
            estimator=_t1_prf(2, official=True),
        ),
        *(
            Metric(
                name,
                partial(metrics.percent_of, partial(fb_scoring.t1_rate, field=field)),
                scale="percent",
                estimator=_t1_mean(field, scale=100.0),
            )
            for name, field in (("json_parse_rate", "json"), ("json_parse_rate_official", "strict_json"))
        ),
        _T1_INVALID,
        Metric(
            "empty_rationale_rate",
            partial(metrics.percent_of, partial(fb_scoring.t1_rate, field="empty_rationale")),
            higher_is_better=False,
            scale="percent",
            estimator=_t1_mean("empty_rationale", scale=100.0),
        ),
        _IMAGE_MISSING,
        TRUNCATED_RATE,
        Metric("per_condition", fb_scoring.t1_per_condition, scale="breakdown"),
        _T1_INVALID.alias("parse_fail_rate"),
        version=1.2,
        key=T1_KEY,
        cluster=T1_CLUSTER,
    ),
    "rank": MetricTable(
        _TOP1,
        Metric(
            "top1_acc_official",
            partial(fb_scoring.t2_topk, k=1, official=True),
            estimator=stats.mean(partial(fb_scoring.topk_hit, k=1, official=True), 100.0),
        ),
        _MRR,
        Metric(
            "mrr_parsed",
            partial(fb_scoring.t2_mrr, parsed_only=True),
            scale="score",
            estimator=stats.mean(partial(fb_scoring.rr_value, parsed_only=True)),
        ),
        Metric("mrr_official", fb_scoring.t2_mrr_official, scale="score", estimator=stats.mean(fb_scoring.rr_official)),
        Metric(
            "top2_acc", partial(fb_scoring.t2_topk, k=2), estimator=stats.mean(partial(fb_scoring.topk_hit, k=2), 100.0)
        ),
        Metric(
            "top3_acc", partial(fb_scoring.t2_topk, k=3), estimator=stats.mean(partial(fb_scoring.topk_hit, k=3), 100.0)
        ),
        Metric("kendall_tau", fb_scoring.t2_kendall, scale="score", estimator=stats.mean(fb_scoring.kendall_value)),
        Metric(
            "valid_ranking_rate",
            partial(metrics.percent_of, fb_scoring.t2_valid_rate),
            scale="percent",
            estimator=stats.mean(fb_scoring.valid_value, 100.0),
        ),
        Metric(
            "answer_rate_official",
            partial(fb_scoring.t2_answer_rate_official, kind="rank"),
            estimator=stats.mean(partial(fb_scoring.answered_official, kind="rank"), 100.0),
        ),
        _IMAGE_MISSING,
        TRUNCATED_RATE,
        Metric("per_condition", fb_scoring.t2_per_condition, scale="breakdown"),
        version=1.1,
        key=T2_KEY,
        cluster=T2_CLUSTER,
    ),
    "decision": MetricTable(
        _OPTION_ACC,
        Metric(
            "option_decision_acc_official", partial(fb_scoring.t2_option_acc, official=True), estimator=_options(True)
        ),
        Metric(
            "all_options_exact_match",
            fb_scoring.t2_exact_match,
            estimator=stats.mean(fb_scoring.exact_match_value, 100.0),
        ),
        Metric(
            "all_options_exact_match_official",
            partial(fb_scoring.t2_exact_match, official=True),
            estimator=stats.mean(partial(fb_scoring.exact_match_value, official=True), 100.0),
        ),
        Metric(
            "false_recommend_rate",
            fb_scoring.t2_false_recommend,
            higher_is_better=False,
            estimator=_options(False, "false_recommend"),
        ),
        Metric(
            "false_recommend_rate_official",
            partial(fb_scoring.t2_false_recommend, official=True),
            higher_is_better=False,
            estimator=_options(True, "false_recommend"),
        ),
        Metric(
            "valid_decision_rate",
            partial(metrics.percent_of, partial(fb_scoring.t2_valid_rate, kind="decision")),
            scale="percent",
            estimator=stats.mean(partial(fb_scoring.valid_value, kind="decision"), 100.0),
        ),
        Metric(
            "answer_rate_official",
            partial(fb_scoring.t2_answer_rate_official, kind="decision"),
            estimator=stats.mean(partial(fb_scoring.answered_official, kind="decision"), 100.0),
        ),
        _IMAGE_MISSING,
        TRUNCATED_RATE,
        version=1.1,
        key=T2_KEY,
        cluster=T2_CLUSTER,
    ),
    "ctc": MetricTable(
        Metric("ctc", partial(fb_scoring.ctc_value, modes=None), scale="score", estimator=_ctc(), decimals=4),
        # CTC is not in the official code: computed from the official parsers' readings, hence no _official suffix.
        Metric(
            "ctc_official_parsers",
            partial(fb_scoring.ctc_value, modes=None, official=True),
            scale="score",
            decimals=4,
            estimator=_ctc(official=True),
        ),
        Metric("ctc_pool", partial(fb_scoring.ctc_value, modes=None, field="pool"), scale="count", decimals=4),
        Metric("ctc_pairs", partial(fb_scoring.ctc_value, modes=None, field="pairs"), scale="count", decimals=4),
        _TOP1,
        _MRR,
        _OPTION_ACC,
        _IMAGE_MISSING,
        TRUNCATED_RATE,
        version=1.0,
        key=T2_KEY,
        cluster=T2_CLUSTER,
    ),
    "ctc_all": MetricTable(
        *(
            Metric(
                f"ctc_{m}",
                partial(fb_scoring.ctc_value, modes=MODES, mode=m),
                scale="score",
                estimator=_ctc(MODES, m),
                decimals=4,
            )
            for m in MODES
        ),
        *(
            Metric(
                f"ctc_{m}_official_parsers",
                partial(fb_scoring.ctc_value, modes=MODES, mode=m, official=True),
                scale="score",
                decimals=4,
                estimator=_ctc(MODES, m, official=True),
            )
            for m in MODES
        ),
        Metric("ctc_pool", partial(fb_scoring.ctc_value, modes=MODES, field="pool"), scale="count", decimals=4),
        Metric(
            "ctc_pool_official_parsers",
            partial(fb_scoring.ctc_value, modes=MODES, field="pool", official=True),
            scale="count",
            decimals=4,
        ),
        *(
            Metric(
                f"top1_acc_{m}",
                partial(fb_scoring.t2_topk, k=1, mode=m),
                estimator=stats.mean(partial(fb_scoring.topk_hit, k=1, mode=m), 100.0),
            )
            for m in MODES
        ),
        *(
            Metric(
                f"mrr_{m}",
                partial(fb_scoring.t2_mrr, mode=m),
                scale="score",
                estimator=stats.mean(partial(fb_scoring.rr_value, mode=m)),
            )
            for m in MODES
        ),
        _IMAGE_MISSING,
        TRUNCATED_RATE,
        version=1.0,
        key=T2_KEY,
        cluster=T2_CLUSTER,
    ),
}

# The tables of each process_results hook the task YAML names (food_tasks.lmms.facts reads a run's tables here, without
# importing the hook module; tests/core/test_registration.py checks them against the hooks' own).
HOOK_TABLES = {
    "process_results_task1": (TABLES["task1"],),
    "process_results_rank": (TABLES["rank"],),
    "process_results_decision": (TABLES["decision"],),
    "process_results_ctc": (TABLES["ctc"],),
    "process_results_ctc_all": (TABLES["ctc_all"],),
}
