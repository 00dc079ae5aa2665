"""Food-500 Cap through the real lmms-eval CLI, offline, on a mirror in the official layout.

Scripted captions (food_tasks_replay, keyed by filename) with hand-computed SLA expectations (see
food500cap_fixture.py); caption metrics are checked against the toolkit run directly on the same captions.
The Çiğ köfte image of the test file is absent from the image root.
"""

from __future__ import annotations

import json
import unicodedata

import food500cap_fixture as fx
import pytest
from conftest import run_lmms_eval

from food_tasks.hooks import cocoeval

pytestmark = pytest.mark.e2e
TASKS = ("food500cap", "food500cap_caption_all")  # the group: both prompts on the test split


@pytest.fixture(scope="module")
def cap_run(tmp_path_factory):  # type: ignore[no-untyped-def]
    root = fx.build_mirror(tmp_path_factory.mktemp("cap_mirror"))
    work = tmp_path_factory.mktemp("cap_run")
    responses = work / "responses.jsonl"
    responses.write_text("".join(json.dumps({"replay_key": k, "response": v}) + "\n" for k, v in fx.OUTPUTS.items()))
    regions = work / "regions.json"
    regions.write_text(json.dumps(fx.REGIONS))
    env = {
        "FOOD_TASKS_DATA_DIR": str(root),
        "FOOD_TASKS_CACHE_DIR": str(work / "cache"),
        "FOOD_TASKS_FOOD500CAP_REGIONS": str(regions),
    }
    args = [
        "--model",
        "food_tasks_replay",
        "--model_args",
        f"responses={responses},keys=replay_key,default=",  # documents without a line answer ""
        "--tasks",
        ",".join(TASKS),
    ]
    return run_lmms_eval(args, work / "out", env=env)


def test_test_split_metrics(cap_run):
    proc, results, samples = cap_run
    assert results is not None and "food500cap_caption" in results["results"], proc.stderr[-3000:]
    got = results["results"]["food500cap_caption"]
    for metric, value in fx.EXPECTED_TEST.items():
        assert got[f"{metric},none"] == pytest.approx(value), metric
    assert got["per_region,none"]["Seafood"]["sla_accurate"] == 50.0 and got["per_region,none"]["unmapped"]["n"] == 1
    assert got["clipscore,none"].startswith("absent: no CLIP model given")
    # The prompt used is recorded with the results and in every logged sample.
    config = results["configs"]["food500cap_caption"]
    assert (
        config["lmms_eval_specific_kwargs"]["default"]["prompt"]
        == "Provide a one-sentence caption for the provided image."
    )
    assert len(samples["food500cap_caption"]) == 6
    assert all(
        s["input"] == config["lmms_eval_specific_kwargs"]["default"]["prompt"] for s in samples["food500cap_caption"]
    )


def test_caption_metrics_equal_the_toolkit_on_the_same_captions(cap_run):
    _, results, _ = cap_run
    got = results["results"]["food500cap_caption"]
    if cocoeval.java_problem() is not None:
        assert got["meteor,none"].startswith("absent: no Java runtime")
        return
    found = [r for r in fx.TEST if unicodedata.normalize("NFC", r["filename"]) not in fx.MISSING]
    keys = [unicodedata.normalize("NFC", r["filename"]) for r in found]
    hyps = {k: fx.CLEANED.get(k, fx.OUTPUTS[k]) for k in keys}
    hyps["Ambrosia_(fruit_salad)/Ambrosia_(fruit_salad)_0005.jpg"] = "Ambrosia salad with marshmallows"
    direct = cocoeval.coco_scores({k: [r["caption"]] for k, r in zip(keys, found)}, hyps)
    for ours, toolkit in (("bleu4", "Bleu_4"), ("meteor", "METEOR"), ("rouge_l", "ROUGE_L"), ("cider", "CIDEr")):
        assert got[f"{ours},none"] == pytest.approx(100 * direct.corpus[toolkit], abs=1e-9), ours


def test_printed_table_tells_the_two_prompts_apart(cap_run):
    """Issue 19.1: the group's two prompts printed as two "see JSON (text)" rows; each row names its task."""
    proc, results, _ = cap_run
    assert results is not None and "food500cap_caption_food" in results["results"], proc.stderr[-3000:]
    table = [line for line in proc.stdout.splitlines() if line.startswith("|") and line.count("|") > 6]
    cells = {
        (line.split("|")[1].rstrip(), line.split("|")[4].strip()): line.split("|")[6].strip() for line in table[2:]
    }
    labels = {name for name, _ in cells}
    # Issue 29.1: every row under its alias (each we ship has at most 40 characters)
    generic, food, union = (
        " - Food-500 Cap (test, generic)",
        " - Food-500 Cap (test, food)",
        "Food-500 Cap (all, generic)",
    )
    assert {generic, food, union} <= labels, "\n".join(table)
    assert cells[(generic, "clipscore")] == "[absent]" and cells[(union, "per_category")].endswith(" keys]")
    assert max(map(len, table)) <= 120, "\n".join(table)


def test_union_task(cap_run):
    _, results, samples = cap_run
    got = results["results"]["food500cap_caption_all"]
    # 8 images (Abalone_0083 once), Çiğ köfte missing: 7 scored; accurate T2, T4, Abalone_0090; kebab answered "".
    assert len(samples["food500cap_caption_all"]) == 8
    assert got["image_missing,none"] == 1
    assert got["sla_accurate,none"] == pytest.approx(300 / 7)
    assert got["empty_rate,none"] == pytest.approx(100 / 7)
    assert "kebab" in got["per_category,none"]


def test_missing_image_root_fails_before_generation(tmp_path):
    root = fx.build_mirror(tmp_path / "mirror", images=False)
    responses = tmp_path / "r.jsonl"
    responses.write_text("")
    env = {"FOOD_TASKS_DATA_DIR": str(root), "FOOD_TASKS_CACHE_DIR": str(tmp_path / "cache")}
    args = [
        "--model",
        "food_tasks_replay",
        "--model_args",
        f"responses={responses},default=",
        "--tasks",
        "food500cap_caption",
    ]
    proc, results, samples = run_lmms_eval(args, tmp_path / "out", env=env)
    output = proc.stdout + proc.stderr
    assert results is None or "food500cap_caption" not in results.get("results", {})
    assert not samples
    assert "FOOD_TASKS_FOOD500CAP_IMAGES" in output and "ISIA-Food500.html" in output
    assert "isia_food500/images" in output and "is not a directory" in output
