"""FoodieQA with rotated options (the ``_circular`` tasks; :mod:`food_tasks.hooks.rotation`).

A rotation shifts what sits behind the letters A-D and remaps the gold ``answer``; the prompt is then rendered by
the benchmark's own builder (:func:`food_tasks.benchmarks.foodieqa.prompts.build`), so every template stays
byte-exact. Multi-image VQA rotates the four images (each image moves with its letter: image ``A`` of rotation
``r`` is image ``r % 4`` of the question); single-image VQA and text QA rotate the option texts, Chinese and
English together. Four options, so four rotations.
"""

from __future__ import annotations

from typing import Any

from food_tasks.hooks import rotation

LABELS = ("A", "B", "C", "D")
# Chosen against gold option positions (answers that could not be read, and questions whose images failed, left out).
POSITIONS = rotation.position_metrics(
    rotation.position("parsed", unless="image_missing"), rotation.position("gold", unless="image_missing"), LABELS
)


def rotated_fields(doc: dict[str, Any]) -> tuple[str, ...]:
    """The document's lists that follow the letters: the images (mivqa) or the option texts."""
    return (
        ("images",)
        if doc["fq_task"] == "mivqa"
        else tuple(f for f in ("choices", "choices_en") if doc.get(f) is not None)
    )


def rotate_doc(doc: dict[str, Any], offset: int) -> dict[str, Any]:
    """A question asked with rotation ``offset`` of what stands behind its letters; ``answer`` remapped."""
    out = {**doc, **{f: rotation.rotate(list(doc[f]), offset) for f in rotated_fields(doc)}}
    out["answer"] = str(rotation.rotated_gold(int(doc["answer"]), offset, len(LABELS)))
    return out


def expand(ds: Any, k: int | None = None) -> Any:
    """The documents of a task (a ``datasets.Dataset``), one per rotation of each question's options."""
    import datasets

    return datasets.Dataset.from_list(
        rotation.expand(ds.to_list(), lambda d: len(LABELS), rotate_doc, lambda d: d["index"], k)
    )
