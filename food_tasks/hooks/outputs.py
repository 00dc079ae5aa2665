"""The model output a ``process_results`` hook scores, as a backend hands it over.

lmms-eval's API backends put a marker string where the answer would be when a request finally
fails (the ``openai`` chat model: ``"[LMMS_EVAL_REQUEST_FAILED after N retries] <error>"``) or the
run's token budget is spent (``"[LMMS_EVAL_BUDGET_EXCEEDED]"``). Scored as text, "after 2 retries"
reads as answer 2. It is no answer: :func:`model_output` turns it into :class:`NoAnswer`, an empty string
that remembers the marker, which every scorer counts as unparseable (``parse_fail_rate`` and its kin).
The run reports the failures once per task, with their count (:mod:`food_tasks.lmms.harness`).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

from loguru import logger

# Markers written by lmms-eval 0.7.x (models/chat/openai.py, models/simple/openai.py and the backends built on them).
BACKEND_FAILURE_PREFIXES = ("[LMMS_EVAL_REQUEST_FAILED", "[LMMS_EVAL_BUDGET_EXCEEDED]")


def backend_failure(output: Any) -> bool:
    """True when ``output`` is lmms-eval's marker for a request that produced no answer."""
    return isinstance(output, str) and output.lstrip().startswith(BACKEND_FAILURE_PREFIXES)


class NoAnswer(str):
    """The answer of a request the backend reports as failed: the empty string, with lmms-eval's marker kept in
    ``reason``. Scorers that tell "no answer" from "an empty answer" check ``isinstance(output, NoAnswer)``."""

    reason: str

    def __new__(cls, reason: str = "") -> NoAnswer:
        obj = super().__new__(cls, "")
        obj.reason = reason
        return obj

    def __reduce__(self) -> tuple[type[NoAnswer], tuple[str]]:
        return (NoAnswer, (self.reason,))


def model_output(results: Sequence[Any]) -> Any:
    """``results[0]``, or :class:`NoAnswer` (``""``) when the backend reports that the request failed."""
    output = results[0] if results else None
    if backend_failure(output):
        logger.debug(
            f"food-tasks: the backend returned no answer for a request, scored as unparseable: {output[:200]!r}"
        )
        return NoAnswer(output[:500])
    return output


_SURROGATE = re.compile("[\ud800-\udfff]")


def utf8_safe(text: str) -> str:
    """``text`` with every lone UTF-16 surrogate (``'\\udf20'``, as byte-level tokenizers and ``surrogateescape``
    decoding produce) replaced by U+FFFD: no UTF-8 encoder takes a surrogate, so one of them would fail whatever
    encodes the whole text (a request body, a hash, a cache or results file). Linear time; other text unchanged."""
    return text if text.isascii() else _SURROGATE.sub("\ufffd", text)


def safe_str(value: Any) -> str:
    """``str(value)`` for whatever a backend returned, never raising: a non-string answer that ``str`` cannot
    render (a 10,000-deep list raises RecursionError, an int of more than 4,300 digits ValueError) is ``""``,
    the unparseable answer."""
    if isinstance(value, str):
        return value
    try:
        return str(value)
    except Exception:  # noqa: BLE001 - any failure to render is an unparseable answer, never a lost task
        return ""
