"""Metric tables of the WorldCuisines tasks: every metric of each task kind declared once
(:mod:`food_tasks.hooks.convention`).

``food_tasks.utils.worldcuisines`` builds its ``process_results`` hooks from ``TABLES`` and
``yaml_tasks/worldcuisines/_generate_configs.py`` writes each task's ``metric_list`` from it.
"""

from __future__ import annotations

from functools import partial

from food_tasks.benchmarks.worldcuisines import data as wc_data
from food_tasks.benchmarks.worldcuisines import parsing as wc_parsing
from food_tasks.benchmarks.worldcuisines import scoring as wc_scoring
from food_tasks.hooks import rotation
from food_tasks.hooks.convention import TRUNCATED_RATE, Doc, Metric, MetricTable, Output, Record, results_hook
from food_tasks.stats import uncertainty as stats

# Scales as the official scorer prints them: accuracies and the unparsed rate in percent (macro averages
# over languages); BERTScore F1 x 100.

# Error bars: a document is (qa_id, language); the cluster is the dish (food_id): its images, questions,
# 30 languages and 4 subtasks are one unit of resampling. Language macro averages: cluster bootstrap;
# micro rates: clustered analytic.
KEY, CLUSTER = stats.column("qa_id", "lang"), stats.column("food_id", noun="dishes")


def _macro(field: str) -> stats.Macro:
    return stats.Macro(stats.field(field, unless="image_missing"), stats.column("lang"), scale=100.0, binary=True)


VIEWS = {
    "mcq": wc_scoring.view("correct", multiple_choice=True),
    "oeq": wc_scoring.view("multi", multiple_choice=False),
}
# Chosen against gold option positions (ids 1-5), answers that could not be read left out: no extra generation.
_POSITIONS = rotation.position_metrics(
    rotation.position("parsed", base=1, unless="image_missing"),
    rotation.position("gold", base=1, unless="image_missing"),
    wc_parsing.MCQ_IDS,
)
_IMAGE_MISSING = Metric("image_missing", wc_scoring.image_missing, higher_is_better=False, scale="count")
_INVALID = Metric(
    "invalid_rate",
    wc_scoring.invalid_rate,
    higher_is_better=False,
    estimator=stats.mean(stats.field("invalid", unless="image_missing"), scale=100.0, binary=True),
)
TABLES = {
    "mcq": MetricTable(
        Metric("acc", partial(wc_scoring.macro, "correct"), estimator=_macro("correct")),
        Metric(
            "acc_official", partial(wc_scoring.macro_official, "correct_official"), estimator=_macro("correct_official")
        ),
        _INVALID,
        Metric("per_language", wc_scoring.per_language_mcq, scale="breakdown"),
        _IMAGE_MISSING,
        TRUNCATED_RATE,
        _INVALID.alias("parse_fail_rate"),
        *_POSITIONS,
        *wc_scoring.consistency_metrics(VIEWS["mcq"]),
        version=1.3,
        key=KEY,
        cluster=CLUSTER,
        consistency=VIEWS["mcq"],  # 1.2: consistency measures; 1.3: position test, position_rstd (README changelog)
    ),
    # Metric names must not contain one another where they aggregate differently: lmms-eval matches group
    # aggregate_metric_list entries by substring.
    "oeq": MetricTable(
        Metric("acc_multi", partial(wc_scoring.macro, "multi"), estimator=_macro("multi")),
        Metric("acc_single", partial(wc_scoring.macro, "single"), estimator=_macro("single")),
        Metric("acc_dual", partial(wc_scoring.macro, "dual"), estimator=_macro("dual")),
        Metric("acc_multi_strict", partial(wc_scoring.macro, "multi_strict"), estimator=_macro("multi_strict")),
        Metric(
            "acc_multi_official",
            partial(wc_scoring.macro_official_oeq, "multi_official"),
            estimator=_macro("multi_official"),
        ),
        Metric(
            "acc_single_official",
            partial(wc_scoring.macro_official_oeq, "single_official"),
            estimator=_macro("single_official"),
        ),
        Metric(
            "acc_dual_official",
            partial(wc_scoring.macro_official_oeq, "dual_official"),
            estimator=_macro("dual_official"),
        ),
        Metric("bertscore_f1", wc_scoring.bertscore_f1, scale="score"),
        Metric("per_language", wc_scoring.per_language_oeq, scale="breakdown"),
        Metric("per_language_bertscore", wc_scoring.per_language_bertscore, scale="breakdown"),
        _IMAGE_MISSING,
        TRUNCATED_RATE,
        *wc_scoring.consistency_metrics(VIEWS["oeq"]),
        version=1.1,
        key=KEY,
        cluster=CLUSTER,
        consistency=VIEWS["oeq"],  # 1.1: consistency measures (README changelog)
    ),
}
# Packaged sample tasks skip BERTScore (its model is a 2 GB download).
TABLES["oeq_sample"] = TABLES["oeq"].without("bertscore_f1", "per_language_bertscore")

# The _circular MCQ tasks' table (food_tasks.hooks.rotation.Circular): the MCQ task's metrics, plus the circular ones. A
# document is (qa_id, language, rotation); the cluster stays the dish (food_id), which holds whole questions.
CIRCULAR_TABLE = MetricTable(
    # The cross-lingual measures read one answer per (item, language): not defined over rotations.
    *TABLES["mcq"].without(*(name for name in TABLES["mcq"] if name.startswith("xling_"))).values(),
    *rotation.circular_metrics(stats.field("correct", unless="image_missing")),
    version=TABLES["mcq"].version,
    key=stats.column("qa_id", "lang", "rotation"),
    cluster=CLUSTER,
)

# The tables of each process_results hook the task YAML names (food_tasks.lmms.facts reads a run's tables here, without
# importing the hook module; tests/core/test_registration.py checks them against the hooks' own).
HOOK_TABLES = {
    "process_results_mcq": (TABLES["mcq"],),
    "process_results_oeq": (TABLES["oeq"],),
    "process_results_oeq_sample": (TABLES["oeq_sample"],),
    "process_results_circular": (CIRCULAR_TABLE,),
}


# --------------------------------------------------------------------------- the tasks' process_results
# (utils/worldcuisines.py hands them to lmms-eval; the official re-scoring, official.score_replay, scores with them)


def score_mcq(doc: Doc, output: Output) -> Record:
    """The scored record of one multiple-choice answer (parsed option, correctness, image_missing)."""
    return wc_scoring.score_mcq(doc, output, image_missing=wc_data.image_missing(doc))


def score_oeq(doc: Doc, output: Output) -> Record:
    """The scored record of one open-ended answer (the three match rules, image_missing)."""
    return wc_scoring.score_oeq(doc, output, image_missing=wc_data.image_missing(doc))


process_results_mcq = results_hook(score_mcq, TABLES["mcq"])
process_results_oeq = results_hook(score_oeq, TABLES["oeq"])
process_results_oeq_sample = results_hook(score_oeq, TABLES["oeq_sample"])
