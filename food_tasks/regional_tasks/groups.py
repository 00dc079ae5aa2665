"""Group YAMLs and tags of regional tasks, as ``food-tasks validate`` checks them: names, members, aggregation.

A group YAML (``group:`` with a ``task:`` list) runs its tasks with one ``--tasks`` name and aggregates the metrics its
``aggregate_metric_list`` names, as lmms-eval does: an entry's ``metric`` matches every metric whose name contains it
(``acc`` matches ``judge_acc`` too; the per-value breakdowns ``acc_by_<column>`` are left out of a group), averaged
over the tasks (``weight_by_size: true``: pooled over their documents). A ``tag:`` (or ``group:``) key in a regional
task YAML gives the task a name it shares with others: ``--tasks <tag>`` runs them all, with no group figure.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Mapping
from difflib import get_close_matches
from pathlib import Path
from typing import Any

from food_tasks.regional_tasks.config import TASK_CLASS, shown, task_files

GROUP_KEYS = ("group", "group_alias", "task", "aggregate_metric_list", "metadata")
ENTRY_KEYS = ("metric", "aggregation", "weight_by_size", "filter_list")
NAME = re.compile(r"[a-z][a-z0-9_]*")


def is_group(config: Mapping[str, Any]) -> bool:
    """A group YAML: ``task`` is a list (lmms-eval's rule), or ``group`` with no ``class`` and no task name."""
    task = config.get("task")
    return isinstance(task, list) or ("group" in config and "class" not in config and not isinstance(task, str))


def name_problem(key: str, name: Any) -> str | None:
    """Why ``name`` (the value of ``key``) breaks the naming rule, lower_snake_case; None when it keeps it."""
    if isinstance(name, str) and NAME.fullmatch(name):
        return None
    if not isinstance(name, str) or not name:
        return f"{key}: give it a name (lower_snake_case)"
    better = re.sub(r"_+", "_", re.sub(r"[^a-z0-9_]", "_", name.lower())).strip("_")
    hint = f" (e.g. {better})" if better and NAME.fullmatch(better) else ""
    return (
        f"{key}: {name!r} is not lower_snake_case (lower-case letters, digits and _, starting with a letter); "
        f"rename it{hint}"
    )


def tags_of(config: Mapping[str, Any]) -> list[Any]:
    """The values of a task YAML's ``tag`` and ``group`` keys (a string or a list), as written."""
    out: list[Any] = []
    for key in ("tag", "group"):
        value = config.get(key)
        out += value if isinstance(value, list) else [] if value is None else [value]
    return out


def tag_problems(config: Mapping[str, Any], path: Path) -> list[str]:
    """Problems of a regional task YAML's ``tag``/``group`` values: the naming rule, a tag that is the task's own name
    or the name of another task in the folder (lmms-eval would not index it)."""
    problems: list[str] = []
    own = config.get("task")
    for key in ("tag", "group"):
        value = config.get(key)
        if value is None:
            continue
        values = value if isinstance(value, list) else [value]
        if not values or not all(isinstance(v, str) for v in values):
            problems.append(f"{key}: a name or a list of names (lower_snake_case)")
            continue
        for tag in values:
            if problem := name_problem(key, tag):
                problems.append(problem)
            elif tag == own:
                problems.append(f"{key}: {tag!r} is the task's own name; give the tag another")
            elif taken := task_files([path.parent], [tag]).get(tag):
                problems.append(f"{key}: {tag!r} is the name of the task in {shown(taken[0])}; rename the tag")
    return problems


def _folder_names(folder: Path) -> tuple[dict[str, list[str]], dict[str, list[str]], dict[str, str]]:
    """Under ``folder``: regional task name -> its YAMLs, tag -> its regional tasks, group name -> its YAML."""
    from food_tasks.tasks import catalogue

    tasks = task_files([folder])
    tags: dict[str, list[str]] = {}
    for name, paths in tasks.items():
        config = catalogue.load_yaml(Path(paths[0])) or {}
        for tag in tags_of(config):
            if isinstance(tag, str):
                tags.setdefault(tag, []).append(name)
    groups: dict[str, str] = {}
    for path in sorted(folder.rglob("*.yaml")):
        try:
            text = path.read_text(encoding="utf-8")
            config = catalogue.load_yaml(path) if "group" in text else None
        except Exception:  # noqa: BLE001  (a YAML that does not read: its own validate says why)
            continue
        if isinstance(config, dict) and is_group(config) and isinstance(config.get("group"), str):
            groups[config["group"]] = str(path)
    return tasks, tags, groups


def group_problems(
    config: Mapping[str, Any], path: Path, metrics_of: Callable[[str], list[str] | None]
) -> tuple[list[str], list[str], list[str], str]:
    """``(problems, warnings, member YAMLs, summary)`` of a group YAML: its keys and name, each member (a regional
    task, tag or group under the group's folder), and each ``aggregate_metric_list`` entry, whose ``metric`` must match
    a metric of the tasks (``metrics_of``: a member YAML's metric names, None when its settings do not read)."""
    problems: list[str] = []
    warnings: list[str] = []
    for key in config:
        if key not in GROUP_KEYS:
            what = "a task key: a group only lists tasks" if key in ("class", "dataset_path") else "not a group key"
            problems.append(f"{key}: {what} ({', '.join(GROUP_KEYS)}); remove it")
    name = config.get("group")
    if problem := name_problem("group", name):
        problems.append(problem)
    tasks, tags, groups = _folder_names(path.parent)
    members = config.get("task")
    if not isinstance(members, list) or not members:
        problems.append("task: list the group's tasks (task, tag or group names)")
        members = []
    files: list[str] = []
    for member in members:
        if not isinstance(member, str):
            problems.append(f"task: {member!r}: name a task, tag or group (inline task configs are not checked)")
        elif member in tasks:
            files.append(tasks[member][0])
        elif member in tags:
            files += [tasks[t][0] for t in tags[member]]
        elif member in groups and member != name:
            files.append(groups[member])
        else:
            close = get_close_matches(member, [*tasks, *tags, *groups], n=1, cutoff=0.75)
            hint = f" (did you mean {close[0]}?)" if close else ""
            problems.append(
                f"task: {member!r} is no regional task, tag or group under {shown(path.parent)}{hint}; "
                "a run stops on it"
            )
    files = list(dict.fromkeys(files))
    metrics = [metric for f in files for metric in metrics_of(f) or []]
    entries = config.get("aggregate_metric_list")
    if entries is None:
        warnings.append("aggregate_metric_list: none: lmms-eval runs the tasks and prints no group figure")
        entries = []
    elif isinstance(entries, Mapping):
        entries = [entries]
    if not isinstance(entries, list):
        problems.append("aggregate_metric_list: a list of {metric, aggregation, weight_by_size} entries")
        entries = []
    aggregated = []
    for i, entry in enumerate(entries):
        at = f"aggregate_metric_list[{i}]"
        if not isinstance(entry, Mapping):
            problems.append(f"{at}: a mapping with metric, aggregation and weight_by_size")
            continue
        problems += [
            f"{at}.{k}: not an entry key ({', '.join(ENTRY_KEYS)}); remove it" for k in entry if k not in ENTRY_KEYS
        ]
        metric = entry.get("metric")
        matched = sorted({m for m in metrics if isinstance(metric, str) and metric in m and "_by_" not in m})
        if not isinstance(metric, str) or not metric:
            problems.append(f"{at}.metric: name a metric of the tasks (acc, parse_fail_rate ...)")
        elif metrics and not matched:
            known = ", ".join(sorted({m for m in metrics if "_by_" not in m}))
            problems.append(f"{at}.metric: {metric!r} matches no metric of the group's tasks ({known})")
        how = entry.get("aggregation", "mean")
        if how != "mean" and not (isinstance(how, str) and how.startswith("!function ")) and not callable(how):
            problems.append(f"{at}.aggregation: mean (or !function <python.path>), not {how!r}")
        weight = entry.get("weight_by_size", False)
        if not isinstance(weight, bool):
            problems.append(f"{at}.weight_by_size: true or false, not {weight!r}")
        if isinstance(metric, str) and metric:
            aggregated.append(f"{metric}{' (weighted by size)' if weight is True else ''}")
    summary = (
        f"group {name}: {len(members)} member(s) ({', '.join(map(str, members))}), "
        f"{len(files)} task file(s) checked below; aggregates {', '.join(aggregated) or 'nothing'}"
    )
    return problems, warnings, files, summary


def regional_metrics(path: str, read: Callable[[Path], dict]) -> list[str] | None:
    """The metric names of the regional task YAML at ``path`` (None when it is no regional task or its settings do
    not read: its own validation says why)."""
    from food_tasks.regional_tasks.scoring import Settings, metric_table, settings_problems

    try:
        config = read(Path(path))
        if config.get("class") != f"!function {TASK_CLASS}" or settings_problems(config.get("metadata")):
            return None
        return list(metric_table(Settings.from_metadata(config["metadata"], Path(path).parent)))
    except Exception:  # noqa: BLE001  (its own validation reports it)
        return None


def member_order(first: str, members: Iterable[str]) -> list[str]:
    """``first`` then each member once (by real path), for validate's one pass over a group and its tasks."""
    import os

    seen = {os.path.realpath(first)}
    out = [first]
    for member in members:
        if os.path.realpath(member) not in seen:
            seen.add(os.path.realpath(member))
            out.append(member)
    return out
