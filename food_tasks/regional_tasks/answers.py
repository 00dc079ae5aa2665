"""Answer kinds of regional tasks beyond one option or one text: several correct options (``format: multi``) and
numbers with a tolerance (``format: numeric``). What a row's answer is, what the model answered, and whether the two
agree; no lmms-eval import.

Several correct options (``format: multi``): the answer cell is a list of labels or option texts (a JSON list in CSV
files; one label alone is a list of one). Credit is exact set match: the model's answer names exactly the correct
options, in any order, each once or more; a subset or a superset is wrong. The model's answer is read by
:func:`extract_choices`.

Numbers (``format: numeric``): the answer cell is a number (``250``, ``2.5``, ``-3``, ``1e3``). The model's answer is
read by :func:`extract_number`; it is right when ``|answer - gold| <= absolute`` or ``|answer - gold| <= relative *
|gold|`` (``metadata.regional.tolerance``; both 0 by default: equal numbers).

Both parsers read output of any length in linear time and never guess: an answer with ``or`` between two options,
or two different numbers with no answer statement, is unparseable (counted in ``parse_fail_rate``).
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Mapping, Sequence
from typing import Any

from food_tasks.hooks.parsing import WHITESPACE_RE, last_match, normalize_chars, option_key, strip_reasoning

TOLERANCE_KEYS = ("absolute", "relative")

# --------------------------------------------------------------------------- several correct options

# The last answer statement ("Answer:", "the correct options are", "答案是"): what follows it is the answer.
_STATEMENT = re.compile(
    r"(?:\b(?:answers?|options?|choices?|letters?)\s?(?:are|is|would be|:|=)|答案是|答案[:：]|答案为|选项是)\s?",
    re.IGNORECASE,
)
_BOXED = re.compile(r"\\boxed\s?\{([^{}]{0,200})\}")
_SEPARATORS = re.compile(r"\s?(?:[,;/&+、，；]|\band\b|\bund\b|\bet\b|和|及)\s?", re.IGNORECASE)
_HEDGE = re.compile(r"\b(?:or|oder|ou)\b|或", re.IGNORECASE)
_END = re.compile(r"(?<=[^\s.])\.(?:\s|$)|\n")  # the end of the answer's sentence
_BRACKETS = "()[]【】（）「」*'\" "


def as_list(value: Any) -> list[Any]:
    """A cell as a list: a list (or array) as it is, a JSON list written as text (CSV files) parsed, anything else a
    list of one (``None`` and empty text: none)."""
    if isinstance(value, str) and value.strip().startswith("["):
        try:
            value = json.loads(value)
        except ValueError:
            return [value]
    if hasattr(value, "tolist"):
        value = value.tolist()
    if isinstance(value, (list, tuple)):
        return list(value)
    if value is None or (isinstance(value, float) and math.isnan(value)) or (isinstance(value, str) and not value):
        return []
    return [value]


def gold_set(answer: Any, labels: Sequence[str], options: Sequence[str]) -> tuple[frozenset[int], list[str]]:
    """The indices of the correct options of a ``format: multi`` row (each element of the answer cell a label,
    case-insensitive, or one option's exact text), and the elements that are neither (for the problem line)."""
    keys = [str(lab).upper() for lab in labels[: len(options)]]
    found: set[int] = set()
    bad: list[str] = []
    for element in as_list(answer):
        text = "" if element is None else str(element).strip()
        if not text:
            continue
        if text.upper() in keys:
            found.add(keys.index(text.upper()))
            continue
        same = [i for i, option in enumerate(options) if option.strip() == text]
        if len(same) == 1:
            found.add(same[0])
        else:
            bad.append(text)
    return frozenset(found), bad


def _bare(piece: str) -> str:
    """A piece of an answer without its brackets, quotes, emphasis and final period."""
    return piece.strip(_BRACKETS).rstrip(".").strip(_BRACKETS)


def extract_choices(output: object, labels: Sequence[str], options: Sequence[str] = ()) -> frozenset[int] | None:
    """The set of options a ``format: multi`` answer names, or None (unparseable).

    Reasoning blocks are removed (an unterminated one: None); the last ``\\boxed{...}`` is the answer if there is one,
    else what follows the last answer statement (``Answer:``, ``the correct options are``, ``答案是``) up to the end of
    its sentence, else the whole output. That text is split at commas, semicolons, slashes, ``&``, ``+``, ``and``
    (``und``, ``et``, ``和``, ``及``); every piece, brackets and a final period removed, must be a label
    (``A``, ``(c)``) or the text of one option (case, spaces and punctuation ignored); one that is neither makes the
    answer unparseable, and so does ``or`` between options (``A or C``, a hedge). Linear in the output's length.
    """
    text = strip_reasoning(output)
    if not text:
        return None
    boxed = last_match(_BOXED, text)
    if boxed is not None:
        text = boxed.group(1)
    text = WHITESPACE_RE.sub(" ", normalize_chars(text)).strip()
    statement = last_match(_STATEMENT, text) if boxed is None else None
    if statement is not None:
        text = text[statement.end() :]
        end = _END.search(text)
        text = text[: end.start()] if end else text
    text = text.strip().rstrip(".。!").strip()
    if not text or _HEDGE.search(text):
        return None
    index = {str(lab).upper(): i for i, lab in enumerate(labels[: len(options) or len(labels)])}
    keys = {option_key(normalize_chars(str(o))): i for i, o in enumerate(options)}
    if option_key(text) and option_key(text) in keys:  # one option's whole text, separators and all ("Rice and beans")
        return frozenset([keys[option_key(text)]])
    found: set[int] = set()
    for piece in _SEPARATORS.split(text):
        piece = _bare(piece)
        if not piece:
            continue
        if piece.upper() in index:
            found.add(index[piece.upper()])
        elif option_key(piece) and option_key(piece) in keys:
            found.add(keys[option_key(piece)])
        elif all(_bare(word).upper() in index for word in piece.split()):  # "(A) (C)", "A C"
            found.update(index[_bare(word).upper()] for word in piece.split())
        else:
            return None
    return frozenset(found) or None


# --------------------------------------------------------------------------- numbers

# A number: an optional sign, digits (thousands grouped by commas, 1,200) or none before a decimal point (.5), an
# optional exponent. Not part of a word or of another number.
_NUMBER = re.compile(
    r"(?<![\w.,])[-+\u2212]?(?=\.?\d)(?:\d{1,3}(?:,\d{3})+|\d+)?(?:\.\d+)?(?:[eE][-+]?\d+)?(?!\d)(?![.,]\d)"
)
_NUMBER_STATEMENT = re.compile(
    r"\b(?:answers?|results?|total|estimate)\s?(?:is|would be|:|=|≈)|答案是|答案[:：]|答案为|约为",
    re.IGNORECASE,
)


def _numbers(text: str, most: int = 0) -> list[float]:
    """The numbers of ``text`` in order (``most``: stop once that many distinct values were read)."""
    out: list[float] = []
    seen: set[float] = set()
    for m in _NUMBER.finditer(text):
        token = m.group(0)
        if not any(c.isdigit() for c in token):
            continue
        try:
            value = float(token.replace(",", "").replace("\u2212", "-"))
        except ValueError:
            continue
        if math.isfinite(value):
            out.append(value)
            seen.add(value)
            if most and len(seen) >= most:
                break
    return out


def parse_number(cell: Any) -> float | None:
    """A numeric answer cell as a float (a number, or text that is one number: ``250``, ``2.5``, ``1,200``,
    ``-3e2``); None for anything else (the problem line names the row)."""
    if isinstance(cell, bool):
        return None
    if isinstance(cell, (int, float)):
        return float(cell) if math.isfinite(float(cell)) else None
    if not isinstance(cell, str):
        return None
    text = normalize_chars(cell).strip()
    match = _NUMBER.fullmatch(text)
    if match is None or not any(c.isdigit() for c in text):
        return None
    values = _numbers(text)
    return values[0] if len(values) == 1 else None


def extract_number(output: object) -> float | None:
    """The number a ``format: numeric`` answer gives, or None (unparseable).

    Reasoning blocks are removed (an unterminated one: None); then the last ``\\boxed{...}`` with one number in it;
    else the first number after the last answer statement (``Answer:``, ``the answer is``, ``total:``, ``答案是``);
    else the one number of the output (several different numbers and no statement: None, never a guess). Numbers
    are read with a decimal point; commas group thousands (``1,200``); full-width and other Unicode digits count.
    Linear in the output's length."""
    text = strip_reasoning(output)
    if not text:
        return None
    text = WHITESPACE_RE.sub(" ", normalize_chars(text))
    boxed = last_match(_BOXED, text)
    if boxed is not None:
        values = set(_numbers(boxed.group(1)))
        return values.pop() if len(values) == 1 else None
    statement = last_match(_NUMBER_STATEMENT, text)
    if statement is not None:
        values = _numbers(text[statement.end() : statement.end() + 200])
        if values:
            return values[0]
    values = set(_numbers(text, most=2))
    return values.pop() if len(values) == 1 else None


def within(prediction: float, gold: float, tolerance: Mapping[str, float]) -> bool:
    """Whether ``prediction`` is right: ``|prediction - gold| <= absolute`` or ``<= relative * |gold|``."""
    error = abs(prediction - gold)
    return error <= float(tolerance.get("absolute") or 0.0) or error <= float(tolerance.get("relative") or 0.0) * abs(
        gold
    )


def tolerance_problems(value: Any, fmt: Any) -> list[str]:
    """What is wrong with ``metadata.regional.tolerance``: not a mapping, a task that is not numeric, an unknown
    key, a value that is not a number of at least 0."""
    where = "metadata.regional.tolerance"
    if not isinstance(value, Mapping):
        return [f"{where}: give a mapping, e.g. {{absolute: 0.5, relative: 0.05}}"]
    problems = [] if fmt == "numeric" else [f"{where}: only numeric tasks (format: numeric) have one; remove it"]
    problems += [f"{where}.{k}: unknown key (known: absolute, relative)" for k in value if k not in TOLERANCE_KEYS]
    for key in TOLERANCE_KEYS:
        v = value.get(key)
        if v is not None and (isinstance(v, bool) or not isinstance(v, (int, float)) or not v >= 0 or v == math.inf):
            shown = "true" if v is True else "false" if v is False else repr(v)
            problems.append(f"{where}.{key}: {shown} is not a number of at least 0")
    return problems
