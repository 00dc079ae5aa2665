"""BERTScore through the ``bert-score`` library, computed once per batch of pairs.

Reference setting (the official scorer that uses it, via ``evaluate``'s wrapper; its benchmark package cites it):
``model_type="xlm-roberta-large"`` with bert-score's defaults for it: layer 17,
no IDF weighting, no baseline rescaling, one reference per candidate. Empty
candidates score 0, as in bert-score.

Environment:
    FOOD_TASKS_BERTSCORE_MODEL: a local directory (or hub id) to load instead of
        ``xlm-roberta-large``, for air-gapped clusters and tests. With a path, set
        FOOD_TASKS_BERTSCORE_LAYERS too unless the model has >= 17 layers.
    FOOD_TASKS_BERTSCORE_LAYERS: hidden layer to use (default 17).
    FOOD_TASKS_BERTSCORE: set to 0 to skip BERTScore (reported as NaN).
"""

from __future__ import annotations

import functools
import os
from collections.abc import Sequence
from typing import TYPE_CHECKING

from loguru import logger

from food_tasks.hooks.outputs import utf8_safe

if TYPE_CHECKING:  # pragma: no cover
    from bert_score import BERTScorer

DEFAULT_MODEL = "xlm-roberta-large"
DEFAULT_LAYERS = 17
BATCH_SIZE = 64


def settings() -> tuple[str, int]:
    """Return ``(model, layer)`` from the environment, defaulting to the reference setting."""
    model = os.environ.get("FOOD_TASKS_BERTSCORE_MODEL", "").strip() or DEFAULT_MODEL
    layers = int(os.environ.get("FOOD_TASKS_BERTSCORE_LAYERS", "").strip() or DEFAULT_LAYERS)
    return model, layers


def enabled() -> bool:
    """False when ``$FOOD_TASKS_BERTSCORE`` turns BERTScore off (0/false/no/off); on by default."""
    return os.environ.get("FOOD_TASKS_BERTSCORE", "1").strip().lower() not in {"0", "false", "no", "off"}


@functools.lru_cache(maxsize=2)
def _scorer(model: str, layers: int) -> BERTScorer:
    from bert_score import BERTScorer

    scorer = BERTScorer(
        model_type=model, num_layers=layers, idf=False, rescale_with_baseline=False, batch_size=BATCH_SIZE
    )
    tokenizer = scorer._tokenizer
    if not hasattr(tokenizer, "build_inputs_with_special_tokens"):
        # bert-score 0.3.13 encodes an empty candidate with this method, which transformers 5
        # tokenizers no longer have; the special tokens alone are what it returned.
        empty = tokenizer("", add_special_tokens=True)["input_ids"]
        tokenizer.build_inputs_with_special_tokens = lambda ids: empty[:1] + list(ids) + empty[1:]
    return scorer


@functools.lru_cache(maxsize=4)
def _f1(candidates: tuple[str, ...], references: tuple[str, ...], model: str, layers: int) -> tuple[float, ...]:
    _, _, f1 = _scorer(model, layers).score(list(candidates), list(references), verbose=False)
    return tuple(float(x) for x in f1.tolist())


def sanitize(text: object) -> str:
    """Text the tokenizer accepts: lone UTF-16 surrogates (which no UTF-8 encoder takes, so one of them
    fails the whole batch) become U+FFFD; a non-string is the empty answer."""
    return utf8_safe(text) if isinstance(text, str) else ""


def _pairwise(candidates: Sequence[str], references: Sequence[str], model: str, layers: int) -> list[float] | None:
    """Score pairs one at a time after a batch failed: a pair that still fails scores 0 and is counted."""
    scorer = _scorer(model, layers)
    out, failed = [], 0
    for cand, ref in zip(candidates, references):
        try:
            out.append(float(scorer.score([cand], [ref], verbose=False)[2][0]))
        except Exception:
            out.append(0.0)
            failed += 1
    if failed == len(out):
        return None
    if failed:
        logger.error(f"bertscore: {failed} of {len(out)} pair(s) could not be scored; they count as F1 0.")
    return out


def f1_scores(candidates: Sequence[str], references: Sequence[str]) -> list[float] | None:
    """BERTScore F1 (0-1) per pair, or None when disabled or the model cannot be loaded.

    Inputs pass through :func:`sanitize`. Results are memoised on the exact input, so several
    metrics of one task (overall and per-language) share one computation. If the batch fails once
    the model is loaded, pairs are scored one by one, so one bad sample cannot erase a task's score.
    """
    if len(candidates) != len(references):
        raise ValueError(f"bertscore: {len(candidates)} candidates for {len(references)} references")
    if not candidates:
        return []
    if not enabled():
        return None
    model, layers = settings()
    cands, refs = tuple(map(sanitize, candidates)), tuple(map(sanitize, references))
    try:
        _scorer(model, layers)
    except Exception as err:  # model missing offline, ...: report, never lose the run
        logger.error(
            f"bertscore: cannot load model {model!r} (layer {layers}): {type(err).__name__}: {err}. "
            "Reporting NaN. Set FOOD_TASKS_BERTSCORE_MODEL to a local copy of xlm-roberta-large for offline runs."
        )
        return None
    try:
        return list(_f1(cands, refs, model, layers))
    except Exception as err:  # OOM, a pair the tokenizer refuses
        logger.error(f"bertscore: batch scoring failed ({type(err).__name__}: {err}); scoring pairs one by one.")
        return _pairwise(cands, refs, model, layers)
