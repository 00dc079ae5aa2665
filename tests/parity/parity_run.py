"""Runs one parity comparison (tests/parity/parity_<bench>.py) for its opt-in test.

Each comparison runs in its own process because it patches process-wide state while it compares:
``time.sleep`` and ``openai.OpenAI`` (DiningBench's judge replay), empty stand-ins in ``sys.modules`` for
missing third-party modules (FAM-Bench), official modules named ``utils`` or ``evaluate`` first on
``sys.path`` (FAM-Bench, FoodieQA), the whole ``os.environ`` (WorldCuisines). None of that may leak into
the test session.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

HERE = Path(__file__).resolve().parent
REPO = HERE.parents[1]


def checkout(env_var: str) -> str:
    """The official checkout named by ``env_var``; fails (never skips) when the variable names no folder."""
    path = os.environ.get(env_var, "")
    if not Path(path).is_dir():
        pytest.fail(f"{env_var}={path!r} is not a folder: it must name a local checkout of the official repository")
    return path


def run_parity(script: str, args: list[str], cwd: Path) -> str:
    """Run ``script`` with ``args`` on this checkout's ``food_tasks``; fail with its output unless it exits 0."""
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(p for p in (str(REPO), env.get("PYTHONPATH", "")) if p)
    env.setdefault("FOOD_TASKS_OFFLINE", "1")
    proc = subprocess.run(
        [sys.executable, str(HERE / script), *args], cwd=cwd, env=env, capture_output=True, text=True, check=False
    )
    output = proc.stdout + proc.stderr
    print(output)  # the comparison table, shown with `pytest -rP` or on failure
    # Exit status 1: a mismatch; 2: official code not loadable, checks skipped or nothing compared.
    assert proc.returncode == 0, f"{script} exited with {proc.returncode}:\n{output[-8000:]}"
    return output
