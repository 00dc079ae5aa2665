"""Open-answer regional tasks graded by an LLM judge (``metadata.regional.judge``): the block's settings and checks,
and the task's judge metrics.

The judge model and its endpoint come from the environment, as for DiningBench VQA (``FOOD_TASKS_JUDGE_MODEL``,
several judges ``a,b``: docs/judge.md); the YAML chooses the prompt (fields ``{question}``, ``{answer}``,
``{prediction}``; default :data:`JUDGE_PROMPT`), ``max_tokens`` and ``temperature``. Every record is judged by every
judge through the one judge client (cache, retries, failure accounting) when the task aggregates.
"""

from __future__ import annotations

import string
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

JUDGE_KEYS = ("prompt", "max_tokens", "temperature")
JUDGE_FIELDS = ("question", "answer", "prediction")
# The default judge prompt of an open-answer task (metadata.regional.judge without a prompt): English, yes/no.
JUDGE_PROMPT = (
    "You are grading an answer to a question about food. Decide whether the candidate answer means the same as "
    "the reference answer; wording, spelling and language may differ.\n\n"
    "Question:\n{question}\n\n"
    "Reference answer:\n{answer}\n\n"
    "Candidate answer:\n{prediction}\n\n"
    "Is the candidate answer correct? Reply with one word: yes or no."
)
JUDGE_MAX_TOKENS = 16
ANSWER_JOIN = " / "  # several accepted answers in one {answer}


@dataclass(frozen=True)
class JudgeSettings:
    """The ``metadata.regional.judge`` block of an open-answer task: its prompt template (fields ``{question}``,
    ``{answer}``, ``{prediction}``) and the request's ``max_tokens`` and ``temperature``. The judge model and its
    endpoint come from the environment, as for every judged task (``FOOD_TASKS_JUDGE_MODEL``: docs/judge.md)."""

    prompt: str = JUDGE_PROMPT
    max_tokens: int = JUDGE_MAX_TOKENS
    temperature: float = 0.0

    @classmethod
    def from_block(cls, block: Any) -> JudgeSettings | None:
        """None for no judge (no ``judge`` key, or ``false``); the block is checked by :func:`settings_problems`."""
        if block is None or block is False:
            return None
        block = block if isinstance(block, Mapping) else {}
        return cls(
            prompt=block.get("prompt") or JUDGE_PROMPT,
            max_tokens=int(block.get("max_tokens") or JUDGE_MAX_TOKENS),
            temperature=float(block.get("temperature") or 0.0),
        )

    def fill(self, question: str, answer: str, prediction: str) -> str:
        """The prompt of one row (the values are not scanned for fields again: braces in an answer stay)."""
        return self.prompt.format(question=question, answer=answer, prediction=prediction)


def judge_problems(judge: Any, fmt: Any) -> list[str]:
    """What is wrong with ``metadata.regional.judge``: not a mapping (or ``true``), a task that is not open-answer,
    an unknown key, a prompt with a field other than {question}, {answer}, {prediction} or without {prediction},
    a ``max_tokens`` that is not a positive integer, a ``temperature`` that is not a number from 0 to 2."""
    where = "metadata.regional.judge"
    if judge is not True and not isinstance(judge, Mapping):
        return [f"{where}: give a mapping (prompt, max_tokens, temperature; each optional) or `true`"]
    problems = [] if fmt != "mcq" else [f"{where}: only open-answer tasks (format: open) are judged; remove it"]
    judge = judge if isinstance(judge, Mapping) else {}
    problems += [f"{where}.{k}: unknown key (known: {', '.join(JUDGE_KEYS)})" for k in judge if k not in JUDGE_KEYS]
    prompt = judge.get("prompt")
    if prompt is not None and not isinstance(prompt, str):
        problems.append(f"{where}.prompt: must be a string")
    elif isinstance(prompt, str):
        try:
            fields = dict.fromkeys(f for _, f, _, _ in string.Formatter().parse(prompt) if f is not None)
        except ValueError as err:
            return [*problems, f"{where}.prompt: {err} (write literal braces as {{{{ }}}})"]
        known = ", ".join(f"{{{f}}}" for f in JUDGE_FIELDS)
        problems += [f"{where}.prompt: {{{f}}} is not one of {known}" for f in fields if f not in JUDGE_FIELDS]
        if "prediction" not in fields:
            problems.append(f"{where}.prompt: must contain {{prediction}} (the model's answer the judge grades)")
    tokens = judge.get("max_tokens")
    if tokens is not None and (isinstance(tokens, bool) or not isinstance(tokens, int) or tokens < 1):
        problems.append(f"{where}.max_tokens: {tokens!r} is not a positive integer")
    temperature = judge.get("temperature")
    if temperature is not None and (
        isinstance(temperature, bool) or not isinstance(temperature, (int, float)) or not 0 <= temperature <= 2
    ):
        problems.append(f"{where}.temperature: {temperature!r} is not a number from 0 to 2")
    return problems


def judge_from_env(purpose: str) -> Any:
    """The judges the environment configures for ``purpose`` (None: judging is off, ``FOOD_TASKS_JUDGE_MODEL=none``).

    Raises:
        JudgeNotConfigured: no judge is configured (the message says how), as for DiningBench VQA.
    """
    from food_tasks.judge.client import JudgeConfig

    return JudgeConfig.from_env(purpose)
