"""What a newcomer still tripped on (issue 44, "What a newcomer still trips on"): the folders our commands write by
default are ignored by git, the rescore hints read the variant declarations, messages fit 120 columns."""

from __future__ import annotations

import math
import shutil
import subprocess
from pathlib import Path

import pytest

from food_tasks import cli

REPO = Path(__file__).resolve().parents[2]


@pytest.mark.skipif(shutil.which("git") is None, reason="needs git")
@pytest.mark.parametrize(
    "folder",
    [
        cli.DEMO_OUTPUT,  # food-tasks demo
        "food_tasks_report",  # food-tasks report
        # food-tasks rescore of the demo's run: <output_path>_rescored beside it
        f"{cli.DEMO_OUTPUT}_rescored",
    ],
)
def test_the_default_output_folders_are_ignored_by_git(folder):
    out = subprocess.run(
        ["git", "check-ignore", "--no-index", "-q", f"{folder}/model/20260101_000000_results.json"],
        cwd=REPO,
        capture_output=True,
        text=True,
    )
    assert out.returncode == 0, f"{folder}/ is not in .gitignore ({out.stderr})"


def _leaves(name: str, groups: dict[str, tuple[str, ...]]) -> list[str]:
    return [leaf for m in groups[name] for leaf in _leaves(m, groups)] if name in groups else [name]


def test_rescore_hints_name_every_variant_the_demo_run_lacks(tmp_path):
    # The demo's run (its groups and leaf tasks, as lmms-eval records them); the hints read the variants that the
    # YAMLs declare on its leaf tasks, and name a group where one holds them all (was: only variants of the
    # tasks named in --tasks, so the rotated and image-free groups of the sample groups were left out).
    from food_tasks.runs.rescore import Source, more_runs
    from food_tasks.tasks import catalogue

    groups = {name: members for name, kind, _, members in catalogue.entries() if kind == "group"}
    top = cli.demo_tasks().split(",")
    subtasks = {g: list(groups[g]) for g in top if g in groups}
    tasks = [leaf for name in top for leaf in _leaves(name, groups)]
    source = Source(tmp_path / "r_results.json", {"group_subtasks": subtasks}, tasks, {})
    hinted = {line.split(": run ")[1]: line.split(": run ")[0].strip() for line in more_runs(source, tasks)}
    assert hinted == {
        "diningbench_cls_sample_circular": "rotation (circular accuracy, flips)",
        "diningbench_cls_sample_noimage": "image gain",
        "food500cap_caption_sample_noimage": "image gain",
        "foodieqa_sample_circular": "rotation (circular accuracy, flips)",
        "foodieqa_sample_noimage": "image gain",
        "worldcuisines_mcq_sample_circular": "rotation (circular accuracy, flips)",
        "worldcuisines_mcq_sample_noimage": "image gain",
        "worldcuisines_oeq_sample_noimage": "image gain",
    }


def test_rescore_hints_name_a_leaf_variant_when_no_group_holds_all(tmp_path):
    # One leaf of a rotated group's tasks in the run: its own variant is named, not the group.
    from food_tasks.runs.rescore import Source, more_runs
    from food_tasks.tasks import registry

    leaf = "worldcuisines_mcq_sample_1a_nocontext"
    source = Source(tmp_path / "r_results.json", {}, [leaf], {})
    lines = more_runs(source, [leaf])
    named = [line.split(": run ")[1] for line in lines]
    assert "worldcuisines_mcq_sample_circular" not in named
    assert named and all(registry.variant(n) and registry.variant(n)[1] == leaf for n in named), lines


# --- item 1: a results file with a bare NaN -------------------------------------------------------------------------


def _stats_row(a, b, diff: float = 0.0):
    from food_tasks.runs.paired import Row
    from food_tasks.stats.uncertainty import Comparison

    # the samples of both runs say 7/9 on the same 9 documents: A - B = 0 on them, 9 units (too few for a verdict)
    c = Comparison(diff, 0.0, diff, diff, None, 9, 9, 0.0, "clustered analytic")
    return Row("regional_example_mcq", "acc", a, b, c, True)


def test_a_bare_nan_is_named_in_one_warning(tmp_path, capsys):
    from food_tasks.lmms import runfiles

    bad = tmp_path / "other_tool" / "20260101_000000_results.json"
    bad.parent.mkdir()
    bad.write_text('{"results": {"t": {"acc,none": NaN, "acc_stderr,none": Infinity, "n,none": 9}}}')
    data = runfiles.read_results(bad)
    assert math.isnan(data["results"]["t"]["acc,none"])
    err = capsys.readouterr().err
    assert err.count("food-tasks: warning: not strict JSON") == 1 and str(bad) in err, err
    assert "bare Infinity and NaN at results.t.acc,none, results.t.acc_stderr,none" in " ".join(err.split()), err
    assert max(map(len, err.splitlines())) <= 120, err
    good = tmp_path / "ours_results.json"
    good.write_text('{"results": {"t": {"acc,none": null, "n,none": 0}}}')
    runfiles.read_results(good)
    assert capsys.readouterr().err == ""  # null is how an undefined value is written: nothing to warn about


def test_compare_prints_no_difference_beside_an_undefined_side():
    from food_tasks.compare import table

    # was: acc  undefined  77.78  +0.00 ... (the file said NaN, the samples 7/9 in both runs)
    cells = table.table_rows([_stats_row(math.nan, 77.78)])[0]
    assert cells[2:] == ("undefined", "77.78", "n/a", "n/a", "n/a", "", "A undefined: no difference")
    cells = table.table_rows([_stats_row(77.78, math.nan)])[0]
    assert cells[4] == "n/a" and cells[-1] == "B undefined: no difference"
    assert table.table_rows([_stats_row(77.78, 66.67, 11.11)])[0][4] == "+11.11"  # both defined: the difference


def test_the_report_prints_no_difference_beside_an_undefined_side_and_names_the_file():
    from types import SimpleNamespace

    from food_tasks.report.cells import undefined_as_nan
    from food_tasks.report.spec import Column
    from food_tasks.report.uncertainty import _paired_blocks

    a, b = SimpleNamespace(label="model-a"), SimpleNamespace(label="model-b")
    column = Column("acc", "Accuracy", ())
    spec = SimpleNamespace(headline=("acc",))
    blocks = _paired_blocks([(a, b, column, "regional_example_mcq", _stats_row(math.nan, 77.78))], spec)
    (table,) = [blk for blk in blocks if blk[0] == "table"]
    (row,) = table[2]
    assert row[2:5] == ["n/a", "n/a", "n/a"] and row[-1] == "model-a: undefined, no difference", row

    run = SimpleNamespace(
        data={Path("x_results.json"): {"results": {"t": {"acc,none": math.nan}}}},
        metrics={"t": {"acc": math.nan, "judge_acc": None}},
    )
    assert undefined_as_nan([run]) == ["`x_results.json`: results.t.acc,none"]
    assert math.isnan(run.metrics["t"]["judge_acc"])


# --- item 3: report gaps ---------------------------------------------------------------------------------------------


def test_a_value_without_its_interval_says_why():
    # foodieqa_sivqa_en_sample_p3 of the demo: RStd 0.00 on 2 units, no standard error (the bootstrap gave too few
    # numbers): the cell was a bare 0.00, beside cells of other rows that carry an interval or a note.
    from types import SimpleNamespace

    from food_tasks.report.beyond import _with_error

    method = "not estimated: fewer than half of the resamples give a number"
    run = SimpleNamespace(
        value=lambda task, metric: 0.0,
        se=lambda task, metric: None,
        few=lambda task, metric: True,
        unit_count=lambda task, metric: 2,
        reported=lambda task, key: method if key == "position_rstd_stderr_method" else None,
    )
    cell = _with_error(run, "foodieqa_sivqa_en_sample_p3", "position_rstd", proportion=False)
    assert cell.startswith("0.00 (no interval: fewer than half of the resamples give a number)"), cell
    run.reported = lambda task, key: None  # no standard error in the file, none attempted: the value as it is
    assert _with_error(run, "t", "position_rstd") == "0.00"


def test_the_judge_disagreement_table_says_when_it_is_cut():
    from food_tasks.report.judges import _shown_of

    two = {"verdict_table": {"correct_correct": 1, "correct_wrong": 5, "wrong_correct": 3, "wrong_wrong": 1}}
    assert _shown_of(two, 5) == "the first 5 of 8; "  # was: 5 rows, nothing said
    assert _shown_of({"verdict_table": {"correct_wrong": 2, "wrong_correct": 1}}, 3) == ""  # all shown
    three = {"verdict_table": {"versus_majority": {}}}
    assert _shown_of(three, 5) == "the first 5, the most the results file keeps; " and _shown_of(three, 2) == ""


def test_a_bar_label_of_zero_sits_at_the_bar_not_past_its_error_bar(tmp_path, monkeypatch):
    pytest.importorskip("matplotlib")
    from food_tasks.report.charts import Charts

    charts = Charts(tmp_path)
    seen = {}

    def keep(fig, name):  # type: ignore[no-untyped-def]
        (ax,) = fig.axes
        seen.update({t.get_text(): t.xy for t in ax.texts if hasattr(t, "xy")})
        return "charts/x.png"

    monkeypatch.setattr(charts, "_save", keep)
    # 0 % with a Wilson interval [0, 24.3] (9 documents), 50 % with [30, 70]
    charts.language_bars({"m": {"en": 0.0, "ja": 50.0}}, "acc", "x", errors={"m": {"en": (0.0, 24.3), "ja": (30, 70)}})
    assert seen["0.0"][0] == 0.0 and seen["50.0"][0] == 50.0, seen  # was: placed past 24.3 and 70
