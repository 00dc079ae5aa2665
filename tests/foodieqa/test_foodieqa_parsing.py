"""FoodieQA parsers: the robust parser (``acc``), every quirk of the official parsers (lyan62/FoodieQA@4d726407
``model-eval/scripts/get_accuracy.py`` and ``utils.py``) as a table, and linear-time behaviour on runaway outputs."""

from __future__ import annotations

import pytest

from food_tasks.benchmarks.foodieqa import parsing

OPTS_ZH = ["京菜", "徽菜", "新疆菜", "桂菜"]
OPTS_EN = ["Beijing cuisine", "Anhui cuisine", "Xinjiang cuisine", "Guizhou cuisine"]

# (output, opener, options, numbers) -> expected index (None = invalid)
ROBUST = [
    ("B", "(", OPTS_EN, False, 1),
    ("B) Anhui cuisine", "(", OPTS_EN, False, 1),
    ("Answer: B", "(", OPTS_EN, False, 1),  # officially A (from "Answer")
    ("Based on the image, C", "(", OPTS_EN, False, 2),  # officially B (from "Based")
    ("Ｃ", "（", OPTS_ZH, False, 2),  # full-width
    ("c", "(", OPTS_EN, False, 2),  # lower-case continuation of "("
    ("I think (c)", "(", OPTS_EN, False, 2),
    ("<think>The options A and B look alike…</think> C", "(", OPTS_EN, False, 2),
    ("<think>A or B", "(", OPTS_EN, False, None),  # unterminated reasoning
    ("C）新疆菜", "（", OPTS_ZH, False, 2),
    ("答案是 B", "（", OPTS_ZH, False, 1),
    ("B", "图", None, True, 1),
    ("图C", "图", None, True, 2),
    ("第二张", "图", None, True, 1),
    ("Picture 4", "(", None, True, 3),
    ("Option (E)\nPicture 5: the dish is …", "(", None, True, None),
    ("A dish from Xinjiang", "(", None, True, None),  # English article, not option A
    ("Liangpi.", "图", None, True, None),  # a dish name cannot be mapped to an image
    ("Rice.", "(", None, True, None),
    ("A.", "图", None, True, 0),  # officially random under parse_mantis
    ("C", "图", None, True, 2),  # officially random under parse_idefics (no 图 in the output)
    ("新疆菜", "（", OPTS_ZH, False, 2),  # option text (sivqa/textqa)
    ("Xinjiang cuisine", "(", OPTS_EN, False, 2),
    ("B or C", "(", OPTS_EN, False, None),  # two candidates
    ("(b) or (c)", "(", OPTS_EN, False, None),
    ("", "(", OPTS_EN, False, None),
    (None, "(", OPTS_EN, False, None),
    (42, "(", OPTS_EN, False, None),
    (["B"], "(", OPTS_EN, False, None),
]


@pytest.mark.parametrize("output,opener,options,numbers,expected", ROBUST)
def test_robust_parser(output, opener, options, numbers, expected):
    assert parsing.parse_robust(output, opener, options, numbers=numbers) == expected


# Official parsers: (parser, response, template) -> official string, None = random fallback / exception.
OFFICIAL = [
    ("first_letter", "Answer: B", 0, "0"),  # observed: Idefics2 sivqa output vqa-1 read as A
    ("first_letter", "Option (E)\nPicture 5: the dish is …", 0, None),
    ("first_letter", "Based on the image, C", 0, "1"),
    ("first_letter", "Ｃ", 0, None),  # full-width is not [A-D]
    ("first_letter", "I think (c)", 0, None),  # lower case ignored
    ("first_letter", "<think>The options A and B look alike…</think> C", 0, "0"),
    ("first_letter", "Liangpi.", 0, None),
    ("first_letter", "Rice.", 0, None),
    ("after_assistant", "User: Q (A) x\nAssistant: B", 0, "1"),
    ("after_assistant", "\nAssistant: A\nAssistant: C", 0, "2"),  # the last "\nAssistant:"
    ("idefics", "User: ...\nAssistant: 图B", 0, "1"),
    ("idefics", "User: ...\nAssistant: C", 0, None),  # no 图: exception -> random
    ("idefics", "User: ...\nAssistant: 图", 0, None),
    ("idefics_sivqa", "User: ...\nAssistant: B) x", 0, "1"),
    ("idefics_sivqa", "User: ...\nAssistant: (B)", 0, None),
    ("mantis", "A", 0, "0"),
    ("mantis", "A.", 0, None),
    ("mantis", "", 0, None),
    ("qwen_sivqa", "用户：问题 选项有: （A) 京菜 ... 为（C", 0, "0"),  # first （ is in the echoed prompt
    ("qwen_sivqa", "C", 0, None),
    ("qwen_en", "Human: ... my answer would be (B", 0, "1"),
    ("qwen_en", "Human: ... Assistant: I would select (D)", 3, "3"),
    ("qwen_en", "Answer: C", 1, "0"),  # marker absent: whole text, "Answer" -> A
    ("textqa", "我从所提供的选项中选择一个正确答案，为（B", 0, "1"),
    ("textqa", "我选择（C）", 2, "2"),
    ("textqa", "Answer是B", 3, "0"),
    ("textqa", "无法回答", 3, None),  # seeded 42 every call officially: always "0"
]


@pytest.mark.parametrize("name,response,template,expected", OFFICIAL)
def test_official_parsers(name, response, template, expected):
    assert parsing.OFFICIAL[name](response, template) == expected


def test_paper_parse_uses_first_letter_for_vqa_and_the_textqa_split():
    assert parsing.parse_paper("  Answer: B", "sivqa", 0) == 0
    assert parsing.parse_paper("C", "mivqa", 3) == 2
    assert parsing.parse_paper("我选择（D）", "textqa", 3) == 3
    assert parsing.parse_paper(None, "textqa", 3) is None
    assert parsing.parse_paper("??", "mivqa", 0) is None


@pytest.mark.parametrize("unit", ["Answer: B ", "图A图B", "(((((", "<think>", "第", "A" * 7 + " "])
def test_runaway_outputs_are_linear(unit):
    """100 KB+ of repetition parses (quadratic behaviour would hang here; timings: bench/bench_foodieqa.py)."""
    text = unit * 20000
    assert parsing.parse_robust(text, "(", OPTS_EN) in (None, 0, 1, 2, 3)
    assert parsing.parse_robust(text, "图", None, numbers=True) in (None, 0, 1, 2, 3)
    for fn in parsing.OFFICIAL.values():
        assert fn(text, 0) in (None, "0", "1", "2", "3")
