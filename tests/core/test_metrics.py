"""food_tasks.stats.metrics: every public reducer on small fixtures with hand-computed values.

The arithmetic is written next to each expected value. Fixtures are chosen so that the alternatives a
reader might confuse give different numbers: micro vs macro averages, rounding cells before or after
the mean, Python's ``round`` vs numpy's, per-row vs pooled F1.
"""

from __future__ import annotations

import numpy as np
import pytest

from food_tasks.stats import metrics as M


def rows(by: str, **groups: tuple[int, int]) -> list[dict]:
    """``{group: (correct, total)}`` -> records ``{by: group, "correct": bool}``, correct ones first."""
    return [{by: g, "correct": i < c} for g, (c, n) in groups.items() for i in range(n)]


# en 2/3, fr 0/1, de 4/4: 6 of 8 documents correct, but the languages average 55.6.
LANGS = rows("lang", en=(2, 3), fr=(0, 1), de=(4, 4))


# --------------------------------------------------------------------------- grouping and means


def test_group_records_puts_groups_in_canonical_order_and_keeps_record_order():
    records = [{"g": "b", "i": 0}, {"g": "a", "i": 1}, {"g": "b", "i": 2}]
    groups = M.group_records(records, "g")
    assert list(groups) == ["a", "b"]  # not first-seen: a macro average sums its groups in one order
    assert [r["i"] for r in groups["b"]] == [0, 2] and [r["i"] for r in groups["a"]] == [1]
    assert list(M.group_records(records[::-1], "g")) == ["a", "b"]
    mixed = [{"g": g} for g in ("x", 2, None, (1, "a"), 1.5)]  # labels of mixed types still have one order
    assert list(M.group_records(mixed, "g")) == [None, 1.5, 2, "x", (1, "a")]
    assert M.group_records([], "g") == {}


def test_macro_average_does_not_depend_on_record_order():
    # 50 + 50 + 200/7 is 128.57142857142858 summed in this order, 128.57142857142856 with 200/7 first.
    records = [
        {"g": g, "ok": ok} for g, oks in (("a", [1, 0]), ("b", [1, 0]), ("c", [1, 1, 0, 0, 0, 0, 0])) for ok in oks
    ]
    assert 50 + 50 + 200 / 7 != 200 / 7 + 50 + 50
    values = {M.macro_percent(records[i:] + records[:i], "ok", "g")[0] for i in range(len(records))}
    assert values == {(50 + 50 + 200 / 7) / 3}


def test_mean():
    assert M.mean([1, 2, 3, 4]) == 2.5  # 10 / 4
    assert M.mean([]) == 0.0
    # Plain left-to-right sum, like the reference scorers (not math.fsum): 0.1 + 0.2 = 0.30000000000000004.
    assert M.mean([0.1, 0.2, 0.3]) == (0.1 + 0.2 + 0.3) / 3 == 0.20000000000000004


def test_percent_true_is_a_micro_average_of_truthiness():
    assert M.percent_true(LANGS, "correct") == 75.0  # 6 / 8 * 100
    truthy = [{"v": 1}, {"v": "x"}, {"v": True}, {"v": 0}, {"v": ""}, {"v": None}, {"v": False}, {"v": []}]
    assert M.percent_true(truthy, "v") == 37.5  # 3 / 8 * 100
    assert M.percent_true([], "v") == 0.0


def test_macro_percent_differs_from_micro():
    macro, cells = M.macro_percent(LANGS, "correct", "lang")
    assert cells == {"en": pytest.approx(200 / 3), "fr": 0.0, "de": 100.0}  # 2/3, 0/1, 4/4
    assert macro == pytest.approx(500 / 9)  # (66.667 + 0 + 100) / 3 = 55.556, while micro is 75.0
    assert M.macro_percent([], "correct", "lang") == (0.0, {})


# --------------------------------------------------------------------------- reference rounding


@pytest.mark.parametrize(
    "value,python,numpy_",
    [
        # 17.575 is stored as 17.57499999999999929: Python rounds the stored value down; numpy scales
        # first, 17.575 * 100 = 1757.5 exactly, and rounds that tie to even (1758).
        (17.575, 17.57, 17.58),
        (2.675, 2.67, 2.68),  # stored 2.67499999999999982, scaled 267.5 -> 268
        (0.005, 0.01, 0.0),  # stored 0.00500000000000000010 (up), scaled 0.5 -> 0 (even)
        (0.125, 0.12, 0.12),  # exact binary tie: both go to the even 12
        (-17.575, -17.57, -17.58),
    ],
)
def test_round_numpy_vs_round_on_ties(value, python, numpy_):
    assert round(value, 2) == python
    assert M.round_numpy(value) == numpy_ == float(np.round(value, 2))


def test_round_numpy_other_digits():
    assert M.round_numpy(2.5, 0) == 2.0 and M.round_numpy(3.5, 0) == 4.0  # half to even
    assert M.round_numpy(1234.5678, 1) == 1234.6


def test_macro_percent_official_rounds_cells_then_the_mean():
    # 1/6, 1/8, 1/7 correct: cells 16.667 -> 16.67, 12.5, 14.286 -> 14.29.
    records = rows("g", a=(1, 6), b=(1, 8), c=(1, 7))
    official, cells = M.macro_percent_official(records, "correct", "g")
    assert cells == {"a": 16.67, "b": 12.5, "c": 14.29}
    assert official == 14.49  # (16.67 + 12.5 + 14.29) / 3 = 43.46 / 3 = 14.4867 -> 14.49
    unrounded, _ = M.macro_percent(records, "correct", "g")
    assert round(unrounded, 2) == 14.48  # (16.6667 + 12.5 + 14.2857) / 3 = 14.4841: rounding order matters
    assert M.macro_percent_official([], "correct", "g") == (0.0, {})


def test_macro_percent_official_with_numpy_rounding():
    records = rows("g", a=(703, 4000))  # 70300 / 4000 = 17.575 (stored just below)
    assert M.macro_percent_official(records, "correct", "g") == (17.57, {"a": 17.57})
    assert M.macro_percent_official(records, "correct", "g", rounding=M.round_numpy) == (17.58, {"a": 17.58})


def test_macro_mean_with_and_without_rounding():
    records = [{"g": "a", "x": 1}, {"g": "a", "x": 2}, {"g": "b", "x": 4}]
    assert M.macro_mean(records, "x", "g") == (2.75, {"a": 1.5, "b": 4.0})  # (1.5 + 4.0) / 2
    # rounding=0: cells round(1.5) = 2 (half to even), 4; mean (2 + 4) / 2 = 3.0 instead of 2.75.
    assert M.macro_mean(records, "x", "g", rounding=0) == (3.0, {"a": 2.0, "b": 4.0})
    assert M.macro_mean([], "x", "g", rounding=2) == (0.0, {})
    assert M.macro_mean([], "x", "g") == (0.0, {})


def test_per_group_table_sorted_by_name_with_sizes():
    table = M.per_group_table(LANGS, "lang", {"acc": lambda rs: M.percent_true(rs, "correct")})
    assert list(table) == ["de", "en", "fr"]  # sorted, not first-seen (en, fr, de)
    assert table == {
        "de": {"n": 4, "acc": 100.0},
        "en": {"n": 3, "acc": pytest.approx(200 / 3)},
        "fr": {"n": 1, "acc": 0.0},
    }
    by_number = M.per_group_table([{"k": 2}, {"k": 10}], "k", {})
    assert list(by_number) == ["10", "2"] and by_number["2"] == {"n": 1}  # keys are str, sorted as str
    assert M.per_group_table([], "lang", {"acc": len}) == {}


# --------------------------------------------------------------------------- group aggregations


def test_group_mean_weighted_and_unweighted():
    assert M.group_mean([50.0, 100.0], [1, 3]) == 75.0  # (50 + 100) / 2
    assert M.group_mean([50.0, 100.0], [1, 3], weight_by_size=True) == 87.5  # (50*1 + 100*3) / 4 = 350 / 4
    assert M.group_mean([], []) == 0.0
    assert M.group_mean([], [], weight_by_size=True) == 0.0


def test_group_max():
    assert M.group_max([29.03, 33.75, 26.05], [403, 403, 403]) == 33.75
    assert M.group_max([10.0, 90.0], [1000, 1], weight_by_size=True) == 90.0  # sizes never matter
    assert M.group_max([-0.5, -0.25], [1, 1]) == -0.25  # e.g. Kendall tau
    assert M.group_max([], []) == 0.0


def test_group_mean_official_and_numpy_rounding():
    assert M.group_mean_official([10.0, 20.0, 20.0], [1, 1, 1]) == 16.67  # 50 / 3 = 16.667
    assert M.group_mean_official([17.575], [1]) == 17.57  # Python round on the stored 17.57499...
    assert M.group_mean_official_numpy([17.575], [1]) == 17.58  # numpy: 1757.5 -> 1758
    assert M.group_mean_official([50.0, 100.0], [1, 3], weight_by_size=True) == 87.5
    assert M.group_mean_official([], []) == 0.0 and M.group_mean_official_numpy([], []) == 0.0


# --------------------------------------------------------------------------- precision, recall, F1


def test_safe_div():
    assert M.safe_div(3, 4) == 0.75
    assert M.safe_div(1, 0) == 0.0 and M.safe_div(0, 0) == 0.0


def test_set_prf():
    out = M.set_prf({"a", "b", "c"}, {"b", "c", "d", "e"})
    # tp = |{b, c}| = 2, fp = |{a}| = 1, fn = |{d, e}| = 2; P = 2/3, R = 2/4, F1 = 2PR/(P+R) = (2/3)/(7/6) = 4/7
    assert {k: out[k] for k in ("tp", "fp", "fn")} == {"tp": 2, "fp": 1, "fn": 2}
    assert (out["precision"], out["recall"]) == (pytest.approx(2 / 3), 0.5)
    assert out["f1"] == pytest.approx(4 / 7)
    assert M.set_prf({"a"}, {"a"}) == {"tp": 1, "fp": 0, "fn": 0, "precision": 1.0, "recall": 1.0, "f1": 1.0}


@pytest.mark.parametrize(
    "predicted,gold,counts",
    [
        (set(), set(), (0, 0, 0)),  # nothing to find and nothing found: F1 = 0, not 1 (reference convention)
        (set(), {"a"}, (0, 0, 1)),  # P = 0/0 -> 0, R = 0/1
        ({"a"}, set(), (0, 1, 0)),  # P = 0/1, R = 0/0 -> 0
        ({"a"}, {"b"}, (0, 1, 1)),
    ],
)
def test_set_prf_with_empty_or_disjoint_sets_scores_zero(predicted, gold, counts):
    out = M.set_prf(predicted, gold)
    assert (out["tp"], out["fp"], out["fn"]) == counts
    assert out["precision"] == out["recall"] == out["f1"] == 0.0


def test_micro_prf_pools_counts_and_differs_from_the_mean_of_row_f1():
    per_row = [
        M.set_prf({"a", "b", "c"}, {"b", "c", "d", "e"}),  # tp 2, fp 1, fn 2, F1 4/7
        M.set_prf(set(), {"x"}),  # tp 0, fp 0, fn 1, F1 0
        M.set_prf({"y"}, {"y"}),
    ]  # tp 1, fp 0, fn 0, F1 1
    precision, recall, f1 = M.micro_prf(per_row)
    # pooled tp 3, fp 1, fn 3: P = 3/4, R = 3/6, F1 = 2 * 0.75 * 0.5 / 1.25 = 0.6
    assert (precision, recall) == (0.75, 0.5) and f1 == pytest.approx(0.6)
    assert M.mean([r["f1"] for r in per_row]) == pytest.approx((4 / 7 + 0 + 1) / 3)  # 0.524: macro over rows
    assert M.micro_prf([]) == (0.0, 0.0, 0.0)
    assert M.micro_prf(iter([{"tp": 0, "fp": 2, "fn": 0}])) == (0.0, 0.0, 0.0)  # any iterable


# --------------------------------------------------------------------------- rankings


@pytest.mark.parametrize(
    "ranking,gold,expected",
    [
        (["B", "A", "D", "C"], "B", 1.0),
        (["B", "A", "D", "C"], "D", 1 / 3),  # third place
        (("B", "A", "D", "C"), "C", 0.25),  # any sequence
        (["B", "A", "D"], "C", 0.0),  # gold absent
        ([], "A", 0.0),
        (None, "A", 0.0),  # unparsed ranking
    ],
)
def test_reciprocal_rank(ranking, gold, expected):
    assert M.reciprocal_rank(ranking, gold) == pytest.approx(expected)


@pytest.mark.parametrize(
    "predicted,gold,expected",
    [
        (list("ABCD"), list("ABCD"), 1.0),  # 6 concordant pairs of 6
        (list("DCBA"), list("ABCD"), -1.0),  # 6 discordant
        (list("BADC"), list("ABCD"), 1 / 3),  # (A,B) and (C,D) discordant: (4 - 2) / 6
        (list("BA"), list("AB"), -1.0),  # n = 2: one pair
        (list("AABC"), list("ABCD"), 0.0),  # tie in the prediction (and D missing)
        (list("AAB"), list("ABA"), 0.0),  # same length and same item set, but repeated items: no ordering
        (list("ABCE"), list("ABCD"), 0.0),  # mismatched items
        (list("ABC"), list("ABCD"), 0.0),  # different lengths
        (["A"], ["A"], 0.0),  # fewer than two items: no pair
        ([], [], 0.0),
    ],
)
def test_kendall_tau(predicted, gold, expected):
    assert M.kendall_tau(predicted, gold) == pytest.approx(expected)
