"""Test-only stand-in for the ``vllm`` package (never installed; put on PYTHONPATH by tests/serving).

It exposes what lmms-eval 0.7.3's vLLM backends import (``LLM``, ``SamplingParams``), records what
they are given (engine arguments, OpenAI-format messages, sampling parameters) and answers from the
script named by ``FOOD_TASKS_ENGINE_SCRIPT`` (see tests/serving/engine_script.py). An unscripted
request gets the empty answer and is logged as such.
"""

from __future__ import annotations

from types import SimpleNamespace

import engine_script

__version__ = "0.0.0+food-tasks-stand-in"

# The keyword arguments vLLM's SamplingParams accepts (vLLM 0.6-0.11); anything else is a TypeError there too.
_SAMPLING_FIELDS = {
    "n",
    "best_of",
    "presence_penalty",
    "frequency_penalty",
    "repetition_penalty",
    "temperature",
    "top_p",
    "top_k",
    "min_p",
    "seed",
    "stop",
    "stop_token_ids",
    "bad_words",
    "ignore_eos",
    "max_tokens",
    "min_tokens",
    "logprobs",
    "prompt_logprobs",
    "detokenize",
    "skip_special_tokens",
    "spaces_between_special_tokens",
    "logits_processors",
    "include_stop_str_in_output",
    "truncate_prompt_tokens",
    "output_kind",
    "guided_decoding",
    "logit_bias",
    "allowed_token_ids",
    "extra_args",
    "structured_outputs",
}


class SamplingParams:
    def __init__(self, **kwargs):  # type: ignore[no-untyped-def]
        unknown = sorted(set(kwargs) - _SAMPLING_FIELDS)
        if unknown:
            raise TypeError(f"SamplingParams got unexpected keyword arguments {unknown}")
        self.kwargs = dict(kwargs)


class LLM:
    def __init__(self, model: str, **kwargs):  # type: ignore[no-untyped-def]
        self.script = engine_script.load_script()
        engine_script.log({"event": "init", "model": model, "kwargs": kwargs})

    def chat(self, messages, sampling_params=None, chat_template=None, **kwargs):  # type: ignore[no-untyped-def]
        conversations = messages if messages and isinstance(messages[0], list) else [messages]
        params = sampling_params if isinstance(sampling_params, list) else [sampling_params] * len(conversations)
        if len(params) != len(conversations):
            raise ValueError(f"chat: {len(conversations)} conversations but {len(params)} sampling params")
        outputs = []
        for conversation, param in zip(conversations, params):
            key = engine_script.request_key(conversation)
            entry = self.script.get(key)
            answer = entry["answer"] if entry else ""
            engine_script.log(
                {
                    "event": "chat",
                    "key": key,
                    "scripted": entry is not None,
                    "messages": conversation,
                    "sampling_params": param.kwargs if param is not None else None,
                    "chat_template": chat_template,
                    "chat_kwargs": kwargs,
                }
            )
            outputs.append(SimpleNamespace(outputs=[SimpleNamespace(text=answer, token_ids=[])], prompt=None))
        return outputs

    def get_metrics(self):  # type: ignore[no-untyped-def]
        return []
