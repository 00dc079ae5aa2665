"""The one hook convention (food_tasks.hooks.convention): metric tables, process_results, the aggregation hook."""

from __future__ import annotations

import json
import math
import pickle
from functools import partial

import pytest

from food_tasks.hooks.convention import Metric, MetricTable, Payload, aggregate, results_hook
from food_tasks.stats import metrics

ACC = Metric("acc", partial(metrics.percent_true, field="correct"))
INVALID = Metric("invalid_rate", partial(metrics.percent_true, field="invalid"), higher_is_better=False)
TABLE = MetricTable(ACC, INVALID, INVALID.alias("parse_fail_rate"), version=2.0)


def score(doc, output):  # type: ignore[no-untyped-def]
    answer = output.strip() if isinstance(output, str) else None
    return {"id": doc["id"], "correct": answer == doc["gold"], "invalid": not answer}


def test_table_is_a_mapping_of_callable_metrics_with_a_version():
    assert list(TABLE) == ["acc", "invalid_rate", "parse_fail_rate"] and TABLE.version == 2.0
    records = [
        {"correct": True, "invalid": False},
        {"correct": False, "invalid": True},
        {"correct": False, "invalid": False},
    ]
    assert TABLE["acc"](records) == pytest.approx(100 / 3)  # 1 of 3
    assert TABLE["parse_fail_rate"](records) == TABLE["invalid_rate"](records) == pytest.approx(100 / 3)
    assert TABLE["parse_fail_rate"].alias_of == "invalid_rate" and not TABLE["parse_fail_rate"].higher_is_better
    assert list(TABLE.without("parse_fail_rate")) == ["acc", "invalid_rate"] and TABLE.without("acc").version == 2.0
    assert list(TABLE.plus(Metric("n", len, scale="count"))) == ["acc", "invalid_rate", "parse_fail_rate", "n"]


def test_table_refuses_duplicates_unknown_names_and_scales():
    with pytest.raises(ValueError, match="declared twice: acc"):
        MetricTable(ACC, ACC)
    with pytest.raises(ValueError, match="at least one metric"):
        MetricTable()
    with pytest.raises(KeyError, match="not in the table: nope"):
        TABLE.without("nope")
    with pytest.raises(ValueError, match="scale 'pct'"):
        Metric("x", len, scale="pct")


def test_process_results_goes_through_model_output_and_shows_the_record_once():
    hook = results_hook(score, TABLE)
    doc = {"id": "q1", "gold": "B"}
    out = hook(doc, ["B"])
    assert list(out) == list(TABLE)
    assert dict(out["acc"]) == {"id": "q1", "correct": True, "invalid": False}  # the samples file shows it here
    assert dict(out["invalid_rate"]) == {} and dict(out["parse_fail_rate"]) == {}
    assert all(p.record is out["acc"].record for p in out.values())  # one record, never copied per metric
    # lmms-eval's failure marker is no answer: "after 2 retries" must not read as an answer
    failed = hook({"id": "q2", "gold": "2"}, ["[LMMS_EVAL_REQUEST_FAILED after 2 retries] Error code: 500"])
    assert failed["acc"].record == {"id": "q2", "correct": False, "invalid": True}
    assert all(p.failed for p in failed.values()) and not any(p.failed for p in out.values())
    assert hook(doc, [None])["acc"].record["invalid"] and hook(doc, [])["acc"].record["invalid"]


def test_table_may_depend_on_the_document():
    other = MetricTable(ACC, version=1.0)
    hook = results_hook(score, lambda doc: other if doc["id"] == "x" else TABLE, tables=[other, TABLE])
    assert hook.tables == (other, TABLE) and results_hook(score, TABLE).tables == (TABLE,)
    with pytest.raises(ValueError, match="needs tables="):
        results_hook(score, lambda doc: TABLE)
    assert list(hook({"id": "x", "gold": "A"}, ["A"])) == ["acc"]
    assert list(hook({"id": "y", "gold": "A"}, ["A"])) == list(TABLE)


def test_aggregate_applies_the_metric_the_payloads_carry():
    hook = results_hook(score, TABLE)
    docs = [
        ({"id": "1", "gold": "A"}, "A"),
        ({"id": "2", "gold": "A"}, "B"),
        ({"id": "3", "gold": "A"}, ""),
        ({"id": "4", "gold": "C"}, "C"),
    ]
    payloads = [hook(d, [o]) for d, o in docs]
    assert aggregate([p["acc"] for p in payloads]) == pytest.approx(50.0)  # 2 of 4
    assert aggregate([p["parse_fail_rate"] for p in payloads]) == pytest.approx(25.0)  # 1 of 4
    assert math.isnan(aggregate([]))
    with pytest.raises(TypeError, match="not produced by a food_tasks process_results"):
        aggregate([{"correct": True}])


def test_payloads_survive_pickling_and_json_shows_only_their_own_fields():
    # Several processes: lmms-eval pickles per-document values to gather them on rank 0.
    out = results_hook(score, TABLE)({"id": "q1", "gold": "B"}, ["B"])
    back = pickle.loads(pickle.dumps(out))
    assert isinstance(back["invalid_rate"], Payload) and back["invalid_rate"].record == out["acc"].record
    assert not back["acc"].failed
    assert back["invalid_rate"].metric.name == "invalid_rate" and aggregate([back["acc"]]) == 100.0
    assert json.loads(json.dumps(out)) == {
        "acc": {"id": "q1", "correct": True, "invalid": False},
        "invalid_rate": {},
        "parse_fail_rate": {},
    }
