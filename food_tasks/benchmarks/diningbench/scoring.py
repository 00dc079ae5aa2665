"""DiningBench per-document records and dataset-level metrics.

Scales: the reducers here give accuracies, rates and ROUGE F in [0, 1], as the official code prints them; the
metric tables (:mod:`.tables`) report them x 100 (percent, as in every benchmark); MAPE is in percent;
MAE and RMSE are in native units (kcal for calories, g for the others). Avg MAE/RMSE/MAPE are the
unweighted means of the four component values (the paper computes them outside the official code).

``_official`` metrics reproduce ``eval_classification.py`` / ``eval_nutrition.py`` / ``eval_vqa.py``
(their model-name-dependent clean-up included); the other metrics use the robust parsers of
:mod:`.parsing` on the same outputs. Records are sorted by row index before reduction so sums run in
the official order (bit-identical floats).

A document with an image that could not be decoded (``image_missing``; docs/failure_accounting.md) is left
out of every robust metric and counted by the ``image_missing`` metric. The ``_official`` metrics score it as
the official scripts score it: they send the file's raw bytes, the server cannot decode them, the request
fails and the row's prediction is ``__INFER_ERROR__`` (``eval_classification.py::run_inference``): "cannot read
option" and wrong, a nutrition parse failure (errors ``|gt|``, APE 100 %), a VQA row judged False without a
call; in every official denominator.
"""

from __future__ import annotations

import functools
import json
import math
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

from food_tasks.benchmarks.diningbench import judging, parsing
from food_tasks.benchmarks.diningbench.data import gold as doc_gold
from food_tasks.hooks.convention import Metric
from food_tasks.stats import consistency, metrics
from food_tasks.stats import uncertainty as stats

CACHES = ("_rouge_scorer",)  # what food_tasks.reset() clears in this module

if TYPE_CHECKING:  # pragma: no cover
    from rouge_score.rouge_scorer import RougeScorer

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
        "idx": doc["idx"],
        "views": doc.get("views"),
        "gold": gold,
        "pred": robust,
        "pred_official": official,
        "correct": robust is not None and robust == gold,
        "correct_official": official != "" and official == gold,
        "unreadable_official": official == "" or official not in parsing.LETTERS,
        "image_missing": bool(image_missing),
        "lang": doc.get("lang"),
        "id": doc.get("id"),
        "images_key": "|".join(doc.get("images") or []),  # both files' paths resolve against one image folder
        "setting": doc.get("setting"),
    }


# Cross-lingual consistency (docs/beyond_accuracy.md): a Chinese and an English classification row are one item
# when they have the same id, show the same image files and have the same gold letter (the options in one order);
# rows that do not match in all three are left out (an item in one language does not count).
CONSISTENCY = consistency.View(
    item=stats.column("id", "images_key", "gold"),
    lang=stats.column("lang"),
    correct=stats.field("correct", unless="image_missing"),
    cluster=stats.column("id", "images_key"),
    choice=stats.column("pred"),
    reference="en",
    family=stats.column("setting"),
)


def _rate(records: Sequence[Record], field: str) -> float:
    return sum(bool(r[field]) for r in records) / len(records) if records else 0.0


def cls_acc(records: Sequence[Record], official: bool = False) -> float:
    """Classification accuracy (0-1): robust over records with their images, official over every record."""
    return _rate(records, "correct_official") if official else _rate(_present(records), "correct")


def cls_invalid_rate(records: Sequence[Record]) -> float:
    """Share (0-1) of records with their images whose answer gave no option letter."""
    records = _present(records)
    return sum(r["pred"] is None for r in records) / len(records) if records else 0.0


def cls_unreadable_official(records: Sequence[Record]) -> float:
    """The official ``cannot_read_option_ratio``."""
    return _rate(records, "unreadable_official")


# --------------------------------------------------------------------------- nutrition


def score_nutrition(doc: Mapping[str, Any], output: object, image_missing: bool = False) -> dict[str, Any]:
    """Nutrition record: gold per component (None: skipped), robust and official predictions, image status."""
    robust, ranges = parsing.nutrition_robust(_robust_input(doc, output))
    official = parsing.nutrition_official(
        parsing.official_prediction(_official_output(output, image_missing), _model_name(doc))
    )
    return {
        "idx": doc["idx"],
        "gold": parsing.gold_nutrition_official(doc_gold(doc)),
        "pred": robust,
        "pred_official": official,
        "ranges": ranges,
        "image_missing": bool(image_missing),
    }


def _sorted(records: Sequence[Record]) -> list[Record]:
    return sorted(records, key=lambda r: r["idx"])


def _square(value: float) -> float:
    try:
        return value**2
    except OverflowError:  # the official scorer crashes here; the mathematical value is +inf
        return math.inf


def component_errors(
    records: Sequence[Record], key: str, official: bool = False
) -> tuple[list[float], list[float], list[float]]:
    """Absolute errors, squared errors and APEs (%) of one component, in row order.

    Official semantics: rows without a readable gold value are skipped; a parse failure scores as a
    prediction of 0 (error ``|gt|``, APE 100 %); APE only where gt != 0."""
    abs_err, sq_err, ape = [], [], []
    for record in _sorted(records if official else _present(records)):
        errors = row_errors(record, key, official)
        if errors is None:
            continue
        abs_err.append(errors[0])
        sq_err.append(errors[1])
        if errors[2] is not None:
            ape.append(errors[2])
    return abs_err, sq_err, ape


def row_errors(record: Record, key: str, official: bool = False) -> tuple[float, float, float | None] | None:
    """One row's absolute error, squared error and APE (%, None where gt == 0) of one component, as
    :func:`component_errors` counts them; None for a row without a readable gold value (and, robust, for a row
    whose image could not be decoded)."""
    gold = record["gold"]
    if gold is None or gold.get(key) is None or (not official and record.get("image_missing")):
        return None  # no readable gold value; an undecodable image leaves the robust metrics
    gt = gold[key]
    pred = record["pred_official" if official else "pred"]
    if pred is not None:
        value = pred[key]  # None: a non-finite official value read back from a samples file (strict JSON: null)
        diff = (math.nan if value is None else value) - gt
        return abs(diff), _square(diff), (abs(diff / gt) * 100 if gt != 0 else None)
    penalty = abs(gt)
    return penalty, _square(penalty), (100.0 if gt != 0 else None)


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
    """Records whose gold nutrition values could not be read (left out of every nutrition metric)."""
    return sum(r["gold"] is None for r in records)


# --------------------------------------------------------------------------- VQA


class _Tokenizer:
    """ROUGE tokens: jieba words for both languages (as the official ROUGE mode), NFKC, lower-cased,
    tokens without any letter or digit dropped (rouge-score's own tokenizer drops every CJK character)."""

    def tokenize(self, text: str) -> list[str]:
        """jieba words of the NFKC-folded, lower-cased text that hold a letter or digit."""
        import unicodedata

        import jieba

        text = unicodedata.normalize("NFKC", text).lower()
        return [t for t in (w.strip() for w in jieba.lcut(text)) if t and any(ch.isalnum() for ch in t)]


@functools.lru_cache(maxsize=1)
def _rouge_scorer() -> RougeScorer:
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
    signals = judging.injection_signals(output)
    return {
        "idx": doc["idx"],
        "views": doc.get("views"),
        "question": parsing.vqa_question(doc["prompt"]),
        "gold": gold,
        "pred": robust,
        "pred_official": official,
        "error_official": not official or parsing.INFER_ERROR in official,
        "rouge": rouge_f(robust or "", gold) if gold else None,
        "image_missing": bool(image_missing),
        # text addressed to the judge (food_tasks.judge.injection): flagged and counted, never altered
        "injection_suspect": bool(signals),
        "injection_signals": signals,
    }


def injection_suspect_rate(records: Sequence[Record]) -> float:
    """Share (0-1) of records whose model output looks addressed to the judge (``injection_suspect``; records
    without the flag, read from files written before it existed, are not counted); NaN without any."""
    flags = [bool(r["injection_suspect"]) for r in records if "injection_suspect" in r]
    return sum(flags) / len(flags) if flags else math.nan


def rouge_mean(records: Sequence[Record], name: str) -> float:
    """Mean ROUGE F over rows with a non-empty gold answer (empty predictions score 0)."""
    values = [r["rouge"][name] for r in _present(records) if r["rouge"] is not None]
    return sum(values) / len(values) if values else 0.0


def judge_outcomes(records: Sequence[Record], client: Any) -> dict[str, Any]:
    """The judge rates of a task (fractions), ``evaluated`` and ``info`` (:func:`.judging.outcomes`; ``client``: a
    :class:`food_tasks.judge.panel.Panel` or one judge client)."""
    outcome = judging.outcomes(records, client)
    outcome.pop("run")
    return outcome


def judge_verdicts(records: Sequence[Record], client: Any) -> list[dict[str, bool] | None]:
    """Each record's judge outcome, aligned with ``records``: None for a row that is not evaluated (empty gold
    answer), else ``evaluated`` (True), ``correct_official``, ``failed`` (a judge call failed), ``judged`` (the
    robust verdict is in ``judge_acc``'s denominator), ``correct`` and ``unparsed`` (robust verdict True / unreadable),
    ``rule_read`` and ``rule_disagree`` (the headline answer read by both rules, and whether they disagree).
    Requests are sent in row order (``idx``), one per distinct body (:func:`.judging.run`)."""
    return judging.run(records, client).rows


judge_metric = judging.metric

# --------------------------------------------------------------------------- error bars
# One row's share of a metric, for food_tasks.stats.uncertainty (standard errors, paired comparisons): a value per row
# (None: outside the metric's denominator) for means, a row of sums for RMSE and the averages over components.
# The reported numbers stay the reducers' above; tests check that these give the same values.

_STAT_INDEX = {"mae": 0, "rmse": 1, "mape": 2}


def nutrition_error(record: Record, key: str, stat: str, official: bool = False) -> float | None:
    """The row's term of a component's ``mae`` (absolute error), ``rmse`` (squared error) or ``mape`` (APE)."""
    errors = row_errors(record, key, official)
    return None if errors is None else errors[_STAT_INDEX[stat]]


def nutrition_rows(records: Sequence[Record], keys: Sequence[str], stat: str, official: bool = False) -> np.ndarray:
    """``(n, 2 * len(keys))``: per component, the row's error term of ``stat`` and 1 when it counts."""
    out = np.zeros((len(records), 2 * len(keys)))
    for i, record in enumerate(records):
        for j, key in enumerate(keys):
            value = nutrition_error(record, key, stat, official)
            if value is not None:
                out[i, 2 * j : 2 * j + 2] = (value, 1.0)
    return out


def nutrition_combine(sums: np.ndarray, stat: str) -> np.ndarray:
    """:func:`component_metric` of each component (0 without rows, as officially; RMSE the square root of the
    mean square) from the column sums of :func:`nutrition_rows`, and their unweighted mean (:func:`avg_metric`)."""
    k = sums.shape[-1] // 2
    total = np.zeros(sums.shape[:-1])
    for j in range(k):
        num, den = sums[..., 2 * j], sums[..., 2 * j + 1]
        with np.errstate(invalid="ignore", divide="ignore"):
            value = np.where(den > 0, num / np.where(den > 0, den, 1.0), 0.0)
        total = total + (np.sqrt(value) if stat == "rmse" else value)
    return total / k


def nutrition_parse_fail(record: Record, official: bool = False) -> float | None:
    """1 for a parse failure of a row with a readable gold JSON (:func:`nutrition_parse_fail_rate`); None
    (not counted) for a row with an undecodable image in the robust rate."""
    if not official and record.get("image_missing"):
        return None
    return float(record["pred_official" if official else "pred"] is None and record["gold"] is not None)


def rouge_value(record: Record, name: str) -> float | None:
    """The row's ROUGE F (:func:`rouge_mean`); None for a row without a reference answer or with an unreadable image."""
    return None if record["rouge"] is None or record.get("image_missing") else record["rouge"][name]


JUDGE_RATES, JudgeRatio, JudgeFigure = judging.JUDGE_RATES, judging.JudgeRatio, judging.JudgeFigure


def dumps(record: Record) -> str:  # pragma: no cover - debugging aid
    """A record as sorted JSON with characters unescaped."""
    return json.dumps(record, ensure_ascii=False, sort_keys=True)


# --------------------------------------------------------------------------- metric declarations


def _component(key: str, stat: str, official: bool) -> stats.Estimator:
    if stat == "rmse":
        return stats.Custom(
            functools.partial(nutrition_rows, keys=(key,), stat=stat, official=official),
            functools.partial(nutrition_combine, stat=stat),
        )
    # keep_nonfinite: an official NaN or infinite error reaches the estimator's value as it reaches the reported
    # one (a mean drops non-finite values).
    return stats.Ratio(functools.partial(nutrition_error, key=key, stat=stat, official=official), keep_nonfinite=True)


def nutrition_metrics(official: bool) -> list[Metric]:
    """The nutrition table's error metrics (``_official`` ones with ``official``): per component and averaged, each
    MAE, RMSE and MAPE, and the parse-failure rate (the nutrition table of :mod:`.tables`)."""
    tail = "_official" if official else ""
    out = [
        Metric(
            f"{key}_{stat}{tail}",
            functools.partial(component_metric, key=key, stat=stat, official=official),
            higher_is_better=False,
            scale="percent" if stat == "mape" else "native",
            estimator=_component(key, stat, official),
        )
        for key in parsing.COMPONENTS
        for stat in ("mae", "rmse", "mape")
    ]
    out += [
        Metric(
            f"avg_{stat}{tail}",
            functools.partial(avg_metric, stat=stat, official=official),
            higher_is_better=False,
            scale="percent" if stat == "mape" else "native",
            estimator=stats.Custom(
                functools.partial(nutrition_rows, keys=parsing.COMPONENTS, stat=stat, official=official),
                functools.partial(nutrition_combine, stat=stat),
            ),
        )
        for stat in ("mae", "rmse", "mape")
    ]
    # In percent, as every rate of every benchmark (the official scorer prints a fraction: ours is x 100).
    out.append(
        Metric(
            f"parse_fail_rate{tail}",
            functools.partial(metrics.percent_of, functools.partial(nutrition_parse_fail_rate, official=official)),
            higher_is_better=False,
            scale="percent",
            estimator=stats.mean(functools.partial(nutrition_parse_fail, official=official), 100.0, binary=True),
        )
    )
    return out
