"""Write the packaged sample data (run: ``python -m food_tasks.sample_data.build [ROOT]``).

Each benchmark's record names its sample writer (:attr:`food_tasks.tasks.registry.Benchmark.write_sample`,
``food_tasks/benchmarks/<name>/sample.py``), which writes a miniature of the official distribution under
``ROOT`` in the ``FOOD_TASKS_DATA_DIR`` layout. Deterministic: the committed files are checked against a
fresh build.
"""

from __future__ import annotations

import sys
from pathlib import Path

from food_tasks.benchmarks import BENCHMARKS
from food_tasks.sample_data import SAMPLE_ROOT


def build(root: Path = SAMPLE_ROOT) -> None:
    """Write every benchmark's packaged sample files under ``root``."""
    for benchmark in BENCHMARKS:
        if benchmark.write_sample is not None:
            benchmark.write_sample(root)


if __name__ == "__main__":
    build(Path(sys.argv[1]) if len(sys.argv) > 1 else SAMPLE_ROOT)
