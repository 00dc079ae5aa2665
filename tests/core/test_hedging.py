"""One hedging rule in every robust MCQ parser (issue 43, item 3; CONTRIBUTING "5. Metrics").

An answer naming two different labels joined by nothing but a connector (``or``, ``and``, ``/``, ``,``, ``、``, ``或``,
``还是``, ``不是…就是`` ...) is a hedge: unparseable, counted in ``parse_fail_rate``. A label a contrast word rejects
(``B`` in ``A rather than B``, ``A (not B)``, ``Not B, it's A``) is never read. A label followed by another clause
(``A. (not B)``, ``Answer: A, because B is wrong``) is one answer, read by the usual steps; a decision stated after a
hedge (``A or B? Answer: B``) is read too.
The table is ours, written for this rule, not the parsers' docstring examples.

Every robust MCQ parser of the pack goes through :func:`food_tasks.hooks.parsing.extract_choice`: regional MCQ,
WorldCuisines MCQ (ids 1-5), FoodieQA (and its bracketed-label fallback), DiningBench classification. FAM-Bench has no
single-answer robust parser (its robust Task 2 parsers read rankings and per-option decisions).
"""

from __future__ import annotations

import re

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
    ("Answer: {x} (or {y})", None),  # a soft hedge: a bracket opens before the connector
    ("{x} (or maybe {y})", None),
    ("{x} or, {y}", None),
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
    # Contrasts: the rejected label is never read, the decided one is
    ("{x} rather than {y}", "x"),
    ("{y} instead of {x}", "y"),
    ("I'd take {x} over {y}", "x"),
    ("{y} (not {x})", "y"),
    ("{x}, not {y}", "x"),
    ("not {x} but {y}", "y"),
    ("Not option {y}, it's option {x}.", "x"),
    ("Option {y} rather than option {x}", "y"),
    ("{y}而非{x}", "y"),
    ("不是{y}，而是{x}", "x"),
    ("{x} rather than {y} or {x}", None),  # a hedge ({y} or {x}) stays unparseable
    ("{x} vs {y}", None),  # no contrast word: two labels, ambiguous
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


# Found by an independent check (88 answers written against the four robust parsers after the rule was built): what
# each reads. A hedge is unparseable; a contrast word ("rather than", "instead of", "over", "not", "而不是") reads the
# decided label. Before the fix six of these read the OTHER label ("A rather than B" -> B: the "A" was taken for the
# English article) and "Answer: A (or B)" read A. The rest with None name two labels and no contrast word: ambiguous,
# counted unparseable, never scored as either label.
INDEPENDENT_CHECK = [
    ("A or B", None),
    ("A/B", None),
    ("A and B", None),
    ("A或B", None),
    ("Answer: A or B", None),
    ("B or C", None),
    ("(A) or (C)", None),
    ("A、B", None),
    ("答案是A或B", None),
    ("A 或者 B", None),
    ("Answer: A/B", None),
    ("答案：B/D", None),
    ("A or B.", None),
    ("选A或C", None),
    ("The answer is C or D.", None),
    ("**B** or **D**", None),
    ("Ｂ或Ｃ", None),
    ("B and C", None),
    ("不是A就是B", None),
    ("A 和 B", None),
    ("I'd say A or B", None),
    ("\\boxed{A or B}", None),
    ("either A or B", None),
    ("A or maybe B", None),
    ("A, or possibly B", None),
    ("It's between A and B", None),
    ("Answer: A (or B)", None),
    ("可能是A也可能是B", None),
    ("A或B都有可能", None),
    ("A还是B，不确定", None),
    ("A和B都对", None),
    ("B, C", None),
    ("A, because B is wrong", None),  # two labels, no contrast word
    ("B is correct, A is not", None),  # two labels, no contrast word
    ("A (also known as Tteokbokki)", "A"),
    ("A (not B)", "A"),
    ("Answer: A, not B", "A"),
    ("Not A, it's B", "B"),
    ("A. B is a distractor.", "A"),
    ("The answer is C; D is close but wrong.", "C"),
    ("答案是C，不是D", "C"),
    ("选B，因为A是错的", "B"),
    ("B", "B"),
    ("(D)", "D"),
    ("答案：A", "A"),
    ("I choose C over A", "C"),
    ("A rather than B", "A"),
    ("Answer: B. Option A or C would be wrong.", None),  # the last statement is in a hedge
    ("B and only B", "B"),
    ("Between A and B, I pick B.", "B"),
    ("Neither A nor B; the answer is D.", "D"),
    ("Option B (A is tempting but wrong)", "B"),
    ("A/A", "A"),
    ("C. Not A or B.", "C"),
    ("答案是D，而不是A或B。", "D"),
    ("Final answer: C", "C"),
    ("A instead of B", "A"),
    ("A over B", "A"),
    ("A is better than B", None),  # two labels, no contrast word
    ("A, B is wrong", None),  # a hedge
    ("A because B is wrong", None),  # two labels, no contrast word
    ("Answer: A because B is wrong", "A"),
    ("A, since B is wrong", None),  # two labels, no contrast word
    ("B, not A", "B"),
    ("C rather than A", "C"),
    ("选A而不是B", "A"),
    ("是A，不是B", "A"),
    ("A，因为B不对", None),  # two labels, no contrast word
    ("The answer is A rather than B.", "A"),
    ("I prefer D to A", None),  # two labels, no contrast word
    ("A. The others (B, C, D) are wrong.", "A"),
    ("B; A and C are wrong", None),  # a hedge
    ("A or B or C", None),
    ("A/B/C", None),
    ("Answer: (B) / (C)", None),
    ("A or B? I think A or B.", None),
    ("答案可能是 A 或 B", None),
    ("A 與 B", None),
    ("A, B", None),
    ("A or, B", None),
    ("A or b", None),
    ("Answer: A rather than B", "A"),
    ("Answer: A instead of B", "A"),
    ("The answer is A rather than B", "A"),
    ("A over C", "A"),
    ("Option A rather than option B", "A"),
    ("D instead of C", "D"),
    ("A, rather than B", "A"),
]
_DIGIT = {"A": "1", "B": "2", "C": "3", "D": "4"}


def _ids(text: str) -> str:
    """The answer as WorldCuisines ids: standalone capitals A-D become 1-4."""
    return re.sub(r"(?<![A-Za-z])[A-D](?![A-Za-z])", lambda m: _DIGIT[m.group(0)], text)


@pytest.mark.parametrize(("text", "want"), INDEPENDENT_CHECK)
def test_found_by_an_independent_check(text: str, want: str | None) -> None:
    letters = ("A", "B", "C", "D")
    expected = None if want is None else letters.index(want)
    assert extract_choice(text, letters) == expected
    assert dining.letter_robust(text, letters) == want
    assert foodieqa.parse_robust(text) == expected
    if text != "A or b":  # a lower-case "b" is no WorldCuisines id
        options = ["Mapo tofu", "Kung Pao chicken", "Fish-fragrant pork", "Twice-cooked pork"]
        assert worldcuisines.extract_mcq_choice(_ids(text), options) == (None if want is None else expected + 1)


def test_a_contrast_never_reads_the_other_label() -> None:
    """Our own cases: a label after "not"/"rather than" is never what is read, and an "A" before a joining or
    contrast word is a label, not the English article that would leave the other label alone."""
    assert extract_choice("Why not A? B is wrong.") is None  # "not A?" is no contrast: two labels
    assert extract_choice("a rather than B") is None  # the lower-case "a" is no standalone label; B is rejected
    assert extract_choice("Option D rather than option b") == 3  # a rejected statement is skipped, any case
    assert extract_choice("A then C") is None and extract_choice("A versus C") is None
    assert extract_choice("Rather than A, B") is None  # no contrast pattern: ambiguous, not B by guess
    assert extract_choice("选C而不是D") == 2 and extract_choice("D而非C") == 3
    assert extract_choice("A notable dish is B") == 1  # "notable" is no "not": the article stays a word
    assert foodieqa.parse_robust("b rather than (c)") is None  # the bracketed fallback never reads a rejected label
    assert foodieqa.parse_robust("(c) rather than b") == 2
    long = "A rather than " * 100_000 + "B"  # 1.4 MB of contrasts: one pass
    assert extract_choice(long) == 0
