"""Caption clean-up and Semantic Label Accuracy matching (paper section 4.2.2 definition, our normalisation as
documented in yaml_tasks/food500cap/README.md), hand-computed."""

from __future__ import annotations

import pytest

from food_tasks.benchmarks.food500cap import parsing


@pytest.mark.parametrize(
    ("output", "expected"),
    [
        ("Five pieces of golden agedashi tofu.", ("Five pieces of golden agedashi tofu.", False)),
        ("<think>a plate\nof tofu</think>\n\nCaption: Golden tofu.", ("Golden tofu.", False)),
        ("<think>still thinking about the dish", ("", True)),  # unterminated reasoning: empty, counted
        ("Assistant: Caption: \u201cA bowl of pho.\u201d", ("A bowl of pho.", False)),
        ("**Answer:** A bowl of pho.", ("A bowl of pho.", False)),
        ("## A bowl\n\nof *pho*   with   lime", ("A bowl of pho with lime", False)),
        (
            "Description - sliced abalone. It sits on ice.",
            ("sliced abalone. It sits on ice.", False),
        ),  # never truncated
        ("", ("", False)),
        ("   \n ", ("", False)),
        (None, ("", True)),
        (42, ("", True)),
        (["a caption"], ("", True)),
    ],
)
def test_clean_caption(output, expected):
    assert parsing.clean_caption(output) == expected


@pytest.mark.parametrize(
    ("cat", "label"),
    [
        ("Agedashi_tofu", "agedashi tofu"),
        ("Ambrosia_(fruit_salad)", "ambrosia"),
        ("Pig's_ear", "pig's ear"),
        ("Deep-fried_peanuts", "deep-fried peanuts"),
        ("B\u0075\u0301n_ri\u0065\u0302\u0301u", "b\u00fan ri\u1ebfu"),  # NFD in, NFC out
        ("Dirty_Rice", "dirty rice"),
    ],
)
def test_normalize_label(cat, label):
    assert parsing.normalize_label(cat) == label


# (caption, cat) -> (accurate, relaxed, relaxed_nostop, accurate_unaccented, relaxed_unaccented)
SLA_CASES = [
    ("Five pieces of golden Agedashi-tofu? No: agedashi tofu, fried.", "Agedashi_tofu", (1, 1, 1, 1, 1)),
    ("Freshly cleaned abalones on ice.", "Abalone", (0, 0, 0, 0, 0)),  # plural: whole words only
    ("A shell of abalone.", "Abalone", (1, 1, 1, 1, 1)),
    ("Crispy chicken with a waffle.", "Chicken_and_waffles", (0, 1, 1, 0, 1)),  # "chicken" counts
    ("Pancakes and syrup.", "Chicken_and_waffles", (0, 0, 1, 0, 0)),  # "and" counts only without stop words
    ("Chicken and waffles, with cream.", "Chicken_and_waffles", (1, 1, 1, 1, 1)),
    ("A bowl of ambrosia.", "Ambrosia_(fruit_salad)", (1, 1, 1, 1, 1)),
    ("A fruit salad with cream.", "Ambrosia_(fruit_salad)", (0, 0, 0, 0, 0)),  # the qualifier is not the label
    ("Cig kofte wrapped in lettuce.", "\u00c7i\u011f_k\u00f6fte", (0, 0, 0, 1, 1)),
    ("\u00c7i\u011f k\u00f6fte wrapped in lettuce.", "\u00c7i\u011f_k\u00f6fte", (1, 1, 1, 1, 1)),
    ("Crispy pig\u2019s ear slices.", "Pig's_ear", (1, 1, 1, 1, 1)),  # typographic apostrophe
    ("Deep fried peanuts.", "Deep-fried_peanuts", (0, 1, 1, 0, 1)),  # the hyphen is part of the word
    ("Tofu soup.", "Agedashi_tofu", (0, 1, 1, 0, 1)),
    ("", "Agedashi_tofu", (0, 0, 0, 0, 0)),
]


@pytest.mark.parametrize(("caption", "cat", "expected"), SLA_CASES)
def test_sla(caption, cat, expected):
    got = parsing.sla(caption, cat)
    fields = ("accurate", "relaxed", "relaxed_nostop", "accurate_unaccented", "relaxed_unaccented")
    assert tuple(int(got[f]) for f in fields) == expected


def test_relaxed_tokens_fall_back_to_all_words_when_none_qualify():
    assert parsing.relaxed_tokens("chicken and waffles") == ["chicken", "waffles"]
    assert parsing.relaxed_tokens("yu la") == ["yu", "la"]
    assert parsing.relaxed_tokens("chicken and waffles", stop_words=False) == ["chicken", "and", "waffles"]


def test_runaway_output_is_cleaned_and_matched():
    # 16 KB+ of repetition with markup and an open reasoning tag in the middle of nowhere.
    text = "Caption: " + "golden agedashi tofu, " * 800 + "**" * 500 + "<think" * 300
    caption, failed = parsing.clean_caption(text)
    assert not failed and caption.startswith("golden agedashi tofu,")
    assert parsing.sla(caption, "Agedashi_tofu")["accurate"]
    assert parsing.clean_caption("<think>" + "x" * 20000) == ("", True)
