"""lmms-eval hooks for FAM-Bench (installed as ``food_tasks.utils.fambench``).

Thin mapping from YAML hooks onto :mod:`food_tasks.benchmarks.fambench`; see that module and
yaml_tasks/fambench/README.md for what is implemented. ``VARIANTS`` declares the documents of every task
variant once: ``DOCS`` holds one ``process_docs`` hook per variant, named by ``docs_hook``, and
``yaml_tasks/fambench/_generate_configs.py`` enumerates the same table, so a YAML can only name a hook that
``DOCS`` holds. ``TABLES`` (:mod:`food_tasks.benchmarks.fambench.tables`) declares every metric once.
"""

from __future__ import annotations

from functools import partial
from pathlib import Path
from typing import Any

from food_tasks.benchmarks.fambench import data as fb_data
from food_tasks.benchmarks.fambench import scoring as fb_scoring
from food_tasks.benchmarks.fambench.prompts import MODES
from food_tasks.benchmarks.fambench.tables import TABLES
from food_tasks.data.hub import stop_run_on_data_error
from food_tasks.hooks.convention import results_hook
from food_tasks.hooks.messages import build_messages
from food_tasks.sample_data import SAMPLE_ROOT

__all__ = ["DOCS", "INPUTS", "MODES", "TABLES", "VARIANTS", "docs_hook", "variants"]

INPUTS = ("textimage", "textonly", "imageonly")
# Task kind -> (hook-name stem, official task, answers asked per document, inputs). Every kind but ctc_all has
# one variant per input and mode; ctc_all is one variant whose documents carry all four modes (a shared pool).
# CTC documents carry both the rank and the decision prompt.
VARIANTS = {
    "task1": ("docs_task1", "task1", (), INPUTS),
    "rank": ("docs_task2", "task2", ("rank",), INPUTS),
    "decision": ("docs_decision", "task2", ("decision",), INPUTS),
    "ctc": ("docs_ctc", "task2", ("rank", "decision"), ("textimage",)),
    "ctc_all": ("docs_ctc_all", "task2", ("rank", "decision"), ("textimage",)),
}


def variants(kind: str) -> list[tuple[str, str]]:
    """(mode, input) of every task of ``kind``, in the generator's order; ctc_all's one mode is "all"."""
    if kind == "ctc_all":
        return [("all", "textimage")]
    return [(mode, input_name) for input_name in VARIANTS[kind][3] for mode in MODES]


def docs_hook(kind: str, mode: str, input_name: str) -> str:
    """Name of the ``process_docs`` hook of one variant: docs_<kind stem>[_<mode>]_<input>."""
    stem = VARIANTS[kind][0]
    return f"{stem}_{input_name}" if mode == "all" else f"{stem}_{mode}_{input_name}"


@stop_run_on_data_error
def _docs(
    task: str, modes: tuple[str, ...], input_name: str, kinds: tuple[str, ...], dataset: Any, root: Path | None = None
) -> Any:
    """``process_docs``: the YAML's stub dataset is replaced by the real documents."""
    return fb_data.prepare_docs(task, modes, input_name, kinds, root=root)


DOCS = {
    docs_hook(kind, mode, input_name): partial(_docs, task, MODES if mode == "all" else (mode,), input_name, kinds)
    for kind, (_, task, kinds, _) in VARIANTS.items()
    for mode, input_name in variants(kind)
}
# One line per hook: the YAML's `!function` targets are defined by name (tests/core/test_registration.py).
docs_task1_baseline_textimage = DOCS["docs_task1_baseline_textimage"]
docs_task1_cot_textimage = DOCS["docs_task1_cot_textimage"]
docs_task1_ki_textimage = DOCS["docs_task1_ki_textimage"]
docs_task1_cot_ki_textimage = DOCS["docs_task1_cot_ki_textimage"]
docs_task1_baseline_textonly = DOCS["docs_task1_baseline_textonly"]
docs_task1_cot_textonly = DOCS["docs_task1_cot_textonly"]
docs_task1_ki_textonly = DOCS["docs_task1_ki_textonly"]
docs_task1_cot_ki_textonly = DOCS["docs_task1_cot_ki_textonly"]
docs_task1_baseline_imageonly = DOCS["docs_task1_baseline_imageonly"]
docs_task1_cot_imageonly = DOCS["docs_task1_cot_imageonly"]
docs_task1_ki_imageonly = DOCS["docs_task1_ki_imageonly"]
docs_task1_cot_ki_imageonly = DOCS["docs_task1_cot_ki_imageonly"]
docs_task2_baseline_textimage = DOCS["docs_task2_baseline_textimage"]
docs_task2_cot_textimage = DOCS["docs_task2_cot_textimage"]
docs_task2_ki_textimage = DOCS["docs_task2_ki_textimage"]
docs_task2_cot_ki_textimage = DOCS["docs_task2_cot_ki_textimage"]
docs_task2_baseline_textonly = DOCS["docs_task2_baseline_textonly"]
docs_task2_cot_textonly = DOCS["docs_task2_cot_textonly"]
docs_task2_ki_textonly = DOCS["docs_task2_ki_textonly"]
docs_task2_cot_ki_textonly = DOCS["docs_task2_cot_ki_textonly"]
docs_task2_baseline_imageonly = DOCS["docs_task2_baseline_imageonly"]
docs_task2_cot_imageonly = DOCS["docs_task2_cot_imageonly"]
docs_task2_ki_imageonly = DOCS["docs_task2_ki_imageonly"]
docs_task2_cot_ki_imageonly = DOCS["docs_task2_cot_ki_imageonly"]
docs_decision_baseline_textimage = DOCS["docs_decision_baseline_textimage"]
docs_decision_cot_textimage = DOCS["docs_decision_cot_textimage"]
docs_decision_ki_textimage = DOCS["docs_decision_ki_textimage"]
docs_decision_cot_ki_textimage = DOCS["docs_decision_cot_ki_textimage"]
docs_decision_baseline_textonly = DOCS["docs_decision_baseline_textonly"]
docs_decision_cot_textonly = DOCS["docs_decision_cot_textonly"]
docs_decision_ki_textonly = DOCS["docs_decision_ki_textonly"]
docs_decision_cot_ki_textonly = DOCS["docs_decision_cot_ki_textonly"]
docs_decision_baseline_imageonly = DOCS["docs_decision_baseline_imageonly"]
docs_decision_cot_imageonly = DOCS["docs_decision_cot_imageonly"]
docs_decision_ki_imageonly = DOCS["docs_decision_ki_imageonly"]
docs_decision_cot_ki_imageonly = DOCS["docs_decision_cot_ki_imageonly"]
docs_ctc_baseline_textimage = DOCS["docs_ctc_baseline_textimage"]
docs_ctc_cot_textimage = DOCS["docs_ctc_cot_textimage"]
docs_ctc_ki_textimage = DOCS["docs_ctc_ki_textimage"]
docs_ctc_cot_ki_textimage = DOCS["docs_ctc_cot_ki_textimage"]
docs_ctc_all_textimage = DOCS["docs_ctc_all_textimage"]
# The packaged sample (embedded default): T+I baseline from food_tasks/sample_data.
docs_sample_task1 = partial(_docs, "task1", ("baseline",), "textimage", (), root=SAMPLE_ROOT)
docs_sample_ctc = partial(_docs, "task2", ("baseline",), "textimage", ("rank", "decision"), root=SAMPLE_ROOT)


def doc_to_visual(doc: dict[str, Any]) -> list[Any]:
    """The document's images that could be fetched (missing ones are counted at scoring time)."""
    return fb_data.doc_images(doc)


def doc_to_text_task1(doc: dict[str, Any], lmms_eval_specific_kwargs: dict | None = None) -> str:
    """Models without chat messages get the system prompt in front of the payload."""
    return f"{doc['system']}\n\n{doc['user']}"


def doc_to_messages_task1(doc: dict[str, Any], lmms_eval_specific_kwargs: dict | None = None) -> list[dict]:
    """Official order: one system turn, then the image before the JSON payload."""
    return build_messages(fb_data.doc_images(doc), doc["user"], images_first=True, system=doc["system"])


def doc_to_text_task2(doc: dict[str, Any], lmms_eval_specific_kwargs: dict | None = None) -> str:
    """The official Task 2 prompt."""
    return doc["prompt"]


def doc_to_messages_task2(doc: dict[str, Any], lmms_eval_specific_kwargs: dict | None = None) -> list[dict]:
    """Official interleaving: the prompt, then "Option X:" and that option's image for A-D; no system turn."""
    content = [{"type": "text", "text": doc["prompt"]}]
    for letter, image in zip(doc["option_letters"], fb_data.doc_images_aligned(doc)):
        content.append({"type": "text", "text": f"Option {letter}:"})
        if image is not None:
            content.append({"type": "image", "url": image})
    return [{"role": "user", "content": content}]


process_results_task1 = results_hook(fb_scoring.score_task1, TABLES["task1"])
process_results_rank = results_hook(fb_scoring.score_task2, TABLES["rank"])
process_results_decision = results_hook(fb_scoring.score_task2, TABLES["decision"])
process_results_ctc = results_hook(fb_scoring.score_task2, TABLES["ctc"])
process_results_ctc_all = results_hook(fb_scoring.score_task2, TABLES["ctc_all"])
