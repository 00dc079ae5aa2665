"""A regional task's data problems stop an lmms-eval run before generation, with validate's own lines (issue 33.1).

`food-tasks validate` and the run share one list of checks (``food_tasks.regional_tasks.files.data_problems``): a column
named in ``metadata.regional`` that the data lacks (each key that names one), and every row problem validate reports
but an image that does not decode (counted in ``image_missing`` as the model asks for it). Before, a misspelled
``question``, ``image``, ``slices``, ``id``, ``cluster`` or prompt column ran and scored (exit status 0).
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from conftest import joined_entries, run_lmms_eval

from food_tasks.data.hub import RunStopped
from food_tasks.regional_tasks import check as regional_check
from food_tasks.regional_tasks import files as regional_files
from food_tasks.regional_tasks import scoring as regional_scoring

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "regional"
COLUMNS = "answer, id, image, language, opt_a, opt_b, opt_c, opt_d, options, question, region"


def _task(tmp_path: Path, name: str, edit=lambda text: text, rows=lambda rows: rows) -> Path:
    """The example MCQ task under ``tmp_path/tasks`` as task ``name`` (its YAML through ``edit``); its data gets
    option columns opt_a..opt_d beside the list column, then goes through ``rows``. Returns the YAML."""
    folder = tmp_path / "tasks"
    if not folder.exists():
        shutil.copytree(EXAMPLE, folder, ignore=shutil.ignore_patterns("*.yaml", "*.py", "*.csv", "*.jsonl"))
    data = [json.loads(line) for line in (EXAMPLE / "dishes.jsonl").read_text(encoding="utf-8").splitlines()]
    data = [{**r, **dict(zip(("opt_a", "opt_b", "opt_c", "opt_d"), r["options"]))} for r in data]
    (folder / f"{name}.jsonl").write_text(
        "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows(data)), encoding="utf-8"
    )
    text = (EXAMPLE / "regional_example_mcq.yaml").read_text(encoding="utf-8")
    text = text.replace("task: regional_example_mcq", f"task: {name}").replace("dishes.jsonl", f"{name}.jsonl")
    (folder / f"{name}.yaml").write_text(edit(text), encoding="utf-8")
    return folder / f"{name}.yaml"


def _absent(data: str, column: str, key: str) -> str:
    """The line naming a column the data lacks and the key of metadata.regional that names it."""
    return f"{data}: column '{column}' named by metadata.regional.{key} is not in the data (columns: {COLUMNS})"


# Each key of metadata.regional that names a data column, misspelled (format, labels, option_format and system name
# none: settings_problems checks them, test_regional_task_errors_stop_the_run).
MISSPELLED = {
    "id": (lambda t: t.replace("id: id", "id: idd"), ["idd"]),
    "image": (lambda t: t.replace("image: image ", "image: photo "), ["photo"]),
    "question": (lambda t: t.replace("question: question", "question: qestion"), ["qestion"]),
    "options": (lambda t: t.replace("options: options ", "options: option "), ["option"]),
    "options (columns)": (
        lambda t: t.replace("options: options ", "options: [opt_a, opt_b, opt_c, opt_dd] "),
        ["opt_dd"],
    ),
    "answer": (lambda t: t.replace("answer: answer ", "answer: answr "), ["answr"]),
    "slices": (lambda t: t.replace("slices: [region, language]", "slices: [regoin, langauge]"), ["regoin", "langauge"]),
    "cluster": (lambda t: t + "    cluster: dish\n", ["dish"]),
}


@pytest.mark.e2e
@pytest.mark.parametrize("key", [*MISSPELLED, "prompt"])
def test_a_misspelled_column_stops_the_cli_run_with_validates_message(tmp_path, monkeypatch, key):
    if key == "prompt":
        edit = lambda t: t + '    prompt: "[{regoin}] {question}\\n{options}"\n'  # noqa: E731
    else:
        edit, _ = MISSPELLED[key]
    name = "typo_" + key.split()[0] + ("_columns" if "(" in key else "")
    yaml_path = _task(tmp_path, name, edit)
    monkeypatch.chdir(tmp_path)  # the run's working directory: paths are shown relative to it
    shown = f"tasks/{name}.yaml"
    problems = regional_check.validate(shown)
    assert len(problems) >= 1
    if key == "prompt":
        assert problems == [
            f"{shown}: metadata.regional.prompt: {{regoin}} is neither a data column nor question/options "
            "(row 1; write literal braces as {{ }})"
        ]
    else:
        assert problems == [_absent(f"tasks/{name}.jsonl", c, key.split()[0]) for c in MISSPELLED[key][1]]
    preds = tmp_path / "preds.jsonl"
    preds.write_text('{"doc_id": 0, "response": "A"}\n', encoding="utf-8")
    proc, results, samples = run_lmms_eval(
        [
            "--model",
            "food_tasks_replay",
            "--model_args",
            f"responses={preds},default=1",
            "--include_path",
            str(yaml_path.parent),
            "--tasks",
            name,
        ],
        tmp_path / "out",
    )
    assert proc.returncode == 1 and results is None and not samples, proc.stderr[-3000:]
    assert not list((tmp_path / "out").rglob("*.json*"))  # no results file, no samples file
    tail = proc.stderr.strip().splitlines()
    start = max(i for i, line in enumerate(tail) if line.startswith(f"food-tasks: regional task {name}: "))
    assert joined_entries(tail[start:]) == [
        f"food-tasks: regional task {name}: configuration error, the run stops before generation:",
        f"  YAML: {shown}",
        *(p.removeprefix(f"{shown}: ") for p in problems),  # validate's lines (a prompt's names the YAML there)
        "Check the task with:",
        f"  food-tasks validate {shown}",
    ]


def _load(yaml_path: Path) -> str:
    """The RunStopped message of loading the task as lmms-eval does (no model: the task is built first)."""
    import lmms_eval.models  # noqa: F401  (our entry point: the harness wraps, as in a CLI run)
    from lmms_eval.tasks import TaskManager

    manager = TaskManager(include_path=str(yaml_path.parent), include_defaults=False)
    with pytest.raises(RunStopped) as err:
        manager.load_task_or_group([yaml_path.stem], task_type="simple")
    return str(err.value)


# The keys of metadata.regional that name no column: their problems are the YAML's (settings_problems).
SETTINGS = {
    "format": ("format: mcq", "format: mqc", "metadata.regional.format: 'mqc' is not one of mcq, multi, open, numeric"),
    "labels": ("    slices:", "    labels: [A, B, A, D]\n    slices:", "metadata.regional.labels: give a list of"),
    "option_format": (
        "    slices:",
        '    option_format: "{lable}. {option}"\n    slices:',
        "metadata.regional.option_format: {lable} is neither {label} nor {option}",
    ),
    "system": (
        "    slices:",
        "    system: [You are a chef.]\n    slices:",
        "metadata.regional.system: must be a string",
    ),
    "prompt": (
        "    slices:",
        '    prompt: "{qestion}"\n    slices:',
        "metadata.regional.prompt: must contain {question}",
    ),
    "a key": ("slices:", "slice:", "metadata.regional.slice: unknown key"),
}


@pytest.mark.parametrize("key", SETTINGS)
def test_a_wrong_setting_stops_the_run_with_validates_message(tmp_path, key):
    # Before: a misspelled option_format field (or a literal brace) crashed validate with a KeyError, and the run
    # stopped with "data error ... KeyError: 'lable'".
    old, new, expected = SETTINGS[key]
    yaml_path = _task(tmp_path, "bad_setting", lambda t: t.replace(old, new, 1))
    problems = regional_check.validate(yaml_path)
    assert len(problems) == 1 and problems[0].startswith(f"{yaml_path}: {expected}"), problems
    lines = _load(yaml_path).splitlines()
    assert lines[0] == "food-tasks: regional task bad_setting: configuration error, the run stops before generation:"
    assert joined_entries(lines[2:-2]) == [problems[0].removeprefix(f"{yaml_path}: ")]


def test_an_option_format_that_does_not_parse_is_named():
    assert regional_scoring.settings_problems(
        {"regional": {"format": "mcq", "question": "q", "answer": "a", "options": "o", "option_format": "{label}) {"}}
    ) == ["metadata.regional.option_format: Single '{' encountered in format string (write literal braces as {{ }})"]


def test_every_row_problem_validate_reports_stops_the_run_with_its_lines(tmp_path):
    # Before: only an answer that could not be scored stopped the run; the rest ran and scored.
    def broken(rows: list[dict]) -> list[dict]:
        rows[0]["id"] = " "  # row 1: empty id
        rows[2]["id"] = rows[1]["id"]  # row 3: duplicate id
        rows[1]["question"] = ""  # row 2: empty question
        rows[3]["options"] = ["Mapo tofu", "Mapo tofu ", "Kimchi"]  # row 4: duplicate option texts
        rows[4]["options"] = list("ABCDEFGHIJK")  # row 5: 11 options, 10 labels
        rows[5]["region"] = None  # row 6: empty slice value
        extra = [dict(rows[0], id=f"x-{i}") for i in range(3)]
        extra[0]["image"] = None  # row 7: no image
        extra[1]["image"] = "images/gone.png"  # row 8: no such file
        extra[2]["image"] = "images/gone.png"  # row 9: the same file, named again
        return [*rows, *extra]

    yaml_path = _task(tmp_path, "broken_rows", rows=broken)
    data = yaml_path.with_suffix(".jsonl")
    gone = f"image images/gone.png: no file {data.parent / 'images' / 'gone.png'} (paths are relative to the data file)"
    expected = [
        f"{data}: row 1 (id  ), column 'id': empty id",
        f"{data}: row 2 (id sea-002), column 'question': empty question",
        f"{data}: row 3 (id sea-002), column 'id': duplicate id (first at row 2)",
        f"{data}: row 4 (id eas-002), column 'options': duplicate option texts",
        f"{data}: row 5 (id waf-001), column 'options': 11 options but only 10 labels",
        f"{data}: row 6 (id waf-002), column 'region': empty slice value",
        f"{data}: row 7 (id x-0), column 'image': no image",
        f"{data}: row 8 (id x-1), column 'image': {gone}",
        f"{data}: row 9 (id x-2), column 'image': {gone}",
    ]
    assert regional_check.validate(yaml_path) == expected
    assert regional_check.validate(yaml_path, check_images=False) == expected  # a missing file: a stat, no opening
    lines = _load(yaml_path).splitlines()
    assert lines[:2] == [
        "food-tasks: regional task broken_rows: data error, the run stops before generation:",
        f"  YAML: {yaml_path}",
    ]
    assert joined_entries(lines[2:-2]) == expected and max(map(len, lines)) <= 120
    assert lines[-2:] == ["Check the task with:", f"  food-tasks validate {yaml_path}"]


def test_a_run_shows_ten_problems_and_counts_the_others(tmp_path):
    yaml_path = _task(tmp_path, "many_rows", rows=lambda rows: [dict(r, question=" ") for r in rows * 2])
    data = yaml_path.with_suffix(".jsonl")
    problems = regional_check.validate(yaml_path, check_images=False)
    assert len(problems) == 18  # 12 empty questions, 6 duplicate ids
    entries = joined_entries(_load(yaml_path).splitlines()[2:-2])
    assert entries == [*problems[:10], f"{data}: 8 more problem(s) like these"]


@pytest.mark.parametrize(
    "name, text, problem",
    [
        ("empty.jsonl", "", "empty file: no rows"),
        ("blank.jsonl", "\n  \n", "empty file: no rows"),
        ("list.jsonl", "[]\n", "an empty JSON list: no rows"),
        ("header.csv", "id,image,question,answer,region\n", "a header line and no rows"),
        ("blank.csv", "\n\n", "empty file: no rows"),
    ],
)
def test_a_data_file_without_rows_stops_the_run(tmp_path, name, text, problem):
    # Before: validate said "data unreachable (...): StopIteration: " or "... ValueError: Instruction "test"
    # corresponds to no data!", and the run said as much.
    if name.endswith(".csv"):
        folder = tmp_path / "tasks"
        folder.mkdir()
        yaml_text = (EXAMPLE / "regional_example_open.yaml").read_text(encoding="utf-8")
        yaml_path = folder / "no_rows.yaml"
        yaml_path.write_text(
            yaml_text.replace("task: regional_example_open", "task: no_rows").replace("dishes_open.csv", name),
            encoding="utf-8",
        )
    else:
        yaml_path = _task(tmp_path, "no_rows")
        yaml_path.write_text(yaml_path.read_text(encoding="utf-8").replace("no_rows.jsonl", name), encoding="utf-8")
    (yaml_path.parent / name).write_text(text, encoding="utf-8")
    line = f"{yaml_path.parent / name}: {problem}"
    assert regional_check.validate(yaml_path) == [line]
    message = _load(yaml_path)
    assert message.startswith("food-tasks: regional task no_rows: data error, the run stops before generation:")
    assert line in message.splitlines()


def test_a_dataset_without_rows_is_a_data_error(tmp_path):
    import datasets

    settings = regional_scoring.Settings.from_metadata({"regional": {"format": "open", "question": "q", "answer": "a"}})
    ds = datasets.Dataset.from_dict({"q": [], "a": []})
    assert regional_files.data_problems(settings, ds, ds.column_names, "hub/dishes", "test") == (
        "data error",
        ["hub/dishes: no rows in split 'test'"],
    )


def test_an_undecodable_image_is_for_validate_to_find_not_the_run(tmp_path):
    # The run counts it in image_missing as the model asks for it (test_undecodable_images_mid_run_are_counted...).
    yaml_path = _task(tmp_path, "bad_png")
    (yaml_path.parent / "images" / "sea-001.png").write_bytes(b"not a png")
    assert len(regional_check.validate(yaml_path)) == 1
    assert regional_check.validate(yaml_path, check_images=False) == []
    import lmms_eval.models  # noqa: F401
    from lmms_eval.tasks import TaskManager

    manager = TaskManager(include_path=str(yaml_path.parent), include_defaults=False)
    assert len(manager.load_task_or_group(["bad_png"], task_type="simple")["bad_png"].test_docs()) == 6


def test_the_checks_read_only_the_columns_they_need_and_no_image():
    import datasets
    from conftest import truncated_jpeg

    settings = regional_scoring.Settings.from_metadata(
        {"regional": {"format": "open", "id": "id", "image": "image", "question": "q", "answer": "a"}}
    )
    ds = datasets.Dataset.from_dict(
        {
            "id": ["1", "2"],
            "image": [{"bytes": truncated_jpeg(), "path": None}, None],
            "q": ["Which dish?", "Which dish?"],
            "a": ["pho", "laksa"],
            "notes": [{"x": 1}, {"x": 2}],
        },
        features=datasets.Features(
            {
                "id": datasets.Value("string"),
                "image": datasets.Image(decode=False),
                "q": datasets.Value("string"),
                "a": datasets.Value("string"),
                "notes": {"x": datasets.Value("int64")},
            }
        ),
    )
    found = regional_files.data_problems(settings, ds, ds.column_names, "hub/dishes", "test")
    # bytes that do not decode are no problem here (nothing is decoded); a row without an image is
    assert found == ("data error", ["hub/dishes: row 2 (id 2), column 'image': no image"])
    assert regional_files.prompt_columns("[{region}] {question} {options} {dish.name} {x[0]} {region!r}") == [
        "region",
        "dish",
        "x",
    ]
    assert regional_files.prompt_columns("{question} {") == []  # building the prompt says what is wrong
