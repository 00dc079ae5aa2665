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
