"""Our messages fit in 120 columns with a long, realistic task path (issue 29.3, a newcomer's walkthrough).

A message we raise (printed by lmms-eval or argparse as it is) keeps every line within 120 columns; a message we log
through loguru (whose prefix takes about 75 columns) keeps every line of its own within 100, a path on a line of its
own. The tasks live under a 40-character folder, named relative to the working directory as a user names them.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from food_tasks.data.hub import RunStopped

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "regional"
DEEP = Path("my_tasks") / ("contributed_regional_tasks_southeast_asia"[:40])  # a 40-character folder
RAISED, LOGGED = 120, 100


@pytest.fixture
def deep(tmp_path, monkeypatch) -> Path:
    """The example's data under ``DEEP`` (relative: the working directory is ``tmp_path``), no YAML yet."""
    monkeypatch.chdir(tmp_path)
    shutil.copytree(EXAMPLE, DEEP, ignore=shutil.ignore_patterns("*.yaml", "*.py"))
    return DEEP


def _yaml(folder: Path, name: str, extra: str = "", edit=lambda text: text) -> Path:
    text = (EXAMPLE / "regional_example_mcq.yaml").read_text(encoding="utf-8")
    path = folder / f"{name}.yaml"
    path.write_text(edit(text.replace("task: regional_example_mcq", f"task: {name}")) + extra, encoding="utf-8")
    return path


def _load(folder: Path, name: str, level: str = "WARNING") -> tuple[str | None, list[str]]:
    """The run's error message (None when the task loads) and the messages logged at ``level`` or above."""
    import lmms_eval.models  # noqa: F401  (our entry point: the harness wraps, as in a CLI run)
    from lmms_eval.tasks import TaskManager
    from loguru import logger

    seen: list[str] = []
    sink = logger.add(lambda m: seen.append(m.record["message"]), level=level)
    try:
        manager = TaskManager(include_path=str(folder), include_defaults=False)
        try:
            manager.load_task_or_group([name], task_type="simple")
        except RunStopped as err:
            return str(err), seen
    finally:
        logger.remove(sink)
    return None, seen


def _widest(text: str) -> int:
    return max(map(len, text.splitlines()))


@pytest.mark.parametrize(
    ("extra", "edit", "what"),
    [
        ("metric_list:\n  - metric: acc_foo\n", lambda t: t, "configuration error"),
        ("", lambda t: t.replace("format: mcq", "format: quiz"), "configuration error"),
        ("", lambda t: t.replace("test: dishes.jsonl", "test: nowhere.jsonl"), "data error"),
    ],
)
def test_regional_run_errors_fit(deep, extra, edit, what):
    # The header was 133 columns and grew with the path: the path has a line of its own.
    _yaml(deep, "my_metric_task", extra, edit)
    message, _ = _load(deep, "my_metric_task")
    assert message is not None and message.splitlines()[:2] == [
        f"food-tasks: regional task my_metric_task: {what}, the run stops before generation:",
        f"  YAML: {DEEP / 'my_metric_task.yaml'}",
    ]
    assert _widest(message) <= RAISED, message


def test_a_duplicate_task_name_fits(deep):
    # Was 138 columns raised and 197 logged.
    _yaml(deep, "my_dup_task")
    (deep / "dup").mkdir()
    _yaml(deep / "dup", "my_dup_task")
    message, logged = _load(deep, "my_dup_task")
    assert message is not None and "is defined by 2 files" in message and _widest(message) <= RAISED, message
    (warning,) = [m for m in logged if "my_dup_task" in m]
    assert str(DEEP / "dup" / "my_dup_task.yaml") in warning and str(DEEP / "my_dup_task.yaml") in warning
    assert _widest(warning) <= LOGGED, warning


def test_a_warning_key_fits(deep):
    # Was 141 columns logged.
    _yaml(deep, "my_warned_task", "training_split: train\n")
    message, logged = _load(deep, "my_warned_task")
    assert message is None
    (warning,) = [m for m in logged if "training_split" in m]
    assert warning.splitlines()[-1] == f"  YAML: {DEEP / 'my_warned_task.yaml'}"
    assert _widest(warning) <= LOGGED, warning


def test_the_replay_model_hint_fits(tmp_path):
    # Was 155 columns logged.
    from loguru import logger

    from food_tasks.replay_model import ReplayModel

    preds = tmp_path / "p.jsonl"
    preds.write_text('{"doc_id": 0, "response": "A"}\n', encoding="utf-8")
    seen: list[str] = []
    sink = logger.add(lambda m: seen.append(m.record["message"]), level="INFO")
    try:
        ReplayModel(responses=str(preds))
    finally:
        logger.remove(sink)
    (hint,) = [m for m in seen if "model_name=<name>" in m]
    assert _widest(hint) <= LOGGED, hint


def test_prefetch_of_a_benchmark_without_files_fits(capsys):
    # argparse's `invalid choice` line was 131 columns.
    from food_tasks import cli

    with pytest.raises(SystemExit) as exit_:
        cli.main(["prefetch", "worldcuisines"])
    err = capsys.readouterr().err
    assert exit_.value.code == 2 and "'worldcuisines' is not one of fambench, diningbench, foodieqa" in err, err
    assert _widest(err) <= RAISED, err


# --- issue 44, newcomer item 4: the replay model's keys= error, the rescore lines, the unmatched count -------------

DEMO_RUN = Path("food_tasks_demo") / "food_tasks__tiny-qwen2-vl" / "20261128_212713_results.json"
DEMO_MODEL = "/root/.cache/food_tasks/tiny-qwen2-vl"


def test_the_replay_keys_error_fits(deep):
    # keys=qa_id on lines whose qa_id repeats across languages: was one line of 297 columns.
    from food_tasks.replay_model import load_responses

    preds = deep / "predictions_of_my_model_on_the_regional_tasks.jsonl"
    preds.write_text('{"qa_id": "1", "lang": "en", "response": "2"}\n{"qa_id": "1", "lang": "ja", "response": "3"}\n')
    with pytest.raises(ValueError) as err:
        load_responses(preds, ("qa_id",))
    message = str(err.value)
    assert message.splitlines()[:2] == ["food_tasks_replay: responses file", f"  {preds}"], message
    assert "line 2 repeats the key of line 1 (qa_id='1') with a different answer" in message
    assert _widest(message) <= RAISED, message


def test_the_replay_default_note_fits(tmp_path):
    # default= and keys that match no document: the note under the table named the file's first line in one line.
    from types import SimpleNamespace

    from food_tasks.lmms import results_table
    from food_tasks.replay_model import MODEL_ID, ReplayModel

    preds = tmp_path / "p.jsonl"
    preds.write_text('{"task": "t1", "qa_id": "7", "lang": "en", "response": "a long recorded answer of a model"}\n')
    model = ReplayModel(responses=str(preds), keys="qa_id+lang", default="")
    model.task_dict = {"t1": {"test": [{"qa_id": "400", "lang": "en"}, {"qa_id": "401", "lang": "en"}]}}
    model.generate_until([SimpleNamespace(args=("q", {}, None, i, "t1", "test")) for i in (0, 1)])
    note = results_table.RUN_NOTES.pop(MODEL_ID)
    assert "No document matched: keys=qa_id+lang is likely wrong" in " ".join(note.split()), note
    assert _widest(note) <= RAISED, note


def test_the_rescore_lines_fit(tmp_path, monkeypatch):
    # The demo's run re-scored from the clone root: the table's note was 123 columns, the summary's line 126.
    import json

    from food_tasks.lmms import results_table
    from food_tasks.replay_model import MODEL_ID, ReplayModel
    from food_tasks.runs import rescore

    preds = tmp_path / rescore.RESPONSES
    preds.write_text('{"task": "t1", "identity": {}, "response": "A"}\n')
    model = ReplayModel(responses=str(preds), keys="identity", rescore_of=str(DEMO_RUN))
    model.task_dict = {"t1": {"test": []}}
    monkeypatch.setattr(model, "_by_identity", lambda requests: [])
    model.generate_until([])
    note = results_table.RUN_NOTES.pop(MODEL_ID)
    assert str(DEMO_RUN) in note and "no model was run" in note and _widest(note) <= RAISED, note

    monkeypatch.chdir(tmp_path)
    source = tmp_path / DEMO_RUN
    source.parent.mkdir(parents=True)
    source.write_text(json.dumps({"results": {}, "configs": {}}))
    written = tmp_path / "food_tasks_demo_rescored" / DEMO_RUN.relative_to("food_tasks_demo")
    written.parent.mkdir(parents=True)
    written.write_text(json.dumps({"results": {}, rescore.PROVENANCE: {"source_model": DEMO_MODEL}}))
    text = rescore.summary(written.relative_to(tmp_path), DEMO_RUN)
    assert f"  a re-score of {DEMO_RUN}" in text.splitlines() and DEMO_MODEL in text
    assert _widest(text) <= RAISED, text


def test_the_unmatched_documents_say_how_many_of_how_many(tmp_path):
    # "unmatched documents (3 of 9)" read as if only 3 were unmatched: 9 are, 3 are shown.
    from types import SimpleNamespace

    from food_tasks.data.hub import RunStopped
    from food_tasks.replay_model import ReplayModel

    preds = tmp_path / "p.jsonl"
    preds.write_text('{"qa_id": "70", "response": "A"}\n')
    model = ReplayModel(responses=str(preds), keys="qa_id")
    model.task_dict = {"t1": {"test": [{"qa_id": str(i)} for i in range(9)]}}
    with pytest.raises(RunStopped) as err:
        model.generate_until([SimpleNamespace(args=("q", {}, None, i, "t1", "test")) for i in range(9)])
    assert "  9 unmatched document(s), the first 3:" in str(err.value).splitlines(), str(err.value)
