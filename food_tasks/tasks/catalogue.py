"""The one catalogue of our task and group YAMLs: where they are, one YAML loader, their names and keys.

Read without executing any hook: a ``!function`` tag loads as the string ``"!function <dotted path>"``
(:func:`function` resolves it when a caller needs the callable). The CLI (``list``, ``demo``), the
registration (:func:`names`), the in-run error bars (a task's metric tables, a group's aggregation) and the
regional checker read YAML through this module only.
"""

from __future__ import annotations

import functools
from pathlib import Path
from typing import Any

import food_tasks
from food_tasks.errors import RunStopped

FUNCTION_TAG = "!function"


def task_dir() -> Path:
    """Return the installed task directory (usable as ``--include_path``): ``food_tasks.yaml_tasks``'s folder, found
    without importing the data folder (:func:`food_tasks.folder_of`)."""
    return food_tasks.folder_of("yaml_tasks")


@functools.lru_cache(maxsize=1)
def yaml_loader() -> type:
    """A safe YAML loader that reads lmms-eval's ``!function`` tag as ``"!function <dotted path>"``."""
    import yaml

    class _Loader(getattr(yaml, "CSafeLoader", yaml.SafeLoader)):  # libyaml: ten times faster on our 276 YAMLs
        pass

    _Loader.add_constructor(FUNCTION_TAG, lambda loader, node: f"{FUNCTION_TAG} {loader.construct_scalar(node)}")
    return _Loader


def load_yaml(path: Path) -> Any:
    """One YAML file read with :func:`yaml_loader` (``None`` for an empty file)."""
    import yaml

    return yaml.load(Path(path).read_text(encoding="utf-8"), Loader=yaml_loader())


def unreadable_yaml(err: Exception) -> RunStopped | None:
    """A YAML under ``--include_path`` that does not parse, as the run's stop (exit status 1, the file and line named);
    lmms-eval's CLI would print ``Error during evaluation`` and exit 0. None for any other error."""
    import yaml

    if not isinstance(err, yaml.YAMLError):
        return None
    return RunStopped(
        f"food-tasks: a task YAML under --include_path cannot be read, the run stops before generation:\n{err}\n"
        "Fix the file (a regional task: food-tasks validate <file>.yaml names the problem), or move it out of the "
        "--include_path folder."
    )


def entries() -> list[tuple[str, str, str, tuple[str, ...]]]:
    """``(name, kind, benchmark, members)`` for every task and group YAML we ship (members: a group's tasks)."""
    out = []
    for path in sorted(task_dir().rglob("*.yaml")):
        config = load_yaml(path) or {}
        bench = path.parent.name if path.parent != task_dir() else "all"
        if "group" in config:
            members = config.get("task") if isinstance(config.get("task"), list) else [config.get("task")]
            out.append((config["group"], "group", bench, tuple(m for m in members if isinstance(m, str))))
        elif "task" in config:
            out.append((config["task"], "task", bench, ()))
    return out


def names() -> list[tuple[str, str, str]]:
    """``(name, kind, benchmark)`` for every task and group YAML we ship."""
    return [(name, kind, bench) for name, kind, bench, _ in entries()]


def index() -> dict[str, Path]:
    """Task and group name -> its YAML file, for the tasks we ship (read once per process)."""
    if not _INDEX:
        for path in sorted(task_dir().rglob("*.yaml")):
            config = load_yaml(path) or {}
            name = config.get("group") or config.get("task")
            if isinstance(name, str):
                _INDEX[name] = path
    return _INDEX


_INDEX: dict[str, Path] = {}


def yaml_key(path: Path, key: str) -> Any:
    """``key`` of a task YAML, following ``include`` (relative to the file) as lmms-eval does."""
    config = load_yaml(path) or {}
    if key in config:
        return config[key]
    if config.get("include"):
        return yaml_key(path.parent / str(config["include"]), key)
    return None


def function(ref: Any) -> Any:
    """The callable a ``"!function module.name"`` value names (None for any other value)."""
    import importlib

    if not isinstance(ref, str) or not ref.startswith(FUNCTION_TAG + " "):
        return None
    module, _, name = ref.removeprefix(FUNCTION_TAG + " ").rpartition(".")
    return getattr(importlib.import_module(module), name, None)
