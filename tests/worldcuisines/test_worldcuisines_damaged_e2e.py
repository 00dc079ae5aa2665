"""Damaged WorldCuisines data through the real lmms-eval CLI: a missing language file stops the run
before generation with our message as the last line of stderr (exit status 1, no retry); a corrupt
image is counted in the results file as image_missing and the run completes."""

from __future__ import annotations

import json

import pytest
from conftest import WC_TASK1, build_all_languages_mirror, build_wc_mirror, corrupt_wc_kb, run_lmms_eval, wc_rows

pytestmark = pytest.mark.e2e


def test_missing_language_file_stops_the_run_with_our_message_last(tmp_path, monkeypatch):
    monkeypatch.delenv("FOOD_TASKS_WORLDCUISINES_LANGS")
    root = build_all_languages_mirror(tmp_path / "mirror")
    missing = root / WC_TASK1 / "si_formal_spoken_large_eval_task1.jsonl"
    missing.unlink()
    proc, results, _ = run_lmms_eval(
        ["--model", "dummy", "--tasks", "worldcuisines_mcq_2_location,worldcuisines_mcq_1a_nocontext"],
        tmp_path / "out",
        env={"FOOD_TASKS_DATA_DIR": str(root)},
    )
    lines = [line for line in proc.stderr.splitlines() if line.strip()]
    assert proc.returncode == 1, proc.stderr[-3000:]
    assert results is None  # stopped before generation: nothing scored on 29 languages
    assert lines[-2] == "food-tasks: data error, the run stops before generation:"
    assert str(missing) in lines[-1] and "1 of the 30 expected language files" in lines[-1]
    output = proc.stdout + proc.stderr
    assert "RetryError" not in output and "Error during evaluation" not in output and output.count(str(missing)) == 1


def test_corrupt_image_is_counted_in_the_results(tmp_path):
    root = build_wc_mirror(tmp_path / "mirror")
    corrupt_wc_kb(root)  # dish 949: qa 402 of subtask 1b
    lines = []
    for row in wc_rows("large"):
        if row["prompt_type"] == "3":
            # qa 402 (missing image) answered right, qa 403 wrong: only qa 403 counts
            answer = str(row["multi_choice_answer"]) if row["qa_id"] == "402" else "5"
            lines.append(
                {
                    "task": "worldcuisines_mcq_1b_contextualized",
                    "qa_id": row["qa_id"],
                    "lang": row["lang"],
                    "response": answer,
                }
            )
            lines.append(
                {
                    "task": "worldcuisines_oeq_1b_contextualized",
                    "qa_id": row["qa_id"],
                    "lang": row["lang"],
                    "response": row["answer"] if row["qa_id"] == "402" else "no idea",
                }
            )
    responses = tmp_path / "responses.jsonl"
    responses.write_text("\n".join(json.dumps(x, ensure_ascii=False) for x in lines) + "\n", encoding="utf-8")
    proc, results, samples = run_lmms_eval(
        [
            "--model",
            "food_tasks_replay",
            "--model_args",
            f"responses={responses},keys=qa_id+lang",
            "--tasks",
            "worldcuisines_mcq_1b_contextualized,worldcuisines_oeq_1b_contextualized",
        ],
        tmp_path / "out",
        env={"FOOD_TASKS_DATA_DIR": str(root), "FOOD_TASKS_BERTSCORE": "0"},
    )
    assert results is not None, proc.stdout[-3000:] + proc.stderr[-3000:]
    mcq, oeq = (
        results["results"]["worldcuisines_mcq_1b_contextualized"],
        results["results"]["worldcuisines_oeq_1b_contextualized"],
    )
    assert mcq["image_missing,none"] == 3 and oeq["image_missing,none"] == 3
    assert mcq["acc,none"] == 0.0 and mcq["acc_official,none"] == 0.0 and oeq["acc_multi,none"] == 0.0
    assert mcq["per_language,none"]["en"]["n"] == 1
    assert len(samples["worldcuisines_mcq_1b_contextualized"]) == 6  # every document was still generated and logged


def test_lone_surrogate_output_keeps_the_bertscore_of_the_task(tmp_path, wc_root, tiny_bert):
    lines = [
        {
            "task": "worldcuisines_oeq_2_location",
            "qa_id": r["qa_id"],
            "lang": r["lang"],
            "response": "Indonesia \ud800 x" if (r["qa_id"], r["lang"]) == ("1900", "en") else r["answer"],
        }
        for r in wc_rows("large")
        if r["prompt_type"] == "2"
    ]
    responses = tmp_path / "responses.jsonl"
    responses.write_text("\n".join(json.dumps(x) for x in lines) + "\n", encoding="utf-8")  # "\ud800" escaped in JSON
    proc, results, _ = run_lmms_eval(
        [
            "--model",
            "food_tasks_replay",
            "--model_args",
            f"responses={responses},keys=qa_id+lang",
            "--tasks",
            "worldcuisines_oeq_2_location",
        ],
        tmp_path / "out",
        env={
            "FOOD_TASKS_DATA_DIR": str(wc_root),
            "FOOD_TASKS_BERTSCORE_MODEL": str(tiny_bert),
            "FOOD_TASKS_BERTSCORE_LAYERS": "2",
        },
    )
    assert results is not None, proc.stderr[-3000:]
    f1 = results["results"]["worldcuisines_oeq_2_location"]["bertscore_f1,none"]
    assert isinstance(f1, float) and 0 < f1 <= 100.0 + 1e-3  # a number, not NaN: the other 5 rows are identical pairs


def test_image_cut_short_is_found_when_the_model_asks_and_counted_at_scoring(tmp_path):
    """A food-kb image whose header is intact but whose body is cut short passes the header check; only the
    decode the model's request needs finds it (lmms-eval's lenient Pillow setting would grey-fill it). The record
    made in doc_to_visual reaches process_results in the same process: the documents are counted."""
    from conftest import truncated_jpeg, wc_kb

    from food_tasks.benchmarks.worldcuisines import layout as wc_layout

    root = build_wc_mirror(tmp_path / "mirror")
    wc_layout.write_wc_kb(
        root,
        [
            dict(d, images=[(url, truncated_jpeg())]) if d["food_id"] == "949" else d
            for d in wc_kb()
            for url, _ in d["images"]
        ],
    )  # qa 402 of subtask 1b
    lines = [
        {
            "qa_id": r["qa_id"],
            "lang": r["lang"],
            "response": str(r["multi_choice_answer"]) if r["qa_id"] == "402" else "5",
        }
        for r in wc_rows("large")
        if r["prompt_type"] == "3"
    ]
    responses = tmp_path / "responses.jsonl"
    responses.write_text("\n".join(json.dumps(x) for x in lines) + "\n", encoding="utf-8")
    args = [
        "--model",
        "food_tasks_replay",
        "--model_args",
        f"responses={responses},keys=qa_id+lang,load_images=true",
        "--tasks",
        "worldcuisines_mcq_1b_contextualized",
    ]
    proc, results, samples = run_lmms_eval(args, tmp_path / "out", env={"FOOD_TASKS_DATA_DIR": str(root)})
    assert results is not None, proc.stdout[-3000:] + proc.stderr[-3000:]
    mcq = results["results"]["worldcuisines_mcq_1b_contextualized"]
    assert len(samples["worldcuisines_mcq_1b_contextualized"]) == 6
    assert mcq["image_missing,none"] == 3 and mcq["acc,none"] == 0.0  # qa 402 (answered right) left out in 3 languages
