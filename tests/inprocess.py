"""Run the lmms-eval CLI inside the test process, as a fresh ``python -m lmms_eval`` process would.

Each ``lmms-eval`` subprocess spends 15-20 s importing torch, transformers and lmms-eval before it does
anything; the suite runs about thirty. :func:`run` calls the console script's own entry function
(``lmms_eval.cli.dispatch.main``, which reads ``sys.argv``) in this process and gives back what
:func:`subprocess.run` would: the exit status (``SystemExit`` as Python reports it, an uncaught
exception as status 1 with its traceback) and the captured stdout and stderr.

What a fresh process has and this one must re-create around each run (and put back afterwards): ``sys.argv``, the
environment (including the offline switches that ``huggingface_hub`` and ``datasets`` read at import), the working
directory, Python's default warning filters (pytest records warnings instead of printing them), lmms-eval's loguru
sink (it re-adds one on ``sys.stdout`` per run), the per-run hooks of our ``lmms_eval.models`` entry point (it runs
once per process, at lmms-eval's model registry import: the backend notes read ``sys.argv``), our package's caches
(:func:`food_tasks.reset`), and a ``PYTHONPATH`` of the test's own (stand-in modules such as
tests/serving/stand_ins/vllm): its folders go first on ``sys.path`` and lmms-eval's model modules, which bind
optional dependencies at import (``optional_import("vllm", "LLM")``), are imported afresh (:func:`_python_path`).
One thing is kept on purpose: the index of lmms-eval's own task folder (:func:`cache_lmms_eval_task_index`). And one
thing a fresh process does not have to pay for: lmms-eval ends each run with full garbage collections
(``lm.clean()``: two ``gc.collect()``, 0.35 s each over a heap that holds torch, transformers and lmms-eval), so
what was alive before a run is frozen out of the collector (:func:`_freeze`).

The real console script is still proven by the tests that pass ``console=True`` or ``as_user=True`` to
``conftest.run_lmms_eval`` (entry-point discovery in a fresh interpreter, the exit status of a stopped
run, multi-process launches; ``as_user``: a process with none of the session's speedups) and by the demo test.
"""

from __future__ import annotations

import contextlib
import gc
import importlib
import io
import os
import subprocess
import sys
import traceback
import warnings
from pathlib import Path

import food_tasks

# Set, for the run, on the modules that read these variables once at import.
_IMPORT_TIME_SWITCHES = (
    ("HF_HUB_OFFLINE", "huggingface_hub.constants", "HF_HUB_OFFLINE"),
    ("HF_HUB_OFFLINE", "datasets.config", "HF_HUB_OFFLINE"),
    ("HF_DATASETS_OFFLINE", "datasets.config", "HF_HUB_OFFLINE"),
    ("HF_DATASETS_OFFLINE", "datasets.config", "HF_DATASETS_OFFLINE"),
)


def _true(value: str | None) -> bool:
    return (value or "").strip().upper() in {"1", "ON", "YES", "TRUE"}


@contextlib.contextmanager
def _process_like(argv: list[str], env: dict[str, str], cwd: Path):
    """``sys.argv``, environment, cwd and import-time switches as in a fresh process; restored on exit."""
    saved_argv, saved_env, saved_cwd = sys.argv[:], dict(os.environ), os.getcwd()
    patched = []
    try:
        os.environ.clear()
        os.environ.update(env)
        for variable, module_name, attr in _IMPORT_TIME_SWITCHES:
            module = importlib.import_module(module_name)
            if variable in env and hasattr(module, attr):
                patched.append((module, attr, getattr(module, attr)))
                setattr(module, attr, _true(env[variable]))
        sys.argv = argv
        os.chdir(cwd)
        yield
    finally:
        os.chdir(saved_cwd)
        sys.argv = saved_argv
        for module, attr, value in reversed(patched):
            setattr(module, attr, value)
        os.environ.clear()
        os.environ.update(saved_env)


# lmms-eval's model modules: imported per --model name, each binding its optional dependencies when imported.
_MODEL_MODULES = ("lmms_eval.models.chat.", "lmms_eval.models.simple.")


@contextlib.contextmanager
def _python_path(value: str | None):
    """The folders of ``value`` (a ``PYTHONPATH``) that this process lacks go first on ``sys.path``, as in a fresh
    process; the modules imported from them and lmms-eval's model modules are forgotten before and after the run,
    so the run binds the stand-ins and no later run sees them."""
    folders = [f for f in (value or "").split(os.pathsep) if f and f not in sys.path]
    if not folders:
        yield
        return
    roots = tuple(str(Path(f).resolve()) + os.sep for f in folders)

    def forget() -> None:
        for name, module in list(sys.modules.items()):
            where = str(getattr(module, "__file__", None) or "")
            if name.startswith(_MODEL_MODULES) or (where and str(Path(where).resolve()).startswith(roots)):
                del sys.modules[name]

    saved = sys.path[:]
    forget()
    sys.path[:0] = folders
    importlib.invalidate_caches()
    try:
        yield
    finally:
        sys.path[:] = saved
        forget()
        importlib.invalidate_caches()


def cache_lmms_eval_task_index() -> None:
    """Index lmms-eval's own task folder once per test session (7 s of YAML parsing per ``TaskManager``):
    :mod:`lmms_eval_index` (tests/speedups), shared with the lmms-eval subprocesses of the session.

    Only that folder: it belongs to the installed lmms-eval and never changes during the session, and its index is a
    function of the folder's files alone. Our task folder and every ``--include_path`` are indexed afresh each run,
    as the real CLI does."""
    import lmms_eval_index

    lmms_eval_index.install_on_import()


def _freeze() -> None:
    """Move every object alive now into the collector's permanent generation (:func:`gc.freeze`): the full
    collections lmms-eval asks for at the end of each run then walk only what the run made. The first call collects
    once before it freezes, so the imported libraries' garbage is not kept; a later call keeps what earlier tests
    left for the collector (a test process, at most some megabytes)."""
    if not gc.get_freeze_count():
        gc.collect()
    gc.freeze()


def _default_warning_filters() -> None:
    """Python's default filters for a script, printing to the (redirected) ``sys.stderr``."""
    warnings.resetwarnings()
    warnings.simplefilter("default")
    for category in (DeprecationWarning, PendingDeprecationWarning, ImportWarning, ResourceWarning):
        warnings.simplefilter("ignore", category)

    def show(message, category, filename, lineno, file=None, line=None):  # type: ignore[no-untyped-def]
        sys.stderr.write(warnings.formatwarning(message, category, filename, lineno, line))

    warnings.showwarning = show


def run(args: list[str], env: dict[str, str], cwd: Path) -> subprocess.CompletedProcess:
    """``lmms-eval <args>`` here; returns what ``subprocess.run(..., capture_output=True, text=True)`` would."""
    import lmms_eval.models  # noqa: F401  (imported before sys.argv changes: its entry-point load is per process)
    from lmms_eval.cli.dispatch import main
    from loguru import logger

    from food_tasks import registration

    cache_lmms_eval_task_index()
    _freeze()
    out, err = io.StringIO(), io.StringIO()
    code: int = 0
    food_tasks.reset()  # what earlier runs left in the package's caches (a fresh process has none)
    with _process_like(["lmms-eval", *args], env, cwd), _python_path(env.get("PYTHONPATH")), warnings.catch_warnings():
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            _default_warning_filters()
            logger.remove()  # loguru's sink in a fresh process: stderr, every level (our plugin logs before main)
            logger.add(sys.stderr)
            try:
                registration.lmms_eval_plugin()  # what the entry point does in each fresh process
                main()
            except SystemExit as stop:  # as Python reports it: a message goes to stderr and means status 1
                if stop.code is None or isinstance(stop.code, int):
                    code = stop.code or 0
                else:
                    print(stop.code, file=sys.stderr)
                    code = 1
            except KeyboardInterrupt:
                raise
            except BaseException:  # noqa: BLE001  (an uncaught exception ends a process with status 1)
                traceback.print_exc()
                code = 1
            finally:
                logger.remove()  # lmms-eval's sink is the captured stdout
    logger.add(sys.stderr, level="WARNING")
    return subprocess.CompletedProcess(["lmms-eval", *args], code, out.getvalue(), err.getvalue())
