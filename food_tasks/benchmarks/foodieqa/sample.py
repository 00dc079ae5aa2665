"""The packaged FoodieQA sample: synthetic rows and generated images (:func:`.layout.sample_tables`,
:func:`.layout.sample_images`), unpacked under ``lyan62/FoodieQA/`` (the real data is gated)."""

from __future__ import annotations

from pathlib import Path

from food_tasks.benchmarks.foodieqa import layout as fq_layout


def write(root: Path) -> None:
    """Writes the sample under ``root``, unpacked as ``FoodieQA.zip`` would be."""
    fq_layout.write_unpacked(root, fq_layout.sample_tables(), fq_layout.sample_images())
