"""The benchmarks: one package each (data preparation, prompts, parsing, scoring, report tables), one
:class:`food_tasks.tasks.registry.Benchmark` record each (``BENCHMARK`` in the package's ``__init__.py``).

Adding a benchmark adds one line to :data:`PACKAGES` (CONTRIBUTING.md, "Adding a benchmark"). The order is
the order of the report's sections. The core reads the records with :func:`food_tasks.tasks.registry.records` (this
package imports nothing of ours but the registry); :data:`BENCHMARKS` and :func:`get` are the same records.
"""

from __future__ import annotations

from food_tasks.tasks.registry import Benchmark, record, records

PACKAGES = (
    "worldcuisines",
    "fambench",
    "diningbench",
    "foodieqa",
    "food500cap",
)

BENCHMARKS: tuple[Benchmark, ...] = records()


def get(name: str) -> Benchmark | None:
    """The record named ``name``, or None."""
    return record(name)
