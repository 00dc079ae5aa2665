"""The results JSON's ``higher_is_better`` says the truth for every metric we write (issue 34, item 7).

lmms-eval builds it from each task's ``metric_list`` (so it lacks the measures we compute across tasks:
``misled_rate``, ``hint_gain``, ``image_gain`` ...), marks counts, breakdowns and p-values as scores, and gives every
group one shared dict holding the metrics of all groups' tasks. Ours: True for a score, False where lower is better,
null for a count, a breakdown or a diagnostic (:func:`food_tasks.lmms.results_table.directions`), and the printed
table's arrows say the same.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from conftest import run_lmms_eval

from food_tasks.hooks.convention import Metric
from food_tasks.lmms import results_table
from food_tasks.lmms.results_table import directions

GOLDEN = Path(__file__).resolve().parents[1] / "pins" / "golden" / "A_results.json"
TASKS = (
    "worldcuisines_mcq_sample",
    "worldcuisines_oeq_sample",
    "diningbench_cls_sample",
    "diningbench_cls_sample_noimage",
)
# Documents answered in turn: letters (MCQ), a dish name and an empty answer (OEQ).
ANSWERS = ("A", "B", "C", "Serabi", "", "3")
SUFFIXES = ("_stderr", "_stderr_clt", "_stderr_clustered", "_stderr_method", "_stderr_ci", "_n", "_clusters")
ARROWS = {True: "↑", False: "↓", None: ""}

# By hand, from each metric's meaning.
CLS = {
    "acc": True,
    "acc_official": True,
    "invalid_rate": False,
    "cannot_read_rate_official": False,
    "parse_fail_rate": False,
    "parse_fail_rate_official": False,
    "position_rstd": False,  # the spread of per-position recall
    "truncated_rate": False,  # outputs that ran out of tokens
    "image_missing": None,  # a count
    "position_bias": None,  # a breakdown per position
    "position_bias_p": None,  # a p-value
}
MCQ_TASK = {
    "acc": True,
    "acc_official": True,
    "invalid_rate": False,
    "parse_fail_rate": False,
    "position_rstd": False,
    "truncated_rate": False,
    "xling_all_correct": True,
    "xling_agreement": True,
    "image_missing": None,
    "per_language": None,
    "position_bias": None,
    "position_bias_p": None,
    "xling_gap_to_en": None,  # a breakdown per language
    "xling_by_lang_status": None,  # a breakdown per status
}
OEQ_TASK = {
    "acc_single": True,
    "acc_multi": True,
    "acc_dual": True,
    "acc_multi_strict": True,
    "acc_single_official": True,
    "acc_multi_official": True,
    "acc_dual_official": True,
    "truncated_rate": False,
    "xling_all_correct": True,
    "image_missing": None,
    "per_language": None,
    "xling_gap_to_en": None,
    "xling_by_lang_status": None,
}
CONTEXT = {
    "misled_rate": False,
    "misled_rate_same_image": False,
    "hint_gain": True,
    "hint_gain_same_image": True,
    # the misled rate's control (a correct hint turning a right answer wrong) and the excess over it: lower is better
    "context_loss_rate": False,
    "misled_excess": False,
}
MCQ_GROUP = {"acc": True, "acc_official": True, "invalid_rate": False, "parse_fail_rate": False, **CONTEXT}
OEQ_GROUP = {k: True for k in OEQ_TASK if k.startswith("acc")} | CONTEXT


@pytest.fixture(scope="module")
def run(tmp_path_factory):
    work = tmp_path_factory.mktemp("directions")
    responses = work / "responses.jsonl"
    lines = (json.dumps({"doc_id": i, "response": ANSWERS[i % len(ANSWERS)]}) for i in range(400))
    responses.write_text("\n".join(lines) + "\n", encoding="utf-8")
    args = ["--model", "food_tasks_replay", "--model_args", f"responses={responses}", "--tasks", ",".join(TASKS)]
    proc, results, _ = run_lmms_eval(args, work / "out")
    assert results is not None, proc.stderr[-3000:]
    return proc, results


@pytest.mark.e2e
def test_the_results_file_gives_every_metric_its_direction(run):
    _, results = run
    found = results["higher_is_better"]
    assert found["diningbench_cls_sample_noimage"] == CLS
    # The task whose image-free twin ran: image_gain is its headline's (acc: higher is better), and the share
    # answerable without the image is no score.
    assert found["diningbench_cls_sample"] == CLS | {"image_gain": True, "answerable_without_image": None}
    for part in ("1a_nocontext", "1b_contextualized", "1c_adversarial", "2_location"):
        assert found[f"worldcuisines_mcq_sample_{part}"] == MCQ_TASK, part
        assert found[f"worldcuisines_oeq_sample_{part}"] == OEQ_TASK, part
    # Each group its own metrics (lmms-eval gave both the metrics of both), the context measures included.
    assert found["worldcuisines_mcq_sample"] == MCQ_GROUP
    assert found["worldcuisines_oeq_sample"] == OEQ_GROUP


@pytest.mark.e2e
def test_every_metric_of_every_row_has_an_entry_and_the_table_agrees(run):
    proc, results = run
    arrows: dict[str, set[str]] = {}
    for name, row in results["results"].items():
        metrics = {k.partition(",")[0] for k in row if "," in k and not k.partition(",")[0].endswith(SUFFIXES)}
        assert metrics == set(results["higher_is_better"][name]), name
        for metric in metrics:
            arrows.setdefault(metric, set()).add(ARROWS[results["higher_is_better"][name][metric]])
    printed: dict[str, set[str]] = {}
    for cells in (line.split("|") for line in proc.stdout.splitlines()):
        if len(cells) > 6 and cells[4].strip() in arrows:
            printed.setdefault(cells[4].strip(), set()).add(cells[5].strip())
    # truncated_rate is 0 in every row (no reasoning in the answers): the table leaves it out where it is 0.
    assert "truncated_rate" not in printed and arrows.pop("truncated_rate") == {"↓"}
    assert printed == arrows


def test_a_lower_is_better_headline_makes_a_lower_image_gain_better(monkeypatch):
    mae = Metric("mae", len, higher_is_better=False, scale="native", estimator=None)
    monkeypatch.setattr(results_table, "_metrics", lambda task, config: {"mae": mae})
    monkeypatch.setattr(results_table, "headline", lambda task, config: "mae")
    results = {
        "results": {"t": {"mae,none": 3.0, "image_gain,none": -1.0, "answerable_without_image,none": 4.0}},
        "configs": {"t": {}},
        "higher_is_better": {"t": {"mae": False}},
    }
    assert directions(results, {"t"}) == {"t": {"mae": False, "answerable_without_image": None, "image_gain": False}}


def test_groups_take_the_direction_their_members_agree_on_and_rows_not_ours_are_kept():
    results = {
        "results": {
            "ours": {"alias": "ours", "x,none": 1.0, "y,none": 2.0},
            "a": {"x,none": 1.0, "y,none": 1.0},
            "b": {"x,none": 1.0, "y,none": 3.0},
            "theirs": {"x,none": 1.0},
        },
        "group_subtasks": {"ours": ["a", "b"], "a": [], "b": [], "theirs": ["c"]},
        # lmms-eval's: one dict shared by the groups, holding a metric of another group's task
        "higher_is_better": {
            "ours": {"x": True, "y": None, "z": True},
            "a": {"x": True, "y": True},
            "b": {"x": True, "y": False},
            "theirs": {"x": True, "y": None, "z": True},
        },
    }
    found = directions(results, {"a", "b"})
    assert found["ours"] == {"x": True, "y": None} and found["theirs"] == {"x": True, "y": None, "z": True}
    assert results["higher_is_better"]["ours"] == {"x": True, "y": None, "z": True}  # the input is not modified


def test_the_golden_run_gives_counts_breakdowns_and_p_values_no_direction():
    """The pinned sample run (written before the fix): every direction it states, as the results file now says it."""
    data = json.loads(GOLDEN.read_text(encoding="utf-8"))
    from food_tasks.registration import our_names

    found = directions(data, our_names())
    nulls = {m for row in found.values() for m, up in row.items() if up is None}
    assert nulls == set(
        "captions_cut ctc_pairs ctc_pool gold_missing image_missing mean_caption_words range_values"
        " reference_mean_words per_category per_condition per_language per_question_type"
        " per_question_type_paper_protocol per_region position_bias position_bias_p xling_by_lang_status"
        " xling_gap_to_en".split()
    )
    by = {d: {m for row in found.values() for m, up in row.items() if up is d} for d in (True, False)}
    assert {"misled_rate", "misled_rate_same_image", "position_rstd", "calories_mae", "empty_rate"} <= by[False]
    # rationale_macro_f1_by_condition is one number (the macro F1 averaged over the conditions), not a breakdown
    assert {"hint_gain", "hint_gain_same_image", "xling_agreement", "cider", "rationale_macro_f1_by_condition"} <= by[
        True
    ]


def test_the_judge_rates_are_lower_is_better():
    found = results_table._metrics("diningbench_vqa_en", {})
    assert {m: found[m].direction for m in ("judge_acc", "judge_error_rate", "judge_unparsed_rate", "rouge1_f")} == {
        "judge_acc": True,
        "judge_error_rate": False,
        "judge_unparsed_rate": False,
        "rouge1_f": True,
    }
