"""``food-tasks validate`` in one pass (issue 43, item 6): every problem of the YAML and of the data in one run, the
YAML's first, then the data's; the task-name rule enforced (lower_snake_case: a hyphenated name passed); a group YAML
checked as a group (it was read as a task: "aggregate_metric_list: not an lmms-eval task key") and its tasks after it;
a tag checked by the same name rule. The mistakes below are ours, made on a copy of examples/regional/group/.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from food_tasks.cli import main as cli_main
from food_tasks.regional_tasks import check as regional_check
from food_tasks.regional_tasks import groups

GROUP = Path(__file__).resolve().parents[2] / "examples" / "regional" / "group"
SNAKE = "is not lower_snake_case (lower-case letters, digits and _, starting with a letter); rename it"


def _copy(tmp_path: Path) -> Path:
    folder = tmp_path / "g"
    shutil.copytree(GROUP, folder)
    return folder


def _edit(path: Path, *pairs: tuple[str, str]) -> None:
    text = path.read_text(encoding="utf-8")
    for old, new in pairs:
        assert old in text, old
        text = text.replace(old, new)
    path.write_text(text, encoding="utf-8")


def _rows(path: Path, edit) -> None:
    rows = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]
    edit(rows)
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")


def _unwrapped(out: str) -> list[str]:
    """validate's entries, each on one line (continuation lines are indented by four more)."""
    return out.replace("\n    ", " ").splitlines()


def test_six_mistakes_of_yaml_and_data_in_one_run(tmp_path, capsys):
    """Three in the YAML, three in the data: before, the first run named only num_fewshot (the hyphenated name and tag
    passed), the second the misspelled column, the third the rows."""
    folder = _copy(tmp_path)
    yaml_path = folder / "regional_example_group_sweets.yaml"
    _edit(
        yaml_path,
        ("task: regional_example_group_sweets", "task: sweets-quiz\nnum_fewshot: 3"),
        ("tag: regional_example_baked ", "tag: Baked Goods "),
        ("answer: answer", "answer: answr"),
    )

    def break_rows(rows):
        rows[1]["id"] = "sweet-1"
        rows[2]["question"] = " "

    _rows(folder / "sweets.jsonl", break_rows)
    data = folder / "sweets.jsonl"
    problems = regional_check.validate(yaml_path)
    assert problems == [
        f"{yaml_path}: num_fewshot: regional tasks are zero-shot (no few-shot examples); remove it",
        f"{yaml_path}: task: 'sweets-quiz' {SNAKE} (e.g. sweets_quiz)",
        f"{yaml_path}: tag: 'Baked Goods' {SNAKE} (e.g. baked_goods)",
        f"{data}: column 'answr' named by metadata.regional.answer is not in the data (columns: answer, id, options, "
        "question, region)",
        f"{data}: row 2 (id sweet-1), column 'id': duplicate id (first at row 1)",
        f"{data}: row 3 (id sweet-3), column 'question': empty question",
    ]
    assert cli_main(["validate", str(yaml_path)]) == 1
    out = capsys.readouterr().out
    assert all(len(line) <= 120 for line in out.splitlines())
    assert _unwrapped(out)[0] == f"{yaml_path}: 6 problem(s)"


def test_settings_that_do_not_read_do_not_hide_the_data(tmp_path):
    folder = _copy(tmp_path)
    yaml_path = folder / "regional_example_group_drinks.yaml"
    _edit(yaml_path, ("format: mcq", "format: quiz"), ("slices: [region]", "slices: [continent]"))
    problems = regional_check.validate(yaml_path)
    assert problems[0].startswith(f"{yaml_path}: metadata.regional.format: ")
    assert problems[-1] == (
        f"{folder / 'drinks.jsonl'}: column 'continent' named by metadata.regional.slices is not in the data "
        "(columns: answer, id, options, question, region)"
    )


def test_a_hyphenated_or_capitalised_name_is_refused():
    assert groups.name_problem("task", "dishes_mcq_2") is None
    assert groups.name_problem("task", "dishes-mcq") == f"task: 'dishes-mcq' {SNAKE} (e.g. dishes_mcq)"
    assert groups.name_problem("task", "DishesMCQ") == f"task: 'DishesMCQ' {SNAKE} (e.g. dishesmcq)"
    assert groups.name_problem("task", "2dishes") == f"task: '2dishes' {SNAKE}"
    assert groups.name_problem("group", None) == "group: give it a name (lower_snake_case)"


def test_a_tag_is_checked_as_a_tag(tmp_path):
    folder = _copy(tmp_path)
    yaml_path = folder / "regional_example_group_drinks.yaml"
    _edit(
        yaml_path,
        (
            "task: regional_example_group_drinks",
            "task: regional_example_group_drinks\ntag: [regional_example_group_drinks",
        ),
    )
    _edit(
        yaml_path,
        ("tag: [regional_example_group_drinks", "tag: [regional_example_group_drinks, regional_example_group_breads]"),
    )
    assert regional_check.validate(yaml_path) == [
        f"{yaml_path}: tag: 'regional_example_group_drinks' is the task's own name; give the tag another",
        f"{yaml_path}: tag: 'regional_example_group_breads' is the name of the task in "
        f"{folder / 'regional_example_group_breads.yaml'}; rename the tag",
    ]


def test_a_group_yaml_is_checked_as_a_group_then_its_tasks(tmp_path, capsys):
    folder = _copy(tmp_path)
    group = folder / "regional_example_group.yaml"
    _edit(
        group,
        ("group: regional_example_group", "group: regional-example-group\ndataset_path: json"),
        ("  - regional_example_group_drinks", "  - regional_example_group_drink"),
        ("  - metric: parse_fail_rate", "  - metric: accuracy"),
        ("weight_by_size: true        #", "weight_by_size: yes-please  #"),
    )
    result = regional_check.check(group)
    assert result.problems == [
        f"{group}: dataset_path: a task key: a group only lists tasks (group, group_alias, task, "
        "aggregate_metric_list, metadata); remove it",
        f"{group}: group: 'regional-example-group' {SNAKE} (e.g. regional_example_group)",
        f"{group}: task: 'regional_example_group_drink' is no regional task, tag or group under {folder} (did you mean "
        "regional_example_group_drinks?); a run stops on it",
        f"{group}: aggregate_metric_list[0].weight_by_size: true or false, not 'yes-please'",
        f"{group}: aggregate_metric_list[1].metric: 'accuracy' matches no metric of the group's tasks (acc, "
        "parse_fail_rate, truncated_rate)",
    ]
    assert not any("not an lmms-eval task key" in p for p in result.problems)
    assert [Path(m).name for m in result.members] == [
        "regional_example_group_sweets.yaml",
        "regional_example_group_breads.yaml",
    ]
    # The CLI checks the group, then each of its tasks once: a broken member fails the run.
    _rows(folder / "breads.jsonl", lambda rows: rows[0].update(answer="E"))
    assert cli_main(["validate", str(group), str(folder / "regional_example_group_breads.yaml")]) == 1
    heads = [line for line in _unwrapped(capsys.readouterr().out) if not line.startswith(" ")]
    assert [head.split(": ")[:2] for head in heads] == [
        [str(group), "5 problem(s)"],
        [str(folder / "regional_example_group_sweets.yaml"), "OK"],
        [str(folder / "regional_example_group_breads.yaml"), "1 problem(s)"],
    ]


def test_the_example_group_validates(capsys):
    assert cli_main(["validate", str(GROUP / "regional_example_group.yaml")]) == 0
    out = capsys.readouterr().out
    assert "OK: group regional_example_group: 3 member(s)" in out and out.count(": OK: task ") == 3
    assert "aggregates acc (weighted by size), parse_fail_rate (weighted by size)" in " ".join(out.split())
