"""An image that cannot be decoded, mid-run, through the real lmms-eval CLI (issue 20, item 1).

The replay model asks for every question's images (``load_images=true``) as a simple model does. Image 5 is
cut short (it used to be sent grey-filled and scored) and image 4 is not an image at all (it used to stop the
run): the questions showing them are counted in ``image_missing`` and left out of every metric, the official
protocol's included (the official scripts stop at such an image: no official number exists).
"""

from __future__ import annotations

import json

import pytest
from conftest import NOT_AN_IMAGE, run_lmms_eval, truncated_jpeg
from foodieqa_fixture import IMG, images, tables

from food_tasks.benchmarks.foodieqa import layout

pytestmark = pytest.mark.e2e

# mivqa rows 2 and 3 show image 5 (and 4); sivqa rows 1 and 2 show image 4. Rows with a broken image answer
# wrong, the others right: only the latter may count.
MIVQA = ["B", "D", "D", "A"]  # golds 1, 3, 0, 2
SIVQA = ["C", "A", "B"]  # golds 2, 3, 0


@pytest.fixture(scope="module")
def run(tmp_path_factory):  # type: ignore[no-untyped-def]
    root = tmp_path_factory.mktemp("fq_corrupt")
    layout.write_zip(root, tables(), {**images(), IMG(5): truncated_jpeg(), IMG(4): NOT_AN_IMAGE}, folder="FoodieQA")
    work = tmp_path_factory.mktemp("fq_corrupt_run")
    qids = {t: [r["question_id"] for r in tables()[t]] for t in ("mivqa", "sivqa")}
    lines = [{"task": "foodieqa_mivqa_zh_p1", "qid": q, "response": a} for q, a in zip(qids["mivqa"], MIVQA)]
    lines += [{"task": "foodieqa_sivqa_en_p0", "qid": q, "response": a} for q, a in zip(qids["sivqa"], SIVQA)]
    responses = work / "responses.jsonl"
    responses.write_text("\n".join(json.dumps(x) for x in lines) + "\n", encoding="utf-8")
    args = [
        "--model",
        "food_tasks_replay",
        "--model_args",
        f"responses={responses},keys=qid,load_images=true",
        "--tasks",
        "foodieqa_mivqa_zh_p1,foodieqa_sivqa_en_p0",
    ]
    return run_lmms_eval(args, work / "out", env={"FOOD_TASKS_DATA_DIR": str(root), "HF_HOME": str(work / "hf_home")})


def test_the_run_completes_and_every_question_is_logged(run):  # type: ignore[no-untyped-def]
    proc, results, samples = run
    assert results is not None, proc.stdout[-3000:] + proc.stderr[-3000:]
    assert len(samples["foodieqa_mivqa_zh_p1"]) == 4 and len(samples["foodieqa_sivqa_en_p0"]) == 3


@pytest.mark.parametrize("task,present", [("foodieqa_mivqa_zh_p1", 2), ("foodieqa_sivqa_en_p0", 1)])
def test_questions_with_a_broken_image_leave_every_metric(run, task, present):  # type: ignore[no-untyped-def]
    got = run[1]["results"][task]
    assert got["image_missing,none"] == {"foodieqa_mivqa_zh_p1": 2, "foodieqa_sivqa_en_p0": 2}[task]
    assert got["acc,none"] == 100.0 and got["acc_paper_protocol,none"] == 100.0 and got["invalid_rate,none"] == 0.0
    assert sum(v["n"] for v in got["per_question_type,none"].values()) == present
