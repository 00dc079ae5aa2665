"""lmms-eval hooks for DiningBench (installed as ``food_tasks.utils.diningbench``).

Thin mapping from YAML hooks onto :mod:`food_tasks.benchmarks.diningbench`; see that module and
yaml_tasks/diningbench/README.md. ``TABLES`` declares every metric of each task kind once
(:mod:`food_tasks.benchmarks.diningbench.tables`); ``yaml_tasks/diningbench/_generate_configs.py`` writes the YAML
from it.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import partial
from pathlib import Path

from food_tasks.benchmarks.diningbench import circular
from food_tasks.benchmarks.diningbench import data as db_data
from food_tasks.benchmarks.diningbench import scoring as db_scoring
from food_tasks.benchmarks.diningbench.tables import CIRCULAR_TABLE, TABLES
from food_tasks.data.hub import stop_run_on_data_error
from food_tasks.hooks import rotation
from food_tasks.hooks.convention import Doc, Docs, HookKwargs, Output, Record, Scorer, results_hook
from food_tasks.hooks.messages import build_messages
from food_tasks.sample_data import SAMPLE_ROOT
from food_tasks.tasks.noimage import images_wanted


@stop_run_on_data_error
def _docs(kind: str, lang: str, views: tuple[int, ...], cot: bool, dataset: object, root: Path | None = None) -> Docs:
    """``process_docs``: the YAML's stub dataset is replaced by the real documents. VQA tasks check the
    judge configuration first, so a missing judge fails before any generation."""
    if kind == "vqa":
        from food_tasks.judge.client import JudgeConfig

        JudgeConfig.from_env(f"DiningBench VQA ({lang})")
    return db_data.prepare_docs(kind, lang, views, cot, root=root)


# process_docs per task: docs_<kind>_<lang><views suffix>[_cot] (views: "" one, _v2 two, _v3 three, _v4 four).
docs_cls_zh = partial(_docs, "cls", "zh", (0,), False)
docs_cls_zh_v2 = partial(_docs, "cls", "zh", (0, 1), False)
docs_cls_zh_v3 = partial(_docs, "cls", "zh", (0, 1, 2), False)
docs_cls_zh_v4 = partial(_docs, "cls", "zh", (0, 1, 2, 3), False)
docs_cls_zh_cot = partial(_docs, "cls", "zh", (0,), True)
docs_cls_en = partial(_docs, "cls", "en", (0,), False)
docs_cls_en_v2 = partial(_docs, "cls", "en", (0, 1), False)
docs_cls_en_v3 = partial(_docs, "cls", "en", (0, 1, 2), False)
docs_cls_en_v4 = partial(_docs, "cls", "en", (0, 1, 2, 3), False)
docs_cls_en_cot = partial(_docs, "cls", "en", (0,), True)
docs_nutrition_zh = partial(_docs, "nutrition", "zh", (0,), False)
docs_nutrition_zh_v2 = partial(_docs, "nutrition", "zh", (0, 1), False)
docs_nutrition_zh_v3 = partial(_docs, "nutrition", "zh", (0, 1, 2), False)
docs_nutrition_zh_v4 = partial(_docs, "nutrition", "zh", (0, 1, 2, 3), False)
docs_nutrition_zh_cot = partial(_docs, "nutrition", "zh", (0,), True)
docs_nutrition_en = partial(_docs, "nutrition", "en", (0,), False)
docs_nutrition_en_v2 = partial(_docs, "nutrition", "en", (0, 1), False)
docs_nutrition_en_v3 = partial(_docs, "nutrition", "en", (0, 1, 2), False)
docs_nutrition_en_v4 = partial(_docs, "nutrition", "en", (0, 1, 2, 3), False)
docs_nutrition_en_cot = partial(_docs, "nutrition", "en", (0,), True)
docs_vqa_zh = partial(_docs, "vqa", "zh", (0,), False)
docs_vqa_zh_cot = partial(_docs, "vqa", "zh", (0,), True)
docs_vqa_en = partial(_docs, "vqa", "en", (0,), False)
docs_vqa_en_cot = partial(_docs, "vqa", "en", (0,), True)
# The packaged sample (embedded default): two views, from food_tasks/sample_data.
docs_sample_cls = partial(_docs, "cls", "en", (0, 1), False, root=SAMPLE_ROOT)
docs_sample_nutrition = partial(_docs, "nutrition", "zh", (0, 1), False, root=SAMPLE_ROOT)
# VQA needs a judge: not in the demo (it would stop there); `food-tasks list` shows it as a sample (JUDGED_SAMPLES).
docs_sample_vqa = partial(_docs, "vqa", "en", (0,), False, root=SAMPLE_ROOT)


def doc_to_visual(doc: Doc, lmms_eval_specific_kwargs: HookKwargs = None) -> list:
    """The selected views as PIL images (an undecodable one left out); none for an image-free twin."""
    if not images_wanted(lmms_eval_specific_kwargs):
        return []  # an image-free twin (food_tasks.tasks.noimage)
    return db_data.doc_images(doc)  # an undecodable image is left out: the document counts in image_missing


def doc_to_text(doc: Doc, lmms_eval_specific_kwargs: HookKwargs = None) -> str:
    """The record's prompt, verbatim (plus the CoT template in _cot tasks)."""
    return doc["text"]


def doc_to_messages(doc: Doc, lmms_eval_specific_kwargs: HookKwargs = None) -> list[dict]:
    """Official layout: one user turn, every selected image first (view order), then the prompt."""
    return build_messages(doc_to_visual(doc, lmms_eval_specific_kwargs), doc_to_text(doc))


# --------------------------------------------------------------------------- scoring
# The metric tables, scales and error bars: food_tasks/benchmarks/diningbench/tables.py.


def _with_images(score: Callable[..., Record]) -> Scorer:
    """The scorer, told whether the document's images all reached the model (docs/failure_accounting.md)."""

    def scored(doc: Doc, output: Output) -> Record:
        return score(doc, output, image_missing=db_data.image_missing(doc))

    scored.__qualname__ = score.__qualname__
    return scored


process_results_cls = results_hook(_with_images(db_scoring.score_cls), TABLES["cls"])
process_results_nutrition = results_hook(_with_images(db_scoring.score_nutrition), TABLES["nutrition"])
process_results_vqa = results_hook(_with_images(db_scoring.score_vqa), TABLES["vqa"])

# The _circular classification tasks (food_tasks.hooks.rotation.Circular): each record asked once per rotation of its
# options (food_tasks.benchmarks.diningbench.circular); images, prompt and scorer are the classification task's.
CIRCULAR = rotation.Circular(circular.expand, _with_images(db_scoring.score_cls), CIRCULAR_TABLE)
process_results_circular = CIRCULAR.process_results  # and each rotated task's process_docs:
docs_cls_zh_circular = CIRCULAR.docs(docs_cls_zh)
docs_cls_en_circular = CIRCULAR.docs(docs_cls_en)
docs_sample_cls_circular = CIRCULAR.docs(docs_sample_cls)
