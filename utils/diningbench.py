"""lmms-eval hooks for DiningBench (installed as ``food_tasks.utils.diningbench``).

Thin mapping from YAML hooks onto :mod:`food_tasks.benchmarks.diningbench`; see that module and
yaml_tasks/diningbench/README.md. The metric tables below are the single source of the YAML
``metric_list`` entries (``yaml_tasks/diningbench/_generate_configs.py`` reads them).
"""

from __future__ import annotations

from functools import partial

from food_tasks.benchmarks.diningbench import data as db_data
from food_tasks.benchmarks.diningbench import parsing as db_parsing
from food_tasks.benchmarks.diningbench import scoring as db_scoring
from food_tasks.data import stop_run_on_data_error
from food_tasks.messages import build_messages
from food_tasks.outputs import model_output
from food_tasks.sample_data import SAMPLE_ROOT

VIEWS = {"": (0,), "_v2": (0, 1), "_v3": (0, 1, 2), "_v4": (0, 1, 2, 3)}


@stop_run_on_data_error
def _docs(kind, lang, views, cot, dataset, root=None):  # type: ignore[no-untyped-def]
    """``process_docs``: the YAML's stub dataset is replaced by the real documents. VQA tasks check the
    judge configuration first, so a missing judge fails before any generation."""
    if kind == "vqa":
        from food_tasks.judge import JudgeConfig

        JudgeConfig.from_env(f"DiningBench VQA ({lang})")
    return db_data.prepare_docs(kind, lang, views, cot, root=root)


# process_docs per task: docs_<kind>_<lang><views suffix>[_cot]
for _lang in ("zh", "en"):
    for _kind in ("cls", "nutrition"):
        for _suffix, _views in VIEWS.items():
            globals()[f"docs_{_kind}_{_lang}{_suffix}"] = partial(_docs, _kind, _lang, _views, False)
        globals()[f"docs_{_kind}_{_lang}_cot"] = partial(_docs, _kind, _lang, (0,), True)
    globals()[f"docs_vqa_{_lang}"] = partial(_docs, "vqa", _lang, (0,), False)
    globals()[f"docs_vqa_{_lang}_cot"] = partial(_docs, "vqa", _lang, (0,), True)
# The packaged sample (embedded default): two views, from food_tasks/sample_data.
docs_sample_cls = partial(_docs, "cls", "en", (0, 1), False, root=SAMPLE_ROOT)
docs_sample_nutrition = partial(_docs, "nutrition", "zh", (0, 1), False, root=SAMPLE_ROOT)


def doc_to_visual(doc):  # type: ignore[no-untyped-def]
    return db_data.doc_images(doc)


def doc_to_text(doc, lmms_eval_specific_kwargs=None):  # type: ignore[no-untyped-def]
    return doc["text"]  # the record's prompt, verbatim (plus the CoT template in _cot tasks)


def doc_to_messages(doc, lmms_eval_specific_kwargs=None):  # type: ignore[no-untyped-def]
    # Official layout: one user turn, every selected image first (view order), then the prompt.
    return build_messages(doc_to_visual(doc), doc_to_text(doc))


# --------------------------------------------------------------------------- scoring

CLS_METRICS = {
    "acc": partial(db_scoring.cls_acc),
    "acc_official": partial(db_scoring.cls_acc, official=True),
    "invalid_rate": db_scoring.cls_invalid_rate,
    "cannot_read_rate_official": db_scoring.cls_unreadable_official,
}
NUTRITION_METRICS = {}
for _official in (False, True):
    _tail = "_official" if _official else ""
    for _key in db_parsing.COMPONENTS:
        for _stat in ("mae", "rmse", "mape"):
            NUTRITION_METRICS[f"{_key}_{_stat}{_tail}"] = partial(db_scoring.component_metric, key=_key, stat=_stat, official=_official)
    for _stat in ("mae", "rmse", "mape"):
        NUTRITION_METRICS[f"avg_{_stat}{_tail}"] = partial(db_scoring.avg_metric, stat=_stat, official=_official)
    NUTRITION_METRICS[f"parse_fail_rate{_tail}"] = partial(db_scoring.nutrition_parse_fail_rate, official=_official)
NUTRITION_METRICS["range_values"] = db_scoring.nutrition_range_values
NUTRITION_METRICS["gold_missing"] = db_scoring.nutrition_gold_missing
VQA_METRICS = {
    **{m: partial(db_scoring.judge_metric, name=m)
       for m in ("judge_acc", "judge_acc_official", "judge_error_rate", "judge_unparsed_rate")},
    "rouge1_f": partial(db_scoring.rouge_mean, name="rouge1"),
    "rouge2_f": partial(db_scoring.rouge_mean, name="rouge2"),
    "rougeL_f": partial(db_scoring.rouge_mean, name="rougeL"),
    "judge_info": partial(db_scoring.judge_metric, name="judge_info"),
}  # fmt: skip
TABLES = {"cls": CLS_METRICS, "nutrition": NUTRITION_METRICS, "vqa": VQA_METRICS}
for _name, _table in TABLES.items():
    for _metric, _fn in _table.items():
        globals()[f"agg_{_name}_{_metric}"] = _fn


def process_results_cls(doc, results):  # type: ignore[no-untyped-def]
    return dict.fromkeys(CLS_METRICS, db_scoring.score_cls(doc, model_output(results)))


def process_results_nutrition(doc, results):  # type: ignore[no-untyped-def]
    return dict.fromkeys(NUTRITION_METRICS, db_scoring.score_nutrition(doc, model_output(results)))


def process_results_vqa(doc, results):  # type: ignore[no-untyped-def]
    return dict.fromkeys(VQA_METRICS, db_scoring.score_vqa(doc, model_output(results)))
