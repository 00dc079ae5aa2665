"""Food-500 Cap error bars: each estimator reproduces its reported value; hand-computed statistics and errors.

Without Java the ``*_pytok`` metrics run (pure-Python tokens, the toolkit's own BLEU, ROUGE-L and CIDEr-D
scorers), so the estimators of BLEU, ROUGE-L and CIDEr-D are checked against the toolkit on every machine;
the toolkit-tokenised metrics and METEOR where Java runs.
"""

from __future__ import annotations

import math
import pickle
import shutil

import numpy as np
import pytest

from food_tasks.benchmarks.food500cap import scoring as fc_scoring
from food_tasks.hooks import cocoeval
from food_tasks.stats import uncertainty as stats
from food_tasks.utils import food500cap as hooks

TABLE = hooks.TABLES["caption"]
needs_java = pytest.mark.skipif(
    shutil.which("java") is None or cocoeval.java_problem() is not None, reason="needs Java"
)
CAPTIONS = [  # (reference, hypothesis)
    (
        "Freshly cleaned abalones with shells placed on the crushed ice on a white plate.",
        "Two abalones on crushed ice on a white plate.",
    ),
    ("A bowl of pho with sliced beef, rice noodles and fresh herbs.", "A bowl of beef noodle soup with herbs."),
    ("Golden fried spring rolls cut in half next to a dipping sauce.", "Fried spring rolls with a sauce."),
    ("A stack of pancakes topped with blueberries and maple syrup.", "Pancakes with berries."),
    ("Grilled salmon fillet with lemon slices on a bed of rice.", ""),
    ("Steamed dumplings in a bamboo basket.", "Steamed dumplings in a bamboo steamer basket with soy sauce."),
]


def record(i: int, ref: str, pred: str, missing: bool = False, sla: bool = True) -> dict:
    return {
        "key": f"Dish/Dish_{i:04d}.jpg",
        "cat": "Dish",
        "region": "",
        "ref": ref,
        "pred": pred,
        "parse_fail": False,
        "image_missing": missing,
        "image_path": "",
        "words": len(pred.split()),
        **{f"sla_{f}": sla for f in fc_scoring.SLA_FIELDS},
    }


RECORDS = [record(i, ref, pred) for i, (ref, pred) in enumerate(CAPTIONS)]
# An image that could not be decoded, with a caption that would move every metric: counted nowhere.
MISSING = record(99, "A plate of rice.", "A plate of rice.", missing=True, sla=False)


@pytest.fixture()
def no_java(monkeypatch):
    monkeypatch.setattr(cocoeval, "java_problem", lambda: "no java in this test")
    fc_scoring._coco.cache_clear()  # the toolkit's results are cached per set of records, not per Java
    yield
    fc_scoring._coco.cache_clear()


def value(name: str, records: list) -> float:
    est = TABLE[name].estimator
    return float(est.combine(est.rows(records).sum(0)))


def test_bleu_statistics_by_hand():
    # one reference: unigrams a plate of rice (4), bigrams "a plate" "plate of" (2), "a plate of" (1), no
    # 4-gram; n-grams 5, 4, 3, 2; lengths 5 and 4
    assert cocoeval.bleu_statistics(["a plate of rice"], "a plate of fried rice") == [4, 2, 1, 0, 5, 4, 3, 2, 5, 4]
    # a second reference adds "fried", "of fried", "fried rice", "plate of fried", "of fried rice", "plate of fried
    # rice"; the closest reference length is still 4 (7 is farther from 5)
    stats_ = cocoeval.bleu_statistics(["a plate of rice", "a white plate of fried rice now"], "a plate of fried rice")
    assert stats_ == [5, 4, 3, 1, 5, 4, 3, 2, 5, 4]
    assert cocoeval.bleu_statistics(["a b", "a b c d"], "a b c")[-1] == 2  # a tie: the shorter reference
    assert cocoeval.bleu_statistics(["x y"], "a a a")[:4] == [0, 0, 0, 0]


def test_corpus_bleu_from_statistics_is_the_toolkits():
    from pycocoevalcap.bleu.bleu import Bleu

    gts = {i: [cocoeval.py_tokenize(ref)] for i, (ref, _) in enumerate(CAPTIONS)}
    res = {i: [cocoeval.py_tokenize(pred)] for i, (_, pred) in enumerate(CAPTIONS)}
    want, _ = Bleu(4).compute_score(gts, res, verbose=0)
    sums = np.array([cocoeval.bleu_statistics(gts[i], res[i][0]) for i in gts], dtype=float).sum(0)
    assert [float(cocoeval.bleu_from_statistics(sums, n)) for n in range(1, 5)] == pytest.approx(want, rel=1e-12, abs=0)
    # vectorised over resamples: each row of weights gives that subset's corpus BLEU
    rows = np.array([cocoeval.bleu_statistics(gts[i], res[i][0]) for i in gts], dtype=float)
    weights = np.array([[1, 1, 0, 0, 0, 0], [0, 2, 1, 0, 0, 1]], dtype=float)
    subset = {i: gts[i] for i in (0, 1)}, {i: res[i] for i in (0, 1)}
    assert float(cocoeval.bleu_from_statistics(weights @ rows, 4)[0]) == pytest.approx(
        Bleu(4).compute_score(*subset, verbose=0)[0][3], rel=1e-12
    )


def test_estimators_reproduce_the_reported_values_without_java(no_java):
    records = RECORDS + [MISSING]
    checked = []
    for metric in TABLE.values():
        if metric.estimator is None:
            continue
        reported = metric.reduce(records)
        got = value(metric.name, records)
        if isinstance(reported, str):  # toolkit-tokenised metrics and METEOR need Java; CLIPScore a model
            assert math.isnan(got), metric.name
            continue
        assert got == pytest.approx(reported, rel=1e-12, abs=1e-12), metric.name
        checked.append(metric.name)
    assert {
        "bleu4_pytok",
        "rouge_l_pytok",
        "cider_pytok",
        "sla_accurate",
        "empty_rate",
        "mean_caption_words",
        "reference_mean_words",
        "parse_fail_rate",
    } <= set(checked)


@needs_java
@pytest.mark.slow  # a JVM
def test_estimators_reproduce_the_toolkit_metrics_with_java():
    fc_scoring._coco.cache_clear()
    records = RECORDS + [MISSING]
    for name in ("bleu1", "bleu2", "bleu3", "bleu4", "meteor", "rouge_l", "cider"):
        reported = TABLE[name].reduce(records)
        assert isinstance(reported, float) and value(name, records) == pytest.approx(reported, rel=1e-12), name


def test_image_missing_rows_count_in_no_estimator(no_java):
    with_missing = RECORDS + [MISSING]
    for metric in TABLE.values():
        if metric.estimator is None:
            continue
        rows = metric.estimator.rows(with_missing)
        assert not rows[-1].any() and not metric.estimator.counted(rows)[-1], metric.name
        a, b = value(metric.name, with_missing), value(metric.name, RECORDS)
        assert (math.isnan(a) and math.isnan(b)) or a == pytest.approx(b, rel=1e-12), metric.name


def test_a_zero_one_mean_has_the_hand_computed_error():
    # SLA (accurate) 1, 0, 1, 1 on four images, the fifth missing: 75 %; residuals 0.25, -0.75, 0.25, 0.25;
    # SE = 100 * sqrt(4/3 * 0.75) / 4 = 25 (= 100 * sd / sqrt(4), sd with ddof 1 = 0.5)
    records = [record(i, "r", "p", sla=s) for i, s in enumerate((True, False, True, True))] + [MISSING]
    metric = TABLE["sla_accurate"]
    assert metric.reduce(records) == 75.0 and value("sla_accurate", records) == 75.0
    est = stats.estimate(metric.estimator, records, [TABLE.cluster_of(r) for r in records])
    assert est.se == pytest.approx(25.0, rel=1e-12) and (est.n, est.clusters, est.method) == (4, 4, "iid")
    assert (
        metric.estimator.binary
        and metric.estimator.score(records[1]) == 0.0
        and metric.estimator.score(MISSING) is None
    )


def test_meteor_is_a_ratio_estimator_scaled_to_the_corpus_score(monkeypatch):
    scores = cocoeval.CocoScores(
        keys=[r["key"] for r in RECORDS[:3]], corpus={"METEOR": 0.3}, per_item={"METEOR": [0.1, 0.2, 0.3]}
    )
    monkeypatch.setattr(fc_scoring, "coco", lambda records: scores)
    est = TABLE["meteor"].estimator
    rows = est.rows(RECORDS[:3] + [MISSING])
    # factor corpus / mean of segments = 0.3 / 0.2 = 1.5: the full set gives the corpus value (x 100) ...
    np.testing.assert_allclose(rows, [[0.15, 1], [0.3, 1], [0.45, 1], [0, 0]], rtol=1e-12)
    assert float(est.combine(rows.sum(0))) == pytest.approx(30.0)
    # ... and a resample corpus x its mean segment score / the full mean: the first two, 30 x 0.15 / 0.2
    assert float(est.combine(rows[:2].sum(0))) == pytest.approx(22.5)
    assert isinstance(est, stats.Ratio) and est.score(RECORDS[0]) is None


def test_estimators_pickle_and_give_the_same_rows(no_java):
    records = RECORDS + [MISSING]
    table = pickle.loads(pickle.dumps(TABLE))
    assert table.doc_key(RECORDS[0]) == "Dish/Dish_0000.jpg" and table.cluster_of(RECORDS[0]) == "Dish/Dish_0000.jpg"
    for name in ("bleu4_pytok", "cider_pytok", "sla_relaxed", "empty_rate", "reference_mean_words"):
        np.testing.assert_array_equal(table[name].estimator.rows(records), TABLE[name].estimator.rows(records))


def test_standard_errors_of_the_table(no_java):
    estimators = [m.estimator for m in TABLE.values() if m.estimator is not None]
    names = [m.name for m in TABLE.values() if m.estimator is not None]
    records = RECORDS + [MISSING]
    got = dict(zip(names, stats.estimate_many(estimators, records, [TABLE.cluster_of(r) for r in records], iters=200)))
    assert got["bleu4_pytok"].method == "bootstrap" and got["bleu4_pytok"].se > 0 and got["bleu4_pytok"].n == 6
    assert got["cider_pytok"].method == "iid" and got["cider_pytok"].se > 0
    assert got["meteor"].se is None and got["meteor"].n == 0  # absent without Java: no error either
    # empty_rate 0, 0, 0, 0, 1, 0: residuals' squares 5 x (1/6)^2 + (5/6)^2 = 5/6; sqrt(6/5 x 5/6) / 6 = 1/6, in percent
    assert got["empty_rate"].se == pytest.approx(100 / 6, rel=1e-12)
