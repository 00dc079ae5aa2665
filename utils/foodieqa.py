"""lmms-eval hooks for FoodieQA (installed as ``food_tasks.utils.foodieqa``).

Thin mapping from YAML hooks onto :mod:`food_tasks.benchmarks.foodieqa`; see that package and
yaml_tasks/foodieqa/README.md. ``process_docs`` stamps each document with its task variant (task,
language, template, ablation), so every other hook reads what it needs from the document.
"""

from __future__ import annotations

from functools import partial
from pathlib import Path

from food_tasks.benchmarks.foodieqa import data as fq_data
from food_tasks.benchmarks.foodieqa import prompts as fq_prompts
from food_tasks.benchmarks.foodieqa import scoring as fq_scoring
from food_tasks.data import stop_run_on_data_error
from food_tasks.metrics import group_max  # noqa: F401  (group YAML hook: acc_best)
from food_tasks.outputs import model_output
from food_tasks.sample_data import SAMPLE_ROOT


@stop_run_on_data_error
def _docs(spec: str, dataset, root=None):  # type: ignore[no-untyped-def]
    """``process_docs``: the YAML's stub dataset is replaced by the real documents."""
    return fq_data.task_docs(spec, root=root)


docs_mivqa_zh_p0, docs_mivqa_zh_p1, docs_mivqa_zh_p2, docs_mivqa_zh_p3 = (partial(_docs, f"mivqa_zh_p{k}") for k in range(4))
docs_mivqa_en_p0, docs_mivqa_en_p1, docs_mivqa_en_p2, docs_mivqa_en_p3 = (partial(_docs, f"mivqa_en_p{k}") for k in range(4))
docs_sivqa_zh_p0, docs_sivqa_zh_p1, docs_sivqa_zh_p2, docs_sivqa_zh_p3 = (partial(_docs, f"sivqa_zh_p{k}") for k in range(4))
docs_sivqa_en_p0, docs_sivqa_en_p1, docs_sivqa_en_p2, docs_sivqa_en_p3 = (partial(_docs, f"sivqa_en_p{k}") for k in range(4))
docs_textqa_zh_p0, docs_textqa_zh_p1, docs_textqa_zh_p2, docs_textqa_zh_p3 = (partial(_docs, f"textqa_zh_p{k}") for k in range(4))
docs_sivqa_zh_dishname_p0, docs_sivqa_zh_dishname_p1, docs_sivqa_zh_dishname_p2, docs_sivqa_zh_dishname_p3 = (
    partial(_docs, f"sivqa_zh_dishname_p{k}") for k in range(4)
)
docs_sivqa_zh_dishname_noimage_p0, docs_sivqa_zh_dishname_noimage_p1, docs_sivqa_zh_dishname_noimage_p2, docs_sivqa_zh_dishname_noimage_p3 = (
    partial(_docs, f"sivqa_zh_dishname_noimage_p{k}") for k in range(4)
)  # fmt: skip
docs_mivqa_zh_sample_p1 = partial(_docs, "mivqa_zh_sample_p1", root=SAMPLE_ROOT)
docs_sivqa_en_sample_p3 = partial(_docs, "sivqa_en_sample_p3", root=SAMPLE_ROOT)
docs_textqa_zh_sample_p2 = partial(_docs, "textqa_zh_sample_p2", root=SAMPLE_ROOT)


def _prompt(doc) -> fq_prompts.Prompt:  # type: ignore[no-untyped-def]
    variant = doc["fq_variant"]
    return fq_prompts.build(doc, doc["fq_task"], doc["fq_lang"], doc["fq_template"], dishname=variant.startswith("dishname"),
                            image=variant != "dishname_noimage")  # fmt: skip


def doc_to_visual(doc):  # type: ignore[no-untyped-def]
    """The document's images in the official order (A-D for mivqa); none for textqa and the no-image ablation."""
    root = Path(doc["fq_root"]) if doc["fq_root"] else None
    wanted = [p for p in _prompt(doc).parts if isinstance(p, int)]
    return [fq_data.load_image(doc["images"][i], root=root) for i in wanted]


def doc_to_text(doc, lmms_eval_specific_kwargs=None):  # type: ignore[no-untyped-def]
    """Simple models: the user text, inline prefill; mivqa marks image positions with ``image_token``
    (default ``<image>``), single-image prompts put the image first as every simple model does."""
    kwargs = lmms_eval_specific_kwargs or {}
    token = kwargs.get("image_token", "<image>") if doc["fq_task"] == "mivqa" else None
    return fq_prompts.user_text(_prompt(doc), token)


def doc_to_messages(doc, lmms_eval_specific_kwargs=None):  # type: ignore[no-untyped-def]
    """Chat models: images interleaved at their template positions, text byte-exact, inline prefill."""
    return fq_prompts.to_messages(_prompt(doc), doc_to_visual(doc))


METRICS = ("acc", "acc_mean", "acc_best", "acc_paper_protocol", "acc_paper_protocol_best", "invalid_rate", "paper_fallback_rate",
           "per_question_type", "per_category")  # fmt: skip


def process_results(doc, results):  # type: ignore[no-untyped-def]
    template = doc["fq_template"]
    prompt = _prompt(doc)
    record = fq_scoring.score(doc, model_output(results), doc["fq_task"], doc["fq_lang"], template, prompt.opener)
    return dict.fromkeys(METRICS + (f"acc_p{template}",), record)


# Task-level reducers. acc_mean / acc_best / acc_p<k> equal acc inside a task; the groups reduce them
# over the four templates (mean, max, and each template's own value).
acc = acc_mean = acc_best = acc_p0 = acc_p1 = acc_p2 = acc_p3 = fq_scoring.acc
acc_paper_protocol = acc_paper_protocol_best = fq_scoring.acc_paper_protocol
invalid_rate = fq_scoring.invalid_rate
paper_fallback_rate = fq_scoring.paper_fallback_rate
per_question_type = fq_scoring.per_question_type
per_category = fq_scoring.per_category
