"""WorldCuisines MCQ with rotated options (the ``_circular`` tasks; :mod:`food_tasks.hooks.rotation`).

A rotation rewrites only the option lines of the stored ``multi_choice_prompt`` (``<id>. <text>``, ids 1-5, as
the official ``generate_vqa/generate_prompts.py::generate_multiple_choices_sample`` writes them): the same ids
in the same places, the option texts shifted; question, blank lines and instruction stay byte-exact. The gold id
``multi_choice_answer`` follows its option. A question has 4 or 5 options, so 4 or 5 rotations.
"""

from __future__ import annotations

from typing import Any

from food_tasks.benchmarks.worldcuisines.parsing import mcq_option_spans
from food_tasks.hooks import rotation


def rotate_prompt(prompt: str, offset: int) -> str:
    """The prompt with its option texts rotated by ``offset`` (:func:`food_tasks.hooks.rotation.rotate_spans`) in the
    block :func:`food_tasks.benchmarks.worldcuisines.parsing.parse_mcq_options` reads, the rest verbatim."""
    return rotation.rotate_spans(prompt, mcq_option_spans(prompt), offset)


def rotate_doc(doc: dict[str, Any], offset: int) -> dict[str, Any]:
    """A document asked with rotation ``offset`` of its options; ``multi_choice_answer`` (1-based) remapped."""
    n = len(doc["options"])
    gold = rotation.rotated_gold(int(doc["multi_choice_answer"]) - 1, offset, n) + 1
    return {
        **doc,
        "multi_choice_prompt": rotate_prompt(doc["multi_choice_prompt"], offset),
        "options": rotation.rotate(doc["options"], offset),
        "multi_choice_answer": gold,
    }


def item(doc: dict[str, Any]) -> str:
    """The original question of a rotated document: its ``qa_id`` in its language."""
    return f"{doc['qa_id']}/{doc['lang']}"


def expand(ds: Any, k: int | None = None) -> Any:
    """The documents of a subtask (a ``datasets.Dataset``), one per rotation of each one's options."""
    import datasets

    docs = rotation.expand(ds.to_list(), lambda d: len(d["options"]), rotate_doc, item, k)
    return datasets.Dataset.from_list(docs)
