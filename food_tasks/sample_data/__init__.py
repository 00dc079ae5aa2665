"""Sample data shipped with the package: the embedded default behind ``food-tasks demo``.

The directory is a miniature mirror (the ``FOOD_TASKS_DATA_DIR`` layout) of each
benchmark's official distribution, with a handful of rows per subtask and images
the project generates (no third-party images). It is written by
``python -m food_tasks.sample_data.build``; the files are committed.
"""

from pathlib import Path

SAMPLE_ROOT = Path(__file__).resolve().parent
