"""End to end through the real lmms-eval CLI, offline: scripted answers with known scores, a tiny
random Qwen2-VL through lmms-eval's own HF backend, and clear failures for missing data.

lmms-eval exits 0 even when a task is missing or crashed: every test reads the results files.
"""

from __future__ import annotations

import json

import pytest
from conftest import run_lmms_eval, wc_rows

pytestmark = pytest.mark.e2e

# Scripted answers for subtask 1a (qa 400: gold 1 "Serabi"; qa 401: gold 3 "Kenchin-jiru").
MCQ_1A = {
    ("400", "en"): "1",
    ("401", "en"): "The answer is 3",
    ("400", "zh_cn"): "煎饼",  # option text: robust reads it, the official scorer cannot
    ("401", "zh_cn"): "3",
    ("400", "nan"): "",  # invalid
    ("401", "nan"): "(1,2,3,4,5) 3",  # echo: officially 1
}
OEQ_1A = {
    ("400", "en"): "It is serabi.",
    ("401", "en"): "<think>Kenchin-jiru?</think>miso soup",
    ("400", "zh_cn"): "Serabi",
    ("401", "zh_cn"): "建长汁",
    ("400", "nan"): "",
    ("401", "nan"): "a glass of water",
}
WRONG = {1: "2", 2: "3", 3: "4", 4: "5", 5: "4"}


def _responses(tmp_path):
    lines = []
    for row in wc_rows("large"):
        key, pt = (row["qa_id"], row["lang"]), row["prompt_type"]
        sub = {"1": "1a_nocontext", "3": "1b_contextualized", "4": "1c_adversarial", "2": "2_location"}[pt]
        gold = row["multi_choice_answer"]
        mcq = MCQ_1A[key] if pt == "1" else (WRONG[gold] if pt == "4" else str(gold))
        oeq = OEQ_1A[key] if pt == "1" else row["answer"]
        lines.append({"task": f"worldcuisines_mcq_{sub}", "qa_id": row["qa_id"], "lang": row["lang"], "response": mcq})
        lines.append({"task": f"worldcuisines_oeq_{sub}", "qa_id": row["qa_id"], "lang": row["lang"], "response": oeq})
    path = tmp_path / "responses.jsonl"
    path.write_text("\n".join(json.dumps(x, ensure_ascii=False) for x in lines) + "\n", encoding="utf-8")
    return path


def test_scripted_answers_give_hand_computed_scores(tmp_path, wc_root, tiny_bert):
    proc, results, samples = run_lmms_eval(
        [
            "--model",
            "food_tasks_replay",
            "--model_args",
            f"responses={_responses(tmp_path)},keys=qa_id+lang",
            "--tasks",
            "worldcuisines_mcq,worldcuisines_oeq",
        ],
        tmp_path / "out",
        env={
            "FOOD_TASKS_DATA_DIR": str(wc_root),
            "FOOD_TASKS_BERTSCORE_MODEL": str(tiny_bert),
            "FOOD_TASKS_BERTSCORE_LAYERS": "2",
        },
    )
    assert results is not None, proc.stdout[-3000:] + proc.stderr[-3000:]
    r, g = results["results"], results["groups"]
    mcq_1a = r["worldcuisines_mcq_1a_nocontext"]
    # robust: en 2/2, zh_cn 2/2, nan 1/2 -> (100+100+50)/3; official: en 2/2, zh_cn 1/2, nan 0/2 -> 50.0
    assert mcq_1a["acc,none"] == pytest.approx(250 / 3)
    assert mcq_1a["acc_official,none"] == 50.0
    assert mcq_1a["invalid_rate,none"] == pytest.approx(100 / 6)
    assert mcq_1a["per_language,none"]["nan"] == {"n": 2, "acc": 50.0, "acc_official": 0.0, "invalid_rate": 50.0}
    # position bias for free: the 5 readable answers chose ids 1, 3, 1, 3, 3, exactly where their golds are -> p = 1
    assert mcq_1a["position_bias,none"] == {
        "1": {"chosen": 2, "gold": 2, "chosen_share": 40.0, "gold_share": 40.0},
        "3": {"chosen": 3, "gold": 3, "chosen_share": 60.0, "gold_share": 60.0},
    }
    assert mcq_1a["position_bias_p,none"] == pytest.approx(1.0)
    assert r["worldcuisines_mcq_1c_adversarial"]["acc,none"] == 0.0
    # group = unweighted mean of subtasks: (83.33.. + 100 + 0 + 100) / 4; official (50 + 100 + 0 + 100) / 4
    assert g["worldcuisines_mcq"]["acc,none"] == pytest.approx((250 / 3 + 200) / 4)
    assert g["worldcuisines_mcq"]["acc_official,none"] == 62.5

    oeq_1a = r["worldcuisines_oeq_1a_nocontext"]
    # robust multi: en 1/2 (reasoning stripped), zh_cn 2/2, nan 0/2 -> 50; single: en 1/2, zh_cn 1/2 -> 33.33..
    assert oeq_1a["acc_multi,none"] == pytest.approx(50.0)
    assert oeq_1a["acc_single,none"] == pytest.approx(100 / 3)
    assert oeq_1a["acc_dual,none"] == pytest.approx(50.0)
    # official: the name inside <think> counts -> en 2/2: multi (100+100+0)/3 = 66.67, single (100+50+0)/3 = 50.0
    assert oeq_1a["acc_multi_official,none"] == 66.67
    assert oeq_1a["acc_single_official,none"] == 50.0
    assert oeq_1a["acc_dual_official,none"] == 66.67
    # identical prediction and reference -> BERTScore F1 = 1 for every 1b row
    assert r["worldcuisines_oeq_1b_contextualized"]["bertscore_f1,none"] == pytest.approx(100.0, abs=1e-3)
    assert g["worldcuisines_oeq"]["acc_multi,none"] == pytest.approx(87.5)
    assert g["worldcuisines_oeq"]["acc_multi_official,none"] == 91.67  # round((66.67 + 300) / 4, 2)

    # Consistency (README "Beyond accuracy"). MCQ 1a: qa 400 right in en and zh_cn, unparsed in nan; qa 401 right
    # (option 3) in all three: all correct 1/2, same option everywhere 1/2; gap to en: zh_cn 0, nan (0 - 1 + 0) / 2.
    assert mcq_1a["xling_all_correct,none"] == pytest.approx(50.0) and mcq_1a["xling_all_correct_n,none"] == 2
    assert mcq_1a["xling_agreement,none"] == pytest.approx(50.0)
    assert isinstance(mcq_1a["xling_all_correct_stderr,none"], float)
    gaps = mcq_1a["xling_gap_to_en,none"]
    assert gaps["zh_cn"]["value"] == 0.0 and gaps["nan"]["value"] == pytest.approx(-50.0) and gaps["nan"]["n"] == 2
    # zh_cn rows translate one option (partly), Hokkien rows keep the English options.
    status = mcq_1a["xling_by_lang_status,none"]
    assert status["mixed/partly"]["value"] == 0.0 and status["mixed/english"]["value"] == pytest.approx(-50.0)
    assert r["worldcuisines_mcq_1c_adversarial"]["xling_agreement,none"] == 100.0  # the same wrong option everywhere
    assert r["worldcuisines_mcq_1c_adversarial"]["xling_all_correct,none"] == 0.0
    # Context, paired by dish and language: dish 1614 is right in 1a in all 3 languages and wrong in 1c (misled 3/3);
    # dish 422 is wrong in 1a only in nan and right in 1b (hint gain 1/1). One dish each: no standard error.
    assert g["worldcuisines_mcq"]["misled_rate,none"] == 100.0 and g["worldcuisines_mcq"]["misled_rate_n,none"] == 3
    assert g["worldcuisines_mcq"]["misled_rate_clusters,none"] == 1
    assert g["worldcuisines_mcq"]["misled_rate_stderr,none"] == "N/A"
    assert g["worldcuisines_mcq"]["hint_gain,none"] == 100.0 and g["worldcuisines_mcq"]["hint_gain_n,none"] == 1
    assert g["worldcuisines_mcq"]["misled_rate_same_image,none"] == 100.0  # one image per dish in the fixture
    # OEQ (1b and 1c answered with the gold name): 1614 is right in 1a only in zh_cn, kept in 1c; 422 wrong in nan.
    assert g["worldcuisines_oeq"]["misled_rate,none"] == 0.0 and g["worldcuisines_oeq"]["misled_rate_n,none"] == 1
    assert g["worldcuisines_oeq"]["hint_gain,none"] == 100.0
    assert oeq_1a["xling_all_correct,none"] == 0.0 and "xling_agreement,none" not in oeq_1a

    logged = {(s["acc"]["qa_id"], s["acc"]["lang"]): s for s in samples["worldcuisines_mcq_1a_nocontext"]}
    assert (
        logged[("400", "zh_cn")]["acc"]["parsed"] == 1 and logged[("400", "zh_cn")]["acc"]["correct_official"] is False
    )
    assert len(samples["worldcuisines_oeq_2_location"]) == 6


def test_missing_data_fails_loudly_and_names_the_path(tmp_path):
    proc, results, _ = run_lmms_eval(
        ["--model", "dummy", "--tasks", "worldcuisines_mcq_2_location"],
        tmp_path / "out",
        env={"FOOD_TASKS_DATA_DIR": str(tmp_path / "empty")},
        as_user=True,  # the real console script's exit status, in a process exactly as a user's (no test speedups)
    )
    assert results is None or "worldcuisines_mcq_2_location" not in results.get("results", {})
    # our message is the last line of stderr, lmms-eval exits 1 and did not retry
    assert proc.returncode == 1, proc.stderr[-3000:]
    last = proc.stderr.strip().splitlines()[-1]
    assert (
        f"{tmp_path / 'empty' / 'worldcuisines' / 'vqa'} does not exist" in last
        and "`hf download worldcuisines/vqa" in last
    )
    assert "RetryError" not in proc.stdout + proc.stderr


def test_tiny_qwen2_vl_through_lmms_eval_hf_backend(tmp_path, tiny_qwen2_vl):
    """`food-tasks demo` (the console script, in a process with nothing of tests/ on its path): packaged sample tasks,
    images through lmms-eval's qwen2_vl backend on CPU (the tiny model of the session's cache, where the demo looks
    for it).

    The WorldCuisines MCQ and FAM-Bench sample tasks only (44 generations): the whole demo (every benchmark's sample
    tasks) is the README's first command, which CI runs just before the tests; the OEQ group's headline row
    (``acc_multi``) is tested on the packaged sample run (tests/core/test_results_table.py)."""
    import shlex
    import subprocess
    import sys
    from pathlib import Path

    script = Path(sys.executable).with_name("food-tasks")
    command = [str(script)] if script.is_file() else [sys.executable, "-m", "food_tasks.cli"]
    tasks = "worldcuisines_mcq_sample,fambench_task1_sample,fambench_task2_ctc_sample"
    import os

    import sandbox

    # As a user's shell runs it: nothing of tests/ on the path (no test speedups; lmms-eval's own task index built
    # afresh), the session's sandboxed home and caches (the tiny model where the demo looks for it).
    proc = subprocess.run(
        [*command, "demo", "--tasks", tasks],
        capture_output=True,
        text=True,
        timeout=900,
        cwd=tmp_path,
        env=sandbox.as_user(dict(os.environ)),
    )
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    out = tmp_path / "food_tasks_demo"  # the default --output_path, in the current directory (issue 19.4)
    results_file = next(out.rglob("*_results.json"))
    results = json.loads(results_file.read_text())
    # What the demo prints: its command first (before any progress bar; wrapped shell-style with ` \` line
    # continuations), and last where the results are and what to do next with them and with a real model.
    lines = proc.stdout.splitlines()
    end = next(i for i, line in enumerate(lines) if not line.endswith("\\"))
    # What a shell reads: a backslash-newline pair is removed (the demo never cuts inside quotes).
    echoed = shlex.split("\n".join(lines[: end + 1]).removeprefix("$ ").replace("\\\n", ""))
    # The console script's interpreter is the venv's `python3`, pytest's may be `python`: the same file.
    assert Path(echoed[0]).resolve() == Path(sys.executable).resolve(), lines[: end + 1]
    assert echoed[1:6] == ["-m", "lmms_eval", "--model", "qwen2_vl", "--model_args"], echoed
    assert echoed[6].startswith(f"pretrained={tiny_qwen2_vl},") and echoed[echoed.index("--tasks") + 1] == tasks
    # The epilogue: from its OK line to the end (a venv that is not on PATH adds lines saying where the commands are).
    ok = next(i for i, line in enumerate(lines) if line.startswith("food-tasks demo: OK."))
    tail = "\n".join(lines[ok:])
    flat = " ".join(tail.replace("\\\n", "").split())  # wrapped prose and commands, read as one line
    shown = str(results_file.relative_to(tmp_path))
    assert f"Results: {shown} (samples beside it;" in flat and f" food-tasks report {shown} " in flat
    assert "\n  lmms-eval --model qwen2_vl " in tail
    assert (
        "lmms-eval --model qwen2_vl --model_args pretrained=Qwen/Qwen2-VL-2B-Instruct "
        "--tasks worldcuisines_mcq_sample," in flat
    )
    assert max(len(line) for line in lines[: end + 1] + lines[ok:]) <= 120  # the demo's own lines (issue 29.1)
    # The table lmms-eval printed (headline mode): the group once, under its declared headline (acc: the first of
    # its aggregate_metric_list, whatever lmms-eval's order), the note once.
    from food_tasks.lmms.results_table import HEADLINE_NOTE

    rows = [[c.strip() for c in line.split("|")[1:-1]] for line in lines if line.startswith("|WorldCuisines")]
    assert sorted((r[0], r[3]) for r in rows) == [("WorldCuisines MCQ (sample)", "acc")], rows
    assert proc.stdout.count(HEADLINE_NOTE) == 1
    assert "groups and headline metrics" in flat
    for sub in ("1a_nocontext", "1b_contextualized", "1c_adversarial", "2_location"):
        assert f"worldcuisines_mcq_sample_{sub}" in results["results"]
    assert results["results"]["fambench_task1_sample"]["image_missing,none"] == 0
    assert results["results"]["fambench_task2_ctc_sample"]["image_missing,none"] == 0
    samples = [
        json.loads(line)
        for p in out.rglob("*_samples_*.jsonl")
        if "_samples_worldcuisines" in p.name or "_samples_fambench" in p.name
        for line in p.read_text().splitlines()
        if line
    ]
    assert (
        len(samples) == 36 + 4 + 4
    )  # WorldCuisines: 9 docs x 4 tasks; FAM-Bench: 4 Task 1 rows, 2 questions x 2 prompts
    assert all(s["filtered_resps"].strip() for s in samples)  # the model generated text for every document
    assert all(s["input_media"] for s in samples)  # every request carried its image(s)
    fam = [
        s for p in out.rglob("*fambench_task2_ctc_sample*.jsonl") for s in map(json.loads, p.read_text().splitlines())
    ]
    assert all(len(s["input_media"]) == 4 for s in fam)  # four option images per Task 2 prompt
