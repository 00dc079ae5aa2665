"""Test sessions only: the index of lmms-eval's own task folder, built once per session and shared by every
process of it (pytest-xdist workers and the lmms-eval subprocesses the tests start).

Every ``TaskManager`` walks lmms-eval's task folder and parses its ~3,700 YAML files with PyYAML's pure-Python
loader: 6-7 s of CPU per lmms-eval process, the largest part of a start-up after the imports. The folder belongs to
the installed lmms-eval and does not change during a session, and its index (``TaskManager.initialize_tasks``
without an include path) is a function of the folder's files alone, so the session keeps its result in one JSON file
(named by ``$FOOD_TASKS_TESTS_INDEX``) that the first process writes and the others read. Only that folder: our task
folder and every ``--include_path`` are indexed afresh by every run, as the real CLI does, so the tests of entry
point discovery still prove what they prove. Users never load this module (tests/speedups/sitecustomize.py installs
it in subprocesses; tests/inprocess.py in the test processes).
"""

from __future__ import annotations

import copy
import importlib.abc
import importlib.util
import json
import os
import sys
import tempfile
from typing import Any

VARIABLE = "FOOD_TASKS_TESTS_INDEX"


def _read(path: str) -> dict | None:
    try:
        with open(path, encoding="utf-8") as f:
            return json.load(f)
    except (OSError, ValueError):
        return None


def _write(path: str, index: dict) -> None:
    # Atomic: a process reading at the same moment sees the whole file or none.
    folder = os.path.dirname(path) or "."
    os.makedirs(folder, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=folder, suffix=".tmp")
    with os.fdopen(fd, "w", encoding="utf-8") as f:
        json.dump(index, f)
    os.replace(tmp, path)


class _AfterImport(importlib.abc.MetaPathFinder):
    """Finds nothing itself: lets the normal finders load ``lmms_eval.tasks``, then installs the cache."""

    def find_spec(self, name, path, target=None):  # type: ignore[no-untyped-def]
        if name != "lmms_eval.tasks":
            return None
        sys.meta_path.remove(self)
        spec = importlib.util.find_spec(name)
        if spec is None or spec.loader is None:
            return spec
        run = spec.loader.exec_module

        def exec_module(module):  # type: ignore[no-untyped-def]
            run(module)
            install(module.TaskManager)

        spec.loader.exec_module = exec_module  # type: ignore[method-assign]
        return spec


def install_on_import() -> None:
    """Install the cache the moment ``lmms_eval.tasks`` is imported (or now, if it is): before our plugin wraps
    ``TaskManager.initialize_tasks`` (it imports that module first), so the cache sits beneath the wrapper, which
    then sees the whole index, as in a user's process. Called at start-up by tests/speedups/sitecustomize.py and by
    tests/sandbox.py in the test processes."""
    module = sys.modules.get("lmms_eval.tasks")
    if module is not None:
        install(module.TaskManager)
    elif not any(isinstance(finder, _AfterImport) for finder in sys.meta_path):
        sys.meta_path.insert(0, _AfterImport())


def install(task_manager: Any) -> None:
    """Wrap ``task_manager.initialize_tasks`` (the class; lmms-eval's public method that builds a ``TaskManager``'s
    index) so that lmms-eval's own folder is indexed once per session (the file of ``$FOOD_TASKS_TESTS_INDEX``, else
    once per process) and every ``include_path`` afresh; idempotent. The index is what the method returns: the
    include paths' entries, under lmms-eval's own (the first folder indexed wins a name, and lmms-eval's comes
    first). Where the method is already wrapped (our plugin's wrapper), nothing is installed: the cache would sit
    above the wrapper and change what it sees."""
    if getattr(task_manager.initialize_tasks, "food_tasks_tests_cache", None) is not None:
        return
    if getattr(task_manager.initialize_tasks, "__wrapped__", None) is not None:
        return
    original = task_manager.initialize_tasks
    memory: dict[str, dict] = {}

    def own(self) -> dict:  # type: ignore[no-untyped-def]
        if "index" not in memory:
            path = os.environ.get(VARIABLE)
            index = _read(path) if path else None
            if index is None:
                index = original(self, include_path=None, include_defaults=True)
                # Only an index that JSON keeps exactly is shared; any other stays in this process.
                if path and json.loads(json.dumps(index)) == index:
                    _write(path, index)
            memory["index"] = index
        return copy.deepcopy(memory["index"])

    def initialize_tasks(self, include_path=None, include_defaults=True):  # type: ignore[no-untyped-def]
        included = original(self, include_path=include_path, include_defaults=False) if include_path else {}
        return {**included, **own(self)} if include_defaults else included

    initialize_tasks.food_tasks_tests_cache = memory  # type: ignore[attr-defined]
    task_manager.initialize_tasks = initialize_tasks
