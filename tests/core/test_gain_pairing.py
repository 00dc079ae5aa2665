"""Issue 33 leftovers found by a newcomer's check (replay model, one lmms-eval run split into runs by hand):
``compare`` and ``report`` pair a task with its image-free twin the same way across runs (one model's task in one
run, its twin in another) and say where "with" and "without" come from; the report's "Without image" cell follows
the report's legend; ``compare`` warns when it compares a run with itself and exits 1 when the runs share nothing."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from conftest import run_lmms_eval

TASK, TWIN = "diningbench_cls_sample", "diningbench_cls_sample_noimage"
CAP, CAP_TWIN = "food500cap_caption_sample", "food500cap_caption_sample_noimage"


@pytest.fixture(scope="module")
def run_dir(tmp_path_factory):
    # Gold letters A and E: with the image both right, without it "A" twice (1 of 2 right); captions: "A" (default).
    tmp = tmp_path_factory.mktemp("pairing")
    lines = [
        {"task": TASK, "doc_id": 0, "response": "A"},
        {"task": TASK, "doc_id": 1, "response": "E"},
        {"task": TWIN, "doc_id": 0, "response": "A"},
        {"task": TWIN, "doc_id": 1, "response": "A"},
    ]
    responses = tmp / "responses.jsonl"
    responses.write_text("\n".join(json.dumps(x) for x in lines) + "\n")
    args = ["--model", "food_tasks_replay", "--model_args", f"responses={responses},default=a plate of food"]
    args += ["--tasks", ",".join((TASK, TWIN, CAP, CAP_TWIN))]
    proc, results, _ = run_lmms_eval(args, tmp / "out")
    assert results is not None and set(results["results"]) >= {TASK, TWIN, CAP, CAP_TWIN}, proc.stderr[-3000:]
    return tmp / "out"


def _subset(run_dir: Path, folder: Path, keep) -> Path:
    """A run of the same model holding only the tasks ``keep`` accepts (its results file and samples files)."""
    data = json.loads(next(run_dir.rglob("*_results.json")).read_text())
    folder.mkdir()
    for samples in run_dir.rglob("*_samples_*.jsonl"):  # named after the results file, as lmms-eval does
        task = samples.name.split("_samples_", 1)[1].removesuffix(".jsonl")
        if keep(task):
            shutil.copy(samples, folder / f"x_samples_{task}.jsonl")
    sections = {k: {t: v for t, v in data[k].items() if keep(t)} for k in ("results", "configs")}
    (folder / "x_results.json").write_text(json.dumps({**data, **sections, "group_subtasks": {}}))
    return folder


def _gain_table(blocks) -> list[list[str]] | None:
    return next((b[2] for b in blocks if b[0] == "table" and "Image gain" in b[1]), None)


@pytest.mark.e2e
def test_the_report_pairs_across_runs_as_compare_does_and_names_both_runs(run_dir, tmp_path):
    """Run E (model A, only the tasks with images) and run A (model A, tasks and twins): compare paired E's task
    with A's twin (A/B) while the report, pairing run by run, showed no image gain for E."""
    from food_tasks.report.beyond import beyond_blocks
    from food_tasks.report.charts import Charts
    from food_tasks.report.runs import load_runs
    from food_tasks.report.spec import spec_for
    from food_tasks.runs import measures as beyond

    e = _subset(run_dir, tmp_path / "e", lambda t: "noimage" not in t)
    runs = load_runs([run_dir, e])
    a_run, e_run = runs
    assert e_run.label != a_run.label  # "... #2": one model given twice
    compared = {(w.path, wo.path, task) for w, wo, task, _ in beyond.gain_pairs([e_run, a_run]) if task == TASK}
    assert compared == {(e_run.path, a_run.path, TASK), (a_run.path, a_run.path, TASK)}
    table = _gain_table(beyond_blocks(spec_for(TASK), runs, Charts(tmp_path / "charts")))
    assert table is not None
    rows = {(row[0], row[2]): row for row in table}
    # one row per pair compare shows, the runs column naming the run of each side by its label
    assert set(rows) == {
        (f"**{a_run.label}**", f"{a_run.label} / {a_run.label}"),
        (f"**{e_run.label}**", f"{e_run.label} / {a_run.label}"),
    }
    assert all(row[4:7] == ["100.00", "50.00 [5.46, 94.54]†", "+50.00†"] for row in rows.values())


@pytest.mark.e2e
def test_the_reports_without_image_cell_follows_the_legend(run_dir, tmp_path):
    """The cell printed "11.11 ± 18.29" on 3 units with no dagger, and "± 0.00" where every unit scored alike."""
    from food_tasks.report.beyond import beyond_blocks
    from food_tasks.report.charts import Charts
    from food_tasks.report.runs import load_runs
    from food_tasks.report.spec import spec_for

    runs = load_runs([run_dir])
    table = _gain_table(beyond_blocks(spec_for(TASK), runs, Charts(tmp_path / "charts")))
    # 1 of 2 right without the image: se of the mean over 2 clusters, CR1: sqrt(2/1 * ((1/2)^2 + (1/2)^2) / 4)
    # = 1/2, x 100 = 50 points; 1.96 x 50 = 98.00 would leave 0..100, so the proportion takes Wilson's interval over
    # the units its se is worth, n = p(1 - p) / se^2 = 1: centre (0.5 + 1.96^2/2) / (1 + 1.96^2) = 0.5, half-width
    # 1.96 sqrt(0.25 + 1.96^2/4) / (1 + 1.96^2) = 0.4454: [5.46, 94.54]; 2 units < 30: the dagger
    assert table is not None and table[0][5] == "50.00 [5.46, 94.54]†"
    # The caption twin ("a plate of food" for every image): CIDEr, a score (never a Wilson interval), ± 1.96 se,
    # on 5 units: the dagger.
    from food_tasks.runs.measures import image_gain

    gain = image_gain(runs[0], runs[0], CAP, CAP_TWIN)
    caption = _gain_table(beyond_blocks(spec_for(CAP), runs, Charts(tmp_path / "charts")))
    assert gain is not None and gain.without_se is not None and gain.without_se > 0
    assert caption is not None and caption[0][5] == f"{gain.without_image:.2f} ± {1.96 * gain.without_se:.2f}†"


def _compare(capsys, a: Path, b: Path) -> tuple[int, str, str]:
    from food_tasks import cli

    code = cli.main(["compare", str(a), str(b), "--iters", "0"])
    out = capsys.readouterr()
    return code, out.out, " ".join(out.err.split())


@pytest.mark.e2e
def test_compare_warns_once_when_a_run_is_compared_with_itself(run_dir, capsys):
    code, out, err = _compare(capsys, run_dir, run_dir)
    assert code == 0 and err.count("A and B are the same run") == 1 and "every difference below is 0" in err
    assert "A - B" in out


@pytest.mark.e2e
def test_compare_exits_1_naming_each_runs_tasks_when_they_share_nothing(run_dir, tmp_path, capsys):
    c = _subset(run_dir, tmp_path / "c", lambda t: t.startswith("diningbench"))
    d = _subset(run_dir, tmp_path / "d", lambda t: t.startswith("food500cap"))
    code, out, err = _compare(capsys, c, d)
    assert code == 1 and "share no task" in err, (out, err)
    assert f"A has {TASK}, {TWIN}; B has {CAP}, {CAP_TWIN}" in err
    # a task in one run and its twin in the other (one model) is something to compare: no error
    only_task = _subset(run_dir, tmp_path / "t", lambda t: t == TASK)
    only_twin = _subset(run_dir, tmp_path / "w", lambda t: t == TWIN)
    code, out, err = _compare(capsys, only_task, only_twin)
    assert code == 0 and "share no task" not in err and "A/B" in out


def test_the_image_gain_takes_the_metric_the_reports_headline_column_shows():
    """Food-500 Cap's image gain was BLEU-4 (its table's first metric with an estimator) while the report leads with
    CIDEr: the gain takes the headline the report's first headline column reads, one rule for every benchmark whose
    headline task has a metric table (CIDEr is a mean of per-image scores: it pairs by image)."""
    from food_tasks.lmms.facts import tables_for
    from food_tasks.report.spec import registry
    from food_tasks.stats.paired import RunTask, headline_of
    from food_tasks.tasks import catalogue

    checked = {}
    for spec in registry():
        table = spec.tables[0]
        mode = table.modes[0]
        column = next(c for c in table.columns if c.key == spec.headline[0])
        for source in column.sources:
            fill = {**dict(spec.variants[0].fill), "m": mode[1], "mode": mode[2]}  # the first section's tasks
            task, metric = source.task.format(**fill), source.metric.format(**fill)
            tables = tables_for(task) if task in catalogue.index() else ()
            if tables:
                checked[task] = (headline_of(RunTask(tables[0], [], tables)), metric)
    assert checked["food500cap_caption"] == ("cider", "cider")
    assert all(found == shown for found, shown in checked.values()), checked


@pytest.mark.e2e
def test_the_caption_image_gain_is_cider_in_compare_and_the_report(run_dir, tmp_path):
    from food_tasks.report.beyond import beyond_blocks
    from food_tasks.report.charts import Charts
    from food_tasks.report.runs import load_runs
    from food_tasks.report.spec import spec_for
    from food_tasks.runs import measures as beyond

    runs = load_runs([run_dir])
    found = beyond.image_gain(runs[0], runs[0], CAP, CAP_TWIN)
    assert found is not None and found.metric == "cider"
    table = _gain_table(beyond_blocks(spec_for(CAP), runs, Charts(tmp_path / "charts")))
    assert table is not None and table[0][3] == "cider"


@pytest.mark.e2e
def test_compare_and_baseline_lead_with_the_same_headline_as_the_report(run_dir, tmp_path, monkeypatch):
    """One headline rule (stats.paired.headline_of): compare's headline rows and --baseline's paired columns took the
    table's first metric with an estimator (BLEU-4 for Food-500 Cap) while the report and the image gain take CIDEr."""
    from food_tasks.lmms import errorbars
    from food_tasks.runs.paired import compare_runs
    from food_tasks.runs.run import load_run

    run = load_run(run_dir)
    assert [r.metric for r in compare_runs(run, run, "headline", iters=0) if r.name == CAP] == ["cider"]
    asked = []
    monkeypatch.setattr(errorbars, "compare_tasks", lambda ta, tb, names, *a, **k: asked.extend(names) or {})
    ours = run.task(CAP)
    data = errorbars.TaskData(ours.table, ours.records, [ours.table.cluster_of(r) for r in ours.records])
    errorbars._baseline(CAP, {}, data, str(run_dir), 0)  # the same run as its own baseline
    assert asked == ["cider"]
