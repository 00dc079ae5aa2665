"""The misled rate's control (issue 44): ``context_loss_rate``, of the units right without context (1a) the share
wrong with the correct hint (1b), and ``misled_excess``, the misled rate minus that loss on the units asked with both
hints, paired per unit, clustered; in the run's results, compare and the report."""

from __future__ import annotations

import math

import pytest

from food_tasks.stats import comparison as beyond
from food_tasks.stats import consistency
from food_tasks.stats import uncertainty as stats
from food_tasks.stats.consistency import HINT, MISLEADING, NO_CONTEXT

VIEW = consistency.View(
    item=stats.column("qa_id"),
    lang=stats.column("lang"),
    correct=stats.field("correct"),
    cluster=stats.column("dish"),
    context=stats.column("subtask"),
    unit=stats.column("dish"),
)
ROLE = {"1a": NO_CONTEXT, "1b": HINT, "1c": MISLEADING}


def _records(dishes: dict[str, dict[str, int]], lang: str = "en") -> list[dict]:
    return [
        {"dish": d, "lang": lang, "correct": ok, "subtask": ROLE[s], "qa_id": f"{d}{s}"}
        for d, by in dishes.items()
        for s, ok in by.items()
    ]


# d1 right in 1a, wrong with either hint; d2 wrong only when misled; d3 wrong only with the correct hint; d4 right in
# 1a and 1b, never misled; d5 wrong in 1a (out of both measures' denominators)
DISHES = {
    "d1": {"1a": 1, "1b": 0, "1c": 0},
    "d2": {"1a": 1, "1b": 1, "1c": 0},
    "d3": {"1a": 1, "1b": 0, "1c": 1},
    "d4": {"1a": 1, "1b": 1},
    "d5": {"1a": 0, "1b": 1, "1c": 0},
}


def test_context_loss_and_misled_excess_by_hand():
    found = consistency.context_sensitivity(_records(DISHES), VIEW)
    # context loss: d1 and d3 of d1-d4 (right in 1a, asked with the correct hint) -> 2 of 4
    assert found["context_loss_rate"].value == pytest.approx(50.0) and found["context_loss_rate"].n == 4
    # misled: d1 and d2 of d1-d3 -> 2 of 3
    assert found["misled_rate"].value == pytest.approx(200 / 3)
    # excess on d1-d3 (asked with both hints): wrong-in-1c minus wrong-in-1b = 0, 1, -1 -> mean 0; CR1 over 3 dishes:
    # sqrt(3/2 * (0 + 1 + 1)) / 3 = 0.57735 -> 57.735 points
    excess = found["misled_excess"]
    assert excess.value == pytest.approx(0.0) and excess.n == 3 and excess.clusters == 3
    assert excess.se == pytest.approx(100 * math.sqrt(3) / 3)
    # the misled rate minus the context loss on the same pairs (d1-d3: 2/3 - 2/3)
    rows = consistency.context_rows(_records({k: DISHES[k] for k in ("d1", "d2", "d3")}), VIEW)
    misled = sum(v for _, _, v in rows["misled_rate"]) / 3
    loss = sum(v for _, _, v in rows["context_loss_rate"]) / 3
    assert excess.value == pytest.approx(100 * (misled - loss))
    # a difference: its interval may cross 0, never -100 or 100 (0 ± 113 would: the bootstrap percentile instead)
    entry = excess.as_dict()
    assert -100 <= entry["low"] < 0 < entry["high"] <= 100 and entry["interval"] == "cluster bootstrap percentile"


def test_without_the_correct_hint_there_is_no_control():
    found = consistency.context_sensitivity(_records({"d1": {"1a": 1, "1c": 0}, "d2": {"1a": 1, "1c": 1}}), VIEW)
    assert "misled_rate" in found and "context_loss_rate" not in found and "misled_excess" not in found
    # a hint but no misleading version: the loss alone
    found = consistency.context_sensitivity(_records({"d1": {"1a": 1, "1b": 0}}), VIEW)
    assert found["context_loss_rate"].value == 100.0 and "misled_excess" not in found


def test_clustered_by_dish_across_languages():
    # one dish in two languages: two units, one cluster -> no standard error (fewer than 2 clusters)
    records = _records({"d1": {"1a": 1, "1b": 0, "1c": 0}}) + _records({"d1": {"1a": 1, "1b": 1, "1c": 0}}, "fr")
    found = consistency.context_sensitivity(records, VIEW)
    assert found["context_loss_rate"].value == 50.0 and found["context_loss_rate"].n == 2
    assert found["context_loss_rate"].clusters == 1 and found["context_loss_rate"].se is None
    assert found["misled_excess"].value == 50.0  # (1 - 1 + 1 - 0) / 2


def test_compare_pairs_the_control_of_two_runs_and_knows_its_direction():
    assert {"context_loss_rate", "misled_excess"} <= set(beyond.MEASURES)
    assert consistency.HIGHER_IS_BETTER["context_loss_rate"] is False
    assert consistency.HIGHER_IS_BETTER["misled_excess"] is False
    a = consistency.context_rows(_records(DISHES), VIEW)
    b = consistency.context_rows(_records({k: {**v, "1b": 1} for k, v in DISHES.items()}), VIEW)
    # B never loses an answer to the correct hint: A - B = 50 - 0 over the four dishes both count
    c = beyond.paired_means(a["context_loss_rate"], b["context_loss_rate"], 100.0, 0, 1, pair_units=False)
    assert c.diff == pytest.approx(50.0) and c.clusters == 4


def test_run_statistics_write_the_control_into_the_group_row():
    class Task:
        def __init__(self, records):  # type: ignore[no-untyped-def]
            self.records = records
            self.table = type("T", (), {"consistency": VIEW})()

    records = _records(DISHES)
    tasks = {f"t_{s}": Task([r for r in records if r["subtask"] == ROLE[s]]) for s in ROLE}
    results = {"g": {"alias": "g"}}
    consistency.run_statistics(results, {"g": ({}, list(tasks))}, tasks)
    row = results["g"]
    assert row["context_loss_rate,none"] == pytest.approx(50.0) and row["context_loss_rate_n,none"] == 4
    assert row["misled_excess,none"] == pytest.approx(0.0) and "misled_excess_stderr,none" in row


def test_an_excess_of_zero_everywhere_is_a_difference_not_a_share():
    # every dish wrong with both hints: excess 0 on each, SE 0 -> the 0-wide normal interval, not Wilson's [0, x]
    found = consistency.context_sensitivity(_records({f"d{i}": {"1a": 1, "1b": 0, "1c": 0} for i in range(40)}), VIEW)
    entry = found["misled_excess"].as_dict()
    assert entry["value"] == 0.0 and entry["low"] == entry["high"] == 0.0 and "interval" not in entry
    # the loss itself is a share: 100 % of 40 dishes, SE 0 -> Wilson over the 40 dishes
    loss = found["context_loss_rate"].as_dict()
    assert loss["interval"] == "Wilson, effective n" and loss["high"] == 100.0 and loss["low"] < 100.0
