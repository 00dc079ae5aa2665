"""lmms-eval's markers for a request that produced no answer are scored as no answer."""

from __future__ import annotations

import pytest

from food_tasks.outputs import backend_failure, model_output
from food_tasks.utils import worldcuisines as wc


@pytest.mark.parametrize(
    "output",
    ["[LMMS_EVAL_REQUEST_FAILED after 2 retries] Error code: 500 - {'error': 'injected'}",
     "[LMMS_EVAL_REQUEST_FAILED after 5 retries] Connection error.", "[LMMS_EVAL_BUDGET_EXCEEDED]"],
)  # fmt: skip
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

    from food_tasks.outputs import NoAnswer

    out = model_output(["[LMMS_EVAL_BUDGET_EXCEEDED]"])
    assert isinstance(out, NoAnswer) and out == "" and not out and out.reason == "[LMMS_EVAL_BUDGET_EXCEEDED]"
    back = pickle.loads(pickle.dumps(out))
    assert isinstance(back, NoAnswer) and back.reason == out.reason
    assert not isinstance(model_output([""]), NoAnswer)  # an empty answer is an answer (scored as the model gave it)


def test_safe_str_and_utf8_safe_never_raise():
    from food_tasks.outputs import safe_str, utf8_safe

    deep: list = []
    for _ in range(10_000):
        deep = [deep]
    assert safe_str(deep) == "" and safe_str(10**5000) == ""  # str() raises RecursionError / ValueError on these
    assert safe_str(42) == "42" and safe_str(None) == "None" and safe_str("x\udf20") == "x\udf20"
    assert utf8_safe("Chi\udf20cken \ud800") == "Chi\ufffdcken \ufffd" and utf8_safe("煎饼 🍜") == "煎饼 🍜"
