"""Tests write only into temporary folders (issue 19.8): the session's caches, and the check that fails the
session when something was written into the clone or, ignoring the cache variables, into the home."""

from __future__ import annotations

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
    from food_tasks.remote import cache_root

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


@pytest.mark.slow  # another interpreter
def test_a_session_that_writes_into_the_clone_fails(tmp_path):
    """A pytest session with our conftest whose one test writes into the clone: it passes, the session fails."""
    import subprocess
    import sys

    probe = sandbox.REPO / "food_tasks_sandbox_probe.txt"
    tests = Path(__file__).resolve().parents[1]
    (tmp_path / "conftest.py").write_text(  # our conftest's session hooks, loaded under another module name
        "import importlib.util, sys\n"
        f"sys.path.insert(0, {str(tests)!r})\n"
        f"spec = importlib.util.spec_from_file_location('food_tasks_conftest', {str(tests / 'conftest.py')!r})\n"
        "ours = importlib.util.module_from_spec(spec)\nspec.loader.exec_module(ours)\n"
        "globals().update({k: getattr(ours, k) for k in dir(ours) if k.startswith('pytest_')})\n"
    )
    (tmp_path / "test_probe.py").write_text(
        f"from pathlib import Path\n\ndef test_writes():\n    Path({str(probe)!r}).write_text('x')\n"
    )
    try:
        proc = subprocess.run(
            [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", str(tmp_path)],
            cwd=tmp_path,
            capture_output=True,
            text=True,
            timeout=300,
        )
    finally:
        probe.unlink(missing_ok=True)
    assert "1 passed" in proc.stdout and proc.returncode == 1, proc.stdout[-2000:] + proc.stderr[-2000:]
    assert "written outside the temporary folders" in proc.stdout and f"new: {probe}" in proc.stdout
