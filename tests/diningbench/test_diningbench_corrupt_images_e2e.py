"""An image that cannot be decoded, mid-run, through the real lmms-eval CLI (issue 20, item 1).

The replay model asks for every document's images (``load_images=true``) as a model that reads them does.
Classification row 0 of ``classification_en.jsonl`` has a user photo that is not an image at all (it used to
stop the run with ``CorruptImageError`` after part of the requests); nutrition row 1 has a user photo cut
short (it used to be sent grey-filled and scored). Both rows are counted in ``image_missing``, left out of
the robust metrics and scored as failed requests by the ``_official`` ones (the official scripts send the raw
bytes, the server refuses them, the row gets ``__INFER_ERROR__``).
"""

from __future__ import annotations

import json

import diningbench_fixture as F
import pytest
from conftest import NOT_AN_IMAGE, run_lmms_eval, truncated_jpeg

from food_tasks.benchmarks.diningbench import layout

pytestmark = pytest.mark.e2e

BROKEN = {"images/cls0/u1.jpg": NOT_AN_IMAGE, "images/nut1/u1.jpg": truncated_jpeg()}
# Every output is right: only the rows' image status decides what counts.
OUTPUTS = {
    "diningbench_cls_en_v2": ["F", "B"],
    "diningbench_nutrition_en_v2": [
        '{"calories": 580, "protein": 24, "carbohydrates": 80, "fat": 18}',
        '{"calories": 200, "protein": 5, "carbohydrates": 30, "fat": 6}',
    ],
}


@pytest.fixture(scope="module")
def run(tmp_path_factory):  # type: ignore[no-untyped-def]
    root = tmp_path_factory.mktemp("db_corrupt")
    layout.write_mirror(root, F.files(), {**F.images(), **BROKEN})
    work = tmp_path_factory.mktemp("db_corrupt_run")
    lines = [{"task": t, "doc_id": i, "response": r} for t, outs in OUTPUTS.items() for i, r in enumerate(outs)]
    responses = work / "responses.jsonl"
    responses.write_text("\n".join(json.dumps(x) for x in lines) + "\n", encoding="utf-8")
    args = [
        "--model",
        "food_tasks_replay",
        "--model_args",
        f"responses={responses},load_images=true",
        "--tasks",
        ",".join(OUTPUTS),
    ]
    env = {
        "FOOD_TASKS_DATA_DIR": str(root),
        "FOOD_TASKS_CACHE_DIR": str(work / "cache"),
        "FOOD_TASKS_DININGBENCH_MODEL_NAME": "",
    }
    return run_lmms_eval(args, work / "out", env=env)


def test_the_run_completes_with_every_row_generated_and_logged(run):  # type: ignore[no-untyped-def]
    proc, results, samples = run
    assert results is not None, proc.stderr[-3000:]
    assert set(OUTPUTS) <= set(results["results"])
    assert {t: len(samples[t]) for t in OUTPUTS} == {t: 2 for t in OUTPUTS}
    log = proc.stdout + proc.stderr
    assert log.count("images/cls0/u1.jpg: cannot decode") == 1 and log.count("images/nut1/u1.jpg: cannot decode") == 1


def test_classification_counts_the_row_and_scores_it_officially_as_a_failed_request(run):  # type: ignore[no-untyped-def]
    got = run[1]["results"]["diningbench_cls_en_v2"]
    assert got["image_missing,none"] == 1
    assert got["acc,none"] == 100.0 and got["invalid_rate,none"] == 0.0  # row 1 only; percent
    assert got["acc_official,none"] == 50.0 and got["cannot_read_rate_official,none"] == 50.0  # row 0: __INFER_ERROR__


def test_nutrition_counts_the_row_and_scores_it_officially_as_a_parse_failure(run):  # type: ignore[no-untyped-def]
    got = run[1]["results"]["diningbench_nutrition_en_v2"]
    assert got["image_missing,none"] == 1
    assert got["avg_mae,none"] == 0.0 and got["avg_mape,none"] == 0.0 and got["parse_fail_rate,none"] == 0.0
    # row 1 as a prediction of 0: errors |gt| = 200, 5, 30, 6 over two rows; APE 100 % over two rows
    assert got["calories_mae_official,none"] == 100.0 and got["avg_mape_official,none"] == 50.0
    assert got["parse_fail_rate_official,none"] == 50.0
