"""Groups and tags of regional tasks with the default auto-registration (issue 43, item 1).

lmms-eval 0.7.3 indexes a regional task (a ``class:`` YAML) as a python task and reads no ``tag`` of it ("Tasks not
found", exit status 0); a group YAML naming regional tasks crashed averaging ``acc_by_<column>`` (``acc`` matches it by
substring; "Error during evaluation", exit status 0); a name that resolves to nothing exited 0. The example group,
examples/regional/group/, runs through the lmms-eval CLI with one ``--tasks`` name; its numbers are computed by hand
below from answers.jsonl.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from conftest import run_lmms_eval

from food_tasks.errors import RunStopped
from food_tasks.lmms import errorbars, names

GROUP = Path(__file__).resolve().parents[2] / "examples" / "regional" / "group"

# answers.jsonl, row by row (gold answers in the data files):
#   sweets  A ok | "Answer: B" ok | "C. Mochi" ok | "A or B" hedge          -> acc 3/4, unparsed 1/4
#   drinks  "The answer is A, because B ..." ok | "B/C" hedge               -> acc 1/2, unparsed 1/2
#   breads  "答案是C" ok | "D" wrong (gold A) | "不是A就是B" hedge           -> acc 1/3, unparsed 1/3
TASKS = {
    "regional_example_group_sweets": (4, 3, 1),
    "regional_example_group_drinks": (2, 1, 1),
    "regional_example_group_breads": (3, 1, 1),
}


def _run(tmp_path: Path, tasks: str, folder: Path = GROUP):
    return run_lmms_eval(
        ["--model", "food_tasks_replay", "--model_args", f"responses={GROUP / 'answers.jsonl'},keys=id"]
        + ["--include_path", str(folder), "--tasks", tasks],
        tmp_path / "out",
    )


@pytest.mark.e2e
def test_the_example_group_runs_with_one_name_and_aggregates_by_hand(tmp_path):
    proc, results, samples = _run(tmp_path, "regional_example_group")
    assert proc.returncode == 0 and results is not None, proc.stderr[-3000:]
    rows = results["results"]
    for task, (n, correct, unparsed) in TASKS.items():
        assert rows[task]["acc,none"] == pytest.approx(100 * correct / n), task
        assert rows[task]["parse_fail_rate,none"] == pytest.approx(100 * unparsed / n), task
        assert isinstance(rows[task]["acc_by_region,none"], dict), task  # breakdowns back in their rows
        assert len(samples[task]) == n
    group = rows["regional_example_group"]
    # weight_by_size: true -> pooled over the 9 documents: (3 + 1 + 1) / 9 correct, (1 + 1 + 1) / 9 unparsed.
    assert group["acc,none"] == pytest.approx(100 * 5 / 9)
    assert group["parse_fail_rate,none"] == pytest.approx(100 * 3 / 9)
    # not the unweighted mean of the tasks' figures, (75 + 50 + 33.3) / 3 = 52.8
    assert group["acc,none"] != pytest.approx((75 + 50 + 100 / 3) / 3)
    assert group["acc_n,none"] == 9 and group["parse_fail_rate_n,none"] == 9
    assert isinstance(group["acc_stderr,none"], float) and 0 < group["acc_stderr,none"] < 50
    assert not any(key.startswith(("acc_by_", "n_by_")) for key in group)  # breakdowns are per task
    assert "Food names (example group)" in proc.stdout
    # the group's aggregate_metric_list, which compare and the report need and no results section of lmms-eval holds
    entries = [{"metric": m, "aggregation": "mean", "weight_by_size": True} for m in ("acc", "parse_fail_rate")]
    assert results["food_tasks_groups"] == {"regional_example_group": entries}


@pytest.mark.e2e
def test_compare_shows_the_group_row(tmp_path, capsys):
    """A newcomer's compare of two group runs showed the three tasks but no group row: the group's
    aggregate_metric_list lives in its YAML under --include_path, which compare cannot see; the run now writes it."""
    from food_tasks.cli import main as cli_main

    proc, results, _ = _run(tmp_path, "regional_example_group")
    assert results is not None, proc.stderr[-3000:]
    assert cli_main(["compare", str(tmp_path / "out"), str(tmp_path / "out")]) == 0
    out = capsys.readouterr().out
    group = out.split("\nregional_example_group\n", 1)[1].splitlines()
    # the pooled 5 of 9 on both sides, paired over the 9 documents of the three tasks
    assert group[0].split()[:4] == ["acc", "55.56", "55.56", "+0.00"] and "9 (9)" in group[0]


@pytest.mark.e2e
def test_a_tag_runs_the_regional_tasks_that_name_it(tmp_path):
    proc, results, _ = _run(tmp_path, "regional_example_baked")
    assert proc.returncode == 0 and results is not None, proc.stderr[-3000:]
    ran = set(results["results"])
    assert ran == {"regional_example_group_sweets", "regional_example_group_breads"}
    assert results["results"]["regional_example_group_breads"]["acc,none"] == pytest.approx(100 / 3)


@pytest.mark.e2e
@pytest.mark.parametrize(
    ("asked", "said"),
    [
        ("regional_example_grup", "regional_example_grup: not a task, group or tag (did you mean regional_example_gr"),
        ("regional_example_group_sweets,no_such_task", "no_such_task: not a task, group or tag"),
        ("nothing_here_*", "nothing_here_*: matches no task, group or tag"),
    ],
)
def test_a_name_that_resolves_to_nothing_stops_the_run(tmp_path, asked, said):
    proc, results, _ = _run(tmp_path, asked)
    assert proc.returncode == 1 and results is None, proc.stderr[-3000:]
    assert "a name given to --tasks resolves to no task" in proc.stderr and said in proc.stderr


@pytest.mark.e2e
def test_a_group_naming_an_unknown_task_stops_the_run(tmp_path):
    folder = tmp_path / "group"
    shutil.copytree(GROUP, folder)
    group = folder / "regional_example_group.yaml"
    group.write_text(
        group.read_text(encoding="utf-8").replace("regional_example_group_drinks", "regional_example_group_drink"),
        encoding="utf-8",
    )
    proc, results, _ = _run(tmp_path, "regional_example_group", folder)
    assert proc.returncode == 1 and results is None, proc.stderr[-3000:]
    assert (
        "  regional_example_group: group regional_example_group names regional_example_group_drink, not a task, "
        "group or tag (did\n      you mean regional_example_group_drinks?)\n"
    ) in proc.stderr


def _index() -> dict:
    return {
        "t1": {"type": "python_task", "yaml_path": "/x/t1.yaml"},
        "t2": {"type": "task", "yaml_path": "/x/t2.yaml"},
        "tg": {"type": "tag", "task": ["t1", "t2"], "yaml_path": -1},
        "empty_tag": {"type": "tag", "task": [], "yaml_path": -1},
        "bad_tag": {"type": "tag", "task": ["t1", "t3"], "yaml_path": -1},
    }


def test_unresolved_names_one_line_each():
    index = _index()
    assert names.unresolved(index, ["t1", "tg", "t*", {"task": "inline"}]) == []
    assert names.unresolved(index, ["t4", "empty_tag", "bad_tag", "z*"]) == [
        "t4: not a task, group or tag",
        "empty_tag: this tag names no task",
        "bad_tag: tag bad_tag names t3, not a task, group or tag",
        "z*: matches no task, group or tag",
    ]
    with pytest.raises(RunStopped) as stop:
        names.stop_if_unresolved(index, ["t4", "a_task_name_long_enough_to_wrap_the_line_of_its_problem_" * 2])
    assert isinstance(stop.value, SystemExit) and not isinstance(stop.value, Exception)
    assert all(len(line) <= 120 for line in str(stop.value).splitlines())


def test_a_group_yaml_is_read_for_its_members(tmp_path):
    path = tmp_path / "g.yaml"
    path.write_text("group: g\ntask: [t1, missing]\n", encoding="utf-8")
    empty = tmp_path / "e.yaml"
    empty.write_text("group: e\ntask: []\n", encoding="utf-8")
    index = {
        **_index(),
        "g": {"type": "group", "task": -1, "yaml_path": str(path)},
        "e": {"type": "group", "task": -1, "yaml_path": str(empty)},
    }
    assert names.unresolved(index, ["g", "e"]) == [
        "g: group g names missing, not a task, group or tag",
        "e: this group names no task",
    ]


def test_tags_of_regional_tasks_are_indexed(tmp_path):
    folder = tmp_path / "tasks"
    shutil.copytree(GROUP, folder)
    (folder / "other.yaml").write_text("task: regional_example_baked_x\n", encoding="utf-8")
    index = {
        name: {"type": "python_task", "yaml_path": str(folder / f"{name}.yaml")}
        for name in ("regional_example_group_sweets", "regional_example_group_drinks", "regional_example_group_breads")
    }
    added = names.add_tags(index, [str(folder)])
    assert added == {"regional_example_baked": ["regional_example_group_breads", "regional_example_group_sweets"]}
    assert index["regional_example_baked"] == {"type": "tag", "task": added["regional_example_baked"], "yaml_path": -1}
    assert names.tag_names({"tag": ["a", "b"], "group": "c"}) == ["a", "b", "c"]


def test_breakdowns_are_set_aside_while_groups_consolidate():
    results = {"t": {"acc,none": 50.0, "acc_by_region,none": {"Asia": 1.0}, "alias": "t", "samples": 2}}
    aside = names.set_aside_breakdowns(results)
    assert results == {"t": {"acc,none": 50.0, "alias": "t", "samples": 2}}
    errorbars.restore(results, aside)
    assert results["t"]["acc_by_region,none"] == {"Asia": 1.0}


@pytest.mark.e2e
def test_a_tasks_folder_without_yaml_stops_the_run(tmp_path):
    """``--tasks <folder>``: lmms-eval loads the YAMLs directly in it; with none ("Selected Tasks: []") it exited 0."""
    folder = tmp_path / "tasks"
    shutil.copytree(GROUP, folder / "group")
    proc, results, _ = _run(tmp_path, str(folder), folder)
    assert proc.returncode == 1 and results is None, proc.stderr[-3000:]
    assert proc.stderr.rstrip().splitlines()[-3:] == [
        "food-tasks: the run stops before generation: --tasks names a folder with no .yaml file directly in it "
        "(lmms-eval reads no subfolder):",
        f"  {folder}",
        "Name the tasks, groups or tags instead, and pass the folder as --include_path.",
    ]
    with pytest.raises(RunStopped):
        names.stop_if_empty_folder(["lmms-eval", f"--tasks={folder}"])
    names.stop_if_empty_folder(["lmms-eval", "--tasks", str(folder / "group")])  # YAMLs in it: lmms-eval's to load


@pytest.mark.e2e
def test_the_report_of_a_group_run_shows_the_group_row_and_plain_headings(tmp_path):
    """``food-tasks report`` of a group's run: the group's pooled figures (acc 5/9 = 55.56) in a section of their own
    before its tasks (they showed the three tasks only), and the tasks' headings without lmms-eval's subtask prefix
    (``## - regional_example_group_breads``)."""
    from food_tasks.cli import main as cli_main

    proc, results, _ = _run(tmp_path, "regional_example_group")
    assert proc.returncode == 0 and results is not None, proc.stderr[-3000:]
    assert cli_main(["report", str(tmp_path / "out"), "-o", str(tmp_path / "report"), "--no-charts"]) == 0
    md = (tmp_path / "report" / "report.md").read_text(encoding="utf-8")
    headings = [line for line in md.splitlines() if line.startswith("## ")]
    assert not any(line.startswith("## -") or "(`- " in line for line in headings), headings
    group = "## Food names (example group) (`regional_example_group`)"
    assert group in headings
    order = [headings.index(group)] + [headings.index(f"## Task `{t}`") for t in sorted(TASKS)]
    assert order == sorted(order)  # the group first, then its tasks
    section = md.split(group + "\n", 1)[1].split("\n## ", 1)[0]
    assert "regional_example_group_breads`, `regional_example_group_drinks`, `regional_example_group_sweets" in section
    row = next(line for line in section.splitlines() if line.startswith("| `acc` |"))
    assert row.startswith("| `acc` | 55.56 ")  # pooled over the 9 documents: 5 / 9, not (75 + 50 + 33.3) / 3
    parse = next(line for line in section.splitlines() if line.startswith("| `parse_fail_rate` |"))
    assert parse.startswith("| `parse_fail_rate` | 33.33 ")
