"""WorldCuisines scoring: per-document records and aggregation.

Per document: robust and official MCQ parsing; OEQ substring matching in the multi / single / dual
reference modes; the BERTScore inputs. Aggregation: per language first, then the unweighted mean over
languages (the official macro average), official rounding for ``_official`` metrics.

Documents whose image could not be loaded (``image_missing``: the URL is absent from food-kb or its
bytes do not decode) are excluded from every denominator, robust and official alike (the official
runner would stop at them), and counted by the ``image_missing`` metric.
"""

from __future__ import annotations

import functools
from collections.abc import Mapping, Sequence
from typing import Any

from food_tasks.benchmarks.worldcuisines import parsing
from food_tasks.hooks import bertscore
from food_tasks.hooks.convention import Metric
from food_tasks.hooks.outputs import safe_str
from food_tasks.stats import consistency, metrics
from food_tasks.stats import uncertainty as stats

# ---------------------------------------------------------------- per-document scoring


def score_mcq(doc: dict, response: str, image_missing: bool = False) -> dict[str, Any]:
    """One record per MCQ document: robust and official correctness, parse outcome, image status."""
    parsed = parsing.extract_mcq_choice(response, doc["options"])
    gold = int(doc["multi_choice_answer"])
    return {
        "qa_id": doc["qa_id"],
        "lang": doc["lang"],
        "food_id": doc.get("food_id"),
        "parsed": parsed,
        "gold": gold,
        "correct": parsed == gold,
        "invalid": parsed is None,
        "correct_official": parsing.official_mcq_correct(response, doc["multi_choice_prompt"], gold),
        "image_missing": bool(image_missing),
        **_pairing(doc),
    }


def _pairing(doc: Mapping[str, Any]) -> dict[str, Any]:
    """What the consistency measures read besides correctness (docs/beyond_accuracy.md)."""
    return {
        "prompt_type": doc.get("prompt_type"),
        "image": doc.get("image_url"),
        "lang_status": doc.get("lang_status"),
        "options_status": doc.get("options_status"),
    }


def score_oeq(doc: dict, response: str, image_missing: bool = False) -> dict[str, Any]:
    """One record per OEQ document: the three reference modes, robust, official and strict; image status."""
    own = [doc["answer"]]
    dual = own + ([doc["answer_en"]] if doc["answer_en"] else [])
    refs = doc["answers_all"]
    return {
        "qa_id": doc["qa_id"],
        "lang": doc["lang"],
        "food_id": doc.get("food_id"),
        "prediction": safe_str(response),  # what str() gives officially; never the raw object (a 10,000-deep list)
        "reference": doc["answer"],
        "multi": parsing.oeq_match(response, refs),
        "single": parsing.oeq_match(response, own),
        "dual": parsing.oeq_match(response, dual),
        "multi_strict": parsing.oeq_match_strict(response, refs),
        "multi_official": parsing.oeq_match_official(response, refs),
        "single_official": parsing.oeq_match_official(response, own),
        "dual_official": parsing.oeq_match_official(response, dual),
        "image_missing": bool(image_missing),
        **_pairing(doc),
    }


# ---------------------------------------------------------------- aggregation


def _scored(items: Sequence[dict]) -> list[dict]:
    """The records that count: those whose image was available."""
    return [r for r in items if not r.get("image_missing")]


def image_missing(items: Sequence[dict]) -> int:
    """Number of documents left out of every denominator because their image could not be loaded."""
    return sum(bool(r.get("image_missing")) for r in items)


def macro(field: str, items: Sequence[dict]) -> float:
    """Percent of ``field`` per language, then the unweighted mean over languages."""
    return metrics.macro_percent(_scored(items), field, "lang")[0]


def macro_official(field: str, items: Sequence[dict]) -> float:
    """The official MCQ value: per-language percent rounded to 2, mean rounded to 2 (Python ``round``:
    ``score_mc`` computes with Python ints and floats)."""
    return metrics.macro_percent_official(_scored(items), field, "lang")[0]


def macro_official_oeq(field: str, items: Sequence[dict]) -> float:
    """The official OEQ value: as :func:`macro_official` with ``numpy.round`` semantics (``score_oe``
    rounds the ``numpy.float64`` of a pandas sum; ties such as 17.575 go to even on the scaled value)."""
    return metrics.macro_percent_official(_scored(items), field, "lang", rounding=metrics.round_numpy)[0]


def invalid_rate(items: Sequence[dict]) -> float:
    """Percent of documents whose answer the robust parser could not read (micro)."""
    return metrics.percent_true(_scored(items), "invalid")


def per_language_mcq(items: Sequence[dict]) -> dict[str, dict[str, float]]:
    """Per language: robust and official accuracy and the invalid rate, in percent."""
    return metrics.per_group_table(
        _scored(items),
        "lang",
        {
            "acc": lambda rs: metrics.percent_true(rs, "correct"),
            "acc_official": lambda rs: round(metrics.percent_true(rs, "correct_official"), 2),
            "invalid_rate": lambda rs: metrics.percent_true(rs, "invalid"),
        },
    )


def per_language_oeq(items: Sequence[dict]) -> dict[str, dict[str, float]]:
    """Per language: accuracy (%) under each reference mode, robust and official."""
    columns = {
        f"acc_{m}": functools.partial(metrics.percent_true, field=m)
        for m in ("multi", "single", "dual", "multi_strict")
    }
    columns |= {
        f"acc_{m}_official": (lambda rs, f=f"{m}_official": metrics.round_numpy(metrics.percent_true(rs, f), 2))
        for m in ("multi", "single", "dual")
    }
    return metrics.per_group_table(_scored(items), "lang", columns)


def _bertscore_cells(items: Sequence[dict]) -> dict[str, float] | None:
    items = _scored(items)
    f1 = bertscore.f1_scores([safe_str(r["prediction"]) for r in items], [str(r["reference"]) for r in items])
    if f1 is None:
        return None
    scored = [{"lang": r["lang"], "f1": 100.0 * f} for r, f in zip(items, f1)]
    return metrics.macro_mean(scored, "f1", "lang")[1]


def bertscore_f1(items: Sequence[dict]) -> float:
    """BERTScore F1 x100: mean per language (own-language reference), then mean over languages; NaN if unavailable."""
    cells = _bertscore_cells(items)
    return metrics.mean(list(cells.values())) if cells is not None else float("nan")


def per_language_bertscore(items: Sequence[dict]) -> dict[str, float]:
    """BERTScore F1 x 100 per language; empty when BERTScore is off or unavailable."""
    cells = _bertscore_cells(items)
    return {str(k): v for k, v in sorted(cells.items())} if cells is not None else {}


# ---------------------------------------------------------------- consistency (food_tasks.stats.consistency)

# prompt_type -> the subtask's context: 1a none, 1b a correct hint, 1c a misleading one (Task 2 asks another question).
CONTEXTS = {"1": consistency.NO_CONTEXT, "3": consistency.HINT, "4": consistency.MISLEADING}


def context_role(record: Mapping[str, Any]) -> str | None:
    """The document's context for misled_rate / hint_gain (None for Task 2)."""
    return CONTEXTS.get(str(record.get("prompt_type")))


def status(record: Mapping[str, Any]) -> str:
    """The published ``lang_status`` and whether the row's options are the English ones (``options_status``)."""
    return f"{record.get('lang_status')}/{record.get('options_status')}"


def view(field: str, multiple_choice: bool) -> consistency.View:
    """Items are qa_ids (one image, one gold option in all 30 languages); a dish (food_id) is the cluster and,
    in one language, the unit that 1a, 1b and 1c share; ``image`` tells the pairs that show the same photo."""
    return consistency.View(
        item=stats.column("qa_id"),
        lang=stats.column("lang"),
        correct=stats.field(field, unless="image_missing"),
        cluster=stats.column("food_id"),
        choice=stats.column("parsed") if multiple_choice else None,
        status=status,
        reference="en",
        context=context_role,
        unit=stats.column("food_id"),
        image=stats.column("image"),
    )


def consistency_metrics(v: consistency.View) -> tuple[Metric, ...]:
    """The task-level cross-lingual metrics (every language of an item is in the task)."""
    out = [
        Metric(
            "xling_all_correct",
            functools.partial(consistency.all_correct, view=v),
            estimator=consistency.ItemRatio(v, "all_correct"),
        )
    ]
    if v.choice is not None:
        out.append(
            Metric(
                "xling_agreement",
                functools.partial(consistency.agreement, view=v),
                estimator=consistency.ItemRatio(v, "agreement"),
            )
        )
    return (
        *out,
        Metric("xling_gap_to_en", functools.partial(consistency.gap_to_reference, view=v), scale="breakdown"),
        Metric("xling_by_lang_status", functools.partial(consistency.gap_by_status, view=v), scale="breakdown"),
    )
