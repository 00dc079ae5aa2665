"""lmms-eval hooks for FAM-Bench (installed as ``food_tasks.utils.fambench``).

Thin mapping from YAML hooks onto :mod:`food_tasks.benchmarks.fambench`; see that module and
yaml_tasks/fambench/README.md for what is implemented. The metric tuples below are the single source
of the YAML ``metric_list`` entries (``yaml_tasks/fambench/_generate_configs.py`` reads them).
"""

from __future__ import annotations

from functools import partial

from food_tasks.benchmarks.fambench import data as fb_data
from food_tasks.benchmarks.fambench import scoring as fb_scoring
from food_tasks.data import stop_run_on_data_error
from food_tasks.messages import build_messages
from food_tasks.outputs import model_output
from food_tasks.sample_data import SAMPLE_ROOT

MODES = ("baseline", "cot", "ki", "cot_ki")
INPUTS = ("textimage", "textonly", "imageonly")


@stop_run_on_data_error
def _docs(task, modes, input_name, kinds, dataset, root=None):  # type: ignore[no-untyped-def]
    """``process_docs``: the YAML's stub dataset is replaced by the real documents."""
    return fb_data.prepare_docs(task, modes, input_name, kinds, root=root)


# process_docs per variant: docs_<task>_<mode>_<input>; CTC tasks carry rank and decision prompts.
for _mode in MODES:
    for _input in INPUTS:
        globals()[f"docs_task1_{_mode}_{_input}"] = partial(_docs, "task1", (_mode,), _input, ())
        globals()[f"docs_task2_{_mode}_{_input}"] = partial(_docs, "task2", (_mode,), _input, ("rank",))
        globals()[f"docs_decision_{_mode}_{_input}"] = partial(_docs, "task2", (_mode,), _input, ("decision",))
    globals()[f"docs_ctc_{_mode}_textimage"] = partial(_docs, "task2", (_mode,), "textimage", ("rank", "decision"))
docs_ctc_all_textimage = partial(_docs, "task2", MODES, "textimage", ("rank", "decision"))
# The packaged sample (embedded default): T+I baseline from food_tasks/sample_data.
docs_sample_task1 = partial(_docs, "task1", ("baseline",), "textimage", (), root=SAMPLE_ROOT)
docs_sample_ctc = partial(_docs, "task2", ("baseline",), "textimage", ("rank", "decision"), root=SAMPLE_ROOT)


def doc_to_visual(doc):  # type: ignore[no-untyped-def]
    return fb_data.doc_images(doc)


def doc_to_text_task1(doc, lmms_eval_specific_kwargs=None):  # type: ignore[no-untyped-def]
    # Models without chat messages get the system prompt in front of the payload.
    return f"{doc['system']}\n\n{doc['user']}"


def doc_to_messages_task1(doc, lmms_eval_specific_kwargs=None):  # type: ignore[no-untyped-def]
    # Official order: one system turn, then the image before the JSON payload.
    return build_messages(fb_data.doc_images(doc), doc["user"], images_first=True, system=doc["system"])


def doc_to_text_task2(doc, lmms_eval_specific_kwargs=None):  # type: ignore[no-untyped-def]
    return doc["prompt"]


def doc_to_messages_task2(doc, lmms_eval_specific_kwargs=None):  # type: ignore[no-untyped-def]
    # Official interleaving: the prompt, then "Option X:" and that option's image for A-D; no system turn.
    content = [{"type": "text", "text": doc["prompt"]}]
    for letter, image in zip(doc["option_letters"], fb_data.doc_images_aligned(doc)):
        content.append({"type": "text", "text": f"Option {letter}:"})
        if image is not None:
            content.append({"type": "image", "url": image})
    return [{"role": "user", "content": content}]


# --------------------------------------------------------------------------- scoring

TASK1_METRICS = {
    "decision_acc": partial(fb_scoring.t1_acc),
    "decision_acc_official": partial(fb_scoring.t1_acc, official=True),
    "rationale_macro_f1": partial(fb_scoring.t1_macro),
    "rationale_macro_f1_by_condition": partial(fb_scoring.t1_macro_by_condition),
    "rationale_micro_f1": partial(fb_scoring.t1_micro, which=2),
    "rationale_micro_precision": partial(fb_scoring.t1_micro, which=0),
    "rationale_micro_recall": partial(fb_scoring.t1_micro, which=1),
    "rationale_macro_f1_official": partial(fb_scoring.t1_macro, official=True),
    "rationale_micro_f1_official": partial(fb_scoring.t1_micro, which=2, official=True),
    "json_parse_rate": partial(fb_scoring.t1_rate, field="json"),
    "json_parse_rate_official": partial(fb_scoring.t1_rate, field="strict_json"),
    "invalid_rate": partial(fb_scoring.t1_invalid_rate),
    "empty_rationale_rate": partial(fb_scoring.t1_rate, field="empty_rationale"),
    "image_missing": partial(fb_scoring.image_missing),
    "per_condition": partial(fb_scoring.t1_per_condition),
}
RANK_METRICS = {
    "top1_acc": partial(fb_scoring.t2_topk, k=1),
    "top1_acc_official": partial(fb_scoring.t2_topk, k=1, official=True),
    "mrr": partial(fb_scoring.t2_mrr),
    "mrr_parsed": partial(fb_scoring.t2_mrr, parsed_only=True),
    "mrr_official": partial(fb_scoring.t2_mrr_official),
    "top2_acc": partial(fb_scoring.t2_topk, k=2),
    "top3_acc": partial(fb_scoring.t2_topk, k=3),
    "kendall_tau": partial(fb_scoring.t2_kendall),
    "valid_ranking_rate": partial(fb_scoring.t2_valid_rate),
    "answer_rate_official": partial(fb_scoring.t2_answer_rate_official, kind="rank"),
    "image_missing": partial(fb_scoring.image_missing),
    "per_condition": partial(fb_scoring.t2_per_condition),
}
DECISION_METRICS = {
    "option_decision_acc": partial(fb_scoring.t2_option_acc),
    "option_decision_acc_official": partial(fb_scoring.t2_option_acc, official=True),
    "all_options_exact_match": partial(fb_scoring.t2_exact_match),
    "all_options_exact_match_official": partial(fb_scoring.t2_exact_match, official=True),
    "false_recommend_rate": partial(fb_scoring.t2_false_recommend),
    "false_recommend_rate_official": partial(fb_scoring.t2_false_recommend, official=True),
    "valid_decision_rate": partial(fb_scoring.t2_valid_rate, kind="decision"),
    "answer_rate_official": partial(fb_scoring.t2_answer_rate_official, kind="decision"),
    "image_missing": partial(fb_scoring.image_missing),
}
CTC_METRICS = {
    "ctc": partial(fb_scoring.ctc_value, modes=None),
    # CTC is not in the official code: computed from the official parsers' readings, hence no _official suffix.
    "ctc_official_parsers": partial(fb_scoring.ctc_value, modes=None, official=True),
    "ctc_pool": partial(fb_scoring.ctc_value, modes=None, field="pool"),
    "ctc_pairs": partial(fb_scoring.ctc_value, modes=None, field="pairs"),
    "top1_acc": partial(fb_scoring.t2_topk, k=1),
    "mrr": partial(fb_scoring.t2_mrr),
    "option_decision_acc": partial(fb_scoring.t2_option_acc),
    "image_missing": partial(fb_scoring.image_missing),
}
CTC_ALL_METRICS = {
    **{f"ctc_{m}": partial(fb_scoring.ctc_value, modes=MODES, mode=m) for m in MODES},
    **{f"ctc_{m}_official_parsers": partial(fb_scoring.ctc_value, modes=MODES, mode=m, official=True) for m in MODES},
    "ctc_pool": partial(fb_scoring.ctc_value, modes=MODES, field="pool"),
    "ctc_pool_official_parsers": partial(fb_scoring.ctc_value, modes=MODES, field="pool", official=True),
    **{f"top1_acc_{m}": partial(fb_scoring.t2_topk, k=1, mode=m) for m in MODES},
    **{f"mrr_{m}": partial(fb_scoring.t2_mrr, mode=m) for m in MODES},
    "image_missing": partial(fb_scoring.image_missing),
}
for _name, _table in (("task1", TASK1_METRICS), ("rank", RANK_METRICS), ("decision", DECISION_METRICS),
                      ("ctc", CTC_METRICS), ("ctc_all", CTC_ALL_METRICS)):  # fmt: skip
    for _metric, _fn in _table.items():
        globals()[f"agg_{_name}_{_metric}"] = _fn


def process_results_task1(doc, results):  # type: ignore[no-untyped-def]
    record = fb_scoring.score_task1(doc, model_output(results))
    return dict.fromkeys(TASK1_METRICS, record)


def _task2(table, doc, results):  # type: ignore[no-untyped-def]
    return dict.fromkeys(table, fb_scoring.score_task2(doc, model_output(results)))


process_results_rank = partial(_task2, RANK_METRICS)
process_results_decision = partial(_task2, DECISION_METRICS)
process_results_ctc = partial(_task2, CTC_METRICS)
process_results_ctc_all = partial(_task2, CTC_ALL_METRICS)
