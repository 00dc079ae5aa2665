"""Words around an option label that decide whether it is the answer, for
:func:`food_tasks.hooks.parsing.extract_choice`: the connectors that join two labels into a hedge, the contrast words
that reject one of two labels, and the negations that reject a label alone.

Every pattern here runs on normalised text with single spaces and consumes each optional piece at most once, so a
match attempt is bounded and a whole scan is linear in the text.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

__all__ = [
    "CONTRAST_AFTER_REJECTED",
    "CONTRAST_BEFORE_REJECTED",
    "HEDGE_CONNECTORS",
    "NEGATIONS_AFTER",
    "NEGATIONS_BEFORE",
    "OPTION_WORDS",
    "Negations",
    "alternation",
    "contrast_patterns",
    "negated_before",
    "negation_patterns",
]


def alternation(words: Iterable[str]) -> str:
    """Regex alternation of literal words, longest first so prefixes never shadow."""
    return "|".join(re.escape(w) for w in sorted(set(words), key=len, reverse=True))


# Words and marks that join two labels into one hedged answer ("A or B", "A/B", "A、B", "A或B", "不是A就是B"):
# two different labels joined by nothing but these (and spaces, brackets, an option word) are not one answer.
HEDGE_CONNECTORS = (
    *(",", "/", "&", "+", "、", "or", "and", "and/or", "nor", "or maybe", "or perhaps", "or possibly"),
    *("o", "ou", "oder", "atau", "или", "hoặc", "y", "e", "et", "und", "dan", "и", "veya", "ya da"),
    *("或", "或者", "或是", "还是", "還是", "和", "与", "與", "及", "以及", "跟", "要么", "就是", "也可能是"),
    *("또는", "혹은", "이나", "나", "か", "または", "や", "と", "หรือ", "และ"),
)
# Option words a hedge, contrast or negation may repeat before its label ("option A or option B", "A或选项B", "not
# option C").
OPTION_WORDS = ("option", "choice", "letter", "answer", "选项", "選項", "答案")
# Contrasts: "X rather than Y", "X over Y", "X (not Y)", "X而不是Y" reject Y; "not X, but Y", "Not X, it's Y",
# "不是X，而是Y" reject X. A rejected label is never read (extract_choice), never the other label.
CONTRAST_BEFORE_REJECTED = ("rather than", "instead of", "over", "not", "but not", "and not", "而不是", "而非", "不是")
CONTRAST_AFTER_REJECTED = ("but", "but rather", "rather", "it's", "it is", "it\u2019s", "but it's", "而是", "是")
# An adverb between the chosen label and the contrast ("C, definitely not A").
_CONTRAST_ADVERBS = ("definitely", "certainly", "surely", "clearly", "absolutely", "obviously")

# Negations of one label. Before it ("not C", "isn't C", "can't be C", "I wouldn't choose option C", "不是C", "排除C",
# "No es C", "Bukan C", "Не C"): Latin and Cyrillic words start a word, "n't" ends one, CJK and Thai attach anywhere.
NEGATIONS_BEFORE_BOUNDED = (
    *("not", "never", "cannot", "rule out", "ruled out", "ruling out", "exclude", "excluding", "eliminate"),
    *("no es", "no era", "no sería", "não é", "não", "pas", "nicht", "keinesfalls", "bukan", "не", "không phải"),
)
NEGATIONS_BEFORE_UNBOUNDED = (
    *("n't", "n\u2019t", "不是", "并非", "並非", "非", "排除", "不选", "不選", "不应选", "不應選"),
    *("不会是", "不會是", "不可能是", "ไม่ใช่"),
)
NEGATIONS_BEFORE = NEGATIONS_BEFORE_BOUNDED + NEGATIONS_BEFORE_UNBOUNDED
# A verb between the negation and the label ("can't be C", "would not choose C", "don't think it's C").
_NEGATED_VERBS = ("be", "choose", "pick", "select", "go with", "say", "think it's", "think it\u2019s", "think it is")
# After it ("C is wrong", "C is not the correct answer", "C isn't correct", "C can be eliminated", "C不对", "C是错误的",
# "C değil", "Cではない", "C는 오답"): an optional copula, then a negative predicate.
_COPULAS = ("is", "was", "are", "seems", "looks", "would be", "must be", "should be", "can be", "is also", "is clearly")
_NEGATIVE_WORDS = ("wrong", "incorrect", "eliminated", "excluded", "ruled out", "değil", "yanlış")
_NOTS = ("not", "isn't", "isn\u2019t", "wasn't", "wasn\u2019t")
_NOT_PREDICATES = ("correct", "right", "the answer", "the correct answer", "the right answer", "the correct option")
NEGATIONS_AFTER = (*_NEGATIVE_WORDS, *(f"{n} {p}" for n in _NOTS for p in _NOT_PREDICATES))
NEGATIONS_AFTER_CJK = (
    *("错的", "错误", "錯的", "錯誤", "不对", "不對", "不正确", "不正確", "不是正确答案", "不是正確答案", "不是答案"),
    *("被排除", "可以排除", "ではない", "ではありません", "じゃない", "は違う", "は違います", "は間違い", "は不正解"),
    *("는 오답", "은 오답", "는 틀", "은 틀", "가 아니", "이 아니", "오답"),
)
_CJK_COPULAS = ("项", "項", "是", "也是", "也", "项是", "項是", "明显", "显然", "肯定是")


def _guarded(words: Iterable[str]) -> str:
    """A group matching one of ``words``, behind a lookahead class of their first characters (both cases)."""
    words = tuple(words)
    lead = "".join(sorted({c for w in words for c in (w[0].lower(), w[0].upper())}))
    return rf"(?:(?=[{re.escape(lead)}])(?:{alternation(words)}))"


def contrast_patterns(label_alt: str) -> tuple[re.Pattern[str], re.Pattern[str]]:
    """``(rejected_after, rejected_before)``: group 1 of a match is the label a contrast rejects ("B" in "A rather
    than B", "A" in "not A, but B"); the chosen label is only looked at (a lookahead)."""
    words = rf"(?:(?:{alternation(OPTION_WORDS)}) ?)?"
    word_end = "(?:(?<![A-Za-z])|(?![A-Za-z]))"  # a Latin word ends at a word boundary ("over" not "overt")
    label = rf"[\(\[【]? ?(?<![0-9A-Za-z])(?:{label_alt})(?![0-9A-Za-z]) ?[\)\]】]?"
    ahead = rf"(?=[\(\[【]? ?(?<![0-9A-Za-z])({label_alt})(?![0-9A-Za-z]))"
    adverb = rf"(?:{_guarded(_CONTRAST_ADVERBS)} )?"
    rejected_after = re.compile(
        rf"{label}(?: ?,)? ?\(? ?{adverb}{_guarded(CONTRAST_BEFORE_REJECTED)}{word_end} ?{words}{ahead}",
        re.IGNORECASE,
    )
    rejected_before = re.compile(
        rf"(?:(?<![A-Za-z])not|不是) ?{words}[\(\[【]? ?(?<![0-9A-Za-z])({label_alt})(?![0-9A-Za-z]) ?[\)\]】]?"
        rf"(?: ?[,;])? ?(?:{alternation(CONTRAST_AFTER_REJECTED)}){word_end} ?{words}(?={label})",
        re.IGNORECASE,
    )
    return rejected_after, rejected_before


def negation_patterns(label_alt: str, first: str) -> tuple[re.Pattern[str], re.Pattern[str]]:
    """``(negated_before, negated_after)``: group 1 of a match is the label a negation rejects ("C" in "not C",
    "It can't be option (C)", "C is wrong", "C不对"). ``first`` holds the first characters of the labels (both cases),
    for the lookahead that lets the engine reject most positions with one class test."""
    label = rf"(?<![0-9A-Za-z])({label_alt})(?![0-9A-Za-z])"
    lead = "".join(sorted({c for w in NEGATIONS_BEFORE for c in (w[0].lower(), w[0].upper())}))
    before = (
        rf"(?=[{re.escape(lead)}])(?:(?<!\w)(?:{alternation(NEGATIONS_BEFORE_BOUNDED)})"
        rf"|(?:{alternation(NEGATIONS_BEFORE_UNBOUNDED)})) ?(?:(?:{alternation(_NEGATED_VERBS)}) )?"
        rf"(?:(?:{alternation(OPTION_WORDS)}) ?)?[\(\[【]? ?{label}"
    )
    # Each alternation is guarded by a class test of its words' first characters: a label followed by anything else
    # is rejected at once (the engine would otherwise try every word in turn, on every label of a runaway output).
    negative = rf"(?:{_guarded(_NEGATIVE_WORDS)}|{_guarded(_NOTS)} {_guarded(_NOT_PREDICATES)})(?![A-Za-z])"
    after = (
        rf"(?=[\(\[【{re.escape(first)}])[\(\[【]? ?{label} ?[\)\]】]? ?"
        rf"(?:(?:{_guarded(_COPULAS)} )?{negative}|{_guarded(_CJK_COPULAS)}?{_guarded(NEGATIONS_AFTER_CJK)})"
    )
    return re.compile(before, re.IGNORECASE), re.compile(after, re.IGNORECASE)


class Negations:
    """The positions of the labels the ``patterns`` (:func:`negation_patterns`) find rejected in ``text`` ("C" in "not
    C", "C is wrong"), by one scan when first asked: ``position in negations``."""

    def __init__(self, patterns: tuple[re.Pattern[str], ...], text: str) -> None:
        self.patterns, self.text, self.found = patterns, text, None

    def __contains__(self, position: int) -> bool:
        if self.found is None:
            self.found = {m.start(1) for pattern in self.patterns for m in pattern.finditer(self.text)}
        return position in self.found


def negated_before(text: str, position: int) -> bool:
    """Whether a negation of :data:`NEGATIONS_BEFORE` ("not", "不是", "排除") ends right before ``position`` in
    ``text`` (normalised), as in "不是第二张": a bounded look back."""
    return text[max(0, position - 12) : position].rstrip().lower().endswith(NEGATIONS_BEFORE)
