"""Tests write only into temporary folders (issue 19.8): the session's caches, and the check that fails the
session when something was written into the clone or, ignoring the cache variables, into the home."""

from __future__ import annotations

import importlib.util
import os
from pathlib import Path

import pytest
import sandbox


def _inside(path: os.PathLike | str) -> bool:
    return Path(path).resolve().is_relative_to(sandbox.ROOT.resolve())


def test_every_cache_points_into_the_session_folder():
    import datasets.config
    import huggingface_hub.constants
    import matplotlib

    from food_tasks.benchmarks.foodieqa import data as fq_data
    from food_tasks.data.remote import cache_root

    assert all(_inside(os.environ[name]) for name in sandbox.VARIABLES)
    assert _inside(Path.home()) and _inside(os.path.expanduser("~/.cache"))
    assert (
        _inside(cache_root())
        and _inside(datasets.config.HF_DATASETS_CACHE)
        and _inside(huggingface_hub.constants.HF_HOME)
    )
    assert _inside(fq_data.cache_root()) and _inside(matplotlib.get_cachedir())
    assert not _inside(sandbox.REPO)


def test_written_outside_names_new_and_changed_paths(tmp_path, monkeypatch):
    monkeypatch.setattr(sandbox, "REPO", tmp_path / "clone")
    monkeypatch.setattr(sandbox, "HOME", tmp_path / "home")
    (tmp_path / "clone" / "yaml_tasks").mkdir(parents=True)
    (tmp_path / "clone" / "yaml_tasks" / "a.yaml").write_text("a")
    (tmp_path / "clone" / ".git").mkdir()
    before = sandbox.snapshot()
    (tmp_path / "clone" / "food_tasks_report" / "charts").mkdir(parents=True)  # a report without -o
    (tmp_path / "clone" / "food_tasks_report" / "report.md").write_text("x")
    os.utime(tmp_path / "clone" / "yaml_tasks" / "a.yaml", (1, 1))
    (tmp_path / "clone" / ".git" / "index").write_text("")  # not the clone's content
    (tmp_path / "home" / ".cache" / "food_tasks").mkdir(parents=True)  # a path built from ~, ignoring the variables
    assert sandbox.written_outside(before, sandbox.snapshot()) == [
        f"new: {tmp_path / 'clone' / 'food_tasks_report'}",
        f"changed: {tmp_path / 'clone' / 'yaml_tasks' / 'a.yaml'}",
        f"new: {tmp_path / 'home' / '.cache' / 'food_tasks'}",
    ]
    assert sandbox.written_outside(before, before) == []


@pytest.mark.slow  # other interpreters
@pytest.mark.parametrize("workers", [None, 2])
def test_a_session_that_writes_into_the_clone_or_home_cache_fails(tmp_path, workers):
    """A pytest session with our conftest whose tests write into the clone and into the home's ``.cache``: they pass,
    the session fails and names both. Also under pytest-xdist (``-n 2``), where each worker has its own home and the
    controlling process reports the workers' findings and checks the clone."""
    import subprocess
    import sys

    probe = sandbox.REPO / f"food_tasks_sandbox_probe_{os.getpid()}_{workers}.txt"
    tests = Path(__file__).resolve().parents[1]
    (tmp_path / "conftest.py").write_text(  # our conftest's session hooks, loaded under another module name
        "import importlib.util, sys\n"
        f"sys.path.insert(0, {str(tests)!r})\n"
        f"spec = importlib.util.spec_from_file_location('food_tasks_conftest', {str(tests / 'conftest.py')!r})\n"
        "ours = importlib.util.module_from_spec(spec)\nspec.loader.exec_module(ours)\n"
        "globals().update({k: getattr(ours, k) for k in dir(ours) if k.startswith('pytest_')})\n"
    )
    (tmp_path / "test_probe.py").write_text(
        "import os\nfrom pathlib import Path\n\n"
        f"def test_writes_into_the_clone():\n    Path({str(probe)!r}).write_text('x')\n\n"
        "def test_writes_into_the_home_cache():\n"
        "    folder = Path(os.path.expanduser('~/.cache/food_tasks'))\n"
        "    folder.mkdir(parents=True)\n    print('HOME_CACHE', folder)\n"
    )
    xdist = ["-p", "xdist", "-n", str(workers)] if workers else []
    env = {k: v for k, v in os.environ.items() if not k.startswith("PYTEST_XDIST")}  # when this suite runs under -n
    try:
        proc = subprocess.run(
            [sys.executable, "-m", "pytest", "-q", "-s", "-p", "no:cacheprovider", *xdist, str(tmp_path)],
            cwd=tmp_path,
            env=env,
            capture_output=True,
            text=True,
            timeout=300,
        )
    finally:
        probe.unlink(missing_ok=True)
    log = proc.stdout[-3000:] + proc.stderr[-3000:]
    assert "2 passed" in proc.stdout and proc.returncode == 1, log
    assert "written outside the temporary folders" in proc.stdout and f"new: {probe}" in proc.stdout, log
    found = [line[len("new: ") :] for line in proc.stdout.splitlines() if line.startswith("new: ")]
    home = [path for path in found if path != str(probe)]
    assert len(found) == 2 and len(home) == 1, log
    assert home[0].endswith(f"{os.sep}home{os.sep}.cache{os.sep}food_tasks"), log  # the session's (a worker's) home
    if not workers:  # -s shows a test's output in a plain session only
        assert f"HOME_CACHE {home[0]}" in proc.stdout, log


def test_a_deferred_module_is_imported_when_a_public_name_is_read(monkeypatch):
    """tests/speedups/sitecustomize.py defers Hugging Face ``evaluate`` in the session's interpreters (4 of the 10
    CPU-seconds of an lmms-eval start-up); lmms-eval binds it by ``import evaluate as hf_evaluate`` and reads
    ``hf_evaluate.load`` only to load a metric. Here on a small module: the scans that read a dunder name of every
    module (warnings' registry) do not import it; the first public name does, and the bound stand-in has it."""
    import sys

    sitecustomize = sys.modules.get("sitecustomize")  # what this interpreter ran at start-up, if anything
    if not hasattr(sitecustomize, "_Deferred"):
        pytest.skip("this interpreter did not start with tests/speedups on PYTHONPATH (pytest -n 0)")
    assert type(sys.modules.get("evaluate")).__name__ in {"_Deferred", "module"}
    # Deferred or not, "evaluate" has the real module's spec: importlib.util.find_spec reads it from sys.modules.
    found = importlib.util.find_spec("evaluate")
    assert found is not None and found.name == "evaluate" and found.origin.endswith(f"evaluate{os.sep}__init__.py")
    monkeypatch.delitem(sys.modules, "colorsys", raising=False)
    stand_in = sitecustomize._Deferred("colorsys")
    monkeypatch.setitem(sys.modules, "colorsys", stand_in)
    import colorsys

    assert colorsys is stand_in and getattr(colorsys, "__warningregistry__", None) is None
    assert sys.modules["colorsys"] is stand_in  # still deferred
    assert colorsys.rgb_to_hsv(1.0, 0.0, 0.0) == (0.0, 1.0, 1.0)
    real = sys.modules["colorsys"]
    assert real is not stand_in and type(real).__name__ == "module" and stand_in.hls_to_rgb is real.hls_to_rgb


def test_a_process_as_a_users_has_none_of_the_sessions_speedups():
    """conftest.run_lmms_eval(as_user=True) (the wheel's fresh venv, the missing-data run) starts a process with
    :func:`sandbox.as_user`: neither tests/speedups on its path nor the name of the session's index."""
    import subprocess
    import sys

    env = sandbox.as_user(dict(os.environ, PYTHONPATH=os.pathsep.join([str(sandbox.SPEEDUPS), "/elsewhere"])))
    assert "FOOD_TASKS_TESTS_INDEX" not in env and env["PYTHONPATH"] == "/elsewhere"
    probe = "import importlib.util as u, sys; print(u.find_spec('lmms_eval_index'), 'evaluate' in sys.modules)"
    proc = subprocess.run([sys.executable, "-c", probe], env=env, capture_output=True, text=True, check=True)
    assert proc.stdout.split() == ["None", "False"], proc.stderr
