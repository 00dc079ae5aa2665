"""One hedging rule in every robust MCQ parser (issue 43, item 3; CONTRIBUTING "5. Metrics").

An answer naming two different labels joined by nothing but a connector (``or``, ``and``, ``/``, ``,``, ``、``, ``或``,
``还是``, ``不是…就是`` ...) is a hedge: unparseable, counted in ``parse_fail_rate``. A label followed by another clause
(``A. (not B)``, ``A, because B is wrong``) is one answer, read by the usual steps; a decision stated after a hedge
(``A or B? Answer: B``) is read too. The table is ours, written for this rule, not the parsers' docstring examples.

Every robust MCQ parser of the pack goes through :func:`food_tasks.hooks.parsing.extract_choice`: regional MCQ,
WorldCuisines MCQ (ids 1-5), FoodieQA (and its bracketed-label fallback), DiningBench classification. FAM-Bench has no
single-answer robust parser (its robust Task 2 parsers read rankings and per-option decisions).
"""

from __future__ import annotations

import pytest

from food_tasks.benchmarks.diningbench import parsing as dining
from food_tasks.benchmarks.foodieqa import parsing as foodieqa
from food_tasks.benchmarks.worldcuisines import parsing as worldcuisines
from food_tasks.hooks.parsing import extract_choice, hedged

# (answer with {x} and {y} for two different labels, what it reads as: None for a hedge, "x" or "y" for that label)
HEDGES = [
    ("{x} or {y}", None),
    ("{x} OR {y}", None),
    ("{x}/{y}", None),
    ("{x} / {y}", None),
    ("{x} and {y}", None),
    ("{x} and/or {y}", None),
    ("{x}, {y}", None),
    ("{x}、{y}", None),
    ("{x} & {y}", None),
    ("either {x} or {y}", None),
    ("both {x} and {y} are right", None),
    ("It could be {x} or maybe {y}.", None),
    ("Answer: {x} or {y}", None),
    ("The answer is {x} or {y}.", None),
    ("The correct option is ({x}) or ({y})", None),
    ("({x}) or ({y})", None),
    ("Option {x} or option {y}", None),
    ("{x}或{y}", None),
    ("{x} 或者 {y}", None),
    ("{x}还是{y}", None),
    ("{x}和{y}", None),
    ("不是{x}就是{y}", None),
    ("要么{x}要么{y}", None),
    ("答案是{x}或{y}", None),
    ("答案：{x}、{y}", None),
    ("我选{x}或{y}", None),
    ("\\boxed{{x} or {y}}", None),
    ("<think>{y}?</think>{x} or {y}", None),
    ("Ｘ或Ｙ", None),  # full-width labels: NFKC makes them ASCII first (written with the labels below)
]
NOT_HEDGES = [
    ("{x}. (not {y})", "x"),
    ("The answer is {x}, because {y} is wrong", "x"),
    ("The answer is {x}; {y} is wrong", "x"),
    ("Answer: {x}. {y} is a different dish.", "x"),
    ("{y} or {x}? Answer: {x}", "x"),  # the decision after the hedge
    ("Not {y}. The answer is {x}.", "x"),
    ("答案是{x}，不是{y}", "x"),
    ("答案：{x}（{y}是错的）", "x"),
    ("选{x}。{y}不对", "x"),
    ("{x} or {x}", "x"),  # one label named twice: no hedge
    ("\\boxed{{x}} ({x} or {y} looked close)", "x"),  # a boxed answer is the stated decision
]


def _written(template: str, x: str, y: str) -> str:
    full = {c: chr(ord(c) + 0xFEE0) for c in "ABCDEFGHIJ12345"}
    if template == "Ｘ或Ｙ":
        return f"{full[x]}或{full[y]}"
    return template.replace("{x}", x).replace("{y}", y)


def _expected(expected: str | None, x: str, y: str) -> str | None:
    return None if expected is None else {"x": x, "y": y}[expected]


CASES = HEDGES + NOT_HEDGES


def _labels_read(parse, labels: tuple[str, ...], x: str, y: str):
    for template, expected in CASES:
        yield template, parse(_written(template, x, y)), _expected(expected, x, y)


@pytest.mark.parametrize(("x", "y"), [("B", "C"), ("A", "D"), ("D", "A")])
def test_shared_parser_letters(x: str, y: str) -> None:
    labels = ("A", "B", "C", "D")
    for template, got, want in _labels_read(lambda t: extract_choice(t, labels), labels, x, y):
        assert (None if got is None else labels[got]) == want, template


@pytest.mark.parametrize(("x", "y"), [("2", "3"), ("1", "4")])
def test_shared_parser_numbered_labels(x: str, y: str) -> None:
    """A regional task with ``labels: [1, 2, 3, 4]``."""
    labels = ("1", "2", "3", "4")
    for template, got, want in _labels_read(lambda t: extract_choice(t, labels), labels, x, y):
        assert (None if got is None else labels[got]) == want, template


@pytest.mark.parametrize(("x", "y"), [("2", "3"), ("4", "1")])
def test_worldcuisines_mcq(x: str, y: str) -> None:
    options = ["Rendang", "Pho", "Laksa", "Adobo", "Sate"]
    for template, got, want in _labels_read(lambda t: worldcuisines.extract_mcq_choice(t, options), (), x, y):
        assert (None if got is None else str(got)) == want, template


@pytest.mark.parametrize(("x", "y"), [("B", "C"), ("A", "D")])
def test_foodieqa(x: str, y: str) -> None:
    letters = foodieqa.LETTERS
    for template, got, want in _labels_read(lambda t: foodieqa.parse_robust(t), letters, x, y):
        assert (None if got is None else letters[got]) == want, template


def test_foodieqa_bracketed_fallback_keeps_the_hedge() -> None:
    """The bracketed-label fallback (``I think (c)``) does not read one label out of a hedge."""
    assert foodieqa.parse_robust("I think (c)") == 2
    assert foodieqa.parse_robust("(c) or B") is None
    assert foodieqa.parse_robust("(a) or (c)") is None


@pytest.mark.parametrize(("x", "y"), [("B", "C"), ("E", "A")])
def test_diningbench_classification(x: str, y: str) -> None:
    letters = ("A", "B", "C", "D", "E")
    for template, got, want in _labels_read(lambda t: dining.letter_robust(t, letters), letters, x, y):
        assert got == want, template


def test_english_words_are_not_labels() -> None:
    """ "a"/"I" before a lower-case word stay words at the end of a would-be hedge, as in the standalone step."""
    assert extract_choice("Answer: B or a variant of it") == 1
    assert extract_choice("B and a side of rice") == 1
    assert extract_choice("B or A bowl of noodles") == 1
    assert extract_choice("B or A is correct") is None  # "A is": a label (the standalone step's verbs)
    assert not hedged("Answer: B, a dish")
    assert hedged("answer: a or b")


def test_official_parsers_keep_their_rule() -> None:
    """``_official`` metrics keep the official parsers: DiningBench's first letter, WorldCuisines' first integer."""
    assert dining.letter_official("B or C") == "B"
    assert worldcuisines.official_mcq_parse("2 or 3", "") == 2
    assert foodieqa.first_letter("B or C") == "1"


def test_not_a_string_and_runaway_output() -> None:
    assert not hedged(None) and not hedged(b"A or B")
    long = "A or " * 200_000 + "B"  # 1 MB of hedge: one pass
    assert extract_choice(long) is None and hedged(long)
    assert extract_choice(" or" * 300_000 + " B") == 1
