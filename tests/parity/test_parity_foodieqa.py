"""FoodieQA parity (opt-in): our prompts, parsers and paper-protocol accuracy against the official functions,
on synthetic inputs.

Skipped unless ``FOOD_TASKS_PARITY_FOODIEQA`` names a local checkout of lyan62/FoodieQA@4d726407; the
comparison itself is tests/parity/parity_foodieqa.py (see tests/parity/README.md).
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from parity_run import checkout, run_parity

ENV = "FOOD_TASKS_PARITY_FOODIEQA"
pytestmark = [
    pytest.mark.parity,
    pytest.mark.skipif(not os.environ.get(ENV), reason=f"{ENV} names no official checkout"),
]


def test_parity_foodieqa(tmp_path: Path) -> None:
    """Every compared value equals the official one (the script exits 0)."""
    run_parity("parity_foodieqa.py", ["--official", checkout(ENV)], tmp_path)
