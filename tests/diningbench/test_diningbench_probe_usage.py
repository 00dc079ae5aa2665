"""DiningBench VQA's judge usage counts the judge probes' requests (issue: judge cost under-reported): each judge's
``judge_info`` usage equals what its local server received and reported, probes on (tests/conftest.py turns them
off); the official request, the robust requests and the 34 probes together."""

from __future__ import annotations

import json

from judge_server import JudgeServer, char_usage

from food_tasks.benchmarks.diningbench import parsing as P
from food_tasks.hooks import convention as hooks
from food_tasks.judge import client as judge
from food_tasks.judge import panel as jp
from food_tasks.judge import probes
from food_tasks.utils import diningbench as U


def _doc(idx, question, gold):  # type: ignore[no-untyped-def]
    return {
        "idx": idx,
        "id": str(idx),
        "prompt": question + P.VQA_ENDING_EN,
        "gold_json": json.dumps(gold, ensure_ascii=False),
        "model_name": "",
        "cot": False,
        "images": [],
    }


def test_each_judges_usage_equals_its_servers_totals_probes_included(monkeypatch, tmp_path):
    monkeypatch.delenv("FOOD_TASKS_JUDGE_PRICE", raising=False)
    monkeypatch.delenv("FOOD_TASKS_JUDGE_KEY_VARS", raising=False)
    monkeypatch.delenv("FOOD_TASKS_JUDGE_TEMPERATURE", raising=False)
    with JudgeServer(lambda p: "是", usage=char_usage) as a, JudgeServer(lambda p: "否", usage=char_usage) as b:
        settings = {
            "FOOD_TASKS_JUDGE_PROBES": "1",
            "FOOD_TASKS_JUDGE_MODEL": "judge-a,judge-b",
            "FOOD_TASKS_JUDGE_URL": f"{a.url},{b.url}",
            "OPENAI_API_KEY": "",
            "API_TYPE": "openai",
            "FOOD_TASKS_JUDGE_CACHE": str(tmp_path / "judge-cache"),
            "FOOD_TASKS_JUDGE_ATTEMPTS": "2",
            "FOOD_TASKS_JUDGE_BACKOFF": "0",
            "FOOD_TASKS_JUDGE_TIMEOUT": "5",
            "FOOD_TASKS_JUDGE_REPEATS": "1",
            "FOOD_TASKS_DININGBENCH_MODEL_NAME": "",
        }
        for name, value in settings.items():
            monkeypatch.setenv(name, value)
        judge.client_for.cache_clear()
        probes._COUNTED.clear()  # a fresh process
        payloads = [U.process_results_vqa(_doc(i, f"Question {i}?", "Yes"), [f"answer {i}"]) for i in range(3)]
        info = hooks.aggregate([p["judge_info"] for p in payloads])
        sent = {s: (len(s.requests), s.tokens()) for s in (a, b)}
    judge.client_for.cache_clear()
    probes._COUNTED.clear()
    assert info["probes"]["status"] == "on"
    n = len(probes.PROBES)
    for server, model, official in ((a, "judge-a", 3), (b, "judge-b", 0)):  # the official request: headline only
        usage = info["usage"][model]
        received, (prompt_tokens, completion_tokens) = sent[server]
        assert received == official + 3 + n and usage["requests"] == received and usage["attempts"] == received
        assert (usage["prompt_tokens"], usage["completion_tokens"]) == (prompt_tokens, completion_tokens)
        assert usage["probes"]["requests"] == n and usage["probes"]["completion_tokens"] == n  # one character each
    line = jp.usage_line(jp.total_usage([info["usage"]]))
    assert f"judge-a {sent[a][1][0]:,} + {sent[a][1][1]:,} tokens (40 asked in 40 attempts, 34 of them probes" in line
