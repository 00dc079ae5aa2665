"""FoodieQA scoring: one record per document, reducers per task, and the group reducers.

Scale: percentages in [0, 100] (the paper prints accuracy %). All questions are in every denominator
(official ``accuracy_score`` over the file), except those with an image that could not be decoded
(``image_missing``): they leave every metric, ``acc_paper_protocol`` included. The official scripts run the
model with no error handling, so such an image stops them and no official number exists (README
"Undecodable images").

``acc_paper_protocol`` reproduces the official protocol with its random fallback made deterministic.
VQA (``parse_res``/``parse_yi_res``, unseeded officially): records are put back in file order and one
``random.Random(42)`` per task run draws ``choice(["0", "1", "2", "3"])`` for each answer the official
parser cannot read, in file order: exactly what the official scoring loop gives after one
``random.seed(42)``. Text QA (``parse_textqa_res`` calls ``random.seed(42)`` before every fallback):
every fallback is ``"0"`` (option A), as officially. Independent of batch order and ranks: the draw
happens at aggregation time, on the gathered records. ``paper_fallback_rate`` counts how often it fired.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import Any

from food_tasks import metrics
from food_tasks.benchmarks.foodieqa import parsing

PAPER_SEED = 42
PAPER_CHOICES = ["0", "1", "2", "3"]


def score(doc: dict, response: object, task: str, lang: str, template: int, opener: str, image_missing: bool = False) -> dict[str, Any]:
    """One record: robust parse (``parsed``, ``correct``, ``invalid``), the official parse (``paper``), image status."""
    options = None if task == "mivqa" else (doc["choices_en"] if lang == "en" else doc["choices"])
    parsed = parsing.parse_robust(response, opener, options, numbers=task == "mivqa")
    gold = int(doc["answer"])
    return {
        "index": doc["index"],
        "qid": doc["qid"],
        "question_type": doc["question_type"],
        "category": doc["category"],
        "gold": gold,
        "parsed": parsed,
        "correct": parsed == gold,
        "invalid": parsed is None,
        "paper": parsing.parse_paper(response, task, template),
        # parse_textqa_res reseeds before each fallback: Random(42).choice(...) is always "0".
        "paper_fallback": 0 if task == "textqa" else None,
        "image_missing": bool(image_missing),
    }


def _scored(items: Sequence[dict]) -> list[dict]:
    """The records every metric counts: those whose images all reached the model."""
    return [r for r in items if not r.get("image_missing")]


def image_missing(items: Sequence[dict]) -> int:
    """Questions left out of every metric because an image could not be decoded."""
    return sum(bool(r.get("image_missing")) for r in items)


def acc(items: Sequence[dict]) -> float:
    """Robust accuracy (%), invalid answers count as wrong."""
    return metrics.percent_true(_scored(items), "correct")


def invalid_rate(items: Sequence[dict]) -> float:
    """Percent of answers the robust parser could not read."""
    return metrics.percent_true(_scored(items), "invalid")


def paper_predictions(items: Sequence[dict], seed: int = PAPER_SEED) -> list[tuple[dict, int]]:
    """(record, predicted index) in file order; fallbacks are the record's fixed ``paper_fallback`` or
    drawn from one ``random.Random(seed)``."""
    rng = random.Random(seed)
    out = []
    for record in sorted(_scored(items), key=lambda r: r["index"]):
        if record["paper"] is not None:
            pred = record["paper"]
        elif record.get("paper_fallback") is not None:
            pred = record["paper_fallback"]
        else:
            pred = int(rng.choice(PAPER_CHOICES))
        out.append((record, pred))
    return out


def acc_paper_protocol(items: Sequence[dict]) -> float:
    """Accuracy (%) under the official parser with the seeded fallback (module docstring)."""
    pairs = paper_predictions(items)
    return 100.0 * sum(pred == r["gold"] for r, pred in pairs) / len(pairs) if pairs else 0.0


def paper_fallback_rate(items: Sequence[dict]) -> float:
    """Percent of answers for which the official parser falls back to a random choice."""
    items = _scored(items)
    return 100.0 * sum(r["paper"] is None for r in items) / len(items) if items else 0.0


def _table(items: Sequence[dict], by: str) -> dict[str, dict[str, float]]:
    return metrics.per_group_table([r for r in _scored(items) if r[by]], by, {"acc": acc, "invalid_rate": invalid_rate})


def per_question_type(items: Sequence[dict]) -> dict[str, dict[str, float]]:
    """Per ``question_type``: n, acc, invalid_rate (the paper's fine-grained breakdown, Fig. 8)."""
    return _table(items, "question_type")


def per_category(items: Sequence[dict]) -> dict[str, dict[str, float]]:
    """Per annotation group (mivqa ``ann_group``) or cuisine (sivqa ``food_meta.food_type``)."""
    return _table(items, "category")
