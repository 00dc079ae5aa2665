"""Finding JSON objects in model output (shared by the JSON-answer benchmarks).

Models wrap their JSON in code fences, prose, reasoning or trailing commentary. The robust reader
(:func:`json_objects`) tries, in order: the fenced blocks from last to first, then every balanced
top-level ``{...}`` from last to first (the final answer usually comes last; reasoning that echoes the
schema comes first), each read with :func:`json.loads` and then a tolerant reader (trailing commas,
Python literals). The official scorers' narrower readers are kept next to the benchmarks that need them.

Model output is untrusted input of any length: every scan here is linear in the output. The fence pattern
uses possessive quantifiers (no backtracking between its whitespace runs), and the closing brace of every
``{`` is found in one right-to-left pass (:func:`balanced_ends`) instead of one scan per ``{``. Reading
left to right, :func:`unquoted_marks` yields the structure characters outside JSON strings, for parsers
that walk a JSON prefix (:func:`balanced_end` is the same scan, inlined for speed on runaway braces).
"""

from __future__ import annotations

import ast
import json
import re
from collections.abc import Iterator
from typing import Any

# Possessive prefix: the language tag and the whitespace around it never give characters back, so an
# unclosed fence costs one scan to the end, not one per split of a whitespace run (same matches: none of
# the prefix characters can start the closing fence).
FENCE_RE = re.compile(r"```[ \t]*+(?:json|JSON|javascript)?+[ \t]*+\n?+(.*?)```", re.DOTALL)
_TRAILING_COMMA_RE = re.compile(r",(\s*[}\]])")


def unquoted_marks(text: str, start: int = 0, end: int | None = None, marks: str = "{}[]") -> Iterator[tuple[int, str]]:
    """Position and character of every ``marks`` character in ``text[start:end]`` that lies outside JSON
    strings, left to right, reading from ``start`` as outside a string.

    A ``"`` opens a string that runs to the next ``"`` not escaped by a backslash (``\\"`` does not close
    it, ``\\\\`` is one escaped backslash), or to the end; outside strings a backslash means nothing.
    One regular-expression pass in which a whole string is one match (possessive, so it never
    backtracks): linear in the scanned length, with Python work only per mark and per string.
    """
    if '"' in marks or "\\" in marks:
        raise ValueError("quotes and backslashes delimit strings; they cannot be marks")
    pattern = _MARK_PATTERNS.get(marks)
    if pattern is None:
        pattern = _MARK_PATTERNS[marks] = re.compile(rf'"(?:[^"\\]++|\\[\s\S])*+"?|([{re.escape(marks)}])')
    for match in pattern.finditer(text, start, len(text) if end is None else end):
        if match.lastindex:
            yield match.start(), match.group(1)


_MARK_PATTERNS: dict[str, re.Pattern[str]] = {}


def balanced_end(text: str, start: int) -> int | None:
    """Index just past the ``}`` closing the ``{`` at ``start`` (string-aware), or None if unbalanced.

    The scan of :func:`unquoted_marks` with the marks ``{}``, written out character by character: on text
    made of braces (a runaway ``{{{...``, which a reader looking for the first object's close meets) this
    is about 4x faster than one regular-expression match per brace."""
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
    if "}" not in text:  # nothing can close
        return {m.start(): None for m in _BRACE_RE.finditer(text)}
    if '"' not in text:  # no strings: plain bracket matching
        ends, stack = {}, []
        for m in _BRACES_RE.finditer(text):
            if m.group() == "{":
                stack.append(m.start())
                ends[m.start()] = None
            elif stack:
                ends[stack.pop()] = m.end()
        return ends
    positions = [m.start() for m in _SPECIAL_RE.finditer(text)]
    count = len(positions)
    # Index (into positions) of the closing "}" reached by a depth-1 scan about to read special k outside
    # (out) or inside (inside) a string; None when the scan runs off the end.
    out: list[int | None] = [None] * (count + 2)
    inside: list[int | None] = [None] * (count + 2)
    ends: dict[int, int | None] = {}
    for k in range(count - 1, -1, -1):
        pos = positions[k]
        ch = text[pos]
        if ch == "\\":
            out[k] = out[k + 1]
            # Inside a string the backslash escapes the next character, special or not.
            inside[k] = inside[k + 2] if k + 1 < count and positions[k + 1] == pos + 1 else inside[k + 1]
        elif ch == '"':
            out[k], inside[k] = inside[k + 1], out[k + 1]
        elif ch == "}":
            out[k], inside[k] = k, inside[k + 1]
        else:  # "{": its own scan starts outside a string just after it; an enclosing scan resumes after it
            close = out[k + 1]
            ends[pos] = None if close is None else positions[close] + 1
            out[k], inside[k] = (None if close is None else out[close + 1]), inside[k + 1]
    return dict(reversed(ends.items()))  # filled right to left


_SPECIAL_RE = re.compile(r'[{}"\\]')
_BRACE_RE = re.compile(r"\{")
_BRACES_RE = re.compile(r"[{}]")


def top_level_objects(text: str) -> list[str]:
    """Balanced top-level ``{...}`` substrings, left to right (nested objects are not repeated)."""
    if "{" not in text or "}" not in text:
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
    """Dicts found in ``text``, most likely answer first (fences last-to-first, then bare objects last-to-first).

    A runaway output repeats the same block thousands of times: each distinct candidate text is read once
    per call (and only if it holds a ``{``, without which no reader can return a dict)."""
    values: dict[str, Any] = {}
    objects: dict[str, list[str]] = {}

    def read(candidate: str) -> Any:
        if candidate not in values:
            values[candidate] = loads_tolerant(candidate) if "{" in candidate else None
        return values[candidate]

    def pieces(block: str) -> list[str]:
        if block not in objects:
            objects[block] = top_level_objects(block)
        return objects[block]

    for block in reversed(FENCE_RE.findall(text)):
        block = block.strip()
        value = read(block)
        if isinstance(value, dict):
            yield value
            continue
        for piece in reversed(pieces(block)):
            value = read(piece)
            if isinstance(value, dict):
                yield value
    for piece in reversed(top_level_objects(FENCE_RE.sub(" ", text))):
        value = read(piece)
        if isinstance(value, dict):
            yield value


def find_json_with(text: str, key: str) -> dict | None:
    """The first dict of :func:`json_objects` that has ``key``, or None."""
    return next((obj for obj in json_objects(text) if key in obj), None)
