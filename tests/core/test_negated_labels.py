"""A label the answer negates is never read as its choice, in every robust MCQ parser (CONTRIBUTING "5. Metrics").

``Not C.``, ``It is not C.``, ``C is wrong.``, ``Answer: not D``, ``Definitely not B``, ``不是C``, ``C不对``: the answer
names one label and rejects it, so it chose nothing: unparseable, counted in ``parse_fail_rate``. A negation only
vetoes the label it negates; it never makes another label the answer (that is a contrast word's job, test_hedging.py):
two labels with no statement and no contrast word stay ambiguous (``It's B. I don't think it's C.``). An answer that
states its choice and merely mentions a negation elsewhere (``The answer is B; it is not about C's sauce``,
``A. Not spicy.``, ``Option C, not D``) reads that choice.

Decisions where the text is open to reading:
- ``I cannot say it is not A``: a double negative is not read as a choice of A (never guess): unparseable.
- ``Why not A?``: a question, no decision: unparseable.
- ``C is not wrong``: "not wrong" is no negation of C (only wrong / incorrect / not correct / not right / not the
  answer are): reads C.

The table is ours, written for this rule before it was built, not copies of the code's examples. Each case runs
through the shared parser (regional MCQ), DiningBench classification, FoodieQA (with its bracketed fallback) and
WorldCuisines MCQ (letters A-D written as ids 1-4).
"""

from __future__ import annotations

import re

import pytest

from food_tasks.benchmarks.diningbench import parsing as dining
from food_tasks.benchmarks.foodieqa import parsing as foodieqa
from food_tasks.benchmarks.worldcuisines import parsing as worldcuisines
from food_tasks.hooks.parsing import extract_choice

# Decided answers that merely mention a negation elsewhere: the decision is read.
DECIDED = [
    ("The answer is B; it is not about C's sauce", "B"),
    ("A. Not spicy.", "A"),
    ("Option C, not D", "C"),
    ("Not C. The answer is A.", "A"),
    ("B. Not C.", "B"),
    ("Answer: D. It is not a soup.", "D"),
    ("I'm not sure, but I think it's C.", "C"),
    ("Not sure. C", "C"),
    ("It isn't a dumpling, so the answer is A.", "A"),
    ("The answer is definitely B, not C.", "B"),
    ("答案是B，它不是汤。", "B"),
    ("选C，不是很辣。", "C"),
    ("非常好，答案是A", "A"),
    ("B, which is not fried.", "B"),
    ("Option A is not spicy, but it is the answer.", "A"),
    ("D. The others are not correct.", "D"),
    ("I would not pick the spicy one; I pick B.", "B"),
    ("B is correct. It's not a noodle dish.", "B"),
    ("Never had it, but C looks right.", "C"),
    ("The answer is A rather than B; B is wrong.", "A"),
    ("Answer: (B). Not (C).", "B"),
    ("C, definitely not A.", "C"),
    ("答案：A。B不对。", "A"),
    ("选B，排除C。", "B"),
    ("The answer is C. D is not correct.", "C"),
    ("Not D but C", "C"),
    ("It's not D, it's C.", "C"),
    ("不是D，而是C", "C"),
    ("Answer: B (not spicy, not fried)", "B"),
    ("No, the answer is A.", "A"),
    ("I don't know this dish well, but I choose D.", "D"),
    ("A. It's not B because B is fried.", "A"),
    ("C is not wrong.", "C"),
    ("The answer is A. Not B, not C, not D.", "A"),
    ("It's B. I don't think it's C.", None),  # two labels, no statement, no contrast word: ambiguous
    ("是第二张，不是第三张", "B"),  # a Chinese ordinal: the one no negation rejects
]
# Answers that negate the one label they name: no choice, unparseable.
NEGATED = [
    ("Not C.", None),
    ("It is not C.", None),
    ("C is wrong.", None),
    ("Answer: not D", None),
    ("Definitely not B", None),
    ("The answer is not A.", None),
    ("The answer isn't B", None),
    ("It can't be D.", None),
    ("I would not choose C.", None),
    ("I wouldn't pick option A.", None),
    ("(C) is incorrect.", None),
    ("C) is not correct", None),
    ("Option B is wrong.", None),
    ("B is not the correct answer.", None),
    ("D is not right.", None),
    ("C isn't correct", None),
    ("C can be eliminated.", None),
    ("I'd rule out C.", None),
    ("Not (C)", None),
    ("not C", None),
    ("**Not C**", None),
    ("\\boxed{not C}", None),
    ("I cannot say it is not A", None),  # a double negative is not read as a choice
    ("Why not A?", None),  # a question, no decision
    ("Definitely not B, and not A either.", None),
    ("不是C", None),
    ("答案不是C。", None),
    ("非C", None),
    ("排除C", None),
    ("C不对", None),
    ("C是错误的", None),
    ("选项C不正确", None),
    ("C 错误", None),
    ("No es C.", None),
    ("Não é B.", None),
    ("Ce n'est pas B.", None),
    ("Nicht D.", None),
    ("Bukan A.", None),
    ("Không phải C.", None),
    ("Не C.", None),
    ("C değil.", None),
    ("Cではない。", None),
    ("C는 오답입니다.", None),
    ("ไม่ใช่ C", None),
    ("不是第二张。", None),
]
CASES = DECIDED + NEGATED
LETTERS = ("A", "B", "C", "D")
_DIGIT = {"A": "1", "B": "2", "C": "3", "D": "4"}
OPTIONS = ["Mapo tofu", "Kung Pao chicken", "Fish-fragrant pork", "Twice-cooked pork"]


def _ids(text: str) -> str:
    """The answer as WorldCuisines ids: standalone capitals A-D become 1-4."""
    return re.sub(r"(?<![A-Za-z])[A-D](?![A-Za-z])", lambda m: _DIGIT[m.group(0)], text)


def _index(want: str | None) -> int | None:
    return None if want is None else LETTERS.index(want)


@pytest.mark.parametrize(("text", "want"), CASES)
def test_shared_parser(text: str, want: str | None) -> None:
    """The shared parser, as regional MCQ tasks call it (letters, and numbered labels ``1``-``4``)."""
    assert extract_choice(text, LETTERS) == _index(want)
    assert extract_choice(_ids(text), ("1", "2", "3", "4")) == _index(want)


@pytest.mark.parametrize(("text", "want"), CASES)
def test_diningbench_classification(text: str, want: str | None) -> None:
    assert dining.letter_robust(text, LETTERS) == want


@pytest.mark.parametrize(("text", "want"), CASES)
def test_foodieqa(text: str, want: str | None) -> None:
    assert foodieqa.parse_robust(text) == _index(want)


@pytest.mark.parametrize(("text", "want"), CASES)
def test_worldcuisines_mcq(text: str, want: str | None) -> None:
    assert worldcuisines.extract_mcq_choice(_ids(text), OPTIONS) == (None if want is None else _index(want) + 1)


def test_foodieqa_bracketed_fallback_reads_no_negated_label() -> None:
    """The fallback that upper-cases ``(c)`` still sees the negation."""
    assert foodieqa.parse_robust("I think (c)") == 2
    assert foodieqa.parse_robust("not (c)") is None
    assert foodieqa.parse_robust("(c) is wrong") is None


def test_official_parsers_keep_their_rule() -> None:
    """``_official`` metrics keep the official parsers, which read the first label whatever negates it."""
    assert dining.letter_official("C is wrong") == "C"
    assert worldcuisines.official_mcq_parse("3 is wrong", "") == 3
    assert foodieqa.first_letter("Not C") == "2"


def test_runaway_output() -> None:
    """1 MB of negations is read in one pass (timings are in bench/, not here)."""
    assert extract_choice("not " * 250_000 + "C") is None
    assert extract_choice("C is wrong " * 100_000) is None
    assert extract_choice("Not C. " * 150_000 + "The answer is A.") == 0
    assert extract_choice("不是" * 300_000 + "C") is None
