"""Images that cannot be decoded, mid-run, through the real lmms-eval CLI (issue 20, item 1).

FAM-Bench already kept to the rule (the official Task 1 scorer leaves out a document whose image cannot be
fetched, "fetched" meaning downloaded and decoded); this pins it with the model asking for the images
(``load_images=true``): Task 1 row 1's photo is cut short, an option photo of Task 2 question 2 is not an
image. Both documents are counted in ``image_missing`` and left out of every denominator.
"""

from __future__ import annotations

import json

import fambench_fixture as F
import pytest
from conftest import NOT_AN_IMAGE, run_lmms_eval, truncated_jpeg

from food_tasks.data import mirror

pytestmark = pytest.mark.e2e

CUT = F.TASK1[0]["image_url"]
GARBAGE = F.TASK2["questions"][1]["options"][2]["image_url"]


def test_undecodable_images_are_counted_and_left_out(tmp_path):
    root = F.build(tmp_path / "mirror")
    mirror.write_url_images(root, {CUT: truncated_jpeg(), GARBAGE: NOT_AN_IMAGE})
    decisions = {
        "1": "not recommend",
        "2": "not recommend",
        "3": "not recommend",
        "4": "recommend",
        "5": "not recommend",
        "6": "recommend",
    }  # rows 2-5 right; row 1 (gold recommend) wrong, but its image is broken
    lines = [
        {
            "task": "fambench_task1",
            "replay_key": k,
            "response": json.dumps({"decision": v, "rationale_ingredients": []}),
        }
        for k, v in decisions.items()
    ]
    for q in F.TASK2["questions"]:
        qid = q["question_id"].upper()
        ranking = (
            q["gold"]["ranking"] if qid != "CRMCQ_0002" else list("DBAC")
        )  # question 2 (broken image) ranked wrong
        lines.append(
            {
                "task": "fambench_task2",
                "replay_key": f"{qid}:rank:baseline",
                "response": json.dumps({"ranking": ranking}),
            }
        )
    responses = tmp_path / "responses.jsonl"
    responses.write_text("\n".join(json.dumps(x) for x in lines) + "\n", encoding="utf-8")
    proc, results, samples = run_lmms_eval(
        [
            "--model",
            "food_tasks_replay",
            "--model_args",
            f"responses={responses},keys=replay_key,load_images=true",
            "--tasks",
            "fambench_task1,fambench_task2",
        ],
        tmp_path / "out",
        env={"FOOD_TASKS_DATA_DIR": str(root), "FOOD_TASKS_CACHE_DIR": str(tmp_path / "cache")},
    )
    assert results is not None, proc.stdout[-3000:] + proc.stderr[-3000:]
    t1, t2 = results["results"]["fambench_task1"], results["results"]["fambench_task2"]
    assert len(samples["fambench_task1"]) == 6 and len(samples["fambench_task2"]) == 5
    # Task 1: row 1 (cut) and row 6 (dead host) left out; rows 2-5 right
    assert (
        t1["image_missing,none"] == 2 and t1["decision_acc,none"] == 100.0 and t1["decision_acc_official,none"] == 100.0
    )
    # Task 2: question 2 (not an image) and question 4 (dead host) left out; the other three ranked as gold
    assert t2["image_missing,none"] == 2 and t2["top1_acc,none"] == 100.0 and t2["top1_acc_official,none"] == 100.0
