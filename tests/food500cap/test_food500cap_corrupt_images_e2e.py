"""An image that cannot be decoded, mid-run, through the real lmms-eval CLI (issue 20, item 1).

The replay model asks for every image (``load_images=true``) as a model does. ``Abalone_0081.jpg`` is cut
short: under lmms-eval's lenient Pillow setting it used to decode grey-filled and its caption was scored; now
it is counted in ``image_missing`` next to the absent Çiğ köfte image and left out of every metric.
"""

from __future__ import annotations

import json

import food500cap_fixture as fx
import pytest
from conftest import run_lmms_eval, truncated_jpeg

from food_tasks.benchmarks.food500cap import data as fc_data
from food_tasks.benchmarks.food500cap import layout as fc_layout

pytestmark = pytest.mark.e2e

CUT = "Abalone/Abalone_0081.jpg"


def test_a_truncated_image_is_counted_and_leaves_every_metric(tmp_path):
    root = fx.build_mirror(tmp_path / "mirror")
    fc_layout.write_images(root, {CUT: truncated_jpeg()})
    # Every caption is its reference: SLA is 100 % over what is scored, whatever is left out.
    outputs = {r["filename"]: r["caption"] for r in fc_data.load_file(fc_data.TEST_FILE, root)}
    responses = tmp_path / "responses.jsonl"
    responses.write_text("".join(json.dumps({"filename": k, "response": v}) + "\n" for k, v in outputs.items()))
    proc, results, samples = run_lmms_eval(
        [
            "--model",
            "food_tasks_replay",
            "--model_args",
            f"responses={responses},keys=filename,load_images=true",
            "--tasks",
            "food500cap_caption",
        ],
        tmp_path / "out",
        env={"FOOD_TASKS_DATA_DIR": str(root), "FOOD_TASKS_CACHE_DIR": str(tmp_path / "cache")},
    )
    assert results is not None, proc.stdout[-3000:] + proc.stderr[-3000:]
    got = results["results"]["food500cap_caption"]
    assert len(samples["food500cap_caption"]) == 6
    assert got["image_missing,none"] == 2  # Çiğ köfte (no file) and the truncated abalone
    assert got["sla_accurate,none"] == 100.0
    assert got["reference_mean_words,none"] == pytest.approx((7 + 9 + 9 + 9) / 4)  # the four scored images only
