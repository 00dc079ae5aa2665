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
    # 8 positions, 2 gold answers at each: expected (16 + 2) / 2 = 9 at A, 1 elsewhere, below Cochran's rule: the
    # Monte Carlo test, at its floor (no table with these margins is more extreme)
    assert r["position_bias_p,none"] == pytest.approx(1e-4)
    # recalls 1 at A, 0 at the 7 others: RStd = 100 sqrt(7) / 8 (population SD over the 8 positions)
    assert r["position_rstd,none"] == pytest.approx(100 * 7**0.5 / 8)
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
    # 3 answers read, chosen (A 2, E 0, H 1) against gold (A 2, E 1, H 0): statistic 2 (A adds 0, E and H 1 each).
    # Margins (4, 1, 1), 3 in each row: no table with them has a smaller statistic (the lone E and H add 1 each
    # wherever they sit): p = 1 (the old goodness-of-fit test: 0, "H chosen, never gold")
    assert table["position_bias_p"](records) == 1.0
    # recalls A 1/2, E 0/1, B 0/1 (unread: a miss): mean 1/6, variance 1/18
    assert table["position_rstd"](records) == pytest.approx(100 / 18**0.5)
