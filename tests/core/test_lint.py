"""The tree is ruff-clean: lint and format, with the configuration in pyproject.toml ([tool.ruff])."""

from __future__ import annotations

import importlib.util
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.slow  # ruff runs as a subprocess

REPO = Path(__file__).resolve().parents[2]


def _ruff(*args: str) -> subprocess.CompletedProcess[str]:
    """``python -m ruff <args>`` from the repository root (the interpreter running the tests)."""
    if importlib.util.find_spec("ruff") is None:
        pytest.skip("ruff is not installed (pip install -e '.[test]')")
    return subprocess.run([sys.executable, "-m", "ruff", *args], cwd=REPO, capture_output=True, text=True, check=False)


def test_ruff_check() -> None:
    """No lint finding (rules and per-file exceptions: pyproject.toml)."""
    proc = _ruff("check", "--no-cache", "--output-format", "concise", ".")
    assert proc.returncode == 0, f"ruff check found problems (fix: ruff check --fix .):\n{proc.stdout[-6000:]}"


def test_ruff_format() -> None:
    """Every file is formatted as ``ruff format`` writes it."""
    proc = _ruff("format", "--no-cache", "--check", ".")
    assert proc.returncode == 0, f"files ruff would reformat (fix: ruff format .):\n{proc.stdout[-6000:]}"
