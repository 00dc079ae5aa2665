"""lmms-eval's markers for a request that produced no answer are scored as no answer, counted in every
benchmark's unparsed rate."""

from __future__ import annotations

import pytest

from food_tasks.hooks.convention import aggregate
from food_tasks.hooks.outputs import NoAnswer, backend_failure, model_output
from food_tasks.utils import diningbench as db
from food_tasks.utils import fambench as fb
from food_tasks.utils import food500cap as fc
from food_tasks.utils import foodieqa as fq
from food_tasks.utils import worldcuisines as wc


@pytest.mark.parametrize(
    "output",
    [
        "[LMMS_EVAL_REQUEST_FAILED after 2 retries] Error code: 500 - {'error': 'injected'}",
        "[LMMS_EVAL_REQUEST_FAILED after 5 retries] Connection error.",
        "[LMMS_EVAL_BUDGET_EXCEEDED]",
    ],
)
def test_markers_become_the_empty_output(output):
    assert backend_failure(output)
    assert model_output([output]) == ""


@pytest.mark.parametrize("output", ["2", "The answer is [LMMS_EVAL_REQUEST_FAILED", "", None, 3, ["x"]])
def test_other_outputs_pass_through_unchanged(output):
    assert not backend_failure(output)
    assert model_output([output]) is output


def test_empty_results_list():
    assert model_output([]) is None


def test_failed_request_is_invalid_not_option_2():
    # Scored as text, "after 2 retries" used to parse as option 2 (the gold here): a correct answer from a failure.
    doc = next(d for d in wc.docs_sample_1a(None) if int(d["multi_choice_answer"]) == 2)
    record = wc.process_results_mcq(doc, ["[LMMS_EVAL_REQUEST_FAILED after 2 retries] Error code: 500"])["acc"]
    assert record["parsed"] is None and record["invalid"] and not record["correct"] and not record["correct_official"]


def test_no_answer_is_the_empty_string_that_remembers_the_marker():
    import pickle

    from food_tasks.hooks.outputs import NoAnswer

    out = model_output(["[LMMS_EVAL_BUDGET_EXCEEDED]"])
    assert isinstance(out, NoAnswer) and out == "" and not out and out.reason == "[LMMS_EVAL_BUDGET_EXCEEDED]"
    back = pickle.loads(pickle.dumps(out))
    assert isinstance(back, NoAnswer) and back.reason == out.reason
    assert not isinstance(model_output([""]), NoAnswer)  # an empty answer is an answer (scored as the model gave it)


# Every benchmark's headline unparsed rate (and its official twin where one exists), with the value it takes
# when every request failed: a failed request is no answer, counted as unparsed, never left out.
_FAILED = "[LMMS_EVAL_REQUEST_FAILED after 2 retries] Error code: 500 - {'error': 'injected'}"
_UNPARSED = [
    pytest.param(
        wc.docs_sample_1a,
        None,
        wc.process_results_mcq,
        {"parse_fail_rate": 100.0, "invalid_rate": 100.0},
        id="worldcuisines_mcq",
    ),
    pytest.param(
        fb.docs_sample_task1,
        None,
        fb.process_results_task1,
        {"parse_fail_rate": 100.0, "json_parse_rate_official": 0.0},
        id="fambench_task1",
    ),
    pytest.param(
        fb.docs_sample_ctc,
        "rank",
        fb.process_results_rank,
        {"valid_ranking_rate": 0.0, "answer_rate_official": 0.0},
        id="fambench_rank",
    ),
    pytest.param(
        fb.docs_sample_ctc,
        "decision",
        fb.process_results_decision,
        {"valid_decision_rate": 0.0, "answer_rate_official": 0.0},
        id="fambench_decision",
    ),
    pytest.param(fq.docs_mivqa_zh_sample_p1, None, fq.process_results, {"parse_fail_rate": 100.0}, id="foodieqa_mivqa"),
    pytest.param(fq.docs_sivqa_en_sample_p3, None, fq.process_results, {"parse_fail_rate": 100.0}, id="foodieqa_sivqa"),
    pytest.param(
        fq.docs_textqa_zh_sample_p2, None, fq.process_results, {"parse_fail_rate": 100.0}, id="foodieqa_textqa"
    ),
    pytest.param(
        db.docs_sample_cls,
        None,
        db.process_results_cls,
        {"parse_fail_rate": 100.0, "parse_fail_rate_official": 100.0},
        id="diningbench_cls",
    ),
    pytest.param(
        db.docs_sample_nutrition,
        None,
        db.process_results_nutrition,
        {"parse_fail_rate": 100.0, "parse_fail_rate_official": 100.0},
        id="diningbench_nutrition",
    ),
    pytest.param(
        fc.docs_sample,
        None,
        fc.process_results,
        {"parse_fail_rate": 100.0, "empty_rate": 100.0},
        id="food500cap_caption",
    ),
]


@pytest.mark.parametrize(("docs", "kind", "process_results", "expected"), _UNPARSED)
def test_every_unparsed_rate_counts_a_failed_request(docs, kind, process_results, expected):
    assert isinstance(model_output([_FAILED]), NoAnswer)
    chosen = [d for d in docs(None) if kind is None or d["kind"] == kind][:3]
    payloads = [process_results(d, [_FAILED]) for d in chosen]
    assert chosen and all(p[next(iter(p))].failed for p in payloads)
    for metric, value in expected.items():
        assert aggregate([p[metric] for p in payloads]) == value, metric


def test_safe_str_and_utf8_safe_never_raise():
    from food_tasks.hooks.outputs import safe_str, utf8_safe

    deep: list = []
    for _ in range(10_000):
        deep = [deep]
    assert safe_str(deep) == "" and safe_str(10**5000) == ""  # str() raises RecursionError / ValueError on these
    assert safe_str(42) == "42" and safe_str(None) == "None" and safe_str("x\udf20") == "x\udf20"
    assert utf8_safe("Chi\udf20cken \ud800") == "Chi\ufffdcken \ufffd" and utf8_safe("煎饼 🍜") == "煎饼 🍜"
