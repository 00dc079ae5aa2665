"""food_tasks.judge.family: a judge from the evaluated model's own family, by name."""

from __future__ import annotations

import time

import pytest

from food_tasks.judge.family import FAMILIES, family_of, same_family


@pytest.mark.parametrize(
    ("judge", "model", "family"),
    [
        ("gpt-4o", "gpt-4o-mini", "OpenAI GPT / o-series"),
        ("o3-mini", "openai/gpt-4.1", "OpenAI GPT / o-series"),
        ("Qwen2.5-72B-Instruct", "Qwen/Qwen2-VL-7B-Instruct", "Qwen"),
        ("qwen-vl-max", "/models/checkpoints/Qwen2.5-VL-7B-Instruct/", "Qwen"),
        ("gemini-1.5-pro", "google/gemma-3-27b-it", "Google Gemini / Gemma"),
        ("meta-llama/Llama-3.3-70B-Instruct", "meta-llama/Llama-3.2-11B-Vision-Instruct", "Meta Llama"),
        ("mistral-large-latest", "mistralai/Pixtral-12B-2409", "Mistral / Pixtral"),
        ("claude-3-5-sonnet-20241022", "CLAUDE-3-HAIKU", "Anthropic Claude"),
        ("deepseek-chat", "deepseek-ai/deepseek-vl2-small", "DeepSeek"),
        ("OpenGVLab/InternVL2_5-78B", "OpenGVLab/InternVL2-8B", "InternVL / InternLM"),
        ("microsoft/Phi-3.5-vision-instruct", "phi4", "Microsoft Phi"),
        ("allenai/Molmo-72B-0924", "allenai/Molmo-7B-D-0924", "Molmo"),
        ("llava-hf/llava-v1.6-34b-hf", "lmms-lab/llava-onevision-qwen2-7b-ov", "LLaVA"),
    ],
)
def test_same_family(judge, model, family):  # type: ignore[no-untyped-def]
    assert same_family(judge, model) == family and same_family(model, judge) == family


@pytest.mark.parametrize(
    ("judge", "model"),
    [
        ("gpt-4o", "Qwen/Qwen2-VL-7B-Instruct"),
        ("Qwen2.5-72B-Instruct", "lmms-lab/llava-onevision-qwen2-7b-ov"),  # a LLaVA model on a Qwen base: LLaVA
        ("prod-judge", "prod-judge"),  # an unknown name is no match, even with itself
        ("", ""),
        ("phind-codellama-34b", "phi-3-vision"),  # phind is not Phi
        ("o1x", "o1-mini"),
        ("food_tasks_replay", "food_tasks_replay"),
    ],
)
def test_no_match(judge, model):  # type: ignore[no-untyped-def]
    assert same_family(judge, model) is None


def test_unknown_and_non_strings():  # type: ignore[no-untyped-def]
    assert family_of("my-azure-deployment") is None and family_of(None) is None and family_of(42) is None  # type: ignore[arg-type]
    assert same_family(None, "gpt-4o") is None  # type: ignore[arg-type]


def test_table_is_lower_case_and_linear():  # type: ignore[no-untyped-def]
    assert all(p == p.lower() and p for prefixes in FAMILIES.values() for p in prefixes)
    name = "a/" * 200_000 + "q" * 1_000_000
    start = time.perf_counter()
    assert family_of(name) is None
    assert time.perf_counter() - start < 1.0


def _make_table():  # type: ignore[no-untyped-def]
    import lmms_eval.utils

    return getattr(lmms_eval.utils.make_table, "__wrapped__", lmms_eval.utils.make_table)


def _results(judge_info, model_args="pretrained=Qwen/Qwen2-VL-7B-Instruct"):  # type: ignore[no-untyped-def]
    return {
        "results": {
            "diningbench_vqa_en": {"alias": "vqa", "judge_acc,none": 50.0, "judge_info,none": judge_info},
            "diningbench_vqa_zh": {"alias": "vqa zh", "judge_acc,none": 40.0},
        },
        "groups": {"dining": {"alias": "dining", "judge_acc,none": 45.0}},
        "group_subtasks": {"dining": ["diningbench_vqa_en", "diningbench_vqa_zh"]},
        "config": {"model": "qwen2_vl", "model_args": model_args},
        "n-shot": {},
    }


def test_the_results_table_says_once_when_a_judge_shares_the_models_family():  # type: ignore[no-untyped-def]
    from food_tasks.lmms.results_table import render

    info = {"model": "gpt-4o", "usage": {"gpt-4o": {"model": "gpt-4o"}, "qwen2.5-72b": {"model": "qwen2.5-72b"}}}
    names = {"diningbench_vqa_en", "diningbench_vqa_zh", "dining"}
    tables = [render(_make_table(), _results(info), column, False, names) for column in ("results", "groups")]
    line = "Same-family judge: qwen2.5-72b judges Qwen/Qwen2-VL-7B-Instruct (Qwen): self-preference, see docs/judge.md"
    assert line not in tables[0] and tables[1].count(line) == 1  # under the last table only

    # a judge of another family, an unknown model, no judge at all: no note
    for data in (
        _results({"model": "gpt-4o"}),
        _results(info, model_args="pretrained=/ckpt/my-model"),
        _results(None),
        {**_results({"model": "qwen2.5-72b"}), "config": None},
    ):
        assert "Same-family" not in render(_make_table(), data, "groups", False, names)
    # the replay model names the model it replays with model_name=
    replay = _results({"model": "gpt-4.1"}, model_args="responses=preds.jsonl,model_name=openai/gpt-4o-mini")
    assert "gpt-4.1 judges openai/gpt-4o-mini (OpenAI GPT / o-series)" in render(
        _make_table(), replay, "groups", False, names
    )


def test_the_documented_table_is_the_table():  # type: ignore[no-untyped-def]
    from pathlib import Path

    text = (Path(__file__).resolve().parents[2] / "docs" / "judge.md").read_text(encoding="utf-8")
    section = text.split("## A judge from the model's own family", 1)[1].split("\n## ", 1)[0]  # its own table only
    rows = [line.split("|")[1:3] for line in section.splitlines() if line.startswith("| ") and "`" in line]
    documented = {family.strip(): tuple(p.strip(" `") for p in prefixes.split(",")) for family, prefixes in rows}
    assert documented == FAMILIES
