"""A judge's yes / no read from a free-text reply: the fallback reader of judges that do not follow the verdict
protocol (:mod:`food_tasks.judge.protocol`), shared by every judged task.

:func:`verdict_robust` reads the judge's **closing verdict statement**: the last sentence of the reply that states a
verdict in the judge's own words. Rules (docs/judge.md, "The fallback reader"):

- the reply is normalised (NFKC, case-folded, zero-width and format characters and markdown marks removed, quotes
  dropped) and cut into sentences (line breaks, ``. ! ? 。！？;；``) and clauses (``, ， 、``); a sentence that ends
  with a question mark is a question, not a verdict;
- a clause states a verdict with a bare word (``yes``/``no`` opening or closing it; ``是``, ``否``, ``对``, ``不是``
  ... as the whole clause), a labelled value (``判定为“是”``, ``是否正确：否``, ``Verdict: no``, ``the answer is
  yes``), or a predicate (``correct``, ``incorrect``, ``matches``, ``正确``, ``不一致``, ``不符合`` ...) read with
  its negation (``not correct``, ``does not match``, ``不完全正确``, ``没有错误``, ``I don't think it is correct``; a
  negative quantifier as the clause's subject, ``Nothing in the prediction is wrong``, however far), and a verdict of
  part of the answer (``partly right``, ``partly wrong``, ``部分错误``) never a yes;
- not a verdict: what a clause attributes to an answer (``the candidate says yes``, ``标准答案为“是”``,
  ``Reference answer: yes``), a question or condition (``whether``, ``if``, ``是否正确``, ``正确与否``), a concession
  (``although``, ``虽然``; after ``but``/``但``, or a conclusion ``so``/``therefore``/``所以``/``因此``, only the
  rest of the sentence counts where it states a verdict), the noun ``correct answer``/``正确答案``, ``是`` as a
  copula (``标准答案是蒸的``);
- a verdict word inside a near-verbatim copy of the candidate answer (case, spacing, punctuation and markdown
  ignored; at least :data:`ECHO_EXTENT` letters or digits of the answer around the word, CJK counted double) is the
  answer's, not the judge's;
- the closing verdict statement decides; one that says both yes and no (``Yes, the prediction is wrong.``) is
  unreadable (None), as is a reply without any verdict statement. Never a guess.

Linear in the reply and the answer: one pass over the reply from its end, at most :data:`ECHO_CHECKS` verdict words
compared with the answer (each a substring search).
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Sequence

from food_tasks.hooks.parsing import strip_reasoning

ECHO_EXTENT = 6  # letters or digits of the answer around a verdict word that make it a copy (a CJK character: 2)
ECHO_CHECKS = 64  # verdict words compared with the answer per reply; past them a word counts as a copy (linear time)
_CONTEXT = 64  # characters of the reply read either side of a verdict word for the copy test

# Quotes dropped, markdown marks and zero-width / format characters removed (after NFKC and case folding).
_DROP = dict.fromkeys(map(ord, '"“”„‟「」『』﹁﹂﹃﹄«»‹›`*_#~|'), None)
_APOSTROPHES = str.maketrans({"‘": "'", "’": "'", "ʼ": "'", "′": "'"})
_FORMAT_RE = re.compile("[\u00ad\u061c\u180e\u200b-\u200f\u202a-\u202e\u2060-\u2064\u2066-\u206f\ufeff\ufff9-\ufffb]")
_ARROW_RE = re.compile(r"-+>|=+>|[→⇒⟶➔➜]")
_SENTENCE_RE = re.compile(r"[^\n.!?。！？;；…]*(?:[\n.!?。！？;；…]+|\Z)")
_CLAUSE_RE = re.compile(r"[^,，、]+")
_WORD_RE = re.compile(r"[\W_]+")

_YES, _NO = 1, 2
_CONTRAST_RE = re.compile(
    r"\b(?:but|however|yet|nevertheless|though)\b|但是|但|然而|不过|可是|"
    # a conclusion drawn after the reasons ("spelling may differ, so I consider it correct", "写法不同，所以预测正确")
    r"(?:[,，:：]\s*|^\s*|\band\s+)(?:so|therefore|thus|hence|consequently)\b|所以|因此|因而|故而|综上"
)
_SKIP_RE = re.compile(
    r"^\W*(?:although|though|even though|even if|while|whereas|if|unless)\b|\bwhether\b|"
    r"是否[\w]|与否|虽然|尽管|虽说|如果|假如|若"
)
_ANSWER_NOUN = (
    r"(?:reference|gold|ground[ -]?truth|standard|expected|correct|right|candidate|candidate's|predicted|prediction|"
    r"model|model's|student|student's|given|original|provided|its|their|true)"
)
_REPORT_RE = re.compile(
    r"\b(?:answer|prediction|candidate|model|response|reference|ground[ -]?truth|gold|student|it|they)\b[^.]{0,40}?"
    r"\b(?:says?|said|states?|stated|claims?|claimed|answered|writes?|wrote|reads|replie[sd]|repl(?:y|ies)|"
    r"asserts?|asserted|mentions?|mentioned|suggests?|suggested|outputs|outputted|responded)\b|(?:标准|参考|正确|预测|候选|模型|给出的)答案?(?:说|称|写道|认为|表示|回答|给出|提到|指出)|"
    r"(?:模型|预测|回答|候选)(?:说|称|写道|认为|表示|给出|提到)"
)
_REPORT_LABEL_RE = re.compile(
    rf"(?:\b{_ANSWER_NOUN}\s+(?:answer|response|value|label)\b|\b(?:ground[ -]?truth|gold|reference|prediction|"
    r"candidate|question|model output|output of the model)\b\s*$|(?:标准|参考|正确|预测|候选|模型|给出的)(?:答案|回答)|"
    r"问题|预测$|标准$|候选$)"
)
_BARE_ZH = {
    "是": _YES,
    "是的": _YES,
    "对": _YES,
    "对的": _YES,
    "是对的": _YES,
    "没错": _YES,
    "正确": _YES,
    "否": _NO,
    "不": _NO,
    "不是": _NO,
    "不对": _NO,
    "错": _NO,
    "错了": _NO,
    "错的": _NO,
    "是错的": _NO,
    "不正确": _NO,
    "错误": _NO,
}
_BARE = {
    **_BARE_ZH,
    **dict.fromkeys(("yes", "yep", "yeah", "correct", "right", "true"), _YES),
    **dict.fromkeys(("no", "nope", "incorrect", "wrong", "false"), _NO),
}
_FORMAL_RE = re.compile(
    r"\b(?:verdict|judg(?:e)?ment|final answer|decision|conclusion|answer|grade|result)\s*[:：]|"
    r"(?:判定|判断|结论|最终|输出|答案|结果|评定|判为)"
)
_TAIL_ZH_RE = re.compile(r"(?:^|[^\w]|(?<=[a-z0-9]))(是|否|对|错|不对|不是)\W*$")
_PARTICLES_RE = re.compile(r"[的了啊呀呢吧哦嗯]+$")
_LEAD_RE = re.compile(r"^\W*(yes|no|yep|yeah|nope)\b")
_TAIL_RE = re.compile(r"\b(yes|no|yep|yeah|nope)\W*$")
_LABEL_ZH_RE = re.compile(
    r"(判定|判断|判为|认定|评定|结论|结果|答案|回答|输出|裁定|评判|判决|评估|评价|我的判断|最终)"
    r"(?:结果|应|应该|应当|可以|则|只能|必须)?(?:为|是|选)\s*(是|否|对|错|正确|错误|不正确|yes|no)\W*$"
)
# Predicates: the negative forms first (longest first), then the positive ones; each read with its negation.
_PREDICATE_RE = re.compile(
    r"(?P<neg>\b(?:incorrect(?:ly)?|wrong(?:ly)?|false|inaccurate(?:ly)?|mismatch(?:es|ed)?|different|differs?|"
    r"inconsistent|invalid|unacceptable|contradicts?|contradiction|inequivalent|unrelated)\b|"
    r"不正确|不一致|不相同|不同|不符合|不符|不匹配|不准确|不等价|不吻合|不相符|有误|错误|错的|错了|矛盾|不对)|"
    r"(?P<pos>\b(?:correct(?:ly)?|accurate(?:ly)?|true|match(?:es|ed)?|consistent|equivalent|same|acceptable|"
    r"valid|agrees?|right)\b|正确|一致|相同|等价|符合|吻合|匹配|准确|无误|相符|等同|没错|是对的)"
)
_NOT_PREDICATE_RE = re.compile(r"\s*(?:answer|answers|one|option|response)\b|答案")
_RIGHT_NEEDS_RE = re.compile(
    r"\b(?:is|are|was|be|that's|it's|that is|it is|quite|exactly|all)"
    r"(?:\s+(?:not|only|partly|partially|half|entirely|completely|fully|mostly|largely|totally|just|also))*\s*$"
)
_NEGATOR_EN_RE = re.compile(
    r"\b(?:not|never|no|nothing|neither|nor|hardly|barely|isn't|aren't|wasn't|weren't|doesn't|"
    r"don't|didn't|cannot|can't|won't|shouldn't|wouldn't)\b|n't\b"
)
_DOUBT_RE = re.compile(
    r"\b(?:don't|do not|doesn't|does not|didn't|did not|can't|cannot|wouldn't|would not)\s+"
    r"(?:think|believe|say|consider|agree|feel|find)\b|不认为|不觉得|不能说|不敢说"
)
_NEGATOR_ZH_RE = re.compile(r"不|没|未|无|别|非(?!常)")
_ZH_QUANTIFIERS = ("任何", "一点", "一处", "什么", "丝毫", "一丝", "半点")  # 没有任何错误: the negation before them
# A verdict of part of the answer ("partly right", "partially wrong", "half correct", "部分正确"): never a yes.
_PARTIAL_RE = re.compile(r"\b(?:partly|partially|half|in part|halfway)\b|部分|一半")
# A clause whose subject is a negative quantifier ("Nothing in the prediction is wrong", "None of it is right", "No
# part of the answer is correct"): its predicate is negated however far it stands from the quantifier.
_QUANTIFIER_RE = re.compile(
    r"^\W*(?:and\s+|so\s+)?(?:nothing|none|no\s+(?:part|element|aspect|detail|component|portion|piece|item)s?|"
    r"not\s+(?:one|a\s+single)\s+\w+)\b"
)


def _normalized(text: str) -> str:
    """NFKC, case-folded, quotes and markdown marks dropped, format characters (zero-width) removed."""
    text = unicodedata.normalize("NFKC", text).casefold().translate(_APOSTROPHES).translate(_DROP)
    text = _ARROW_RE.sub(",", text)  # "“No, it is not spicy” -> 是": the arrow ends a clause
    return text if text.isascii() else _FORMAT_RE.sub("", text)


def skeleton(text: str) -> str:
    """The letters and digits of ``text`` (normalised as the reader normalises a reply): what a near-verbatim copy
    keeps of it whatever its punctuation, spacing, case and markdown."""
    return _WORD_RE.sub("", _normalized(text))


def _weight(chars: str) -> int:
    return sum(1 if ch.isascii() else 2 for ch in chars)


class _Echo:
    """The copy test of one reply against the candidate answer (its skeleton), with the :data:`ECHO_CHECKS` budget."""

    def __init__(self, answer: object) -> None:
        self._raw = answer if isinstance(answer, str) else ""
        self._answer: str | None = None
        self.budget = ECHO_CHECKS

    @property
    def answer(self) -> str:
        """The answer's skeleton, computed when first needed (most replies never compare a word with it)."""
        if self._answer is None:
            self._answer = skeleton(self._raw) if self._raw else ""
        return self._answer

    def copied(self, text: str, start: int, end: int) -> bool:
        """Whether the word ``text[start:end]`` lies in a near-verbatim copy of the answer: some stretch of the
        reply around it, at least :data:`ECHO_EXTENT` beyond the word, occurs in the answer (skeletons)."""
        if not self.answer:
            return False
        if self.budget <= 0:
            return True
        self.budget -= 1
        word = _WORD_RE.sub("", text[start:end])
        if word not in self.answer:
            return False
        left = _WORD_RE.sub("", text[max(0, start - _CONTEXT) : start])
        right = _WORD_RE.sub("", text[end : end + _CONTEXT])
        for n_left in range(len(left) + 1):
            got = _weight(left[len(left) - n_left :]) if n_left else 0
            n_right, weight = 0, got
            while weight < ECHO_EXTENT and n_right < len(right):
                weight += _weight(right[n_right])
                n_right += 1
            if weight >= ECHO_EXTENT and left[len(left) - n_left :] + word + right[:n_right] in self.answer:
                return True
            if got >= ECHO_EXTENT:
                break
        return False


def verdict_robust(text: object, quoting: Sequence[object] = ()) -> bool | None:
    """The judge's closing verdict in a free-text reply (module docstring): True (yes), False (no), None
    (unreadable: no verdict statement, a closing statement that says both, a non-string, unterminated reasoning).

    ``quoting``: the candidate answer first (a verdict word inside a near-verbatim copy of it is not the judge's);
    then the question and the gold answer, accepted for the documented call ``verdict_robust(reply, (answer,
    question, gold))`` and not needed (what a reply attributes to them is read as a report, not a verdict)."""
    cleaned = strip_reasoning(text)
    if cleaned is None:
        return None
    norm = _normalized(cleaned)
    echo = _Echo(quoting[0] if quoting else None)
    spans = [m.span() for m in _SENTENCE_RE.finditer(norm) if m.end() > m.start()]
    for k in range(len(spans) - 1, -1, -1):
        start, end = spans[k]
        if norm[start:end].rstrip().endswith(("?", "？")):
            continue
        found = _sentence(norm, start, end, echo)
        if found:
            if found == _YES | _NO:
                return None
            # says both: an earlier bare "No." against the closing statement, or an earlier formal verdict ("Verdict:
            # no", "判定为否") against a closing bare "Yes" (a quoted word, or a change of mind: never a credit)
            opposite = found ^ (_YES | _NO)
            closing_bare = _bare(norm, start, end, echo, copies=False) != 0
            for e in range(k):
                if _bare(norm, *spans[e], echo) == opposite or (
                    closing_bare and _FORMAL_RE.search(norm, *spans[e]) and _sentence(norm, *spans[e], echo) == opposite
                ):
                    return None
            return found == _YES
    return None


def _bare(norm: str, start: int, end: int, echo: _Echo, copies: bool = True) -> int:
    """The polarity of a sentence that is nothing but a verdict word ("No.", "是。", "Correct!"), else 0 (also where
    it is the whole candidate answer, copied)."""
    letters = _WORD_RE.sub("", norm[start:end])
    polarity = _BARE.get(_PARTICLES_RE.sub("", letters) if not letters.isascii() else letters, 0)
    if not polarity:
        return 0
    if copies and letters == echo.answer:  # the whole answer copied ("yes\n否" on the answer "yes"): the answer's word
        return 0
    return 0 if not polarity or echo.copied(norm, start, end) else polarity


def _sentence(norm: str, start: int, end: int, echo: _Echo) -> int:
    """The polarities (bit set) the judge states in ``norm[start:end]`` in its own words; after the last contrast
    word only the rest counts, where it states a verdict, but a bare verdict opening the sentence against it ("Correct,
    but incorrect") says both."""
    contrast = None
    for found in _CONTRAST_RE.finditer(norm, start, end):
        contrast = found
    if contrast is not None:
        tail = _clauses(norm, contrast.end(), end, echo)
        if tail:
            first = _CLAUSE_RE.search(norm, start, contrast.start())
            lead = _bare(norm, first.start(), first.end(), echo) if first is not None else 0
            return tail | lead if lead and lead != tail else tail
    return _clauses(norm, start, end, echo)


def _clauses(norm: str, start: int, end: int, echo: _Echo) -> int:
    found = 0
    for m in _CLAUSE_RE.finditer(norm, start, end):
        found |= _clause(norm, m.start(), m.end(), echo)
    return found


def _clause(norm: str, start: int, end: int, echo: _Echo) -> int:
    """The polarities one clause states (module docstring)."""
    clause = norm[start:end]
    colon = max(clause.rfind(":"), clause.rfind("："))
    if colon >= 0:
        label = clause[:colon].strip()
        if _REPORT_LABEL_RE.search(label) or _REPORT_RE.search(label):
            return 0  # what an answer or the question says: "Reference answer: yes", "标准答案：是"
        start += colon + 1
        clause = norm[start:end]
    if _SKIP_RE.search(clause):
        return 0
    report = _REPORT_RE.search(clause) is not None
    if report:
        return 0
    found = 0
    letters = _WORD_RE.sub("", clause)
    bare = _BARE_ZH.get(_PARTICLES_RE.sub("", letters)) if letters and not letters.isascii() else None
    if bare is not None:
        word = re.search(r"[^\W_]", clause)
        at = start + (word.start() if word else 0)
        return 0 if echo.copied(norm, at, at + len(letters)) else bare
    qualified = _REPORT_LABEL_RE.search(clause) is not None  # "the reference answer is yes": not the judge's yes
    quantified = _QUANTIFIER_RE.search(clause)  # "no part of it is correct": its "no" is no bare verdict
    for m in (None if quantified else _LEAD_RE.search(clause), None if qualified else _TAIL_RE.search(clause)):
        if m is not None:
            found |= _own(norm, start + m.start(1), start + m.end(1), _YES if m.group(1)[0] == "y" else _NO, echo)
    m = _TAIL_ZH_RE.search(clause)  # "yes 否": a Chinese verdict word closing a clause after Latin text or a space
    if m is not None and m.start(1) > 0:
        polarity = _BARE_ZH[m.group(1)]
        found |= _own(norm, start + m.start(1), start + m.end(1), polarity, echo)
    m = _LABEL_ZH_RE.search(clause)
    if m is not None and not re.search(r"(?:标准|参考|正确|预测|候选|模型)$", clause[: m.start()]):
        value = m.group(2)
        polarity = _YES if value in ("是", "对", "正确", "yes") else _NO
        found |= _own(norm, start + m.start(2), start + m.end(2), polarity, echo)
    doubt = _DOUBT_RE.search(clause)  # "I don't think it is correct", "我不认为它正确": what follows is negated
    for p in _PREDICATE_RE.finditer(clause):
        word = p.group()
        if _NOT_PREDICATE_RE.match(clause, p.end()):
            continue  # "the correct answer", "正确答案": a noun, not a verdict
        if (
            word == "right"
            and not _RIGHT_NEEDS_RE.search(clause[max(0, p.start() - 24) : p.start()])
            and (letters != "right")
        ):
            continue  # "right" as a verdict only after "is", "that's" ...
        polarity = _NO if p.lastgroup == "neg" else _YES
        after = doubt.end() if doubt is not None and doubt.end() <= p.start() else 0  # "不能说不对": 不 is the doubt's
        near, window = _negated(clause, p.start(), word.isascii(), after)
        far = quantified is not None and quantified.end() <= p.start() and quantified.end() <= window
        if (near != (doubt is not None and doubt.end() <= p.start())) != far:
            polarity ^= _YES | _NO
        if _PARTIAL_RE.search(clause, max(0, window - (0 if word.isascii() else 2)), p.start()):
            polarity = _NO  # "partly right", "partly wrong": not a correct answer
        if not polarity & found:  # a polarity already stated: nothing more to learn from this word
            found |= _own(norm, start + p.start(), start + p.end(), polarity, echo)
        if found == _YES | _NO:
            break
    return found


def _negated(clause: str, at: int, ascii_word: bool, after: int = 0) -> tuple[bool, int]:
    """Whether a negation stands just before the predicate at ``at`` (within three words, English, or three
    characters, CJK, a quantifier between them skipped: ``没有任何错误``), not before ``after`` (a doubt's own
    negation), and where that window starts."""
    if ascii_word:
        before = clause[max(0, at - 40, after) : at]
        words = before.split()[-3:]
        window = at - len(before) + (before.rfind(words[0]) if words else len(before))
        return _NEGATOR_EN_RE.search(" ".join(words)) is not None, window
    end = at - 2 if clause[max(0, at - 2) : at] in _ZH_QUANTIFIERS else at
    window = max(0, end - 3, after)
    return _NEGATOR_ZH_RE.search(clause[window:end]) is not None, window


def _own(norm: str, start: int, end: int, polarity: int, echo: _Echo) -> int:
    return 0 if echo.copied(norm, start, end) else polarity
