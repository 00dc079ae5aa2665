"""What the names a run asks for resolve to, for regional tasks: their clashes, their tags, their groups.

lmms-eval 0.7.x indexes a YAML with ``class:`` (every regional task) as a "python task" and never reads its ``tag``
or ``group`` key, so ``--tasks <tag>`` said "Tasks not found" (exit status 0); a group YAML naming regional tasks was
found, but its ``aggregate_metric_list`` entry ``acc`` also matched ``acc_by_<column>`` (lmms-eval matches metric
names by substring) and the run crashed averaging the per-slice dicts (exit status 0). From the wraps of
:mod:`food_tasks.lmms.harness`:

* :func:`add_tags`: after lmms-eval indexed the ``--include_path``, each ``tag`` (and ``group``) of a regional task
  YAML is indexed as lmms-eval indexes a plain task's tags; a tag that is already the name of a task or group is a
  warning naming both;
* :func:`unresolved`: before the CLI compares the names asked for with the index (``match_tasks``), and before tasks
  load, any requested task, group or tag that resolves to no task stops the run with exit status 1 naming each
  (lmms-eval printed "Tasks not found" or "Selected Tasks: []" and exited 0);
* :func:`stop_if_empty_folder`: ``--tasks <folder>`` with no ``.yaml`` directly in it stops the run too (lmms-eval
  reads no subfolder; it printed "Selected Tasks: []" and exited 0);
* :func:`set_aside_breakdowns`: while lmms-eval averages a group's metrics, the per-value breakdowns (dicts) of its
  tasks are set aside, so a group aggregates ``acc`` of regional tasks as our benchmarks' groups aggregate theirs
  (``weight_by_size`` honoured, standard errors from :mod:`food_tasks.lmms.errorbars`); they come back after;
* :func:`regional_clashes`: a regional task name defined by several YAMLs, or hidden by another task.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping
from difflib import get_close_matches
from typing import Any

from food_tasks.errors import RunStopped

STOP = "food-tasks: the run stops before generation: "


def add_tags(index: dict, folders: Iterable[str]) -> dict[str, list[str]]:
    """Index the ``tag`` and ``group`` keys of the regional task YAMLs under ``folders`` (as lmms-eval indexes a
    plain task's: ``{"type": "tag", "task": [...], "yaml_path": -1}``); returns tag -> its tasks as added."""
    from loguru import logger

    from food_tasks.regional_tasks.config import shown, task_files
    from food_tasks.tasks import catalogue

    added: dict[str, list[str]] = {}
    for name, paths in sorted(task_files(list(folders)).items()):
        entry = index.get(name)
        used = entry.get("yaml_path") if isinstance(entry, dict) else None
        if not isinstance(used, str) or entry.get("type") != "python_task":
            continue
        if os.path.realpath(used) not in {os.path.realpath(p) for p in paths}:
            continue  # another YAML took the name (regional_clashes warns)
        try:
            config = catalogue.load_yaml(used)
        except Exception:  # noqa: BLE001 - lmms-eval indexed it; a file that changed since is its loader's to report
            continue
        for tag in tag_names(config):
            current = index.get(tag)
            if current is None:
                index[tag] = {"type": "tag", "task": [name], "yaml_path": -1}
                added.setdefault(tag, []).append(name)
            elif current.get("type") == "tag" and isinstance(current.get("task"), list):
                if name not in current["task"]:
                    current["task"].append(name)
                    added.setdefault(tag, []).append(name)
            else:
                what = current.get("type", "task")
                where = current.get("yaml_path")
                logger.warning(
                    f"food-tasks: tag {tag} of regional task {name} ({shown(used)}) is not indexed: it is the name of "
                    f"a {'group' if what == 'group' else 'task'}"
                    + (f" ({shown(where)})" if isinstance(where, str) else "")
                    + "; rename the tag"
                )
    return added


def tag_names(config: Mapping[str, Any]) -> list[str]:
    """The tags a task YAML gives itself: its ``tag`` and ``group`` keys (a string or a list of strings)."""
    out: list[str] = []
    for key in ("tag", "group"):
        value = config.get(key)
        for tag in [value] if isinstance(value, str) else value if isinstance(value, list) else []:
            if isinstance(tag, str) and tag not in out:
                out.append(tag)
    return out


def unresolved(index: Mapping[str, Any], names: Iterable[Any], *, files_ok: bool = True) -> list[str]:
    """One line per requested name that resolves to no task: not in ``index`` (with close names), or a group or tag
    whose members (followed through groups and tags) name no task or name unknown tasks. Wildcards (``*``) must
    match a name; a path to a YAML file is lmms-eval's to load (``files_ok``); an inline config (a dict) is skipped."""
    from fnmatch import fnmatch

    problems: list[str] = []
    for name in names:
        if not isinstance(name, str):
            continue
        if "*" in name:
            if not any(fnmatch(known, name) for known in index):
                problems.append(f"{name}: matches no task, group or tag")
            continue
        if name not in index:
            if files_ok and os.path.isfile(name):
                continue
            problems.append(f"{name}: not a task, group or tag{_close(name, index)}")
            continue
        reached, unknown = _members(index, name, [])
        for via, member in unknown:
            problems.append(f"{name}: {via} names {member}, not a task, group or tag{_close(member, index)}")
        if not reached and not unknown:
            kind = index[name].get("type") if isinstance(index[name], dict) else None
            problems.append(f"{name}: this {'tag' if kind == 'tag' else 'group'} names no task")
    return problems


def _members(index: Mapping[str, Any], name: str, path: list[str]) -> tuple[list[str], list[tuple[str, str]]]:
    """The tasks ``name`` reaches, and each (group or tag, member) that is not in the index."""
    entry = index.get(name)
    kind = entry.get("type") if isinstance(entry, dict) else None
    if kind not in ("group", "tag") or name in path:  # a task (or a loop, lmms-eval's to report)
        return [name], []
    members = entry.get("task")
    if members == -1:  # a group YAML: its task list is read when it loads
        members = _group_tasks(entry.get("yaml_path"))
    tasks: list[str] = []
    unknown: list[tuple[str, str]] = []
    for member in members if isinstance(members, list) else []:
        if isinstance(member, dict):  # an inline task config
            tasks.append(str(member.get("task", "")))
        elif isinstance(member, str) and member in index:
            reached, missing = _members(index, member, [*path, name])
            tasks += reached
            unknown += missing
        elif isinstance(member, str):
            unknown.append((f"{'tag' if kind == 'tag' else 'group'} {name}", member))
    return tasks, unknown


def _group_tasks(path: Any) -> list[Any]:
    from food_tasks.tasks import catalogue

    if not isinstance(path, str):
        return []
    try:
        config = catalogue.load_yaml(path)
    except Exception:  # noqa: BLE001 - lmms-eval's loader reports a file it cannot read
        return []
    members = config.get("task") if isinstance(config, dict) else None
    return members if isinstance(members, list) else [members] if isinstance(members, (str, dict)) else []


def _close(name: str, index: Mapping[str, Any]) -> str:
    close = get_close_matches(name, [k for k in index if isinstance(k, str)], n=1, cutoff=0.75)
    return f" (did you mean {close[0]}?)" if close else ""


def stop_if_unresolved(index: Mapping[str, Any], names: Iterable[Any], *, files_ok: bool = True) -> None:
    """:func:`unresolved` as the run's stop (exit status 1, our message last), nothing when every name resolves."""
    from food_tasks.regional_tasks.config import fit

    problems = unresolved(index, names, files_ok=files_ok)
    if problems:
        lines = fit("\n".join(f"  {p}" for p in problems))
        raise RunStopped(
            f"{STOP}a name given to --tasks resolves to no task:\n{lines}\n"
            "Check the spelling and the --include_path folder: lmms-eval --tasks list shows every name, and\n"
            "food-tasks validate <file>.yaml checks a regional task, group or tag file."
        )


def stop_if_empty_folder(argv: list[str]) -> None:
    """A folder given to ``--tasks`` with no ``.yaml`` file directly in it (lmms-eval reads only those, not its
    subfolders) stops the run (exit status 1); lmms-eval printed "Selected Tasks: []" and exited 0."""
    value = None
    for i, arg in enumerate(argv):
        if arg == "--tasks" and i + 1 < len(argv):
            value = argv[i + 1]
        elif arg.startswith("--tasks="):
            value = arg.partition("=")[2]
    if value and os.path.isdir(value) and not any(n.endswith(".yaml") for n in os.listdir(value)):
        raise RunStopped(
            f"{STOP}--tasks names a folder with no .yaml file directly in it (lmms-eval reads no subfolder):\n"
            f"  {value}\nName the tasks, groups or tags instead, and pass the folder as --include_path."
        )


def set_aside_breakdowns(results: dict) -> dict:
    """Take every per-value breakdown (a dict or list value of a ``metric,filter`` key) of the task rows out of
    ``results`` while lmms-eval consolidates groups (it would average them: ``acc`` matches ``acc_by_region``)."""
    aside: dict[str, dict] = {}
    for task, row in results.items():
        if isinstance(row, dict):
            keys = [k for k, v in row.items() if "," in str(k) and isinstance(v, (dict, list))]
            if keys:
                aside[task] = {k: row.pop(k) for k in keys}
    return aside


def regional_clashes(folders: list[str], index: Any, packaged: str | None = None) -> dict[str, list[str]]:
    """Regional task names defined by more than one YAML under ``folders`` (name -> the files), each logged as a
    warning; and a warning for a regional YAML whose name lmms-eval's index gives to another YAML (a built-in task),
    or that hides one of our packaged tasks (under ``packaged``, indexed after the user's folders)."""
    from loguru import logger

    from food_tasks.regional_tasks.config import fit, labelled, shown, task_files

    clashes = {}
    found = task_files(folders)
    hidden = task_files([packaged], names=list(found)) if packaged and found else {}
    # The loguru prefix takes ~75 columns: each message keeps its lines under 100, a path on a line of its own.
    for name, ours in sorted(hidden.items()):
        theirs = "".join(f"\n  {shown(p)}" for p in found[name])
        packaged_files = "".join(f"\n  {shown(p)}" for p in ours)
        logger.warning(
            fit(f"food-tasks: regional task {name} hides the packaged task of that name; rename{theirs}", 100)
            + f"\nthe packaged task:{fit(packaged_files, 100)}"
        )
    for name, paths in sorted(found.items()):
        used = index.get(name, {}).get("yaml_path") if isinstance(index, dict) else None
        used = used if isinstance(used, str) else None
        if len(paths) > 1:
            clashes[name] = paths
            took = os.path.realpath(used) if used else None
            files = "\n".join(f"  {labelled(p, took)}" for p in paths)
            logger.warning(
                fit(
                    f"food-tasks: regional task {name} is defined by {len(paths)} files; rename all but one\n"
                    f"(running it stops with an error until then):\n{files}",
                    100,
                )
            )
        elif used is not None and os.path.realpath(used) != os.path.realpath(paths[0]):
            logger.warning(
                fit(
                    f"food-tasks: regional task {name} is not indexed; rename it:\n  {shown(paths[0])}\n"
                    f"its name is taken by:\n  {shown(used)}",
                    100,
                )
            )
    return clashes
