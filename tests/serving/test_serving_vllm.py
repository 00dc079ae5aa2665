"""``--model vllm`` (lmms-eval 0.7.3's chat vLLM class, run for real) against a stand-in ``vllm`` module.

vLLM's GPU build cannot be installed here, so the boundary is proven instead: the stand-in
(tests/serving/stand_ins/vllm) records the engine arguments, every conversation and its sampling
parameters, and answers from the script; the scores must be the scripted answers' scores.
"""

from __future__ import annotations

import pytest
from conftest import run_lmms_eval
from engine_script import read_log
from serving_harness import (
    FAMILIES,
    assert_engine_saw_every_request,
    assert_scores,
    replay_reference,
    requests,
    run_names,
    stand_in_env,
    write_script,
)

pytestmark = pytest.mark.e2e

# lmms-eval's vLLM class sends max(task budget, model_args max_new_tokens) to the engine (default 4096).
# 49 sits between our budgets (WorldCuisines 50, FAM-Bench samples 48) to show both sides of that max.
FLOOR = 49


@pytest.fixture(scope="module")
def vllm_run(tmp_path_factory):  # type: ignore[no-untyped-def]
    work = tmp_path_factory.mktemp("vllm")
    script, log = work / "script.json", work / "engine.jsonl"
    write_script(script)
    args = [
        "--model",
        "vllm",
        "--model_args",
        f"model=Qwen/Qwen2-VL-2B-Instruct,tensor_parallel_size=2,max_new_tokens={FLOOR}",
        "--tasks",
        run_names(),
        "--batch_size",
        "8",
    ]
    proc, results, samples = run_lmms_eval(args, work / "out", env=stand_in_env(script, log))
    assert proc.returncode == 0 and results is not None, proc.stderr[-4000:]
    return results, samples, read_log(log), proc


def test_engine_arguments(vllm_run):  # type: ignore[no-untyped-def]
    _, _, log, _ = vllm_run
    inits = [e for e in log if e["event"] == "init"]
    assert len(inits) == 1
    assert inits[0]["model"] == "Qwen/Qwen2-VL-2B-Instruct"
    assert inits[0]["kwargs"]["tensor_parallel_size"] == 2 and inits[0]["kwargs"]["data_parallel_size"] == 1


def test_conversations_reached_the_engine(vllm_run):  # type: ignore[no-untyped-def]
    _, _, log, _ = vllm_run
    chats = [e for e in log if e["event"] == "chat"]
    assert all(e["scripted"] for e in chats)
    assert_engine_saw_every_request([e["messages"] for e in chats])
    by_key = {e["key"]: e["messages"] for e in chats}
    # FAM-Bench Task 1: a system turn, then the image before the JSON payload.
    t1 = next(r for r in requests() if r.task == "fambench_task1_sample")
    assert [m["role"] for m in by_key[t1.key]] == ["system", "user"]
    assert [p["type"] for p in by_key[t1.key][1]["content"]] == ["image_url", "text"]
    # FAM-Bench CTC: prompt, then "Option X:" and that option's image, A-D.
    ctc = next(r for r in requests() if r.task == "fambench_task2_ctc_sample")
    content = by_key[ctc.key][0]["content"]
    assert [p["type"] for p in content] == ["text"] + ["text", "image_url"] * 4
    assert [p["text"] for p in content[1::2]] == ["Option A:", "Option B:", "Option C:", "Option D:"]
    # WorldCuisines: one user turn, image first, no system turn.
    w = next(r for r in requests() if r.family.name == "worldcuisines")
    assert [(m["role"], [p["type"] for p in m["content"]]) for m in by_key[w.key]] == [("user", ["image_url", "text"])]


def test_sampling_parameters(vllm_run):  # type: ignore[no-untyped-def]
    _, _, log, _ = vllm_run
    task_of = {r.key: r for r in requests()}
    for entry in (e for e in log if e["event"] == "chat"):
        family = task_of[entry["key"]].family
        # Greedy (temperature 0; lmms-eval adds top_p 0.95, which greedy decoding ignores); no stop strings
        # (our YAML has `until: []`, and lmms-eval's vLLM class would not forward them anyway).
        assert entry["sampling_params"] == {
            "max_tokens": max(family.max_new_tokens, FLOOR),
            "temperature": 0,
            "top_p": 0.95,
        }
        assert entry["chat_template"] is None
        # Nothing else reaches LLM.chat: no continue_final_message, so vLLM would close a trailing assistant
        # turn (a prefill) and open a new one rather than continue it. None of these tasks has a prefill.
        assert entry["chat_kwargs"] == {}


def test_scores_are_the_scripted_answers_scores(vllm_run):  # type: ignore[no-untyped-def]
    results, samples, _, _ = vllm_run
    assert_scores(results, replay_reference())
    assert sum(len(v) for v in samples.values()) == len(requests())
    assert {f.name for f in FAMILIES} == {"worldcuisines", "fambench", "foodieqa", "diningbench", "food500cap"}


def test_budget_note_at_run_time(vllm_run):  # type: ignore[no-untyped-def]
    *_, proc = vllm_run
    assert (
        "food-tasks: lmms-eval's vllm backend sends max_tokens = max(task max_new_tokens, "
        f"model_args max_new_tokens = {FLOOR})" in (proc.stdout + proc.stderr)
    )
