"""DiningBench parity (opt-in): our ``_official`` metrics against the official scorers, on synthetic outputs
and replayed judge verdicts.

Skipped unless ``FOOD_TASKS_PARITY_DININGBENCH`` names a local checkout of meituan/DiningBench@9c9bdf7; the
comparison itself is tests/parity/parity_diningbench.py (see tests/parity/README.md).
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from parity_run import checkout, run_parity

ENV = "FOOD_TASKS_PARITY_DININGBENCH"
pytestmark = [
    pytest.mark.parity,
    pytest.mark.skipif(not os.environ.get(ENV), reason=f"{ENV} names no official checkout"),
]


def test_parity_diningbench(tmp_path: Path) -> None:
    """Every compared value equals the official one (the script exits 0)."""
    run_parity("parity_diningbench.py", ["--official", checkout(ENV)], tmp_path)
