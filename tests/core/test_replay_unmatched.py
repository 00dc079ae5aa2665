"""Issue 33.3 and 33.6: a replayed document without a line stops the run unless ``default=`` is given (then the
count is said under the printed table), and an undefined metric is ``null`` in the files and ``[undefined]`` in the
table (lmms-eval wrote a bare ``NaN``, which strict JSON parsers refuse, and printed ``NaN``)."""

from __future__ import annotations

import json
import math
from pathlib import Path
from types import SimpleNamespace

import numpy as np
import pytest
from conftest import run_lmms_eval

from food_tasks.data.hub import RunStopped
from food_tasks.lmms import results_table

DOCS = {
    "t1": {"test": [{"qa_id": "400", "lang": "en"}, {"qa_id": "401", "lang": "en"}, {"qa_id": "402", "lang": "en"}]}
}


def _model(tmp_path: Path, lines: list[dict], **args):
    from food_tasks.replay_model import ReplayModel

    preds = tmp_path / "preds.jsonl"
    preds.write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")
    model = ReplayModel(responses=str(preds), **args)
    model.task_dict = DOCS
    return model, preds


def _requests(seen: list) -> list:
    """One request per document of t1, each asked twice (lmms-eval repeats and pads requests)."""
    visual = seen.append  # doc_to_visual: records each document whose images were asked for
    return [SimpleNamespace(args=("q", {}, visual, i, "t1", "test")) for i in (0, 1, 2, 2)]


def _strict(text: str):
    def refuse(constant: str):
        raise ValueError(f"not strict JSON: {constant}")

    return json.loads(text, parse_constant=refuse)


def test_a_document_without_a_line_stops_the_run_before_any_answer(tmp_path):
    # keys=task+doc_id: a misreading of the docs (the documents have no 'task' field); every document unmatched.
    lines = [{"task": "t1", "doc_id": i, "response": "1"} for i in range(3)]
    model, preds = _model(tmp_path, lines, keys="task+doc_id", load_images="true")
    seen: list = []
    with pytest.raises(RunStopped) as err:
        model.generate_until(_requests(seen))
    assert seen == []  # nothing answered (no image asked for) before the check of every request
    message = str(err.value)
    assert message.startswith("food-tasks: replay model error, the run stops before generation:\n")
    assert message.splitlines()[1:3] == [
        "food_tasks_replay: no line for 3 document(s) with keys=task+doc_id in",
        f"  {preds}",
    ]
    assert "    task t1, document 0: task=<no such field>, doc_id='0'" in message
    assert "    task t1, document 2: task=<no such field>, doc_id='2'" in message  # documents, not requests
    assert "  the file's first line: task='t1', doc_id=0, response='1'" in message
    assert "  the documents of t1 have no field 'task'; their fields: qa_id, lang" in message
    assert "add default=<answer> to --model_args" in " ".join(message.split())
    assert max(map(len, message.splitlines())) <= 120, message


def test_some_documents_without_a_line_stop_the_run_with_the_count(tmp_path):
    lines = [{"qa_id": "400", "lang": "en", "response": "2"}]
    model, _ = _model(tmp_path, lines, keys="qa_id+lang")
    with pytest.raises(RunStopped) as err:
        model.generate_until(_requests([]))
    message = str(err.value)
    assert "no line for 2 document(s) with keys=qa_id+lang" in message
    assert "2 unmatched document(s), the first 2:" in message
    assert "    task t1, document 1: qa_id='401', lang='en'" in message
    assert "document 0" not in message


def test_with_a_default_a_replay_that_matches_no_document_says_keys_is_likely_wrong(tmp_path):
    # a newcomer's keys=task+doc_id with default=A: every document answered A, exit 0, "9 document(s) had no line"
    lines = [{"qa_id": "999", "lang": "en", "response": "2"}]
    model, _ = _model(tmp_path, lines, keys="qa_id+lang", default="A")
    assert model.generate_until(_requests([])) == ["A", "A", "A", "A"]
    note = " ".join(results_table.RUN_NOTES["food_tasks_replay"].split())  # wrapped at 120 columns
    assert note.startswith("food_tasks_replay: 3 of 3 document(s) had no line in preds.jsonl (keys=qa_id+lang)")
    assert note.endswith(
        "No document matched: keys=qa_id+lang is likely wrong (the file's first line: "
        "qa_id='999', lang='en', response='2')."
    )


def test_with_a_default_the_unmatched_documents_are_answered_and_counted_once_under_the_table(tmp_path):
    lines = [{"qa_id": "400", "lang": "en", "response": "2"}]
    model, preds = _model(tmp_path, lines, keys="qa_id+lang", default="")
    assert model.generate_until(_requests([])) == ["2", "", "", ""]
    assert model.missing == 2
    note = "food_tasks_replay: 2 of 3 document(s) had no line in preds.jsonl (keys=qa_id+lang); each was answered "
    full = results_table.RUN_NOTES["food_tasks_replay"]  # wrapped at 120 columns
    assert " ".join(full.split()) == note + "default='' and scored."
    note = full
    import lmms_eval.utils

    make_table = getattr(lmms_eval.utils.make_table, "__wrapped__", lmms_eval.utils.make_table)
    results = {
        "results": {"t1": {"alias": "t1", "acc,none": 1.0}},
        "groups": {"g": {"alias": "g", "acc,none": 1.0}},
        "n-shot": {},
    }
    shown = [results_table.render(make_table, results, c, False, {"t1", "g"}) for c in ("results", "groups")]
    assert note not in shown[0] and shown[1].count(note) == 1  # once, under the last table
    # A new model (the next run in this process) starts without the note.
    _model(tmp_path, lines, keys="qa_id+lang", default="")
    assert "food_tasks_replay" not in results_table.RUN_NOTES


def test_every_document_with_a_line_needs_no_default(tmp_path):
    lines = [{"qa_id": str(q), "lang": "en", "response": str(q - 399)} for q in (400, 401, 402)]
    model, _ = _model(tmp_path, lines, keys="qa_id+lang")
    assert model.generate_until(_requests([])) == ["1", "2", "3", "3"]
    assert model.missing == 0 and "food_tasks_replay" not in results_table.RUN_NOTES


def test_an_undefined_metric_is_undefined_in_the_table_and_null_in_json():
    from food_tasks.lmms.harness import strict_json

    assert results_table.note(None) == "[undefined]" and results_table.note(math.nan) == "[undefined]"
    assert results_table.note(np.float64("nan")) == "[undefined]" and results_table.note(0.0) == 0.0
    tree = {"a": [math.nan, 1.5, (np.float32("nan"), 2)], "b": {"c": math.inf, "d": "NaN"}}
    assert strict_json(tree) is tree and tree == {"a": [None, 1.5, (None, 2)], "b": {"c": None, "d": "NaN"}}
    assert _strict(json.dumps(tree)) == {"a": [None, 1.5, [None, 2]], "b": {"c": None, "d": "NaN"}}


@pytest.mark.e2e
def test_a_sample_run_writes_strict_json_and_prints_undefined(tmp_path):
    """FAM-Bench's CTC sample task: no question is answerable from these outputs, so ctc is undefined (it was a
    bare NaN in the results JSON and 'NaN' in the table)."""
    preds = tmp_path / "r.jsonl"
    preds.write_text("".join(json.dumps({"doc_id": i, "response": "1"}) + "\n" for i in range(50)), encoding="utf-8")
    args = ["--model", "food_tasks_replay", "--model_args", f"responses={preds}", "--tasks"]
    proc, results, _ = run_lmms_eval([*args, "fambench_task2_ctc_sample"], tmp_path / "out")
    assert results is not None, proc.stdout[-2000:] + proc.stderr[-2000:]
    files = sorted((tmp_path / "out").rglob("*.json*"))
    assert len(files) == 2  # results and samples
    for path in files:
        text = path.read_text(encoding="utf-8")
        for line in [text] if path.suffix == ".json" else text.splitlines():
            _strict(line)
    row = results["results"]["fambench_task2_ctc_sample"]
    assert row["ctc,none"] is None and row["ctc_official_parsers,none"] is None and row["ctc_n,none"] == 0
    ctc = [line for line in proc.stdout.splitlines() if line.startswith("|") and "|ctc " in line]
    assert len(ctc) == 1 and "[undefined]" in ctc[0] and "NaN" not in proc.stdout, ctc

    # The same run with a predictions file that lacks documents: exit status 1, no results, our message last.
    preds.write_text(json.dumps({"doc_id": 0, "response": "1"}) + "\n", encoding="utf-8")
    proc, results, _ = run_lmms_eval([*args, "fambench_task2_ctc_sample"], tmp_path / "out2")
    assert proc.returncode == 1 and results is None, proc.stdout[-2000:] + proc.stderr[-2000:]
    assert "Name in keys= the fields that identify a document" in proc.stderr


def test_compare_reads_a_null_metric_as_undefined_not_as_missing(tmp_path):
    from food_tasks.compare.table import value_text
    from food_tasks.runs import load_run

    (tmp_path / "x_results.json").write_text(json.dumps({"results": {"t": {"ctc,none": None, "acc,none": 50.0}}}))
    run = load_run(tmp_path)
    # undefined, the word of the report and of the printed table ([undefined]); compare printed "nan"
    assert math.isnan(run.reported("t", "ctc")) and value_text(run.reported("t", "ctc")) == "undefined"
    assert value_text("absent: no CLIP model given") == "absent" and value_text(None) == ""
    assert run.reported("t", "acc") == 50.0 and run.reported("t", "mrr") is None  # a metric the run lacks


def test_a_non_finite_official_nutrition_value_read_back_from_a_samples_file_is_still_undefined():
    """DiningBench's official parser accepts NaN and 1e400 in a model's JSON (the official MAE goes non-finite). The
    samples file now holds them as null; a comparison or a --baseline that re-reads the records must not crash on it
    (``None - gold`` was a TypeError) and must give the same non-finite value."""
    from food_tasks.benchmarks.diningbench import scoring
    from food_tasks.lmms.harness import strict_json
    from food_tasks.utils.diningbench import TABLES

    gold = {"calories": 100, "protein": 10, "carbohydrates": 10, "fat": 10}
    doc = {
        "idx": 0,
        "id": "0",
        "prompt": "",
        "gold_json": json.dumps(gold),
        "model_name": "",
        "cot": False,
        "images": [],
    }
    for out in (
        '{"calories": NaN, "protein": 10, "carbohydrates": 10, "fat": 10}',
        '{"calories": 1e400, "protein": 10, "carbohydrates": 10, "fat": 10}',
    ):
        records = [scoring.score_nutrition(doc, out), scoring.score_nutrition(doc, '{"calories": 90}')]
        read_back = _strict(json.dumps(strict_json(records)))  # as a samples file is written and read
        for name in ("calories_mae_official", "calories_mape_official", "avg_mae_official"):
            metric = TABLES["nutrition"][name]
            assert not math.isfinite(metric.reduce(read_back)), (out, name)
            assert not math.isfinite(float(metric.estimator.combine(metric.estimator.rows(read_back).sum(0))))
