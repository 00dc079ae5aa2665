"""WorldCuisines parity (opt-in): our ``acc_official`` and ``acc_{multi,single,dual}_official``, from real
lmms-eval runs of the official predictions through the replay model, against the official score JSON files.

Skipped unless ``FOOD_TASKS_PARITY_WORLDCUISINES`` names a local checkout (or git directory) of
worldcuisines/worldcuisines@d4d1c44; the comparison itself is tests/parity/parity_worldcuisines.py (see
tests/parity/README.md).
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from parity_run import checkout, run_parity

ENV = "FOOD_TASKS_PARITY_WORLDCUISINES"
pytestmark = [
    pytest.mark.parity,
    pytest.mark.e2e,
    pytest.mark.skipif(not os.environ.get(ENV), reason=f"{ENV} names no official checkout"),
]


def test_parity_worldcuisines(tmp_path: Path) -> None:
    """Every compared value equals the official one (the script exits 0). One lmms-eval run per model (several
    minutes each on two cores): ``FOOD_TASKS_PARITY_WORLDCUISINES_MODELS`` (comma-separated official model
    names) compares fewer than the script's five."""
    args = ["--official-repo", checkout(ENV), "--workdir", str(tmp_path / "work")]
    if os.environ.get(f"{ENV}_MODELS"):
        args += ["--models", os.environ[f"{ENV}_MODELS"]]
    run_parity("parity_worldcuisines.py", args, tmp_path)
