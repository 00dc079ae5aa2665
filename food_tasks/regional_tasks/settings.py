"""The ``metadata.regional`` block of a regional task YAML: its keys, their checks (every problem named by its YAML key)
and the checked :class:`Settings` (no lmms-eval import).

The keys (CONTRIBUTING.md, section 2): ``format`` (``mcq``: one correct option; ``multi``: several correct options,
exact set match; ``open``: a text answer or a list of accepted answers; ``numeric``: a number, right within
``tolerance``), the columns ``id``, ``image``, ``question``, ``options``, ``answer``, ``slices``, ``cluster``, and
``labels``, ``prompt``, ``option_format``, ``system``, ``tolerance``, ``image_optional``, ``slice_fill``, ``judge``.
"""

from __future__ import annotations

import os
import re
import string
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from difflib import get_close_matches
from pathlib import Path
from typing import Any

from food_tasks.regional_tasks.answers import tolerance_problems
from food_tasks.regional_tasks.judged import JudgeSettings, judge_problems

FORMATS = ("mcq", "multi", "open", "numeric")
CHOICE_FORMATS = ("mcq", "multi")  # formats with options and labels
DEFAULT_LABELS = tuple("ABCDEFGHIJ")
MCQ_PROMPT = "{question}\n{options}\nAnswer with the option's letter from the given choices directly."
MULTI_PROMPT = (
    "{question}\n{options}\nMore than one option may be correct. Answer with the letters of all correct options, "
    "separated by commas."
)
OPEN_PROMPT = "{question}\nAnswer the question using a single word or phrase."
NUMERIC_PROMPT = "{question}\nAnswer with a number only."
OPTION_LINE = "{label}. {option}"
SETTING_KEYS = {
    "format",
    "id",
    "image",
    "image_optional",
    "question",
    "options",
    "answer",
    "labels",
    "slices",
    "slice_fill",
    "prompt",
    "option_format",
    "system",
    "cluster",
    "tolerance",
    "judge",
}
JUDGE_OWN_KEYS = ("headline",)  # keys of metadata.regional.judge read here (the others: judged.JudgeSettings)
DEFAULT_GENERATION = {"max_new_tokens": 64, "temperature": 0, "do_sample": False, "num_beams": 1, "until": []}


class RegionalConfigError(ValueError):
    """A regional task YAML is malformed; the message names the key and what to write."""


class RegionalDataError(RegionalConfigError):
    """A regional task's local data file is missing or malformed; the message names the file and line."""


@dataclass(frozen=True)
class Settings:
    """The ``metadata.regional`` block of a regional task YAML, checked."""

    format: str
    question: str
    answer: str
    id: str | None = None
    image: str | None = None
    options: str | tuple[str, ...] | None = None
    labels: tuple[str, ...] = DEFAULT_LABELS
    slices: tuple[str, ...] = ()
    prompt: str = ""
    option_format: str = OPTION_LINE
    system: str | None = None
    cluster: str | None = None  # column whose rows share a context (resampled together for standard errors)
    judge: JudgeSettings | None = None  # open answers judged by an LLM judge (metadata.regional.judge)
    judge_headline: bool = False  # judge.headline: the judge's accuracy leads the table, the slice chart, compare
    tolerance: tuple[float, float] = (0.0, 0.0)  # numeric answers: (absolute, relative)
    image_optional: bool = False  # a row with no image is asked with its text alone (counted, not refused)
    slice_fill: str | None = None  # the slice value of an empty slice cell (None: an empty cell is a problem)
    base_dir: str = "."  # directory of the local data file: relative image paths start there
    columns_used: tuple[str, ...] = field(default=())

    @classmethod
    def from_metadata(cls, metadata: Any, base_dir: str | os.PathLike = ".") -> Settings:
        """Checks ``metadata.regional``; raises :class:`RegionalConfigError` listing every problem."""
        problems = settings_problems(metadata)
        if problems:
            raise RegionalConfigError("food-tasks regional task: " + "; ".join(problems))
        return cls.read(metadata, base_dir)

    @classmethod
    def read(cls, metadata: Any, base_dir: str | os.PathLike = ".") -> Settings:
        """The settings of a ``metadata.regional`` block, unchecked: a block a run has checked already (a results
        file's config, read back; :meth:`from_metadata` checks)."""
        block = dict(metadata["regional"])
        fmt = block["format"]
        options = block.get("options")
        if isinstance(options, list):
            options = tuple(str(o) for o in options)
        labels = tuple(str(x) for x in block.get("labels") or DEFAULT_LABELS)
        slices = tuple(str(s) for s in block.get("slices") or ())
        default = {"mcq": MCQ_PROMPT, "multi": MULTI_PROMPT, "numeric": NUMERIC_PROMPT}.get(fmt, OPEN_PROMPT)
        if fmt in CHOICE_FORMATS and all(label.isdigit() for label in labels):
            default = default.replace("option's letter", "option's number").replace("the letters", "the numbers")
        prompt = block.get("prompt") or default
        tolerance = block.get("tolerance") or {}
        used = [block["question"], block["answer"], *(c for c in (block.get("id"), block.get("image")) if c)]
        used += list(options) if isinstance(options, tuple) else ([options] if options else [])
        return cls(
            format=fmt,
            question=str(block["question"]),
            answer=str(block["answer"]),
            id=block.get("id"),
            image=block.get("image"),
            options=options,
            labels=labels,
            slices=slices,
            prompt=prompt,
            option_format=block.get("option_format") or OPTION_LINE,
            system=block.get("system"),
            cluster=block.get("cluster"),
            judge=JudgeSettings.from_block(_judge_block(block.get("judge"))),
            judge_headline=isinstance(block.get("judge"), Mapping) and block["judge"].get("headline") is True,
            tolerance=(float(tolerance.get("absolute") or 0.0), float(tolerance.get("relative") or 0.0)),
            image_optional=block.get("image_optional") is True,
            slice_fill=block.get("slice_fill") or None,
            base_dir=str(base_dir),
            columns_used=tuple(dict.fromkeys([*used, *slices, *([block["cluster"]] if block.get("cluster") else [])])),
        )


def settings_problems(metadata: Any) -> list[str]:
    """Every problem of a ``metadata`` mapping's ``regional`` block, one short sentence each."""
    if not isinstance(metadata, Mapping) or not isinstance(metadata.get("regional"), Mapping):
        return ["metadata.regional is missing: add a `regional:` block under `metadata:` (see CONTRIBUTING.md)"]
    block = metadata["regional"]
    problems = [unknown_key("metadata.regional", k, sorted(SETTING_KEYS)) for k in block if k not in SETTING_KEYS]
    cluster = block.get("cluster")
    if cluster is not None and not (isinstance(cluster, str) and cluster):
        problems.append("metadata.regional.cluster: name the data column whose rows share a context (e.g. dish)")
    fmt = block.get("format")
    if "format" not in block:
        problems.append(f"metadata.regional.format: missing; add `format:` with one of {', '.join(FORMATS)}")
    elif fmt not in FORMATS:
        close = get_close_matches(str(fmt).lower(), FORMATS, n=1)
        hint = f" (did you mean {close[0]}?)" if close else ""
        problems.append(f"metadata.regional.format: {fmt!r} is not one of {', '.join(FORMATS)}{hint}")
    for key in ("question", "answer"):
        if not isinstance(block.get(key), str) or not block.get(key):
            problems.append(f"metadata.regional.{key}: name the data column holding the {key}")
    options = block.get("options")
    if fmt in CHOICE_FORMATS:
        if not (isinstance(options, str) and options) and not (
            isinstance(options, list) and len(options) >= 2 and all(isinstance(o, str) for o in options)
        ):
            problems.append("metadata.regional.options: name a list column, or list two or more option columns")
        labels = block.get("labels")
        if labels is not None and (
            not isinstance(labels, list) or len(set(map(str, labels))) != len(labels) or not labels
        ):
            problems.append("metadata.regional.labels: give a list of distinct labels, e.g. [A, B, C, D]")
        n_labels = len(labels) if isinstance(labels, list) else len(DEFAULT_LABELS)
        if isinstance(options, list) and n_labels < len(options):
            problems.append(f"metadata.regional.labels: {n_labels} labels for {len(options)} option columns")
    slices = block.get("slices")
    if slices is not None and (not isinstance(slices, list) or not all(isinstance(s, str) for s in slices)):
        problems.append("metadata.regional.slices: give a list of column names, e.g. [region, language]")
    for key in ("id", "image", "prompt", "option_format", "system"):
        if block.get(key) is not None and not isinstance(block[key], str):
            problems.append(f"metadata.regional.{key}: must be a string")
    prompt = block.get("prompt")
    if isinstance(prompt, str) and "{question}" not in prompt:
        problems.append("metadata.regional.prompt: must contain {question}")
    if isinstance(block.get("option_format"), str):
        problems += _option_format_problems(block["option_format"])
    if block.get("tolerance") is not None:
        problems += map(_suggested, tolerance_problems(block["tolerance"], fmt))
    image_optional = block.get("image_optional")
    if image_optional is not None and not isinstance(image_optional, bool):
        problems.append(f"metadata.regional.image_optional: {image_optional!r} is not true or false")
    elif image_optional and not block.get("image"):
        problems.append("metadata.regional.image_optional: name the image column in metadata.regional.image too")
    fill = block.get("slice_fill")
    if fill is not None and not (isinstance(fill, str) and fill.strip()):
        problems.append("metadata.regional.slice_fill: give the slice value of an empty slice cell, e.g. unknown")
    elif fill is not None and not block.get("slices"):
        problems.append("metadata.regional.slice_fill: no slices to fill; name them in metadata.regional.slices")
    judge = block.get("judge")
    if judge not in (None, False):
        problems += map(_suggested, judge_problems(_judge_block(judge), fmt))
        headline = judge.get("headline") if isinstance(judge, Mapping) else None
        if headline is not None and not isinstance(headline, bool):
            problems.append(f"metadata.regional.judge.headline: {headline!r} is not true or false")
    return problems


def unknown_key(where: str, key: Any, known: Iterable[str]) -> str:
    """The line of an unknown key of the mapping at ``where``: ``<where>.<key>: unknown key (did you mean <k>?)``
    for a key close to a known one (a misspelling, :func:`difflib.get_close_matches`), else the known keys."""
    known = list(known)
    close = get_close_matches(str(key), known, n=1)
    return f"{where}.{key}: unknown key " + (f"(did you mean {close[0]}?)" if close else f"(known: {', '.join(known)})")


_UNKNOWN = re.compile(
    r"(?P<where>metadata\.regional(?:\.\w+)*)\.(?P<key>[^:]+): unknown key \(known: (?P<known>[^)]*)\)"
)


def _suggested(line: str) -> str:
    """A problem line of a nested block (tolerance, judge): an unknown key's with :func:`unknown_key`'s suggestion."""
    match = _UNKNOWN.fullmatch(line)
    if not match:
        return line
    return unknown_key(match["where"], match["key"], match["known"].split(", "))


UNNAMED = "\x00"  # starts the column of a question/answer key with a problem (checkable): no data column is named so
_KEY = re.compile(r"metadata\.regional\.(\w+)")


def checkable(metadata: Any) -> tuple[dict, set[str], str] | None:
    """``metadata.regional`` with each key that has a problem set aside, so that validate still checks the data with
    what can be checked (ids, images, slices, answers when the format and options read): ``(block, unchecked, note)``:
    a block :func:`settings_problems` accepts, the data columns whose problems are not reported (an answer checked
    against settings with a problem), and one line saying why answers were not checked (or ``""``). None: no block.

    A key with a problem falls back to its default (dropped); a question or answer column that is not named becomes
    a column no data has (:data:`UNNAMED`); an invalid format (or an MCQ's options or labels) leaves the answers
    unchecked (the format is taken as ``open``, which reads no options, when the format or the options have one)."""
    if not isinstance(metadata, Mapping) or not isinstance(metadata.get("regional"), Mapping):
        return None
    block = dict(metadata["regional"])
    unchecked: set[str] = set()
    note = ""
    for _ in range(len(SETTING_KEYS) + 2):
        problems = settings_problems({"regional": block})
        if not problems:
            return block, unchecked, note
        keys = {match[1] for p in problems if (match := _KEY.match(p))}
        if not keys:
            return None
        choice = block.get("format") in CHOICE_FORMATS
        for key in sorted(keys):
            if key in ("question", "answer"):
                block[key] = UNNAMED + key
            elif key == "format" or (choice and key in ("options", "labels")):
                if isinstance(block.get("answer"), str):
                    unchecked.add(block["answer"])
                what = "is not valid" if key == "format" else "has a problem"
                note = note or f"answers not checked: metadata.regional.{key} {what} (fix it, then validate again)"
                if key == "labels":
                    block.pop(key)
                else:
                    block["format"] = "open"
            else:
                block.pop(key, None)
    return None


def _judge_block(judge: Any) -> Any:
    """The judge block without the keys read here (:data:`JUDGE_OWN_KEYS`), as :mod:`judged` checks and reads it."""
    if not isinstance(judge, Mapping):
        return judge
    return {k: v for k, v in judge.items() if k not in JUDGE_OWN_KEYS} or True


def _option_format_problems(template: str) -> list[str]:
    """A field of ``option_format`` other than ``{label}`` and ``{option}``, or a template that does not parse."""
    try:
        fields = dict.fromkeys(f for _, f, _, _ in string.Formatter().parse(template) if f is not None)
    except ValueError as err:
        return [f"metadata.regional.option_format: {err} (write literal braces as {{{{ }}}})"]
    return [
        f"metadata.regional.option_format: {{{f}}} is neither {{label}} nor {{option}}"
        for f in fields
        if f not in ("label", "option")
    ]


def data_base_dir(dataset_kwargs: Any) -> str:
    """Directory of the task's first local data file, absolute.

    lmms-eval anchors ``data_files`` at the YAML's directory as it was given: absolute for an absolute
    ``--include_path``, relative to the working directory for a relative one (``--include_path
    examples/regional``), so a relative path is made absolute here, against the same working directory.
    """
    files = (dataset_kwargs or {}).get("data_files") if isinstance(dataset_kwargs, Mapping) else None
    while isinstance(files, (Mapping, list, tuple)) and files:
        files = next(iter(files.values())) if isinstance(files, Mapping) else files[0]
    return str(Path(os.path.abspath(files)).parent) if isinstance(files, str) else "."
