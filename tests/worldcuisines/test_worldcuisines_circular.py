"""WorldCuisines _circular MCQ tasks: rotated prompts verbatim but for the option texts, and a real run."""

from __future__ import annotations

import json
import math

import pytest
from conftest import run_lmms_eval

from food_tasks.benchmarks.worldcuisines import circular, parsing

PROMPT = (
    "What is this culinary dish called?\n1. Serabi\n2. Terang Bulan\n3. Syrniki\n4. Murtabak\n5. Sapin-sapin\n\n"
    "Print only the answer with a single answer id (1,2,3,4,5)."
)


def test_rotate_prompt_changes_only_the_option_texts():
    assert circular.rotate_prompt(PROMPT, 0) == PROMPT
    rotated = circular.rotate_prompt(PROMPT, 2)
    assert rotated == PROMPT.replace(
        "1. Serabi\n2. Terang Bulan\n3. Syrniki\n4. Murtabak\n5. Sapin-sapin",
        "1. Syrniki\n2. Murtabak\n3. Sapin-sapin\n4. Serabi\n5. Terang Bulan",
    )
    doc = {
        "multi_choice_prompt": PROMPT,
        "options": parsing.parse_mcq_options(PROMPT),
        "multi_choice_answer": 1,
        "qa_id": "400",
        "lang": "en",
    }
    new = circular.rotate_doc(doc, 2)
    assert new["multi_choice_answer"] == 4 and new["options"] == parsing.parse_mcq_options(new["multi_choice_prompt"])
    assert new["options"][new["multi_choice_answer"] - 1] == "Serabi" and doc["multi_choice_answer"] == 1
    # a question line that starts like an option is not rotated
    tricky = (
        "1. Look at the photo.\nWhich dish?\n1. A\n2. B\n3. C\n4. D\n"
        "Print only the answer with a single answer id (1,2,3,4,5)."
    )
    assert circular.rotate_prompt(tricky, 1).startswith("1. Look at the photo.\nWhich dish?\n1. B\n2. C\n3. D\n4. A\n")


@pytest.mark.e2e
def test_sample_circular_runs_with_replay_answers_always_1(tmp_path):
    """The packaged sample, asked in every rotation, a model that always answers 1: each question is right only in
    the rotation whose gold is at 1."""
    tasks = "worldcuisines_mcq_sample_circular"
    from food_tasks.utils import worldcuisines as hooks

    docs = hooks.docs_sample_1a_circular(None).to_list()
    keys = {(d["qa_id"], d["lang"], d["rotation"]) for d in docs}
    assert len(keys) == len(docs) and {d["rotations"] for d in docs} <= {4, 5}
    lines = [{"qa_id": q, "lang": lang, "rotation": r, "response": "1"} for q, lang, r in sorted(keys)]
    path = tmp_path / "responses.jsonl"
    path.write_text("\n".join(json.dumps(x) for x in lines) + "\n")
    proc, results, samples = run_lmms_eval(
        [
            "--model",
            "food_tasks_replay",
            "--model_args",
            f"responses={path},keys=qa_id+lang+rotation,default=1",
            "--tasks",
            tasks,
        ],
        tmp_path / "out",
    )
    assert results is not None, proc.stdout[-3000:] + proc.stderr[-3000:]
    r = results["results"]["worldcuisines_mcq_sample_circular_1a_nocontext"]
    n_options = {d["item"]: d["rotations"] for d in docs}
    assert r["circular_acc,none"] == 0.0
    assert r["rotation_mean_acc,none"] == pytest.approx(100 * sum(1 / k for k in n_options.values()) / len(n_options))
    assert r["position_bias,none"]["1"]["chosen_share"] == 100.0
    assert r["position_bias_p,none"] == pytest.approx(1e-4)  # 42 answers at 1: the Monte Carlo test's floor
    assert r["position_rstd,none"] == pytest.approx(40.0)  # recalls (1, 0, 0, 0, 0): SD 0.4
    assert r["position_rstd_stderr,none"] > 0 and r["position_rstd_clusters,none"] == 3  # dishes
    # standard errors land in the results JSON (clustered by dish): every question wrong somewhere, so 0
    assert r["circular_acc_stderr,none"] == 0.0 and r["rotation_mean_acc_stderr,none"] > 0
    assert len(samples["worldcuisines_mcq_sample_circular_1a_nocontext"]) == len(docs)


def test_every_mcq_table_reports_position_bias_from_its_records():
    from food_tasks.utils import worldcuisines as hooks

    table = hooks.TABLES["mcq"]
    # gold ids 1, 2, 3, 4 once each; the model answers 1, 1, 1, unreadable; a document without its image is left out
    records = [
        {"parsed": 1, "gold": 1},
        {"parsed": 1, "gold": 2},
        {"parsed": 1, "gold": 3},
        {"parsed": None, "gold": 4},
        {"parsed": 2, "gold": 2, "image_missing": True},
    ]
    assert table["position_bias"](records) == {
        "1": {"chosen": 3, "gold": 1, "chosen_share": 100.0, "gold_share": 100 / 3},
        "2": {"chosen": 0, "gold": 1, "chosen_share": 0.0, "gold_share": 100 / 3},
        "3": {"chosen": 0, "gold": 1, "chosen_share": 0.0, "gold_share": 100 / 3},
    }
    # 3 answers read, chosen (3, 0, 0) against gold (1, 1, 1): column sums (4, 1, 1); of the C(6, 3) = 20 tables
    # the observed one and its mirror (chosen (1, 1, 1): 4 ways each) are the most extreme: p = 8 / 20 (Monte Carlo)
    assert table["position_bias_p"](records) == pytest.approx(0.4, abs=0.02)
    # recalls 1/1, 0/1, 0/1, 0/1 (the unread answer to gold 4 is a miss): RStd = 100 sqrt(3/16)
    assert table["position_rstd"](records) == pytest.approx(100 * math.sqrt(3) / 4)
