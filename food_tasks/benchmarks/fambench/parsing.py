"""FAM-Bench answer parsing and normalisation (official v1.0 code: code/task1/run_task1.py::_parse_output,
code/task2/evaluate.py::_parse_json_ranking, _parse_ranking, _parse_decision_payload, _parse_letter; the robust
parsers are our design, README fidelity note 4).

Two parsers per output kind:

* robust (primary metrics): reasoning stripped, the *last* JSON object carrying the answer key,
  tolerant decision words (``not_recommend`` and "Not recommended" are both *not recommend*), explicit
  ranking sequences only; unparseable output is invalid and counted, never guessed;
* official (``*_official`` metrics): the v1.0 scorer's behaviour, bugs included: first JSON object wins,
  exact-set decision words, the loose ``recommend`` regex that reads "Not Recommended" as *recommend*,
  the ranking fallback that harvests the letters A-D from any word, all-or-nothing option decisions.

The official Task 2 path follows the official pipeline step by step: every official provider path hands
the parser the output with its whitespace collapsed (``" ".join(text.split())``, in ``_extract_*_text``),
and any exception other than ``json.JSONDecodeError`` while parsing (``ValueError`` for an integer longer
than Python's digit limit, ``RecursionError`` for deep nesting) fails the whole request: nothing is parsed,
not even a letter (``official_task2(...)["request_error"]``).

Every parser is linear in the output length (model output is untrusted and may be a 16 KB+ runaway);
where the official code is super-linear, its result is reproduced, not its running time. Anything that
is not a string is an unparseable answer.

Metric reducers live in :mod:`food_tasks.benchmarks.fambench.scoring`.
"""

from __future__ import annotations

import json
import re
import string
import sys
import unicodedata
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from food_tasks.hooks.jsonparse import (
    balanced_end,
    balanced_ends,
    find_json_with,
    unquoted_marks,
)
from food_tasks.hooks.parsing import strip_reasoning

LETTERS = ("A", "B", "C", "D")
REC, NOT_REC = "recommend", "not recommend"

# --------------------------------------------------------------------------- normalisation


def _spaces(value: str) -> str:
    return " ".join(value.split())


def clean(value: Any) -> str:
    """Collapse whitespace of ``str(value or "")`` (the official Task 2 text cleaner)."""
    return _spaces(str(value or ""))


def norm_condition(value: Any) -> str:
    """Official condition normalisation (rationales, KI question matching): lower-case, ``_``/``-`` to
    spaces, collapsed whitespace."""
    return _spaces(str(value or "").strip().lower().replace("_", " ").replace("-", " "))


_PUNCT = str.maketrans("", "", string.punctuation)


def norm_ingredient(value: Any) -> str:
    """Official rationale ingredient normalisation: as conditions, and ASCII punctuation removed."""
    return _spaces(str(value or "").strip().lower().replace("_", " ").replace("-", " ").translate(_PUNCT))


def norm_rationale(entries: Any) -> list[dict[str, Any]]:
    """Official ``rationale_ingredients`` normalisation: dict entries with a non-empty condition;
    ingredients normalised, de-duplicated and sorted."""
    out = []
    for item in entries if isinstance(entries, list) else []:
        if not isinstance(item, dict):
            continue
        condition = norm_condition(item.get("condition", ""))
        raw = item.get("ingredients", [])
        ingredients = sorted({norm_ingredient(i) for i in (raw if isinstance(raw, list) else []) if norm_ingredient(i)})
        if condition:
            out.append({"condition": condition, "ingredients": ingredients})
    return out


def pair_set(entries: Iterable[Mapping[str, Any]]) -> set[tuple[str, str]]:
    """``{(condition, ingredient)}`` of normalised rationale entries."""
    return {(e["condition"], i) for e in entries for i in e.get("ingredients", []) if e.get("condition") and i}


_OFFICIAL_REC = {"recommend", "recommended", "yes", "suitable"}
_OFFICIAL_NOT = {"not recommend", "not recommended", "avoid", "no", "not suitable", "do not recommend"}


def decision_official(value: Any) -> str | None:
    """Official Task 1 decision words: exact set lookup after lower-casing and collapsing spaces."""
    token = _spaces(str(value or "").strip().lower())
    return REC if token in _OFFICIAL_REC else NOT_REC if token in _OFFICIAL_NOT else None


_ROBUST_REC = {"recommend", "recommended", "suitable", "yes", "recommend it"}
_ROBUST_NOT = {
    "not recommend",
    "not recommended",
    "do not recommend",
    "dont recommend",
    "not suitable",
    "unsuitable",
    "avoid",
    "no",
    "not recommend it",
    "do not recommend it",
}
_ALL_PUNCT = re.compile(r"[^\w\s]", re.UNICODE)


def decision_robust(value: Any) -> str | None:
    """Robust decision words: NFKC, ``_``/``-`` to spaces, punctuation dropped (``don't`` -> ``dont``)."""
    if not isinstance(value, str):
        return None
    text = unicodedata.normalize("NFKC", value).lower().replace("_", " ").replace("-", " ")
    text = _spaces(_ALL_PUNCT.sub("", text.replace("’", "'").replace("'", "")))
    return REC if text in _ROBUST_REC else NOT_REC if text in _ROBUST_NOT else None


# --------------------------------------------------------------------------- Task 1 parsers

_FENCE_HEAD = re.compile(r"^```(?:json)?\s*")
_DECISION_FIELD = re.compile(r'"decision"\s*+:\s*+"([^"]+)"', re.IGNORECASE)
_DECISION_WORD = re.compile(r"\b(not\s+recommend|recommend(?:ed)?)\b", re.IGNORECASE)
# Possessive: "decision:" followed by 16 KB of spaces must not try every split of the run between the
# whitespace quantifiers (none of the runs can give back a character the answer word could start with).
_FINAL_STATEMENT = re.compile(
    r"decision\s*+[:：]\s*+\**+\s*+(not\s+recommend(?:ed)?|recommend(?:ed)?)\b", re.IGNORECASE
)


def _text(raw: Any) -> str:
    """A model output as the parsers read it: anything that is not a string is an empty answer."""
    return raw if isinstance(raw, str) else ""


def _strip_fence_official(text: str) -> str:
    r"""``run_q2._strip_json_fence``: strip, drop a leading ```` ```json ```` and a trailing ```` ``` ````
    with the whitespace before it, strip. The trailing ``re.sub(r"\s*```$", ...)`` is quadratic on long
    whitespace runs; its result is the text without its last three characters, right-stripped, when the
    (stripped) text ends with three backticks."""
    text = _FENCE_HEAD.sub("", text.strip())
    if text.endswith("```"):
        text = text[:-3].rstrip()
    return text.strip()


# What json.loads needs after an object's "{": JSON whitespace, then a key's '"' or the "}" of {}; on anything
# else it fails ("Expecting property name enclosed in double quotes"), just after the whitespace.
_OBJECT_HEAD = re.compile(r'\{[ \t\n\r]*+["}]')


def _first_json_official(text: str) -> str | None:
    """``llm_providers.extract_first_json_object``: the first ``{...}`` (trying each ``{`` in turn) that is
    balanced and valid JSON (any exception, ``RecursionError`` included, moves on to the next ``{``).

    Officially every balanced candidate is decoded: nested candidates of a runaway output make that
    quadratic. Decoding one candidate tells about those nested in it, which are then settled without
    decoding (same result):

    * ``JSONDecodeError`` at ``p``: everything before ``p`` was a valid JSON prefix, so a ``{`` outside
      strings in it starts a nested object that decodes on its own exactly as inside: valid if it closed
      before ``p``, failing at ``p`` again if it spans ``p``;
    * ``RecursionError``: the decoder reached the nesting limit at the first point ``q`` where the
      structure is that deep; objects closed before ``q`` are valid, and of the objects still open at
      ``q`` (outer to inner) those that fail the same way form a prefix, found by bisection.

    Candidates that are not settled are not all decoded either: a ``{`` that JSON whitespace does not
    separate from a ``"`` or ``}`` fails at once (a runaway ``{{{...}}}``), and the others are decoded from
    their shortest prefix that decides the outcome (:func:`_decode`), not copied whole.
    """
    ends = balanced_ends(text)
    settled: dict[int, bool] = {}
    limit = None
    for start, end in ends.items():
        if end is None:
            continue
        known = settled.get(start)
        if known is False or (known is None and not _OBJECT_HEAD.match(text, start, end)):
            continue
        if known is True:
            return text[start:end]
        outcome = _decode_here(text, start, end)
        if outcome is None:
            return text[start:end]
        if isinstance(outcome, int):
            if text.find("{", start + 1, start + outcome) >= 0:  # objects nested in the valid prefix
                _settle_nested(text, start, start + outcome, ends, settled)
        elif outcome == "deep":
            limit = _decodable_depth() if limit is None else limit
            _settle_deep(text, start, ends, settled, limit)
    return None


def _decode(text: str, start: int = 0, end: int | None = None) -> int | str | None:
    """``json.loads(text[start:end])``: None when it succeeds, the position (in the candidate) of a
    ``JSONDecodeError``, ``"deep"`` for a ``RecursionError``, ``"error"`` for anything else (``ValueError``
    for an oversized integer ...).

    The candidate is read from the shortest of its prefixes of 64, 256, 1,024 ... characters that decides
    the outcome: a ``RecursionError`` (the nesting limit was reached inside the prefix), or a
    ``JSONDecodeError`` more than :data:`_MARGIN` characters before the cut (no look-ahead of the decoder
    reached it) that is not an unterminated string (whose position is where the string starts); on anything
    else the next prefix is read, at last the whole candidate. A candidate that fails early costs what was
    read, not its length: the candidates of a runaway output overlap, and copying each whole is quadratic."""
    end = len(text) if end is None else end
    width = _WINDOW
    while True:
        whole = width >= end - start
        try:
            json.loads(text[start:end] if whole else text[start : start + width])
        except json.JSONDecodeError as err:
            if whole or (err.pos < width - _MARGIN and not err.msg.startswith("Unterminated string")):
                return err.pos
        except RecursionError:
            return "deep"
        except Exception:  # noqa: BLE001
            if whole:
                return "error"
        else:
            if whole:
                return None
        width *= 4


# The first prefix :func:`_decode` reads, and how far before a prefix's end an error must lie to be the whole
# candidate's (the decoder looks at most 9 characters ahead, in "-Infinity").
_WINDOW, _MARGIN = 64, 32


def _decode_here(text: str, start: int, end: int) -> int | str | None:
    # One frame above _decode, like the bisection in _settle_deep: every decode runs at the same stack
    # depth, so all of them meet the same nesting limit.
    return _decode(text, start, end)


def _decodable_depth() -> int:
    """The deepest nesting :func:`_decode` reads without ``RecursionError`` here (the interpreter's limit
    less the stack in use)."""
    low, high = 0, sys.getrecursionlimit() + 50
    while high - low > 1:
        mid = (low + high) // 2
        if _decode('{"":' * mid + "0" + "}" * mid) == "deep":
            high = mid
        else:
            low = mid
    return low


def _settle_deep(text: str, start: int, ends: dict[int, int | None], settled: dict[int, bool], limit: int) -> None:
    """After ``RecursionError`` from ``start``: settles the objects nested in it (see _first_json_official)."""
    stack: list[tuple[int, str]] = []
    reached = False
    for pos, ch in unquoted_marks(text, start, ends[start]):
        if ch in "{[":
            stack.append((pos, ch))
            if len(stack) > limit:
                reached = True
                break
        elif stack:
            opened, kind = stack.pop()
            if kind == "{" and opened != start and opened not in settled:
                settled[opened] = True  # closed inside the valid prefix
    if not reached:
        return
    chain = [pos for pos, kind in stack[1:] if kind == "{" and pos not in settled]
    low, high = 0, len(chain)  # chain[:low] fail with RecursionError; the first that does not is in [low, high]
    while low < high:
        mid = (low + high) // 2
        if _decode(text, chain[mid], ends[chain[mid]]) == "deep":
            low = mid + 1
        else:
            high = mid
    for pos in chain[:low]:
        settled[pos] = False


def _settle_nested(text: str, start: int, fail: int, ends: dict[int, int | None], settled: dict[int, bool]) -> None:
    """After ``JSONDecodeError`` at ``fail``: marks the ``{`` outside strings in ``text[start + 1:fail]`` (a
    valid JSON prefix) valid when their object closed before ``fail``, invalid when it spans ``fail``."""
    for pos, _ in unquoted_marks(text, start + 1, fail, marks="{"):
        if pos not in settled:
            end = ends.get(pos)
            settled[pos] = end is not None and end <= fail


def parse_task1_official(raw: Any) -> dict[str, Any]:
    """The official Task 1 parse, ``{"decision", "rationale", "strict_json"}`` (run_task1.py::_parse_output)."""
    raw = _text(raw)
    cleaned = _strip_fence_official(raw)
    candidates = [cleaned] if cleaned else []
    first = _first_json_official(raw) if "{" in raw and "}" in raw else None
    if first and first not in candidates:
        candidates.append(first)
    for candidate in candidates:
        try:
            payload = json.loads(candidate)
        except Exception:  # noqa: BLE001, S112  (as officially)
            continue
        if isinstance(payload, dict):
            decision = decision_official(payload.get("decision", ""))
            if decision:
                return {
                    "decision": decision,
                    "rationale": norm_rationale(payload.get("rationale_ingredients", [])),
                    "strict_json": True,
                }
    decision = None
    for regex in (_DECISION_FIELD, _DECISION_WORD):
        match = regex.search(raw)
        if match and decision_official(match.group(1)):
            decision = decision_official(match.group(1))
            break
    return {"decision": decision, "rationale": [], "strict_json": False}


def parse_task1(raw: str) -> dict[str, Any]:
    """Robust Task 1 parse: ``{"decision", "rationale", "json"}``; decision None means invalid (README fidelity note 4).

    Our design, not the official parser."""
    text = strip_reasoning(raw or "")
    if text is None:
        return {"decision": None, "rationale": [], "json": False}
    payload = find_json_with(text, "decision")
    if payload is not None:
        return {
            "decision": decision_robust(payload.get("decision")),
            "rationale": norm_rationale(payload.get("rationale_ingredients", [])),
            "json": True,
        }
    finals = _FINAL_STATEMENT.findall(text)
    decision = decision_robust(finals[-1]) if finals else None
    return {"decision": decision, "rationale": [], "json": False}


# --------------------------------------------------------------------------- Task 2 parsers


def official_view(raw: Any) -> str:
    """The output as every official Task 2 provider path hands it to the parser: whitespace collapsed
    (``_clean_text`` in ``_extract_output_text`` / ``_extract_gemini_text`` / ``_extract_anthropic_text`` /
    ``_extract_openai_chat_text``); a non-string is an empty response."""
    return clean(raw) if isinstance(raw, str) else ""


_FENCE_HEAD_I = re.compile(r"^```(?:json)?\s*", re.IGNORECASE)


def _extract_json_official(text: str) -> dict:
    """``evaluate._extract_json_object``: the whole text (a fence stripped only at the very start), else
    the first ``{`` and its balanced ``}``; anything else is ``{}``. Only ``json.JSONDecodeError`` is
    caught, as officially: ``ValueError`` (integer past the digit limit) and ``RecursionError`` propagate."""
    text = text.strip()
    if text.startswith("```"):
        text = _FENCE_HEAD_I.sub("", text)
        if text.endswith("```"):  # re.sub(r"\s*```$", "", text), linear
            text = text[:-3].rstrip()
    try:
        payload = json.loads(text)
        return payload if isinstance(payload, dict) else {}
    except json.JSONDecodeError:
        pass
    start = text.find("{")
    end = balanced_end(text, start) if start >= 0 else None
    if end is None:
        return {}
    try:
        payload = json.loads(text[start:end])
    except json.JSONDecodeError:
        return {}
    return payload if isinstance(payload, dict) else {}


def _letter_official(text: str) -> str:
    """``evaluate._parse_letter`` on an already cleaned text."""
    text = text.upper()
    if text in LETTERS:
        return text
    match = _ANSWER_LETTER.search(text)
    return match.group(1).upper() if match else ""


_ANSWER_LETTER = re.compile(r"\b([A-D])\b", re.IGNORECASE)


def _ranking_from(text: str) -> list[str]:
    """``evaluate._parse_json_ranking`` on an already cleaned text."""
    payload = _extract_json_official(text)
    ranking = payload.get("ranking")
    letters = [clean(item).upper() for item in ranking] if isinstance(ranking, list) else []
    if len(letters) == 4 and set(letters) == set(LETTERS):
        return letters
    harvested: list[str] = []
    for letter in re.findall(r"[A-D]", text.upper()):
        if letter not in harvested:
            harvested.append(letter)
            if len(harvested) == 4:
                break
    if len(harvested) != 4:
        return []
    best = clean(payload.get("best_option")).upper()
    if best in LETTERS and harvested[0] != best:
        harvested = [best] + [x for x in harvested if x != best]
    return harvested


def _decisions_from(text: str) -> dict[str, str]:
    """``evaluate._parse_decision_payload`` on an already cleaned text (decisions only; ``{}`` if none)."""
    decisions = _extract_json_official(text).get("option_decisions")
    if not isinstance(decisions, dict):
        return {}
    out = {}
    for letter in LETTERS:
        item = decisions.get(letter) or decisions.get(letter.lower())
        if not isinstance(item, dict):
            return {}
        value = clean(item.get("decision")).lower().replace("-", "_").replace(" ", "_")
        if value not in ("recommend", "not_recommend"):
            return {}
        out[letter] = value
    return out


def official_task2(raw: Any, kind: str) -> dict[str, Any]:
    """One official Task 2 request, as ``evaluate._call_model`` and ``_build_result_row`` see it.

    Returns ``{"ranking", "decisions", "letter", "answered", "request_error"}``: the ranking (rank task,
    ``[]`` if none), the four option decisions (decision task, ``None`` if none), the answer letter
    (first ranked letter, else ``_parse_letter``), whether the row is ``parsed`` (counted in
    ``answer_rate_pct``; rank rows also in the MRR denominator) and whether the request failed."""
    text = official_view(raw)
    try:
        if kind == "rank":
            ranking, decisions = _ranking_from(text), {}
            letter = ranking[0] if ranking else _letter_official(text)
        else:
            ranking, decisions = [], _decisions_from(text)
            letter = _letter_official(text)
    except Exception:  # noqa: BLE001  (officially: except Exception -> failed request)
        return {"ranking": [], "decisions": None, "letter": "", "answered": False, "request_error": True}
    answered = bool(ranking) or len(decisions) == 4 or letter in LETTERS
    return {
        "ranking": ranking,
        "decisions": decisions or None,
        "letter": letter,
        "answered": answered,
        "request_error": False,
    }


def parse_ranking_official(raw: Any) -> list[str]:
    """Official ranking: a JSON permutation, else every A-D character of the upper-cased text
    (code/task2/evaluate.py::_parse_ranking); ``[]`` when nothing is found or the official request would fail."""
    return official_task2(raw, "rank")["ranking"]


def parse_letter_official(raw: Any) -> str:
    """Official answer letter: the whole cleaned text if it is one of A-D, else the first standalone A-D."""
    return _letter_official(official_view(raw))


def rank_parsed_official(raw: Any) -> bool:
    """Whether the official rank run marks the row ``parsed``: a ranking, or else any answer letter
    (``_call_model`` falls back to the letter parser; such rows enter the MRR denominator with 0)."""
    return official_task2(raw, "rank")["answered"]


def parse_decisions_official(raw: Any) -> dict[str, str] | None:
    """Official option decisions: all four options with ``recommend``/``not_recommend`` or nothing."""
    return official_task2(raw, "decision")["decisions"]


_ITEM_LETTER = re.compile(r"^\s*+(?:option\s*+)?[\(\[]?([A-D])[\)\]]?\.?\s*$", re.IGNORECASE)
_SEP = r"\s*+(?:>|,|→|->|then)\s*+"
_SEQUENCE = re.compile(r"\b([A-D])" + _SEP + r"([A-D])" + _SEP + r"([A-D])" + _SEP + r"([A-D])\b")
# A numbered line: "^[^\S\n]*" rather than "^\s*", which let every line start of a run of newlines scan the
# rest of the run (quadratic); the matches are the same (a match crossing blank lines also starts at the
# digit's own line start). Possessive runs never give back what the next token cannot start with.
_NUMBERED = re.compile(r"^[^\S\n]*+([1-4])[\.\)]\s*+(?:option\s*+)?\(?([A-D])\b", re.IGNORECASE | re.MULTILINE)


def _letter(item: Any) -> str | None:
    if not isinstance(item, str):
        return None
    match = _ITEM_LETTER.match(unicodedata.normalize("NFKC", item))
    return match.group(1).upper() if match else None


def _permutation(items: Sequence[str | None]) -> list[str] | None:
    return list(items) if len(items) == 4 and set(items) == set(LETTERS) else None  # type: ignore[arg-type]


def parse_ranking(raw: str) -> list[str] | None:
    """Robust ranking (our design: README fidelity note 4): the last JSON ``ranking`` permutation, else an explicit
    sequence ``B > A > D > C`` / ``B, A, D, C`` or four numbered lines; letters are never harvested from words."""
    text = strip_reasoning(raw or "")
    if text is None:
        return None
    text = unicodedata.normalize("NFKC", text)
    payload = find_json_with(text, "ranking")
    if payload is not None:
        ranking = payload["ranking"]
        return _permutation([_letter(x) for x in ranking]) if isinstance(ranking, list) else None
    sequences = _SEQUENCE.findall(text)
    if sequences:
        return _permutation(list(sequences[-1]))
    numbered = dict((int(n), x.upper()) for n, x in _NUMBERED.findall(text))
    if sorted(numbered) == [1, 2, 3, 4]:
        return _permutation([numbered[i] for i in (1, 2, 3, 4)])
    return None


def parse_decisions(raw: str) -> dict[str, str | None]:
    """Robust option decisions (our design: README fidelity note 4).

    Per option ``recommend``/``not_recommend``, or None (invalid)."""
    text = strip_reasoning(raw or "")
    payload = find_json_with(text, "option_decisions") if text is not None else None
    decisions = payload.get("option_decisions") if payload else None
    out: dict[str, str | None] = {x: None for x in LETTERS}
    if not isinstance(decisions, dict):
        return out
    by_letter = {str(k).strip().upper().removeprefix("OPTION ").strip(): v for k, v in decisions.items()}
    for letter in LETTERS:
        item = by_letter.get(letter)
        value = item.get("decision") if isinstance(item, dict) else item
        decision = decision_robust(value)
        out[letter] = None if decision is None else decision.replace(" ", "_")
    return out
