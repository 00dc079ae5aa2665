"""DiningBench VQA judge metrics through the hooks, against a local judge server: any model output is one judged
(or failed) row, and each task's judge diagnostics count that task's own requests."""

from __future__ import annotations

import json

import diningbench_fixture as F
import pytest
from judge_server import JudgeServer

from food_tasks.hooks import convention as hooks
from food_tasks.utils import diningbench as U

PRED = "【预测答案】：\n"  # the prediction's place in the judge prompt (whose rules quote an example answer)
JUDGE_METRICS = ("judge_acc", "judge_acc_official", "judge_error_rate", "judge_unparsed_rate", "judge_info")


def _doc(idx, question, gold, ending=F.VQA_ENDING_EN):  # type: ignore[no-untyped-def]
    return {
        "idx": idx,
        "id": str(idx),
        "prompt": question + ending,
        "gold_json": json.dumps(gold, ensure_ascii=False),
        "model_name": "",
        "cot": False,
        "images": [],
    }


@pytest.fixture
def judge_env(monkeypatch, tmp_path):  # type: ignore[no-untyped-def]
    def configure(server: JudgeServer, attempts: int = 2) -> None:
        for name, value in {
            "FOOD_TASKS_JUDGE_MODEL": "judge-test",
            "OPENAI_API_URL": server.url,
            "OPENAI_API_KEY": "",
            "API_TYPE": "openai",
            "FOOD_TASKS_JUDGE_CACHE": str(tmp_path / "judge-cache"),
            "FOOD_TASKS_JUDGE_ATTEMPTS": str(attempts),
            "FOOD_TASKS_JUDGE_BACKOFF": "0",
            "FOOD_TASKS_JUDGE_TIMEOUT": "5",
            "FOOD_TASKS_DININGBENCH_MODEL_NAME": "",
        }.items():
            monkeypatch.setenv(name, value)

    return configure


def _aggregate(payloads, name):  # type: ignore[no-untyped-def]
    return hooks.aggregate([p[name] for p in payloads])


def test_a_lone_surrogate_in_an_output_is_one_judged_row(judge_env):
    """Issue reproducer: process_results_vqa on a VQA document with 'Chi\\udf20cken Kiev', then the judge
    metrics over the payloads. It raised UnicodeEncodeError (surrogates not allowed) in request_key."""
    question, gold, _ = F.VQA_EN[2]
    outputs = ["Chi\udf20cken Kiev", "Pork"]
    with JudgeServer(lambda p: "是" if "Pork" in p.split(PRED)[1] else "否") as server:
        judge_env(server)
        payloads = [U.process_results_vqa(_doc(i, question, gold), [out]) for i, out in enumerate(outputs)]
        got = {name: _aggregate(payloads, name) for name in JUDGE_METRICS}
    sent = [r["body"]["messages"][0]["content"] for r in server.requests]
    assert any("Chi\ufffdcken Kiev" in text for text in sent)
    assert got["judge_acc"] == 50.0 and got["judge_acc_official"] == 50.0 and got["judge_error_rate"] == 0.0
    assert got["judge_info"]["failures"] == 0 and got["judge_info"]["evaluated"] == 2
    json.dumps(got, ensure_ascii=False).encode("utf-8")  # what lmms-eval writes into the results file


def test_judge_diagnostics_are_per_task(judge_env):
    """Two VQA tasks in one process share the judge client; each task's judge_info and warning count its own
    requests (the second task used to report the first task's requests and failures as well)."""
    zh = [_doc(i, q, g, F.VQA_ENDING_ZH) for i, (q, g, _) in enumerate(F.VQA_ZH)]
    en = [_doc(i, q, g) for i, (q, g, _) in enumerate(F.VQA_EN)]
    faults = {PRED + "经历了油炸": ["down"], PRED + "Chicken": ["500"]}
    with JudgeServer(lambda p: "是", faults) as server:
        judge_env(server, attempts=3)
        zh_payloads = [U.process_results_vqa(d, [o]) for d, o in zip(zh, ["经历了油炸", "不符合", "炖", "适合"])]
        zh_info = _aggregate(zh_payloads, "judge_info")
        zh_requests = len(server.requests)
        en_payloads = [U.process_results_vqa(d, [o]) for d, o in zip(en, ["It has been fried", "Not vegan", "Chicken"])]
        en_info = _aggregate(en_payloads, "judge_info")
        en_requests = len(server.requests) - zh_requests
        en_error_rate = _aggregate(en_payloads, "judge_error_rate")
        assert _aggregate(en_payloads, "judge_info") == en_info  # the other metrics of the task change nothing
    # zh: 3 rows with gold, one of them down (3 attempts); en: 3 rows, one 500 then success.
    assert (zh_info["http_requests"], zh_info["failures"], zh_info["failure_reasons"]) == (
        zh_requests,
        1,
        {"http 500": 3},
    )
    assert (en_info["http_requests"], en_info["failures"], en_info["failure_reasons"]) == (
        en_requests,
        0,
        {"http 500": 1},
    )
    # en: 3 official requests (one 500 then success) and 3 robust ones (the judge protocol's: other bodies)
    assert en_requests == 7 and en_error_rate == 0.0 and en_info["evaluated"] == 3


def test_judge_failure_warning_names_the_tasks_own_reasons(judge_env, caplog):
    with JudgeServer(
        lambda p: "是", {PRED + "经历了油炸": ["down"], PRED + "Chicken": ["garbage", "garbage"]}
    ) as server:
        judge_env(server, attempts=2)
        zh = [U.process_results_vqa(_doc(0, F.VQA_ZH[0][0], "是", F.VQA_ENDING_ZH), ["经历了油炸"])]
        _aggregate(zh, "judge_error_rate")
        en = [U.process_results_vqa(_doc(0, "What meat?", "Pork"), ["Chicken"])]
        caplog.clear()
        assert _aggregate(en, "judge_error_rate") == 100.0  # percent (version 1.2)
    assert "unreadable response body" in caplog.text and "http 500" not in caplog.text
