"""DiningBench _circular classification: rotated prompts verbatim but for the option texts, and a real run."""

from __future__ import annotations

import json

import pytest
from conftest import run_lmms_eval

from food_tasks.benchmarks.diningbench import circular, parsing


def test_rotate_doc_moves_the_gold_letter_with_its_dish():
    prompt = "Pick one.\nA. Tofu\nB. Noodles\nC．Rice \nD) Soup\nAnswer with a letter."
    doc = {"prompt": prompt, "text": prompt, "cot": False, "gold_json": json.dumps("B"), "idx": 3}
    new = circular.rotate_doc(doc, 1)
    assert new["prompt"] == "Pick one.\nA. Noodles\nB. Rice\nC．Soup \nD) Tofu\nAnswer with a letter."
    assert json.loads(new["gold_json"]) == "A" and new["text"] == new["prompt"]
    letters, texts = parsing.prompt_options(new["prompt"])
    assert texts[letters.index("A")] == "Noodles" and circular.n_options(doc) == 4
    assert circular.rotate_doc({**doc, "gold_json": json.dumps("Z")}, 2)["gold_json"] == json.dumps(
        "Z"
    )  # not an option: kept
    assert circular.rotate_prompt(prompt, 0) == prompt


@pytest.mark.e2e
def test_sample_circular_with_a_model_that_always_answers_a(tmp_path):
    """Two 8-option records in 8 rotations each, a model that always answers A: each record right once."""
    (tmp_path / "none.jsonl").write_text("")
    proc, results, samples = run_lmms_eval(
        [
            "--model",
            "food_tasks_replay",
            "--model_args",
            f"responses={tmp_path / 'none.jsonl'},default=A",
            "--tasks",
            "diningbench_cls_sample_circular",
        ],
        tmp_path / "out",
    )
    assert results is not None, proc.stdout[-3000:] + proc.stderr[-3000:]
    r = results["results"]["diningbench_cls_sample_circular"]
    assert len(samples["diningbench_cls_sample_circular"]) == 16
    # in percent: right in 1 of 8 rotations
    assert r["circular_acc,none"] == 0.0 and r["rotation_mean_acc,none"] == 12.5 and r["acc,none"] == 12.5
    assert r["position_bias,none"]["A"] == {"chosen": 16, "gold": 2, "chosen_share": 100.0, "gold_share": 12.5}
    from scipy.stats import chi2

    # 8 positions, 2 gold answers at each: (16-2)^2/2 + 7 * (0-2)^2/2 = 112 on 7 df
    assert r["position_bias_p,none"] == pytest.approx(chi2.sf(112, 7))
    assert r["circular_acc_stderr,none"] == 0.0 and r["rotation_mean_acc_stderr,none"] == 0.0


def test_every_classification_run_reports_position_bias():
    from food_tasks.utils import diningbench as hooks

    table = hooks.TABLES["cls"]
    records = [
        {"pred": "A", "gold": "A"},
        {"pred": "A", "gold": "E"},
        {"pred": None, "gold": "B"},
        {"pred": "H", "gold": "A"},
    ]
    assert table["position_bias"](records) == {
        "A": {"chosen": 2, "gold": 2, "chosen_share": 200 / 3, "gold_share": 200 / 3},
        "E": {"chosen": 0, "gold": 1, "chosen_share": 0.0, "gold_share": 100 / 3},
        "H": {"chosen": 1, "gold": 0, "chosen_share": 100 / 3, "gold_share": 0.0},
    }
    assert table["position_bias_p"](records) == 0.0  # H chosen, never gold
