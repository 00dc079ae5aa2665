"""WorldCuisines hooks on untrusted outputs (issue 10): runaway outputs parse as expected, non-strings are
unparseable answers (counted, never an exception). No timing asserts: bench/bench_parsers.py measures."""

from __future__ import annotations

import pytest

from food_tasks.benchmarks.worldcuisines import scoring as wc_scoring
from food_tasks.sample_data import SAMPLE_ROOT
from food_tasks.utils import worldcuisines as hooks

N = 16384
DOC = {
    "qa_id": "400",
    "lang": "en",
    "prompt_type": "1",
    "multi_choice_prompt": "What is this culinary dish called?\n1. Serabi\n2. Terang Bulan\n3. Syrniki\n4. Murtabak\n"
    "5. Sapin-sapin\n\nPrint only the answer with a single answer id (1,2,3,4,5).",
    "open_ended_prompt": "What is this culinary dish called?\n\nPrint only the answer.",
    "answer": "Serabi",
    "multi_choice_answer": 1,
    "options": ["Serabi", "Terang Bulan", "Syrniki", "Murtabak", "Sapin-sapin"],
    "answers_all": ["Serabi"],
    "answer_en": "Serabi",
    # a real image of the packaged sample: the hooks also check that the document's image loads
    "image_url": "https://example.org/food-tasks-sample/422.png?download",
    "kb_root": str(SAMPLE_ROOT),
}


@pytest.mark.parametrize(
    "output, expected",
    [
        ("Answer:" + " " * N + "3", 3),
        ("\n" * N + "1", 1),
        ("<think>" + "hmm " * (N // 4) + "</think>" + "\n" * N + "Answer: 2", 2),
        ("<think>" * (N // 7), None),  # unterminated reasoning: invalid
        ("</think>" * (N // 8) + "4", 4),  # text after the last stray closing tag
        ("(1, 2, 3, 4, 5) " * (N // 16), None),  # only the id-list echo
        ("1 - 5 " * (N // 6), None),  # only id ranges
        ("Serabi " * (N // 7), 1),  # option text repeated
        ("The answer is 3 because it is fried. " * (N // 38), 3),
        ("答案是" * (N // 3) + "5", 5),
        ("9" * N, None),
        (" " * N, None),
        ("```" + " " * N, None),
        ("{" * N, None),
    ],
)
def test_runaway_outputs(output: str, expected: int | None) -> None:
    record = hooks.process_results_mcq(DOC, [output])["acc"]
    assert record["parsed"] == expected
    assert record["invalid"] == (expected is None)


@pytest.mark.parametrize(
    "value", [None, 5, 1.5, float("nan"), True, ["1"], {"a": 1}, b"1", object()], ids=lambda v: type(v).__name__
)
def test_non_string_outputs_are_unparseable(value) -> None:  # type: ignore[no-untyped-def]
    record = hooks.process_results_mcq(DOC, [value])["acc"]
    assert record["parsed"] is None and record["invalid"] and not record["correct"]
    assert wc_scoring.invalid_rate([record]) > 0
    oeq = hooks.process_results_oeq_sample(DOC, [value])["acc_multi"]
    assert oeq["multi"] is False and oeq["single"] is False and oeq["multi_strict"] is False
