"""DiningBench classification with rotated options (the ``_circular`` tasks; :mod:`food_tasks.hooks.rotation`).

A rotation rewrites only the option texts of the record's prompt (the lines ``A. <dish>`` ... ``H. <dish>`` that
:func:`food_tasks.benchmarks.diningbench.parsing.prompt_options` reads, found by the same scan,
:func:`food_tasks.benchmarks.diningbench.parsing.option_spans`): letters, punctuation, spacing and every
other character stay byte-exact, and the CoT tasks' template is applied after (:func:`prompts.with_cot`). The gold
letter follows its dish. A record lists 8 options, so 8 rotations.
"""

from __future__ import annotations

import json
from typing import Any

from food_tasks.benchmarks.diningbench import prompts
from food_tasks.benchmarks.diningbench.parsing import option_spans
from food_tasks.hooks import rotation

LABELS = tuple("ABCDEFGH")
# Chosen against gold option letters (answers that could not be read, and documents whose images failed, left out).
POSITIONS = rotation.position_metrics(
    rotation.position("pred", labels=LABELS, unless="image_missing"),
    rotation.position("gold", labels=LABELS, unless="image_missing"),
    LABELS,
)


def n_options(doc: dict[str, Any]) -> int:
    """The number of options the document's prompt lists."""
    return len(option_spans(doc["prompt"]))


def rotate_prompt(prompt: str, offset: int) -> str:
    """The prompt with its option texts rotated by ``offset`` (:func:`food_tasks.hooks.rotation.rotate_spans`), the rest
    verbatim."""
    return rotation.rotate_spans(prompt, option_spans(prompt), offset)


def rotate_doc(doc: dict[str, Any], offset: int) -> dict[str, Any]:
    """A document asked with rotation ``offset`` of its options; its gold letter remapped (kept when not an option)."""
    prompt = rotate_prompt(doc["prompt"], offset)
    letters = [letter for letter, _, _ in option_spans(doc["prompt"])]
    gold = json.loads(doc["gold_json"])
    key = str(gold).strip().upper()
    if key in letters:
        gold = letters[rotation.rotated_gold(letters.index(key), offset, len(letters))]
    return {
        **doc,
        "prompt": prompt,
        "text": prompts.with_cot(prompt) if doc["cot"] else prompt,
        "gold_json": json.dumps(gold, ensure_ascii=False),
    }


def expand(ds: Any, k: int | None = None) -> Any:
    """The documents of a classification task (a ``datasets.Dataset``), one per rotation of each one's options."""
    import datasets

    return datasets.Dataset.from_list(rotation.expand(ds.to_list(), n_options, rotate_doc, lambda d: d["idx"], k))
