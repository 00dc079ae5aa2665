"""DiningBench error bars: each metric's per-row statistics (food_tasks.stats.uncertainty), hand-computed, and their
agreement with the reported values (tests/diningbench/test_diningbench_scoring.py has the reported values by hand).

A document is a row of the JSONL file (idx), one per row and task, and the row is its own cluster.
"""

from __future__ import annotations

import json
import math
import pickle

import diningbench_fixture as F
import numpy as np
import pytest
from judge_server import prediction_in

from food_tasks.benchmarks.diningbench import scoring as S
from food_tasks.judge import client as judge
from food_tasks.judge import panel
from food_tasks.lmms import errorbars
from food_tasks.stats import uncertainty as stats
from food_tasks.utils.diningbench import TABLES


def _doc(idx, prompt, gold):  # type: ignore[no-untyped-def]
    return {
        "idx": idx,
        "id": str(idx),
        "prompt": prompt,
        "gold_json": json.dumps(gold, ensure_ascii=False),
        "model_name": "",
        "cot": False,
        "images": [],
    }


def _reproduces(table, records):  # type: ignore[no-untyped-def]
    """Every estimator's value from its column sums equals the reported value; returns the metrics checked.

    A mean with no row in its denominator is reported as the official 0.0; its estimator gives NaN (no
    error bar for an empty sample)."""
    checked = []
    for metric in table.values():
        if metric.estimator is None:
            continue
        reported = metric.reduce(records)
        rows = metric.estimator.rows(records)
        value = float(metric.estimator.combine(rows.sum(0)))
        if isinstance(reported, float) and math.isnan(reported):
            assert math.isnan(value), metric.name
        elif math.isnan(value):
            assert reported == 0.0 and not metric.estimator.counted(rows).any(), metric.name
        else:
            assert value == pytest.approx(reported, rel=1e-12, abs=1e-12), metric.name
        checked.append(metric.name)
    return checked


def test_classification_rows():
    outputs = ["F", "答案：C", "Answer: A", "<think>maybe C</think>B", "I don't know"]
    prompt = F.cls_prompt(F.OPTIONS_ZH, "zh")
    records = [S.score_cls(_doc(i, prompt, g), out) for i, ((g, _), out) in enumerate(zip(F.CLS_ZH, outputs))]
    table = TABLES["cls"]
    # robust right F, C, A, B; official first letters F, 答, A, T, I (test_diningbench_scoring)
    np.testing.assert_array_equal(table["acc"].estimator.rows(records), [[1, 1], [1, 1], [1, 1], [1, 1], [0, 1]])
    np.testing.assert_array_equal(table["acc_official"].estimator.rows(records)[:, 0], [1, 0, 1, 0, 0])
    np.testing.assert_array_equal(table["invalid_rate"].estimator.rows(records)[:, 0], [0, 0, 0, 0, 1])
    np.testing.assert_array_equal(table["cannot_read_rate_official"].estimator.rows(records)[:, 0], [0, 1, 0, 0, 0])
    assert _reproduces(table, records) == [
        "acc",
        "acc_official",
        "invalid_rate",
        "cannot_read_rate_official",
        "parse_fail_rate",
        "parse_fail_rate_official",
        "truncated_rate",
        "position_rstd",
    ]
    # gold F, C, A, B, H: one at each of five positions, recall 1, 1, 1, 1, 0: mean 0.8, SD sqrt(0.8 / 5) = 0.4
    assert table["position_rstd"].reduce(records) == pytest.approx(40.0)
    # independent rows: the CLT error of 4 of 5, sqrt(p (1 - p) / (n - 1)), in percent as the accuracy
    est = stats.estimate(table["acc"].estimator, records, [table.cluster_of(r) for r in records])
    assert est.se == pytest.approx(100 * math.sqrt(0.8 * 0.2 / 4)) and (est.n, est.clusters, est.method) == (
        5,
        5,
        "iid",
    )
    assert [table.doc_key(r) for r in records] == [0, 1, 2, 3, 4] and table.cluster is table.key
    assert table["acc"].estimator.score(records[0]) == 1.0  # a per-row score: --repeats reads it


NUT_OUTPUTS = [
    '{"卡路里": 550, "蛋白质": 18, "碳水化合物": 60, "脂肪": 12}',
    '```json\n{"calories": "330 kcal", "protein": 12, "carbohydrates": 40, "fat": 1}\n```',
    'About {"calories": 800, "protein": 30, "carbohydrates": 120, "fat": 30}',
]


def _nutrition_records():  # type: ignore[no-untyped-def]
    return [
        S.score_nutrition(_doc(i, F.NUT_PROMPT_ZH, g), out) for i, (g, out) in enumerate(zip(F.NUT_ZH, NUT_OUTPUTS))
    ]


def test_nutrition_rows_hand_computed():
    records = _nutrition_records()
    # robust errors per row (cal, prot, carb, fat): (50, 2, 0, 2), (30, 2, 0, 1), (0, 10, 20, 0); row 2's fat gt is 0
    assert S.row_errors(records[0], "calories") == (50, 2500, 10.0)
    assert S.row_errors(records[1], "fat") == (1, 1, None)
    assert S.row_errors(records[2], "carbohydrates") == (20, 400, 20.0)
    # official: rows 2 and 3 are parse failures, scored as a prediction of 0 (APE 100 where gt != 0)
    assert S.row_errors(records[2], "protein", official=True) == (40, 1600, 100.0)
    assert S.row_errors(records[1], "fat", official=True) == (0, 0, None)
    rows = S.nutrition_rows(records, ("calories", "fat"), "mape")
    np.testing.assert_array_equal(rows, [[10, 1, 20, 1], [10, 1, 0, 0], [0, 1, 0, 1]])
    assert float(S.nutrition_combine(rows.sum(0), "mape")) == pytest.approx((20 / 3 + 10) / 2)
    rmse = S.nutrition_rows(records, ("calories",), "rmse")
    np.testing.assert_array_equal(rmse, [[2500, 1], [900, 1], [0, 1]])
    assert float(S.nutrition_combine(rmse.sum(0), "rmse")) == pytest.approx(math.sqrt(3400 / 3))
    assert [S.nutrition_parse_fail(r, official=True) for r in records] == [0, 1, 1]


def test_nutrition_estimators_reproduce_every_value():
    records = _nutrition_records()
    table = TABLES["nutrition"]
    checked = _reproduces(table, list(reversed(records)))  # the reducers sort by idx; sums do not care
    assert len(checked) == 33  # 4 components x 3 statistics + 3 averages + parse_fail_rate, robust and official;
    # truncated_rate
    kinds = {name: type(table[name].estimator).__name__ for name in checked}
    assert kinds["calories_mae"] == kinds["fat_mape"] == kinds["parse_fail_rate"] == "Ratio"
    assert kinds["calories_rmse"] == kinds["avg_mae"] == kinds["avg_rmse_official"] == "Custom"
    clusters = [table.cluster_of(r) for r in records]
    assert stats.estimate(table["avg_rmse"].estimator, records, clusters, iters=200).method == "bootstrap"
    assert pickle.loads(pickle.dumps(table))["avg_mape"].estimator is not None


def test_official_non_finite_predictions_reach_the_estimators_too():
    gold = {"calories": 100, "protein": 10, "carbohydrates": 10, "fat": 10}
    outputs = [
        '{"calories": NaN, "protein": 10, "carbohydrates": 10, "fat": 10}',
        '{"calories": 1e400, "protein": 10, "carbohydrates": 10, "fat": 10}',
    ]
    for out in outputs:
        records = [S.score_nutrition(_doc(0, "", gold), out), S.score_nutrition(_doc(1, "", gold), '{"calories": 90}')]
        table = TABLES["nutrition"]
        for name in ("calories_mae_official", "calories_mape_official"):
            reported = table[name].reduce(records)
            value = float(table[name].estimator.combine(table[name].estimator.rows(records).sum(0)))
            assert not math.isfinite(reported) and (value == reported or math.isnan(value) and math.isnan(reported)), (
                out,
                name,
            )


def test_nutrition_rows_without_gold_count_nowhere():
    gold = {"calories": 100, "protein": 0, "carbohydrates": "x", "fat": None}
    records = [S.score_nutrition(_doc(0, "", gold), "garbage"), S.score_nutrition(_doc(1, "", "not json"), "{}")]
    table = TABLES["nutrition"]
    checked = _reproduces(table, records)
    assert "avg_rmse_official" in checked  # components without rows are 0 in the average, as officially
    assert (
        table["avg_mape"].reduce(records)
        == float(table["avg_mape"].estimator.combine(table["avg_mape"].estimator.rows(records).sum(0)))
        == 25.0
    )  # calories 100 %, the others 0 (no rows)
    assert math.isnan(float(table["protein_mape"].estimator.combine(np.zeros(2))))  # gt 0: no APE
    assert S.nutrition_rows(records, ("carbohydrates",), "mae").tolist() == [[0, 0], [0, 0]]
    assert [S.nutrition_parse_fail(r) for r in records] == [1, 0]  # an unreadable gold row is no parse failure


# --------------------------------------------------------------------------- VQA


class ScriptedJudge:
    """``JudgeClient._attempt`` (one attempt, awaited with the batch's HTTP client) scripted by prediction; counts the
    requests that reach it."""

    def __init__(self, verdicts, down=()):  # type: ignore[no-untyped-def]
        self.verdicts, self.down, self.requests = verdicts, set(down), 0

    async def __call__(self, http, body):  # type: ignore[no-untyped-def]
        from food_tasks.judge.transport import Outcome

        self.requests += 1
        pred = prediction_in(body["messages"][0]["content"])
        return Outcome(None, "http 400") if pred in self.down else Outcome(self.verdicts[pred])


@pytest.fixture()
def judged(monkeypatch, tmp_path):  # type: ignore[no-untyped-def]
    """A real judge client (memory and disk cache) whose HTTP attempt is scripted."""
    monkeypatch.setenv("FOOD_TASKS_JUDGE_MODEL", "scripted-judge")
    monkeypatch.setenv("FOOD_TASKS_JUDGE_CACHE", str(tmp_path / "judge"))
    script = ScriptedJudge(
        {"It has been fried": "是", "Chicken": "否", "Pork, I think": "是的，语义一致"}, down={"Not vegan: has cheese"}
    )
    client = judge.JudgeClient(judge.JudgeConfig.from_env("test"), sleep=lambda s: None)
    monkeypatch.setattr(client, "_attempt", script)
    monkeypatch.setattr(judge, "client_for", lambda config: client)
    monkeypatch.setattr(panel, "client_for", lambda config: client)  # the judges of the panel
    return script


def _vqa_records():  # type: ignore[no-untyped-def]
    outputs = ["It has been fried", "Not vegan: has cheese", "Chicken", "Pork, I think"]
    rows = [*F.VQA_EN, ("Is there rice?", "", None)]  # the last row has no gold answer: not evaluated
    prompts = [q + F.VQA_ENDING_EN for q, _, _ in rows]
    return [S.score_vqa(_doc(i, p, g), out) for i, (p, (_, g, _), out) in enumerate(zip(prompts, rows, outputs))]


def test_judge_verdicts_are_aligned_with_the_records(judged):
    records = _vqa_records()
    verdicts = S.judge_verdicts(list(reversed(records)), judge.client_for(None))[::-1]
    assert verdicts[3] is None  # no gold
    assert [v["correct"] for v in verdicts[:3]] == [True, False, False]
    assert [v["failed"] for v in verdicts[:3]] == [False, True, False] and [v["judged"] for v in verdicts[:3]] == [
        True,
        False,
        True,
    ]
    assert [v["correct_official"] for v in verdicts[:3]] == [True, False, False]
    # 3 official requests and 3 robust ones (the judge protocol's own body); the robust request refused with a 400
    # is asked once more with the final-line verdict format (a server that refuses response_format): 7
    assert judged.requests == 7


def test_judge_estimators_reproduce_the_judge_metrics_without_new_requests(judged):
    records = _vqa_records()
    table = TABLES["vqa"]
    reported = {name: table[name].reduce(records) for name in ("judge_acc", "judge_acc_official", "judge_error_rate")}
    # robust: 1 of 2 judged (the failed row leaves the denominator); official: 1 of 3; errors: 1 of 3 (all in
    # percent: the rates since version 1.2, the accuracies since 1.3)
    assert reported == {
        "judge_acc": 50.0,
        "judge_acc_official": pytest.approx(100 / 3),
        "judge_error_rate": pytest.approx(100 / 3),
    }
    before = judged.requests
    checked = _reproduces(table, records)
    assert [c for c in checked if c != "truncated_rate"] == [
        "judge_acc",
        "judge_acc_official",
        "judge_error_rate",
        "judge_unparsed_rate",
        "judge_agreement",  # one judge: NaN, as its estimator (version 1.4)
        "judge_majority_acc",
        "judge_flip_rate",
        "judge_kappa",
        "judge_rule_disagree_rate",
        "judge_injection_suspect_rate",
        "rouge1_f",
        "rouge2_f",
        "rougeL_f",
    ]
    assert judged.requests == before  # the client's cache answers the estimators
    np.testing.assert_array_equal(table["judge_acc"].estimator.rows(records), [[1, 1], [0, 0], [0, 1], [0, 0]])
    np.testing.assert_array_equal(table["judge_error_rate"].estimator.rows(records), [[0, 1], [1, 1], [0, 1], [0, 0]])
    est = stats.estimate(table["judge_acc_official"].estimator, records, [r["idx"] for r in records])
    assert (est.n, est.clusters, est.method) == (3, 3, "iid") and est.se == pytest.approx(
        100 * math.sqrt((1 / 3) * (2 / 3) / 2)
    )
    # the verdict is known only at aggregation: no per-row score in the payloads (--repeats); ROUGE is not a 0/1
    # score, which lmms-eval's stability metrics assume, so it shows none either
    payloads = table.payloads(records[0])
    assert "score" not in payloads["judge_acc"] and "score" not in payloads["rouge1_f"]
    assert pickle.loads(pickle.dumps(table))["judge_acc"].estimator.name == "judge_acc"


def test_rouge_rows_skip_rows_without_a_reference(judged):
    records = _vqa_records()
    rows = TABLES["vqa"]["rougeL_f"].estimator.rows(records)
    assert rows[:, 1].tolist() == [1, 1, 1, 0]
    assert rows[:, 0].tolist() == [r["rouge"]["rougeL"] for r in records[:3]] + [0]


def test_judging_off_gives_nan_and_no_error_bar(monkeypatch):
    monkeypatch.setenv("FOOD_TASKS_JUDGE_MODEL", "none")
    records = [S.score_vqa(_doc(i, q + F.VQA_ENDING_EN, g), "Yes") for i, (q, g, _) in enumerate(F.VQA_EN)]
    table = TABLES["vqa"]
    for name in ("judge_acc", "judge_acc_official", "judge_error_rate", "judge_unparsed_rate"):
        assert math.isnan(table[name].reduce(records))
        assert not table[name].estimator.rows(records).any()
        assert stats.estimate(table[name].estimator, records, [0, 1, 2]).se is None
    payloads = [table.payloads(r) for r in records]
    sample_metrics = {(name, "none"): [p[name] for p in payloads] for name in table}
    agg: dict = {}
    try:
        errorbars.task_statistics("diningbench_vqa_en", sample_metrics, agg, 100)
    finally:
        errorbars.finish({}, {}, None, 0)
    assert agg["judge_acc_stderr,none"] == "N/A" and agg["judge_error_rate_stderr,none"] == "N/A"
    assert isinstance(agg["rouge1_f_stderr,none"], float)


def test_judge_not_configured_gives_no_error_bar_rather_than_an_exception(monkeypatch):
    # food-tasks compare reads two runs' files in a shell that may have no judge configured
    monkeypatch.delenv("FOOD_TASKS_JUDGE_MODEL", raising=False)
    records = [S.score_vqa(_doc(0, "Q" + F.VQA_ENDING_EN, "Yes"), "Yes")]
    assert not TABLES["vqa"]["judge_acc"].estimator.rows(records).any()
