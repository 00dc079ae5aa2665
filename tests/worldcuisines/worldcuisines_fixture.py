"""WorldCuisines test data: the mirror of tests/conftest.py (``build_wc_mirror``), under the name every benchmark's
fixture module has (tests/<bench>/<bench>_fixture.py)."""

from __future__ import annotations

from pathlib import Path

from conftest import build_wc_mirror


def hook_environment(root: Path) -> dict[str, str]:
    """A mirror under ``root`` that every WorldCuisines task's ``process_docs`` reads (``FOOD_TASKS_DATA_DIR=root``),
    and the other environment variables it needs (none): tests/core/test_adversarial_outputs.py calls it."""
    build_wc_mirror(root)
    return {}
