"""WorldCuisines MCQ with rotated options (the ``_circular`` tasks; :mod:`food_tasks.rotation`).

A rotation rewrites only the option lines of the stored ``multi_choice_prompt`` (``<id>. <text>``, ids 1-5, as
the official ``generate_vqa/generate_prompts.py::generate_multiple_choices_sample`` writes them): the same ids
in the same places, the option texts shifted; question, blank lines and instruction stay byte-exact. The gold id
``multi_choice_answer`` follows its option. A question has 4 or 5 options, so 4 or 5 rotations.
"""

from __future__ import annotations

from typing import Any

from food_tasks import rotation
from food_tasks.benchmarks.worldcuisines.parsing import INSTRUCTION_PREFIXES, OPTION_LINE_RE


def option_lines(lines: list[str]) -> list[int]:
    """Indices of the option lines of a prompt split at ``\\n``: the block
    :func:`food_tasks.benchmarks.worldcuisines.parsing.parse_mcq_options` reads (the last run of lines numbered
    1, 2, 3, ... before the instruction line)."""
    end = len(lines)
    for i in range(len(lines) - 1, -1, -1):
        if lines[i].strip().startswith(INSTRUCTION_PREFIXES):
            end = i
            break
    block: list[int] = []
    current: list[int] = []
    for i, line in enumerate(lines[:end]):
        match = OPTION_LINE_RE.match(line.rstrip("\r"))
        if match is None:
            if current:
                block, current = current, []
            continue
        option_id = int(match.group(1))
        if option_id == len(current) + 1:
            current.append(i)
        elif option_id == 1:
            block, current = current, [i]
        else:
            if current:
                block = current
            current = []
    return current or block


def rotate_prompt(prompt: str, offset: int) -> str:
    """The prompt with its option texts rotated by ``offset``
    (:func:`food_tasks.rotation.rotate`), the rest verbatim."""
    lines = prompt.split("\n")
    where = option_lines(lines)
    texts = [OPTION_LINE_RE.match(lines[i].rstrip("\r")).group(2) for i in where]  # type: ignore[union-attr]
    for number, (i, text) in enumerate(zip(where, rotation.rotate(texts, offset)), start=1):
        lines[i] = f"{number}. {text}" + ("\r" if lines[i].endswith("\r") else "")
    return "\n".join(lines)


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
