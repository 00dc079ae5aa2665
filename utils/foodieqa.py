"""lmms-eval hooks for FoodieQA (installed as ``food_tasks.utils.foodieqa``): a thin mapping onto
:mod:`food_tasks.benchmarks.foodieqa` (yaml_tasks/foodieqa/README.md). ``process_docs`` stamps each document with its
task variant (task, language, template, ablation), so every other hook reads what it needs from the document.
Every metric is declared once in :mod:`food_tasks.benchmarks.foodieqa.tables`, the YAML generator writes from it.
"""

from __future__ import annotations

from functools import partial
from pathlib import Path

from food_tasks.benchmarks.foodieqa import circular
from food_tasks.benchmarks.foodieqa import data as fq_data
from food_tasks.benchmarks.foodieqa import prompts as fq_prompts
from food_tasks.benchmarks.foodieqa import scoring as fq_scoring
from food_tasks.benchmarks.foodieqa.tables import CIRCULAR_TABLE, TABLES
from food_tasks.data.hub import stop_run_on_data_error
from food_tasks.hooks import rotation
from food_tasks.hooks.convention import Doc, Docs, HookKwargs, Output, Record, results_hook
from food_tasks.sample_data import SAMPLE_ROOT
from food_tasks.tasks.noimage import images_wanted


@stop_run_on_data_error
def _docs(spec: str, dataset: object, root: Path | None = None) -> Docs:
    """``process_docs``: the YAML's stub dataset is replaced by the real documents."""
    return fq_data.task_docs(spec, root=root)


# process_docs per task: docs_<setting>_p<template>.
docs_mivqa_zh_p0 = partial(_docs, "mivqa_zh_p0")
docs_mivqa_zh_p1 = partial(_docs, "mivqa_zh_p1")
docs_mivqa_zh_p2 = partial(_docs, "mivqa_zh_p2")
docs_mivqa_zh_p3 = partial(_docs, "mivqa_zh_p3")
docs_mivqa_en_p0 = partial(_docs, "mivqa_en_p0")
docs_mivqa_en_p1 = partial(_docs, "mivqa_en_p1")
docs_mivqa_en_p2 = partial(_docs, "mivqa_en_p2")
docs_mivqa_en_p3 = partial(_docs, "mivqa_en_p3")
docs_sivqa_zh_p0 = partial(_docs, "sivqa_zh_p0")
docs_sivqa_zh_p1 = partial(_docs, "sivqa_zh_p1")
docs_sivqa_zh_p2 = partial(_docs, "sivqa_zh_p2")
docs_sivqa_zh_p3 = partial(_docs, "sivqa_zh_p3")
docs_sivqa_en_p0 = partial(_docs, "sivqa_en_p0")
docs_sivqa_en_p1 = partial(_docs, "sivqa_en_p1")
docs_sivqa_en_p2 = partial(_docs, "sivqa_en_p2")
docs_sivqa_en_p3 = partial(_docs, "sivqa_en_p3")
docs_textqa_zh_p0 = partial(_docs, "textqa_zh_p0")
docs_textqa_zh_p1 = partial(_docs, "textqa_zh_p1")
docs_textqa_zh_p2 = partial(_docs, "textqa_zh_p2")
docs_textqa_zh_p3 = partial(_docs, "textqa_zh_p3")
docs_sivqa_zh_dishname_p0 = partial(_docs, "sivqa_zh_dishname_p0")
docs_sivqa_zh_dishname_p1 = partial(_docs, "sivqa_zh_dishname_p1")
docs_sivqa_zh_dishname_p2 = partial(_docs, "sivqa_zh_dishname_p2")
docs_sivqa_zh_dishname_p3 = partial(_docs, "sivqa_zh_dishname_p3")
docs_sivqa_zh_dishname_noimage_p0 = partial(_docs, "sivqa_zh_dishname_noimage_p0")
docs_sivqa_zh_dishname_noimage_p1 = partial(_docs, "sivqa_zh_dishname_noimage_p1")
docs_sivqa_zh_dishname_noimage_p2 = partial(_docs, "sivqa_zh_dishname_noimage_p2")
docs_sivqa_zh_dishname_noimage_p3 = partial(_docs, "sivqa_zh_dishname_noimage_p3")
docs_mivqa_zh_sample_p1 = partial(_docs, "mivqa_zh_sample_p1", root=SAMPLE_ROOT)
docs_sivqa_en_sample_p3 = partial(_docs, "sivqa_en_sample_p3", root=SAMPLE_ROOT)
docs_textqa_zh_sample_p2 = partial(_docs, "textqa_zh_sample_p2", root=SAMPLE_ROOT)


def _prompt(doc: Doc, kwargs: HookKwargs = None) -> fq_prompts.Prompt:
    variant = doc["fq_variant"]
    prompt = fq_prompts.build(
        doc,
        doc["fq_task"],
        doc["fq_lang"],
        doc["fq_template"],
        dishname=variant.startswith("dishname"),
        image=variant != "dishname_noimage",
    )
    return prompt if images_wanted(kwargs) else fq_prompts.text_only(prompt)  # image-free: food_tasks.tasks.noimage


def _root(doc: Doc) -> Path | None:
    return Path(doc["fq_root"]) if doc["fq_root"] else None


def _wanted(doc: Doc, kwargs: HookKwargs = None) -> list[str]:
    """The image files the prompt shows, in its order (A-D for mivqa); none for textqa and the no-image ablation."""
    return [doc["images"][i] for i in _prompt(doc, kwargs).parts if isinstance(i, int)]


def _images(doc: Doc, kwargs: HookKwargs = None) -> list:
    """The prompt's images, None where one cannot be decoded (the document then counts in image_missing)."""
    return [fq_data.load_image(rel, root=_root(doc)) for rel in _wanted(doc, kwargs)]


def doc_to_visual(doc: Doc, lmms_eval_specific_kwargs: HookKwargs = None) -> list:
    """The document's images in the official order (A-D for mivqa); none for textqa and the no-image tasks. An
    undecodable one is left out, or in mivqa (``image_token`` marks each place) shown grey (and not scored)."""
    images = _images(doc, lmms_eval_specific_kwargs)
    if doc["fq_task"] == "mivqa":
        return [image if image is not None else fq_data.placeholder() for image in images]
    return [image for image in images if image is not None]


def doc_to_text(doc: Doc, lmms_eval_specific_kwargs: HookKwargs = None) -> str:
    """Simple models: the user text, inline prefill; mivqa marks image positions with ``image_token``
    (default ``<image>``), single-image prompts put the image first as every simple model does."""
    kwargs = lmms_eval_specific_kwargs or {}
    token = kwargs.get("image_token", "<image>") if doc["fq_task"] == "mivqa" else None
    return fq_prompts.user_text(_prompt(doc, kwargs), token)


def doc_to_messages(doc: Doc, lmms_eval_specific_kwargs: HookKwargs = None) -> list[dict]:
    """Chat models: images at their template positions (undecodable ones left out), text byte-exact, inline prefill."""
    return fq_prompts.to_messages(_prompt(doc, lmms_eval_specific_kwargs), _images(doc, lmms_eval_specific_kwargs))


# --------------------------------------------------------------------------- scoring (tables: see tables.py)


def score_qa(doc: Doc, output: Output) -> Record:
    """The scored record of one answer (robust and paper-protocol letters, image_missing)."""
    return fq_scoring.score(
        doc,
        output,
        doc["fq_task"],
        doc["fq_lang"],
        doc["fq_template"],
        _prompt(doc).opener,
        image_missing=fq_data.images_missing(_wanted(doc), root=_root(doc)),
    )


process_results = results_hook(score_qa, lambda doc: TABLES[f"p{doc['fq_template']}"], tables=list(TABLES.values()))
# _circular VQA (food_tasks.hooks.rotation.Circular): each question once per rotation of its options, else as base.
CIRCULAR = rotation.Circular(circular.expand, score_qa, CIRCULAR_TABLE)
process_results_circular = CIRCULAR.process_results  # and each rotated task's process_docs:
docs_mivqa_zh_p0_circular = CIRCULAR.docs(docs_mivqa_zh_p0)
docs_mivqa_zh_p1_circular = CIRCULAR.docs(docs_mivqa_zh_p1)
docs_mivqa_zh_p2_circular = CIRCULAR.docs(docs_mivqa_zh_p2)
docs_mivqa_zh_p3_circular = CIRCULAR.docs(docs_mivqa_zh_p3)
docs_mivqa_en_p0_circular = CIRCULAR.docs(docs_mivqa_en_p0)
docs_mivqa_en_p1_circular = CIRCULAR.docs(docs_mivqa_en_p1)
docs_mivqa_en_p2_circular = CIRCULAR.docs(docs_mivqa_en_p2)
docs_mivqa_en_p3_circular = CIRCULAR.docs(docs_mivqa_en_p3)
docs_sivqa_zh_p0_circular = CIRCULAR.docs(docs_sivqa_zh_p0)
docs_sivqa_zh_p1_circular = CIRCULAR.docs(docs_sivqa_zh_p1)
docs_sivqa_zh_p2_circular = CIRCULAR.docs(docs_sivqa_zh_p2)
docs_sivqa_zh_p3_circular = CIRCULAR.docs(docs_sivqa_zh_p3)
docs_sivqa_en_p0_circular = CIRCULAR.docs(docs_sivqa_en_p0)
docs_sivqa_en_p1_circular = CIRCULAR.docs(docs_sivqa_en_p1)
docs_sivqa_en_p2_circular = CIRCULAR.docs(docs_sivqa_en_p2)
docs_sivqa_en_p3_circular = CIRCULAR.docs(docs_sivqa_en_p3)
docs_mivqa_zh_sample_p1_circular = CIRCULAR.docs(docs_mivqa_zh_sample_p1)
docs_sivqa_en_sample_p3_circular = CIRCULAR.docs(docs_sivqa_en_sample_p3)
