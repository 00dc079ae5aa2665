"""The benchmarks: one package each (data preparation, prompts, parsing, scoring, report tables), one
:class:`food_tasks.registry.Benchmark` record each (``BENCHMARK`` in the package's ``__init__.py``).

Adding a benchmark adds one line to :data:`PACKAGES` (CONTRIBUTING.md, "Adding a benchmark"). The order is
the order of the report's sections.
"""

from __future__ import annotations

import importlib

from food_tasks.registry import Benchmark

PACKAGES = (
    "worldcuisines",
    "fambench",
    "diningbench",
    "foodieqa",
    "food500cap",
)

BENCHMARKS: tuple[Benchmark, ...] = tuple(
    importlib.import_module(f"{__name__}.{package}").BENCHMARK for package in PACKAGES
)


def get(name: str) -> Benchmark | None:
    """The record named ``name``, or None."""
    return next((b for b in BENCHMARKS if b.name == name), None)
