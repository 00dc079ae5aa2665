"""``food-tasks validate`` in one pass, when ``metadata.regional`` has a problem (issue 43, item 6; a newcomer's
findings): a tolerance with a problem (a negative bound, a misspelled ``relativ:``), a misspelled ``fromat:`` or a
``tolerance:`` on an MCQ task hid every problem of the data until it was fixed; a misspelled key read as
"format: None is not one of ..."; a hyphenated task name that validate refuses ran through lmms-eval with exit 0;
``food-tasks validate ... | head -1`` ended in a BrokenPipeError traceback. The tasks below are ours (a spice quiz
and a portion-size task), not the examples'.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from food_tasks.data.hub import RunStopped
from food_tasks.regional_tasks import check as regional_check
from food_tasks.regional_tasks.config import key_problems
from food_tasks.regional_tasks.scoring import settings_problems

NUMERIC_CSV = """key,question,grams,area
p1,Grams of flour in a cup?,120,Europe
p2,Grams of butter in a stick?,113,
p3,Grams of rice per bowl?,roughly 150,Asia
p4,Grams of sugar per cookie?,12,
p1,Grams of salt in a pinch?,0.4,Europe
"""

NUMERIC_YAML = """task: portion_grams
class: !function food_tasks.regional.RegionalTask
dataset_path: csv
dataset_kwargs:
  data_files:
    test: portions.csv
test_split: test
metadata:
  version: 1.0
  regional:
    format: numeric
    id: key
    question: question
    answer: grams
    tolerance: {TOLERANCE}
    slices: [area]
"""

# The five problems of NUMERIC_CSV: two empty slice values, an answer that is no number, a duplicate id.
NUMERIC_DATA = [
    "portions.csv: row 2 (id p2), column 'area': empty slice value",
    "portions.csv: row 3 (id p3), column 'grams': answer 'roughly 150' is not a number",
    "portions.csv: row 4 (id p4), column 'area': empty slice value",
    "portions.csv: row 5 (id p1), column 'key': duplicate id (first at row 1)",
]

SPICE_ROWS = [
    {"qid": "s1", "pic": "img/a.png", "q": "Which spice is red?", "choices": ["Paprika", "Cumin", "Mace"], "gold": "A"},
    {
        "qid": "s2",
        "pic": "img/a.png",
        "q": "Which is a seed?",
        "choices": ["Cumin", "Saffron", "Clove"],
        "gold": "Cumn",
    },
    {"qid": "s3", "pic": "img/gone.png", "q": "Which is a bark?", "choices": ["Nutmeg", "Cinnamon"], "gold": "B"},
]

SPICE_YAML = """task: spice_quiz
class: !function food_tasks.regional.RegionalTask
dataset_path: json
dataset_kwargs:
  data_files:
    test: spices.jsonl
test_split: test
metadata:
  version: 1.0
  regional:
    {FORMAT}
    id: qid
    image: pic
    question: q
    options: choices
    answer: gold
"""

SPICE_IMAGE = "spices.jsonl: row 3 (id s3), column 'pic': image img/gone.png: no file img/gone.png"
SPICE_ANSWER = "spices.jsonl: row 2 (id s2), column 'gold': answer 'Cumn' is neither a label (A/B/C) nor the text"


def _numeric(folder: Path, tolerance: str) -> Path:
    folder.mkdir(exist_ok=True)
    (folder / "portions.csv").write_text(NUMERIC_CSV, encoding="utf-8")
    path = folder / "portion_grams.yaml"
    path.write_text(NUMERIC_YAML.replace("{TOLERANCE}", tolerance), encoding="utf-8")
    return path


def _spices(folder: Path, fmt: str, name: str = "spice_quiz") -> Path:
    (folder / "img").mkdir(parents=True, exist_ok=True)
    from PIL import Image

    Image.new("RGB", (4, 4), "red").save(folder / "img" / "a.png")
    (folder / "spices.jsonl").write_text("".join(json.dumps(r) + "\n" for r in SPICE_ROWS), encoding="utf-8")
    path = folder / f"{name}.yaml"
    text = SPICE_YAML.replace("{FORMAT}", fmt).replace("task: spice_quiz", f"task: {name}")
    path.write_text(text, encoding="utf-8")
    return path


def _relative(problems: list[str], folder: Path) -> list[str]:
    return [p.replace(f"{folder}/", "") for p in problems]


@pytest.mark.parametrize(
    "tolerance, yaml_problem",
    [
        ("{absolute: -3}", "metadata.regional.tolerance.absolute: -3 is not a number of at least 0"),
        ("{absolute: 5, relativ: 0.1}", "metadata.regional.tolerance.relativ: unknown key (did you mean relative?)"),
        ("0.5", "metadata.regional.tolerance: give a mapping, e.g. {absolute: 0.5, relative: 0.05}"),
    ],
)
def test_a_tolerance_with_a_problem_hides_no_row(tmp_path, tolerance, yaml_problem):
    # Before: "1 problem(s)", the tolerance's; the four data problems appeared once it was fixed.
    result = regional_check.check(_numeric(tmp_path, tolerance))
    assert _relative(result.problems, tmp_path) == [f"portion_grams.yaml: {yaml_problem}", *NUMERIC_DATA]
    assert not result.warnings  # the answers were checked (a number each), with the format the YAML gives


def test_a_misspelled_format_key_is_named_and_hides_no_image(tmp_path):
    # Before: "fromat: unknown key (known: ...)" and "format: None is not one of ...", and not a word of the data.
    result = regional_check.check(_spices(tmp_path, "fromat: mcq"))
    problems = _relative(result.problems, tmp_path)
    assert problems[:2] == [
        "spice_quiz.yaml: metadata.regional.fromat: unknown key (did you mean format?)",
        "spice_quiz.yaml: metadata.regional.format: missing; add `format:` with one of mcq, multi, open, numeric",
    ]
    assert len(problems) == 3 and problems[2].startswith(SPICE_IMAGE)
    # the answers need the format: not checked, said once (no 'Cumn' line, right or wrong)
    assert _relative(result.warnings, tmp_path) == [
        "spices.jsonl: answers not checked: metadata.regional.format is not valid (fix it, then validate again)"
    ]


def test_a_wrong_format_value_gets_a_suggestion(tmp_path):
    result = regional_check.check(_spices(tmp_path, "format: mcqq"))
    assert _relative(result.problems, tmp_path)[0] == (
        "spice_quiz.yaml: metadata.regional.format: 'mcqq' is not one of mcq, multi, open, numeric (did you mean mcq?)"
    )
    assert len(result.problems) == 2 and len(result.warnings) == 1


def test_a_tolerance_on_an_mcq_task_hides_no_answer_and_no_image(tmp_path):
    # Before: only "tolerance: only numeric tasks ... have one", the bad answer and the missing image hidden.
    result = regional_check.check(_spices(tmp_path, "format: mcq\n    tolerance: {absolute: 1}"))
    problems = _relative(result.problems, tmp_path)
    assert problems[0] == (
        "spice_quiz.yaml: metadata.regional.tolerance: only numeric tasks (format: numeric) have one; remove it"
    )
    assert len(problems) == 3 and problems[1].startswith(SPICE_ANSWER) and problems[2].startswith(SPICE_IMAGE)
    assert not result.warnings


def test_a_question_key_with_a_problem_still_checks_ids_answers_and_images(tmp_path):
    result = regional_check.check(_spices(tmp_path, "format: mcq\n    system: [be brief]"))
    problems = _relative(result.problems, tmp_path)
    assert problems[0] == "spice_quiz.yaml: metadata.regional.system: must be a string"
    assert len(problems) == 3 and problems[1].startswith(SPICE_ANSWER) and problems[2].startswith(SPICE_IMAGE)
    path = _spices(tmp_path, "format: mcq").read_text(encoding="utf-8").replace("question: q\n", "question: [q]\n")
    (tmp_path / "spice_quiz.yaml").write_text(path, encoding="utf-8")
    problems = _relative(regional_check.validate(tmp_path / "spice_quiz.yaml"), tmp_path)
    assert problems[0] == "spice_quiz.yaml: metadata.regional.question: name the data column holding the question"
    assert len(problems) == 3 and problems[1].startswith(SPICE_ANSWER) and problems[2].startswith(SPICE_IMAGE)


def test_misspelled_keys_of_the_judge_block_and_the_task_are_named():
    block = {"format": "open", "question": "q", "answer": "a", "judge": {"max_tokns": 8}, "imagee": "pic"}
    assert settings_problems({"regional": block}) == [
        "metadata.regional.imagee: unknown key (did you mean image?)",
        "metadata.regional.judge.max_tokns: unknown key (did you mean max_tokens?)",
    ]
    # no close key: the known ones are listed, as before
    assert settings_problems({"regional": {**block, "judge": True, "imagee": None, "zzz": 1}})[-1].startswith(
        "metadata.regional.zzz: unknown key (known: answer, cluster, format, "
    )
    errors, _ = key_problems({"task": "t", "generation_kwarg": {"max_new_tokens": 8}, "datset_name": "x"})
    assert errors == [
        "generation_kwarg: not an lmms-eval task key (lmms-eval would stop on it); did you mean generation_kwargs?",
        "datset_name: not an lmms-eval task key (lmms-eval would stop on it); did you mean dataset_name?",
    ]


def test_a_hyphenated_task_name_stops_the_run_with_validates_line(tmp_path):
    # Before: validate refused `spice-quiz`, and lmms-eval ran it (exit 0, results under "spice-quiz").
    yaml_path = _spices(tmp_path, "format: mcq", name="spice-quiz")
    (tmp_path / "spices.jsonl").write_text(  # data without problems: the name is the one problem
        "".join(json.dumps({**r, "gold": "A", "pic": "img/a.png"}) + "\n" for r in SPICE_ROWS), encoding="utf-8"
    )
    problems = regional_check.validate(yaml_path)
    assert len(problems) == 1 and "'spice-quiz' is not lower_snake_case" in problems[0]

    import lmms_eval.models  # noqa: F401  (our entry point: the harness wraps, as in a CLI run)
    from lmms_eval.tasks import TaskManager

    manager = TaskManager(include_path=str(tmp_path), include_defaults=False)
    with pytest.raises(RunStopped) as err:
        manager.load_task_or_group(["spice-quiz"], task_type="simple")
    lines = str(err.value).replace("\n    ", " ").splitlines()
    assert lines[0] == "food-tasks: regional task spice-quiz: configuration error, the run stops before generation:"
    assert problems[0].removeprefix(f"{yaml_path}: ") in lines


def test_validate_into_a_closed_pipe_exits_quietly(tmp_path):
    # `food-tasks validate ... | head -1`: the reader is gone before the first line (a pipe whose read end is closed).
    # Before: a BrokenPipeError traceback on stderr, and Python's "Exception ignored ... BrokenPipeError" at exit.
    yaml_path = _numeric(tmp_path, "{absolute: -3}")
    read, write = os.pipe()
    os.close(read)
    try:
        proc = subprocess.run(
            [sys.executable, "-m", "food_tasks.cli", "validate", str(yaml_path), str(yaml_path)],
            stdout=write,
            stderr=subprocess.PIPE,
            text=True,
            timeout=120,
        )
    finally:
        os.close(write)
    assert "Traceback" not in proc.stderr and "BrokenPipeError" not in proc.stderr, proc.stderr
    assert proc.returncode == 141
