"""The one folder a test session writes into, and the check that it wrote nowhere else.

Imported by conftest.py before anything else: it points ``HOME`` and every cache variable the package and
its libraries read into a fresh temporary folder (lmms-eval subprocesses inherit them), so nothing lands
in the user's ``~/.cache/food_tasks`` or ``~/.cache/huggingface``. :func:`snapshot` and
:func:`written_outside` compare the clone and the session's home before and after the session: a new or
changed file in the clone (``food_tasks_report/`` from a report without ``-o``), or anything under the
session home's ``.cache`` (a path built from ``~`` that ignores ``XDG_CACHE_HOME`` and the others), fails
the run. Under pytest-xdist each worker process has its own folder and checks its own home; the clone, which
the workers share, is checked by the controlling process alone, before the first and after the last test of
any worker (a worker would see another's files, such as the probe of tests/core/test_sandbox.py).
"""

from __future__ import annotations

import os
import shutil
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
ROOT = Path(tempfile.mkdtemp(prefix="food-tasks-tests-"))
HOME = ROOT / "home"
VARIABLES = {
    "HOME": HOME,
    "XDG_CACHE_HOME": ROOT / "cache",
    "HF_HOME": ROOT / "cache" / "huggingface",
    "HF_DATASETS_CACHE": ROOT / "cache" / "huggingface" / "datasets",
    "FOOD_TASKS_CACHE_DIR": ROOT / "cache" / "food_tasks",
    "MPLCONFIGDIR": ROOT / "matplotlib",
}
# Not the clone's content: version control, the virtual environment, caches of Python, pytest and pip builds.
SKIP = {".git", ".venv", "__pycache__", ".pytest_cache", ".mypy_cache", ".ruff_cache"}

for _name, _path in VARIABLES.items():
    _path.mkdir(parents=True, exist_ok=True)
    os.environ[_name] = str(_path)

# One OpenMP thread per process (torch, OpenBLAS), unless the developer set a number: the session runs processes side
# by side on every core (the pytest-xdist workers and the lmms-eval processes their tests start), and a runtime that
# starts one thread per core in each of them spins on cores the others need. Measured with the other worker busy:
# the tiny Qwen2-VL demo run (tests/worldcuisines/test_worldcuisines_e2e.py) took 60 CPU-seconds with the default
# threads and 26 with one, and its file ran in 71 s instead of 108. Set before anything imports torch or numpy; the
# processes of :func:`as_user` inherit it too (a setting of the machine's load, not of the code under test).
os.environ.setdefault("OMP_NUM_THREADS", "1")

# lmms-eval's own task index, built once per session (tests/speedups/lmms_eval_index.py): the first process to
# load this module (the controlling one under pytest-xdist) names the file; its workers and every lmms-eval
# subprocess inherit the name, and tests/speedups/sitecustomize.py installs the cache in those subprocesses.
SPEEDUPS = REPO / "tests" / "speedups"
os.environ.setdefault("FOOD_TASKS_TESTS_INDEX", str(ROOT / "lmms_eval_index.json"))
if str(SPEEDUPS) not in os.environ.get("PYTHONPATH", "").split(os.pathsep):
    os.environ["PYTHONPATH"] = os.pathsep.join(filter(None, [str(SPEEDUPS), os.environ.get("PYTHONPATH")]))
if str(SPEEDUPS) not in sys.path:
    sys.path.append(str(SPEEDUPS))
import lmms_eval_index  # noqa: E402  (tests/speedups, just put on sys.path)

lmms_eval_index.install_on_import()  # in this process too, before anything imports lmms_eval.tasks


def as_user(env: dict[str, str]) -> dict[str, str]:
    """``env`` without what the session adds for its own speed (tests/speedups on ``PYTHONPATH``, the name of the
    shared index): a process started with it imports and indexes everything as a user's process does. The session's
    thread count (``OMP_NUM_THREADS``, above) stays: it changes how many cores a process uses, not what it runs."""
    out = {k: v for k, v in env.items() if k != "FOOD_TASKS_TESTS_INDEX"}
    path = [p for p in out.pop("PYTHONPATH", "").split(os.pathsep) if p and Path(p).resolve() != SPEEDUPS.resolve()]
    if path:
        out["PYTHONPATH"] = os.pathsep.join(path)
    return out


def _walk(root: Path) -> dict[str, float]:
    out: dict[str, float] = {}
    if not root.is_dir():
        return out
    for folder, dirs, files in os.walk(root):
        dirs[:] = [d for d in dirs if d not in SKIP and not d.endswith(".egg-info")]
        for name in files + dirs:
            path = Path(folder) / name
            try:
                out[str(path)] = path.lstat().st_mtime
            except OSError:  # removed while walking
                continue
    return out


def snapshot(clone: bool = True) -> dict[str, float]:
    """``path -> mtime`` of everything in the clone (unless ``clone`` is false) and under the session home's
    ``.cache``."""
    return {**(_walk(REPO) if clone else {}), **_walk(HOME / ".cache")}


def written_outside(before: dict[str, float], after: dict[str, float]) -> list[str]:
    """One line per path created or changed between the two snapshots (folders only when new)."""
    lines = []
    for path, mtime in sorted(after.items()):
        if path not in before:
            if (
                str(Path(path).parent) not in after or str(Path(path).parent) in before
            ):  # a new folder once, not its files
                lines.append(f"new: {path}")
        elif mtime != before[path] and not os.path.isdir(path):
            lines.append(f"changed: {path}")
    return lines


def remove() -> None:
    shutil.rmtree(ROOT, ignore_errors=True)
