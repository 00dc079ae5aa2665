"""Every metric's estimator agrees with its reducer, on every benchmark's packaged sample documents.

The value a run reports comes from the metric's reducer (the benchmark's official summation and rounding);
its standard error, intervals and paired differences come from the estimator's per-document statistics
(food_tasks.stats.uncertainty). On the full data both must give the same value, or the error bar belongs to another
number. Outputs are each document's own target (right), other documents' targets (mostly wrong) and junk.
"""

from __future__ import annotations

import math
import pickle

import pytest
from sample_records import SAMPLE_TASKS, scored

OFFICIAL_ROUNDING = 0.0101  # official reducers round each cell, then their mean, to 2 decimals: at most 0.005 + 0.005


# Food-500 Cap's caption metrics start Java tools (the tokenizer and METEOR's jar): slow, out of the inner loop.
@pytest.mark.parametrize(
    "task", [pytest.param(t, marks=pytest.mark.slow) if t.startswith("food500cap") else t for t in SAMPLE_TASKS]
)
def test_estimators_reproduce_the_reported_value(task, monkeypatch):
    monkeypatch.setenv("FOOD_TASKS_JUDGE_MODEL", "none")
    table, records = scored(task)
    checked = 0
    for metric in table.values():
        if metric.estimator is None:
            continue
        reported = metric.reduce(records)
        value = float(metric.estimator.combine(metric.estimator.rows(records).sum(0)))
        if isinstance(reported, str):  # "absent: <reason>" (no Java, no CLIP model): no value, so no error bar
            assert math.isnan(value), metric.name
            continue
        if isinstance(reported, float) and math.isnan(reported):
            continue
        tolerance = OFFICIAL_ROUNDING if "official" in metric.name else 1e-9 * max(1.0, abs(reported))
        assert value == pytest.approx(reported, abs=tolerance), metric.name
        checked += 1
    assert checked or task.startswith("diningbench_vqa"), f"{task}: no metric has an estimator"


@pytest.mark.parametrize("task", SAMPLE_TASKS)
def test_tables_pickle_and_documents_have_keys_and_clusters(task):
    table, records = scored(task)
    assert pickle.loads(pickle.dumps(table)).keys() == table.keys()  # several processes gather payloads
    keys = [table.doc_key(r) for r in records[:6]]
    assert table.key is not None and None not in keys, f"{task}: records need a document identity (MetricTable key=)"
    assert all(table.cluster_of(r) is not None for r in records)


def test_compare_prints_no_interval_or_p_below_the_units_for_a_verdict():
    """Issue 33.2 / 33.4: on 3 units compare printed an interval past +100 points and p = 4.44e-310 beside "too few
    units to tell"; with enough units a p-value prints with sensible precision."""
    from food_tasks.compare.table import Row, table_rows
    from food_tasks.stats import uncertainty as stats

    few = stats.Comparison(77.78, 15.73, 46.95, 108.61, 4.44e-310, 9, 3, None, "clustered paired")
    many = stats.Comparison(10.0, 1.0, 8.04, 11.96, 1e-23, 400, 40, None, "clustered paired")
    rows = table_rows([Row("t", "acc", 88.89, 11.11, few, True), Row("t", "acc", 60.0, 50.0, many, True)])
    assert rows[0][5:] == ("n/a", "n/a", "9 (3)", stats.TOO_FEW)
    assert rows[1][5:7] == ("[+8.04, +11.96]", "< 1e-6")
