"""Every error we raise before generation ends the run with exit status 1 and our message last (issue 19.3).

lmms-eval 0.7.3 catches every ``Exception`` of model construction and task loading, prints it and exits 0;
data errors of our benchmarks already stop through ``food_tasks.data.hub.RunStopped``. Here: the replay model's
input errors, and a regional task's configuration and data errors (no five download retries first).
"""

from __future__ import annotations

import contextlib
import json
import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest
from conftest import joined_entries, run_lmms_eval

from food_tasks.data.hub import RunStopped
from food_tasks.regional_tasks import files as regional_files

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "regional"


def _regional_copy(tmp_path: Path, name: str, *, edit=lambda text: text) -> Path:
    """The example MCQ task copied under ``tmp_path/tasks`` as task ``name``, its YAML text passed through ``edit``."""
    folder = tmp_path / "tasks"
    if not folder.exists():
        shutil.copytree(EXAMPLE, folder, ignore=shutil.ignore_patterns("*.yaml", "*.py"))
    text = (
        (EXAMPLE / "regional_example_mcq.yaml")
        .read_text(encoding="utf-8")
        .replace("task: regional_example_mcq", f"task: {name}")
    )
    (folder / f"{name}.yaml").write_text(edit(text), encoding="utf-8")
    return folder


def test_replay_model_input_errors_stop_the_run(tmp_path):
    from food_tasks.replay_model import ReplayModel

    preds = tmp_path / "p.jsonl"
    preds.write_text('{"doc_id": 0, "response": "A"}\n', encoding="utf-8")
    with pytest.raises(RunStopped) as err:
        ReplayModel(responses=str(preds), keys="qa_id")
    assert isinstance(err.value, SystemExit) and not isinstance(
        err.value, Exception
    )  # lmms-eval's `except Exception` passes it
    message = str(err.value)
    assert message.startswith("food-tasks: replay model error, the run stops before generation:\n")
    assert f"food_tasks_replay: responses file\n  {preds}\n  line 1 lacks 'qa_id', named by keys=qa_id.\n" in message
    with pytest.raises(RunStopped, match="does not exist"):
        ReplayModel(responses=str(tmp_path / "missing.jsonl"))


@pytest.mark.parametrize(
    ("edit", "what", "detail"),
    [
        (
            lambda t: t.replace("format: mcq", "format: quiz"),
            "configuration error",
            "metadata.regional.format: 'quiz' is not one of mcq, multi, open, numeric",
        ),
        (
            lambda t: t.replace("slices: [region, language]", 'prompt: "{question} {dish}"'),
            "configuration error",
            "metadata.regional.prompt: {dish} is neither a data column nor question/options",
        ),
        (
            lambda t: t.replace("test: dishes.jsonl", "test: nowhere.jsonl"),
            "data error",
            "nowhere.jsonl: no such data file",
        ),
        # Issue 29.4: a key the task would replace was ignored without a word
        (
            lambda t: t + "metric_list:\n  - metric: acc_foo\n",
            "configuration error",
            "metric_list: the regional task sets its own metrics (CONTRIBUTING.md, 5. Metrics); remove it",
        ),
        (
            lambda t: t + "foo: 1\n",
            "configuration error",
            "foo: not an lmms-eval task key (lmms-eval would stop on it); remove it",
        ),
    ],
)
def test_regional_task_errors_stop_the_run(tmp_path, edit, what, detail):
    import lmms_eval.models  # noqa: F401  (our entry point: the harness wraps, as in a CLI run)
    from lmms_eval.tasks import TaskManager

    folder = _regional_copy(tmp_path, "broken_task", edit=edit)
    manager = TaskManager(include_path=str(folder), include_defaults=False)
    with pytest.raises(RunStopped) as err:
        manager.load_task_or_group(["broken_task"], task_type="simple")
    message = str(err.value)
    yaml_path = folder / "broken_task.yaml"  # every regional error names the YAML (issue 29.4)
    lines = message.splitlines()
    assert lines[:2] == [
        f"food-tasks: regional task broken_task: {what}, the run stops before generation:",
        f"  YAML: {yaml_path}",  # on a line of its own (issue 29.3: the header grew with the path past 120 columns)
    ], message
    assert detail in message and lines[-2:] == ["Check the task with:", f"  food-tasks validate {yaml_path}"]


@contextlib.contextmanager
def _warnings() -> Iterator[list[str]]:
    """The messages loguru logs at WARNING and above inside the block."""
    from loguru import logger

    seen: list[str] = []
    sink = logger.add(lambda m: seen.append(m.record["message"]), level="WARNING")
    try:
        yield seen
    finally:
        logger.remove(sink)


def test_a_key_without_effect_is_a_warning_naming_the_yaml(tmp_path):
    import lmms_eval.models  # noqa: F401
    from lmms_eval.tasks import TaskManager

    folder = _regional_copy(tmp_path, "with_dev", edit=lambda t: t + "validation_split: dev\n")
    with _warnings() as seen:
        manager = TaskManager(include_path=str(folder), include_defaults=False)
        task = manager.load_task_or_group(["with_dev"], task_type="simple")
    assert len(task["with_dev"].test_docs()) == 6
    assert (
        "food-tasks: regional task with_dev:\n"
        "  validation_split: not read: a regional task evaluates test_split only; remove it\n"
        f"  YAML: {folder / 'with_dev.yaml'}"
    ) in seen


def test_two_yamls_defining_one_task_name_both_named(tmp_path):
    # Issue 29.4: lmms-eval indexed one of them without a word, and the error that followed named no file.
    import lmms_eval.models  # noqa: F401
    from lmms_eval.tasks import TaskManager

    folder = _regional_copy(tmp_path, "twice")
    (folder / "sub").mkdir()
    (folder / "sub" / "copy.yaml").write_text((folder / "twice.yaml").read_text(encoding="utf-8"), encoding="utf-8")
    files = sorted([str(folder / "twice.yaml"), str(folder / "sub" / "copy.yaml")])
    with _warnings() as seen:
        manager = TaskManager(include_path=str(folder), include_defaults=False)
    used = manager.task_index["twice"]["yaml_path"]
    indexed = [f"  {'indexed' if f == used else 'ignored'}: {f}" for f in files]
    assert [m.splitlines() for m in seen if "twice" in m] == [
        [
            "food-tasks: regional task twice is defined by 2 files; rename all but one",
            "(running it stops with an error until then):",
            *indexed,
        ]
    ]
    with pytest.raises(RunStopped) as err:
        manager.load_task_or_group(["twice"], task_type="simple")
    assert str(err.value).splitlines() == [
        "food-tasks: regional task twice: configuration error, the run stops before generation:",
        f"  YAML: {used}",
        "task: 'twice' is defined by 2 files; rename all but one:",
        *indexed,
        "Check the task with:",
        f"  food-tasks validate {used}",
    ]


def test_a_regional_yaml_whose_name_another_task_takes_is_named(tmp_path):

    from food_tasks.lmms import harness

    folder = _regional_copy(tmp_path, "mmmu_val")
    with _warnings() as seen:  # lmms-eval's index: its built-in task of that name wins
        index = {"mmmu_val": {"yaml_path": "/lmms_eval/tasks/mmmu/mmmu_val.yaml"}}
        assert harness.regional_clashes([str(folder)], index) == {}
    assert seen == [
        f"food-tasks: regional task mmmu_val is not indexed; rename it:\n  {folder / 'mmmu_val.yaml'}\n"
        "its name is taken by:\n  /lmms_eval/tasks/mmmu/mmmu_val.yaml"
    ]


def test_a_regional_yaml_hiding_a_packaged_task_is_named(tmp_path):
    # Our packaged tasks are indexed after the user's --include_path: a regional task of the same name wins.
    import lmms_eval.models  # noqa: F401
    from lmms_eval.tasks import TaskManager

    from food_tasks.tasks.catalogue import task_dir

    folder = _regional_copy(tmp_path, "fambench_task1_sample")
    with _warnings() as seen:
        manager = TaskManager(include_path=str(folder), include_defaults=False)
    from food_tasks.regional_tasks.config import shown

    ours = [
        p
        for p in sorted(task_dir().rglob("*.yaml"))
        if "task: fambench_task1_sample\n" in p.read_text(encoding="utf-8")
    ]
    theirs = folder / "fambench_task1_sample.yaml"
    assert len(ours) == 1 and manager.task_index["fambench_task1_sample"]["yaml_path"] == str(theirs)
    assert seen == [
        "food-tasks: regional task fambench_task1_sample hides the packaged task of that name; rename\n"
        f"  {theirs}\nthe packaged task:\n  {shown(ours[0])}"
    ]


def test_innermost_error_unwraps_retries_and_causes():
    import tenacity

    @tenacity.retry(stop=tenacity.stop_after_attempt(2), wait=tenacity.wait_none())
    def load():
        try:
            raise ValueError("JSON parse error in row 3")
        except ValueError as err:
            raise RuntimeError("An error occurred while generating the dataset") from err

    with pytest.raises(tenacity.RetryError) as err:
        load()
    assert regional_files.root_cause(err.value) == "ValueError: JSON parse error in row 3"


@pytest.mark.e2e
def test_cli_exits_1_with_our_message_last(tmp_path):
    """The real lmms-eval CLI: a wrong replay keys= (issue 19.3: exit status 0 before), then a regional task
    whose JSON Lines file has a broken line (named at once, not after five download retries)."""
    preds = tmp_path / "p.jsonl"
    preds.write_text('{"doc_id": 0, "response": "A"}\n', encoding="utf-8")
    folder = _regional_copy(tmp_path, "dishes_mcq")
    proc, results, _ = run_lmms_eval(
        [
            "--model",
            "food_tasks_replay",
            "--model_args",
            f"responses={preds},keys=nope",
            "--include_path",
            str(folder),
            "--tasks",
            "dishes_mcq",
        ],
        tmp_path / "out1",
    )
    assert proc.returncode == 1 and results is None, proc.stderr[-3000:]
    assert f"food_tasks_replay: responses file\n  {preds}\n  line 1 lacks 'nope', named by keys=nope.\n" in proc.stderr

    lines = (folder / "dishes.jsonl").read_text(encoding="utf-8").splitlines()
    lines[2] = lines[2].replace('"question": "', '"question": ', 1)  # row 3: an unquoted string
    (folder / "dishes.jsonl").write_text("\n".join(lines) + "\n", encoding="utf-8")
    proc, results, _ = run_lmms_eval(
        [
            "--model",
            "food_tasks_replay",
            "--model_args",
            f"responses={preds}",
            "--include_path",
            str(folder),
            "--tasks",
            "dishes_mcq",
        ],
        tmp_path / "out2",
    )
    assert proc.returncode == 1 and results is None, proc.stderr[-3000:]
    tail = proc.stderr.strip().splitlines()[-5:]
    yaml_path = "tasks/dishes_mcq.yaml"  # relative to the working directory of the run (tmp_path), as the data file
    assert tail[:2] == [
        "food-tasks: regional task dishes_mcq: data error, the run stops before generation:",
        f"  YAML: {yaml_path}",
    ]
    # the data file as resolved, relative to the working directory (the run's is tmp_path)
    assert tail[2].startswith("tasks/dishes.jsonl: line 3: not valid JSON: ")
    assert "RetryError" not in proc.stdout + proc.stderr
    assert json.loads(lines[0])  # the other lines are intact


def test_a_row_whose_answer_cannot_be_scored_stops_the_run_before_generation(tmp_path):
    # It used to stop the run in process_results, after every generation (and lmms-eval exited 0).
    import lmms_eval.models  # noqa: F401
    from lmms_eval.tasks import TaskManager

    folder = _regional_copy(tmp_path, "bad_answer")
    rows = [json.loads(line) for line in (folder / "dishes.jsonl").read_text(encoding="utf-8").splitlines()]
    rows[1]["answer"] = "E"
    (folder / "dishes.jsonl").write_text(
        "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows), encoding="utf-8"
    )
    manager = TaskManager(include_path=str(folder), include_defaults=False)
    with pytest.raises(RunStopped) as err:
        manager.load_task_or_group(["bad_answer"], task_type="simple")
    lines = str(err.value).splitlines()
    assert lines[:2] == [
        "food-tasks: regional task bad_answer: data error, the run stops before generation:",
        f"  YAML: {folder / 'bad_answer.yaml'}",
    ]
    # The problem line wraps at 120 columns where the temporary path puts it (longer under pytest-xdist: popen-gw0).
    assert lines[2].startswith(f"{folder / 'dishes.jsonl'}: row 2")
    assert (
        " ".join(lines[2:]).split()[:20]
        == (
            f"{folder / 'dishes.jsonl'}: row 2 (id sea-002), column 'answer': answer 'E' is neither a label (A/B/C/D) "
            "nor the text of one option"
        ).split()
    )  # wrapped at 120 columns
    assert max(map(len, lines)) <= 120


def test_a_run_lists_every_problem_validate_lists(tmp_path):
    # Issue 29.4: the run named only the first problem of the YAML, `food-tasks validate` all of them.
    import lmms_eval.models  # noqa: F401
    from lmms_eval.tasks import TaskManager

    from food_tasks.regional_tasks import check as regional_check

    def edit(text: str) -> str:
        text = text.replace("    slices: [region, language]", "    slice: region\n    promt: '{question}'")
        return text + "foo_bar: 1\ntraining_split: train\n"

    folder = _regional_copy(tmp_path, "many", edit=edit)
    yaml_path = folder / "many.yaml"
    checked = regional_check.check(yaml_path, check_images=False)
    assert len(checked.problems) == 3 and len(checked.warnings) == 1
    with _warnings() as seen:
        manager = TaskManager(include_path=str(folder), include_defaults=False)
        with pytest.raises(RunStopped) as err:
            manager.load_task_or_group(["many"], task_type="simple")
    lines = str(err.value).splitlines()
    assert lines[1] == f"  YAML: {yaml_path}" and lines[-2] == "Check the task with:"
    assert joined_entries(lines[2:-2]) == [p.removeprefix(f"{yaml_path}: ") for p in checked.problems]
    assert [m.splitlines()[1] for m in seen if "many" in m] == [
        "  " + w.removeprefix(f"{yaml_path}: ") for w in checked.warnings
    ]


def test_a_generation_kwargs_typo_is_a_warning(tmp_path):
    # Issue 29.4: `temprature: 0.5` went to the model without a word (validate said OK).
    import lmms_eval.models  # noqa: F401
    from lmms_eval.tasks import TaskManager

    folder = _regional_copy(tmp_path, "typo", edit=lambda t: t + "generation_kwargs:\n  temprature: 0.5\n")
    with _warnings() as seen:
        manager = TaskManager(include_path=str(folder), include_defaults=False)
        task = manager.load_task_or_group(["typo"], task_type="simple")
    assert task["typo"].config.generation_kwargs["temprature"] == 0.5  # a warning, not an error: the model gets it
    assert [m for m in seen if "temprature" in m] == [
        "food-tasks: regional task typo:\n"
        "  generation_kwargs.temprature: unknown to models, may be ignored (did you mean temperature?)\n"
        f"  YAML: {folder / 'typo.yaml'}"
    ]


@pytest.mark.e2e
def test_a_task_yaml_that_does_not_parse_stops_the_run_naming_it(tmp_path):
    """A YAML under --include_path that does not parse (an unescaped quote): lmms-eval's index raised, its CLI printed
    ``Error during evaluation`` and exited 0; the run now stops with exit status 1 naming the file and line. A broken
    sibling of the task asked for stops it too (lmms-eval indexes the whole folder)."""
    folder = _regional_copy(tmp_path, "dishes_mcq")
    (folder / "sibling.yaml").write_text(
        'task: sibling\nmetadata:\n  regional:\n    question: "an "unescaped" quote"\n', encoding="utf-8"
    )
    preds = tmp_path / "p.jsonl"
    preds.write_text('{"doc_id": 0, "response": "A"}\n', encoding="utf-8")
    proc, results, _ = run_lmms_eval(
        ["--model", "food_tasks_replay", "--model_args", f"responses={preds},default=A"]
        + ["--include_path", str(folder), "--tasks", "dishes_mcq"],
        tmp_path / "out",
    )
    assert proc.returncode == 1 and results is None, proc.stderr[-3000:]
    assert "a task YAML under --include_path cannot be read, the run stops before generation" in proc.stderr
    assert f'in "{folder / "sibling.yaml"}", line 4' in proc.stderr and "food-tasks validate" in proc.stderr
