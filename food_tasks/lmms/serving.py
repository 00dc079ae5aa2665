"""What lmms-eval's serving backends change about a task's requests, said when the run starts.

Read from lmms-eval 0.7.3 (models/chat/vllm.py, models/simple/vllm.py, models/chat/openai.py):

- ``vllm``: the engine gets ``max_tokens = max(task max_new_tokens, model_args max_new_tokens)`` and the
  model default is 4096, so a benchmark's budget (50 tokens for some) is replaced unless
  ``max_new_tokens=1`` is passed in ``--model_args``. ``until`` stop strings are not forwarded (ours are
  empty); ``top_p=0.95`` is added (greedy decoding at temperature 0 ignores it).
- ``openai``: ``max_tokens`` and ``temperature`` come from the task; ``until`` is not forwarded; the
  ``timeout`` model argument is stored but never given to the OpenAI client (its default read timeout,
  600 s, applies to each of the SDK's 3 tries per lmms-eval attempt).

:func:`warn_for_cli` logs these notes for a command line that runs our tasks.
"""

from __future__ import annotations

from collections.abc import Sequence

from loguru import logger

VLLM_MODELS = {"vllm", "vllm_chat"}
OPENAI_MODELS = {"openai", "openai_compatible", "openai_compatible_chat"}


def parse_model_args(text: str) -> dict[str, str]:
    """``a=1,b=x`` -> ``{"a": "1", "b": "x"}`` (lmms-eval's comma-separated form; JSON values are not split here)."""
    out = {}
    for item in (text or "").split(","):
        key, sep, value = item.partition("=")
        if sep:
            out[key.strip()] = value.strip()
    return out


def backend_notes(model: str, model_args: str = "") -> list[str]:
    """The notes for ``--model model --model_args model_args`` (empty when the backend carries our requests as is)."""
    args = parse_model_args(model_args)
    notes = []
    if model in VLLM_MODELS:
        floor = args.get("max_new_tokens", "4096 (its default)")
        if floor.strip() not in {"0", "1"}:
            notes.append(
                "lmms-eval's vllm backend sends max_tokens = max(task max_new_tokens, model_args max_new_tokens = "
                f"{floor}): our tasks' generation budgets (as small as 50 tokens, as the official runners set them) "
                "are replaced by the larger value. Pass max_new_tokens=1 in --model_args to keep each task's budget."
            )
    if model in OPENAI_MODELS and "timeout" in args:
        notes.append(
            f"lmms-eval's openai backend does not pass timeout={args['timeout']} to the OpenAI client: a request that "
            "hangs waits the client's default 600 s per try. Put a timeout on the server side (e.g. the proxy in "
            "front of it)."
        )
    return notes


def _option(argv: Sequence[str], name: str) -> str | None:
    for index, arg in enumerate(argv):
        if arg == name and index + 1 < len(argv):
            return argv[index + 1]
        if arg.startswith(name + "="):
            return arg.split("=", 1)[1]
    return None


def warn_for_cli(argv: Sequence[str], prefixes: Sequence[str]) -> list[str]:
    """Log :func:`backend_notes` when ``argv`` is an lmms-eval command line running a task named ``<prefix>...``."""
    model, tasks = _option(argv, "--model"), _option(argv, "--tasks") or ""
    if not model or not any(t.strip().startswith(tuple(prefixes)) for t in tasks.split(",")):
        return []
    notes = backend_notes(model.strip(), _option(argv, "--model_args") or "")
    for note in notes:
        logger.warning(f"food-tasks: {note}")
    return notes
