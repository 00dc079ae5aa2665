"""food_tasks.hooks.jsonparse: the linear scans give the same results as the straightforward ones (issue 10)."""

from __future__ import annotations

import random
import re

import pytest

from food_tasks.hooks import jsonparse

# The fence pattern before it was made possessive (cubic on "```" + whitespace): same matches expected.
OLD_FENCE_RE = re.compile(r"```[ \t]*(?:json|JSON|javascript)?[ \t]*\n?(.*?)```", re.DOTALL)


def _old_top_level_objects(text: str) -> list[str]:
    """One balanced_end scan per "{" (quadratic), as before."""
    spans, pos = [], text.find("{")
    while pos != -1:
        end = jsonparse.balanced_end(text, pos)
        if end is None:
            pos = text.find("{", pos + 1)
            continue
        spans.append(text[pos:end])
        pos = text.find("{", end)
    return spans


@pytest.mark.parametrize("alphabet", ['{}"\\ a', "{}\\ a", "{} a", '{"\\', '{}"'])
def test_balanced_ends_equals_one_scan_per_brace(alphabet: str) -> None:
    rng = random.Random(alphabet)
    for _ in range(4000):
        text = "".join(rng.choice(alphabet) for _ in range(rng.randint(0, 24)))
        ends = jsonparse.balanced_ends(text)
        assert list(ends) == [i for i, ch in enumerate(text) if ch == "{"], text
        assert ends == {i: jsonparse.balanced_end(text, i) for i in ends}, text
        assert jsonparse.top_level_objects(text) == _old_top_level_objects(text), text


@pytest.mark.parametrize(
    "text, expected",
    [
        ('{"a": "}"} {"b": 1}', {0: 10, 11: 19}),
        ('{"a": "\\"}"}', {0: 12}),  # escaped quote inside the string
        ('x"{"}', {2: None}),  # from its own start the "{" opens a scan that enters a string at the next quote
        ("{{}", {0: None, 1: 3}),
        ('{\\"}', {0: None}),  # outside a string a backslash is nothing; the quote opens a string
        ("", {}),
    ],
)
def test_balanced_ends_cases(text: str, expected: dict) -> None:
    assert jsonparse.balanced_ends(text) == expected
    assert expected == {i: jsonparse.balanced_end(text, i) for i in expected}


def test_fence_pattern_matches_as_before() -> None:
    rng = random.Random(7)
    pieces = ["```", "json", "JSON", "javascript", " ", "\t", "\n", "x", "{}", "`"]
    for _ in range(5000):
        text = "".join(rng.choice(pieces) for _ in range(rng.randint(0, 12)))
        assert jsonparse.FENCE_RE.findall(text) == OLD_FENCE_RE.findall(text), text
        assert jsonparse.FENCE_RE.sub(" ", text) == OLD_FENCE_RE.sub(" ", text), text


@pytest.mark.parametrize(
    "text",
    [
        "```" + " " * 16384,
        "```json" + " \t" * 8192,
        "{" * 16384,
        '{"' * 8192,
        '{\\"' * 5461,
        '"{' * 8192,
        "[" * 16384,
        "`" * 16384,
        '{"a": ' * 3000,
    ],
)
def test_runaway_shapes_yield_nothing(text: str) -> None:
    assert list(jsonparse.json_objects(text)) == []
    assert jsonparse.find_json_with(text, "ranking") is None


def test_repeated_answers_and_literal_control_characters() -> None:
    answer = '{"ranking": ["A", "B", "C", "D"]}'
    assert jsonparse.find_json_with(f"{answer} " * 2000, "ranking") == {"ranking": ["A", "B", "C", "D"]}
    fenced = f"```json\n{answer}\n```\n" * 1000
    assert jsonparse.find_json_with(fenced, "ranking") == {"ranking": ["A", "B", "C", "D"]}
    # A literal tab or newline inside a JSON string (chain-of-thought) is read (json strict=False).
    assert jsonparse.loads_tolerant('{"why": "step 1\tsodium\nstep 2", "x": 1}') == {
        "why": "step 1\tsodium\nstep 2",
        "x": 1,
    }
    # An integer past Python's 4300-digit limit: unreadable, never an exception.
    assert jsonparse.loads_tolerant('{"x": ' + "9" * 5000 + "}") is None
    assert jsonparse.find_json_with('{"ranking": ["A"], "x": ' + "9" * 5000 + "}", "ranking") is None


# --------------------------------------------------------------------------- unquoted_marks


def _char_by_char_marks(text: str, start: int, end: int, marks: str) -> list[tuple[int, str]]:
    """The straightforward scan: every character in turn through three states (outside a string, inside one, just
    after a backslash inside one)."""
    found, state = [], "outside"
    for i, ch in enumerate(text[start:end], start):
        if state == "escaped":
            state = "inside"
        elif state == "inside":
            state = {"\\": "escaped", '"': "outside"}.get(ch, "inside")
        elif ch == '"':
            state = "inside"
        elif ch in marks:
            found.append((i, ch))
    return found


def _end_from_marks(text: str, start: int) -> int | None:
    """balanced_end computed from unquoted_marks (the two scans must agree)."""
    depth = 0
    for pos, ch in jsonparse.unquoted_marks(text, start, marks="{}"):
        depth += 1 if ch == "{" else -1
        if depth == 0:
            return pos + 1
    return None


@pytest.mark.parametrize(
    "text, start, end, marks, expected",
    [
        ('{"a": "{[}"}', 0, None, "{}[]", [(0, "{"), (11, "}")]),  # marks inside a string are not structure
        ('{"a\\"{": 1}', 0, None, "{}", [(0, "{"), (10, "}")]),  # \" does not close the string
        ('["\\\\"]', 0, None, "[]", [(0, "["), (5, "]")]),  # \\ is one escaped backslash; the next " closes
        ('\\"{', 0, None, "{", []),  # outside a string a backslash is nothing: the quote opens a string
        ('x{"}"}', 2, None, "{}", [(5, "}")]),  # from 2, outside: the quote at 2 opens a string holding "}"
        ("{[]}", 1, 3, "{}[]", [(1, "["), (2, "]")]),  # only text[start:end]
        ("{{}", 0, None, "{", [(0, "{"), (1, "{")]),
        ("", 0, None, "{}[]", []),
    ],
)
def test_unquoted_marks_cases(text: str, start: int, end: int | None, marks: str, expected: list) -> None:
    assert list(jsonparse.unquoted_marks(text, start, end, marks)) == expected


@pytest.mark.parametrize("marks", ["{}[]", "{}", "{", "[]:,"])
def test_unquoted_marks_equals_the_char_by_char_scan(marks: str) -> None:
    rng = random.Random(marks)
    alphabet = '{}[]:,"\\ a'
    for _ in range(4000):
        text = "".join(rng.choice(alphabet) for _ in range(rng.randint(0, 20)))
        start = rng.randint(0, len(text))
        end = rng.randint(start, len(text))
        assert list(jsonparse.unquoted_marks(text, start, end, marks)) == _char_by_char_marks(text, start, end, marks)
        assert list(jsonparse.unquoted_marks(text, start, marks=marks)) == _char_by_char_marks(
            text, start, len(text), marks
        )
        brace = text.find("{")
        if brace >= 0:
            assert jsonparse.balanced_end(text, brace) == _end_from_marks(text, brace), text


def test_unquoted_marks_refuses_string_delimiters() -> None:
    with pytest.raises(ValueError):
        list(jsonparse.unquoted_marks("{}", marks='{"'))
    with pytest.raises(ValueError):
        list(jsonparse.unquoted_marks("{}", marks="\\"))


def test_unquoted_marks_on_runaway_text() -> None:
    # 1 MB of escaped quotes inside one string: nothing is structure; one pass, no recursion.
    text = '{"' + '\\"' * 500_000 + '"}'
    assert list(jsonparse.unquoted_marks(text)) == [(0, "{"), (len(text) - 1, "}")]
    assert jsonparse.balanced_end(text, 0) == len(text)
