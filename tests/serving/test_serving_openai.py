"""``--model openai`` (lmms-eval 0.7.3's chat OpenAI-compatible class, run for real) against a local server.

The server (tests/serving/chat_server.py) speaks the chat-completions API on 127.0.0.1, records each
HTTP request and injects faults. Retries happen at two levels, both exercised here: the OpenAI SDK
retries a 5xx or a dropped connection twice (3 HTTP requests per call), and lmms-eval repeats the call
``max_retries`` times; a request that still fails reaches our hooks as lmms-eval's
``[LMMS_EVAL_REQUEST_FAILED ...]`` marker, which we score as no answer (unparseable, logged).
"""

from __future__ import annotations

import functools
from types import SimpleNamespace

import pytest
from chat_server import ChatServer
from conftest import run_lmms_eval
from serving_harness import (
    assert_engine_saw_every_request,
    metric_values,
    replay_reference,
    requests,
    run_names,
    write_script,
)

pytestmark = pytest.mark.e2e

MAX_RETRIES = 2  # lmms-eval attempts per request (model_args); the SDK adds 2 retries to each


def _request(task: str, position: int):  # type: ignore[no-untyped-def]
    return next(r for r in requests() if r.task == task and r.position == position)


WC_1A = "worldcuisines_mcq_sample_1a_nocontext"


@functools.cache
def _faulty() -> SimpleNamespace:
    """The requests given faults (built at first use, not at collection: reading the documents takes seconds)."""
    return SimpleNamespace(
        recover_500_drop=_request(WC_1A, 0),  # 500, then a dropped connection, then the answer (SDK retries)
        recover_504=_request(WC_1A, 1),  # a gateway timeout, then the answer
        fail_wc=_request(WC_1A, 2),  # en, gold 2, scripted "2": every attempt 500
        fail_fb=_request("fambench_task1_sample", 0),  # the fully right Task 1 row: every attempt 500
    )


ALWAYS = [500] * (3 * MAX_RETRIES)


@pytest.fixture(scope="module")
def openai_run(tmp_path_factory):  # type: ignore[no-untyped-def]
    work = tmp_path_factory.mktemp("openai")
    f = _faulty()
    faults = {
        f.recover_500_drop.key: [500, "drop"],
        f.recover_504.key: [504],
        f.fail_wc.key: ALWAYS,
        f.fail_fb.key: ALWAYS,
    }
    script = write_script(work / "script.json", faults)
    with ChatServer(script, max_requests=400, lifetime_s=600) as server:
        env = {"OPENAI_API_BASE": server.base_url, "OPENAI_API_KEY": "test-key"}
        args = [
            "--model",
            "openai",
            "--model_args",
            f"model=served-model,max_retries={MAX_RETRIES},retry_backoff_s=0.1,num_concurrent=4",
            "--tasks",
            run_names(),
        ]
        proc, results, samples = run_lmms_eval(args, work / "out", env=env)
    assert proc.returncode == 0 and results is not None, proc.stderr[-4000:]
    return results, samples, server.records, proc


def test_requests_reached_the_server(openai_run):  # type: ignore[no-untyped-def]
    _, _, records, _ = openai_run
    answered = [r for r in records if r["fault"] is None]
    failed_keys = {_faulty().fail_wc.key, _faulty().fail_fb.key}
    assert_engine_saw_every_request(
        [r["body"]["messages"] for r in answered if r["key"] not in failed_keys]
        + [r["body"]["messages"] for r in records if r["key"] in failed_keys and r["attempt"] == 0]
    )
    by_key = {r.key: r for r in requests()}
    for record in records:
        body = record["body"]
        family = by_key[record["key"]].family
        # Greedy and our token budget; no top_p and no stop strings (lmms-eval's openai class forwards neither).
        assert {k: v for k, v in body.items() if k != "messages"} == {
            "model": "served-model",
            "max_tokens": family.max_new_tokens,
            "temperature": 0,
        }


def test_retries(openai_run):  # type: ignore[no-untyped-def]
    _, _, records, _ = openai_run
    attempts = {}
    for record in records:
        attempts.setdefault(record["key"], []).append(record["fault"])
    assert attempts[_faulty().recover_500_drop.key] == [500, "drop", None]  # all within one SDK call
    assert attempts[_faulty().recover_504.key] == [504, None]
    assert attempts[_faulty().fail_wc.key] == ALWAYS  # 3 SDK requests x MAX_RETRIES lmms-eval attempts
    assert attempts[_faulty().fail_fb.key] == ALWAYS
    assert len(records) == len(requests()) + 2 + 1 + 2 * (len(ALWAYS) - 1)


def test_scores_and_failed_requests(openai_run):  # type: ignore[no-untyped-def]
    results, samples, _, proc = openai_run
    affected = {WC_1A, "worldcuisines_mcq_sample", "fambench_task1_sample"}  # hold a failed request
    values = metric_values(results)
    ref = metric_values(replay_reference())
    assert set(values) == set(ref)
    for name in set(ref) - affected:
        assert values[name] == ref[name], name
    # The failed WorldCuisines request (en, gold 2) is unparseable, not "2" read from "after 2 retries".
    assert values[WC_1A]["acc"] == pytest.approx(600 / 9) and values[WC_1A]["invalid_rate"] == pytest.approx(200 / 9)
    # FAM-Bench: the failed row was the fully right one; now no decision and no rationale.
    t1 = values["fambench_task1_sample"]
    assert t1["decision_acc"] == 25.0 and t1["invalid_rate"] == 50.0
    assert t1["rationale_macro_f1"] == pytest.approx((2 / 3) / 4)
    assert values["worldcuisines_mcq_sample"]["acc"] == pytest.approx((600 / 9 + 3 * 700 / 9) / 4)
    logged = {s["doc_id"]: s for s in samples[WC_1A]}
    failed = f"[LMMS_EVAL_REQUEST_FAILED after {MAX_RETRIES} retries]"
    assert logged[_faulty().fail_wc.position]["filtered_resps"].startswith(failed)
    # Counted once per task, not logged per document.
    log = proc.stdout + proc.stderr
    assert f"{WC_1A}: 1 of 9 requests got no answer from the backend" in log
    assert "fambench_task1_sample: 1 of 4 requests got no answer from the backend" in log
