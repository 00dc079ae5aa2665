"""Core parsing pieces made cheaper on runaway outputs (issue 10) give the same results as before."""

from __future__ import annotations

import random
import re
import unicodedata

from food_tasks import parsing

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
        text = "".join(chr(rng.choice([rng.randrange(0x300), rng.randrange(0x110000)])) for _ in range(rng.randint(0, 16)))
        assert parsing._option_key(text) == _old_option_key(text), repr(text)
    assert parsing._option_key("Sapin-sapin \t(Ｂ)\x00") == "sapinsapinｂ"
