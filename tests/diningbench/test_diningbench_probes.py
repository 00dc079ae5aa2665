"""DiningBench VQA's judge_info carries the judge probes (food_tasks.judge.probes) judged through its robust request:
a naive local judge (yes whenever the answer says yes / correct / 是) is named, an honest one credits no wrong probe,
and judge_acc is the records' alone."""

from __future__ import annotations

import json

from judge_server import JudgeServer, prediction_in, protocol_reply

from food_tasks.hooks import convention as hooks
from food_tasks.judge import client as judge_client
from food_tasks.judge import probes as P
from food_tasks.utils import diningbench as U

BY_ANSWER = {p.answer: p for p in P.PROBES}


def _doc(idx, question, gold):  # type: ignore[no-untyped-def]
    from food_tasks.benchmarks.diningbench import parsing

    gold_json = json.dumps(gold, ensure_ascii=False)
    return {"idx": idx, "id": str(idx), "prompt": question + parsing.VQA_ENDING_EN, "gold_json": gold_json,
            "model_name": "", "cot": False, "images": []}  # fmt: skip


def _naive(prompt: str) -> str:
    answer = prediction_in(prompt)
    return protocol_reply(prompt, any(w in answer.lower() for w in ("yes", "correct", "是")))


def _honest(prompt: str) -> str:
    answer = prediction_in(prompt)
    probe = BY_ANSWER.get(answer)
    return protocol_reply(prompt, probe.right if probe is not None else answer == "Yes")


def test_diningbench_judge_info_has_the_probes(monkeypatch, tmp_path):
    with JudgeServer(_naive) as a, JudgeServer(_honest) as b:
        for name, value in {
            "FOOD_TASKS_JUDGE_MODEL": "naive-judge,honest-judge",
            "FOOD_TASKS_JUDGE_URL": f"{a.url},{b.url}",
            "OPENAI_API_KEY": "",
            "API_TYPE": "openai",
            "FOOD_TASKS_JUDGE_CACHE": str(tmp_path / "judge-cache"),
            "FOOD_TASKS_JUDGE_ATTEMPTS": "1",
            "FOOD_TASKS_JUDGE_REPEATS": "1",
            "FOOD_TASKS_JUDGE_PROBES": "1",
            "FOOD_TASKS_DININGBENCH_MODEL_NAME": "",
        }.items():
            monkeypatch.setenv(name, value)
        monkeypatch.delenv("FOOD_TASKS_JUDGE_TEMPERATURE", raising=False)
        judge_client.client_for.cache_clear()
        try:
            payloads = [
                U.process_results_vqa(_doc(i, f"Question {i}?", "Yes"), [o]) for i, o in enumerate(["Yes", "No"])
            ]
            acc = hooks.aggregate([p["judge_acc"] for p in payloads])
            info = hooks.aggregate([p["judge_info"] for p in payloads])
        finally:
            judge_client.client_for.cache_clear()
    probes = info["probes"]
    assert probes["status"] == "on" and probes["credulous"] == ["naive-judge"]
    naive = probes["per_judge"]["naive-judge"]["judge_probe_false_credit_rate"]
    assert naive["value"] > 0 and naive["n"] == 24
    honest = probes["per_judge"]["honest-judge"]
    assert honest["judge_probe_false_credit_rate"]["value"] == 0.0 and honest["judge_probe_miss_rate"]["value"] == 0.0
    assert acc == 50.0  # the records' verdicts only ("Yes" right, "No" wrong), probes never in judge_acc
