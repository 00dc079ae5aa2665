"""Zero-flag registration of our task directory with lmms-eval.

lmms-eval 0.7.x has no task entry-point group, and its ``LMMS_EVAL_PLUGINS``
code path appends include paths only after the ``TaskManager`` was built. What
it does read early is the ``lmms_eval.models`` entry-point group: every
``import lmms_eval.models`` (the evaluator imports it before the CLI builds its
``TaskManager``) loads all entry points of that group. Ours
(:func:`lmms_eval_plugin`) wraps ``TaskManager.initialize_tasks`` so that our
task directory is indexed after lmms-eval's own, which therefore keeps priority
on any name clash: we never shadow a built-in task.

The same entry point wraps lmms-eval's results table so that the breakdowns
of our tasks (``per_language`` ...) are printed as a short note instead of a
row hundreds of characters wide (:mod:`food_tasks.results_table`); the
results JSON keeps them.

Set ``FOOD_TASKS_AUTOREGISTER=0`` to disable the task-path hook (then pass
``--include_path "$(food-tasks path)"`` yourself).
"""

from __future__ import annotations

import functools
import os
from pathlib import Path
from typing import Any

AUTOREGISTER_ENV = "FOOD_TASKS_AUTOREGISTER"
_MARKER = "_food_tasks_hook"


def task_dir() -> Path:
    """Return the installed task directory (usable as ``--include_path``)."""
    from food_tasks import yaml_tasks

    return Path(yaml_tasks.__file__).resolve().parent


def _as_list(include_path: Any) -> list[str]:
    if include_path is None:
        return []
    if isinstance(include_path, (str, os.PathLike)):
        return [os.fspath(include_path)]
    return [os.fspath(p) for p in include_path]


def with_our_task_dir(include_path: Any) -> list[str]:
    """Return ``include_path`` as a list, with our task directory appended once."""
    paths = _as_list(include_path)
    ours = str(task_dir())
    if not any(os.path.realpath(p) == ours for p in paths):
        paths.append(ours)
    return paths


def install_task_path_hook() -> bool:
    """Wrap ``lmms_eval.tasks.TaskManager.initialize_tasks`` (idempotent).

    Returns:
        True when the hook is installed (now or earlier), False when disabled.

    Raises:
        RuntimeError: if lmms-eval no longer has the method we wrap; the
            message tells the user about the ``--include_path`` fallback.
    """
    if os.environ.get(AUTOREGISTER_ENV, "1").strip().lower() in {"0", "false", "no", "off"}:
        return False
    from lmms_eval.tasks import TaskManager

    original = getattr(TaskManager, "initialize_tasks", None)
    if original is None:
        raise RuntimeError(
            "food-tasks: this lmms-eval has no TaskManager.initialize_tasks; automatic task "
            'registration is unsupported. Use --include_path "$(food-tasks path)".'
        )
    if getattr(original, _MARKER, False):
        return True

    @functools.wraps(original)
    def initialize_tasks(self, include_path=None, include_defaults=True):  # type: ignore[no-untyped-def]
        return original(self, include_path=with_our_task_dir(include_path), include_defaults=include_defaults)

    setattr(initialize_tasks, _MARKER, True)
    TaskManager.initialize_tasks = initialize_tasks
    return True


def _warn_about_backend() -> None:
    """Say at run time what the chosen lmms-eval backend changes about our tasks (see :mod:`food_tasks.serving`)."""
    import sys

    from food_tasks import serving

    try:
        prefixes = [p.name for p in task_dir().iterdir() if p.is_dir() and not p.name.startswith("_")] + ["food_tasks"]
        serving.warn_for_cli(sys.argv, prefixes)
    except Exception as exc:  # a note must never stop a run
        from loguru import logger

        logger.debug(f"food-tasks: backend check skipped: {exc}")


def our_names() -> frozenset[str]:
    """Names of the tasks and groups we ship (read from our YAML without executing hooks)."""
    from food_tasks.cli import _yaml_names

    return frozenset(name for name, _, _ in _yaml_names())


def lmms_eval_plugin() -> list:
    """Entry point of the ``lmms_eval.models`` group.

    Installs the task-path, table and replay output-folder hooks, and returns the model manifests we contribute:
    ``food_tasks_replay``, a model that answers from a predictions file (for
    re-scoring published outputs and for deterministic end-to-end tests).
    """
    from lmms_eval.models.registry_v2 import ModelManifest

    from food_tasks.replay_model import MODEL_ID, install_output_name_hook
    from food_tasks.results_table import install_table_hook

    install_task_path_hook()
    _warn_about_backend()
    install_table_hook(our_names)
    install_output_name_hook()
    return [ModelManifest(model_id=MODEL_ID, simple_class_path="food_tasks.replay_model.ReplayModel")]
