"""Finding JSON objects in model output (shared by the JSON-answer benchmarks).

Models wrap their JSON in code fences, prose, reasoning or trailing commentary. The robust reader
(:func:`json_objects`) tries, in order: the fenced blocks from last to first, then every balanced
top-level ``{...}`` from last to first (the final answer usually comes last; reasoning that echoes the
schema comes first), each read with :func:`json.loads` and then a tolerant reader (trailing commas,
Python literals). The official scorers' narrower readers are kept next to the benchmarks that need them.

Model output is untrusted input of any length: every scan here is linear in the output. The fence pattern
uses possessive quantifiers (no backtracking between its whitespace runs), and the closing brace of every
``{`` is found in one right-to-left pass (:func:`balanced_ends`) instead of one scan per ``{``.
"""

from __future__ import annotations

import ast
import json
import re
from typing import Any, Iterator

# Possessive prefix: the language tag and the whitespace around it never give characters back, so an
# unclosed fence costs one scan to the end, not one per split of a whitespace run (same matches: none of
# the prefix characters can start the closing fence).
FENCE_RE = re.compile(r"```[ \t]*+(?:json|JSON|javascript)?+[ \t]*+\n?+(.*?)```", re.DOTALL)
_TRAILING_COMMA_RE = re.compile(r",(\s*[}\]])")


def balanced_end(text: str, start: int) -> int | None:
    """Index just past the ``}`` closing the ``{`` at ``start`` (string-aware), or None if unbalanced."""
    depth, in_string, escape = 0, False, False
    for i in range(start, len(text)):
        ch = text[i]
        if in_string:
            if escape:
                escape = False
            elif ch == "\\":
                escape = True
            elif ch == '"':
                in_string = False
        elif ch == '"':
            in_string = True
        elif ch == "{":
            depth += 1
        elif ch == "}":
            depth -= 1
            if depth == 0:
                return i + 1
    return None


def balanced_ends(text: str) -> dict[int, int | None]:
    """:func:`balanced_end` of every ``{`` in ``text``, in one right-to-left pass (linear time).

    A scan that meets a ``{`` outside a string continues, after that ``{``'s own closing brace, exactly as
    before it (and never closes if that ``{`` never does), so inside a scan the depth is always 1 and its
    outcome depends only on the position and the string state (outside, inside, after a backslash inside).
    Those outcomes are computed once per special character (``{ } " \\``) from right to left. Same results
    as calling :func:`balanced_end` for each ``{``.
    """
    specials = [(m.start(), m.group()) for m in _SPECIAL_RE.finditer(text)]
    count = len(specials)
    # Index (into specials) of the closing "}" reached by a depth-1 scan about to read special k outside
    # (out) or inside (inside) a string; None when the scan runs off the end.
    out: list[int | None] = [None] * (count + 2)
    inside: list[int | None] = [None] * (count + 2)
    ends: dict[int, int | None] = {}
    for k in range(count - 1, -1, -1):
        pos, ch = specials[k]
        if ch == "\\":
            out[k] = out[k + 1]
            # Inside a string the backslash escapes the next character, special or not.
            inside[k] = inside[k + 2] if k + 1 < count and specials[k + 1][0] == pos + 1 else inside[k + 1]
        elif ch == '"':
            out[k], inside[k] = inside[k + 1], out[k + 1]
        elif ch == "}":
            out[k], inside[k] = k, inside[k + 1]
        else:  # "{": its own scan starts outside a string just after it; an enclosing scan resumes after it
            close = out[k + 1]
            ends[pos] = None if close is None else specials[close][0] + 1
            out[k], inside[k] = (None if close is None else out[close + 1]), inside[k + 1]
    return dict(sorted(ends.items()))


_SPECIAL_RE = re.compile(r'[{}"\\]')


def top_level_objects(text: str) -> list[str]:
    """Balanced top-level ``{...}`` substrings, left to right (nested objects are not repeated)."""
    if "{" not in text:
        return []
    spans, cursor = [], 0
    for start, end in balanced_ends(text).items():
        if start >= cursor and end is not None:
            spans.append(text[start:end])
            cursor = end
    return spans


def loads_tolerant(text: str) -> Any:
    """``json.loads`` (control characters such as a literal tab or newline allowed inside strings), then
    with trailing commas removed, then as a Python literal; None if all fail."""
    for attempt in (text, _TRAILING_COMMA_RE.sub(r"\1", text)):
        try:
            return json.loads(attempt, strict=False)
        except (ValueError, RecursionError):  # a model stuck repeating "[" nests past the recursion limit
            pass
    try:
        return ast.literal_eval(text)
    except (ValueError, SyntaxError, MemoryError, RecursionError, TypeError):
        return None


def json_objects(text: str) -> Iterator[dict]:
    """Dicts found in ``text``, most likely answer first (fences last-to-first, then bare objects last-to-first)."""
    fenced = FENCE_RE.findall(text)
    for block in reversed(fenced):
        block = block.strip()
        value = loads_tolerant(block)
        if isinstance(value, dict):
            yield value
            continue
        for piece in reversed(top_level_objects(block)):
            value = loads_tolerant(piece)
            if isinstance(value, dict):
                yield value
    rest = FENCE_RE.sub(" ", text)
    for piece in reversed(top_level_objects(rest)):
        value = loads_tolerant(piece)
        if isinstance(value, dict):
            yield value


def find_json_with(text: str, key: str) -> dict | None:
    """The first dict of :func:`json_objects` that has ``key``, or None."""
    return next((obj for obj in json_objects(text) if key in obj), None)
