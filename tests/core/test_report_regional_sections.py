"""The report's sections for a regional task (issue 43, item 7): it built the Paired differences table for the
benchmarks only and dropped it, and the Uncertainty table, silently for a regional task. Now two runs of a regional
task get the paired differences of its headline metric (the benchmarks' table, on the documents both scored), and
the Uncertainty table it does not need is named in one line saying why; one run: one line saying why no pair."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from conftest import run_lmms_eval

pytestmark = pytest.mark.e2e

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "regional"
TASK = "regional_example_mcq"


@pytest.fixture(scope="module")
def two_runs(tmp_path_factory):  # type: ignore[no-untyped-def]
    work = tmp_path_factory.mktemp("regional_pair")
    shutil.copytree(EXAMPLE, work / "tasks", ignore=shutil.ignore_patterns("*.py", "group"))
    rows = [json.loads(line) for line in (work / "tasks" / "dishes.jsonl").read_text(encoding="utf-8").splitlines()]
    paths = []
    for name, right in (("model_a", len(rows)), ("model_b", len(rows) // 2)):  # A: all right; B: the first half
        answers = [r["answer"] if i < right else ("B" if r["answer"] == "A" else "A") for i, r in enumerate(rows)]
        preds = work / f"{name}.jsonl"
        preds.write_text("".join(json.dumps({"id": r["id"], "response": a}) + "\n" for r, a in zip(rows, answers)))
        args = ["--model", "food_tasks_replay", "--model_args", f"responses={preds},keys=id,model_name={name}"]
        args += ["--include_path", str(work / "tasks"), "--tasks", TASK]
        proc, results, _ = run_lmms_eval(args, work / name)
        assert results is not None, proc.stdout[-3000:] + proc.stderr[-3000:]
        paths.append(next((work / name).rglob("*_results.json")))
    return work, paths, rows


def _section(md: str) -> str:
    start = md.index(f"(`{TASK}`)") if f"(`{TASK}`)" in md else md.index(f"Task `{TASK}`")
    return md[start:]


def test_two_runs_of_a_regional_task_get_its_paired_differences(two_runs):
    from food_tasks.report import build_report

    work, paths, rows = two_runs
    md = Path(build_report(paths, work / "report", charts=False)["markdown"]).read_text(encoding="utf-8")
    section = _section(md)
    assert "### Paired differences" in section, section
    (line,) = [x for x in section.splitlines() if x.startswith("| model_a vs model_b |")]
    cells = [c.strip() for c in line.strip("|").split("|")]
    n, wrong = len(rows), len(rows) - len(rows) // 2
    assert cells[1] == "`acc`" and cells[2] == f"+{100 * wrong / n:.2f}", cells  # A - B on every document
    assert cells[5].startswith(f"{n} (")
    assert "*Not shown:* Uncertainty: the table above gives each value with its 95% interval" in section


def test_one_run_says_why_there_is_no_pair(two_runs):
    from food_tasks.report import build_report

    work, paths, _ = two_runs
    md = Path(build_report(paths[:1], work / "report1", charts=False)["markdown"]).read_text(encoding="utf-8")
    section = _section(md)
    assert "*Not shown:* Paired differences: one run of this task" in section, section
    assert "### Paired differences" not in section
