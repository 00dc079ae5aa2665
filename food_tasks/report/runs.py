"""Runs as the report sees them: one :class:`~food_tasks.runs.Run` per model (its results files merged,
:func:`~food_tasks.runs.load_runs`), and the settings that must match for two runs to be compared; which of a
task's metrics are bookkeeping, which lead, and which breakdown gives another's group sizes."""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence

from food_tasks.errors import ReportInputError  # noqa: F401  (raised by the reads; public here too)
from food_tasks.lmms.runfiles import results_files
from food_tasks.runs.run import Run, comparability_problems, load_runs, model_label, model_name, short_label

find_results = results_files  # the report's name for it

__all__ = [
    "Run",
    "breakdown_sizes",
    "comparability_problems",
    "find_results",
    "flagged_tasks",
    "group_members",
    "info_metrics",
    "lead_metrics",
    "load_runs",
    "model_label",
    "model_name",
    "short_label",
    "task_aliases",
]


def flagged_tasks(problems: Sequence[str]) -> set[str]:
    """The tasks named in :func:`comparability_problems` lines."""
    return {name for line in problems for name in re.findall(r"`([^`]+)`", line.rsplit(") in ", 1)[-1])}


def info_metrics(runs: Sequence[Run], task: str) -> set[str]:
    """The task's metrics of scale ``info`` (bookkeeping such as ``judge_info``, :data:`food_tasks.hooks.convention.
    SCALES`), as the tables of its facts in each run declare them (:meth:`food_tasks.runs.run.Run.facts_of`)."""
    found: set[str] = set()
    for run in runs:
        found.update(
            name for table in run.facts_of(task).tables for name, metric in table.items() if metric.scale == "info"
        )
    return found


def group_members(runs: Sequence[Run], tasks: Iterable[str]) -> dict[str, list[str]]:
    """The groups the runs report (``group_subtasks`` with a results row: a regional group YAML's, say) whose member
    tasks are among ``tasks`` (the report's tasks outside the packaged benchmarks), with those members, sorted."""
    wanted, found = set(tasks), {}
    for run in runs:
        for data in run.data.values():
            for group, members in ((data or {}).get("group_subtasks") or {}).items():
                inside = sorted(set(members or ()) & wanted) if group in run.groups else []
                if inside and group not in wanted:
                    found[group] = sorted(set(found.get(group, [])) | set(inside))
    return found


def lead_metrics(runs: Sequence[Run], task: str) -> set[str]:
    """The headline metrics the task's tables declare (:attr:`food_tasks.hooks.convention.MetricTable.headline`: a
    regional task's ``judge: {headline: true}`` names ``judge_acc``), as its facts in each run give them."""
    return {t.headline for run in runs for t in run.facts_of(task).tables if t.headline}


def breakdown_sizes(metric: str, column: str, dicts: Sequence[str]) -> str:
    """The group sizes beside a breakdown: ``judge_n_by_<c>`` for ``judge_acc_by_<c>`` where the run has it, else
    ``n_by_<c>``."""
    own = metric.replace("acc_by_", "n_by_", 1) if "acc_by_" in metric else None
    return own if own in dicts else f"n_by_{column}"


def task_aliases(runs: Sequence[Run], tasks: Iterable[str]) -> dict[str, str]:
    """The name each task is shown by in lmms-eval's table (its ``task_alias``, the results' ``alias``), for the
    tasks that have one other than their own name; read from the runs' results files."""
    wanted, found = set(tasks), {}
    for data in {path: data for r in runs for path, data in r.data.items()}.values():
        for task, values in (data.get("results") or {}).items():
            alias = values.get("alias") if task in wanted and isinstance(values, Mapping) else None
            alias = re.sub(r"^(?:-\s+)+", "", alias.strip()) if isinstance(alias, str) else None  # " - " of a subtask
            if alias and alias != task:
                found.setdefault(task, alias)
    return found
