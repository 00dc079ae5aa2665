"""FoodieQA end to end through the real lmms-eval CLI, offline, on a mirror holding the published zip:
scripted answers with hand-computed template and group numbers, and the gated-data failure.

lmms-eval exits 0 even when a task crashed: every test reads the results files.
"""

from __future__ import annotations

import json
import math

import pytest
from conftest import run_lmms_eval
from foodieqa_fixture import build, tables

from food_tasks import report
from food_tasks.runs import load_run
from food_tasks.runs import paired as compare

pytestmark = pytest.mark.e2e

# mivqa golds (file order): 1, 3, 0, 2
MIVQA_ZH = {
    0: ["Answer: B", "A", "B", "A"],  # robust 1/4; official reads "Answer" as A -> 0/4
    1: ["B", "D", "C", "A"],  # 2/4 both ways
    2: ["B", "D", "A", "图B"],  # 3/4 both ways
    3: ["B", "D", "xyz", ""],  # robust 2/4 (2 invalid); official: 2 fallbacks draw '0', '0' -> doc 2 right -> 3/4
}


def _responses(tmp_path):
    qids = [r["question_id"] for r in tables()["mivqa"]]
    lines = [
        {"task": f"foodieqa_mivqa_zh_p{k}", "qid": q, "response": out}
        for k, outs in MIVQA_ZH.items()
        for q, out in zip(qids, outs)
    ]
    # English template 2 (golds 1, 3, 0, 2): right, wrong (A), right, right (C): 3/4, as Chinese template 2
    lines += [{"task": "foodieqa_mivqa_en_p2", "qid": q, "response": out} for q, out in zip(qids, ["B", "A", "A", "C"])]
    # textqa golds 0, 1, 2, 0: template 2 answers all correctly through its prefill continuation
    lines += [
        {"task": "foodieqa_textqa_zh_p2", "qid": f"textqa-{i}", "response": r}
        for i, r in enumerate(["A）", "B", "C）都可以", "A"])
    ]
    # dish-name only (no image): option text answers, which the official parser cannot read
    lines += [
        {"task": "foodieqa_sivqa_zh_dishname_noimage_p0", "qid": f"vqa-{i}", "response": r}
        for i, r in enumerate(["新疆菜", "辣", "广东"])
    ]
    path = tmp_path / "responses.jsonl"
    path.write_text("\n".join(json.dumps(x, ensure_ascii=False) for x in lines) + "\n", encoding="utf-8")
    return path


def test_scripted_answers_give_hand_computed_template_and_group_numbers(tmp_path):
    root = build(tmp_path / "mirror")
    proc, results, samples = run_lmms_eval(
        [
            "--model",
            "food_tasks_replay",
            "--model_args",
            f"responses={_responses(tmp_path)},keys=qid,default=",  # documents without a line answer ""
            "--tasks",
            "foodieqa,foodieqa_sivqa_zh_dishname_noimage",
        ],
        tmp_path / "out",
        env={"FOOD_TASKS_DATA_DIR": str(root), "HF_HOME": str(tmp_path / "hf_home")},
    )
    assert results is not None, proc.stdout[-3000:] + proc.stderr[-3000:]
    r, g = results["results"], results["groups"]
    expected = {0: (25.0, 0.0, 0.0), 1: (50.0, 50.0, 0.0), 2: (75.0, 75.0, 0.0), 3: (50.0, 75.0, 50.0)}
    for k, (acc, paper, invalid) in expected.items():
        task = r[f"foodieqa_mivqa_zh_p{k}"]
        assert (task["acc,none"], task["acc_paper_protocol,none"], task["invalid_rate,none"]) == (
            acc,
            paper,
            invalid,
        ), k
        assert task[f"acc_p{k},none"] == acc
    assert r["foodieqa_mivqa_zh_p3"]["paper_fallback_rate,none"] == 50.0
    assert r["foodieqa_mivqa_zh_p1"]["per_question_type,none"]["taste"] == {"n": 2, "acc": 50.0, "invalid_rate": 0.0}

    group = g["foodieqa_mivqa_zh"]
    assert group["acc_best,none"] == 75.0  # the paper's number: best of the four templates
    assert group["acc_mean,none"] == 50.0  # (25 + 50 + 75 + 50) / 4
    assert [group[f"acc_p{k},none"] for k in range(4)] == [25.0, 50.0, 75.0, 50.0]
    assert group["acc_paper_protocol,none"] == 50.0 and group["acc_paper_protocol_best,none"] == 75.0
    assert group["invalid_rate,none"] == 12.5 and group["paper_fallback_rate,none"] == 12.5

    # Cross-lingual consistency (README "Beyond accuracy"), in the Chinese task's row: the same 4 questions (file
    # positions) in mivqa_zh_p2 and mivqa_en_p2. Both right with the same letter on questions 0 and 2; question 1 zh
    # right (D) / en wrong (A); question 3 zh wrong / en right (C): all correct 2/4, agreement 2/4, zh - en = 0.
    zh2 = r["foodieqa_mivqa_zh_p2"]
    assert zh2["xling_all_correct,none"] == 50.0 and zh2["xling_agreement,none"] == 50.0
    assert zh2["xling_all_correct_n,none"] == 4 and zh2["xling_all_correct_clusters,none"] == 4
    assert zh2["xling_all_correct_stderr,none"] == pytest.approx(100 * 0.5 / math.sqrt(3))  # sd(1, 0, 1, 0) / sqrt(4)
    assert zh2["xling_gap_to_en,none"]["zh"]["value"] == 0.0
    assert "xling_all_correct,none" not in r["foodieqa_mivqa_en_p2"]
    assert "xling_all_correct,none" not in r["foodieqa_textqa_zh_p2"]  # Chinese only

    assert r["foodieqa_textqa_zh_p2"]["acc,none"] == 100.0
    assert g["foodieqa_textqa_zh"]["acc_best,none"] == 100.0 and g["foodieqa_textqa_zh"]["acc_mean,none"] == 25.0
    noimg = r["foodieqa_sivqa_zh_dishname_noimage_p0"]
    assert noimg["acc,none"] == pytest.approx(200 / 3)  # 新疆菜 right, 辣 right, 广东 wrong (gold 四川)
    assert noimg["paper_fallback_rate,none"] == 100.0
    # every task of the five groups ran, in every language, with all questions
    for name, n in (("mivqa_zh", 4), ("mivqa_en", 4), ("sivqa_zh", 3), ("sivqa_en", 3), ("textqa_zh", 4)):
        for k in range(4):
            assert len(samples[f"foodieqa_{name}_p{k}"]) == n, name
    assert "foodieqa_sivqa_zh_dishname_noimage" in g

    # The logged media of each mivqa document: its four images, in option order A-D.
    assert [s["input_media"] for s in samples["foodieqa_mivqa_zh_p1"]] == [r["images"] for r in tables()["mivqa"]]

    # Best of four templates is biased upwards: the cluster bootstrap (the same questions resampled in every
    # template) puts the mean resampled best at or above the best of the
    # resampled means; the mean of the four has no selection.
    run = load_run(next((tmp_path / "out").rglob("*_results.json")))
    found = compare.best_of_bias(run, "foodieqa_mivqa_zh", "acc_best")
    assert (found.best, found.mean, found.tasks) == (75.0, 50.0, 4) and found.bias >= 0 and found.se > 0
    assert compare.best_of_bias(run, "foodieqa_mivqa_zh", "acc_mean") is None  # a mean is not a best-of
    md = report.build_report([tmp_path / "out"], tmp_path / "rep", charts=False)["markdown"].read_text(encoding="utf-8")
    assert "Selection bias of the best" in md and f"| 75.00 | 50.00 | {found.bias:+.2f} |" in md


def test_gated_data_fails_before_generation_with_instructions(tmp_path):
    proc, results, _ = run_lmms_eval(
        [
            "--model",
            "food_tasks_replay",
            "--model_args",
            f"responses={_responses(tmp_path)},keys=qid",
            "--tasks",
            "foodieqa_textqa_zh_p0",
        ],
        tmp_path / "out",
        env={"HF_HOME": str(tmp_path / "hf_home")},
    )
    # Offline (run_lmms_eval sets HF_HUB_OFFLINE=1) with an empty cache; the no-token and refused-access
    # messages are checked in test_foodieqa_data.py without the CLI.
    assert results is None or "foodieqa_textqa_zh_p0" not in results.get("results", {})
    log = proc.stdout + proc.stderr
    assert (
        "https://huggingface.co/datasets/lyan62/FoodieQA" in log and "HF_TOKEN" in log and "FOOD_TASKS_DATA_DIR" in log
    )
