"""Results files as lmms-eval 0.7.3 writes them (only the keys the report and compare read), for the tests of
``food-tasks report`` and ``compare`` (tests/core/test_report*.py)."""

from __future__ import annotations

import json
from pathlib import Path


def _metrics(values: dict, alias: str) -> dict:
    out = {"alias": alias}  # lmms-eval writes the task's name where its YAML sets no task_alias
    for name, value in values.items():
        out[f"{name},none"] = value
        out[f"{name}_stderr,none"] = "N/A"
    return out


def write_results(
    path: Path,
    model_args: str,
    tasks: dict,
    groups: dict | None = None,
    versions: dict | None = None,
    generation: dict | None = None,
    limit: dict | None = None,
    aliases: dict | None = None,
) -> Path:
    """A results file in lmms-eval 0.7.3's layout (only the keys the report reads)."""
    named = aliases or {}
    data = {
        "results": {t: _metrics(v, named.get(t, t)) for t, v in {**tasks, **(groups or {})}.items()},
        "groups": {g: _metrics(v, named.get(g, g)) for g, v in (groups or {}).items()},
        "configs": {
            t: {"task": t, "metadata": {"version": 1.0}, "generation_kwargs": generation or {"max_new_tokens": 50}}
            for t in tasks
        },
        "versions": {t: (versions or {}).get(t, 1.0) for t in tasks},
        "config": {"model": "vllm", "model_args": model_args},
        "model_name": "",
        "date": "20260101_000000",
        "system_instruction_sha": None,
        "chat_template_sha": None,
        "n-samples": {t: {"original": 100, "effective": (limit or {}).get(t, 100)} for t in tasks},
    }
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(data))
    return path
