"""WorldCuisines answer parsing: MCQ ids and OEQ reference matching.

WorldCuisines (Winata et al., 2025, "WorldCuisines: A Massive-Scale Benchmark for
Multilingual and Multicultural Visual Question Answering on Global Cuisines";
code https://github.com/worldcuisines/worldcuisines, data
https://huggingface.co/datasets/worldcuisines/vqa) scores multiple-choice (MCQ)
answers by id and open-ended (OEQ) answers by reference-substring matching.
References of the form ``path::function`` below are to that repository at
commit d4d1c44; none of its code is reused. This module holds both the official
behaviour (``*_official`` metrics) and the robust behaviour the lmms-eval tasks
report as primary metrics (explained in ``yaml_tasks/worldcuisines/README.md``,
"Answer parsing"):

* :func:`official_mcq_parse` / :func:`official_mcq_correct` — the MCQ parser and
  comparison of ``evaluation/score/score.py::score_mc``, literally, including its
  known bugs: the first-integer rule, the option-text lookup that returns a
  one-character *string*, and the float gold that such a string never equals.
* :func:`extract_mcq_choice` — the robust MCQ parser: the shared
  :func:`food_tasks.hooks.parsing.extract_choice` configured for WorldCuisines' numbered
  options. It returns ``None`` for invalid or unparseable output and never guesses.
* :func:`parse_mcq_options` — option texts from a stored ``multi_choice_prompt``
  (rendered by ``generate_vqa/generate_prompts.py::generate_multiple_choices_sample``).
* :func:`oeq_match_official` (``score.py::score_oe``), :func:`oeq_match` (the same
  after reasoning removal) and the non-official :func:`oeq_match_strict`.

Reasoning removal, character normalisation, the multilingual answer words and the
option-text fallback are the shared ones of :mod:`food_tasks.hooks.parsing`.

Everything here is pure and dependency-free (``re``, ``unicodedata``); the
functions run once per document on 60k-document runs, so patterns are compiled
once at module level and the common cases take the short paths.
"""

from __future__ import annotations

import functools
import math
import re
import unicodedata
from collections.abc import Callable, Iterable, Sequence

from food_tasks.hooks.outputs import safe_str
from food_tasks.hooks.parsing import (
    WHITESPACE_RE,
    extract_choice,
    label_list_echo,
    label_range_echo,
    option_spans,
    strip_reasoning,
)

CACHES = ("_prepare_strict_reference",)  # what food_tasks.reset() clears in this module

__all__ = [
    "extract_mcq_choice",
    "oeq_match",
    "oeq_match_official",
    "oeq_match_strict",
    "official_mcq_correct",
    "official_mcq_parse",
    "mcq_option_spans",
    "parse_mcq_options",
]

# --------------------------------------------------------------------------
# Constants
# --------------------------------------------------------------------------

# Starts of the final instruction line of a stored prompt: the MCQ/OEQ
# instruction (``generate_vqa/generate_prompts.py::generate_multiple_choices_sample``
# and ``::generate_open_ended_sample`` write it in English for all 30 languages)
# and Pangea's MCQ replacement (``evaluation/src/pangea.py::generate_output``).
INSTRUCTION_PREFIXES = ("Print only the answer", "Answer with the option from the given choices directly.")

# ``score.py::score_mc`` tries ``^(\d+)\.`` at the start, then the first ``(\d+)``.
# ``\d`` is Unicode-aware, as in the official code, so ``"٣"`` and ``"５"`` are digits here.
OFFICIAL_LEADING_INT_RE = re.compile(r"^(\d+)\.")
OFFICIAL_FIRST_INT_RE = re.compile(r"(\d+)")
# ``score_mc``'s option-text lookup returns ``prompt[matched - 3]``.
OFFICIAL_ID_OFFSET = 3

# One option line, ``f"{chars[opt_id]}. {opt}\n"`` in ``generate_multiple_choices_sample``.
OPTION_LINE_RE = re.compile(r"^([1-5])\. (.*)$")

# The ids the MCQ instruction announces, "(1,2,3,4,5)", also above four-option rows.
MCQ_IDS = ("1", "2", "3", "4", "5")
# Prompt text that models repeat before (or instead of) answering, deleted before ids are read:
# the instruction, the id list "(1,2,3,4,5)" and id ranges ("1-5", "1 to 5", "1 à 5").
INSTRUCTION_ECHO_RE = re.compile(r"print only the answer with a single answer id", re.IGNORECASE)
MCQ_ECHOES = (INSTRUCTION_ECHO_RE, label_list_echo(MCQ_IDS), label_range_echo(MCQ_IDS))

# Unicode general-category prefixes treated as punctuation around strict OEQ
# references: punctuation, separators and control characters (newline, tab).
KEY_DROP_CATEGORIES = ("P", "Z", "Cc")

# Scripts for the strict OEQ variant. Word-spaced alphabetic scripts needing
# token boundaries: Latin, Greek and Cyrillic blocks.
WORD_BOUNDARY_SCRIPT_RANGES = (
    (0x00C0, 0x024F),  # Latin-1 Supplement letters, Latin Extended-A/B
    (0x0250, 0x02AF),  # IPA extensions
    (0x0300, 0x036F),  # combining diacritics (part of the Latin token)
    (0x0370, 0x03FF),  # Greek
    (0x0400, 0x052F),  # Cyrillic and Cyrillic Supplement
    (0x1C80, 0x1C8F),  # Cyrillic Extended-C
    (0x1E00, 0x1EFF),  # Latin Extended Additional (Vietnamese)
    (0x2C60, 0x2C7F),  # Latin Extended-C
    (0xA640, 0xA69F),  # Cyrillic Extended-B
    (0xA720, 0xA7FF),  # Latin Extended-D
    (0xAB30, 0xAB6F),  # Latin Extended-E
)
# Scripts written without reliable word spacing (or with attached particles):
# substring matching is kept for references in these scripts.
SUBSTRING_SCRIPT_RANGES = (
    (0x0E00, 0x0EFF),  # Thai, Lao
    (0x0F00, 0x0FFF),  # Tibetan
    (0x1000, 0x109F),  # Myanmar
    (0x1100, 0x11FF),  # Hangul Jamo
    (0x1780, 0x17FF),  # Khmer
    (0x2E80, 0x2FDF),  # CJK radicals
    (0x3000, 0x9FFF),  # CJK symbols, kana, Bopomofo, Hangul compatibility, CJK ideographs
    (0xA000, 0xA4CF),  # Yi
    (0xAC00, 0xD7AF),  # Hangul syllables
    (0xF900, 0xFAFF),  # CJK compatibility ideographs
    (0xFF00, 0xFFEF),  # half-/full-width forms left after NFKC
    (0x20000, 0x3FFFF),  # CJK extensions
)
# Alphabetic references shorter than this need an exact token match (strict variant only).
STRICT_SHORT_REFERENCE_LEN = 3
STRICT_REFERENCE_CACHE_SIZE = 65536

_SCRIPT_LATIN = "latin"
_SCRIPT_ALPHABETIC = "alphabetic"
_SCRIPT_SUBSTRING = "substring"


# --------------------------------------------------------------------------
# Options
# --------------------------------------------------------------------------


def parse_mcq_options(prompt: str) -> list[str]:
    """Extracts the option texts from a WorldCuisines ``multi_choice_prompt``.

    Option lines have the form ``"<id>. <text>"`` with ids 1-5, as
    ``generate_vqa/generate_prompts.py::generate_multiple_choices_sample`` writes them.
    The option block is the last run of consecutive option lines numbered
    1, 2, 3, … before the instruction line, so a question line that happens to
    start with ``"1. "`` is not taken as an option. Option texts are kept
    verbatim, duplicates included.

    Args:
        prompt: The stored ``multi_choice_prompt`` (4 or 5 options).

    Returns:
        Option texts in id order (index 0 is id 1); empty if none are found.
    """
    return [prompt[start:end] for _, start, end in mcq_option_spans(prompt)]


def mcq_option_spans(prompt: object) -> list[tuple[str, int, int]]:
    """``(id, start, end)`` of each option text of a ``multi_choice_prompt``, the block
    :func:`parse_mcq_options` reads and the ``_circular`` tasks rotate
    (:func:`food_tasks.hooks.parsing.option_spans`)."""
    return option_spans(prompt, OPTION_LINE_RE, run=MCQ_IDS, stop_at=INSTRUCTION_PREFIXES)


# --------------------------------------------------------------------------
# Robust MCQ parser
# --------------------------------------------------------------------------


def extract_mcq_choice(output: object, options: Sequence[str]) -> int | None:
    """Parses a WorldCuisines MCQ answer robustly into an option id (1-based).

    The shared :func:`food_tasks.hooks.parsing.extract_choice` (see there for every step and its
    precedence) with WorldCuisines' settings: the labels are the ids ``1``-``5`` the instruction
    announces, of which the first ``len(options)`` name options (a four-option row still says
    ``(1,2,3,4,5)``, so ``5`` there is an answer for a missing option: invalid); the instruction, the id
    list ``(1,2,3,4,5)`` and id ranges (``1-5``, ``1 to 5``) that models repeat are deleted before
    reading; the option texts are the last resort. In short, first hit wins: reasoning removed
    (unterminated is invalid); the last ``\\boxed{3}``; the whole answer is an id (``5``, ``(5)``,
    ``5.``, ``５``, ``٣``); a leading id (``3. Chipa``, ``(3) Chipa``); the last explicit answer or
    choice statement (``Answer: (5)``, ``Option 5``, ``I choose 2``, ``答案是5``, ``정답은 5번``); a
    Chinese ordinal (``第2个``); exactly one distinct standalone id (two or more are ambiguous); the
    one option whose text the answer holds (casefolded, without punctuation or whitespace).

    Args:
        output: Raw model output; anything that is not a string is invalid.
        options: Option texts in id order, e.g. from :func:`parse_mcq_options`.

    Returns:
        The chosen option id (1-based), or ``None`` if the output is invalid,
        ambiguous or unparseable. Never a default id.
    """
    index = extract_choice(output, MCQ_IDS, options=options, n_options=len(options), echoes=MCQ_ECHOES)
    return None if index is None else index + 1


# --------------------------------------------------------------------------
# Official MCQ parser (evaluation/score/score.py::score_mc)
# --------------------------------------------------------------------------


def _official_text(output: object) -> str:
    """The official code's view of a prediction: NaN/None become ``""``."""
    if output is None or (isinstance(output, float) and math.isnan(output)):
        return ""
    return safe_str(output)  # str() as officially, except where str() itself raises (a 10,000-deep list)


def official_mcq_parse(output: str | None, prompt: str) -> int | str:
    """Re-implements the prediction parsing of ``evaluation/score/score.py::score_mc``.

    1. ``int(output)`` with Python semantics (sign, surrounding whitespace,
       underscores and any Unicode decimal digits are accepted);
    2. else ``^(\\d+)\\.`` at the start;
    3. else the first ``(\\d+)`` anywhere (Unicode digits included);
    4. else remove every ``.`` from the output and ``str.find`` it in the
       prompt; if found at ``k`` the result is the one-character string
       ``prompt[k - 3]`` (a negative index wraps, and the empty string is found
       at 0, giving ``prompt[-3]``); if not found the output is returned as is.

    Args:
        output: Raw model output; ``None`` or NaN is treated as ``""``.
        prompt: The row's ``multi_choice_prompt``.

    Returns:
        An ``int`` from steps 1-3, otherwise a string (one character from step
        4, or the unchanged output when the lookup fails). Only an ``int`` can
        be scored correct (see :func:`official_mcq_correct`).
    """
    text = _official_text(output)
    try:
        return int(text)
    except ValueError:
        pass
    # int() of a digit run only fails past Python's 4300-digit limit, where the
    # official script would crash; fall through to the next step instead.
    for regex, search in ((OFFICIAL_LEADING_INT_RE, False), (OFFICIAL_FIRST_INT_RE, True)):
        match = regex.search(text) if search else regex.match(text)
        if match is not None:
            try:
                return int(match.group(1))
            except ValueError:
                pass
    position = prompt.find(text.replace(".", ""))
    if position == -1:
        return text
    try:
        return prompt[position - OFFICIAL_ID_OFFSET]
    except IndexError:
        # Only possible for prompts shorter than 3 characters (never in the data).
        return text


def official_mcq_correct(output: str | None, prompt: str, gold: int) -> bool:
    """Scores one MCQ row exactly as ``evaluation/score/score.py::score_mc``.

    The official gold ``multi_choice_answer`` is a float (``5.0``): ``score.py::load_result``
    concatenates the MCQ and OEQ prediction frames (the OEQ rows have no
    ``multi_choice_answer``, so pandas makes the column float) and copies it into
    ``answer``; ``score_mc`` then keeps rows where ``answer == prediction``. ``int``
    predictions compare by value while the one-character string from the
    option-text lookup never equals it. Out-of-range integers are simply wrong.

    Args:
        output: Raw model output; ``None`` or NaN is treated as ``""``.
        prompt: The row's ``multi_choice_prompt``.
        gold: The row's ``multi_choice_answer``.

    Returns:
        ``True`` if the official script counts the row as correct.
    """
    prediction = official_mcq_parse(output, prompt)
    return isinstance(prediction, int) and prediction == float(gold)


# --------------------------------------------------------------------------
# OEQ matching (evaluation/score/score.py::score_oe)
# --------------------------------------------------------------------------


def oeq_match_official(prediction: str | None, references: Iterable[str]) -> bool:
    """Official OEQ rule (``score.py::score_oe``): any lower-cased reference is a substring.

    Plain ``str.lower()`` substring containment on the raw prediction, with
    no normalisation and no word boundaries; an empty reference therefore
    matches every prediction, as in the official code. ``score_oe`` builds the
    reference set per mode (``single``: the row's answer; ``multi``: the distinct
    answers of the qa_id in all languages; ``dual``: the row's and the English
    answer); the callers pass that set.

    Args:
        prediction: Raw model output; ``None`` or NaN is treated as ``""``.
        references: Gold answer strings (one mode's reference set).

    Returns:
        ``True`` if some reference occurs in the prediction.
    """
    lowered = _official_text(prediction).lower()
    return any(reference.lower() in lowered for reference in references)


def oeq_match(prediction: str | None, references: Iterable[str]) -> bool:
    """Primary OEQ rule: the official rule after reasoning removal.

    Reasoning blocks are removed first; unterminated reasoning leaves an empty
    prediction, which only an empty reference matches. Lower-casing stays
    ``str.lower()`` for parity with the published numbers.

    Args:
        prediction: Raw model output; ``None`` or NaN is treated as ``""``.
        references: Gold answer strings (one mode's reference set).

    Returns:
        ``True`` if some reference occurs in the reasoning-free prediction.
    """
    text = strip_reasoning(_official_text(prediction))
    return oeq_match_official(text or "", references)


def _strict_normalize(text: str) -> str:
    """NFKC casefolding (NFKC, casefold, NFKC) with collapsed whitespace."""
    text = unicodedata.normalize("NFKC", unicodedata.normalize("NFKC", text).casefold())
    return WHITESPACE_RE.sub(" ", text).strip()


def _in_ranges(code_point: int, ranges: tuple[tuple[int, int], ...]) -> bool:
    """Whether a code point lies in one of the inclusive ranges."""
    return any(low <= code_point <= high for low, high in ranges)


def _is_latin_token_char(ch: str) -> bool:
    """Characters that continue a Latin/Greek/Cyrillic word (letters, digits, diacritics)."""
    if ch.isascii():
        return ch.isalnum()
    return _in_ranges(ord(ch), WORD_BOUNDARY_SCRIPT_RANGES) and (
        ch.isalnum() or unicodedata.category(ch).startswith("M")
    )


def _is_any_token_char(ch: str) -> bool:
    """Characters that continue a word in any script (letters, digits, marks)."""
    return ch.isalnum() or unicodedata.category(ch).startswith("M")


def _strip_surrounding_punctuation(text: str) -> str:
    """Removes punctuation and whitespace from both ends."""
    start, end = 0, len(text)
    while start < end and unicodedata.category(text[start]).startswith(KEY_DROP_CATEGORIES):
        start += 1
    while end > start and unicodedata.category(text[end - 1]).startswith(KEY_DROP_CATEGORIES):
        end -= 1
    return text[start:end]


@functools.lru_cache(maxsize=STRICT_REFERENCE_CACHE_SIZE)
def _prepare_strict_reference(reference: str) -> tuple[str, str]:
    """Normalised reference and its matching class for :func:`oeq_match_strict`."""
    ref = _strip_surrounding_punctuation(_strict_normalize(reference))
    script = _SCRIPT_LATIN
    for ch in ref:
        code_point = ord(ch)
        if _in_ranges(code_point, SUBSTRING_SCRIPT_RANGES):
            return ref, _SCRIPT_SUBSTRING
        if not ch.isascii() and ch.isalpha() and not _in_ranges(code_point, WORD_BOUNDARY_SCRIPT_RANGES):
            script = _SCRIPT_ALPHABETIC
    return ref, script


def _contains_bounded(text: str, needle: str, is_token_char: Callable[[str], bool]) -> bool:
    """Whether ``needle`` occurs in ``text`` with no token character on either side."""
    start = 0
    while True:
        position = text.find(needle, start)
        if position < 0:
            return False
        end = position + len(needle)
        if (position == 0 or not is_token_char(text[position - 1])) and (
            end == len(text) or not is_token_char(text[end])
        ):
            return True
        start = position + 1


def oeq_match_strict(prediction: str | None, references: Iterable[str]) -> bool:
    """Non-official strict OEQ rule, reported as ``acc_multi_strict`` (no official counterpart).

    Both sides are NFKC-casefolded; reasoning is removed from the prediction
    as in :func:`oeq_match`; references lose surrounding punctuation and
    whitespace, and references that become empty are ignored (they match
    everything officially). Then, per reference script:

    * Latin/Cyrillic (and Greek): token boundaries are required, i.e. no
      Latin/Greek/Cyrillic letter, digit or diacritic on either side (``wat``
      does not match ``water``). For references shorter than 3 characters
      this is the required exact token match.
    * other alphabetic scripts (Arabic, Indic, …): substring, except that
      references shorter than 3 characters need an exact token match (no
      letter, digit or mark of any script on either side);
    * CJK, Hangul, Thai and similar scripts: plain substring (``日本`` matches
      ``日本料理``).

    Args:
        prediction: Raw model output; ``None`` or NaN is treated as ``""``.
        references: Gold answer strings (one mode's reference set).

    Returns:
        ``True`` if some non-empty reference matches under these rules.
    """
    text = strip_reasoning(_official_text(prediction))
    if not text:
        return False
    text = _strict_normalize(text)
    for reference in references:
        ref, script = _prepare_strict_reference(reference)
        if not ref or ref not in text:
            continue
        if script == _SCRIPT_SUBSTRING:
            return True
        if script == _SCRIPT_LATIN:
            if _contains_bounded(text, ref, _is_latin_token_char):
                return True
        elif len(ref) >= STRICT_SHORT_REFERENCE_LEN or _contains_bounded(text, ref, _is_any_token_char):
            return True
    return False
