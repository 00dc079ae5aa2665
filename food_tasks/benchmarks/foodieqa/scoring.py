"""FoodieQA scoring: one record per document, reducers per task, and the group reducers.

Scale: percentages in [0, 100] (the paper prints accuracy %). All questions are in every denominator
(official ``accuracy_score`` over the file), except those with an image that could not be decoded
(``image_missing``): they leave every metric, ``acc_paper_protocol`` included. The official scripts run the
model with no error handling, so such an image stops them and no official number exists (README
"Undecodable images").

``acc_paper_protocol`` reproduces the official protocol with its random fallback made deterministic.
VQA: the official ``get_accuracy.parse_yi_res`` (first capital A-D of the stripped answer; ``parse_res``
reads the same on a continuation) with one ``random.seed(42)`` before the task's scoring loop: records are
put back in file order and one ``random.Random(42)`` per task run draws ``choice(["0", "1", "2", "3"])``
for each answer the parser cannot read, in file order. The released script never seeds this fallback, so
its score moves from run to run (``tests/parity/parity_foodieqa.py`` measures the spread); ``parse_phi3v_res``,
the same parser, reseeds 42 before every call, so its fallback would always be option A: that is *not*
what this metric reproduces for VQA. Text QA (``parse_textqa_res`` reseeds 42 before every fallback):
every fallback is ``"0"`` (option A), as officially. Independent of batch order and ranks: the draw
happens at aggregation time, on the gathered records. ``paper_fallback_rate`` counts how often it fired.

Breakdowns never drop a record: a question without ``question_type`` is counted under ``other`` and one
without a category (mivqa ``ann_group``, sivqa ``food_meta.food_type``) under ``其他`` ("other"), where
the official analysis notebook (``get_accuracy_all.ipynb``) puts sivqa cuisines it has no bucket for; text
QA has no category (its ``per_category`` is empty).
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import Any

from food_tasks.benchmarks.foodieqa import parsing
from food_tasks.stats import consistency, metrics
from food_tasks.stats import uncertainty as stats

PAPER_SEED = 42
PAPER_CHOICES = ["0", "1", "2", "3"]
NO_QUESTION_TYPE = "other"
NO_CATEGORY = "其他"


def score(
    doc: dict, response: object, task: str, lang: str, template: int, opener: str, image_missing: bool = False
) -> dict[str, Any]:
    """One record: robust parse (``parsed``, ``correct``, ``invalid``), the official parse (``paper``), image status."""
    options = None if task == "mivqa" else (doc["choices_en"] if lang == "en" else doc["choices"])
    parsed = parsing.parse_robust(response, opener, options, numbers=task == "mivqa")
    gold = int(doc["answer"])
    return {
        "index": doc["index"],
        "qid": doc["qid"],
        "question_type": doc["question_type"] or NO_QUESTION_TYPE,
        "category": None if task == "textqa" else (doc["category"] or NO_CATEGORY),
        "gold": gold,
        "parsed": parsed,
        "correct": parsed == gold,
        "invalid": parsed is None,
        "paper": parsing.parse_paper(response, task, template),
        # parse_textqa_res reseeds before each fallback: Random(42).choice(...) is always "0".
        "paper_fallback": 0 if task == "textqa" else None,
        "image_missing": bool(image_missing),
        "lang": lang,
        "setting": setting(task, doc.get("fq_variant") or "", template),
    }


def setting(task: str, variant: str, template: int) -> str:
    """What a question's Chinese and English tasks share: ``sivqa_p0``, ``mivqa_p2``, ``sivqa_dishname_p1`` ..."""
    return f"{task}_{variant + '_' if variant else ''}p{template}"


# Cross-lingual consistency (docs/beyond_accuracy.md): the Chinese and English tasks of one setting read the
# same published file, so a question is its position there (index) in both, its options in the same A-D order.
CONSISTENCY = consistency.View(
    item=stats.column("setting", "index"),
    lang=stats.column("lang"),
    correct=stats.field("correct", unless="image_missing"),
    cluster=stats.column("qid"),
    choice=stats.column("parsed"),
    reference="en",
    family=stats.column("setting"),
)


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


def paper_correct_rows(items: Sequence[dict]) -> list[list[float]]:
    """Per record (in the given order): ``[correct under the paper protocol, 1]``, the fallback draws made in file
    order exactly as :func:`acc_paper_protocol` makes them (a resample keeps each document's draw); ``[0, 0]``
    (not counted) for a question whose image could not be decoded."""
    correct = {id(r): float(pred == r["gold"]) for r, pred in paper_predictions(items)}
    return [[correct[id(r)], 1.0] if id(r) in correct else [0.0, 0.0] for r in items]


def acc_paper_protocol(items: Sequence[dict]) -> float:
    """Accuracy (%) under the official parser with the seeded fallback (module docstring)."""
    pairs = paper_predictions(items)
    return 100.0 * sum(pred == r["gold"] for r, pred in pairs) / len(pairs) if pairs else 0.0


def paper_fallback_rate(items: Sequence[dict]) -> float:
    """Percent of answers for which the official parser falls back to a random choice."""
    items = _scored(items)
    return 100.0 * sum(r["paper"] is None for r in items) / len(items) if items else 0.0


def _table(items: Sequence[dict], by: str) -> dict[str, dict[str, float]]:
    return metrics.per_group_table(
        [r for r in _scored(items) if r[by] is not None], by, {"acc": acc, "invalid_rate": invalid_rate}
    )


def per_question_type(items: Sequence[dict]) -> dict[str, dict[str, float]]:
    """Per ``question_type``: n, acc, invalid_rate (robust parser; the paper's fine-grained breakdown, Fig. 8)."""
    return _table(items, "question_type")


def per_question_type_paper_protocol(items: Sequence[dict]) -> dict[str, dict[str, float]]:
    """Per ``question_type``: n, acc and fallback_rate under the official protocol, the parser the paper's
    Fig. 8 was computed with. As in the official notebook, the predictions of the whole task are drawn first
    (fallbacks in file order, :func:`paper_predictions`) and each type's accuracy is taken on its subset."""
    groups: dict[str, list[tuple[dict, int]]] = {}
    for record, pred in paper_predictions(items):
        groups.setdefault(str(record["question_type"]), []).append((record, pred))
    return {
        qtype: {
            "n": len(pairs),
            "acc": 100.0 * sum(pred == r["gold"] for r, pred in pairs) / len(pairs),
            "fallback_rate": 100.0 * sum(r["paper"] is None for r, _ in pairs) / len(pairs),
        }
        for qtype, pairs in sorted(groups.items())
    }


def per_category(items: Sequence[dict]) -> dict[str, dict[str, float]]:
    """Per annotation group (mivqa ``ann_group``) or cuisine (sivqa ``food_meta.food_type``); records without
    one under ``其他``; empty for text QA."""
    return _table(items, "category")
