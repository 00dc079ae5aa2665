"""Regional tasks from a YAML file: settings, scoring (hand-computed), validate, and the example end to end."""

from __future__ import annotations

import importlib.util
import json
import shutil
from pathlib import Path

import pytest

from food_tasks import regional
from food_tasks.cli import main as cli_main
from food_tasks.data.mirror import png_bytes
from food_tasks.regional_tasks import check as regional_check
from food_tasks.regional_tasks import files as regional_files
from food_tasks.regional_tasks import scoring as regional_scoring

ROOT = Path(__file__).resolve().parents[2]
EXAMPLE = ROOT / "examples" / "regional"

MCQ = {
    "format": "mcq",
    "id": "id",
    "image": "image",
    "question": "question",
    "options": "options",
    "answer": "answer",
    "slices": ["region"],
}


def settings(**overrides) -> regional_scoring.Settings:
    return regional_scoring.Settings.from_metadata({"regional": {**MCQ, **overrides}})


def doc(i="1", answer="B", options=("Rendang", "Pho", "Laksa"), region="SEA", **extra) -> dict:
    return {
        "id": i,
        "image": "a.png",
        "question": "Which dish?",
        "options": list(options),
        "answer": answer,
        "region": region,
        **extra,
    }


def test_example_files_match_their_generator():
    # Loaded from its file: the example is a script beside its data, not a package on sys.path.
    spec = importlib.util.spec_from_file_location("build_example", EXAMPLE / "build_example.py")
    assert spec is not None and spec.loader is not None
    build_example = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(build_example)
    for rel, data in build_example.files().items():
        assert (EXAMPLE / rel).read_bytes() == data, f"{rel}: rerun python examples/regional/build_example.py"


@pytest.mark.parametrize(
    "block, expected",
    [
        ({"format": "quiz", "question": "q", "answer": "a"}, "format: 'quiz' is not one of mcq, multi, open, numeric"),
        ({"format": "mcq", "question": "q", "answer": "a"}, "options: name a list column"),
        ({"format": "open", "answer": "a"}, "question: name the data column"),
        ({"format": "open", "question": "q", "answer": "a", "slice": ["x"]}, "slice: unknown key"),
        ({"format": "open", "question": "q", "answer": "a", "prompt": "Name it."}, "prompt: must contain {question}"),
        (
            {"format": "mcq", "question": "q", "answer": "a", "options": ["a", "b", "c"], "labels": ["A", "B"]},
            "2 labels for 3 option columns",
        ),
    ],
)
def test_settings_problems_name_the_key(block, expected):
    problems = regional_scoring.settings_problems({"regional": block})
    assert any(expected in p for p in problems), problems
    with pytest.raises(regional_scoring.RegionalConfigError, match="food-tasks regional task"):
        regional_scoring.Settings.from_metadata({"regional": block})


def test_missing_block():
    assert "metadata.regional is missing" in regional_scoring.settings_problems({"version": 1})[0]


def test_gold_index_label_or_text_and_option_columns():
    s = settings()
    assert regional_scoring.gold_index(s, doc(answer="b")) == 1
    assert regional_scoring.gold_index(s, doc(answer="Laksa")) == 2
    assert regional_scoring.gold_index(s, doc(answer="D")) is None  # only three options: D is no label
    with pytest.raises(
        regional_scoring.RegionalConfigError,
        match=r"row 7: answer 'D' is neither a label \(A/B/C\) nor the text of one option",
    ):
        regional_scoring.score(s, doc("7", answer="D"), "A")
    cols = settings(options=["opt_a", "opt_b", "opt_c"])
    row = {"opt_a": "x", "opt_b": "y", "opt_c": None, "answer": "B"}
    assert regional_scoring.doc_options(cols, row) == ["x", "y"]  # an empty option column is no option
    assert regional_scoring.gold_index(cols, row) == 1
    assert regional_scoring.doc_options(s, {"options": '["a", "b"]'}) == ["a", "b"]  # a JSON list cell (CSV)


def test_prompt_is_built_from_the_template():
    s = settings()
    assert regional_scoring.doc_text(s, doc()) == (
        "Which dish?\nA. Rendang\nB. Pho\nC. Laksa\nAnswer with the option's letter from the given choices directly."
    )
    custom = settings(prompt="[{region}] {question}\n{options}", option_format="({label}) {option}")
    assert regional_scoring.doc_text(custom, doc()) == "[SEA] Which dish?\n(A) Rendang\n(B) Pho\n(C) Laksa"
    numbered = settings(labels=[1, 2, 3])
    assert regional_scoring.doc_text(numbered, doc()).endswith(
        "3. Laksa\nAnswer with the option's number from the given choices directly."
    )
    assert (
        regional_scoring.score(numbered, doc(answer=2), "Answer: 2")["correct"] is True
    )  # an integer answer cell is label "2"
    with pytest.raises(regional_scoring.RegionalConfigError, match="{country} is neither a data column"):
        regional_scoring.doc_text(settings(prompt="{question} {country}"), doc())


@pytest.mark.parametrize(
    "output, parsed, correct",
    [
        ("B", True, True),
        ("Answer: (b)", True, True),
        ("Pho", True, True),
        ("C. Laksa", True, False),
        ("B or C", False, False),
        ("<think>B", False, False),
        (None, False, False),
        (12, False, False),
        ("B " * 8000, True, True),
    ],
)
def test_mcq_scoring(output, parsed, correct):
    record = regional_scoring.score(settings(), doc(), output)
    assert (record["parsed"], record["correct"]) == (parsed, correct)


def test_open_scoring_contains_and_exact():
    s = regional_scoring.Settings.from_metadata(
        {"regional": {"format": "open", "question": "question", "answer": "answer"}}
    )
    row = {"question": "q", "answer": '["nasi goreng", "fried rice"]'}
    assert regional_scoring.score(s, row, "Nasi Goreng!") | {} == {
        "id": None,
        "slices": {},
        "parsed": True,
        "exact": True,
        "correct": True,
    }
    record = regional_scoring.score(s, row, "It is fried rice with egg")
    assert (record["exact"], record["correct"]) == (False, True)
    assert regional_scoring.score(s, row, "")["parsed"] is False
    assert regional_scoring.score(s, row, None)["parsed"] is False
    with pytest.raises(regional_scoring.RegionalConfigError, match="a row: missing answer"):
        regional_scoring.score(s, {"question": "q", "answer": " "}, "rice")


def test_aggregations_hand_computed(tmp_path, monkeypatch):
    # region SEA: correct, wrong -> 50.0; EA: correct, correct, unparsed(wrong) -> 66.67; micro 3/5 = 60.0
    monkeypatch.chdir(tmp_path)  # the rows' image a.png, relative to the data file's folder (here ".")
    (tmp_path / "a.png").write_bytes(png_bytes((10, 20, 30), 8))
    s = settings()
    rows = [
        (doc("1", region="SEA"), "B"),
        (doc("2", region="SEA"), "A"),
        (doc("3", region="EA"), "B"),
        (doc("4", region="EA"), "Pho"),
        (doc("5", region="EA"), "no idea"),
    ]
    records = [regional_scoring.score(s, d, out) for d, out in rows]
    table = regional_scoring.metric_table(s)
    assert set(table) == {"acc", "parse_fail_rate", "truncated_rate", "acc_by_region", "n_by_region", "image_missing"}
    assert table["n_by_region"](records) == {"EA": 3, "SEA": 2}
    assert table["acc"](records) == pytest.approx(60.0)
    assert table["parse_fail_rate"](records) == pytest.approx(20.0)
    assert table["acc_by_region"](records) == pytest.approx({"EA": 200 / 3, "SEA": 50.0})
    assert table["image_missing"](records) == 0
    assert table["acc"]([]) == 0.0 and table["parse_fail_rate"]([]) == 0.0
    assert set(regional_scoring.metric_table(settings(image=None))) == {
        "acc",
        "parse_fail_rate",
        "truncated_rate",
        "acc_by_region",
        "n_by_region",
    }  # no image column


def test_a_row_whose_image_cannot_be_loaded_is_counted_and_left_out(tmp_path):
    from conftest import NOT_AN_IMAGE, truncated_jpeg

    (tmp_path / "a.png").write_bytes(png_bytes((10, 20, 30), 8))
    (tmp_path / "cut.jpg").write_bytes(truncated_jpeg())
    (tmp_path / "junk.jpg").write_bytes(NOT_AN_IMAGE)
    s = regional_scoring.Settings.from_metadata({"regional": MCQ}, tmp_path)
    rows = [doc("1"), doc("2", image="cut.jpg"), doc("3", image="junk.jpg"), doc("4", image="gone.png")]
    # the model asks for the images: each broken one is left out, nothing raises
    assert [len(regional_scoring.doc_images(s, d, "t")) for d in rows] == [1, 0, 0, 0]
    records = [regional_scoring.score(s, d, "B") for d in rows]  # every answer right
    assert [r["image_missing"] for r in records] == [False, True, True, True]
    table = regional_scoring.metric_table(s)
    assert table["image_missing"](records) == 3 and table["acc"](records) == 100.0
    assert table["acc_by_region"](records) == {"SEA": 100.0} and table["n_by_region"](records) == {"SEA": 1}
    # the error bars count the same rows: one row, its accuracy 100
    rows_acc = table["acc"].estimator.rows(records)
    assert (
        rows_acc[:, 1].tolist() == [1.0, 0.0, 0.0, 0.0]
        and float(table["acc"].estimator.combine(rows_acc.sum(0))) == 100.0
    )


def test_bound_hooks_load_images_relative_to_the_data_file(tmp_path):
    (tmp_path / "img").mkdir()
    (tmp_path / "img" / "a.png").write_bytes(png_bytes((10, 20, 30), 8))
    (tmp_path / "d.jsonl").write_text(json.dumps(doc(image="img/a.png")) + "\n", encoding="utf-8")
    config = {
        "task": "t",
        "class": object,
        "dataset_path": "json",
        "dataset_kwargs": {"data_files": {"test": str(tmp_path / "d.jsonl")}},
        "metadata": {"regional": MCQ},
    }
    bound = regional._bind(config)
    assert "class" not in bound and bound["output_type"] == "generate_until"
    messages = bound["doc_to_messages"](doc(image="img/a.png"))
    assert [p["type"] for p in messages[0]["content"]] == ["image", "text"]
    assert messages[0]["content"][0]["url"].size == (8, 8)
    assert bound["doc_to_visual"](doc("9", image="nope.png")) == []  # an image that cannot be loaded never ends the run
    assert [m["metric"] for m in bound["metric_list"]] == [
        "acc",
        "parse_fail_rate",
        "truncated_rate",
        "acc_by_region",
        "n_by_region",
        "image_missing",
    ]
    # One line per problem, as validate lists them; the run's error adds the task, its YAML and the validate command
    # (test_stop_before_generation).
    with pytest.raises(regional_scoring.RegionalConfigError) as err:
        regional._bind({**config, "metadata": {"regional": {**MCQ, "format": "quiz"}}})
    assert str(err.value) == "metadata.regional.format: 'quiz' is not one of mcq, multi, open, numeric"


def _broken_task(tmp_path: Path) -> Path:
    task = tmp_path / "broken"
    shutil.copytree(EXAMPLE, task)
    lines = (task / "dishes.jsonl").read_text(encoding="utf-8").splitlines()
    rows = [json.loads(line) for line in lines]
    rows[1]["answer"] = "E"  # row 2: no such label
    rows[2]["id"] = rows[0]["id"]  # row 3: duplicate id
    rows[3]["image"] = "images/missing.png"  # row 4: image file absent
    rows[4]["options"] = ["Jollof rice"]  # row 5: one option
    rows[5]["region"] = ""  # row 6: empty slice value
    (task / "dishes.jsonl").write_text("\n".join(json.dumps(r) for r in rows) + "\n", encoding="utf-8")
    (task / "images" / "eas-001.png").write_bytes(b"not a png")
    return task / "regional_example_mcq.yaml"


def _entries(out: str) -> list[str]:
    """The printed validate report back as entries: continuation lines (wrapped at 120 columns) joined."""
    lines = out.splitlines()
    assert max(map(len, lines)) <= 120, out
    entries: list[str] = []
    for line in lines:
        if line.startswith("    "):
            entries[-1] += " " + line.strip()
        else:
            entries.append(line)
    return entries


def test_validate_reports_one_line_per_problem(tmp_path, capsys, monkeypatch):
    yaml_path = _broken_task(tmp_path)
    problems = regional_check.validate(yaml_path)
    data = tmp_path / "broken" / "dishes.jsonl"  # the data file as it was resolved (issue 29.5)
    assert problems[0] == (
        f"{data}: row 2 (id sea-002), column 'answer': answer 'E' is neither a label (A/B/C/D) nor the "
        "text of one option"
    )
    assert problems[1] == f"{data}: row 3 (id sea-001), column 'id': duplicate id (first at row 1)"
    assert problems[2].startswith(f"{data}: row 3 (id sea-001), column 'image': ")  # eas-001.png is no image
    assert problems[3].startswith(f"{data}: row 4 (id eas-002), column 'image': image images/missing.png: no file")
    assert problems[4] == f"{data}: row 5 (id waf-001), column 'options': 1 option(s); need at least 2"
    assert problems[5] == f"{data}: row 6 (id waf-002), column 'region': empty slice value"
    assert len(problems) == 6
    # The whole report on stdout (issue 29.5): the YAML and its verdict, then each problem, within 120 columns.
    assert cli_main(["validate", str(yaml_path)]) == 1
    out = capsys.readouterr()
    assert out.err == "" and _entries(out.out) == [f"{yaml_path}: 6 problem(s)", *(f"  {p}" for p in problems)]
    # Paths as the user gave them: relative to the working directory.
    monkeypatch.chdir(tmp_path)
    relative = regional_check.validate("broken/regional_example_mcq.yaml")
    assert relative[0].startswith("broken/dishes.jsonl: row 2 (id sea-002)")


def test_validate_says_an_answer_is_missing(tmp_path):
    # Issue 29.5: a row without `answer` read "answer '' is neither a label (A/B/C/D) nor the text of one option".
    task = tmp_path / "t"
    shutil.copytree(EXAMPLE, task)
    rows = [json.loads(line) for line in (task / "dishes.jsonl").read_text(encoding="utf-8").splitlines()]
    del rows[1]["answer"]
    rows[2]["answer"] = " "
    data = task / "dishes.jsonl"
    data.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows), encoding="utf-8")
    assert regional_check.validate(task / "regional_example_mcq.yaml", check_images=False) == [
        f"{data}: row 2 (id sea-002), column 'answer': missing answer",
        f"{data}: row 3 (id eas-001), column 'answer': missing answer",
    ]
    text = (task / "dishes_open.csv").read_text(encoding="utf-8").splitlines()
    header = text[0].split(",")
    cells = text[1].split(",")
    cells[header.index("answer")] = ""
    (task / "dishes_open.csv").write_text("\n".join([text[0], ",".join(cells), *text[2:]]) + "\n", encoding="utf-8")
    problems = regional_check.validate(task / "regional_example_open.yaml", check_images=False)
    assert problems == [f"{task / 'dishes_open.csv'}: row 1 (id sea-001), column 'answer': missing answer"]


def test_validate_schema_and_data_errors(tmp_path):
    task = tmp_path / "t"
    shutil.copytree(EXAMPLE, task)
    text = (task / "regional_example_mcq.yaml").read_text()
    (task / "regional_example_mcq.yaml").unlink()  # each YAML below defines the task once (no name clash)
    (task / "a.yaml").write_text(
        text.replace("class: !function food_tasks.regional.RegionalTask\n", "").replace("format: mcq", "format: quiz")
    )
    assert regional_check.validate(task / "a.yaml") == [
        f"{task / 'a.yaml'}: class: must be `!function food_tasks.regional.RegionalTask`",
        f"{task / 'a.yaml'}: metadata.regional.format: 'quiz' is not one of mcq, multi, open, numeric",
    ]
    (task / "a.yaml").unlink()
    (task / "b.yaml").write_text(text.replace("test: dishes.jsonl", "test: nowhere.jsonl"))
    assert regional_check.validate(task / "b.yaml") == [
        f"{task / 'b.yaml'}: dataset_kwargs.data_files: {task / 'nowhere.jsonl'} does not exist "
        "(paths are relative to the YAML)"
    ]
    (task / "b.yaml").unlink()
    (task / "c.yaml").write_text(text.replace("slices: [region, language]", "slices: [country]"))
    assert regional_check.validate(task / "c.yaml") == [
        (
            f"{task / 'dishes.jsonl'}: column 'country' named by metadata.regional.slices is not in the data "
            "(columns: answer, id, image, language, options, question, region)"
        )
    ]
    (task / "c.yaml").unlink()
    assert regional_check.validate(task / "nope.yaml") == [f"{task / 'nope.yaml'}: no such file"]
    (task / "d.yaml").write_text(text.replace("slices: [region, language]", 'prompt: "{question} {dish}"'))
    assert regional_check.validate(task / "d.yaml") == [
        (
            f"{task / 'd.yaml'}: metadata.regional.prompt: {{dish}} is neither a data column nor question/options "
            "(row 1; write literal braces as {{ }})"
        )
    ]
    (task / "d.yaml").unlink()
    (task / "e.yaml").write_text(text.replace("slices: [region, language]", 'prompt: "{question} {"'))
    assert regional_check.validate(task / "e.yaml") == [
        f"{task / 'e.yaml'}: metadata.regional.prompt: Single '{{' encountered in format string "
        f"(row 1; write literal braces as {{{{ }}}})"
    ]


def test_load_image_sources(tmp_path):
    from PIL import Image

    png = png_bytes((1, 2, 3), 10)
    (tmp_path / "a.png").write_bytes(png)
    assert regional_scoring.load_image("a.png", str(tmp_path)).size == (10, 10)
    assert regional_scoring.load_image(str(tmp_path / "a.png"), "/elsewhere").size == (10, 10)
    assert regional_scoring.load_image({"bytes": png, "path": None}, ".").mode == "RGB"
    assert regional_scoring.load_image(Image.new("L", (4, 4)), ".").mode == "RGB"

    class Store:
        def __init__(self):
            self.failures = {"https://x.org/b.png": "HTTP 404"}

        def get(self, url):
            return None

    with pytest.raises(FileNotFoundError, match="image https://x.org/b.png: HTTP 404"):
        regional_scoring.load_image("https://x.org/b.png", ".", Store())


def test_validate_the_examples_cli(capsys, monkeypatch):
    monkeypatch.chdir(ROOT)  # as a user in a clone runs it
    yamls = ["examples/regional/regional_example_mcq.yaml", "examples/regional/regional_example_open.yaml"]
    assert cli_main(["validate", *yamls]) == 0
    out = capsys.readouterr()
    assert out.err == ""
    # Success says what was checked (issue 19.7), on stdout within 120 columns (issue 29.5).
    assert out.out.splitlines() == [
        "examples/regional/regional_example_mcq.yaml: OK: task regional_example_mcq: 6 row(s) of "
        "examples/regional/dishes.jsonl",
        "    (split 'test'), format mcq, every row has its question, options and answer; 6 image(s) opened; "
        "slices: region (3",
        "    values), language (4 values)",
        "examples/regional/regional_example_open.yaml: OK: task regional_example_open: 6 row(s) of",
        "    examples/regional/dishes_open.csv (split 'test'), format open, every row has its question and answer; "
        "6 image(s)",
        "    opened; slices: region (3 values)",
    ]
    assert cli_main(["validate", "--no-images", str(EXAMPLE / "regional_example_mcq.yaml")]) == 0
    assert "images not opened (--no-images)" in capsys.readouterr().out


def test_validate_names_the_line_of_a_malformed_json_lines_file(tmp_path, capsys):
    # Issue 19.7: "data unreachable (dishes_bad.jsonl, split 'test'): DatasetGenerationError: An error occurred ..."
    task = tmp_path / "t"
    shutil.copytree(EXAMPLE, task)
    lines = (task / "dishes.jsonl").read_text(encoding="utf-8").splitlines()
    lines[1] = lines[1][:-1]  # row 2: the closing brace is missing
    lines[3] = '["eas-002", "images/eas-002.png"]'  # row 4: a list, not an object
    (task / "dishes_bad.jsonl").write_text("\n".join(lines) + "\n", encoding="utf-8")
    yaml_path = task / "regional_example_mcq.yaml"
    yaml_path.write_text(
        yaml_path.read_text(encoding="utf-8").replace("test: dishes.jsonl", "test: dishes_bad.jsonl"), encoding="utf-8"
    )
    problems = regional_check.validate(yaml_path)
    data = task / "dishes_bad.jsonl"
    column = len(lines[1]) + 1  # the missing brace: the end of the line
    assert problems[0] == f"{data}: line 2: not valid JSON: Expecting ',' delimiter at column {column}"
    assert problems[1] == f"{data}: line 4: a JSON list, not an object (one row per line)"
    assert len(problems) == 2
    assert cli_main(["validate", str(yaml_path)]) == 1
    assert _entries(capsys.readouterr().out) == [f"{yaml_path}: 2 problem(s)", *(f"  {p}" for p in problems)]
    # Issue 29.5: "Unterminated string starting at, column 60"
    data.write_text('{"id": "x", "question": "What is it?}\n', encoding="utf-8")
    assert regional_files.json_lines_problems(data) == [
        f"{data}: line 1: not valid JSON: Unterminated string starting at column 25"
    ]


def test_json_lines_checks(tmp_path):
    path = tmp_path / "d.jsonl"
    path.write_text('[{"a": 1}, {"a": 2}]', encoding="utf-8")  # one JSON array of objects: datasets reads it too
    assert regional_files.json_lines_problems(path) == []
    path.write_bytes(b'{"a": 1}\n{"a": "\xe9"}\n')
    assert regional_files.json_lines_problems(path) == [f"{path}: line 2: not UTF-8 text (invalid continuation byte)"]
    path.write_text("".join("{oops\n" for _ in range(15)), encoding="utf-8")
    problems = regional_files.json_lines_problems(path)
    assert len(problems) == regional_files.MAX_LINE_PROBLEMS + 1
    assert problems[-1] == f"{path}: 5 more line(s) like these"


@pytest.mark.e2e
def test_example_runs_end_to_end_and_reports(tmp_path):
    """The example through the lmms-eval CLI (--include_path, as a contributor runs it), next to two packaged
    sample tasks, then `food-tasks report` on the real output directory."""
    from conftest import run_lmms_eval

    ids = [json.loads(line)["id"] for line in (EXAMPLE / "dishes.jsonl").read_text(encoding="utf-8").splitlines()]
    answers = {
        "sea-001": "A",
        "sea-002": "The answer is C.",
        "eas-001": "B",
        "eas-002": "麻婆豆腐",
        "waf-001": "I am not sure",
        "waf-002": "<think>hmm",
    }
    open_answers = {
        "sea-001": "Rendang.",
        "sea-002": "nasi",
        "eas-001": "Xiao long bao",
        "eas-002": "麻婆豆腐",
        "waf-001": "It is jollof rice",
        "waf-002": "",
    }
    # Documents keep the data file's order, so doc_id keys work for every task of the run.
    lines = [{"task": "regional_example_mcq", "doc_id": i, "response": answers[k]} for i, k in enumerate(ids)]
    lines += [{"task": "regional_example_open", "doc_id": i, "response": open_answers[k]} for i, k in enumerate(ids)]
    preds = tmp_path / "preds.jsonl"
    preds.write_text("\n".join(json.dumps(x, ensure_ascii=False) for x in lines) + "\n", encoding="utf-8")
    tasks = "regional_example_mcq,regional_example_open,worldcuisines_mcq_sample,fambench_task1_sample"
    proc, results, samples = run_lmms_eval(
        [
            "--model",
            "food_tasks_replay",
            "--model_args",
            f"responses={preds},default=1",
            "--include_path",
            str(EXAMPLE),
            "--tasks",
            tasks,
        ],
        tmp_path / "out",
    )
    assert results is not None, proc.stderr[-3000:]
    mcq = results["results"]["regional_example_mcq"]
    # correct: sea-001 (A), sea-002 (C), eas-002 (option text); unparsed: waf-001, waf-002 -> 3/6, 2/6
    assert mcq["acc,none"] == pytest.approx(50.0)
    assert mcq["parse_fail_rate,none"] == pytest.approx(100 / 3)
    assert mcq["acc_by_region,none"] == pytest.approx({"East Asia": 50.0, "Southeast Asia": 100.0, "West Africa": 0.0})
    assert mcq["acc_by_language,none"] == pytest.approx({"en": 100 / 3, "fr": 0.0, "id": 100.0, "zh": 100.0})
    open_ = results["results"]["regional_example_open"]
    # exact (keys without case, spaces, punctuation): rendang, xiaolongbao ("Xiao long bao"), 麻婆豆腐 -> 3/6;
    # contains adds "It is jollof rice" -> 4/6 ("nasi" is only part of "nasi goreng"); "" is unparsed -> 1/6
    assert open_["acc,none"] == pytest.approx(400 / 6)
    assert open_["exact_match,none"] == pytest.approx(50.0)
    assert open_["parse_fail_rate,none"] == pytest.approx(100 / 6)
    assert len(samples["regional_example_mcq"]) == 6
    assert "worldcuisines_mcq_sample" in results["groups"] and "fambench_task1_sample" in results["results"]
    # The printed table (issue 19.2): a regional task's slices are notes, like the benchmarks' breakdowns.
    table = [line for line in proc.stdout.splitlines() if line.startswith("|")]
    rows = {
        (line.split("|")[1].strip(), line.split("|")[4].strip()): line.split("|")[6].strip()
        for line in table
        if line.count("|") > 6
    }
    assert (
        rows[("regional_example_mcq", "acc_by_language")] == "[4 keys]"
        and rows[("regional_example_mcq", "acc_by_region")] == "[3 keys]"
    )
    assert (
        rows[("regional_example_open", "acc_by_region")] == "[3 keys]"
        and ("FAM-Bench T1 (sample)", "decision_acc") in rows
    )
    assert max(map(len, table)) <= 120, "\n".join(table)

    assert cli_main(["report", str(tmp_path / "out"), "-o", str(tmp_path / "report")]) == 0
    md = (tmp_path / "report" / "report.md").read_text(encoding="utf-8")
    assert "## WorldCuisines (paper Table 7) — packaged sample" in md and "## FAM-Bench — packaged sample" in md
    assert "| **food_tasks_replay (preds.jsonl)** | official" in md
    # acc with its interval (six rows, each its own unit: fewer than 30, so the dagger); acc_n / acc_clusters
    # describe acc and are not listed as metrics
    se = results["results"]["regional_example_mcq"]["acc_stderr,none"]
    assert "## Task `regional_example_mcq`" in md and f"| `acc` | 50.00 ± {1.959963984540054 * se:.2f}† |" in md
    # 0 of 2 with its Wilson interval (issue 27.3): upper bound z^2 / (n + z^2) = 3.8415 / 5.8415 = 65.8%
    assert "| West Africa | 0.00 [0.0, 65.8] (2) |" in md and "`acc_n`" not in md and "`acc_clusters`" not in md
    assert mcq["n_by_region,none"] == {
        "East Asia": 2,
        "Southeast Asia": 2,
        "West Africa": 2,
    }  # the group sizes (issue 19.5)
    charts = sorted(p.name for p in (tmp_path / "report" / "charts").iterdir())
    assert "worldcuisines_mcq_sample_languages.png" in charts and "regional_example_open_acc_by_region.png" in charts
    assert (tmp_path / "report" / "report.html").read_text(encoding="utf-8").count("<img") == len(charts)


@pytest.mark.parametrize("task_type, chat", [("simple", False), ("chat", True)])
def test_task_class_follows_the_model_kind(task_type, chat):
    # lmms-eval builds `class:` tasks without saying whether the model is a chat model; the class must
    # still give chat models message requests and simple models (text, visuals) requests. Our entry point
    # (loaded with lmms_eval.models, as the CLI does) tells it through the public load_task_or_group.
    import lmms_eval.models  # noqa: F401
    from lmms_eval.api.task import ConfigurableMessagesTask
    from lmms_eval.tasks import TaskManager

    manager = TaskManager(include_path=str(EXAMPLE), include_defaults=False)
    task = manager.load_task_or_group(["regional_example_mcq"], task_type=task_type)["regional_example_mcq"]
    assert isinstance(task, regional.RegionalTask)
    assert isinstance(task, ConfigurableMessagesTask) is chat
    assert task.config.task == "regional_example_mcq" and len(task.test_docs()) == 6
    images = task.doc_to_visual(task.test_docs()[0])
    assert len(images) == 1 and images[0].size == (32, 32)


def test_relative_include_path_loads_images(monkeypatch):
    # `lmms-eval --include_path examples/regional` (relative, as CONTRIBUTING shows it): lmms-eval anchors
    # data_files at the relative YAML folder, and images must still resolve next to the data file.
    from lmms_eval.tasks import TaskManager

    monkeypatch.chdir(EXAMPLE.parent)
    manager = TaskManager(include_path=EXAMPLE.name, include_defaults=False)
    task = manager.load_task_or_group(["regional_example_mcq"], task_type="simple")["regional_example_mcq"]
    images = [task.doc_to_visual(d) for d in task.test_docs()]
    assert len(images) == 6 and all(len(i) == 1 and i[0].size == (32, 32) for i in images)


@pytest.mark.e2e
def test_undecodable_images_mid_run_are_counted_through_the_cli(tmp_path):
    """Issue 20, item 1: an image that cannot be decoded used to end the run (RuntimeError in doc_to_visual)."""
    from conftest import NOT_AN_IMAGE, run_lmms_eval, truncated_jpeg

    task = tmp_path / "task"
    shutil.copytree(EXAMPLE, task)
    (task / "images" / "eas-001.png").write_bytes(truncated_jpeg())
    (task / "images" / "waf-002.png").write_bytes(NOT_AN_IMAGE)
    rows = [json.loads(line) for line in (task / "dishes.jsonl").read_text(encoding="utf-8").splitlines()]
    preds = tmp_path / "preds.jsonl"  # every answer right: only the image status decides what counts
    preds.write_text(
        "".join(
            json.dumps({"task": "regional_example_mcq", "doc_id": i, "response": r["answer"]}) + "\n"
            for i, r in enumerate(rows)
        ),
        encoding="utf-8",
    )
    proc, results, samples = run_lmms_eval(
        [
            "--model",
            "food_tasks_replay",
            "--model_args",
            f"responses={preds},load_images=true",
            "--include_path",
            str(task),
            "--tasks",
            "regional_example_mcq",
        ],
        tmp_path / "out",
    )
    assert results is not None, proc.stdout[-3000:] + proc.stderr[-3000:]
    got = results["results"]["regional_example_mcq"]
    assert len(samples["regional_example_mcq"]) == 6
    assert got["image_missing,none"] == 2 and got["acc,none"] == 100.0
    assert got["acc_by_region,none"] == {"East Asia": 100.0, "Southeast Asia": 100.0, "West Africa": 100.0}


def test_hub_image_columns_stay_undecoded_until_asked_and_keep_their_keys_for_scoring(tmp_path):
    import datasets
    from conftest import truncated_jpeg

    good = png_bytes((10, 20, 30), 8)
    ds = datasets.Dataset.from_dict(
        {
            "id": ["1", "2"],
            "image": [{"bytes": good, "path": None}, {"bytes": truncated_jpeg(), "path": None}],
            "question": ["Which dish?"] * 2,
            "options": [["Rendang", "Pho"]] * 2,
            "answer": ["B", "B"],
            "region": ["SEA"] * 2,
        },
        features=datasets.Features(
            {
                "id": datasets.Value("string"),
                "image": datasets.Image(),
                "question": datasets.Value("string"),
                "options": datasets.List(datasets.Value("string")),
                "answer": datasets.Value("string"),
                "region": datasets.Value("string"),
            }
        ),
    )
    config = {"task": "t", "dataset_path": "parquet", "metadata": {"regional": MCQ}}
    bound = regional._bind(config)
    docs = bound["process_docs"](ds)  # datasets would decode (leniently, under lmms-eval) on every row access
    assert isinstance(docs[1]["image"], dict) and docs[1]["image"]["bytes"]
    assert [len(bound["doc_to_visual"](d)) for d in docs] == [1, 0]  # the truncated image is found and left out
    # lmms-eval scores documents without their Image columns: the stored keys stand for the images
    no_media = docs.remove_columns("image")
    records = [bound["process_results"](d, ["B"])["acc"].record for d in no_media]
    assert [r["image_missing"] for r in records] == [False, True]


def test_every_lmms_eval_task_key_is_honoured_replaced_or_unused():
    # A key lmms-eval adds in an upgrade must be classified before a regional YAML can use it silently.
    import dataclasses

    from lmms_eval.api.task import TaskConfig

    from food_tasks.regional_tasks import config as regional_yaml

    known = set(regional_yaml.HONOURED) | set(regional_yaml.REPLACED) | set(regional_yaml.UNUSED)
    assert {f.name for f in dataclasses.fields(TaskConfig)} <= known
    assert not set(regional_yaml.HONOURED) & (set(regional_yaml.REPLACED) | set(regional_yaml.UNUSED))


def test_validate_names_every_key_the_task_replaces_or_does_not_read(tmp_path, capsys):
    # Issue 29.4: `metric_list: [{metric: acc_foo}]` was OK for validate and ran without a word.
    task = tmp_path / "t"
    shutil.copytree(EXAMPLE, task)
    yaml_path = task / "regional_example_mcq.yaml"
    text = yaml_path.read_text(encoding="utf-8")
    yaml_path.write_text(
        text + "metric_list:\n  - metric: acc_foo\nnum_fewshot: 2\noutput_type: multiple_choice\n"
        "foo: 1\nvalidation_split: dev\n",
        encoding="utf-8",
    )
    result = regional_check.check(yaml_path, check_images=False)
    assert result.problems == [
        f"{yaml_path}: metric_list: the regional task sets its own metrics (CONTRIBUTING.md, 5. Metrics); remove it",
        f"{yaml_path}: num_fewshot: regional tasks are zero-shot (no few-shot examples); remove it",
        f"{yaml_path}: output_type: 'multiple_choice': regional tasks generate their answer (generate_until); "
        "remove it",
        f"{yaml_path}: foo: not an lmms-eval task key (lmms-eval would stop on it); remove it",
    ]
    unused = "validation_split: not read: a regional task evaluates test_split only; remove it"
    assert result.warnings == [f"{yaml_path}: {unused}"]
    # A warning alone: OK, exit status 0, the warning printed under the verdict.
    yaml_path.write_text(
        text + "validation_split: dev\noutput_type: generate_until\nnum_fewshot: 0\n", encoding="utf-8"
    )
    assert cli_main(["validate", "--no-images", str(yaml_path)]) == 0
    entries = _entries(capsys.readouterr().out)
    assert entries[0].startswith(f"{yaml_path}: OK (1 warning(s)): task regional_example_mcq: 6 row(s)")
    assert entries[1:] == [f"  warning: {yaml_path}: {unused}"]


def test_validate_warns_on_an_unknown_generation_kwargs_key(tmp_path):
    # Issue 29.4: a typo inside generation_kwargs got no message from validate (nor from the run).
    from food_tasks.regional_tasks import config as regional_yaml

    task = tmp_path / "t"
    shutil.copytree(EXAMPLE, task)
    yaml_path = task / "regional_example_mcq.yaml"
    text = yaml_path.read_text(encoding="utf-8")
    yaml_path.write_text(
        text + "generation_kwargs:\n  temprature: 0.5\n  max_new_tokens: 8\n  top_p: 1.0\n  zzz: 1\n", encoding="utf-8"
    )
    result = regional_check.check(yaml_path, check_images=False)
    assert result.problems == []
    assert result.warnings == [
        f"{yaml_path}: generation_kwargs.temprature: unknown to models, may be ignored (did you mean temperature?)",
        f"{yaml_path}: generation_kwargs.zzz: unknown to models, may be ignored",
    ]
    # Every key our own tasks and lmms-eval's default pass is known.
    assert {"until", "max_new_tokens", "temperature", "do_sample", "num_beams"} <= regional_yaml.GENERATION_KEYS
    assert regional_yaml.generation_problems(regional_scoring.DEFAULT_GENERATION) == []


def test_validate_names_every_yaml_of_the_same_task_name(tmp_path):
    # Issue 29.4: two YAMLs under one --include_path defining one name: lmms-eval ran one without a word; a run now
    # warns naming both files and stops (test_stop_before_generation), and validate says so.
    task = tmp_path / "t"
    shutil.copytree(EXAMPLE, task)
    (task / "old").mkdir()
    shutil.copy(task / "regional_example_mcq.yaml", task / "old" / "mcq_v0.yaml")
    yaml_path = task / "regional_example_mcq.yaml"
    assert regional_check.validate(yaml_path, check_images=False) == [
        f"{yaml_path}: task: 'regional_example_mcq' is also the name of {task / 'old' / 'mcq_v0.yaml'}: "
        f"a run with --include_path {task} warns naming both files and stops with exit status 1; rename one"
    ]
    assert regional_check.validate(task / "regional_example_open.yaml", check_images=False) == []


def test_the_error_bars_name_the_cluster_column():
    # issue 33.7: the results JSON's method read "3 clusters (cluster)" (the record's field) for `cluster: dish`
    from food_tasks.stats import uncertainty as stats

    table = regional_scoring.metric_table(settings(cluster="dish"))
    assert table.cluster_noun == "values of column dish"
    est = stats.Estimate(se=1.0, n=6, clusters=3, method="clustered")
    assert stats.describe(est, table.cluster_noun) == "clustered analytic (CR1), 3 values of column dish"
    assert regional_scoring.metric_table(settings()).cluster_noun == "documents"
