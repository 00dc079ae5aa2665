"""Run-time notes on what lmms-eval's serving backends change about our tasks' requests."""

from __future__ import annotations

import pytest

from food_tasks.lmms.serving import backend_notes, parse_model_args, warn_for_cli


def test_parse_model_args():
    assert parse_model_args("model=Qwen/Qwen2-VL-7B-Instruct,tensor_parallel_size=2, max_new_tokens = 1") == {
        "model": "Qwen/Qwen2-VL-7B-Instruct",
        "tensor_parallel_size": "2",
        "max_new_tokens": "1",
    }
    assert parse_model_args("") == {}


@pytest.mark.parametrize(
    ("model", "args", "says"),
    [
        ("vllm", "model=m", "4096 (its default)"),
        ("vllm", "model=m,max_new_tokens=512", "= 512"),
        ("vllm", "model=m,max_new_tokens=1", None),
        ("vllm_chat", "max_new_tokens=0", None),
        ("openai", "model=m,timeout=30", "does not pass timeout=30"),
        ("openai", "model=m", None),
        ("qwen2_vl", "pretrained=x", None),
        ("food_tasks_replay", "responses=r.jsonl", None),
    ],
)
def test_backend_notes(model, args, says):
    notes = backend_notes(model, args)
    assert (notes == []) if says is None else (len(notes) == 1 and says in notes[0])


def test_warn_only_for_our_tasks():
    argv = ["lmms-eval", "--model", "vllm", "--model_args", "model=m", "--tasks", "mmmu_val,worldcuisines_mcq"]
    assert len(warn_for_cli(argv, ["worldcuisines", "fambench"])) == 1
    assert warn_for_cli(["lmms-eval", "--model=vllm", "--tasks=mmmu_val"], ["worldcuisines"]) == []
    assert len(warn_for_cli(["lmms-eval", "--model=vllm", "--tasks=fambench_table1"], ["fambench"])) == 1
    assert warn_for_cli(["pytest", "-q"], ["worldcuisines"]) == []
