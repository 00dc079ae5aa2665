"""Food-500 Cap output clean-up and Semantic Label Accuracy (SLA) matching.

No official post-processing exists (the paper's captioners emit plain captions). Our design choice
(yaml_tasks/food500cap/README.md, "Caption clean-up"): reasoning blocks are removed (unterminated reasoning is an
empty caption and a parse failure), a leading role or label prefix, surrounding quotes and markdown emphasis
are removed, whitespace is collapsed; the caption is never truncated to its first sentence.

SLA (paper section 4.2.2 and Table 3 caption: "Accurate: the generated caption exactly contains the whole food
category label. Relaxed: the generated caption contains some word from the food label"): tokenisation, case
and stop words are not specified by the paper; the normalisation below is our design choice (README, "SLA
rules"). Everything is linear in the caption length; anything that is not a string is an unparseable caption.
"""

from __future__ import annotations

import re
import unicodedata

from food_tasks.hooks.parsing import strip_reasoning

STOP_WORDS = frozenset("and with of the a an in on de la le al du di en y".split())
MIN_RELAXED_LEN = 3
_PREFIX = re.compile(r"^(?:caption|answer|assistant|description|image caption)\s*[:\-\u2013\u2014]\s*", re.IGNORECASE)
_HEADER = re.compile(r"^#{1,6}\s+")
_QUOTES = "\"'\u201c\u201d\u2018\u2019\u00ab\u00bb`"
_PARENS = re.compile(r"\([^()]*\)")
_APOSTROPHES = str.maketrans({"\u2019": "'", "\u2018": "'", "\u02bc": "'"})


def clean_caption(output: object) -> tuple[str, bool]:
    """``(caption, parse_failed)``: the caption to score and whether the output was unusable.

    Not a string, or reasoning left open: ``("", True)``. Otherwise reasoning, a role/label prefix,
    surrounding quotes and markdown emphasis are removed and whitespace is collapsed to single spaces.
    """
    text = strip_reasoning(output)
    if text is None:
        return "", True
    text = " ".join(text.replace("**", " ").replace("__", " ").replace("*", "").split())
    for _ in range(3):  # "Assistant: Caption: ..." - a bounded number of passes, each O(n)
        stripped = _HEADER.sub("", _PREFIX.sub("", text, count=1), count=1).strip().strip(_QUOTES).strip()
        if stripped == text:
            break
        text = stripped
    return text, False


def _punct_to_space(text: str) -> str:
    # Punctuation (Unicode category P*) except hyphens and apostrophes becomes a space.
    return "".join(" " if unicodedata.category(ch).startswith("P") and ch not in "-'" else ch for ch in text)


def normalize_caption(text: str) -> str:
    """NFC, lower-case, punctuation except hyphens/apostrophes to spaces, single spaces."""
    return " ".join(_punct_to_space(unicodedata.normalize("NFC", text).translate(_APOSTROPHES).lower()).split())


def normalize_label(cat: str) -> str:
    """Category folder name -> label: NFC, ``_`` to space, parenthetical qualifiers removed, then as captions.

    ``Ambrosia_(fruit_salad)`` -> ``ambrosia``; ``Pig's_ear`` -> ``pig's ear``.
    """
    text = unicodedata.normalize("NFC", cat).replace("_", " ")
    return normalize_caption(_PARENS.sub(" ", text))


def strip_accents(text: str) -> str:
    """Remove combining marks (``çiğ köfte`` -> ``cig kofte``); used by the ``_unaccented`` variants only."""
    return unicodedata.normalize(
        "NFC", "".join(c for c in unicodedata.normalize("NFD", text) if not unicodedata.combining(c))
    )


def relaxed_tokens(label: str, stop_words: bool = True) -> list[str]:
    """Label words that count for SLA-relaxed: length >= 3 and not a stop word (all words if none qualify,
    or with ``stop_words=False``)."""
    words = label.split()
    if not stop_words:
        return words
    kept = [w for w in words if len(w) >= MIN_RELAXED_LEN and w not in STOP_WORDS]
    return kept or words


def sla(caption: str, cat: str) -> dict[str, bool]:
    """SLA indicators of one caption for category ``cat`` (the four variants and the accent-insensitive pair)."""
    cap, label = normalize_caption(caption), normalize_label(cat)
    padded, words = f" {cap} ", set(cap.split())
    out = {
        "accurate": bool(label) and f" {label} " in padded,
        "relaxed": any(w in words for w in relaxed_tokens(label)),
        "relaxed_nostop": any(w in words for w in relaxed_tokens(label, stop_words=False)),
    }
    cap_u, label_u = strip_accents(cap), strip_accents(label)
    words_u = set(cap_u.split())
    out["accurate_unaccented"] = bool(label_u) and f" {label_u} " in f" {cap_u} "
    out["relaxed_unaccented"] = any(w in words_u for w in relaxed_tokens(label_u))
    return out
