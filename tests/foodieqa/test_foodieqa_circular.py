"""FoodieQA _circular tasks: each letter keeps its image or option text through the official prompt builder, and a
real run of the packaged sample."""

from __future__ import annotations

import json

import pytest
from conftest import run_lmms_eval

from food_tasks.benchmarks.foodieqa import circular, prompts


def _mivqa() -> dict:
    return {
        "fq_task": "mivqa",
        "images": ["a.jpg", "b.jpg", "c.jpg", "d.jpg"],
        "answer": "2",
        "question": "以下哪道菜是川菜？",
        "question_en": "Which dish is Sichuan food?",
        "index": 7,
    }


def _sivqa() -> dict:
    return {
        "fq_task": "sivqa",
        "images": ["x.jpg"],
        "answer": "0",
        "question": "Q",
        "question_en": "Q",
        "choices": ["甲", "乙", "丙", "丁"],
        "choices_en": ["w", "x", "y", "z"],
        "index": 3,
    }


def test_mivqa_images_move_with_their_letters():
    doc = _mivqa()
    new = circular.rotate_doc(doc, 1)
    assert new["images"] == ["b.jpg", "c.jpg", "d.jpg", "a.jpg"] and new["answer"] == "1"
    assert new["images"][int(new["answer"])] == "c.jpg" and doc["images"][0] == "a.jpg"  # the original is unchanged
    # the builder's text is the same for every rotation; image k of the prompt is images[k]
    for template in prompts.TEMPLATES:
        old, rotated = prompts.build(doc, "mivqa", "en", template), prompts.build(new, "mivqa", "en", template)
        assert old.parts == rotated.parts


def test_sivqa_options_rotate_in_both_languages_and_the_prompt_is_the_builders():
    doc = _sivqa()
    new = circular.rotate_doc(doc, 3)
    assert (
        new["choices"] == ["丁", "甲", "乙", "丙"]
        and new["choices_en"] == ["z", "w", "x", "y"]
        and new["answer"] == "1"
    )
    assert new["images"] == ["x.jpg"]  # one image: nothing moves
    text = prompts.user_text(prompts.build(new, "sivqa", "en", 3), None)
    assert (
        text == "Q These are the options: （A) z\n（B) w\n（C) x\n（D) y\n"
        " Please select one of the options as your answer.\nI would select ("
    )


@pytest.mark.e2e
def test_sample_circular_with_a_model_that_always_answers_a(tmp_path):
    (tmp_path / "none.jsonl").write_text("")
    proc, results, samples = run_lmms_eval(
        [
            "--model",
            "food_tasks_replay",
            "--model_args",
            f"responses={tmp_path / 'none.jsonl'},default=A",
            "--tasks",
            "foodieqa_sample_circular",
        ],
        tmp_path / "out",
    )
    assert results is not None, proc.stdout[-3000:] + proc.stderr[-3000:]
    for task in ("foodieqa_mivqa_zh_sample_circular_p1", "foodieqa_sivqa_en_sample_circular_p3"):
        r = results["results"][task]
        n = len(samples[task])
        assert n % 4 == 0 and len({(s["acc"]["index"], s["acc"]["rotation"]) for s in samples[task]}) == n, list(
            samples[task][0]
        )
        assert r["circular_acc,none"] == 0.0 and r["rotation_mean_acc,none"] == 25.0 and r["acc,none"] == 25.0
        assert r["position_bias,none"]["A"] == {"chosen": n, "gold": n // 4, "chosen_share": 100.0, "gold_share": 25.0}
        assert r["circular_acc_stderr,none"] == 0.0, json.dumps(r)
    assert results["groups"]["foodieqa_sample_circular"]["circular_acc,none"] == 0.0


def test_every_foodieqa_task_reports_position_bias():
    from food_tasks.utils import foodieqa as hooks

    for table in hooks.TABLES.values():
        # positions 0-based in the records, labelled A-D
        records = [
            {"parsed": 0, "gold": 0},
            {"parsed": 0, "gold": 1},
            {"parsed": 1, "gold": 1},
            {"parsed": 0, "gold": 0},
        ]
        assert table["position_bias"](records) == {
            "A": {"chosen": 3, "gold": 2, "chosen_share": 75.0, "gold_share": 50.0},
            "B": {"chosen": 1, "gold": 2, "chosen_share": 25.0, "gold_share": 50.0},
        }
        # 4 answers read, chosen (3, 1) against gold (2, 2): margins (5, 3), below Cochran's rule; of the C(8, 4) = 70
        # tables, chosen A = 3 or 2 (30 + 30) have the observed statistic, A = 4 or 1 (5 + 5) a larger one: p = 1
        assert table["position_bias_p"](records) == 1.0
        # recalls A 2/2, B 1/2: RStd = 25
        assert table["position_rstd"](records) == pytest.approx(25.0)
