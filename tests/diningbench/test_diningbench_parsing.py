"""DiningBench parsers: the official rules (meituan/DiningBench@9c9bdf7 ``clean_thinking_by_model`` and the
``evaluate_predictions`` of ``eval_classification.py`` / ``eval_nutrition.py``) and the robust parsers.

The official regular expressions (re-typed from those functions) are used here only as oracles on short random
strings, to show that the linear-time re-implementations give the same result.
"""

from __future__ import annotations

import random
import re

import pytest

from food_tasks.benchmarks.diningbench import parsing as P
from food_tasks.judge import reading as R

PROMPT_EN = (
    "You are a food recognition expert. Please select the most appropriate dish name from the following options "
    "based on the image content, and output the corresponding option letter.\n\nOptions:\n"
    "A. Sweet Potato Chicken Salad\nB. Roasted Potato Chicken Salad\nC. Pomelo Shrimp Salad\n"
    "D. Roasted Pumpkin Quinoa Salad\nE. Papaya Chicken Salad\nF. Roasted Pumpkin Chicken Salad\n"
    "G. Mango Chicken Salad\nH. Fresh Fruit Shrimp Salad\n\nYour answer should only be a single uppercase English "
    "letter corresponding to the option, without any description, explanation, or content other than the option "
    "letter."
)
LETTERS, OPTIONS = P.prompt_options(PROMPT_EN)

# (output, official letter with no model name, robust letter); the README's table of official quirks.
CLS_CASES = [
    ("Answer: C", "A", "C"),
    ("The answer is C", "T", "C"),
    ("Based on the image, F.", "B", "F"),
    ("答案：C", "答", "C"),
    ("选项C", "选", "C"),
    ("Ｃ", "Ｃ", "C"),
    ("<think>A or B?</think>C", "T", "C"),
    ("\\boxed{\\text{C}}", "T", "C"),
    ("Roasted Pumpkin Chicken Salad", "R", "F"),
    ("**C**", "C", "C"),
    ("(C)", "C", "C"),
    ("C.", "C", "C"),
    ("C. Pomelo Shrimp Salad", "C", "C"),
    ("<analysis>looks like pumpkin</analysis><answer>F</answer>", "A", "F"),
    ("<think>never closed, C", "T", None),
    ("", "", None),
    ("Chicken Salad", "C", None),  # contained in four options: ambiguous
    ("\\boxed{F}", "F", "F"),
]


@pytest.mark.parametrize("output,official,robust", CLS_CASES)
def test_classification_official_and_robust(output, official, robust):
    assert P.letter_official(P.official_prediction(output, "")) == official
    assert P.letter_robust(output, LETTERS, OPTIONS) == robust


def test_prompt_options_and_non_strings():
    assert LETTERS == list("ABCDEFGH") and OPTIONS[5] == "Roasted Pumpkin Chicken Salad"
    for value in (None, 12, ["C"], b"C"):
        assert P.letter_robust(value, LETTERS, OPTIONS) is None
    assert P.official_prediction(None) == "" and P.official_prediction(12) == "12"
    assert P.letter_official("__INFER_ERROR__: C") == ""


@pytest.mark.parametrize(
    "model,output,cleaned",
    [
        ("qwen-3-vl-8b-thinking", "<think>x</think>\n\nyy</think>zz", "zz"),
        ("qwen-3-vl-8b-thinking", "reasoning</think>\n\nC", "C"),
        ("qwen-3-vl-8b-thinking", "no tags C", "no tags C"),
        ("minicpm-v-4.5", "<think>a</think>\n\n<think>b</think>B", "B"),
        ("minicpm-v-4.5", "<think>unclosed B", "<think>unclosed B"),
        ("mimo-vl-7b-rl-2508", "<THINK>a</THINK>\n\n D ", "D"),
        ("keye-vl-1.5-8b", "<analysis>a</analysis>pre<answer> D </answer>", "D"),
        ("keye-vl-1.5-8b", "<analysis>a</analysis> E ", "E"),
        ("gpt-4o", "<think>a</think>B", "<think>a</think>B"),
        ("gpt-4o", "x \\boxed{\\text{C}} y \\boxed{D}", "\\text{C"),
        ("gpt-4o", "\\boxed{ unclosed", "\\boxed{ unclosed"),
    ],
)
def test_official_clean_up_table(model, output, cleaned):
    assert P.clean_official(output, model) == cleaned


def _oracle_clean(text: str, model: str) -> str:
    flags = re.DOTALL | re.IGNORECASE
    if model == "keye-vl-1.5-8b":
        text = re.sub(r"<analysis>.*?</analysis>", "", text, flags=flags)
        m = re.search(r"<answer>(.*?)</answer>", text, flags=flags)
        text = m.group(1).strip() if m else text.strip()
    elif model == "minicpm-v-4.5":
        text = re.sub(r"<think>.*?</think>\n\n", "", text, flags=flags)
        text = re.sub(r"<think>.*?</think>", "", text, flags=flags)
        text = re.sub(r"<think>.*?</think>", "", text, flags=flags).strip()
    elif model == "qwen-3-vl-8b-thinking":
        text = re.sub(r".*?</think>\n\n", "", text, flags=flags)
        text = re.sub(r".*?</think>", "", text, flags=flags).strip()
    m = re.search(r"\\boxed\{([^}]*)\}", text)
    return m.group(1).strip() if m else text


def _oracle_fenced(text: str) -> str | None:
    m = re.search(r"```(?:json)?\s*(\{.*?\})\s*```", text, re.DOTALL)
    return m.group(1) if m else None


PIECES = [
    "<think>",
    "</think>",
    "</THINK>",
    "\n\n",
    "\n",
    " ",
    "a",
    "B",
    "<analysis>",
    "</analysis>",
    "<answer>",
    "</answer>",
    "\\boxed{",
    "}",
    "{",
    "```",
    "```json",
    "json",
    '"x": 1',
    "\t",
    "<thi",
    "nk>",
]


@pytest.mark.parametrize("model", ["keye-vl-1.5-8b", "minicpm-v-4.5", "qwen-3-vl-8b-thinking", ""])
def test_linear_reimplementations_equal_the_official_regexes(model):
    rng = random.Random(7)
    for _ in range(3000):
        text = "".join(rng.choice(PIECES) for _ in range(rng.randint(0, 14)))
        assert P.clean_official(text, model) == _oracle_clean(text, model), text
        assert P.official_fenced_object(text) == _oracle_fenced(text), text


# (output, official values or None, robust values or None); eval_nutrition.py::evaluate_predictions failure
# cases and the README's robust nutrition rules.
V = {"calories": 580.0, "protein": 24.0, "carbohydrates": 80.0, "fat": 18.0}
NUTRITION_CASES = [
    ('{"calories": 580, "protein": 24, "carbohydrates": 80, "fat": 18}', V, V),
    ('{"卡路里": 580, "蛋白质": "24", "碳水化合物": 80, "脂肪": 18}', V, V),
    ('Estimate: {"calories": 580, "protein": 24, "carbohydrates": 80, "fat": 18}', None, V),
    ('{"calories": "580 kcal", "protein": "24g", "carbohydrates": "约80", "fat": 18}', None, V),
    ("580", None, None),
    ('{"calories": 580, "protein": 24, "carbohydrates": 80, "fat": 18,}', None, V),
    (
        '```json\n{"calories": 580, "protein": 24, "carbohydrates": 80, "fat": 18}\n```\n'
        '```json\n{"calories": 1, "protein": 1, "carbohydrates": 1, "fat": 1}\n```',
        V,
        {"calories": 1.0, "protein": 1.0, "carbohydrates": 1.0, "fat": 1.0},
    ),
    ('{"calories": true, "protein": 24, "carbohydrates": 80, "fat": 18}', {**V, "calories": 1.0}, None),
    ('{"calories": -5, "protein": 24, "carbohydrates": 80, "fat": 18}', {**V, "calories": -5.0}, None),
    ('{"calories": 580, "protein": 24, "carbohydrates": 80}', None, None),
    ('<think>{"calories": 1}</think>{"calories": 580, "protein": 24, "carbohydrates": 80, "fat": 18}', None, V),
    ('{"Calories": "５８０", "Protein": 24, "Carbs": 80, "Fat": 18}', None, V),
    ('{"calories": 580, "protein": "20-28", "carbohydrates": 80, "fat": 18}', None, V),
    ("[1, 2, 3]", None, None),
]


@pytest.mark.parametrize("output,official,robust", NUTRITION_CASES)
def test_nutrition_official_and_robust(output, official, robust):
    assert P.nutrition_official(P.official_prediction(output)) == official
    assert P.nutrition_robust(output)[0] == robust


def test_nutrition_nan_and_ranges():
    value = P.nutrition_official('{"calories": NaN, "protein": 1, "carbohydrates": 1, "fat": 1}')
    assert value is not None and value["calories"] != value["calories"]  # NaN accepted officially
    assert P.nutrition_robust('{"calories": NaN, "protein": 1, "carbohydrates": 1, "fat": 1}')[0] is None
    assert P.nutrition_robust('{"calories": 580, "protein": "20-28g", "carbohydrates": "70~90", "fat": 18}') == (V, 2)


def test_gold_official():
    assert P.gold_nutrition_official('{"卡路里": 1, "蛋白质": "2", "碳水化合物": null, "脂肪": "x"}') == {
        "calories": 1.0,
        "protein": 2.0,
        "carbohydrates": None,
        "fat": None,
    }
    assert P.gold_nutrition_official("not json") is None
    assert P.gold_nutrition_official([1, 2]) is None
    assert P.gold_nutrition_official("") == dict.fromkeys(P.COMPONENTS)


@pytest.mark.parametrize(
    "verdict,official,robust",
    [
        ("是", True, True),
        ("否", False, False),
        ("是，虽然表述不同但语义一致", False, True),
        ("Yes, not a contradiction", False, True),
        ("Yes — noodles match", False, True),
        ("Unknown", False, None),
        ("是否", False, None),
        ("不正确", True, False),
        ("No.", False, False),
        ("The prediction is correct.", True, True),
        ("__EVAL_ERROR__", False, None),
        (None, False, None),
        ("**是**", True, True),
        ("Yes", True, True),
    ],
)
def test_verdicts(verdict, official, robust):
    assert P.verdict_official(verdict) is official
    assert R.verdict_robust(verdict) is robust


def test_vqa_question():
    assert (
        P.vqa_question(
            "Is it vegan?\nOutput only the final answer, without any explanation, analysis, preface, or summary."
        )
        == "Is it vegan?"
    )
    assert P.vqa_question(" 是否油炸？\n仅输出最终答案，不要包含任何解释、分析、前言或总结。") == "是否油炸？"
    assert P.vqa_question(" other ") == "other"


@pytest.mark.parametrize(
    "output",
    [
        "{" * 20000,
        "```" * 7000,
        "<think>" * 3000,
        "</think>\n\n" * 2000,
        "\\boxed{" * 3000,
        '{"a": "' * 3000,
        "A" * 20000,
        "答案" * 8000,
        "{" * 10000 + "}" * 10000,
        "```json\n{" * 2000,
    ],
)
def test_runaway_outputs_never_raise(output):
    # Linear time is measured by bench/bench_diningbench.py (no timing asserts here).
    for model in ("", "qwen-3-vl-8b-thinking", "minicpm-v-4.5", "keye-vl-1.5-8b"):
        P.nutrition_official(P.official_prediction(output, model))
        P.letter_official(P.official_prediction(output, model))
    P.nutrition_robust(output)
    P.letter_robust(output, LETTERS, OPTIONS)
    assert R.verdict_robust(output) in (True, False, None)
