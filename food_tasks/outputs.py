"""The model output a ``process_results`` hook scores, as a backend hands it over.

lmms-eval's API backends put a marker string where the answer would be when a request finally
fails (the ``openai`` chat model: ``"[LMMS_EVAL_REQUEST_FAILED after N retries] <error>"``) or the
run's token budget is spent (``"[LMMS_EVAL_BUDGET_EXCEEDED]"``). Scored as text, "after 2 retries"
reads as answer 2. It is no answer: :func:`model_output` turns it into the empty output, which every
scorer counts as unparseable (``invalid_rate`` and its kin), and logs the failure.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from loguru import logger

# Markers written by lmms-eval 0.7.x (models/chat/openai.py, models/simple/openai.py and the backends built on them).
BACKEND_FAILURE_PREFIXES = ("[LMMS_EVAL_REQUEST_FAILED", "[LMMS_EVAL_BUDGET_EXCEEDED]")


def backend_failure(output: Any) -> bool:
    """True when ``output`` is lmms-eval's marker for a request that produced no answer."""
    return isinstance(output, str) and output.lstrip().startswith(BACKEND_FAILURE_PREFIXES)


def model_output(results: Sequence[Any]) -> Any:
    """``results[0]``, or ``""`` when the backend reports that the request failed (logged, with its marker)."""
    output = results[0] if results else None
    if backend_failure(output):
        logger.warning(f"food-tasks: the backend returned no answer for a request, scored as unparseable: {output[:200]!r}")
        return ""
    return output
