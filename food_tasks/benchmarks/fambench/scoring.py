"""FAM-Bench scoring: per-document records, metric reducers and aggregation.

Official formulas: ``code/task1/run_task1.py::main`` with ``run_q2.py::_score_rationale`` (Task 1) and
``code/task2/evaluate.py`` ``_build_result_row`` / ``_summarize_rows`` / ``_score_decision_rationale``
(Task 2) at anonymous-research-artifact123/Food-as-medicine@abfaf02. The paper-definition variants
(per-condition macro-F1, MRR over all questions, cross-task consistency, which the code does not
implement) are explained in ``yaml_tasks/fambench/README.md``.

Per-document records hold both parsers' readings (robust and official); the reducers below turn a task's
records into the paper's numbers (``*_official``: the v1.0 scorer's numbers, rounding included).
"""

from __future__ import annotations

import json
import math
from collections.abc import Iterable, Iterator, Mapping, Sequence
from typing import Any

import numpy as np

from food_tasks.benchmarks.fambench import parsing
from food_tasks.benchmarks.fambench.data import CONDITIONS, images_missing
from food_tasks.benchmarks.fambench.parsing import LETTERS, pair_set
from food_tasks.stats import metrics
from food_tasks.stats.metrics import micro_prf, set_prf

Records = Sequence[Mapping[str, Any]]  # per-document records of score_task1 / score_task2

# --------------------------------------------------------------------------- metrics


def rationale_counts(pred: Sequence[Mapping], gold: Sequence[Mapping]) -> dict[str, float]:
    """Per-instance tp/fp/fn and the official per-instance P/R/F1 over (condition, ingredient) pairs."""
    return set_prf(pair_set(pred), pair_set(gold))


def macro_f1_by_condition(
    rows: Iterable[Mapping[str, Any]], conditions: Sequence[str]
) -> tuple[float, dict[str, float]]:
    """The paper's macro-F1: micro F1 within each focal condition, averaged with equal weight over the
    conditions that have instances (an instance with several focal conditions counts in each)."""
    rows = list(rows)
    per: dict[str, float] = {}
    for condition in conditions:
        group = [r for r in rows if condition in r["focal"]]
        if group:
            per[condition] = micro_prf(group)[2]
    return (sum(per.values()) / len(per) if per else 0.0), per


def consistency_pairs(ranking: Sequence[str], decisions: Mapping[str, str]) -> tuple[int, int]:
    """(agreeing, discriminating) pairs: options decided ``recommend`` vs ``not_recommend`` by the model,
    and how many of those its own ranking places recommend-above-not-recommend."""
    position = {x: i for i, x in enumerate(ranking)}
    rec = [x for x in LETTERS if decisions.get(x) == "recommend"]
    nrec = [x for x in LETTERS if decisions.get(x) == "not_recommend"]
    agree = sum(position[x] < position[y] for x in rec for y in nrec)
    return agree, len(rec) * len(nrec)


def ctc(pairs: Iterable[tuple[int, int]]) -> float:
    """Micro-averaged cross-task consistency: sum agreeing / sum discriminating pairs (NaN with no pairs)."""
    pairs = list(pairs)
    total = sum(p for _, p in pairs)
    return sum(a for a, _ in pairs) / total if total else math.nan


# --------------------------------------------------------------------------- per-document records


def score_task1(doc: Mapping[str, Any], output: str) -> dict[str, Any]:
    """The record of one Task 1 answer: decision and rationale counts, robust and official parses."""
    gold = json.loads(doc["gold_rationale"])
    robust, official = parsing.parse_task1(output), parsing.parse_task1_official(output)
    counts, counts_off = rationale_counts(robust["rationale"], gold), rationale_counts(official["rationale"], gold)
    return {
        "index": doc["index"],
        "dish": doc["dish"],
        "image_missing": images_missing(doc),
        "decision": robust["decision"],
        "correct": robust["decision"] == doc["gold_decision"],
        "correct_official": bool(official["decision"]) and official["decision"] == doc["gold_decision_official"],
        "json": robust["json"],
        "strict_json": official["strict_json"],
        "empty_rationale": not robust["rationale"],
        "empty_rationale_official": not official["rationale"],
        "focal": list(doc["focal"]),
        **counts,
        **{f"{k}_official": v for k, v in counts_off.items()},
    }


def score_task2(doc: Mapping[str, Any], output: str) -> dict[str, Any]:
    """The record of one Task 2 answer: the ranking (rank) or per-option decisions (decision), robust and official."""
    record = {
        "question_id": doc["question_id"],
        "kind": doc["kind"],
        "mode": doc["mode"],
        "image_missing": images_missing(doc),
        "gold_letter": doc["gold_letter"],
        "gold_ranking": list(doc["gold_ranking"]),
        "condition": doc["condition_prompt"],
    }
    official = parsing.official_task2(output, doc["kind"])
    # Officially a row is "parsed" (answer_rate_pct; rank: also valid_rankings and the MRR denominator)
    # with a full ranking / four decisions, or else any answer letter; a failed request never is.
    record["parsed_official"] = official["answered"]
    record["request_error_official"] = official["request_error"]
    if doc["kind"] == "rank":
        record["ranking"] = parsing.parse_ranking(output)
        record["ranking_official"] = official["ranking"]
    else:
        record["decisions"] = parsing.parse_decisions(output)
        record["decisions_official"] = official["decisions"]
        record["gold_labels"] = json.loads(doc["gold_labels"])
    return record


# --------------------------------------------------------------------------- aggregation


def evaluated(records: Iterable[Mapping[str, Any]], kind: str | None = None) -> list[Mapping[str, Any]]:
    """Records that count: images available (and of ``kind`` when given)."""
    return [r for r in records if not r["image_missing"] and (kind is None or r.get("kind", kind) == kind)]


def image_missing(records: Sequence[Mapping[str, Any]]) -> int:
    """Documents excluded because an image could not be fetched (Task 2 CTC: per question)."""
    if records and "kind" in records[0]:
        return len({r["question_id"] for r in records if r["image_missing"]})
    return sum(bool(r["image_missing"]) for r in records)


def pct(num: float, den: float) -> float:
    """``num / den`` in percent; 0 when ``den`` is 0."""
    return (num / den) * 100.0 if den else 0.0


def pct_official(num: float, den: float) -> float:
    """The official Task 2 percentage: ``round((num / den) * 100.0, 2)`` (operation order matters at ties)."""
    return round((num / den) * 100.0, 2) if den > 0 else 0.0


def t1_acc(records: Records, official: bool = False) -> float:
    """Task 1 decision accuracy in percent over evaluated records (robust or official parse)."""
    rows = evaluated(records)
    return pct(sum(r["correct_official" if official else "correct"] for r in rows), len(rows))


def t1_rate(records: Records, field: str) -> float:
    """Share of evaluated records whose ``field`` is truthy (0-1)."""
    rows = evaluated(records)
    return metrics.safe_div(sum(bool(r[field]) for r in rows), len(rows))


def t1_invalid_rate(records: Records) -> float:
    """Share of evaluated records with no readable decision (0-1)."""
    rows = evaluated(records)
    return metrics.safe_div(sum(r["decision"] is None for r in rows), len(rows))


def _counts(records: Records, official: bool) -> list[dict]:
    suffix = "_official" if official else ""
    return [
        {k: r[k + suffix] for k in ("tp", "fp", "fn", "precision", "recall", "f1")} | {"focal": r["focal"]}
        for r in evaluated(records)
    ]


def t1_macro(records: Records, field: str = "f1", official: bool = False) -> float:
    """Official 'macro' rationale score: the mean of per-instance values over evaluated instances."""
    rows = _counts(records, official)
    return metrics.safe_div(sum(r[field] for r in rows), len(rows))


def t1_micro(records: Records, which: int = 2, official: bool = False) -> float:
    """Micro rationale precision, recall or F1 (``which`` 0, 1, 2) over the pooled counts."""
    return metrics.micro_prf(_counts(records, official))[which]


def t1_macro_by_condition(records: Records, official: bool = False) -> float:
    """The paper's macro-F1: micro rationale F1 within each focal condition, averaged over the conditions."""
    return macro_f1_by_condition(_counts(records, official), list(CONDITIONS))[0]


def t1_per_condition(records: Records) -> dict[str, dict[str, float]]:
    """Per focal condition (and ``unmapped``): n, decision accuracy (%) and rationale micro F1."""
    rows = evaluated(records)
    table = {}
    for condition in list(CONDITIONS) + ["unmapped"]:
        group = [r for r in rows if condition in r["focal"] or (condition == "unmapped" and not r["focal"])]
        if group:
            table[condition] = {
                "n": len(group),
                "decision_acc": pct(sum(r["correct"] for r in group), len(group)),
                "rationale_micro_f1": metrics.micro_prf(group)[2],
            }
    return table


def _rank_rows(records: Records, mode: str | None = None) -> list[Mapping[str, Any]]:
    return [r for r in evaluated(records, "rank") if mode is None or r["mode"] == mode]


def t2_topk(records: Records, k: int = 1, official: bool = False, mode: str | None = None) -> float:
    """Top-``k`` accuracy of the rankings in percent (official: rounded to 2 places), optionally of one mode."""
    rows = _rank_rows(records, mode)
    key = "ranking_official" if official else "ranking"
    hits = sum(bool(r[key]) and r["gold_letter"] in r[key][:k] for r in rows)
    return pct_official(hits, len(rows)) if official else pct(hits, len(rows))


def t2_mrr(records: Records, parsed_only: bool = False, mode: str | None = None) -> float:
    """Paper MRR over all questions (no valid ranking = 0), or the official parsed-only denominator."""
    rows = _rank_rows(records, mode)
    if parsed_only:
        rows = [r for r in rows if r["ranking"]]
    return metrics.safe_div(sum(metrics.reciprocal_rank(r["ranking"], r["gold_letter"]) for r in rows), len(rows))


def t2_mrr_official(records: Records) -> float:
    """Official: per-row 1/rank rounded to 6 places, summed over ``parsed`` rows, / #parsed rows, rounded to 6.

    Officially a row is ``parsed`` with a valid ranking *or* any answer letter (then its 1/rank is 0)."""
    rows = [r for r in _rank_rows(records) if r["parsed_official"]]
    total = sum(round(metrics.reciprocal_rank(r["ranking_official"], r["gold_letter"]), 6) for r in rows)
    return round(total / len(rows), 6) if rows else 0.0


def t2_kendall(records: Records) -> float:
    """Mean Kendall tau between parsed rankings and the full gold ranking, over rows that have both."""
    rows = [r for r in _rank_rows(records) if r["ranking"] and len(r["gold_ranking"]) == 4]
    return metrics.safe_div(sum(metrics.kendall_tau(r["ranking"], r["gold_ranking"]) for r in rows), len(rows))


def t2_valid_rate(records: Records, kind: str = "rank") -> float:
    """Share of rows with a valid permutation (rank) / four valid option decisions (decision)."""
    rows = evaluated(records, kind)
    if kind == "rank":
        ok = [bool(r["ranking"]) for r in rows]
    else:
        ok = [all(v is not None for v in r["decisions"].values()) for r in rows]
    return metrics.safe_div(sum(ok), len(rows))


def t2_answer_rate_official(records: Records, kind: str = "rank") -> float:
    """The official ``accuracy.answer_rate_pct``: ``parsed`` rows (a ranking / four decisions, or any
    answer letter) in percent of evaluated rows, rounded to 2 places as officially."""
    rows = evaluated(records, kind)
    return pct_official(sum(bool(r["parsed_official"]) for r in rows), len(rows))


def t2_per_condition(records: Records) -> dict[str, dict[str, float]]:
    """Per condition prompt: n and top-1 accuracy (%) of the ranking rows."""
    rows = _rank_rows(records)
    table = {}
    for condition in sorted({r["condition"] for r in rows}):
        group = [r for r in rows if r["condition"] == condition]
        table[condition] = {"n": len(group), "top1_acc": t2_topk(group)}
    return table


def _option_rows(records: Records, official: bool) -> Iterator[tuple[Mapping[str, Any], list[tuple[Any, Any]]]]:
    """(predicted, gold) per option with a gold label; an unparsed official payload predicts nothing."""
    for r in evaluated(records, "decision"):
        decisions = (r["decisions_official"] or {}) if official else r["decisions"]
        yield r, [(decisions.get(x), r["gold_labels"][x]) for x in LETTERS if r["gold_labels"].get(x)]


def t2_option_acc(records: Records, official: bool = False) -> float:
    """Per-option decision accuracy in percent over options with a gold label."""
    pairs = [p for _, options in _option_rows(records, official) for p in options]
    return (pct_official if official else pct)(sum(pred == gold for pred, gold in pairs), len(pairs))


def t2_exact_match(records: Records, official: bool = False) -> float:
    """Share (%) of decision rows whose every labelled option is decided as gold."""
    rows = list(_option_rows(records, official))
    hits = sum(bool(options) and all(pred == gold for pred, gold in options) for _, options in rows)
    return (pct_official if official else pct)(hits, len(rows))


def t2_false_recommend(records: Records, official: bool = False) -> float:
    """Share (%) of labelled options recommended although gold says not to."""
    pairs = [p for _, options in _option_rows(records, official) for p in options]
    return (pct_official if official else pct)(
        sum(p == "recommend" and g == "not_recommend" for p, g in pairs), len(pairs)
    )


def ctc_table(
    records: Records, modes: Sequence[str], official: bool = False
) -> tuple[dict[str, float], int, dict[str, int]]:
    """CTC per mode over the pool of questions with a valid ranking and four valid decisions in *every*
    mode of ``modes`` (one mode: the paper's rule restricted to that mode). Returns (ctc by mode, pool
    size, discriminating pairs by mode)."""
    pool = ctc_questions(records, modes, official)
    values, pairs = {}, {}
    for i, mode in enumerate(modes):
        counted = [per_mode[i] for _, per_mode in pool.values()]
        values[mode], pairs[mode] = ctc(counted), sum(p for _, p in counted)
    return values, len(pool), pairs


def ctc_questions(
    records: Records, modes: Sequence[str], official: bool = False
) -> dict[str, tuple[int, list[tuple[int, int]]]]:
    """The CTC pool (questions valid in every mode of ``modes``): question id -> (position in ``records`` of
    its rank document of the first mode, (agreeing, discriminating) pairs per mode)."""
    by_q: dict[str, dict[tuple[str, str], tuple[int, Mapping]]] = {}
    for position, r in enumerate(records):
        if not r["image_missing"]:
            by_q.setdefault(r["question_id"], {})[(r["mode"], r["kind"])] = (position, r)

    def valid(q: Mapping, mode: str) -> tuple[list[str], dict[str, str]] | None:
        rank, dec = q.get((mode, "rank")), q.get((mode, "decision"))
        if rank is None or dec is None:
            return None
        ranking = rank[1]["ranking_official"] if official else rank[1]["ranking"]
        decisions = dec[1]["decisions_official"] if official else dec[1]["decisions"]
        if not ranking or not decisions or any(decisions.get(x) is None for x in LETTERS):
            return None
        return ranking, decisions

    pool = {}
    for qid, q in by_q.items():
        readings = [valid(q, m) for m in modes]
        if all(x is not None for x in readings):
            carrier = q[(modes[0], "rank")][0] if modes else next(iter(q.values()))[0]
            pool[qid] = (carrier, [consistency_pairs(*x) for x in readings])  # type: ignore[misc]
    return pool


def _ctc_modes(records: Records, modes: Sequence[str] | None, mode: str | None) -> tuple[tuple[str, ...], str | None]:
    """``modes=None``: the modes present in the records (a single-mode CTC task); ``mode=None``: the first."""
    modes = tuple(modes) if modes else tuple(sorted({r["mode"] for r in records}))
    return modes, (mode or modes[0]) if modes else None


def ctc_value(
    records: Records,
    modes: Sequence[str] | None = None,
    mode: str | None = None,
    field: str = "ctc",
    official: bool = False,
) -> float:
    """One number of :func:`ctc_table`: ``ctc`` of ``mode``, the ``pool`` size or the ``pairs`` count.

    ``modes=None``: the modes present in the records (a single-mode CTC task)."""
    modes, mode = _ctc_modes(records, modes, mode)
    if not modes:  # no records at all (every document filtered out): nothing to measure
        return math.nan if field == "ctc" else 0
    values, pool, pairs = ctc_table(records, modes, official)
    return {"ctc": values[mode], "pool": pool, "pairs": pairs[mode]}[field]


# --------------------------------------------------------------------------- error bars
# One document's share of a metric, for food_tasks.stats.uncertainty (standard errors, paired comparisons): a value per
# document (None: outside the metric's denominator) for means, a row of sums for the other statistics. The
# reported numbers stay the reducers' above; tests check that these give the same values.


def _rank_doc(record: Mapping[str, Any], mode: str | None = None) -> bool:
    return (
        not record["image_missing"]
        and record.get("kind", "rank") == "rank"
        and (mode is None or record["mode"] == mode)
    )


def topk_hit(record: Mapping[str, Any], k: int = 1, official: bool = False, mode: str | None = None) -> float | None:
    """1 when the gold dish is ranked within the top ``k`` (:func:`t2_topk`), 0 when not, None off its denominator."""
    if not _rank_doc(record, mode):
        return None
    ranking = record["ranking_official" if official else "ranking"]
    return float(bool(ranking) and record["gold_letter"] in ranking[:k])


def rr_value(record: Mapping[str, Any], parsed_only: bool = False, mode: str | None = None) -> float | None:
    """The document's reciprocal rank in :func:`t2_mrr` (None off its denominator)."""
    if not _rank_doc(record, mode) or (parsed_only and not record["ranking"]):
        return None
    return metrics.reciprocal_rank(record["ranking"], record["gold_letter"])


def rr_official(record: Mapping[str, Any]) -> float | None:
    """The document's rounded reciprocal rank in :func:`t2_mrr_official` (rows the official code marks parsed)."""
    if not _rank_doc(record) or not record["parsed_official"]:
        return None
    return round(metrics.reciprocal_rank(record["ranking_official"], record["gold_letter"]), 6)


def kendall_value(record: Mapping[str, Any]) -> float | None:
    """The document's Kendall tau in :func:`t2_kendall` (robust-parsed rows with a full gold ranking)."""
    if not _rank_doc(record) or not record["ranking"] or len(record["gold_ranking"]) != 4:
        return None
    return metrics.kendall_tau(record["ranking"], record["gold_ranking"])


def valid_value(record: Mapping[str, Any], kind: str = "rank") -> float | None:
    """1 for a valid ranking / four valid decisions (:func:`t2_valid_rate`)."""
    if record["image_missing"] or record.get("kind", kind) != kind:
        return None
    if kind == "rank":
        return float(bool(record["ranking"]))
    return float(all(v is not None for v in record["decisions"].values()))


def answered_official(record: Mapping[str, Any], kind: str = "rank") -> float | None:
    """1 for a row the official code marks ``parsed`` (:func:`t2_answer_rate_official`)."""
    if record["image_missing"] or record.get("kind", kind) != kind:
        return None
    return float(bool(record["parsed_official"]))


def _options(record: Mapping[str, Any], official: bool) -> list[tuple[Any, str]] | None:
    """(predicted, gold) per labelled option of an evaluated decision document (as :func:`_option_rows`)."""
    if record["image_missing"] or record.get("kind", "decision") != "decision":
        return None
    decisions = (record["decisions_official"] or {}) if official else record["decisions"]
    return [(decisions.get(x), record["gold_labels"][x]) for x in LETTERS if record["gold_labels"].get(x)]


def option_hits(record: Mapping[str, Any], official: bool = False, what: str = "match") -> float | None:
    """Options of the document decided as labelled (``match``) or recommended against a not_recommend label
    (``false_recommend``): the numerator of :func:`t2_option_acc` / :func:`t2_false_recommend`."""
    options = _options(record, official)
    if options is None:
        return None
    if what == "match":
        return float(sum(pred == gold for pred, gold in options))
    return float(sum(pred == "recommend" and gold == "not_recommend" for pred, gold in options))


def option_count(record: Mapping[str, Any]) -> float:
    """Options of the document with a gold label: the denominator of the option-level rates."""
    return float(sum(bool(record["gold_labels"].get(x)) for x in LETTERS))


def exact_match_value(record: Mapping[str, Any], official: bool = False) -> float | None:
    """1 when every labelled option is decided as labelled (:func:`t2_exact_match`)."""
    options = _options(record, official)
    if options is None:
        return None
    return float(bool(options) and all(pred == gold for pred, gold in options))


def t1_prf_rows(records: Sequence[Mapping[str, Any]], official: bool = False) -> np.ndarray:
    """``(n, 4)``: tp, fp, fn and 1 per evaluated Task 1 document (zeros for the others)."""
    suffix = "_official" if official else ""
    out = np.zeros((len(records), 4))
    for i, r in enumerate(records):
        if not r["image_missing"]:
            out[i] = (r["tp" + suffix], r["fp" + suffix], r["fn" + suffix], 1.0)
    return out


def _safe_div(num: np.ndarray, den: np.ndarray) -> np.ndarray:
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(den > 0, num / np.where(den > 0, den, 1.0), 0.0)


def _prf(tp: np.ndarray, fp: np.ndarray, fn: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """:func:`food_tasks.stats.metrics.micro_prf`, vectorised (same operations, same floats)."""
    precision, recall = _safe_div(tp, tp + fp), _safe_div(tp, tp + fn)
    return precision, recall, _safe_div(2 * precision * recall, precision + recall)


def prf_combine(sums: np.ndarray, which: int = 2) -> np.ndarray:
    """Micro precision (0), recall (1) or F1 (2) from the column sums of :func:`t1_prf_rows`."""
    return _prf(sums[..., 0], sums[..., 1], sums[..., 2])[which]


def t1_condition_rows(records: Sequence[Mapping[str, Any]]) -> np.ndarray:
    """``(n, 13 * 4)``: for each paper condition (``CONDITIONS`` order), tp, fp, fn and 1 of an evaluated
    document with that focal condition (:func:`macro_f1_by_condition`; a document counts in each of its
    focal conditions)."""
    names = list(CONDITIONS)
    out = np.zeros((len(records), len(names), 4))
    for i, r in enumerate(records):
        if not r["image_missing"]:
            for j, name in enumerate(names):
                if name in r["focal"]:
                    out[i, j] = (r["tp"], r["fp"], r["fn"], 1.0)
    return out.reshape(len(records), -1)


def condition_macro_combine(sums: np.ndarray) -> np.ndarray:
    """:func:`macro_f1_by_condition` from the column sums of :func:`t1_condition_rows`: micro F1 per condition
    present, their unweighted mean (0 without any), summed in condition order as the reducer sums."""
    cells = sums.reshape(*sums.shape[:-1], -1, 4)
    f1 = _prf(cells[..., 0], cells[..., 1], cells[..., 2])[2]
    present = cells[..., 3] > 0
    total = np.zeros(sums.shape[:-1])
    for j in range(cells.shape[-2]):
        total = total + np.where(present[..., j], f1[..., j], 0.0)
    count = present.sum(axis=-1)
    return np.where(count > 0, total / np.maximum(count, 1), 0.0)


def ctc_rows(
    records: Sequence[Mapping[str, Any]],
    modes: Sequence[str] | None = None,
    mode: str | None = None,
    official: bool = False,
) -> np.ndarray:
    """``(n, 3)``: (agreeing pairs, discriminating pairs, 1) of ``mode`` for each question of the CTC pool,
    on the question's rank document (zeros on its other documents and outside the pool). CTC is the ratio
    of the first two column sums; with the question as cluster, a resample keeps or drops whole questions."""
    modes, mode = _ctc_modes(records, modes, mode)
    out = np.zeros((len(records), 3))
    if not modes:
        return out
    i = modes.index(mode)
    for position, per_mode in ctc_questions(records, modes, official).values():
        out[position] = (*per_mode[i], 1.0)
    return out
