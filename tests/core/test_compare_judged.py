"""``food-tasks compare`` of two runs of a judged task: the judge's verdicts are not in the samples files, so a judge
figure gets its two reported values and no paired difference (never a difference of zeros, never a judge call)."""

from __future__ import annotations

import json
import math

import pytest

from food_tasks.benchmarks.diningbench import judging as db_judging
from food_tasks.benchmarks.diningbench.tables import TABLES as DB_TABLES
from food_tasks.compare import table as compare
from food_tasks.regional_tasks import judged
from food_tasks.regional_tasks import scoring as regional_scoring
from food_tasks.runs import load_run, paired
from food_tasks.stats import paired as paired_stats

METADATA = {
    "version": 1.0,
    "regional": {"format": "open", "id": "id", "question": "question", "answer": "answer", "judge": True},
}
ROWS = [("r1", "rendang", "Rendang."), ("r2", "pho", "pho"), ("r3", "sate", "Laksa"), ("r4", "laksa", "laksa")]


def _write_run(folder, outputs: list[str], reported: dict):  # type: ignore[no-untyped-def]
    """A run of one judged regional task: its samples file (the records process_results wrote) and results."""
    folder.mkdir()
    settings = regional_scoring.Settings.from_metadata(METADATA)
    records = [
        regional_scoring.score(settings, {"id": i, "question": "Which dish?", "answer": g}, out)
        for (i, g, _), out in zip(ROWS, outputs)
    ]
    lines = [json.dumps({"acc": r}) for r in records]
    (folder / "run_samples_regional_judged.jsonl").write_text("\n".join(lines) + "\n", encoding="utf-8")
    data = {
        "results": {"regional_judged": {f"{k},none": v for k, v in reported.items()}},
        "configs": {"regional_judged": {"task": "regional_judged", "metadata": METADATA}},
        "model_name": folder.name,
    }
    (folder / "run_results.json").write_text(json.dumps(data), encoding="utf-8")
    return load_run(folder / "run_results.json")


@pytest.fixture
def runs(tmp_path):  # type: ignore[no-untyped-def]
    # A: 3 of 4 right (acc 75); B: 2 of 4 (acc 50); the judge figures as the runs reported them (B's judge failed
    # on every call: judge_acc null, judge_error_rate 100).
    a = _write_run(tmp_path / "a", [p for _, _, p in ROWS], {"acc": 75.0, "judge_acc": 42.86, "judge_error_rate": 0.0})
    b = _write_run(
        tmp_path / "b",
        ["Rendang.", "pho", "Laksa", "none"],
        {"acc": 50.0, "judge_acc": None, "judge_error_rate": 100.0},
    )
    return a, b


@pytest.mark.parametrize("configured", [False, True])
def test_a_judge_figure_has_its_reported_values_and_no_difference(runs, monkeypatch, configured):
    def no_judge(*args, **kwargs):  # type: ignore[no-untyped-def]
        raise AssertionError("food-tasks compare called a judge")

    if configured:
        monkeypatch.setenv("FOOD_TASKS_JUDGE_MODEL", "judge-a")
    else:
        monkeypatch.delenv("FOOD_TASKS_JUDGE_MODEL", raising=False)
    monkeypatch.setattr(judged, "judge_from_env", no_judge)
    a, b = runs
    rows = {row.metric: row for row in paired.compare_runs(a, b, "all", iters=200)}
    for name in ("judge_acc", "judge_error_rate"):
        assert rows[name].comparison is None and rows[name].note == paired.NOT_IN_SAMPLES, name
    assert rows["judge_acc"].a == 42.86 and math.isnan(rows["judge_acc"].b)
    assert (rows["judge_error_rate"].a, rows["judge_error_rate"].b) == (0.0, 100.0)
    # acc is still paired: 75 - 50 on the 4 shared rows (r4 right in A, wrong in B)
    assert rows["acc"].comparison.diff == pytest.approx(25.0) and rows["acc"].comparison.n == 4
    # the injection suspect rate is read from the answers: still paired (no suspect in either run: 0 - 0)
    assert rows["judge_injection_suspect_rate"].comparison.diff == 0.0
    cells = {r[1]: r for r in compare.table_rows(list(rows.values()))}
    assert cells["judge_acc"][2:] == ("42.86", "undefined", "n/a", "n/a", "n/a", "", paired.NOT_IN_SAMPLES)
    assert cells["judge_error_rate"][2:] == ("0.00", "100.00", "n/a", "n/a", "n/a", "", paired.NOT_IN_SAMPLES)
    assert paired.compare_one(a, b, "regional_judged", "judge_acc").comparison is None  # the report's paired tables


def test_diningbench_judge_figures_are_not_paired_from_samples(monkeypatch):
    """DiningBench VQA's judge rates and figures declare the same: compare never re-judges them."""
    vqa = DB_TABLES["vqa"]
    judge_figures = [
        "judge_acc",
        "judge_acc_official",
        "judge_error_rate",
        "judge_unparsed_rate",
        "judge_agreement",
        "judge_majority_acc",
        "judge_flip_rate",
        "judge_kappa",
        "judge_rule_disagree_rate",
    ]
    assert [n for n in judge_figures if paired.from_samples(vqa[n])] == []
    assert paired.from_samples(vqa["judge_injection_suspect_rate"]) and paired.from_samples(vqa["rouge1_f"])
    assert db_judging.JudgeRatio.from_samples is False and db_judging.JudgeFigure.from_samples is False


def test_the_judge_settings_name_the_task_and_hash_the_prompt():
    settings = judged.JudgeSettings(task="regional_x")
    assert settings.label == "regional task regional_x"
    assert settings.prompt_sha256 == "adf7c729d4af"  # sha256 of JUDGE_PROMPT (UTF-8), first 12 hex digits
    custom = judged.JudgeSettings(prompt="Grade {prediction} against {answer}.")
    assert custom.prompt_sha256 == "e0e529b0d876" and custom.label == "regional task"


def test_the_reports_paired_table_says_why_a_judge_figure_is_not_paired():
    from types import SimpleNamespace

    from food_tasks.benchmarks.diningbench.report import SPEC
    from food_tasks.report import uncertainty as report_uncertainty

    column = next(c for c in SPEC.tables[0].columns if c.key == "vqa_acc")
    a, b = SimpleNamespace(label="model-a"), SimpleNamespace(label="model-b")
    row = paired.Row("diningbench_vqa_en", "judge_acc", 61.5, 58.0, None, True, paired.NOT_IN_SAMPLES)
    blocks = report_uncertainty._paired_blocks([(a, b, column, "diningbench_vqa_en", row)], SPEC)
    assert blocks == [("p", f"No paired difference for `diningbench_vqa_en` VQA ACC: {paired.WHY_NOT_PAIRED}.")]


def test_no_image_gain_is_paired_on_a_judge_figure(monkeypatch):
    """DiningBench VQA's headline is judge_acc: its image gain over the _noimage twin is not rebuilt from files."""
    from types import SimpleNamespace

    from food_tasks.lmms.facts import TaskFacts
    from food_tasks.runs import measures
    from food_tasks.stats import comparison
    from food_tasks.stats.paired import RunTask

    def no_pairing(*args, **kwargs):  # type: ignore[no-untyped-def]
        raise AssertionError("paired from samples files")

    monkeypatch.setattr(comparison, "paired_gain", no_pairing)
    records = [{"idx": 1, "question": "q", "gold": "g", "pred": "p"}]
    task = RunTask(DB_TABLES["vqa"], records)
    facts = TaskFacts("diningbench_vqa_en", (DB_TABLES["vqa"],))  # what a loaded run's facts say of it
    run = SimpleNamespace(task=lambda name: task, facts_of=lambda name: facts, files={}, path="run.json", label="model")
    assert measures.image_gain(run, run, "diningbench_vqa_en", "diningbench_vqa_en_noimage") is None
    why = measures.gain_missing_reason(run, run, "diningbench_vqa_en", "diningbench_vqa_en_noimage")
    assert why == f"its headline metric is a judge's figure: {paired.WHY_NOT_PAIRED}"


def test_compare_prints_why_once_under_its_table(runs, monkeypatch):
    from food_tasks.compare.command import output

    monkeypatch.delenv("FOOD_TASKS_JUDGE_MODEL", raising=False)
    a, b = runs
    text = "\n".join(line for _, line in output(str(a.path), str(b.path), "all", 200))
    assert text.count("judge verdicts not in samples") == 7  # the 7 judge figures' rows
    assert text.count("Judge figures (n/a): the per-row judge verdicts are not in the samples files") == 1
    judge_acc = next(line for line in text.splitlines() if line.strip().startswith("judge_acc "))
    assert judge_acc.split()[1:5] == ["42.86", "undefined", "n/a", "n/a"]


def test_a_baseline_comparison_never_pairs_a_judge_figure(monkeypatch, tmp_path):
    """lmms-eval's --baseline (stats.paired.compare_tasks, errorbars._baseline): a judge figure is not rebuilt from the
    baseline's samples (that re-judged the baseline's answers with today's judge); the other metrics are still
    paired."""
    from food_tasks.lmms import errorbars

    def no_judge(*args, **kwargs):  # type: ignore[no-untyped-def]
        raise AssertionError("a judge was called for a baseline comparison")

    monkeypatch.setattr(db_judging, "judge", no_judge, raising=False)
    records = [
        {"idx": i, "question": "q", "gold": "g", "pred": "p", "pred_official": "p", "rouge": None} for i in range(3)
    ]
    task = paired_stats.RunTask(DB_TABLES["vqa"], records)
    judged_names = [n for n in ("judge_acc", "judge_agreement") if DB_TABLES["vqa"].get(n) is not None]
    assert judged_names and paired_stats.compare_tasks(task, task, judged_names, 10, "diningbench_vqa_en") == {}
    row: dict = {}
    data = type("Data", (), {"table": DB_TABLES["vqa"], "records": records})()
    monkeypatch.setattr(errorbars, "headline_of", lambda data: "judge_acc")
    errorbars._baseline("diningbench_vqa_en", row, data, str(tmp_path), 10)
    assert row == {}  # no paired_* columns, no samples file looked for
