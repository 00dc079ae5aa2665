"""Estimators of food_tasks.stats.uncertainty: hand-computed values, clustered vs naive, paired vs unpaired,
coverage."""

from __future__ import annotations

import dataclasses
import math
import pickle

import numpy as np
import pytest

from food_tasks.stats import uncertainty as stats

RECORDS = [  # 3 clusters (dishes) of 2 documents: answers agree within a dish
    {"id": 1, "dish": "a", "correct": True, "lang": "en"},
    {"id": 2, "dish": "a", "correct": True, "lang": "fr"},
    {"id": 3, "dish": "b", "correct": False, "lang": "en"},
    {"id": 4, "dish": "b", "correct": False, "lang": "fr"},
    {"id": 5, "dish": "c", "correct": True, "lang": "en"},
    {"id": 6, "dish": "c", "correct": True, "lang": "fr"},
]
ACC = stats.mean(stats.field("correct"), scale=100.0)


def test_mean_iid_is_the_clt_standard_error():
    # x = 1,1,0,0,1,1: mean 2/3, sample variance (4 * 1/9 + 2 * 4/9) / 5 = 12/45; SE = sqrt(12/45 / 6) = 0.2108
    est = stats.estimate(ACC, RECORDS, [r["id"] for r in RECORDS])
    assert est.se == pytest.approx(100 * math.sqrt(12 / 45 / 6)) and (est.n, est.clusters, est.method) == (6, 6, "iid")
    assert stats.iid_se(ACC, RECORDS) == pytest.approx(est.se)


def test_clustered_mean_is_wider_when_a_cluster_agrees():
    # cluster residual sums (x - 2/3): a 2/3, b -4/3, c 2/3; sum of squares 4/9 + 16/9 + 4/9 = 24/9;
    # CR1: sqrt(3/2 * 24/9) / 6 = sqrt(4) / 6 = 1/3
    est = stats.estimate(ACC, RECORDS, [r["dish"] for r in RECORDS])
    assert est.se == pytest.approx(100 / 3) and (est.n, est.clusters, est.method) == (6, 3, "clustered")
    assert est.se > stats.estimate(ACC, RECORDS, [r["id"] for r in RECORDS]).se


def test_documents_that_do_not_count_leave_the_denominator():
    records = RECORDS + [{"id": 7, "dish": "d", "correct": False, "image_missing": True}]
    est = stats.mean(stats.field("correct", unless="image_missing"), 100.0)
    assert stats.estimate(est, records, [r["id"] for r in records]).n == 6
    assert est.combine(est.rows(records).sum(0)) == pytest.approx(200 / 3)


def test_macro_over_languages_matches_the_reduction_and_bootstraps():
    records = RECORDS + [{"id": 7, "dish": "d", "correct": True, "lang": "de"}]
    macro = stats.Macro(stats.field("correct"), stats.column("lang"), 100.0)
    # en 2/3, fr 2/3, de 1/1 -> (66.67 + 66.67 + 100) / 3 = 77.78 (micro would be 5/7 = 71.43)
    assert float(macro.combine(macro.rows(records).sum(0))) == pytest.approx((200 / 3 + 200 / 3 + 100) / 3)
    est = stats.estimate(macro, records, [r["dish"] for r in records], iters=500)
    assert est.method == "bootstrap" and 0 < est.se < 60 and est.clusters == 4
    again = stats.estimate(macro, records, [r["dish"] for r in records], iters=500)
    assert again.se == est.se  # seeded: reproducible


def test_bootstrap_of_a_ratio_agrees_with_the_analytic_error():
    rng = np.random.default_rng(0)
    records = [{"c": int(c), "x": float(x)} for c, x in zip(rng.integers(0, 40, 400), rng.random(400) < 0.3)]
    clusters = [r["c"] for r in records]
    analytic = stats.estimate(stats.mean(stats.field("x")), records, clusters).se
    custom = stats.Custom(lambda rs: [[r["x"], 1.0] for r in rs], lambda s: s[..., 0] / s[..., 1])
    boot = stats.estimate(custom, records, clusters, iters=4000).se
    assert boot == pytest.approx(analytic, rel=0.1)


def test_bootstrap_off_and_too_few_clusters():
    custom = stats.Custom(lambda rs: [[float(r["correct"]), 1.0] for r in rs], lambda s: s[..., 0] / s[..., 1])
    assert stats.estimate(custom, RECORDS, [r["dish"] for r in RECORDS], iters=0) == stats.Estimate(None, 6, 3, "none")
    assert stats.estimate(ACC, RECORDS, ["one"] * 6).se is None


def test_paired_comparison_is_narrower_than_unpaired_when_runs_agree():
    # Model A is right on questions 0-59, model B on 0-49: the 50 shared successes cancel in the difference.
    a = [{"correct": i < 60} for i in range(100)]
    b = [{"correct": i < 50} for i in range(100)]
    ids = list(range(100))
    paired = stats.compare(ACC, a, b, ids)
    unpaired = math.hypot(stats.estimate(ACC, a, ids).se, stats.estimate(ACC, b, ids).se)
    # d = 1 on 10 questions, 0 elsewhere: mean 0.1, SE = sqrt(100/99 * sum((d - 0.1)^2)) / 100 = sqrt(100/99 * 9) / 100
    assert paired.diff == pytest.approx(10.0) and paired.se == pytest.approx(100 * math.sqrt(100 / 99 * 9) / 100)
    assert paired.se < unpaired / 2 and paired.verdict() == "A > B" and paired.p < 0.01
    assert paired.low == pytest.approx(10 - stats.Z95 * paired.se) and paired.mde == pytest.approx(
        (stats.Z95 + stats.Z80) * paired.se
    )
    same = stats.compare(ACC, a, a, ids)
    assert same.diff == 0 and same.verdict() == "no detectable difference"
    # the same difference on 29 clusters of a few documents each: too few independent units for a verdict
    few = stats.compare(ACC, a, b, [i % 29 for i in ids])
    assert few.clusters == 29 and few.verdict() == "too few units to tell"
    assert dataclasses.replace(paired, diff=math.nan).verdict() == "undefined"


def test_paired_bootstrap_for_statistics_that_are_not_ratios():
    macro = stats.Macro(stats.field("correct"), stats.column("lang"), 100.0)
    a = [{"correct": i % 3 != 0, "lang": "en" if i % 2 else "fr"} for i in range(200)]
    b = [{"correct": i % 3 != 0 and i % 7 != 0, "lang": r["lang"]} for i, r in enumerate(a)]
    out = stats.compare(macro, a, b, list(range(200)), iters=2000)
    # B loses exactly the documents with i % 7 == 0 and i % 3 != 0: every paired difference is >= 0
    assert out.method == "paired bootstrap" and out.diff > 0 and out.low > 0 and out.verdict(a="A", b="B") == "A > B"
    unpaired = math.hypot(
        stats.estimate(macro, a, list(range(200)), iters=2000).se,
        stats.estimate(macro, b, list(range(200)), iters=2000).se,
    )
    assert out.se < unpaired / 2


def test_mde_and_interval():
    assert stats.mde(1.0, paired=True) == pytest.approx(2.8016, abs=1e-4)
    assert stats.mde(1.0) == pytest.approx(2.8016 * math.sqrt(2), abs=1e-4) and stats.mde(None) is None
    assert stats.interval(50.0, 2.0) == pytest.approx((50 - 3.91993, 50 + 3.91993))


def test_estimators_pickle():
    for est in (ACC, stats.Macro(stats.field("c"), stats.column("lang")), stats.mean(stats.field("x", test="none"))):
        back = pickle.loads(pickle.dumps(est))
        assert np.allclose(back.rows(RECORDS), est.rows(RECORDS))


def _coverage(draw, estimator, truth, sims: int = 1000, iters: int = 0) -> float:
    rng = np.random.default_rng(12345)
    hits = 0
    for _ in range(sims):
        records, clusters = draw(rng)
        est = stats.estimate(estimator, records, clusters, iters=iters, seed=int(rng.integers(2**31)))
        value = float(estimator.combine(estimator.rows(records).sum(0)))
        hits += abs(value - truth) <= stats.Z95 * est.se
    return hits / sims


@pytest.mark.slow  # simulation: seconds
def test_95_percent_intervals_cover_the_truth_for_a_mean():
    def draw(rng):
        x = rng.random(300) < 0.3
        return [{"x": bool(v)} for v in x], list(range(300))

    assert 0.93 <= _coverage(draw, stats.mean(stats.field("x")), 0.3) <= 0.97


def test_95_percent_intervals_cover_the_truth_for_a_clustered_mean():
    # 60 clusters of 5 documents sharing a cluster effect: the iid error would under-cover badly.
    def draw(rng):
        p = np.clip(0.3 + 0.25 * rng.standard_normal(60), 0, 1)
        x = rng.random((60, 5)) < p[:, None]
        return [{"x": bool(v)} for v in x.ravel()], list(np.repeat(np.arange(60), 5))

    assert 0.93 <= _coverage(draw, stats.mean(stats.field("x")), _clustered_truth()) <= 0.97


def _clustered_truth() -> float:
    rng = np.random.default_rng(7)
    return float(np.clip(0.3 + 0.25 * rng.standard_normal(2_000_000), 0, 1).mean())


@pytest.mark.slow  # simulation: seconds
def test_95_percent_intervals_cover_the_truth_for_a_bootstrap_statistic():
    # A macro mean over two groups of unequal size (0.2 and 0.6): truth 0.4.
    macro = stats.Macro(stats.field("x"), stats.column("g"))

    def draw(rng):
        g = rng.random(400) < 0.25
        x = np.where(g, rng.random(400) < 0.6, rng.random(400) < 0.2)
        return [{"x": bool(v), "g": bool(k)} for v, k in zip(x, g)], list(range(400))

    assert 0.93 <= _coverage(draw, macro, 0.4, sims=1000, iters=200) <= 0.97


def test_wilson_interval_at_the_bounds_and_by_hand():
    z = stats.Z95
    # 0 of n and n of n: [0, z^2 / (n + z^2)] and its mirror, never 0 wide
    assert stats.wilson(0, 3) == (0.0, pytest.approx(z * z / (3 + z * z)))
    assert stats.wilson(3, 3) == (pytest.approx(3 / (3 + z * z)), 1.0)
    # 50 of 100 by hand: centre 0.5, half z sqrt(0.25 / 100 + z^2 / 40000) / (1 + z^2 / 100) = 0.0962
    half = z * math.sqrt(0.0025 + z * z / 40000) / (1 + z * z / 100)
    assert stats.wilson(50, 100) == (pytest.approx(0.5 - half), pytest.approx(0.5 + half))
    assert stats.wilson(50, 100) == (pytest.approx(0.40383, abs=1e-5), pytest.approx(0.59617, abs=1e-5))
    # 1 of 10 (scipy binomtest(1, 10).proportion_ci("wilson")): 0.01787, 0.40415
    assert stats.wilson(1, 10) == (pytest.approx(0.017876, abs=1e-5), pytest.approx(0.404150, abs=1e-5))
    assert stats.wilson(1, 0) is None and stats.wilson(1, float("nan")) is None and stats.wilson(None, 3) is None


def _paired_runs(rng: np.random.Generator, delta: float, clusters: int = 60, per: int = 5):  # type: ignore[no-untyped-def]
    """Two models' scores on the same documents, clustered (dish effects shared by both models and dish effects on
    their difference) and correlated within a document; B's expected score is A's plus ``delta``."""
    shared = np.repeat(rng.normal(0, 1.0, clusters), per) + rng.normal(0, 1.0, clusters * per)  # both models see it
    gap = np.repeat(rng.normal(0, 0.6, clusters), per)  # a model is better on some dishes: the difference is clustered
    a = shared + rng.normal(0, 0.8, clusters * per)
    b = shared + delta + gap + rng.normal(0, 0.8, clusters * per)
    ids = [(c, k) for c in range(clusters) for k in range(per)]
    return (
        [{"id": i, "score": float(x)} for i, x in zip(ids, a)],
        [{"id": i, "score": float(x)} for i, x in zip(ids, b)],
        [c for c, _ in ids],
    )


@pytest.mark.slow  # simulation: seconds
def test_paired_smallest_detectable_difference_has_80_percent_power_in_simulation():
    # The report's paired figure is Comparison.mde = 2.80 x the clustered SE of A - B. Take the figure the runs report
    # (mean over 300 runs without a difference), make it the true difference of 2,000 more runs: the paired test at
    # 5% must reject in 80% of them (a power of 0.80; the share's own simulation SD is 0.009).
    rng = np.random.default_rng(20261125)
    estimator = stats.mean(stats.field("score"), scale=100.0)
    figures = []
    for _ in range(300):
        a, b, clusters = _paired_runs(rng, 0.0)
        figures.append(stats.compare(estimator, b, a, clusters).mde / 100.0)
    figure = float(np.mean(figures))
    rejected = 0
    for _ in range(2000):
        a, b, clusters = _paired_runs(rng, figure)
        found = stats.compare(estimator, b, a, clusters)
        assert found.method == "clustered paired"
        rejected += found.p < 0.05
    assert abs(rejected / 2000 - 0.80) <= 0.04, rejected / 2000
    # the single-run figure (2.80 x sqrt(2) x one run's SE) is far larger here: it ignores that the errors pair up
    a, b, clusters = _paired_runs(rng, 0.0)
    single = stats.mde(stats.estimate(estimator, a, clusters).se, paired=False)
    assert single is not None and single / 100.0 > 1.2 * figure


def test_each_estimate_carries_its_clt_figure_and_says_how_it_was_computed():
    # the clustered mean above: SE 100/3 over 3 dishes; the same formula with every document its own cluster is the
    # CLT error 100 * sqrt(12/45 / 6) (test_mean_iid_is_the_clt_standard_error)
    clustered = stats.estimate(ACC, RECORDS, [r["dish"] for r in RECORDS])
    assert clustered.clustered and clustered.clt == pytest.approx(100 * math.sqrt(12 / 45 / 6))
    assert stats.describe(clustered, "dishes") == "clustered analytic (CR1), 3 dishes"
    iid = stats.estimate(ACC, RECORDS, [r["id"] for r in RECORDS])
    assert not iid.clustered and iid.clt == iid.se and stats.describe(iid) == "independent documents (CLT)"
    # a statistic that needs the bootstrap: its CLT figure is the same bootstrap over documents. For a mean of n
    # independent documents that is the plug-in SD / sqrt(n) = CLT * sqrt((n - 1) / n), up to resampling noise.
    rng = np.random.default_rng(3)
    records = [{"c": int(c), "x": float(x)} for c, x in zip(rng.integers(0, 40, 400), rng.random(400) < 0.3)]
    custom = stats.Custom(lambda rs: [[r["x"], 1.0] for r in rs], stats.ratio_combine(100.0))
    boot = stats.estimate(custom, records, [r["c"] for r in records], iters=4000)
    clt = stats.iid_se(stats.mean(stats.field("x"), 100.0), records)
    assert boot.clustered and boot.clt == pytest.approx(clt * math.sqrt(399 / 400), rel=0.05)
    assert stats.describe(boot, "dishes") == "cluster bootstrap, 4000 resamples, 40 dishes"
    alone = stats.estimate(custom, records, list(range(400)), iters=300)
    assert alone.clt == alone.se and stats.describe(alone) == "bootstrap over independent documents, 300 resamples"
    off = stats.estimate(custom, records, [r["c"] for r in records], iters=0)
    assert stats.describe(off) == "not estimated: bootstrap turned off (0 resamples)"
    assert (
        stats.describe(stats.estimate(ACC, RECORDS, ["one"] * 6)) == "not estimated: fewer than 2 independent units (1)"
    )


# --------------------------------------------------------------------------- fast paths give the same bits


def test_bootstrap_weights_count_each_resamples_draws():
    """Row i holds how often each unit was drawn among the C draws of resample i (the generator's own stream)."""
    for n_units, iters, seed in ((1, 3, 0), (7, 5, 1), (500, 40, 2)):
        draws = np.random.default_rng(seed).integers(0, n_units, size=(iters, n_units))
        expected = np.array([[np.sum(row == u) for u in range(n_units)] for row in draws], dtype=float)
        weights = stats.bootstrap_weights(n_units, iters, seed)
        assert weights.dtype == float and np.array_equal(weights, expected)


def test_exact_says_when_a_sum_cannot_depend_on_the_order_of_its_terms():
    assert stats.exact(np.array([[0.0, 1.0], [3.0, -2.0]]), 10)
    assert stats.exact(np.zeros((3, 0)), 5)
    assert not stats.exact(np.array([[0.5, 1.0]]), 10)
    assert not stats.exact(np.array([[math.nan, 1.0]]), 10)
    assert not stats.exact(np.array([[math.inf, 1.0]]), 10)
    assert not stats.exact(np.array([[2.0**40, 1.0]]), 2**10)  # 2**40 * (2**10)**2 reaches 2**53


def test_sparse_product_of_whole_numbers_equals_the_dense_product_bit_for_bit(monkeypatch):
    """A macro mean's rows (one value and one count per document, mostly zeros) go through scipy.sparse: the
    product, and the macro value of each resample, equal the dense ones exactly; other matrices stay dense."""
    rng = np.random.default_rng(3)
    n, groups = 3000, 30
    records = [{"x": float(rng.random() < 0.6), "lang": f"l{rng.integers(groups)}"} for _ in range(n)]
    macro = stats.Macro(stats.field("x"), stats.column("lang"), 100.0)
    rows = macro.rows(records)
    weights = stats.bootstrap_weights(n, 50, 4)
    from scipy import sparse

    built = []
    monkeypatch.setattr(sparse, "csr_matrix", lambda m, _csr=sparse.csr_matrix: built.append(m.shape) or _csr(m))
    product = stats._product(rows, n)
    assert built == [(2 * groups, n)]  # the sparse path
    assert np.array_equal(product(weights), weights @ rows)
    assert product(weights).flags.c_contiguous
    assert np.array_equal(macro.combine(product(weights)), macro.combine(weights @ rows))
    fractional = rows * 0.3
    assert np.array_equal(stats._product(fractional, n)(weights), weights @ fractional)
    assert len(built) == 1  # not whole numbers: the dense product, as before
