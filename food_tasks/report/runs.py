"""Runs as the report sees them: one :class:`~food_tasks.runs.Run` per model (its results files merged,
:func:`~food_tasks.runs.load_runs`), and the settings that must match for two runs to be compared."""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Sequence

from food_tasks.errors import ReportInputError  # noqa: F401  (raised by the reads; public here too)
from food_tasks.lmms.runfiles import results_files
from food_tasks.runs.run import Run, load_runs, model_label, model_name, short_label

find_results = results_files  # the report's name for it

__all__ = [
    "Run",
    "comparability_problems",
    "find_results",
    "flagged_tasks",
    "load_runs",
    "model_label",
    "model_name",
    "short_label",
]


def comparability_problems(runs: Sequence[Run], tasks: Iterable[str]) -> list[str]:
    """One line per setting where the runs differ, naming the tasks (grouped when they differ alike)."""
    found: dict[tuple[str, str], list[str]] = {}
    for task in sorted(set(tasks)):
        have = [r for r in runs if task in r.fingerprints]
        if len(have) < 2:
            continue
        for key in have[0].fingerprints[task]:
            shown = {r.label: json.dumps(r.fingerprints[task].get(key), sort_keys=True, default=str) for r in have}
            if len(set(shown.values())) > 1:
                detail = "; ".join(f"{label}: {value}" for label, value in shown.items())
                found.setdefault((key, detail), []).append(task)
    return [
        f"{key} differs ({detail}) in " + ", ".join(f"`{t}`" for t in tasks) for (key, detail), tasks in found.items()
    ]


def flagged_tasks(problems: Sequence[str]) -> set[str]:
    """The tasks named in :func:`comparability_problems` lines."""
    return {name for line in problems for name in re.findall(r"`([^`]+)`", line.rsplit(") in ", 1)[-1])}
