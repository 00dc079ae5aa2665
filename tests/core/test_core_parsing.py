"""Tests for food_tasks.hooks.parsing: the generic pieces every benchmark may use (hand-written expectations)."""

from __future__ import annotations

import re

import pytest

from food_tasks.hooks.parsing import (
    extract_choice,
    label_list_echo,
    label_range_echo,
    last_match,
    normalize_chars,
    strip_reasoning,
)

# The lazy block regex the linear strip_reasoning must agree with (the original implementation).
_BLOCK = re.compile(r"<(think(?:ing)?)\s*>.*?</\1\s*>", re.IGNORECASE | re.DOTALL)
_OPEN = re.compile(r"<think(?:ing)?\s*>", re.IGNORECASE)
_CLOSE = re.compile(r"</think(?:ing)?\s*>", re.IGNORECASE)
_ECHO = re.compile(r"^\s*(?:<\|assistant\|>\s*|(?:<\|im_start\|>)?assistant[ \t]*(?::|\r?\n)\s*)", re.IGNORECASE)


def _reference_strip(text: str) -> str | None:
    if "<" in text:
        text = _BLOCK.sub("", text)
        last = last_match(_CLOSE, text)
        if last is not None:
            text = text[last.end() :]
        if _OPEN.search(text):
            return None
    return _ECHO.sub("", text, count=1)


@pytest.mark.parametrize(
    "text",
    [
        "plain 3",
        "<think>a</think>B",
        "<think>a</think> x <think>b</think> y",
        "</think> tail",
        "<think>cut off",
        "<THINKING>x</thinking>ans",
        "<think>a<think>b</think>c</think>d",
        "<think> a </thinking> b",
        "<thinking> a <think> b </think> c",
        "x</think>y<think>z",
        "<think>1</think>2</think>3",
        "<think >q</think >r",
        "assistant\n<think>q</think>A",
        "<|im_start|>assistant\nB",
        "<thinkingx>keep</thinkingx>",
        "a<b<c</d",
        "<think>x</thinking></think>y",
        "<thinking>x</think>z</thinking>w",
    ],
)
def test_strip_reasoning_agrees_with_the_block_regex(text):
    assert strip_reasoning(text) == _reference_strip(text)


@pytest.mark.parametrize("value", [None, 3, 2.5, ["A"], {"a": 1}, b"A"])
def test_non_strings_are_unparseable(value):
    assert strip_reasoning(value) is None
    assert extract_choice(value) is None


def test_normalize_chars_full_width_and_digits():
    assert normalize_chars("（Ｂ）") == "(B)"
    assert normalize_chars("٣ and ５") == "3 and 5"
    assert normalize_chars("**B**") == "B"


@pytest.mark.parametrize(
    "output, expected",
    [
        ("B", 1),
        ("(C)", 2),
        ("D.", 3),
        ("【A】", 0),
        ("Ｂ", 1),
        ("（Ｃ）", 2),
        (" b ", 1),
        ("B. Mapo tofu", 1),
        ("(D) the last one", 3),
        ("Answer: C", 2),
        ("The answer is (B).", 1),
        ("**Answer:** D", 3),
        ("the correct option is A", 0),
        ("I choose C because it is red.", 2),
        ("答案是B", 1),
        ("答案：Ｃ", 2),
        ("选B", 1),
        ("图C", 2),
        ("选项：D", 3),
        ("应该选择 A 。", 0),
        ("第二张", 1),
        ("第4个", 3),
        ("第五张", None),
        ("I think it's B", 1),
        ("A bowl of noodles, so B", 1),
        ("A bowl of noodles", None),
        ("A is correct", 0),
        ("B or C", None),
        ("E", None),
        ("\\boxed{C}", 2),
        ("so \\boxed{\\text{B}}", 1),
        ("<think>A? maybe C</think>Answer: D", 3),
        ("<think>unterminated A", None),
        ("", None),
        ("   ", None),
        ("Answer: A ... actually, Answer: B", 1),
        ("BA", None),
    ],
)
def test_extract_choice_letters(output, expected):
    assert extract_choice(output, ("A", "B", "C", "D")) == expected


def test_extract_choice_numbers_and_option_text():
    assert extract_choice("Answer: 2", ("A", "B", "C", "D"), numbers=True) == 1
    assert extract_choice("Answer: 2", ("A", "B", "C", "D")) is None
    assert extract_choice("It is Chicken Kiev.", ("A", "B"), options=["Chicken", "Chicken Kiev"]) == 1
    assert extract_choice("H", tuple("ABCDEFGH")) == 7


IDS = ("1", "2", "3", "4", "5")
FOUR = ["Meeshay", "Mì Quảng", "Rice noodle roll", "Khow suey"]


@pytest.mark.parametrize(
    "output, labels, n_options, options, expected",
    [
        ("5", IDS, None, None, 4),
        ("5", IDS, 4, None, None),  # the instruction announced 5, the row has 4 options: an answer for none
        ("4", IDS, 4, None, 3),
        ("Answer: 5, Khow suey", IDS, 4, FOUR, None),  # the statement names a missing option: not read past
        ("Khow suey", IDS, 4, FOUR, 3),
        ("I think 5", IDS, 4, None, None),  # the one standalone id is out of range
        ("\\boxed{5}", IDS, 4, None, None),
        ("第五个", IDS, 4, None, None),
        ("第四个", IDS, 4, None, 3),
        ("E. Ramen", tuple("ABCDE"), 4, ["Pho", "Ramen", "Udon", "Soba"], None),  # E is a label, of no option
        ("E. Ramen", tuple("ABCD"), None, ["Pho", "Ramen", "Udon", "Soba"], 1),  # E is no label: option text
        ("D", tuple("ABCD"), 9, None, 3),  # more options than labels: every label names one
        ("1", IDS, 0, [], None),
    ],
)
def test_extract_choice_n_options(output, labels, n_options, options, expected):
    assert extract_choice(output, labels, n_options=n_options, options=options) == expected


ID_ECHOES = (label_list_echo(IDS), label_range_echo(IDS))
LETTER_ECHOES = (label_list_echo(tuple("ABCD")), label_range_echo(tuple("ABCD")))


@pytest.mark.parametrize(
    "output, labels, echoes, expected",
    [
        ("(1,2,3,4,5) 5", IDS, (), None),  # five standalone ids: ambiguous
        ("(1,2,3,4,5) 5", IDS, ID_ECHOES, 4),
        ("1, 2, 3, 4, or 5? 2", IDS, ID_ECHOES, 1),
        ("Pick one from 1 to 5: 3", IDS, (), None),
        ("Pick one from 1 to 5: 3", IDS, ID_ECHOES, 2),
        ("Options 1–5: 3", IDS, ID_ECHOES, 2),  # en dash
        ("1-5", IDS, ID_ECHOES, None),  # nothing left
        ("[A, B, C, D] B", tuple("ABCD"), (), None),
        ("[A, B, C, D] B", tuple("ABCD"), LETTER_ECHOES, 1),
        ("Options A-D: C", tuple("ABCD"), (), None),
        ("Options A-D: C", tuple("ABCD"), LETTER_ECHOES, 2),
    ],
)
def test_extract_choice_echoes(output, labels, echoes, expected):
    assert extract_choice(output, labels, echoes=echoes) == expected


def test_label_echo_patterns():
    ids_list, ids_range = ID_ECHOES
    assert ids_list.sub("#", "(1,2,3,4,5).") == "#."
    assert ids_list.sub("#", "1, 2, 3, 4 or 5") == "1, 2, 3, 4 or 5"  # "or" only after a comma, as announced
    assert ids_list.sub("#", "11,2,3,4,5") == "11,2,3,4,5"  # a digit label never starts inside a number
    assert ids_range.sub("#", "1-5, 1 to 5, 1 à 5, 2~4, 1 bis 5") == "#, #, #, #, #"
    assert ids_range.sub("#", "12-5 and 1-56") == "12-5 and 1-56"
    assert LETTER_ECHOES[1].sub("#", "A-D, a to d, BA-D") == "#, #, BA-D"  # a letter label not inside a word
    with pytest.raises(ValueError):
        label_list_echo(("A",))


@pytest.mark.parametrize(
    "output",
    ["(1, 2, 3, 4, 5) " * 4000, "1 - 5 " * 3000, "1 to " * 4000, "Answer: " * 2000, "\n" * 16000],
)
def test_echoes_on_runaway_outputs(output):
    assert extract_choice(output, IDS, n_options=4, echoes=ID_ECHOES) is None


# A regex with backtracking on any of these would take minutes, not milliseconds: the per-test limit (pytest-timeout)
# makes such a blow-up a failure of this test instead of a hung suite. Generous: a limit, not a timing assertion.
@pytest.mark.timeout(60)
@pytest.mark.parametrize(
    ("output", "expected"),
    [
        ("<think>" * 4000, None),  # reasoning never closed: invalid
        ("```" + " " * 16000, None),
        ("{" * 16384, None),
        ("Answer: " * 2000, None),  # an answer word with no label after it
        ("\n" * 16000, None),
        ("A " * 8000, 0),  # one distinct standalone label, however often: A
        ("第" * 16000, None),  # an ordinal marker with no number
        ("\\boxed{" * 3000, None),  # never closed
        ("x " * 8000 + "Answer: C", 2),  # a statement after a runaway preamble is still read
        ("<think>" + "1 " * 8000 + "</think>Answer: 2", 1),  # a long reasoning block removed; 2 is B
    ],
)
def test_runaway_outputs_are_handled(output, expected):
    # Correctness only (timings live in bench/): each returns its hand-read answer (None: unparsed), never raises.
    assert extract_choice(output, tuple("ABCDEFGH"), numbers=True) == expected
