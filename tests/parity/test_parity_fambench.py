"""FAM-Bench parity (opt-in): our prompts, parsers and ``_official`` scorers against the official functions,
on synthetic inputs.

Skipped unless ``FOOD_TASKS_PARITY_FAMBENCH`` names a local checkout of
anonymous-research-artifact123/Food-as-medicine@abfaf02 (v1.0); the comparison itself is
tests/parity/parity_fambench.py (see tests/parity/README.md).
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from parity_run import checkout, run_parity

ENV = "FOOD_TASKS_PARITY_FAMBENCH"
pytestmark = [
    pytest.mark.parity,
    pytest.mark.skipif(not os.environ.get(ENV), reason=f"{ENV} names no official checkout"),
]


def test_parity_fambench(tmp_path: Path) -> None:
    """Every compared value equals the official one (the script exits 0)."""
    run_parity("parity_fambench.py", ["--official", checkout(ENV)], tmp_path)
