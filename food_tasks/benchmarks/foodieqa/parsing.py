"""FoodieQA answer parsing: the robust parser behind ``acc`` and the official parsers behind
``acc_paper_protocol`` and the parity script.

Robust (:func:`parse_robust`): reasoning blocks removed (unterminated = invalid); the answer is read as
the continuation of the prompt's last opener (``(``, ``（``, ``图``) and handed to the generic
:func:`food_tasks.hooks.parsing.extract_choice` (whole letter, leading ``B)``, the last explicit statement such
as ``Answer: B`` / ``答案是 B`` / ``图B``, ``第二张``, one standalone capital, option text for sivqa/textqa),
then one distinct bracketed label in any case (``I think (c)``).
mivqa also accepts numbers (``Picture 2``) since its options are images; a dish name cannot be mapped
to an image and is invalid. No random fallback.

Official (``lyan62/FoodieQA`` @4d726407 ``model-eval/scripts``), one function per parser, returning the
option index as the official string ``"0"``-``"3"`` or ``None`` where the official code falls back to
``random.choice`` (or raises, which its callers turn into a random choice):

========================== ======================================================================
``first_letter``           ``get_accuracy.parse_yi_res`` / ``parse_phi3v_res``: first ``[A-D]`` anywhere
``after_assistant``        ``get_accuracy.parse_res``: text after the last ``"\\nAssistant:"``, first ``[A-D]``
``textqa``                 ``get_accuracy.parse_textqa_res``: after ``选择一个正确答案`` (p0/p1) or ``我选择``
                           (p2/p3) when present, first ``[A-D]``
``qwen_en``                ``get_accuracy.parse_qwen_res``: after the template's English marker, first ``[A-D]``
``mantis``                 ``utils.parse_mantis``: the whole generated string must be ``A``-``D``
``idefics``                ``utils.parse_idefics``: after ``"\\nAssistant: "`` then after ``图``, first character
``idefics_sivqa``          ``utils.parse_idefics_sivqa``: first character after ``"\\nAssistant: "``
``qwen_sivqa``             ``utils.parse_qwen_sivqa``: first character after the first ``（``
========================== ======================================================================

``acc_paper_protocol`` uses ``first_letter`` for VQA (what ``parse_res`` reads on a continuation) and
``textqa`` for text QA, with the random fallback made deterministic in :mod:`.scoring`.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from food_tasks.hooks.parsing import extract_choice, hedged, strip_reasoning

LETTERS = ("A", "B", "C", "D")
ANS2IDX = {"A": "0", "B": "1", "C": "2", "D": "3"}
_FIRST_UPPER_AD = re.compile(r"[A-D]")
# A bracketed label in any case, "(c)" / "（C）", not touching letters: "I think (c)".
_BRACKETED = re.compile(r"(?<![0-9A-Za-z])[\(（\[]\s*([A-Da-d])\s*[\)）\]](?![0-9A-Za-z])")


def parse_robust(
    output: object, opener: str = "", options: list[str] | None = None, *, numbers: bool = False
) -> int | None:
    """Option index 0-3 read from a model output, or None (unparseable or ambiguous).

    Args:
        output: the raw continuation; anything that is not a string is unparseable.
        opener: the prompt's last ``(``/``（``/``图`` the answer continues, or "".
        options: option texts for the option-text fallback (sivqa/textqa), None for mivqa.
        numbers: also read ``1``-``4`` as A-D (mivqa: "Picture 2", "Answer: 2").
    """
    text = strip_reasoning(output)
    if text is None:
        return None
    found = extract_choice(opener + text, LETTERS, numbers=numbers, options=options)
    if found is None and not hedged(opener + text, LETTERS, numbers=numbers):  # "(a) or B" stays a hedge
        # A bracketed label in any case ("I think (c)"): read again with it upper-cased, so the shared rules hold
        # (two distinct labels stay ambiguous; a label a contrast rejects, "b rather than (c)", is never read).
        upper = _BRACKETED.sub(lambda m: m.group(0).upper(), text)
        if upper != text:
            found = extract_choice(opener + upper, LETTERS, numbers=numbers, options=options)
    return found


# ---------------------------------------------------------------- official parsers


def _first(text: str) -> str | None:
    match = _FIRST_UPPER_AD.search(text)
    return ANS2IDX[match.group(0)] if match else None


def first_letter(response: str, template: int = 0) -> str | None:
    """``parse_yi_res`` (on ``response.strip()``) and ``parse_phi3v_res``: the first capital A-D."""
    return _first(response)


def after_assistant(response: str, template: int = 0) -> str | None:
    """``parse_res``: the first capital A-D after the last ``"\\nAssistant:"`` (whole text when absent)."""
    return _first(response.split("\nAssistant:")[-1].strip())


TEXTQA_MARKERS = {0: "选择一个正确答案", 1: "选择一个正确答案", 2: "我选择", 3: "我选择"}


def textqa(response: str, template: int = 0) -> str | None:
    """``parse_textqa_res``: text after the first marker of the template when present, first capital A-D."""
    marker = TEXTQA_MARKERS.get(template, "我选择")
    pieces = response.split(marker, 2)
    return _first(pieces[1] if len(pieces) > 1 else response)


QWEN_EN_MARKERS = {
    0: "my answer would be",
    1: "Please select one of the options as your answer",
    2: "my answer would be",
    3: "Assistant: I would select",
}


def qwen_en(response: str, template: int = 0) -> str | None:
    """``parse_qwen_res``: text after the template's marker (whole stripped text when absent), first capital A-D."""
    pieces = response.split(QWEN_EN_MARKERS.get(template, "\0"), 2)
    return _first(pieces[1].strip() if len(pieces) > 1 else response.strip())


def mantis(response: str, template: int = 0) -> str | None:
    """``parse_mantis``: the whole generated string (``response[0]`` of the decoded batch) must be A-D."""
    return ANS2IDX.get(response)


def idefics(response: str, template: int = 0) -> str | None:
    """``parse_idefics``: after the first ``"\\nAssistant: "``, after the first ``图``, the first character."""
    pieces = response.split("\nAssistant: ", 2)
    if len(pieces) < 2:
        return None
    after = pieces[1].split("图", 2)
    if len(after) < 2 or not after[1]:
        return None
    return ANS2IDX.get(after[1][0])


def idefics_sivqa(response: str, template: int = 0) -> str | None:
    """``parse_idefics_sivqa``: the first character after the first ``"\\nAssistant: "``."""
    pieces = response.split("\nAssistant: ", 2)
    return ANS2IDX.get(pieces[1][0]) if len(pieces) > 1 and pieces[1] else None


def qwen_sivqa(response: str, template: int = 0) -> str | None:
    """``parse_qwen_sivqa``: the first character after the first full-width ``（``."""
    pieces = response.split("（", 2)
    return ANS2IDX.get(pieces[1][0]) if len(pieces) > 1 and pieces[1] else None


OFFICIAL: dict[str, Callable[[str, int], str | None]] = {
    "first_letter": first_letter,
    "after_assistant": after_assistant,
    "textqa": textqa,
    "qwen_en": qwen_en,
    "mantis": mantis,
    "idefics": idefics,
    "idefics_sivqa": idefics_sivqa,
    "qwen_sivqa": qwen_sivqa,
}


def parse_paper(output: object, task: str, template: int) -> int | None:
    """The official parse used by ``acc_paper_protocol``: option index, or None where the official
    code falls back to a random choice (non-strings included)."""
    if not isinstance(output, str):
        return None
    letter = textqa(output, template) if task == "textqa" else first_letter(output.strip(), template)
    return int(letter) if letter is not None else None
