"""A judge's yes / no, read from the judge's own words (every judged task: a benchmark's, a judged regional task).

The evaluated model's answer is part of the judge's request, so a judge may quote it ("The candidate says 'yes, it is
fried'. No.") before giving its own verdict. :func:`verdict_robust` removes what the judge quotes (verbatim copies of
the candidate answer, the question and the gold answer, and quoted spans) before it reads a verdict, so an answer
that says "yes" cannot give the verdict. Linear in the reply (its first :data:`VERDICT_READ_LIMIT` characters).
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Sequence

from food_tasks.hooks.parsing import WHITESPACE_RE, normalize_chars, strip_reasoning

_VERDICT_TRUE = {"是", "对", "正确", "yes", "true", "correct", "一致", "相同"}
_VERDICT_FALSE = {"否", "不", "错误", "不正确", "no", "false", "incorrect", "不是", "不一致", "错", "不对"}
_WORD_TRUE = re.compile(r"\b(?:yes|true|correct)\b")
_WORD_FALSE = re.compile(r"\b(?:no|false|incorrect|not correct|wrong)\b")
_BARE_VERDICTS = _VERDICT_TRUE | _VERDICT_FALSE | {"是的", "对的", "不是的", "没错"}
_LEAD_RE = re.compile(r"^[\W_]*(是否|不正确|不一致|不是|不对|正确|错误|一致|相同|是|否|对|错|不|[a-z]+)")


VERDICT_READ_LIMIT = 4000  # characters of a judge's reply read for its verdict (a verdict is a word or two)
# A quoted span: straight double quotes, curly double and single quotes, corner brackets, backticks. An opening
# character that is not closed matches nothing; each class stops at the next opening or closing character, so a
# scan is linear.
_QUOTED_RE = re.compile(r'"[^"]*"|“[^“”]*”|‘[^‘’]*’|「[^「」]*」|『[^『』]*』|`[^`]*`')
_SPACES_RE = re.compile(r"\s+")


def _folded(text: str) -> str:
    return _SPACES_RE.sub(" ", unicodedata.normalize("NFKC", text).casefold())


def _without_copies(text: str, copy: str) -> str:
    """``text`` with each verbatim copy of ``copy`` replaced by a space; a copy whose first (last) character is an
    ASCII letter or digit counts only where the text does not continue the word ("no" is not cut out of "not")."""
    if not copy or len(copy) > len(text):
        return text
    pieces, cursor, pos = [], 0, text.find(copy)
    while pos != -1:
        end = pos + len(copy)
        joined = (pos > 0 and _word(copy[0]) and _word(text[pos - 1])) or (
            end < len(text) and _word(copy[-1]) and _word(text[end])
        )
        if joined:
            pos = text.find(copy, pos + 1)
            continue
        pieces += [text[cursor:pos], " "]
        cursor = end
        pos = text.find(copy, end)
    return "".join(pieces) + text[cursor:] if pieces else text


_NON_WORD_RE = re.compile(r"[\W_]+")


def _word(char: str) -> bool:
    return char.isascii() and char.isalnum()


def judge_own_words(text: str, quoting: Sequence[object] = (), *, bare: bool = True) -> str:
    """What the judge said itself: its reply (folded: NFKC, case-folded, whitespace runs one space) without the
    verbatim copies of ``quoting`` (the candidate answer, the question, the gold answer; longest first) and without
    quoted spans; ``bare=False`` keeps the copies that are a bare verdict word ("是", "Yes."). "" when nothing with a
    letter or digit is left. Linear in the reply's length (read up to :data:`VERDICT_READ_LIMIT` characters)."""
    own = _folded(text[:VERDICT_READ_LIMIT])
    copies = {_folded(q).strip() for q in quoting if isinstance(q, str)}
    if not bare:
        copies = {c for c in copies if _NON_WORD_RE.sub("", c) not in _BARE_VERDICTS}
    for copy in sorted(copies, key=lambda c: (-len(c), c)):
        own = _without_copies(own, copy)
    own = _QUOTED_RE.sub(" ", own)
    return own if any(ch.isalnum() for ch in own) else ""


def verdict_robust(text: object, quoting: Sequence[object] = ()) -> bool | None:
    """Robust verdict, read from the judge's own words, so that an answer the judge quotes cannot give the verdict.

    Read in turn, the first that gives a verdict wins: the reply without every copy of ``quoting`` and without quoted
    spans (:func:`judge_own_words`: "Yes, it is fried. No." with the answer "Yes, it is fried" reads "no"); the same
    keeping the copies that are a bare verdict word (the answer or gold answer "是" cannot be told from the judge's
    own "是", and "是的" or "Yes, it matches" are the judge's words: read as written); the reply as written only when
    nothing else is left in it (a one-word judge that answers "是" to the answer "是", or ``“否”``). Each reading: the
    first token decides (``是``/``否``/``yes``/``no``...); otherwise whole-word keywords when only one polarity occurs;
    otherwise, with no keyword of either polarity, a verdict word ending the reply after a space or punctuation
    ("…。判定：否"). None when unparseable (counted, scored False)."""
    if not isinstance(text, str):
        return None
    cleaned = strip_reasoning(text)
    if cleaned is None:
        return None
    verdict = _read_verdict(judge_own_words(cleaned, quoting)) if quoting else None
    if verdict is not None:
        return verdict
    kept = judge_own_words(cleaned, quoting, bare=False)
    return _read_verdict(kept or _folded(cleaned[:VERDICT_READ_LIMIT]))


def _read_verdict(text: str) -> bool | None:
    """One reading of a judge's reply (:func:`verdict_robust`); None for "" or no verdict."""
    norm = WHITESPACE_RE.sub(" ", normalize_chars(text[:2000])).strip().casefold()
    if not norm:
        return None
    lead = _LEAD_RE.match(norm)
    if lead is not None:
        token = lead.group(1)
        if token in _VERDICT_TRUE:
            return True
        if token in _VERDICT_FALSE:
            return False
    positive = bool(_WORD_TRUE.search(norm)) or any(k in norm for k in ("正确", "一致", "等价"))
    negative = bool(_WORD_FALSE.search(norm)) or any(k in norm for k in ("错误", "不正确", "不一致"))
    if positive != negative:
        return positive
    tail = None if positive else _TAIL_RE.search(norm)  # the last word after a preamble: "候选答案……。判定：否"
    if tail is not None:
        return tail.group(1) in _VERDICT_TRUE
    return None


# A verdict word that ends the reply, after a space or punctuation (trailing punctuation allowed).
_TAIL_RE = re.compile(
    r"(?:^|[\W_])(不正确|不一致|不是|不对|正确|错误|一致|是|否|对|错|yes|no|true|false|correct|incorrect)[\W_]*\Z"
)
