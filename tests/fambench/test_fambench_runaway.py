"""FAM-Bench on untrusted outputs (issues 9 and 10): runaway outputs parse correctly with the linear parsers,
non-strings are unparseable answers (counted, never an exception), empty record lists aggregate, and the
official Task 2 path follows the official pipeline (whitespace collapsed first; only JSONDecodeError caught).

No timing asserts: bench/bench_parsers.py measures the time per call.
"""

from __future__ import annotations

import json
import math
import random
import re

import pytest

from food_tasks.benchmarks.fambench import parsing as fb_parsing
from food_tasks.benchmarks.fambench import scoring as fb_scoring
from food_tasks.hooks.jsonparse import balanced_end
from food_tasks.utils import fambench as hooks

NR, R = fb_parsing.NOT_REC, fb_parsing.REC
N = 16384
RANKING = '{"ranking": ["C", "B", "A", "D"]}'
FOUR = (
    '{"option_decisions": {"A": {"decision": "recommend"}, "B": {"decision": "not_recommend"}, '
    '"C": {"decision": "recommend"}, "D": {"decision": "not_recommend"}}}'
)
DECIDED = {"A": "recommend", "B": "not_recommend", "C": "recommend", "D": "not_recommend"}

# --------------------------------------------------------------------------- the quadratic originals, as references


def _old_first_json(text: str) -> str | None:
    start = text.find("{")
    while start != -1:
        end = balanced_end(text, start)
        if end is not None:
            try:
                json.loads(text[start:end])
                return text[start:end]
            except Exception:  # noqa: BLE001
                pass
        start = text.find("{", start + 1)
    return None


def _old_strip_fence(text: str) -> str:
    return re.sub(r"\s*```$", "", re.sub(r"^```(?:json)?\s*", "", (text or "").strip())).strip()


OLD_NUMBERED = re.compile(r"^\s*([1-4])[\.\)]\s*(?:option\s*)?\(?([A-D])\b", re.IGNORECASE | re.MULTILINE)
OLD_FINAL = re.compile(r"decision\s*[:：]\s*\**\s*(not\s+recommend(?:ed)?|recommend(?:ed)?)\b", re.IGNORECASE)


def test_linear_rewrites_agree_with_the_originals() -> None:
    rng = random.Random(3)
    pieces = [
        "{",
        "}",
        '"',
        "\\",
        " ",
        "\n",
        "\t",
        "```",
        "json",
        '{"decision": "recommend"}',
        "1.",
        "2)",
        "B",
        "option ",
        "decision",
        ":",
        "*",
        "not ",
        "recommend",
        "ed",
        "\r",
        "\x0b",
        "a",
    ]
    for _ in range(6000):
        text = "".join(rng.choice(pieces) for _ in range(rng.randint(0, 14)))
        assert fb_parsing._first_json_official(text) == _old_first_json(text), text
        assert fb_parsing._strip_fence_official(text) == _old_strip_fence(text), text
        assert fb_parsing._NUMBERED.findall(text) == OLD_NUMBERED.findall(text), text
        assert fb_parsing._FINAL_STATEMENT.findall(text) == OLD_FINAL.findall(text), text


def test_first_json_search_settles_nested_candidates_like_the_original() -> None:
    rng = random.Random(11)
    pieces = [
        "{",
        "}",
        '"',
        "\\",
        " ",
        ":",
        ",",
        '"a"',
        "1",
        "[",
        "]",
        '{"a": 1}',
        '{"b": {"c": "}"}}',
        "x",
        "null",
        '"\\"',
        '"{"',
        "\t",
        "1 2",
        "99999",
    ]
    for _ in range(20000):
        text = "".join(rng.choice(pieces) for _ in range(rng.randint(0, 14)))
        assert fb_parsing._first_json_official(text) == _old_first_json(text), text
    deep = '{"a":' * 300 + "1 2" + "}" * 300  # every nested candidate fails at the same place
    assert fb_parsing._first_json_official(deep) is None and _old_first_json(deep) is None
    inner = '{"a": {"b": 1}, "c": 1 2}'  # the outer fails after the inner object closed: the inner wins
    assert fb_parsing._first_json_official(inner) == '{"b": 1}' == _old_first_json(inner)


def test_first_json_search_reads_short_prefixes_like_the_original(monkeypatch) -> None:
    """Issue 33.8: candidates are decoded from prefixes that decide the outcome (here of 24, 96 ... characters,
    errors more than 12 before the cut), and a "{" not followed by a key or "}" is not decoded at all. Same result
    as decoding every candidate whole, on texts whose strings, numbers, literals and escapes cross the cuts."""
    monkeypatch.setattr(fb_parsing, "_WINDOW", 24)
    monkeypatch.setattr(fb_parsing, "_MARGIN", 12)
    rng = random.Random(17)
    pieces = [
        "{",
        "}",
        "{ ",
        "{\n",
        '{"a":',
        '{"a": [',
        "]",
        ",",
        " ",
        '"',
        '"long string ' + "x" * 30 + '"',
        '"unterminated ' + "y" * 30,
        "\\",
        '\\"',
        "\\u12",
        '"\\ud800\\udc00"',
        "\t",
        "1",
        "-",
        "1e",
        "12345678901234567890.5e+3",
        "9" * 40,
        "true",
        "nul",
        "null",
        "-Infinity",
        "NaN",
        '{"b": {"c": "}"}}',
    ]
    for _ in range(20000):
        text = "".join(rng.choice(pieces) for _ in range(rng.randint(0, 16)))
        assert fb_parsing._first_json_official(text) == _old_first_json(text), text


@pytest.mark.parametrize(
    "unit",
    ["{", '{"a" ', '{"a": 1 ', '{"a": "x", ', '{"a":', '{"a": ['],
    ids=["braces", "no colon", "no comma", "strings", "deep", "deep arrays"],
)
def test_first_json_search_decodes_linearly_many_characters(monkeypatch, unit: str) -> None:
    """Issue 33.8: a runaway `{{{...}}}` took 1.76 s at 200 KB: every "{" was decoded, each from a copy of its
    whole candidate (up to the output's length: quadratic). What json.loads reads now grows as the output (no
    timing: the characters are counted; past the recursion limit the bisection adds a logarithm)."""
    read = [0]

    class CountingJson:
        JSONDecodeError = json.JSONDecodeError

        @staticmethod
        def loads(text: str) -> object:
            read[0] += len(text)
            return json.loads(text)

    monkeypatch.setattr(fb_parsing, "json", CountingJson)
    for n in (4000, 16000):
        text = unit * n + "}" * n
        read[0] = 0
        fb_parsing._first_json_official(text)
        assert read[0] <= 60 * len(text), (n, read[0] / len(text))


def _deeper(levels: int, fn, *args):  # type: ignore[no-untyped-def]
    return _deeper(levels - 1, fn, *args) if levels else fn(*args)


@pytest.mark.parametrize(
    "text",
    [
        '{"a":' * 1500 + "1" + "}" * 1500 + " x",
        '{"a":[' * 1500 + "1" + "]}" * 1500,
        '[{"a":' * 1300 + "1" + "}]" * 1300,
        '{"a":' * 2500 + "1 2" + "}" * 2500,
        '{"a":{"b":1},"c":' * 1200 + "1" + "}" * 1200,
        '{"a":[' * 1200 + "1 2" + "]}" * 1200 + '{"ok": 1}',
    ],
)
def test_first_json_search_past_the_recursion_limit_like_the_original(text: str) -> None:
    # Nesting past Python's recursion limit: the original decodes every nested candidate (RecursionError
    # for the outer ones); ours bisects. Both see the same limit when json.loads runs at the same stack
    # depth (ours: _first_json_official -> _decode_here -> _decode; the reference one frame lower).
    assert fb_parsing._first_json_official(text) == _deeper(1, _old_first_json, text)


# --------------------------------------------------------------------------- runaway outputs


@pytest.mark.parametrize(
    "raw",
    [
        "```" + " " * N,
        "```json" + " \t" * (N // 2),
        "{" * N,
        '{"' * (N // 2),
        '{\\"' * (N // 3),
        "decision:" + " " * N,
        "\n" * N,
        "1." + "\n" * N,
        "<think>" * (N // 7),
        "[" * N,
        "`" * N,
        " " * N,
        "}" * N,
        "9" * N,
    ],
)
def test_runaway_shapes_are_unparsed(raw: str) -> None:
    t1, t1_off = fb_parsing.parse_task1(raw), fb_parsing.parse_task1_official(raw)
    assert (
        t1["decision"] is None
        and not t1["json"]
        and t1_off == {"decision": None, "rationale": [], "strict_json": False}
    )
    assert fb_parsing.parse_ranking(raw) is None and fb_parsing.parse_ranking_official(raw) == []
    assert fb_parsing.parse_decisions(raw) == dict.fromkeys("ABCD") and fb_parsing.parse_decisions_official(raw) is None


def test_runaway_shapes_around_an_answer() -> None:
    # the answer after a runaway prefix is still found, by both parsers
    assert fb_parsing.parse_task1("decision:" + " " * N + "not recommended")["decision"] == NR
    assert fb_parsing.parse_task1_official('{"decision": "recommend"}' + " " * N)["strict_json"] is True
    assert fb_parsing.parse_task1_official("{" * N + '{"decision": "avoid"}')["decision"] == NR
    assert fb_parsing.parse_task1_official("```json\n" + '{"decision": "no"}' + "\n" * N + "```")["strict_json"] is True
    assert fb_parsing.parse_ranking("\n" * N + "1. B\n2. A\n3. D\n4. C") == ["B", "A", "D", "C"]
    assert fb_parsing.parse_ranking((RANKING + "\n") * 2000) == ["C", "B", "A", "D"]
    assert fb_parsing.parse_ranking_official((RANKING + "\n") * 2000) == ["C", "B", "A", "D"]
    assert fb_parsing.parse_ranking("```" + " " * N + "\n" + RANKING) == ["C", "B", "A", "D"]
    assert fb_parsing.parse_decisions("<think>" + "x" * N + "</think>" + FOUR) == DECIDED
    assert fb_parsing.parse_decisions_official(FOUR + " " * N) == DECIDED


# --------------------------------------------------------------------------- issue 9: the official Task 2 pipeline


def test_official_task2_collapses_whitespace_before_parsing() -> None:
    # A literal tab/newline inside a JSON string: invalid strict JSON, but every official provider path
    # collapses whitespace first, so the official reader parses it (instead of harvesting "A" from "RANKING").
    raw = '{"reasoning": "Step 1:\tsodium\nStep 2: fibre", "ranking": ["C", "B", "A", "D"]}'
    with pytest.raises(json.JSONDecodeError):
        json.loads(raw)
    assert fb_parsing.parse_ranking_official(raw) == ["C", "B", "A", "D"]
    assert fb_parsing.parse_ranking(raw) == ["C", "B", "A", "D"]  # robust: json strict=False
    dec = FOUR[:-2] + ', "note": "tab\there"}}'
    assert fb_parsing.parse_decisions_official(dec) == DECIDED and fb_parsing.parse_decisions(dec) == DECIDED
    # a decision word split by a newline is one word officially ("not recommend" -> not_recommend)
    split = FOUR.replace('"B": {"decision": "not_recommend"}', '"B": {"decision": "not\nrecommend"}')
    assert fb_parsing.parse_decisions_official(split) == DECIDED
    assert fb_parsing.official_view("  a \t\n b\u2028c\x1c ") == "a b c"
    assert fb_parsing.official_view(None) == "" and fb_parsing.official_view(["A"]) == ""


@pytest.mark.parametrize(
    "raw",
    [
        '{"ranking": ["B", "A", "D", "C"], "x": ' + "9" * 4301 + "}",  # ValueError on the whole text
        'Sure {"ranking": ["B", "A", "D", "C"], "x": -' + "1" * 5000 + "} B",  # ValueError on the first object
        '{"x": ' + "2" * 4400 + ", ]",
    ],  # ValueError before the syntax error is reached
)
def test_official_task2_request_fails_on_integers_past_the_digit_limit(raw: str) -> None:
    for kind in ("rank", "decision"):
        got = fb_parsing.official_task2(raw, kind)
        assert got == {"ranking": [], "decisions": None, "letter": "", "answered": False, "request_error": True}
    assert not fb_parsing.rank_parsed_official(raw)


def test_official_task2_digit_limit_edges() -> None:
    ok = '{"ranking": ["B", "A", "D", "C"], "x": ' + "9" * 4300 + "}"  # exactly at the limit: parses
    assert fb_parsing.official_task2(ok, "rank")["ranking"] == ["B", "A", "D", "C"]
    late = '{"ranking": ["B", "A", "D", "C"]} {"x": ' + "9" * 5000 + "}"  # never decoded officially
    assert fb_parsing.official_task2(late, "rank")["ranking"] == ["B", "A", "D", "C"]
    assert fb_parsing.official_task2("[" * 5000, "rank")["request_error"]  # RecursionError: failed request
    syntax_first = '{"x": ] ' + "9" * 5000 + "}"  # JSONDecodeError first: letters harvested as usual
    assert not fb_parsing.official_task2(syntax_first, "rank")["request_error"]


def test_official_answer_rate_counts_letter_fallback_rows() -> None:
    doc = {
        "question_id": "Q1",
        "kind": "decision",
        "mode": "baseline",
        "image_urls": [],
        "gold_letter": "A",
        "gold_ranking": ["A", "B", "C", "D"],
        "condition_prompt": "x",
        "gold_labels": json.dumps(DECIDED),
    }
    outputs = [
        FOUR,
        '{"option_decisions": {"A": {"decision": "maybe"}}}',
        "no letters here",
        None,
        '{"option_decisions": {}, "x": ' + "9" * 5000 + "}",
    ]
    records = [fb_scoring.score_task2({**doc, "question_id": f"Q{i}"}, out) for i, out in enumerate(outputs)]
    # official: Q0 four decisions, Q1 the letter "A" of its key; Q2 nothing; Q3 not a string; Q4 request error
    assert [r["parsed_official"] for r in records] == [True, True, False, False, False]
    assert [r["request_error_official"] for r in records] == [False, False, False, False, True]
    assert fb_scoring.t2_answer_rate_official(records, "decision") == 40.0
    assert fb_scoring.t2_valid_rate(records, "decision") == pytest.approx(1 / 5)


# --------------------------------------------------------------------------- non-strings and empty record lists

NON_STRINGS = [None, 5, 1.5, float("nan"), True, ["A", "B", "C", "D"], {"decision": "recommend"}, b"A", object()]


@pytest.fixture(scope="module")
def sample_docs():  # type: ignore[no-untyped-def]
    ctc = hooks.docs_sample_ctc(None)
    return {
        "task1": hooks.docs_sample_task1(None)[0],
        "rank": next(d for d in ctc if d["kind"] == "rank"),
        "decision": next(d for d in ctc if d["kind"] == "decision"),
    }


@pytest.mark.parametrize("value", NON_STRINGS, ids=lambda v: type(v).__name__)
def test_non_string_outputs_are_unparseable_answers(sample_docs, value) -> None:  # type: ignore[no-untyped-def]
    t1 = hooks.process_results_task1(sample_docs["task1"], [value])["decision_acc"]
    assert t1["decision"] is None and not t1["json"] and not t1["strict_json"] and not t1["correct_official"]
    assert fb_scoring.t1_invalid_rate([t1]) == 1.0
    rank = hooks.process_results_rank(sample_docs["rank"], [value])["top1_acc"]
    assert rank["ranking"] is None and rank["ranking_official"] == [] and not rank["parsed_official"]
    dec = hooks.process_results_decision(sample_docs["decision"], [value])["option_decision_acc"]
    assert (
        dec["decisions"] == dict.fromkeys("ABCD") and dec["decisions_official"] is None and not dec["parsed_official"]
    )
    for fn in (hooks.process_results_ctc, hooks.process_results_ctc_all):
        fn(sample_docs["rank"], [value])
        fn(sample_docs["decision"], [value])
    assert fb_scoring.t2_valid_rate([rank]) == 0.0 and fb_scoring.t2_answer_rate_official([rank]) == 0.0


def test_every_aggregation_accepts_an_empty_record_list() -> None:
    for table in hooks.TABLES.values():
        for name, fn in table.items():
            value = fn([])
            assert value is not None, name
    assert math.isnan(hooks.TABLES["ctc"]["ctc"]([])) and hooks.TABLES["ctc"]["ctc_pool"]([]) == 0
    assert math.isnan(hooks.TABLES["ctc_all"]["ctc_baseline"]([])) and hooks.TABLES["ctc_all"]["ctc_pool"]([]) == 0
