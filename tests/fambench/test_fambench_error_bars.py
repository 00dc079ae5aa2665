"""FAM-Bench error bars: each metric's per-document statistics (food_tasks.stats.uncertainty), hand-computed, and their
agreement with the reported values on documents built from the fixture mirror and scored.

The reported numbers come from the reducers (tests/fambench/test_fambench_scoring.py); the estimators give
their standard errors and must reproduce them exactly, or the error bar belongs to another number.
"""

from __future__ import annotations

import math
import pickle

import fambench_fixture as fx
import numpy as np
import pytest

from food_tasks.benchmarks.fambench import data as fb_data
from food_tasks.benchmarks.fambench import scoring as fb_scoring
from food_tasks.data import remote
from food_tasks.stats import uncertainty as stats
from food_tasks.utils.fambench import MODES, TABLES

REC, NREC = "recommend", "not_recommend"


def _rank(qid, ranking, gold, official=None, missing=False, letter=False, mode="baseline", gold_ranking="ABCD"):  # type: ignore[no-untyped-def]
    official = official if official is not None else (ranking or [])
    return {
        "question_id": qid,
        "kind": "rank",
        "mode": mode,
        "image_missing": missing,
        "ranking": ranking,
        "ranking_official": official,
        "parsed_official": bool(official) or letter,
        "gold_letter": gold,
        "gold_ranking": list(gold_ranking),
    }


def _dec(qid, decisions, gold_labels=None, official="same", missing=False, mode="baseline"):  # type: ignore[no-untyped-def]
    decisions = dict(zip("ABCD", decisions)) if decisions else dict.fromkeys("ABCD")
    official = decisions if official == "same" else official
    return {
        "question_id": qid,
        "kind": "decision",
        "mode": mode,
        "image_missing": missing,
        "decisions": decisions,
        "decisions_official": official,
        "parsed_official": bool(official),
        "gold_labels": gold_labels or {"A": REC, "B": NREC, "C": NREC, "D": NREC},
    }


# The rank records of test_fambench_scoring.test_task2_rank_metrics_denominators.
RANK = [
    _rank("Q1", list("ABDC"), "A"),
    _rank("Q2", None, "C", official=list("BADC"), gold_ranking="CADB"),
    _rank("Q3", list("BADC"), "B", gold_ranking="BDAC"),
    _rank("Q4", list("ABCD"), "D", missing=True, gold_ranking="DCBA"),
    _rank("Q5", None, "A", official=[]),
    _rank("Q6", list("CBAD"), "A"),
    _rank("Q7", None, "A", official=[], letter=True),
]


def _values(fn, records):  # type: ignore[no-untyped-def]
    return [fn(r) for r in records]


def test_rank_statistics_per_document():
    assert _values(fb_scoring.topk_hit, RANK) == [1, 0, 1, None, 0, 0, 0]
    assert _values(lambda r: fb_scoring.topk_hit(r, k=3), RANK) == [1, 0, 1, None, 0, 1, 0]
    assert _values(lambda r: fb_scoring.topk_hit(r, official=True), RANK) == [
        1,
        0,
        1,
        None,
        0,
        0,
        0,
    ]  # Q2 official: B first
    assert _values(fb_scoring.rr_value, RANK) == pytest.approx([1, 0, 1, None, 0, 1 / 3, 0])
    assert _values(lambda r: fb_scoring.rr_value(r, parsed_only=True), RANK) == pytest.approx(
        [1, None, 1, None, None, 1 / 3, None]
    )
    # official: rows it marks parsed (Q5 is not), 1/rank rounded to 6 places; Q2's official ranking puts C 4th
    assert _values(fb_scoring.rr_official, RANK) == [1.0, 0.25, 1.0, None, None, 0.333333, 0.0]
    assert _values(fb_scoring.kendall_value, RANK) == pytest.approx([4 / 6, None, 4 / 6, None, None, 0.0, None])
    assert _values(fb_scoring.valid_value, RANK) == [1, 0, 1, None, 0, 1, 0]
    assert _values(fb_scoring.answered_official, RANK) == [1, 1, 1, None, 0, 1, 1]
    assert fb_scoring.topk_hit(RANK[0], mode="cot") is None and fb_scoring.topk_hit(_dec("Q1", None)) is None


# The decision records of test_fambench_scoring.test_task2_decision_metrics.
GOLD = {"A": REC, "B": NREC, "C": NREC, "D": NREC}
DECISION = [
    _dec("Q1", [REC, NREC, NREC, NREC]),  # 4 of 4 labelled options right
    _dec("Q2", [REC, REC, None, NREC], official=None),  # robust: A, D right, B falsely recommended; official: nothing
    _dec("Q3", [NREC, REC, REC, NREC], gold_labels={**GOLD, "D": ""}),  # 3 labelled, none right, B and C false
]


def test_option_statistics_per_document():
    assert _values(fb_scoring.option_hits, DECISION) == [4, 2, 0]
    assert _values(lambda r: fb_scoring.option_hits(r, official=True), DECISION) == [4, 0, 0]
    assert _values(lambda r: fb_scoring.option_hits(r, what="false_recommend"), DECISION) == [0, 1, 2]
    assert _values(fb_scoring.option_count, DECISION) == [4, 4, 3]
    assert _values(fb_scoring.exact_match_value, DECISION) == [1, 0, 0]
    assert _values(lambda r: fb_scoring.valid_value(r, kind="decision"), DECISION) == [1, 0, 1]
    assert (
        fb_scoring.option_hits(RANK[0]) is None
        and fb_scoring.option_hits({**DECISION[0], "image_missing": True}) is None
    )


def test_option_accuracy_is_a_ratio_over_options_with_a_clustered_error():
    estimator = TABLES["decision"]["option_decision_acc"].estimator
    assert isinstance(estimator, stats.Ratio)
    np.testing.assert_array_equal(estimator.rows(DECISION), [[4, 4], [2, 4], [0, 3]])
    # r = 6/11; per question: num - r * den = 20/11, -2/11, -18/11; CR1: sqrt(3/2 * sum of squares) / 11 options
    est = stats.estimate(estimator, DECISION, ["Q1", "Q2", "Q3"])
    assert est.se == pytest.approx(100 * math.sqrt(1.5 * 728 / 121) / 11) and (est.n, est.clusters) == (3, 3)
    assert estimator.score(DECISION[0]) is None  # a ratio over options has no per-document score (--repeats)


def _t1(tp, fp, fn, focal, missing=False, official=(0, 0, 0)):  # type: ignore[no-untyped-def]
    return {
        "tp": tp,
        "fp": fp,
        "fn": fn,
        "focal": focal,
        "image_missing": missing,
        **dict(zip(("tp_official", "fp_official", "fn_official"), official)),
    }


# test_fambench_scoring.test_micro_and_macro_by_condition_hand_computed, plus an excluded row
T1 = [
    _t1(1, 1, 1, ["type 2 diabetes"], official=(1, 0, 1)),
    _t1(2, 1, 0, ["type 2 diabetes", "hypertension"]),
    _t1(0, 0, 2, ["hypertension"]),
    _t1(0, 0, 0, ["ibs"]),
    _t1(5, 0, 0, ["ibs"], missing=True),
]


def test_task1_rationale_rows_and_combines():
    rows = fb_scoring.t1_prf_rows(T1)
    np.testing.assert_array_equal(rows, [[1, 1, 1, 1], [2, 1, 0, 1], [0, 0, 2, 1], [0, 0, 0, 1], [0, 0, 0, 0]])
    assert [float(fb_scoring.prf_combine(rows.sum(0), which)) for which in (0, 1, 2)] == pytest.approx(
        [0.6, 0.5, 6 / 11]
    )
    assert float(fb_scoring.prf_combine(fb_scoring.t1_prf_rows(T1, official=True).sum(0))) == pytest.approx(2 / 3)
    cells = fb_scoring.t1_condition_rows(T1).reshape(5, 13, 4)
    names = list(fb_data.CONDITIONS)
    diabetes, hypertension, ibs = names.index("type 2 diabetes"), names.index("hypertension"), names.index("ibs")
    np.testing.assert_array_equal(
        cells[:, diabetes], [[1, 1, 1, 1], [2, 1, 0, 1], [0, 0, 0, 0], [0, 0, 0, 0], [0, 0, 0, 0]]
    )
    np.testing.assert_array_equal(cells[:, hypertension].sum(0), [2, 1, 2, 2])
    np.testing.assert_array_equal(
        cells[:, ibs].sum(0), [0, 0, 0, 1]
    )  # present with F1 0; the excluded row adds nothing
    sums = cells.reshape(5, -1).sum(0)
    assert float(fb_scoring.condition_macro_combine(sums)) == pytest.approx((2 / 3 + 4 / 7) / 3)
    # vectorised over resamples: one value per row of sums
    both = fb_scoring.condition_macro_combine(np.stack([sums, np.zeros_like(sums)]))
    assert both.tolist() == pytest.approx([(2 / 3 + 4 / 7) / 3, 0.0])


# test_fambench_scoring.test_ctc_intersection_pool_over_modes
CTC = [
    _rank("Q1", list("ABCD"), "A"),
    _dec("Q1", [REC, NREC, REC, NREC]),  # 3 of 4 pairs agree
    _rank("Q1", list("DCBA"), "A", mode="cot"),
    _dec("Q1", [REC, REC, NREC, NREC], mode="cot"),  # 0 of 4
    _rank("Q2", list("ABCD"), "A"),
    _dec("Q2", [REC, NREC, NREC, NREC]),  # 3 of 3, baseline only
    _rank("Q2", None, "A", mode="cot"),
    _dec("Q2", [REC, NREC, NREC, NREC], mode="cot"),
    _rank("Q3", list("ABCD"), "A", missing=True),
    _dec("Q3", [REC, NREC, NREC, NREC], missing=True),
]


def test_ctc_rows_put_each_question_on_its_rank_document():
    rows = fb_scoring.ctc_rows(CTC, ("baseline", "cot"), "cot")
    expected = np.zeros((len(CTC), 3))
    expected[0] = (0, 4, 1)  # the pool of both modes is Q1 alone; its cot pairs sit on its baseline rank document
    np.testing.assert_array_equal(rows, expected)
    expected[0] = (3, 4, 1)
    np.testing.assert_array_equal(fb_scoring.ctc_rows(CTC, ("baseline", "cot"), "baseline"), expected)
    baseline = [r for r in CTC if r["mode"] == "baseline"]
    rows = fb_scoring.ctc_rows(baseline)  # one mode: Q1 and Q2 are in the pool
    np.testing.assert_array_equal(rows, [[3, 4, 1], [0, 0, 0], [3, 3, 1], [0, 0, 0], [0, 0, 0], [0, 0, 0]])
    estimator = TABLES["ctc"]["ctc"].estimator
    assert (
        float(estimator.combine(estimator.rows(baseline).sum(0)))
        == pytest.approx(6 / 7)
        == fb_scoring.ctc_value(baseline)
    )
    est = stats.estimate(estimator, baseline, [r["question_id"] for r in baseline], iters=200)
    assert (est.n, est.clusters, est.method) == (2, 2, "bootstrap") and est.se > 0
    assert fb_scoring.ctc_rows([]).shape == (0, 3)


def test_dish_identity():
    row = {"title": "  Fried   Rice ", "image_url": "https://x/1.jpg", "index": 3}
    assert (
        fb_data.dish_identity(row)
        == fb_data.dish_identity({**row, "title": "fried rice", "index": 9})
        == "title:fried rice"
    )
    assert fb_data.dish_identity({**row, "title": ""}) == "url:https://x/1.jpg"
    assert fb_data.dish_identity({**row, "title": " ", "image_url": ""}) == "row:3"


# --------------------------------------------------------------------------- scored fixture documents


@pytest.fixture()
def fam_env(tmp_path, monkeypatch):  # type: ignore[no-untyped-def]
    monkeypatch.setenv("FOOD_TASKS_DATA_DIR", str(tmp_path / "mirror"))
    monkeypatch.setenv("FOOD_TASKS_CACHE_DIR", str(tmp_path / "cache"))
    remote.default_image_store.cache_clear()
    # the fixture's Task 1 rows, and the fried rice dish asked about again for another condition
    again = fx.t1_row(
        "Fried Rice",
        "Is this dish suitable for someone managing obesity?",
        "not recommend",
        [{"condition": "obesity", "ingredients": ["white rice", "oil"]}],
        image=fx.IMG.format("fried-rice"),
    )
    fx.build(tmp_path / "mirror", task1=[*fx.TASK1, again])
    yield
    remote.default_image_store.cache_clear()


T1_OUT = [
    (
        '{"decision": "recommend", "rationale_ingredients": '
        '[{"condition": "type 2 diabetes", "ingredients": ["Bulgur-Wheat", "olive oil"]}]}'
    ),
    (
        '{"decision": "not recommend", "rationale_ingredients": '
        '[{"condition": "chronic kidney disease", "ingredients": ["cheese"]}]}'
    ),
    "Decision: Not Recommended. The dish is high in sodium.",
    '{"decision": "Recommend.", "rationale_ingredients": []}',
    (
        '{"decision": "not recommend", "rationale_ingredients": '
        '[{"condition": "type 2 diabetes", "ingredients": ["white rice"]}, '
        '{"condition": "hypertension", "ingredients": ["soy sauce", "oil"]}]}'
    ),
    "",
    '{"decision": "recommend", "rationale_ingredients": [{"condition": "obesity", "ingredients": ["oil"]}]}',
]
RANKINGS = [
    f'{{"ranking": {list(r)}, "best_option": "{r[0]}"}}'.replace("'", '"')
    for r in ("ABDC", "CABD", "BADC", "DCBA", "ACBD")
]
DECISIONS = [  # per question; CRMCQ_0004's images are missing
    (
        '{"option_decisions": {"A": {"decision": "recommend"}, "B": {"decision": "recommend"}, '
        '"C": {"decision": "not recommend"}, "D": {"decision": "not_recommend"}}}'
    ),
    (
        '{"option_decisions": {"A": {"decision": "recommend"}, "B": {"decision": "not_recommend"}, '
        '"C": {"decision": "recommend"}, "D": {"decision": "not_recommend"}}}'
    ),
    (
        '{"option_decisions": {"A": {"decision": "not_recommend"}, "B": {"decision": "recommend"}, '
        '"C": {"decision": "recommend"}, "D": {"decision": "avoid"}}}'
    ),
    "",
    (
        '{"option_decisions": {"A": {"decision": "recommend"}, "B": {"decision": "recommend"}, '
        '"C": {"decision": "recommend"}, "D": {"decision": "recommend"}}}'
    ),
]


def _task2_records():  # type: ignore[no-untyped-def]
    docs = fb_data.task2_docs(("rank", "decision"), MODES, "textimage")
    qids = sorted({d["question_id"] for d in docs})
    records = []
    for doc in docs:
        q = qids.index(doc["question_id"])
        shift = MODES.index(doc["mode"]) + 1  # each mode ranks differently; CRMCQ_0005 has no ranking in cot
        output = RANKINGS[(q + shift) % 5] if doc["kind"] == "rank" else DECISIONS[q]
        if doc["kind"] == "rank" and q == 4 and doc["mode"] == "cot":
            output = "I think A is best."
        records.append(fb_scoring.score_task2(doc, output))
    return records


def _check_table(table, records):  # type: ignore[no-untyped-def]
    clusters = [table.cluster_of(r) for r in records]
    checked = []
    for metric in table.values():
        if metric.estimator is None:
            continue
        reported = metric.reduce(records)
        value = float(metric.estimator.combine(metric.estimator.rows(records).sum(0)))
        tolerance = 0.0101 if "official" in metric.name and "parsers" not in metric.name else 1e-12
        if isinstance(reported, float) and math.isnan(reported):
            assert math.isnan(value), metric.name
            continue
        assert value == pytest.approx(reported, abs=tolerance), metric.name
        est = stats.estimate(metric.estimator, records, clusters, iters=200)
        assert est.se is not None and est.se >= 0 and est.n > 0, metric.name
        checked.append(metric.name)
    return checked


@pytest.mark.usefixtures("fam_env")
def test_task1_estimators_reproduce_every_value_and_cluster_by_dish():
    docs = fb_data.task1_docs("baseline", "textimage")
    records = [fb_scoring.score_task1(doc, out) for doc, out in zip(docs, T1_OUT)]
    table = TABLES["task1"]
    assert [table.cluster_of(r) for r in records][4] == table.cluster_of(records[6]) == "title:fried rice"
    assert len({table.cluster_of(r) for r in records}) == 6 and len({table.doc_key(r) for r in records}) == 7
    checked = _check_table(table, records)
    assert "rationale_macro_f1_by_condition" in checked and "decision_acc_official" in checked and len(checked) == 15
    est = stats.estimate(table["decision_acc"].estimator, records, [table.cluster_of(r) for r in records])
    assert (est.n, est.clusters, est.method) == (6, 5, "clustered")  # row 6's image is missing; fried rice twice
    assert pickle.loads(pickle.dumps(table))["rationale_micro_f1"].estimator is not None


@pytest.mark.usefixtures("fam_env")
@pytest.mark.parametrize("kind", ["rank", "decision", "ctc", "ctc_all"])
def test_task2_estimators_reproduce_every_value(kind):
    records = _task2_records()
    if kind in ("rank", "decision"):
        records = [r for r in records if r["kind"] == kind and r["mode"] == "baseline"]
    elif kind == "ctc":
        records = [r for r in records if r["mode"] == "cot"]
    table = TABLES[kind]
    checked = _check_table(table, records)
    expected = {"rank": 11, "decision": 9, "ctc": 6, "ctc_all": 17}[kind]  # truncated_rate included
    assert len(checked) == expected, checked
    assert {table.doc_key(r) for r in records} == {(r["question_id"], r["kind"], r["mode"]) for r in records}
    assert {table.cluster_of(r) for r in records} == {r["question_id"] for r in records}


@pytest.mark.usefixtures("fam_env")
def test_ctc_all_values_are_resampled_by_question():
    records = _task2_records()
    table = TABLES["ctc_all"]
    for mode in MODES:
        value = table[f"ctc_{mode}"].reduce(records)
        assert 0 < value < 1  # the outputs above give every mode disagreeing pairs
        est = stats.estimate(table[f"ctc_{mode}"].estimator, records, [table.cluster_of(r) for r in records], iters=200)
        assert est.n == est.clusters == table["ctc_pool"].reduce(records)
