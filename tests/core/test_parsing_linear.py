"""Core parsing pieces made cheaper on runaway outputs (issue 10) give the same results as before."""

from __future__ import annotations

import random
import re
import unicodedata

from food_tasks.hooks import parsing

OLD_ROLE_ECHO_RE = re.compile(
    r"^\s*(?:<\|assistant\|>\s*|(?:<\|im_start\|>)?assistant[ \t]*(?::|\r?\n)\s*)",
    re.IGNORECASE,
)


def _old_option_key(text: str) -> str:
    return "".join(ch for ch in text.casefold() if not unicodedata.category(ch).startswith(("P", "Z", "Cc")))


def test_role_echo_pattern_matches_as_before() -> None:
    rng = random.Random(5)
    pieces = [" ", "\n", "\t", "\r\n", "assistant", "Assistant", ":", "<|assistant|>", "<|im_start|>", "x", "\u3000"]
    for _ in range(5000):
        text = "".join(rng.choice(pieces) for _ in range(rng.randint(0, 10)))
        assert parsing.ROLE_ECHO_RE.sub("", text, count=1) == OLD_ROLE_ECHO_RE.sub("", text, count=1), text
    assert parsing.strip_reasoning(" " * 100000 + "assistant\nB") == "B"


def test_option_key_as_before() -> None:
    rng = random.Random(9)
    for _ in range(5000):
        text = "".join(
            chr(rng.choice([rng.randrange(0x300), rng.randrange(0x110000)])) for _ in range(rng.randint(0, 16))
        )
        assert parsing._option_key(text) == _old_option_key(text), repr(text)
    assert parsing._option_key("Sapin-sapin \t(Ｂ)\x00") == "sapinsapinｂ"


def _unguarded_statement(labels: tuple[str, ...]) -> re.Pattern[str]:
    """The statement pattern as first written, without the leading first-character lookahead."""
    label_alt = parsing.alternation(labels)
    bounded = parsing.alternation(parsing._STATEMENT_BOUNDED)
    unbounded = parsing.alternation(parsing._STATEMENT_UNBOUNDED)
    connectors = parsing.alternation(list(parsing.ANSWER_CONNECTORS) + list(parsing.CHOICE_CONNECTORS))
    return re.compile(
        rf"(?:\b(?:{bounded})|(?:{unbounded}))(?:\s*(?:{connectors})){{0,2}}\s*[\(\[【]?\s*({label_alt})(?![0-9A-Za-z])",
        re.IGNORECASE,
    )


def test_statement_lookahead_keeps_the_matches() -> None:
    rng = random.Random(13)
    words = [*parsing._STATEMENT_BOUNDED, *parsing._STATEMENT_UNBOUNDED, *parsing.ANSWER_CONNECTORS]
    # Characters whose case-insensitive matching is special (long s, Kelvin sign, dotted/dotless i, final sigma).
    odd = ["\u017f", "\u212a", "\u0130", "\u0131", "\u03c2", "ß", "ǅ"]
    for labels in (("A", "B", "C", "D"), ("1", "2", "3", "4", "5")):
        old = _unguarded_statement(labels)
        new = parsing._label_set(labels, False).statement
        for _ in range(4000):
            pieces = []
            for _ in range(rng.randint(1, 8)):
                word = rng.choice(words + list(labels) + odd + [" ", "(", "x", ":"])
                pieces.append(word.upper() if rng.random() < 0.3 else word)
                if rng.random() < 0.5:
                    pieces.append(" ")
            text = "".join(pieces)
            assert [m.span() for m in new.finditer(text)] == [m.span() for m in old.finditer(text)], text
        for text in ("\u017felect 2", "\u017fagot: 3", "\u0130D 4", "\u0131d 4", "ID 4", "\u0130mage 2"):
            assert [m.span() for m in new.finditer(text)] == [m.span() for m in old.finditer(text)], text
