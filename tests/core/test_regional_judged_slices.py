"""A judged regional task with the judge's figures per slice and ``judge: {headline: true}`` (issue 43, item 5): the
example examples/regional/regional_example_open_judged_headline.yaml through lmms-eval with a local judge, its figures
by hand, the printed table, ``food-tasks compare`` and the report led by the judge's accuracy."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from food_tasks.cli import main as cli_main
from food_tasks.regional_tasks import scoring as regional_scoring
from food_tasks.regional_tasks import slices as regional_slices

ROOT = Path(__file__).resolve().parents[2]
EXAMPLE = ROOT / "examples" / "regional"
TASK = "regional_example_open_judged_headline"

# dishes_open.csv: sea-001 rendang, sea-002 nasi goreng (Southeast Asia); eas-001 xiaolongbao, eas-002 麻婆豆腐 (East
# Asia); waf-001 jollof rice, waf-002 mafé (West Africa). The judge says yes to the first four answers.
ANSWERS = {
    "sea-001": "Rendang.",
    "sea-002": "Fried rice with egg",
    "eas-001": "Steamed soup dumplings",
    "eas-002": "麻婆豆腐",
    "waf-001": "Suya",
    "waf-002": "",
}
YES = ("Rendang.", "Fried rice with egg", "Steamed soup dumplings", "麻婆豆腐")


def _judge(prompt: str) -> str:
    candidate = prompt.split("Candidate answer:", 1)[1]
    return "yes" if any(answer in candidate for answer in YES) else "no"


def test_judge_figures_per_slice_without_a_judge_are_null(monkeypatch):
    from food_tasks.regional_tasks import judged

    s = regional_scoring.Settings.from_metadata(
        {"regional": {"format": "open", "id": "id", "question": "q", "answer": "a", "slices": ["r"], "judge": True}}
    )
    records = [regional_scoring.score(s, {"id": "1", "q": "?", "a": "x", "r": "R"}, "x")]
    monkeypatch.setattr(judged, "judge_from_env", lambda purpose: None)  # FOOD_TASKS_JUDGE_MODEL=none
    assert regional_slices.JudgeBySlice(s.judge, "r")(records) == {"R": None}
    assert regional_slices.JudgeBySlice(s.judge, "r", sizes=True)(records) == {"R": 0}
    table = regional_scoring.metric_table(s)
    assert list(table)[0] == "acc" and table.headline is None  # without headline: acc leads, as before
    assert {"judge_acc_by_r", "judge_n_by_r"} <= set(table)


@pytest.fixture(scope="module")
def judged_run(tmp_path_factory):
    from conftest import run_lmms_eval
    from judge_server import JudgeServer

    tmp = tmp_path_factory.mktemp("judged_slices")
    preds = tmp / "preds.jsonl"
    lines = [{"id": k, "response": v} for k, v in ANSWERS.items()]
    preds.write_text("\n".join(json.dumps(x, ensure_ascii=False) for x in lines) + "\n", encoding="utf-8")
    with JudgeServer(_judge) as server:
        env = {
            "FOOD_TASKS_JUDGE_MODEL": "judge-a",
            "FOOD_TASKS_JUDGE_URL": server.url,
            "OPENAI_API_KEY": "",
            "API_TYPE": "openai",
            "FOOD_TASKS_JUDGE_CACHE": str(tmp / "judge-cache"),
            "FOOD_TASKS_JUDGE_ATTEMPTS": "1",
            "FOOD_TASKS_TABLE": "headline",  # the printed table: each task's headline metric only
        }
        args = ["--model", "food_tasks_replay", "--model_args", f"responses={preds},keys=id"]
        proc, results, samples = run_lmms_eval(
            [*args, "--include_path", str(EXAMPLE), "--tasks", TASK], tmp / "out", env=env
        )
    assert results is not None and TASK in results["results"], proc.stderr[-3000:]
    return proc, results, tmp


@pytest.mark.e2e
def test_judge_accuracy_per_slice_by_hand(judged_run):
    _, results, _ = judged_run
    got = results["results"][TASK]
    # judge: yes to sea-001, sea-002, eas-001, eas-002; no to waf-001; waf-002 empty: sent to no judge, wrong
    assert got["judge_acc,none"] == pytest.approx(400 / 6)
    assert got["judge_acc_by_region,none"] == pytest.approx(
        {"East Asia": 100.0, "Southeast Asia": 100.0, "West Africa": 0.0}
    )
    assert got["judge_n_by_region,none"] == {"East Asia": 2, "Southeast Asia": 2, "West Africa": 2}
    # substring match: only "Rendang." and "麻婆豆腐" contain their answers -> 2 of 6; one per region but West Africa
    assert got["acc,none"] == pytest.approx(100 / 3)
    assert got["acc_by_region,none"] == pytest.approx({"East Asia": 50.0, "Southeast Asia": 50.0, "West Africa": 0.0})


@pytest.mark.e2e
def test_the_judge_leads_the_table_compare_and_the_report(judged_run, capsys):
    proc, results, tmp = judged_run
    # the results list judge_acc first; the printed headline table shows it as the task's row (lmms-eval's full
    # table lists every row's metrics alphabetically)
    metrics = [k.split(",")[0] for k in results["results"][TASK] if "," in k and "_stderr" not in k]
    assert metrics[0] == "judge_acc"
    rows = [line.split("|") for line in proc.stdout.splitlines() if line.startswith("|") and line.count("|") > 6]
    shown = [r[4].strip() for r in rows if r[1].strip() == TASK]
    assert shown == ["judge_acc"]
    # food-tasks compare: the headline it compares by default is the judge's accuracy
    out = tmp / "out"
    assert cli_main(["compare", str(out), str(out)]) == 0
    text = capsys.readouterr().out
    assert "judge_acc" in text and "acc_by_region" not in text
    # the report: judge_acc first in the task's table; the first slice chart is the judge's
    assert cli_main(["report", str(out), "-o", str(tmp / "report")]) == 0
    md = (tmp / "report" / "report.md").read_text(encoding="utf-8")
    section = md.split(f"\n## Task `{TASK}`\n", 1)[1].split("\n## ", 1)[0]
    table_rows = [line for line in section.splitlines() if line.startswith("| `")]
    assert table_rows[0].startswith("| `judge_acc` | 66.67")
    headings = [line for line in section.splitlines() if line.startswith("### ")]
    assert headings[0] == "### `judge_acc_by_region`" and "### `acc_by_region`" in headings
    assert "### `judge_n_by_region`" not in headings  # shown beside the breakdown it sizes
    assert f"{TASK}_judge_acc_by_region.png" in {p.name for p in (tmp / "report" / "charts").iterdir()}


@pytest.mark.e2e
def test_the_full_printed_table_leads_with_the_declared_headline(judged_run, monkeypatch):
    """lmms-eval's full table (FOOD_TASKS_TABLE unset) sorts a row's metrics alphabetically: `acc` came before
    `judge_acc`. The pack's copy of our rows keys the declared headline so that it sorts first; the other metrics
    keep lmms-eval's order, and the results JSON its keys."""
    from lmms_eval.utils import make_table

    from food_tasks.lmms.results_table import Lead, render

    _, results, _ = judged_run
    monkeypatch.delenv("FOOD_TASKS_TABLE", raising=False)
    before = json.dumps(results, sort_keys=True)
    table = render(make_table, results, "results", False, ())
    rows = [line.split("|") for line in table.splitlines() if line.startswith("|") and line.count("|") > 6][2:]
    metrics = [r[4].strip() for r in rows if r[4].strip()]
    assert metrics[0] == "judge_acc" and "acc" in metrics and metrics.index("acc") > 0
    rest = [m for m in metrics if m != "judge_acc"]
    assert rest == sorted(rest)  # lmms-eval's order for the rest
    assert json.dumps(results, sort_keys=True) == before  # a printed copy only
    # the key: equal and hashed as its text, before every other string (both sides of the comparison)
    key = Lead("judge_acc,none")
    assert key == "judge_acc,none" and {key: 1}["judge_acc,none"] == 1
    assert key < "acc,none" and "acc,none" > key and not ("acc,none" < key)
    assert sorted([("acc,none", 1), (key, 2), ("bleu,none", 3)])[0] == (key, 2)
