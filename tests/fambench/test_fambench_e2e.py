"""FAM-Bench through the real lmms-eval CLI, offline, on a mirror in the official repository layout.

Scripted outputs (food_tasks_replay) with hand-computed expected metrics; see tests/fambench/fambench_fixture.py
for the records. One image of Task 1 row 6 and of Task 2 question 4 is unreachable (dead host).
"""

from __future__ import annotations

import json

import fambench_fixture
import pytest
from conftest import run_lmms_eval

pytestmark = pytest.mark.e2e

T1 = {
    "1": (
        '{"decision": "recommend", "rationale_ingredients": '
        '[{"condition": "type 2 diabetes", "ingredients": ["Bulgur-Wheat", "olive oil"]}]}'
    ),
    "2": (
        '<think>{"decision": "recommend|not recommend"}</think>{"decision": "not recommend", "rationale_ingredients": '
        '[{"condition": "chronic kidney disease", "ingredients": ["cheese"]}]}'
    ),
    "3": "Decision: Not Recommended. The dish is high in sodium.",
    "4": '{"decision": "Recommend.", "rationale_ingredients": []}',
    "5": (
        '```json\n{"decision": "not_recommend", "rationale_ingredients": '
        '[{"condition": "Type-2 Diabetes", "ingredients": ["white rice"]}, '
        '{"condition": "hypertension", "ingredients": ["soy sauce", "sesame oil"]}]}\n```'
    ),
    "6": "",
}
RANK = {
    "CRMCQ_0001": '{"ranking": ["A","B","D","C"], "best_option": "A"}',
    "CRMCQ_0002": "Based on the analysis, C is best, then A, B, D.",
    "CRMCQ_0003": '{"ranking": ["Option B", "Option A", "Option D", "Option C"], "best_option": "B"}',
    "CRMCQ_0004": '{"ranking": ["D","C","B","A"]}',
    "CRMCQ_0005": "I think A is best.",
}
DECISION = {
    "CRMCQ_0001": (
        '{"option_decisions": {"A": {"decision": "recommend", "risk_level": "low"}, '
        '"B": {"decision": "not_recommend"}, "C": {"decision": "not recommend"}, "D": {"decision": "Not Recommended"}}}'
    ),
    "CRMCQ_0002": (
        '{"option_decisions": {"A": {"decision": "recommend"}, "B": {"decision": "recommend"}, '
        '"C": {"decision": "not_recommend"}, "D": {"decision": "not_recommend"}}}'
    ),
    "CRMCQ_0003": (
        '{"option_decisions": {"a": {"decision": "not_recommend"}, "b": {"decision": "recommend"}, '
        '"c": {"decision": "recommend"}, "d": {"decision": "avoid"}}}'
    ),
    "CRMCQ_0004": '{"option_decisions": {}}',
}  # CRMCQ_0005 has no recorded decision output: the replay model answers ""

EXPECTED = {
    "fambench_task1_textonly": {
        "decision_acc": 500 / 6,
        "decision_acc_official": 200 / 6,
        "rationale_macro_f1": (0.5 + 2 / 3 + 0 + 0 + 0.8 + 0) / 6,
        "rationale_micro_f1": 8 / 15,
        "rationale_micro_precision": 2 / 3,
        "rationale_micro_recall": 4 / 9,
        "rationale_macro_f1_by_condition": (2 / 3 + 2 / 3 + 4 / 7 + 0 + 0) / 5,
        "rationale_macro_f1_official": 0.5 / 6,
        "rationale_micro_f1_official": 2 / 11,
        "json_parse_rate": 400 / 6,  # percent (version 1.2)
        "json_parse_rate_official": 100 / 6,
        "invalid_rate": 100 / 6,
        "empty_rationale_rate": 50.0,
        "image_missing": 0,
    },
    "fambench_task1": {
        "decision_acc": 100.0,
        "decision_acc_official": 40.0,
        "rationale_macro_f1": (0.5 + 2 / 3 + 0.8) / 5,
        "rationale_micro_f1": 4 / 7,
        "image_missing": 1,
    },
    "fambench_task2": {
        "top1_acc": 50.0,
        "top1_acc_official": 50.0,
        "mrr": 0.5,
        "mrr_parsed": 1.0,
        "mrr_official": 0.5625,
        "top2_acc": 50.0,
        "top3_acc": 50.0,
        "kendall_tau": 4 / 6,
        "valid_ranking_rate": 50.0,
        # Official: Q5 "I think A is best." has no ranking but an answer letter, so it is a "parsed" row.
        "answer_rate_official": 100.0,
        "image_missing": 1,
    },
    "fambench_task2_ctc": {
        "ctc": 5 / 7,
        "ctc_official_parsers": 1.0,
        "ctc_pool": 2,
        "ctc_pairs": 7,
        "top1_acc": 50.0,
        "mrr": 0.5,
        "option_decision_acc": 50.0,
        "image_missing": 1,
    },
    "fambench_task2_decision": {
        # robust 8/16 options (Q4 excluded); official: only Q2's payload survives (2/4), the rest predict nothing
        "option_decision_acc": 50.0,
        "option_decision_acc_official": 12.5,
        "all_options_exact_match": 0.0,
        "false_recommend_rate": 12.5,
        "valid_decision_rate": 75.0,
        # official answer_rate_pct: Q2's payload, and Q1/Q3 through the letter fallback (the JSON key "A")
        "answer_rate_official": 75.0,
    },
    "fambench_task1_imageonly_ki": {"decision_acc": 100.0, "decision_acc_official": 40.0, "image_missing": 1},
    # the same outputs in all four modes: the shared pool is Q1 and Q3 (Q2 has no robust ranking, Q5 nothing)
    "fambench_task2_ctc_all": {
        **{f"ctc_{m}": 5 / 7 for m in ("baseline", "cot", "ki", "cot_ki")},
        **{f"ctc_{m}_official_parsers": 1.0 for m in ("baseline", "cot", "ki", "cot_ki")},
        **{f"top1_acc_{m}": 50.0 for m in ("baseline", "cot", "ki", "cot_ki")},
        "ctc_pool": 2,
        "ctc_pool_official_parsers": 1,
        "mrr_cot_ki": 0.5,
        "image_missing": 1,
    },
}


@pytest.fixture(scope="module")
def fam_run(tmp_path_factory):  # type: ignore[no-untyped-def]
    root = fambench_fixture.build(tmp_path_factory.mktemp("fam_mirror"))
    work = tmp_path_factory.mktemp("fam_run")
    lines = [{"replay_key": k, "response": v} for k, v in T1.items()]
    for mode in ("baseline", "cot", "ki", "cot_ki"):
        lines += [{"replay_key": f"{q}:rank:{mode}", "response": v} for q, v in RANK.items()]
        lines += [{"replay_key": f"{q}:decision:{mode}", "response": v} for q, v in DECISION.items()]
    responses = work / "responses.jsonl"
    responses.write_text("\n".join(json.dumps(line) for line in lines) + "\n")
    env = {"FOOD_TASKS_DATA_DIR": str(root), "FOOD_TASKS_CACHE_DIR": str(work / "cache")}
    args = [
        "--model",
        "food_tasks_replay",
        "--model_args",
        f"responses={responses},keys=replay_key,default=",  # documents without a line answer ""
        "--tasks",
        ",".join(EXPECTED),
    ]
    return run_lmms_eval(args, work / "out", env=env)


@pytest.mark.parametrize("task", list(EXPECTED))
def test_fambench_metrics_exact(fam_run, task):
    proc, results, samples = fam_run
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert results is not None and task in results["results"], proc.stderr[-3000:]
    got = results["results"][task]
    for metric, value in EXPECTED[task].items():
        assert got[f"{metric},none"] == pytest.approx(value, abs=1e-9), (task, metric)


def test_fambench_per_condition_and_samples(fam_run):
    _, results, samples = fam_run
    table = results["results"]["fambench_task2"]["per_condition,none"]
    assert table == {
        "Hypertension": {"n": 1, "top1_acc": 0.0},
        "Obesity weight management": {"n": 2, "top1_acc": 50.0},
        "Type 2 diabetes + Hypertension": {"n": 1, "top1_acc": 100.0},
    }
    t1 = results["results"]["fambench_task1_textonly"]["per_condition,none"]
    assert t1["type 2 diabetes"] == {"n": 2, "decision_acc": 100.0, "rationale_micro_f1": pytest.approx(2 / 3)}
    assert len(samples["fambench_task2_ctc"]) == 10  # five questions x (rank, decision)
    assert len(samples["fambench_task1"]) == 6


@pytest.mark.parametrize("task", list(EXPECTED))
def test_fambench_standard_errors_in_the_results(fam_run, task):
    # Every metric with an estimator gets a standard error and its n (Task 1: clusters are dishes; Task 2: questions).
    from food_tasks.lmms import facts

    _, results, _ = fam_run
    got = results["results"][task]
    table = facts.tables_for(task)[0]
    named = [m for m in table.values() if m.estimator is not None]
    assert named
    for metric in named:
        value, stderr = got[f"{metric.name},none"], got[f"{metric.name}_stderr,none"]
        clusters = got[f"{metric.name}_clusters,none"]
        if value is None or clusters < 2:  # nothing to measure (undefined: null in the file), or one question
            assert stderr == "N/A", (task, metric.name)  # ctc_official_parsers: a pool of one question
            continue
        assert isinstance(stderr, float) and stderr >= 0, (task, metric.name, stderr)
        assert clusters <= got[f"{metric.name}_n,none"], (task, metric.name)
    assert sum(isinstance(got[f"{m.name}_stderr,none"], float) for m in named) >= len(named) - 4
