"""Tests for food_tasks.benchmarks.worldcuisines.parsing: WorldCuisines MCQ/OEQ parsing.

Official behaviour is that of github.com/worldcuisines/worldcuisines at commit d4d1c44:
``evaluation/score/score.py::score_mc`` (MCQ) and ``::score_oe`` (OEQ); the robust behaviour is
documented in yaml_tasks/worldcuisines/README.md ("Answer parsing"). Expected values are derived by hand
from those rules; prompts are real test_large rows (``generate_vqa/generated_data/hf_prompt/
large_eval_task{1,2}/en_large_eval_task{1,2}.jsonl`` for qa_ids 400, 401, 402 and 1900; ``ru_casual``
for the 4-option row) unless marked synthetic.
"""

from __future__ import annotations

import math
import random
import re

import pytest

from food_tasks.benchmarks.worldcuisines.parsing import (
    MCQ_ECHOES,
    extract_mcq_choice,
    oeq_match,
    oeq_match_official,
    oeq_match_strict,
    official_mcq_correct,
    official_mcq_parse,
    parse_mcq_options,
)
from food_tasks.hooks.parsing import strip_reasoning

INSTRUCTION = "Print only the answer with a single answer id (1,2,3,4,5)."

# Real prompts, built exactly as generate_vqa/generate_prompts.py::generate_multiple_choices_sample does:
# f"{context}\n{answer_prompt}\n{INSTRUCTION}", answer_prompt ending in "\n".
PROMPT_1A_QA401 = (
    "What is this culinary dish called?\n1. Khachapuri\n2. Kalakukko\n3. Zelnik\n"
    "4. Paçanga böreği\n5. Shotis puri\n\n" + INSTRUCTION
)
PROMPT_1B_QA400 = (
    "How do people in Italy identify this dish?\n1. Karađorđeva šnicla\n2. Schnitzel\n"
    "3. Chicken Kiev\n4. Goetta\n5. Cotoletta alla milanese\n\n" + INSTRUCTION
)
PROMPT_1C_QA402 = (
    "My friend went to Netherlands and sent me this photo. What is the name of this food?\n"
    "1. Serabi\n2. Terang Bulan\n3. Syrniki\n4. Murtabak\n5. Sapin-sapin\n\n" + INSTRUCTION
)
PROMPT_2_QA1900 = (
    "Which country is this dish associated with?\n1. Thailand\n2. South Africa\n3. Canada\n"
    "4. Brazil\n5. Croatia\n\n" + INSTRUCTION
)
PROMPT_RU_4_OPTIONS = (
    "Как называется это блюдо из мьянманской кухни?\n1. Meeshay\n2. Mì Quảng\n"
    "3. Rice noodle roll\n4. Khow suey\n\n" + INSTRUCTION
)
OPTIONS_1B = ["Karađorđeva šnicla", "Schnitzel", "Chicken Kiev", "Goetta", "Cotoletta alla milanese"]
OPTIONS_RU_4 = ["Meeshay", "Mì Quảng", "Rice noodle roll", "Khow suey"]
GOLD_1B = 5  # "Cotoletta alla milanese"

# Synthetic prompts for cases the quoted rows do not cover.
PROMPT_CHIPA = (
    "Which dish is this?\n1. Sopa paraguaya\n2. Mbejú\n3. Chipa\n4. Pão de queijo\n5. Empanada\n\n" + INSTRUCTION
)
OPTIONS_CHIPA = ["Sopa paraguaya", "Mbejú", "Chipa", "Pão de queijo", "Empanada"]
PROMPT_DUPLICATES = (
    "What is the name of this food?\n1. Serabi\n2. Syrniki\n3. Serabi\n4. Murtabak\n5. Sapin-sapin\n\n" + INSTRUCTION
)
OPTIONS_DUPLICATES = ["Serabi", "Syrniki", "Serabi", "Murtabak", "Sapin-sapin"]


# --------------------------------------------------------------------------
# strip_reasoning
# --------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("5", "5"),
        (" Sushi \n", " Sushi \n"),  # no tags: unchanged, whitespace kept
        ("<think>options 1-5</think>5", "5"),
        ("<THINK>a\nb</Think>\n5", "\n5"),  # case-insensitive, DOTALL
        ("<thinking>x</thinking>Answer: 3", "Answer: 3"),
        ("<think>a</think>b<think>c</think>d", "bd"),  # every block
        ("<think>unterminated reasoning", None),
        ("<thinking>unterminated", None),
        ("reasoning without opening tag</think>5", "5"),  # stray closing tag
        ("a</think>b</think>c", "c"),  # keep only after the last closing tag
        ("</think>5<think>more", None),  # a new block left open
        ("assistant\n5", "5"),
        ("Assistant: 5", "5"),
        ("ASSISTANT:Sushi", "Sushi"),
        ("<|im_start|>assistant\n5", "5"),
        ("assistant\n<think>x</think>\n\n5", "5"),
        ("The assistant says 5", "The assistant says 5"),  # not a leading echo
        ("", ""),
    ],
)
def test_strip_reasoning(text: str, expected: str | None) -> None:
    assert strip_reasoning(text) == expected


# --------------------------------------------------------------------------
# parse_mcq_options
# --------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("prompt", "expected"),
    [
        (PROMPT_1A_QA401, ["Khachapuri", "Kalakukko", "Zelnik", "Paçanga böreği", "Shotis puri"]),
        (PROMPT_1B_QA400, OPTIONS_1B),
        (PROMPT_1C_QA402, ["Serabi", "Terang Bulan", "Syrniki", "Murtabak", "Sapin-sapin"]),
        (PROMPT_2_QA1900, ["Thailand", "South Africa", "Canada", "Brazil", "Croatia"]),
        (PROMPT_RU_4_OPTIONS, OPTIONS_RU_4),  # 4 options, instruction still says (1,2,3,4,5)
        (PROMPT_DUPLICATES, OPTIONS_DUPLICATES),  # duplicates kept
        # Pangea's instruction replacement (evaluation/src/pangea.py::generate_output).
        (
            PROMPT_1B_QA400.replace(INSTRUCTION, "Answer with the option from the given choices directly."),
            OPTIONS_1B,
        ),
        # Leading spaces and double spaces occur in the stored prompts and are kept.
        (" What is  this?\n1. A  B\n2. C\n3. D\n4. E\n\n" + INSTRUCTION, ["A  B", "C", "D", "E"]),
        # A question line that looks like an option does not start the block.
        ("1. Look at the photo.\nWhat is it?\n1. A\n2. B\n3. C\n4. D\n\n" + INSTRUCTION, ["A", "B", "C", "D"]),
        ("What is this culinary dish called?\n\nPrint only the answer.", []),  # OEQ prompt
    ],
)
def test_parse_mcq_options(prompt: str, expected: list[str]) -> None:
    assert parse_mcq_options(prompt) == expected


# --------------------------------------------------------------------------
# score_mc on real output shapes (gold 5 = "Cotoletta alla milanese", qa 400): official vs robust
# --------------------------------------------------------------------------

# (raw output, official parse result, official correct, robust choice)
VERIFIED_CONSEQUENCES = [
    ("5", 5, True, 5),
    (" 5\n", 5, True, 5),
    ("５", 5, True, 5),  # full-width digit: int() accepts it
    ("**5**", 5, True, 5),  # first digit run
    ("Answer: (5)", 5, True, 5),
    ("Option 5", 5, True, 5),
    ("5. Cotoletta alla milanese", 5, True, 5),  # ^(\d+)\.
    ("Cotoletta alla milanese", "5", False, 5),  # option-text lookup -> str, never == 5.0
    ("Cotoletta alla milanese.", "5", False, 5),  # '.' removed before the lookup
    ("Goetta", "4", False, 4),  # another option's text
    ("", "5", False, None),  # find("") == 0 -> prompt[-3] == '5'
    ("1 or 5? I think 5", 1, False, None),  # first digits; robust: two distinct ids
    ("<think>options 1-5</think>5", 1, False, 5),  # digits inside the reasoning
    ("No puedo identificar el plato…", "No puedo identificar el plato…", False, None),  # logged error
    ("Je ne sais pas.", "Je ne sais pas.", False, None),  # not found: original text kept
]


@pytest.mark.parametrize(("output", "official", "official_correct", "robust"), VERIFIED_CONSEQUENCES)
def test_verified_consequences(output: str, official: int | str, official_correct: bool, robust: int | None) -> None:
    parsed = official_mcq_parse(output, PROMPT_1B_QA400)
    assert parsed == official
    assert type(parsed) is type(official)  # int vs one-character str matters
    assert official_mcq_correct(output, PROMPT_1B_QA400, GOLD_1B) is official_correct
    assert extract_mcq_choice(output, OPTIONS_1B) == robust


# --------------------------------------------------------------------------
# Official parser (score.py::score_mc): further literal behaviour
# --------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("output", "expected"),
    [
        ("-3", -3),  # int() accepts a sign
        ("+5", 5),
        ("1_0", 10),  # int() accepts underscores between digits
        ("٣", 3),  # Arabic-Indic digit via int()
        ("\t٣ ", 3),
        ("5.", 5),  # int() fails, ^(\d+)\. matches
        ("5.0", 5),
        ("The answer is 4", 4),  # first run of digits
        ("2024", 2024),  # out-of-range int stays an int
        ("答案是５", 5),  # \d is Unicode-aware; int() of the match
        ("(1,2,3,4,5) 5", 1),  # instruction echo
        (INSTRUCTION + "\n5", 1),
        ("Karađorđeva šnicla", "1"),
        ("Schnitzel", "2"),
        ("dish", "i"),  # substring of the question: "this dish" -> 3 chars back is 'i'
        ("How", "5"),  # found at 0 -> prompt[-3] (negative index wraps)
        ("do", "o"),  # "How do": found at 4 -> prompt[1]
        ("...", "5"),  # all '.' removed -> "" -> prompt[-3]
        ("Schnitzel!", "Schnitzel!"),  # '!' is not removed: not found, original returned
        (None, "5"),  # None treated as ""
        (math.nan, "5"),  # NaN (pandas) treated as ""
    ],
)
def test_official_mcq_parse(output: str | None, expected: int | str) -> None:
    parsed = official_mcq_parse(output, PROMPT_1B_QA400)
    assert parsed == expected
    assert type(parsed) is type(expected)


@pytest.mark.parametrize(
    ("output", "prompt", "gold", "expected"),
    [
        ("5", PROMPT_1B_QA400, 5, True),
        ("Answer: 5", PROMPT_1B_QA400, 5, True),
        ("Goetta", PROMPT_1B_QA400, 4, False),  # '4' (str) != 4.0
        ("Cotoletta alla milanese", PROMPT_1B_QA400, 5, False),
        ("", PROMPT_1B_QA400, 5, False),  # '5' (str) != 5.0
        (None, PROMPT_1B_QA400, 5, False),
        ("-3", PROMPT_1B_QA400, 3, False),
        ("1_0", PROMPT_1B_QA400, 1, False),  # 10
        ("(1,2,3,4,5) 5", PROMPT_1B_QA400, 5, False),  # echo yields 1
        ("(1,2,3,4,5) 1", PROMPT_1B_QA400, 1, True),  # ... which is right when gold is 1
        ("٣", PROMPT_CHIPA, 3, True),
        ("(3) Chipa", PROMPT_CHIPA, 3, True),
        ("3. Chipa", PROMPT_CHIPA, 3, True),
        ("Chipa", PROMPT_CHIPA, 3, False),
        ("5", PROMPT_RU_4_OPTIONS, 4, False),  # int 5 on a 4-option row: wrong, not invalid
        ("Serabi", PROMPT_DUPLICATES, 1, False),  # '1' (str)
    ],
)
def test_official_mcq_correct(output: str | None, prompt: str, gold: int, expected: bool) -> None:
    assert official_mcq_correct(output, prompt, gold) is expected


def test_official_four_option_five_is_int() -> None:
    assert official_mcq_parse("5", PROMPT_RU_4_OPTIONS) == 5
    assert extract_mcq_choice("5", OPTIONS_RU_4) is None


# --------------------------------------------------------------------------
# Robust parser (food_tasks.hooks.parsing.extract_choice configured for WorldCuisines)
# --------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("output", "expected"),
    [
        # Whole-answer id.
        ("5", 5),
        ("(5)", 5),
        ("[2]", 2),
        ("5.", 5),
        ("5:", 5),
        ("5、", 5),
        ("5。", 5),
        ("５", 5),  # NFKC
        ("（５）", 5),  # full-width parentheses, NFKC
        ("①", 1),  # NFKC maps the circled digit to "1"
        ("٣", 3),  # Arabic-Indic digit mapped by its decimal value
        ("৪", 4),  # Bengali digit
        ("**5**", 5),  # markdown removed
        ("`2`", 2),
        ("# 4", 4),
        ("assistant\n5", 5),  # role echo
        # Leading id.
        ("5. Cotoletta alla milanese", 5),
        ("3) Chicken Kiev", 3),
        ("(3) Chicken Kiev", 3),
        ("2: Schnitzel", 2),
        ("1. Karađorđeva šnicla, not 5", 1),  # the leading id wins over later ids
        # The last explicit answer statement.
        ("Answer: (5)", 5),
        ("Option 5", 5),
        ("The answer is 4", 4),
        ("The correct option is (2).", 2),
        ("answer id: 3", 3),
        ("Answer: 1. Wait, the answer is 5", 5),  # the LAST statement
        ("Answer: Option 4", 4),
        ("Réponse : 4", 4),
        ("La respuesta es 2", 2),
        ("Ответ: 2", 2),
        ("Jawaban: 1", 1),
        ("答案是５", 5),
        ("答え：3", 3),
        ("정답은 5번입니다", 5),
        ("คำตอบคือ 2", 2),
        ("الإجابة: ٥", 5),
        ("उत्तर: ४", 4),
        ("Cevap 3", 3),
        ("Đáp án: 2", 2),
        # Echoes of the instruction, the id list and id ranges are deleted before ids are read.
        ("(1,2,3,4,5) 5", 5),
        (INSTRUCTION + "\n5", 5),
        ("Options 1–5: I choose 2", 2),
        ("Pick one from 1 to 5: 3", 3),
        ("1-5", None),
        ("<think>options 1-5</think>5", 5),
        ("<thinking>maybe 2</thinking>Answer: 4", 4),
        ("reasoning 1 2 3</think>4", 4),  # stray closing tag
        # One distinct standalone id; several distinct ids are ambiguous.
        ("I think 5", 5),
        ("5 (Cotoletta alla milanese)", 5),
        ("It is 5, definitely 5", 5),  # repeated but one distinct id
        ("1 or 5? I think 5", None),
        ("3.5", None),
        # Option text (last resort).
        ("Cotoletta alla milanese", 5),
        ("cotoletta alla milanese!", 5),  # casefold, punctuation removed
        ("COTOLETTA  ALLA\nMILANESE", 5),  # whitespace removed
        ("It looks like Chicken Kiev.", 3),  # exactly one option contained
        ("KARAĐORĐEVA ŠNICLA", 1),
        ("Cotoletta alla milanese, a kind of schnitzel", None),  # two options contained
        # Ids of missing options, and unparseable outputs.
        ("6", None),
        ("0", None),
        ("10", None),
        ("Answer: 7", None),
        ("I don't know", None),
        ("No puedo identificar el plato…", None),
        ("", None),
        ("   ", None),
        ("<think>the answer is 5", None),  # unterminated reasoning is invalid
        (None, None),
    ],
)
def test_extract_mcq_choice(output: str | None, expected: int | None) -> None:
    assert extract_mcq_choice(output, OPTIONS_1B) == expected


@pytest.mark.parametrize(
    ("output", "options", "expected"),
    [
        # Chipa rows (synthetic prompt).
        ("(3) Chipa", OPTIONS_CHIPA, 3),
        ("3. Chipa", OPTIONS_CHIPA, 3),
        ("Chipa", OPTIONS_CHIPA, 3),
        ("Pão de queijo", OPTIONS_CHIPA, 4),
        ("pao de queijo", OPTIONS_CHIPA, None),  # no accent folding
        # 4-option row: the instruction still announces (1,2,3,4,5), but id 5 names no option.
        ("5", OPTIONS_RU_4, None),
        ("Answer: 5", OPTIONS_RU_4, None),
        ("4", OPTIONS_RU_4, 4),
        ("Khow suey", OPTIONS_RU_4, 4),
        ("Mì Quảng", OPTIONS_RU_4, 2),
        # Duplicate option strings: text matching is ambiguous, ids are not.
        ("Serabi", OPTIONS_DUPLICATES, None),
        ("It is serabi.", OPTIONS_DUPLICATES, None),
        ("3", OPTIONS_DUPLICATES, 3),
        ("Murtabak", OPTIONS_DUPLICATES, 4),
        ("Sapin sapin", OPTIONS_DUPLICATES, 5),  # hyphen and space both removed
        # Prefer the longest contained option when one contains another.
        ("It is chicken kiev, I think", ["Chicken", "Chicken Kiev", "Goetta"], 2),
        ("chicken", ["Chicken", "Chicken Kiev", "Goetta"], 1),  # exact match
        ("Goetta or chicken", ["Chicken", "Chicken Kiev", "Goetta"], None),
        # No options: every id is out of range.
        ("1", [], None),
    ],
)
def test_extract_mcq_choice_options(output: str, options: list[str], expected: int | None) -> None:
    assert extract_mcq_choice(output, options) == expected


# Outputs whose robust parse changed (``before`` -> ``expected``) when WorldCuisines moved onto the shared
# parser (MCQ task version 1.1, changelog in yaml_tasks/worldcuisines/README.md); none of these shapes
# occurs in the official prediction files (21 model runs).
@pytest.mark.parametrize(
    ("output", "options", "before", "expected"),
    [
        ("\\boxed{3}, since 1 and 2 are breaded", OPTIONS_1B, None, 3),  # the last \boxed{} comes first
        ("1 looks close, but I choose 3", OPTIONS_1B, None, 3),  # choice words make a statement
        ("Option 1 or 2? I'd pick 2", OPTIONS_1B, 1, 2),  # ... and the last statement wins
        ("第二个", OPTIONS_1B, None, 2),  # Chinese ordinal
        ("我选第五个", OPTIONS_RU_4, None, None),  # (unchanged) an ordinal of a missing option is invalid
        ("【1】 Karađorđeva šnicla, not 5", OPTIONS_1B, None, 1),  # 【】 around a leading id
        ("3] Chicken Kiev, not 5", OPTIONS_1B, 3, None),  # "3]" without "[" is no longer a leading id
        ("(3. Chicken Kiev or 5", OPTIONS_1B, 3, None),  # nor "(3." without ")"
    ],
)
def test_extract_mcq_choice_shared_parser_changes(
    output: str, options: list[str], before: int | None, expected: int | None
) -> None:
    assert extract_mcq_choice(output, options) == expected


# The id-list and id-range patterns WorldCuisines wrote for itself before (task version 1.0): the core's
# label_list_echo / label_range_echo built for the ids 1-5 must delete exactly what they deleted.
OLD_ID_LIST_ECHO_RE = re.compile(
    r"[\(\[]?\s*(?<![0-9])1\s*,\s*2\s*,\s*3\s*,\s*4\s*,\s*(?:or\s+)?5(?![0-9])\s*[\)\]]?", re.IGNORECASE
)
OLD_ID_RANGE_RE = re.compile(
    r"(?<![0-9])[1-5]\s*(?:[-\u2010\u2011\u2012\u2013\u2014\u2212~\u301c]|\s(?:to|a|à|bis|до|hingga|sampai)\s)\s*[1-5](?![0-9])",
    re.IGNORECASE,
)


def test_id_echoes_delete_what_the_old_patterns_deleted() -> None:
    _, id_list, id_range = MCQ_ECHOES
    rng = random.Random(5)
    pieces = [
        "1",
        "2",
        "3",
        "4",
        "5",
        "6",
        ",",
        " ",
        "(",
        ")",
        "[",
        "]",
        "or ",
        "OR ",
        "-",
        "\u2013",
        "~",
        " to ",
        " a ",
        " À ",
        " bis ",
        " до ",
        " sampai ",
        "x",
        "0",
    ]
    for _ in range(20000):
        text = "".join(rng.choice(pieces) for _ in range(rng.randint(0, 16)))
        assert id_list.sub(" ", text) == OLD_ID_LIST_ECHO_RE.sub(" ", text), text
        assert id_range.sub(" ", text) == OLD_ID_RANGE_RE.sub(" ", text), text
    assert id_list.sub("#", "(1,2,3,4,5). 5") == "#. 5"


@pytest.mark.parametrize("prompt", [PROMPT_1B_QA400, PROMPT_CHIPA, PROMPT_RU_4_OPTIONS, PROMPT_DUPLICATES])
def test_robust_never_defaults(prompt: str) -> None:
    options = parse_mcq_options(prompt)
    for output in ("", "I cannot tell.", "???", "<think>", "Option", "1 2", "1, 2, 3, 4 or 5"):
        assert extract_mcq_choice(output, options) is None


# --------------------------------------------------------------------------
# OEQ (score.py::score_oe; robust and strict variants)
# --------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("prediction", "references", "official", "robust", "strict"),
    [
        # Short reference inside an unrelated word: score_oe's plain substring test accepts it.
        ("a glass of water", ["Wat"], True, True, False),
        ("It is Wat.", ["Wat"], True, True, True),
        ("Sushi", ["sushi"], True, True, True),
        ("SUSHI", ["Sushi"], True, True, True),
        ("Ramen", ["Sushi", "Udon"], False, False, False),
        ("Ramen", [], False, False, False),
        # Listing candidates is rewarded officially and robustly.
        ("It could be pho, bun bo or banh canh", ["Bún bò Huế", "Pho"], True, True, True),
        # None / NaN predictions are "".
        (None, ["Wat"], False, False, False),
        (None, [""], True, True, False),  # empty reference matches everything officially
        (math.nan, ["Wat"], False, False, False),
        ("anything", [""], True, True, False),
        # Reasoning: searched officially, stripped robustly.
        ("<think>maybe sushi</think>It is ramen", ["Sushi"], True, False, False),
        ("<think>maybe sushi</think>It is ramen", ["Ramen"], True, True, True),
        ("<think>sushi, unterminated", ["sushi"], True, False, False),
        ("<think>sushi, unterminated", [""], True, True, False),
        # str.lower() vs casefold: only the strict variant folds ß.
        ("STRASSE", ["Straße"], False, False, True),
        # CJK keeps substring matching in every variant.
        ("日本料理", ["日本"], True, True, True),
        ("미국의 요리", ["미국"], True, True, True),
        ("我觉得是pho", ["Pho"], True, True, True),  # a Han neighbour is a Latin token boundary
        # Cyrillic needs token boundaries in the strict variant.
        ("Это борщ.", ["Борщ"], True, True, True),
        ("борщевик", ["борщ"], True, True, False),
        # Short alphabetic reference: exact token only (strict).
        ("kok", ["Ko"], True, True, False),
        ("ko", ["Ko"], True, True, True),
        # Other alphabetic scripts: substring for >= 3 characters, exact token below 3.
        ("الكشري المصري", ["كشري"], True, True, True),
        ("هذا فول", ["فو"], True, True, False),
        ("هذا فو", ["فو"], True, True, True),
        # Surrounding punctuation of references is stripped (strict only).
        ("Chicken Kiev!", ["“Chicken Kiev”"], False, False, True),
        ("Chicken Kiev", ["..."], False, False, False),
    ],
)
def test_oeq_variants(
    prediction: str | None, references: list[str], official: bool, robust: bool, strict: bool
) -> None:
    assert oeq_match_official(prediction, references) is official
    assert oeq_match(prediction, references) is robust
    assert oeq_match_strict(prediction, references) is strict


def test_oeq_accepts_any_iterable() -> None:
    references = {"wat", "Kok"}
    assert oeq_match_official("a glass of water", references)
    assert oeq_match("a glass of water", iter(references))
    assert not oeq_match_strict("a glass of water", (r for r in references))


@pytest.mark.parametrize(
    "prediction",
    ["Cotoletta alla milanese", "a glass of water", "", "  Sushi  ", "日本料理", "WAT"],
)
def test_oeq_robust_equals_official_without_reasoning(prediction: str) -> None:
    for references in (["Wat"], ["sushi"], ["日本"], [""], ["milanese", "x"]):
        assert oeq_match(prediction, references) == oeq_match_official(prediction, references)
