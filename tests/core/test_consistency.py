"""food_tasks.stats.consistency: hand-computed cross-lingual and context measures on small fixtures, their
standard errors, and independence from record order."""

from __future__ import annotations

import math
import pickle
import random

import numpy as np
import pytest

from food_tasks.hooks.convention import Metric, MetricTable
from food_tasks.stats import consistency
from food_tasks.stats import uncertainty as stats

VIEW = consistency.View(
    item=stats.column("item"),
    lang=stats.column("lang"),
    correct=stats.field("correct", unless="missing"),
    cluster=stats.column("dish"),
    choice=stats.column("choice"),
    status=stats.column("status"),
)


def rec(
    item: str, lang: str, correct: bool, choice: int | None, dish: str | None = None, status: str = "s", **extra
) -> dict:
    return {
        "item": item,
        "lang": lang,
        "correct": correct,
        "choice": choice,
        "dish": dish or item,
        "status": status,
        **extra,
    }


# 3 items x 3 languages (gold option 1 everywhere).
#   q1: en right (1), fr right (1), ja right (1)   -> all correct, agree
#   q2: en right (1), fr wrong (2), ja wrong (2)   -> not all correct, not agree
#   q3: en wrong (3), fr wrong (3), ja wrong (3)   -> not all correct, agree (wrong)
GRID = [
    rec("q1", "en", True, 1),
    rec("q1", "fr", True, 1),
    rec("q1", "ja", True, 1, status="t"),
    rec("q2", "en", True, 1),
    rec("q2", "fr", False, 2),
    rec("q2", "ja", False, 2, status="t"),
    rec("q3", "en", False, 3),
    rec("q3", "fr", False, 3),
    rec("q3", "ja", False, 3, status="t"),
]


def test_all_correct_and_agreement_by_hand() -> None:
    assert consistency.all_correct(GRID, VIEW) == pytest.approx(100 / 3)
    assert consistency.agreement(GRID, VIEW) == pytest.approx(200 / 3)
    # SE of a mean of 0/1 over 3 independent items: sd(ddof 1)/sqrt(3), CR1 = sqrt(3/2) * sqrt(sum r^2) / 3.
    values = np.array([1.0, 0.0, 0.0])
    expected = 100 * math.sqrt(3 / 2 * float(np.sum((values - values.mean()) ** 2))) / 3
    assert expected == pytest.approx(100 * values.std(ddof=1) / math.sqrt(3))
    stat = consistency.family_measures(GRID, VIEW)["xling_all_correct"]
    assert (stat.value, stat.n, stat.clusters) == (pytest.approx(100 / 3), 3, 3)
    assert stat.se == pytest.approx(expected)


def test_gap_to_reference_by_hand() -> None:
    gaps = consistency.gap_to_reference(GRID, VIEW)
    assert list(gaps) == ["fr", "ja"]
    # fr - en per item: q1 0, q2 -1, q3 0 -> -33.3; sd(ddof 1) of (0, -1, 0) = sqrt(1/3); se = 100 * sqrt(1/3) / sqrt(3)
    assert gaps["fr"]["value"] == pytest.approx(-100 / 3)
    assert gaps["fr"]["se"] == pytest.approx(100 * math.sqrt(1 / 3) / math.sqrt(3))
    assert gaps["fr"]["acc"] == pytest.approx(100 / 3) and gaps["fr"]["acc_reference"] == pytest.approx(200 / 3)
    assert gaps["fr"]["low"] == pytest.approx(gaps["fr"]["value"] - stats.Z95 * gaps["fr"]["se"])
    assert (gaps["fr"]["n"], gaps["fr"]["clusters"]) == (3, 3)


def test_gap_by_status_pools_languages() -> None:
    by = consistency.gap_by_status(GRID, VIEW)
    assert sorted(by) == ["s", "t"]
    assert by["t"]["value"] == pytest.approx(-100 / 3)  # ja only
    assert by["s"]["value"] == pytest.approx(-100 / 3) and by["s"]["n"] == 3  # fr only (en is the reference)
    # Clustered by item: both languages of an item are one unit.
    assert consistency.gap_by_status([{**r, "status": "x"} for r in GRID], VIEW)["x"]["clusters"] == 3


def test_unparsed_answers_never_agree_and_single_language_items_do_not_count() -> None:
    records = [rec("a", "en", False, None), rec("a", "fr", False, None), rec("b", "en", True, 1)]
    assert consistency.agreement(records, VIEW) == 0.0
    assert consistency.family_measures(records, VIEW)["xling_agreement"].n == 1  # b has one language
    assert math.isnan(consistency.all_correct([rec("b", "en", True, 1)], VIEW))


def test_documents_that_do_not_count_are_left_out() -> None:
    records = GRID + [rec("q1", "de", False, 2, missing=True)]
    assert consistency.all_correct(records, VIEW) == pytest.approx(100 / 3)
    assert "de" not in consistency.gap_to_reference(records, VIEW)


def test_item_ratio_estimator_matches_the_reducer_and_pickles() -> None:
    estimator = consistency.ItemRatio(VIEW, "agreement")
    rows = estimator.rows(GRID)
    assert rows[:, 1].sum() == 3  # one row per item
    assert float(estimator.combine(rows.sum(0))) == pytest.approx(consistency.agreement(GRID, VIEW))
    est = stats.estimate(estimator, GRID, [r["dish"] for r in GRID])
    assert (est.n, est.clusters, est.method) == (3, 3, "iid")
    assert est.se == pytest.approx(consistency.family_measures(GRID, VIEW)["xling_agreement"].se)
    assert estimator.score(GRID[0]) is None
    clone = pickle.loads(pickle.dumps(estimator))
    assert float(clone.combine(clone.rows(GRID).sum(0))) == pytest.approx(200 / 3)


def test_items_sharing_a_dish_are_clustered() -> None:
    records = [{**r, "dish": "d1" if r["item"] in ("q1", "q2") else "d2"} for r in GRID]
    stat = consistency.family_measures(records, VIEW)["xling_all_correct"]
    assert (stat.n, stat.clusters) == (3, 2)
    # Cluster sums of (value - mean): d1 = (1 - 1/3) + (0 - 1/3) = 1/3, d2 = -1/3; CR1 factor 2/(2-1).
    assert stat.se == pytest.approx(100 * math.sqrt(2 * (1 / 9 + 1 / 9)) / 3)


def test_order_of_records_does_not_matter() -> None:
    rng = random.Random(7)
    records = [
        rec(f"q{i}", lang, rng.random() < 0.6, rng.randint(1, 4), dish=f"d{i // 3}")
        for i in range(40)
        for lang in ("en", "fr", "ja", "yo")
    ]
    shuffled = records[:]
    rng.shuffle(shuffled)
    for what in ("xling_all_correct", "xling_agreement"):
        a, b = consistency.family_measures(records, VIEW)[what], consistency.family_measures(shuffled, VIEW)[what]
        assert (a.value, a.se, a.n, a.clusters) == (b.value, b.se, b.n, b.clusters)
    assert consistency.gap_to_reference(records, VIEW) == consistency.gap_to_reference(shuffled, VIEW)
    assert consistency.gap_by_status(records, VIEW) == consistency.gap_by_status(shuffled, VIEW)
    est = consistency.ItemRatio(VIEW, "all_correct")
    ea = stats.estimate(est, records, [r["dish"] for r in records])
    eb = stats.estimate(est, shuffled, [r["dish"] for r in shuffled])
    assert ea.se == pytest.approx(eb.se, rel=1e-12) and ea.n == eb.n


# ---------------------------------------------------------------- context sensitivity

CTX = consistency.View(
    item=stats.column("item"),
    lang=stats.column("lang"),
    correct=stats.field("correct"),
    cluster=stats.column("dish"),
    context=stats.column("ctx"),
    unit=stats.column("dish"),
    image=stats.column("image"),
)


def ctx(dish: str, role: str, correct: bool, lang: str = "en", image: str | None = None) -> dict:
    return {
        "item": f"{role}-{dish}",
        "lang": lang,
        "dish": dish,
        "ctx": role,
        "correct": correct,
        "image": image or dish,
    }


def test_a_dish_right_without_context_and_wrong_when_misled() -> None:
    records = [ctx("d1", "none", True), ctx("d1", "misleading", False), ctx("d1", "hint", True)]
    found = consistency.context_sensitivity(records, CTX)
    assert found["misled_rate"].value == 100.0 and found["misled_rate"].n == 1
    assert math.isnan(found["hint_gain"].value) and found["hint_gain"].n == 0  # no dish wrong without context


def test_misled_rate_and_hint_gain_by_hand() -> None:
    records = [
        ctx("d1", "none", True),
        ctx("d1", "misleading", False),
        ctx("d1", "hint", True),
        ctx("d2", "none", True),
        ctx("d2", "misleading", True, image="other"),
        ctx("d2", "hint", True),
        ctx("d3", "none", False),
        ctx("d3", "misleading", False),
        ctx("d3", "hint", True),
        ctx("d4", "none", False),
        ctx("d4", "misleading", True),
        ctx("d4", "hint", False),
        ctx("d5", "none", True),
        ctx("d5", "hint", False),  # no 1c document: not in misled_rate
    ]
    found = consistency.context_sensitivity(records, CTX)
    # Right without context and asked misled: d1 (lost), d2 (kept): 1/2.
    assert found["misled_rate"].value == pytest.approx(50.0) and found["misled_rate"].n == 2
    assert found["misled_rate"].se == pytest.approx(100 * np.std([1.0, 0.0], ddof=1) / math.sqrt(2))
    # Wrong without context: d3 (gained), d4 (not): 1/2.
    assert found["hint_gain"].value == pytest.approx(50.0) and found["hint_gain"].n == 2
    # Same image only: d2's misleading document shows another photo.
    assert found["misled_rate_same_image"].value == 100.0 and found["misled_rate_same_image"].n == 1
    assert found["hint_gain_same_image"].n == 2


def test_context_pairs_are_per_language_and_clustered_by_dish() -> None:
    records = [ctx("d1", "none", True, lang) for lang in ("en", "fr")] + [
        ctx("d1", "misleading", False, "en"),
        ctx("d1", "misleading", True, "fr"),
        ctx("d2", "none", True),
        ctx("d2", "misleading", True),
    ]
    stat = consistency.context_sensitivity(records, CTX)["misled_rate"]
    assert (stat.value, stat.n, stat.clusters) == (pytest.approx(100 / 3), 3, 2)


# ---------------------------------------------------------------- runs: tasks pooled, rows written


class _Task:
    def __init__(self, table: MetricTable, records: list[dict]) -> None:
        self.table, self.records = table, records


def _table(view: consistency.View) -> MetricTable:
    return MetricTable(
        Metric("acc", lambda rs: 0.0, estimator=stats.mean(stats.field("correct"), 100.0)), consistency=view
    )


def test_languages_in_separate_tasks_are_pooled_into_the_non_reference_rows() -> None:
    view = consistency.View(
        item=stats.column("item"),
        lang=stats.column("lang"),
        correct=stats.field("correct"),
        cluster=stats.column("dish"),
        choice=stats.column("choice"),
        family=stats.column("setting"),
    )
    table = _table(view)
    en = [rec(f"q{i}", "en", i % 2 == 0, 1, setting="p0") for i in range(4)]
    zh = [rec(f"q{i}", "zh", i < 2, 1 if i < 2 else 2, setting="p0") for i in range(4)]
    other = [rec(f"q{i}", "zh", True, 1, setting="p1") for i in range(4)]  # no English partner in p1
    tasks = {"t_en": _Task(table, en), "t_zh": _Task(table, zh), "t_zh_p1": _Task(table, other)}
    results = {name: {"alias": name, "acc,none": 0.0} for name in tasks}
    consistency.run_statistics(results, {}, tasks)
    row = results["t_zh"]
    # Items: q0 en right zh right (all correct); q1 en wrong zh right; q2 en right zh wrong; q3 both wrong.
    assert row["xling_all_correct,none"] == pytest.approx(25.0)
    assert row["xling_all_correct_n,none"] == 4 and isinstance(row["xling_all_correct_stderr,none"], float)
    assert row["xling_agreement,none"] == pytest.approx(50.0)  # q0, q1 chose 1 in both
    assert row["xling_gap_to_en,none"]["zh"]["value"] == pytest.approx(0.0)
    assert "xling_all_correct,none" not in results["t_en"] and "xling_all_correct,none" not in results["t_zh_p1"]
    assert consistency.measures(tasks)["t_zh"]["xling_all_correct"].value == pytest.approx(25.0)


def test_group_context_measures_land_in_the_group_row() -> None:
    table = _table(CTX)
    tasks = {
        "t_1a": _Task(table, [ctx("d1", "none", True), ctx("d2", "none", True)]),
        "t_1c": _Task(table, [ctx("d1", "misleading", False), ctx("d2", "misleading", True)]),
    }
    results = {"g": {"alias": "g", "acc,none": 0.0}, "t_1a": {}, "t_1c": {}}
    consistency.run_statistics(results, {"g": ({}, ["t_1a", "t_1c"])}, tasks)
    assert results["g"]["misled_rate,none"] == pytest.approx(50.0)
    assert results["g"]["misled_rate_n,none"] == 2 and results["g"]["misled_rate_clusters,none"] == 2
    assert "hint_gain,none" not in results["g"]
    # A group missing a member's records gets nothing.
    results = {"g": {"alias": "g"}}
    consistency.run_statistics(results, {"g": ({}, ["t_1a", "t_missing"])}, tasks)
    assert results["g"] == {"alias": "g"}


def test_run_statistics_never_raises() -> None:
    class Broken:
        table = _table(CTX)

        @property
        def records(self):  # type: ignore[no-untyped-def]
            raise RuntimeError("boom")

    results = {"g": {"acc,none": 1.0}}
    consistency.run_statistics(results, {"g": ({}, ["t"])}, {"t": Broken()})
    assert results == {"g": {"acc,none": 1.0}}
