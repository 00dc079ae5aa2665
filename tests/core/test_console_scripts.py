"""What users run, run as they run it: each ``food-tasks`` command (demo, report, compare, rescore, validate, list)
through its console script, and one lmms-eval run of a packaged sample task through ``lmms-eval``'s, each in a
process with nothing of tests/ on its path (:func:`sandbox.as_user`: no test speedups, lmms-eval's own task index
built afresh), started outside the repository. The other end-to-end tests run lmms-eval inside the test process
(tests/inprocess.py) for speed; these prove the real entry points.

Kept few and cheap: one replay run of DiningBench's packaged classification sample and its image-free twin (2
documents each), re-scored (a second run for compare), reported without charts. ``food-tasks demo`` is the one of
tests/worldcuisines/test_worldcuisines_e2e.py (``test_tiny_qwen2_vl_through_lmms_eval_hf_backend``): its console
script, in the same user's environment, on three sample tasks (``--tasks``, the demo's own flag) and the session's
tiny model (built once, where the demo looks for it), so the demo's lmms-eval run is paid once.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
import sandbox
from conftest import run_lmms_eval

pytestmark = pytest.mark.e2e
REPO = Path(__file__).resolve().parents[2]
TASK, TWIN = "diningbench_cls_sample", "diningbench_cls_sample_noimage"


def user_env() -> dict[str, str]:
    """The environment of a user's shell: the session's sandboxed home and caches, offline, and no tests/ path."""
    env = sandbox.as_user(dict(os.environ, HF_HUB_OFFLINE="1", HF_DATASETS_OFFLINE="1", TOKENIZERS_PARALLELISM="false"))
    paths = [Path(p).resolve() for p in env.get("PYTHONPATH", "").split(os.pathsep) if p]
    assert not [p for p in paths if p == REPO / "tests" or REPO / "tests" in p.parents], paths
    return env


def food_tasks(*args: str, cwd: Path, timeout: int = 600) -> subprocess.CompletedProcess:
    """``food-tasks ARGS`` as a user runs it: the console script beside this interpreter."""
    script = Path(sys.executable).with_name("food-tasks")
    command = [str(script)] if script.is_file() else [sys.executable, "-m", "food_tasks.cli"]
    return subprocess.run(
        [*command, *args], env=user_env(), cwd=cwd, capture_output=True, text=True, timeout=timeout, check=False
    )


@pytest.fixture(scope="module")
def run_a(tmp_path_factory) -> Path:
    """One lmms-eval run of a packaged sample task and its twin, through the ``lmms-eval`` console script."""
    work = tmp_path_factory.mktemp("console")
    lines = [{"task": TASK, "doc_id": 0, "response": "A"}, {"task": TASK, "doc_id": 1, "response": "E"}]
    lines += [{"task": TWIN, "doc_id": 0, "response": "A"}, {"task": TWIN, "doc_id": 1, "response": "A"}]
    responses = work / "responses.jsonl"
    responses.write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")
    args = ["--model", "food_tasks_replay", "--model_args", f"responses={responses}", "--tasks", f"{TASK},{TWIN}"]
    proc, results, _ = run_lmms_eval(args, work / "A", as_user=True)
    assert proc.returncode == 0 and results is not None, proc.stderr[-3000:]
    assert results["results"][TASK]["acc,none"] == 100.0 and results["results"][TWIN]["acc,none"] == 50.0
    assert results["results"][TASK]["image_gain,none"] == 50.0  # the pair, paired in the run
    return work / "A"


def test_list_and_validate(tmp_path):
    listed = food_tasks("list", cwd=tmp_path)
    assert listed.returncode == 0 and TASK in listed.stdout, listed.stderr[-2000:]
    checked = food_tasks("validate", str(REPO / "examples" / "regional" / "regional_example_mcq.yaml"), cwd=tmp_path)
    assert checked.returncode == 0, checked.stdout[-2000:] + checked.stderr[-2000:]


def test_report_rescore_and_compare_of_a_run(run_a, tmp_path):
    report = food_tasks("report", str(run_a), "-o", str(tmp_path / "report"), "--no-charts", cwd=tmp_path)
    assert report.returncode == 0, report.stderr[-3000:]
    assert TASK in (tmp_path / "report" / "report.md").read_text(encoding="utf-8")
    rescored = food_tasks("rescore", str(run_a), "-o", str(tmp_path / "B"), cwd=tmp_path)
    assert rescored.returncode == 0, rescored.stdout[-3000:] + rescored.stderr[-3000:]
    assert any(line.startswith("food-tasks rescore: ") for line in rescored.stdout.splitlines())
    (written,) = (tmp_path / "B").rglob("*_results.json")
    assert json.loads(written.read_text(encoding="utf-8"))["results"][TASK]["acc,none"] == 100.0
    compared = food_tasks("compare", str(run_a), str(tmp_path / "B"), cwd=tmp_path)
    assert compared.returncode == 0, compared.stderr[-3000:]
    assert "A = " in compared.stdout and "Image gain (with the image minus without it)" in compared.stdout
    assert TASK in compared.stdout.splitlines()
