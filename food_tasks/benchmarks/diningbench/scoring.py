"""DiningBench per-document records and dataset-level metrics.

Scales (as the paper prints them): accuracies and rates are fractions in [0, 1]; MAPE is in percent;
MAE and RMSE are in native units (kcal for calories, g for the others). Avg MAE/RMSE/MAPE are the
unweighted means of the four component values (the paper computes them outside the official code).

``_official`` metrics reproduce ``eval_classification.py`` / ``eval_nutrition.py`` / ``eval_vqa.py``
(their model-name-dependent clean-up included); the other metrics use the robust parsers of
:mod:`.parsing` on the same outputs. Records are sorted by row index before reduction so sums run in
the official order (bit-identical floats).

A document with an image that could not be decoded (``image_missing``; README "Failure accounting") is left
out of every robust metric and counted by the ``image_missing`` metric. The ``_official`` metrics score it as
the official scripts score it: they send the file's raw bytes, the server cannot decode them, the request
fails and the row's prediction is ``__INFER_ERROR__`` (``eval_classification.py::run_inference``): "cannot read
option" and wrong, a nutrition parse failure (errors ``|gt|``, APE 100 %), a VQA row judged False without a
call; in every official denominator.
"""

from __future__ import annotations

import functools
import json
import logging
import math
from typing import Any, Mapping, Sequence

from food_tasks.benchmarks.diningbench import parsing, prompts
from food_tasks.benchmarks.diningbench.data import gold as doc_gold

Record = Mapping[str, Any]


def _model_name(doc: Mapping[str, Any]) -> str:
    return str(doc.get("model_name") or "")


def _robust_input(doc: Mapping[str, Any], output: object) -> object:
    return parsing.answer_segment(output) if doc.get("cot") else output


# What the official scripts record for a request whose image the server cannot decode (the message is ours).
IMAGE_FAILURE_OFFICIAL = f"{parsing.INFER_ERROR}: image could not be decoded"


def _official_output(output: object, image_missing: bool) -> object:
    return IMAGE_FAILURE_OFFICIAL if image_missing else output


def _present(records: Sequence[Record]) -> list[Record]:
    """The records the robust metrics count: those whose images all reached the model."""
    return [r for r in records if not r.get("image_missing")]


def image_missing(records: Sequence[Record]) -> int:
    """Documents with an image that could not be decoded (left out of the robust metrics)."""
    return sum(bool(r.get("image_missing")) for r in records)


# --------------------------------------------------------------------------- classification


def score_cls(doc: Mapping[str, Any], output: object, image_missing: bool = False) -> dict[str, Any]:
    """Classification record: gold letter, robust and official predictions, image status."""
    raw_gold = doc_gold(doc)
    gold = str(raw_gold if raw_gold is not None else "").strip().upper()
    letters, options = parsing.prompt_options(doc["prompt"])
    robust = parsing.letter_robust(_robust_input(doc, output), letters, options)
    official_pred = parsing.official_prediction(_official_output(output, image_missing), _model_name(doc))
    official = parsing.letter_official(official_pred)
    return {
        "idx": doc["idx"], "views": doc.get("views"), "gold": gold, "pred": robust, "pred_official": official,
        "correct": robust is not None and robust == gold,
        "correct_official": official != "" and official == gold,
        "unreadable_official": official == "" or official not in parsing.LETTERS, "image_missing": bool(image_missing),
    }  # fmt: skip


def _rate(records: Sequence[Record], field: str) -> float:
    return sum(bool(r[field]) for r in records) / len(records) if records else 0.0


def cls_acc(records: Sequence[Record], official: bool = False) -> float:
    return _rate(records, "correct_official") if official else _rate(_present(records), "correct")


def cls_invalid_rate(records: Sequence[Record]) -> float:
    records = _present(records)
    return sum(r["pred"] is None for r in records) / len(records) if records else 0.0


def cls_unreadable_official(records: Sequence[Record]) -> float:
    """The official ``cannot_read_option_ratio``."""
    return _rate(records, "unreadable_official")


# --------------------------------------------------------------------------- nutrition


def score_nutrition(doc: Mapping[str, Any], output: object, image_missing: bool = False) -> dict[str, Any]:
    """Nutrition record: gold per component (None: skipped), robust and official predictions, image status."""
    robust, ranges = parsing.nutrition_robust(_robust_input(doc, output))
    official = parsing.nutrition_official(parsing.official_prediction(_official_output(output, image_missing), _model_name(doc)))
    return {"idx": doc["idx"], "gold": parsing.gold_nutrition_official(doc_gold(doc)), "pred": robust,
            "pred_official": official, "ranges": ranges, "image_missing": bool(image_missing)}  # fmt: skip


def _sorted(records: Sequence[Record]) -> list[Record]:
    return sorted(records, key=lambda r: r["idx"])


def _square(value: float) -> float:
    try:
        return value**2
    except OverflowError:  # the official scorer crashes here; the mathematical value is +inf
        return math.inf


def component_errors(records: Sequence[Record], key: str, official: bool = False) -> tuple[list[float], list[float], list[float]]:
    """Absolute errors, squared errors and APEs (%) of one component, in row order.

    Official semantics: rows without a readable gold value are skipped; a parse failure scores as a
    prediction of 0 (error ``|gt|``, APE 100 %); APE only where gt != 0."""
    field = "pred_official" if official else "pred"
    abs_err, sq_err, ape = [], [], []
    for record in _sorted(records if official else _present(records)):
        gold = record["gold"]
        if gold is None or gold.get(key) is None:
            continue
        gt = gold[key]
        pred = record[field]
        if pred is not None:
            diff = pred[key] - gt
            abs_err.append(abs(diff))
            sq_err.append(_square(diff))
            if gt != 0:
                ape.append(abs(diff / gt) * 100)
        else:
            penalty = abs(gt)
            abs_err.append(penalty)
            sq_err.append(_square(penalty))
            if gt != 0:
                ape.append(100.0)
    return abs_err, sq_err, ape


def component_metric(records: Sequence[Record], key: str, stat: str, official: bool = False) -> float:
    """``mae``, ``rmse`` or ``mape`` of one component (0.0 without rows, as officially)."""
    abs_err, sq_err, ape = component_errors(records, key, official)
    if not abs_err:
        return 0.0
    if stat == "mae":
        return sum(abs_err) / len(abs_err)
    if stat == "rmse":
        return math.sqrt(sum(sq_err) / len(sq_err))
    return sum(ape) / len(ape) if ape else 0.0


def avg_metric(records: Sequence[Record], stat: str, official: bool = False) -> float:
    """Unweighted mean of the four component values (paper's Avg MAE / Avg RMSE / Avg MAPE)."""
    values = [component_metric(records, key, stat, official) for key in parsing.COMPONENTS]
    return sum(values) / len(values)


def nutrition_parse_fail_rate(records: Sequence[Record], official: bool = False) -> float:
    """Parse failures over all rows (rows whose gold JSON is unreadable are not failures, as officially)."""
    field = "pred_official" if official else "pred"
    records = records if official else _present(records)
    fails = sum(r[field] is None and r["gold"] is not None for r in records)
    return fails / len(records) if records else 0.0


def nutrition_range_values(records: Sequence[Record]) -> int:
    """How many robust values were ranges ("20-25 g") scored at their midpoint."""
    return sum(int(r["ranges"]) for r in _present(records))


def nutrition_gold_missing(records: Sequence[Record]) -> int:
    return sum(r["gold"] is None for r in records)


# --------------------------------------------------------------------------- VQA


class _Tokenizer:
    """ROUGE tokens: jieba words for both languages (as the official ROUGE mode), NFKC, lower-cased,
    tokens without any letter or digit dropped (rouge-score's own tokenizer drops every CJK character)."""

    def tokenize(self, text: str) -> list[str]:
        import unicodedata

        import jieba

        text = unicodedata.normalize("NFKC", text).lower()
        return [t for t in (w.strip() for w in jieba.lcut(text)) if t and any(ch.isalnum() for ch in t)]


@functools.lru_cache(maxsize=1)
def _rouge_scorer():  # type: ignore[no-untyped-def]
    import logging

    import jieba
    from rouge_score import rouge_scorer

    jieba.setLogLevel(logging.WARNING)
    return rouge_scorer.RougeScorer(["rouge1", "rouge2", "rougeL"], tokenizer=_Tokenizer())


ROUGE_INPUT_LIMIT = 4000  # characters of a prediction given to ROUGE (runaway outputs are truncated)


def rouge_f(prediction: str, reference: str) -> dict[str, float]:
    """ROUGE-1/2/L F-measures (rouge-score) of one prediction against its reference; 0 for empty text."""
    if not prediction.strip() or not reference.strip():
        return {"rouge1": 0.0, "rouge2": 0.0, "rougeL": 0.0}
    scores = _rouge_scorer().score(reference, prediction[:ROUGE_INPUT_LIMIT])
    return {name: score.fmeasure for name, score in scores.items()}


def score_vqa(doc: Mapping[str, Any], output: object, image_missing: bool = False) -> dict[str, Any]:
    """VQA record: everything the judge step needs (question, gold, both predictions), ROUGE, image status."""
    raw_gold = doc_gold(doc)
    gold = raw_gold if isinstance(raw_gold, str) else ("" if raw_gold is None else str(raw_gold))
    official = parsing.official_prediction(_official_output(output, image_missing), _model_name(doc))
    robust = parsing.clean_robust(_robust_input(doc, output))
    robust = robust.strip() if robust is not None else None
    return {
        "idx": doc["idx"], "views": doc.get("views"), "question": parsing.vqa_question(doc["prompt"]), "gold": gold,
        "pred": robust, "pred_official": official,
        "error_official": not official or parsing.INFER_ERROR in official,
        "rouge": rouge_f(robust or "", gold) if gold else None, "image_missing": bool(image_missing),
    }  # fmt: skip


def rouge_mean(records: Sequence[Record], name: str) -> float:
    """Mean ROUGE F over rows with a non-empty gold answer (empty predictions score 0)."""
    values = [r["rouge"][name] for r in _present(records) if r["rouge"] is not None]
    return sum(values) / len(values) if values else 0.0


def judge_outcomes(records: Sequence[Record], client: Any) -> dict[str, Any]:
    """Judge every row once per distinct (question, gold, prediction) and reduce.

    Official (``judge_acc_official``): rows with an empty gold answer are not evaluated; empty or
    errored predictions are False without a call; a judge failure is ``__EVAL_ERROR__`` (False); the
    verdict is read by the official keyword rule. Robust (``judge_acc``): the robust prediction, the
    robust verdict parser; rows whose judge call failed are left out of the denominator and counted in
    ``judge_error_rate`` (an outage changes the error count, not the accuracy of what was judged). Rows
    with an undecodable image are not judged robustly (the official prediction is the request error).
    """
    rows = [r for r in _sorted(records) if r["gold"]]
    bodies, slots = [], []
    for r in rows:
        robust_pred = None if r.get("image_missing") else r["pred"] or None
        for which, pred in (("official", None if r["error_official"] else r["pred_official"]), ("robust", robust_pred)):
            if pred is not None:
                prompt = prompts.judge_prompt(r["question"], r["gold"], pred)
                bodies.append(_body(client, prompt))
                slots.append((r["idx"], which))
    results = dict(zip(slots, client.complete_many(bodies))) if bodies else {}
    correct_official = correct = judged = errors = unparsed = 0
    for r in rows:
        official = results.get((r["idx"], "official"))
        robust = results.get((r["idx"], "robust"))
        correct_official += bool(official is not None and official.text is not None and parsing.verdict_official(official.text))
        failed = (official is not None and official.text is None) or (robust is not None and robust.text is None)
        errors += failed
        if (robust is not None and robust.text is None) or r.get("image_missing"):
            continue
        judged += 1
        if robust is not None:
            verdict = parsing.verdict_robust(robust.text)
            unparsed += verdict is None
            correct += verdict is True
    n = len(rows)
    # Nothing judged because every call failed: no accuracy (NaN), rather than a 0 that looks like a score.
    return {"judge_acc": correct / judged if judged else (math.nan if n else 0.0), "judge_acc_official": correct_official / n if n else 0.0,
            "judge_error_rate": errors / n if n else 0.0, "judge_unparsed_rate": unparsed / judged if judged else 0.0,
            "evaluated": n}  # fmt: skip


def _body(client: Any, prompt: str) -> dict:
    from food_tasks.judge import request_body

    return request_body(client.config, prompt, temperature=prompts.JUDGE_TEMPERATURE, max_tokens=prompts.JUDGE_MAX_TOKENS)


def judge_metric(records: Sequence[Record], name: str) -> Any:
    """One judge metric of a VQA task (NaN when judging is explicitly off, ``FOOD_TASKS_JUDGE_MODEL=none``)."""
    from food_tasks.judge import JudgeConfig, client_for

    config = JudgeConfig.from_env("DiningBench VQA")
    if config is None:
        return {"model": None, "note": "judging disabled (FOOD_TASKS_JUDGE_MODEL=none)"} if name == "judge_info" else math.nan
    client = client_for(config)
    outcome = judge_outcomes(records, client)
    if name == "judge_error_rate" and outcome[name]:
        logging.getLogger(__name__).warning(
            f"DiningBench VQA: the judge failed on {outcome[name]:.1%} of {outcome['evaluated']} rows after retries "
            f"({client.info()['failure_reasons']}); judge_acc leaves them out, judge_acc_official counts them wrong. "
            "Re-run to retry them (judged rows come from the cache).")  # fmt: skip
    if name == "judge_info":
        return {**client.info(), "prompt": prompts.JUDGE_PROMPT_VERSION, "evaluated": outcome["evaluated"]}
    return outcome[name]


def dumps(record: Record) -> str:  # pragma: no cover - debugging aid
    return json.dumps(record, ensure_ascii=False, sort_keys=True)
