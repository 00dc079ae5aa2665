"""Finding JSON objects in model output (shared by the JSON-answer benchmarks).

Models wrap their JSON in code fences, prose, reasoning or trailing commentary. The robust reader
(:func:`json_objects`) tries, in order: the fenced blocks from last to first, then every balanced
top-level ``{...}`` from last to first (the final answer usually comes last; reasoning that echoes the
schema comes first), each read with :func:`json.loads` and then a tolerant reader (trailing commas,
Python literals). The official scorers' narrower readers are kept next to the benchmarks that need them.
"""

from __future__ import annotations

import ast
import json
import re
from typing import Any, Iterator

FENCE_RE = re.compile(r"```[ \t]*(?:json|JSON|javascript)?[ \t]*\n?(.*?)```", re.DOTALL)
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


def top_level_objects(text: str) -> list[str]:
    """Balanced top-level ``{...}`` substrings, left to right (nested objects are not repeated)."""
    spans, pos = [], text.find("{")
    while pos != -1:
        end = balanced_end(text, pos)
        if end is None:
            pos = text.find("{", pos + 1)
            continue
        spans.append(text[pos:end])
        pos = text.find("{", end)
    return spans


def loads_tolerant(text: str) -> Any:
    """``json.loads``, then with trailing commas removed, then as a Python literal; None if all fail."""
    for attempt in (text, _TRAILING_COMMA_RE.sub(r"\1", text)):
        try:
            return json.loads(attempt)
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
