"""Agreement between judges (food_tasks.stats.agreement): hand-computed values, Cohen's kappa against scikit-learn,
Fleiss' kappa against the published example, undefined figures as NaN, records some judge could not judge left out
and counted, and clustered intervals through food_tasks.stats.uncertainty."""

from __future__ import annotations

import math

import numpy as np
import pytest
from sklearn.metrics import cohen_kappa_score

from food_tasks.stats import agreement as A
from food_tasks.stats import uncertainty as U

Y, N, X, F, Q = A.CORRECT, A.WRONG, A.UNREADABLE, A.FAILED, A.NOT_ASKED


def _value(rows, combine):  # type: ignore[no-untyped-def]
    return A.value(rows, combine)


def test_two_judges_agreement_kappa_majority_by_hand():
    # 6 records judged by both, 1 unreadable for judge 2, 1 failed for judge 1, 1 not asked.
    codes = np.array([[Y, Y], [Y, N], [N, N], [N, N], [Y, Y], [N, Y], [Y, X], [F, Y], [Q, Q]])
    # agreement on the 6 complete records: 4 of 6
    assert _value(A.agreement_rows(codes), A.RATE(100.0)) == pytest.approx(100 * 4 / 6)
    assert A.left_out(codes) == 2
    # Cohen: yy=2, yn=1, ny=1, nn=2 -> po = 4/6, pe = 0.5*0.5 + 0.5*0.5 = 0.5, kappa = (2/3 - 1/2) / (1/2) = 1/3
    assert _value(A.kappa_rows(codes), A.kappa_combine()) == pytest.approx(1 / 3)
    # majority of two: 2 ties (Y,N), (N,Y); of the 4 others 2 say correct; the record not asked about (Q, Q) is
    # wrong, as in judge_acc: 2 of 5
    assert A.ties(codes) == 2
    assert _value(A.majority_rows(codes), A.RATE(100.0)) == pytest.approx(40.0)
    assert A.not_asked(codes) == 1


def test_cohen_matches_scikit_learn():
    rng = np.random.default_rng(3)
    a = rng.integers(0, 2, 200)
    b = np.where(rng.random(200) < 0.7, a, 1 - a)
    got = _value(A.kappa_rows(np.stack([a, b], axis=1)), A.kappa_combine())
    assert got == pytest.approx(cohen_kappa_score(a, b), abs=1e-12)


def test_fleiss_published_example():
    """Fleiss' kappa of the worked example in Fleiss (1971) as reproduced on Wikipedia ("Fleiss' kappa": 10 subjects,
    14 raters, 5 categories; kappa = 0.210). By hand: sum of n_ij**2 = 828, P-bar = (828 - 140) / (10 * 14 * 13) =
    172/455; category totals 20, 28, 39, 21, 32, P-e = 4170 / 140**2 = 417/1960; kappa = 4211/20059."""
    counts = np.array(
        [
            [0, 0, 0, 0, 14],
            [0, 2, 6, 4, 2],
            [0, 0, 3, 5, 6],
            [0, 3, 9, 2, 0],
            [2, 2, 8, 1, 1],
            [7, 7, 0, 0, 0],
            [3, 2, 6, 3, 0],
            [2, 5, 3, 2, 2],
            [6, 5, 2, 1, 0],
            [0, 2, 2, 3, 7],
        ]
    )
    got = _value(A.fleiss_rows(counts), A.Fleiss(14))
    assert got == pytest.approx(4211 / 20059, abs=1e-12)
    assert round(got, 3) == 0.210


def test_three_judges_fleiss_and_majority_by_hand():
    codes = np.array([[Y, Y, Y], [Y, Y, N], [N, N, N], [N, Y, N], [F, Y, Y]])
    # 4 complete records; yes counts 3, 2, 0, 1 -> squares 9, 5, 9, 5 = 28; P-bar = (28 - 12) / (4 * 3 * 2) = 2/3;
    # p_yes = 6/12 = 0.5 -> P-e = 0.5; kappa = (2/3 - 1/2) / (1/2) = 1/3
    assert _value(A.kappa_rows(codes), A.kappa_combine()) == pytest.approx(1 / 3)
    assert _value(A.agreement_rows(codes), A.RATE(100.0)) == pytest.approx(50.0)
    assert _value(A.majority_rows(codes), A.RATE(100.0)) == pytest.approx(50.0)  # Y, Y, N, N
    assert A.ties(codes) == 0 and A.left_out(codes) == 1


def test_kappa_undefined_when_expected_agreement_is_one():
    all_yes = np.array([[Y, Y], [Y, Y], [Y, Y]])
    assert math.isnan(_value(A.kappa_rows(all_yes), A.kappa_combine()))
    assert math.isnan(_value(A.kappa_rows(np.array([[Y, Y, Y]] * 3)), A.kappa_combine()))
    assert math.isnan(_value(A.kappa_rows(np.array([[F, Y]])), A.kappa_combine()))  # nothing complete
    assert _value(A.agreement_rows(all_yes), A.RATE(100.0)) == 100.0


def test_flip_rate_by_hand_and_undefined_with_one_repeat():
    repeats = np.array([[Y, Y, Y], [Y, N, Y], [N, N, N], [N, F, N], [X, X, X]])
    # readable in every repeat: records 0, 1, 2; flips: record 1
    assert _value(A.flip_rows(repeats), A.RATE(100.0)) == pytest.approx(100 / 3)
    assert math.isnan(_value(A.flip_rows(repeats[:, :1]), A.RATE(100.0)))


def test_accuracy_rows_follow_the_headline_rule():
    rows = A.accuracy_rows(np.array([Y, N, X, F, Q, Y]))
    assert rows.tolist() == [[1, 1], [0, 1], [0, 1], [0, 0], [0, 1], [1, 1]]


def test_figures_get_clustered_intervals_and_ignore_record_order():
    rng = np.random.default_rng(7)
    codes = rng.integers(0, 2, size=(60, 2))
    clusters = [i // 3 for i in range(60)]
    kappa = U.Custom(A.kappa_rows, A.kappa_combine())
    agree = U.Custom(A.agreement_rows, A.RATE(100.0))
    records = list(codes)
    first = U.estimate_many([kappa, agree], records, clusters, iters=200)
    order = rng.permutation(60)
    second = U.estimate_many([kappa, agree], [records[i] for i in order], [clusters[i] for i in order], iters=200)
    assert first == second
    assert first[0].method == "bootstrap" and first[0].clusters == 20 and first[0].se > 0
    assert first[1].se is not None and first[1].clusters == 20


def test_kappa_combine_reads_the_number_of_judges_from_the_rows():
    # One combine object, a 2-judge table then a 3-judge one (any order): Cohen 1/3, then Fleiss 1/3 (by hand above);
    # the 3-judge rows carry the judges' number, so a 2-judge combine cannot read them as a 2 x 2 table.
    kappa = A.kappa_combine()
    two = np.array([[Y, Y], [Y, N], [N, N], [N, N], [Y, Y], [N, Y]])
    three = np.array([[Y, Y, Y], [Y, Y, N], [N, N, N], [N, Y, N]])
    assert _value(A.kappa_rows(two), kappa) == pytest.approx(1 / 3)
    assert _value(A.kappa_rows(three), kappa) == pytest.approx(1 / 3)
    assert _value(A.kappa_rows(two), kappa) == pytest.approx(1 / 3)
    # four judges: yes counts 4, 2, 0 -> squares 16, 8, 16 = 40; P-bar = (40 - 12) / (3 * 4 * 3) = 7/9; p_yes = 1/2,
    # P-e = 1/2; kappa = (7/9 - 1/2) / (1/2) = 5/9
    four = np.array([[Y, Y, Y, Y], [Y, N, Y, N], [N, N, N, N]])
    assert _value(A.kappa_rows(four), kappa) == pytest.approx(5 / 9)


def test_a_judge_whose_every_call_failed_has_no_accuracy():
    # one empty answer (Q) and every call failed: no verdict at all, the accuracy is undefined (not 0 of 1)
    assert A.accuracy_rows(np.array([F, F, Q, F])).tolist() == [[0, 0]] * 4
    assert not A.gave_verdict(np.array([F, F, Q, F]))
    assert A.gave_verdict(np.array([Q, Q])) and A.accuracy_rows(np.array([Q, Q])).tolist() == [[0, 1], [0, 1]]
    assert A.gave_verdict(np.array([F, X]))  # an unreadable reply is an answer (wrong)
