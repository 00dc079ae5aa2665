"""Regional tasks' data: which local files a YAML's ``data_files`` name, what is wrong in them (a missing file, a
JSON Lines line that is not UTF-8 or not JSON), what is wrong in the rows they hold (:func:`data_problems`: a column
named in ``metadata.regional`` that the data lacks, an empty or duplicate id, an answer that cannot be scored ...),
and the root cause of a load error, each naming the file. Shared by the task (at load time, before generation) and
the ``food-tasks validate`` checker: the two refuse the same data with the same lines."""

from __future__ import annotations

import itertools
import json
import os
import re
import string
from collections.abc import Callable, Collection, Iterable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any, NamedTuple

from food_tasks.regional_tasks.config import shown
from food_tasks.regional_tasks.scoring import (
    CHOICE_FORMATS,
    RegionalConfigError,
    Settings,
    answer_problem,
    cell_text,
    doc_options,
    doc_text,
    image_refs,
    missing_image_file,
)
from food_tasks.regional_tasks.slices import slice_values

MAX_LINE_PROBLEMS = 10  # lines of one kind of data problem shown; the count of the others follows

LOCAL_BUILDERS = ("json", "csv", "parquet")


def local_files(config: dict, yaml_dir: Path) -> dict[str, list[Path]]:
    """The config's local ``data_files`` per split, relative paths anchored at ``yaml_dir`` (one string: split
    ``train``)."""
    files = (config.get("dataset_kwargs") or {}).get("data_files")
    if isinstance(files, (str, list)):
        files = {"train": files}
    out: dict[str, list[Path]] = {}
    for split, value in (files or {}).items():
        values = value if isinstance(value, list) else [value]
        out[str(split)] = [Path(v) if os.path.isabs(str(v)) else yaml_dir / str(v) for v in values]
    return out


def data_file_problems(builder: str, files: Sequence[Path]) -> list[str]:
    """What ``datasets`` would report without a line number or not clearly: a missing local data file, one without
    rows (empty or blank, a CSV header alone, an empty JSON list), and (``json``) each line of a JSON Lines file
    that is not one JSON object (``<file>: line <n>: <what is wrong>``)."""
    problems: list[str] = []
    for path in files:
        if not path.is_file():
            problems.append(f"{shown(path)}: no such data file (relative data_files paths start at the YAML's folder)")
        elif not path.stat().st_size:
            problems.append(f"{shown(path)}: empty file: no rows")
        elif builder == "json":
            problems += json_lines_problems(path)
        elif builder == "csv" and _text_lines(path, 2) < 2:
            problems.append(f"{shown(path)}: {'a header line and ' if _text_lines(path, 1) else 'empty file: '}no rows")
    return problems


def _text_lines(path: Path, most: int) -> int:
    """How many non-blank lines ``path`` has, counting up to ``most`` (a large file is not read further)."""
    count = 0
    with path.open("rb") as handle:
        for line in handle:
            count += bool(line.strip())
            if count >= most:
                break
    return count


def json_lines_problems(path: Path) -> list[str]:
    """Each line of ``path`` that is not a JSON object, named by its number (1-based); none for a file that
    is one JSON document (a list of objects, which ``datasets`` reads too)."""
    raw = path.read_bytes()
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError as err:
        line = raw[: err.start].count(b"\n") + 1
        return [f"{shown(path)}: line {line}: not UTF-8 text ({err.reason})"]
    try:
        whole = json.loads(text)
    except ValueError:
        whole = None
    if isinstance(whole, list) and all(isinstance(row, dict) for row in whole):
        return [] if whole else [f"{shown(path)}: an empty JSON list: no rows"]
    if not text.strip():
        return [f"{shown(path)}: empty file: no rows"]
    problems: list[str] = []
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        try:
            row = json.loads(line)
        except ValueError as err:
            problems.append(f"{shown(path)}: line {number}: not valid JSON: {json_error(err)}")
        else:
            if not isinstance(row, dict):
                what = f"a JSON {type(row).__name__}, not an object (one row per line)"
                problems.append(f"{shown(path)}: line {number}: {what}")
    if len(problems) > MAX_LINE_PROBLEMS:
        more = len(problems) - MAX_LINE_PROBLEMS
        problems = problems[:MAX_LINE_PROBLEMS] + [f"{shown(path)}: {more} more line(s) like these"]
    return problems


def json_error(err: ValueError) -> str:
    """What is wrong in one JSON Lines line, with its column: ``Expecting ',' delimiter at column 58``."""
    msg, column = getattr(err, "msg", None), getattr(err, "colno", None)
    if msg is None or column is None:
        return str(err)
    return f"{msg}{'' if msg.endswith(' at') else ' at'} column {column}"


def innermost(err: BaseException) -> BaseException:
    """The error behind ``err``: a tenacity ``RetryError``'s last attempt, a ``datasets``
    ``DatasetGenerationError``'s cause ..., which names the file and what is wrong."""
    seen = set()
    while id(err) not in seen:
        seen.add(id(err))
        last = getattr(err, "last_attempt", None)  # tenacity.RetryError
        inner = last.exception() if last is not None and hasattr(last, "exception") else None
        inner = inner or err.__cause__ or err.__context__
        if inner is None:
            break
        err = inner
    return err


def root_cause(err: BaseException) -> str:
    """``Type: message`` of :func:`innermost`."""
    inner = innermost(err)
    return f"{type(inner).__name__}: {inner}"


CONFIGURATION_ERROR = "configuration error"  # metadata.regional names a column the data lacks; a prompt that fails
DATA_ERROR = "data error"  # rows: none, or rows that cannot be asked or scored


class DataProblems(NamedTuple):
    """What :func:`data_problems` found: which kind of error (:data:`CONFIGURATION_ERROR` or :data:`DATA_ERROR`)
    and one line per problem (none: the data is fine)."""

    kind: str
    lines: list[str]


def _naming(settings: Settings, column: str) -> str:
    """The keys of ``metadata.regional`` that name ``column`` (``metadata.regional.answer``), for a problem line."""
    keys = [k for k in ("id", "image", "question", "answer", "cluster") if getattr(settings, k) == column]
    options = settings.options if isinstance(settings.options, tuple) else (settings.options,)
    keys += ["options"] * (column in options) + ["slices"] * (column in settings.slices)
    return ", ".join(f"metadata.regional.{k}" for k in keys) or "metadata.regional"


def data_problems(
    settings: Settings,
    rows: Any,
    columns: Collection[str],
    data_name: str,
    split: str,
    *,
    settings_at: str = "",
    image_problem: Callable[[Any], str | None] | None = None,
    unchecked: Collection[str] = (),
) -> DataProblems:
    """Every problem of a regional task's data that ``food-tasks validate`` reports and that stops a run before
    generation, one line each: the one list of checks of the two.

    In this order: no rows (nothing else then); each column named in ``metadata.regional`` (id, image, question,
    options, answer, slices, cluster, a ``{column}`` of the prompt) that is not among ``columns``, followed by the
    rows' problems in the other columns; else a prompt that cannot be built from row 1, or else every row's problems
    (:func:`row_problems`).

    Args:
        rows: a sequence of mappings, or a ``datasets.Dataset`` (only the columns the checks need are read: no
            image is decoded).
        columns: the data's column names.
        data_name: the data file(s) or hub id, as the lines name them.
        settings_at: what precedes a line about ``metadata.regional.prompt`` (validate: the YAML's path).
        image_problem: why an image reference cannot be used, or None (default: :func:`missing_image_file`, a stat).
        unchecked: columns whose row problems are not reported (validate: an answer read with settings that have a
            problem of their own).
    """
    if not len(rows):
        return DataProblems(DATA_ERROR, [f"{data_name}: no rows in split {split!r}"])
    prompt = prompt_columns(settings.prompt)
    named = [*settings.columns_used, *(c for c in prompt if c in columns)]
    absent = [c for c in settings.columns_used if c not in columns]
    if absent:  # named, then the rows' problems in the columns that are there (one pass: validate shows them all)
        listed = ", ".join(sorted(columns))
        lines = [
            f"{data_name}: column '{c}' named by {_naming(settings, c)} is not in the data (columns: {listed})"
            for c in absent
        ]
        if hasattr(rows, "select_columns"):
            rows = _arrow_rows(rows.select_columns([c for c in columns if c in named]))
        found = row_problems(settings, rows, data_name, image_problem)
        options = settings.options if isinstance(settings.options, tuple) else (settings.options,)
        unsure = {*absent, *unchecked, *([settings.answer] if set(absent) & set(options) else [])}  # read by options
        return DataProblems(CONFIGURATION_ERROR, lines + [line for line in found if not _names(line, unsure)])
    if hasattr(rows, "select_columns"):  # a Dataset: the columns needed, as Arrow gives them (no image decoded)
        rows = _arrow_rows(rows.select_columns([c for c in columns if c in named]))
    rows = iter(rows)
    first = next(rows)
    try:
        doc_text(settings, first)
    except (ValueError, IndexError) as err:  # RegionalConfigError is a ValueError naming the key itself
        reason = str(err) if isinstance(err, RegionalConfigError) else f"metadata.regional.prompt: {err}"
        return DataProblems(CONFIGURATION_ERROR, [f"{settings_at}{reason} (row 1; write literal braces as {{{{ }}}})"])
    found = row_problems(settings, itertools.chain([first], rows), data_name, image_problem)
    return DataProblems(DATA_ERROR, [line for line in found if not unchecked or not _names(line, unchecked)])


def _names(line: str, columns: Collection[str]) -> bool:
    """Whether a row problem line is about one of ``columns`` (``column 'a'``, or ``column 'a/b'`` for options)."""
    match = re.search(r", column '([^']*)': ", line)
    return match is not None and any(c in columns for c in match.group(1).split("/"))


def _arrow_rows(dataset: Any, batch_size: int = 1000) -> Iterator[dict[str, Any]]:
    """The rows of a ``datasets.Dataset`` as dicts, read a batch at a time from Arrow (about 15 times faster than
    row by row; an ``Image`` cell stays its ``{bytes, path}``)."""
    for batch in dataset.with_format("arrow").iter(batch_size=batch_size):
        yield from batch.to_pylist()


def prompt_columns(prompt: str) -> list[str]:
    """The ``{column}`` fields of a prompt template other than ``{question}`` and ``{options}`` (none for a template
    that does not parse: building the prompt says why)."""
    try:
        fields = [field for _, field, _, _ in string.Formatter().parse(prompt) if field]
    except ValueError:
        return []
    names = dict.fromkeys(re.split(r"[.\[!:]", field, maxsplit=1)[0] for field in fields)
    return [n for n in names if n not in ("question", "options")]


def row_problems(
    settings: Settings,
    rows: Iterable[Mapping[str, Any]],
    data_name: str,
    image_problem: Callable[[Any], str | None] | None = None,
) -> list[str]:
    """One line per problem of the rows (``<data>: row <n> (id <id>), column '<c>': <what is wrong>``): an empty or
    duplicate id, an empty question, too few or too many or duplicate options, an answer that cannot be scored, an
    empty slice value, no image; and each image reference ``image_problem`` refuses (each distinct path or URL asked
    once; default: a local file that is not there)."""
    problem_of = image_problem or (lambda ref: missing_image_file(ref, settings.base_dir))
    problems: list[str] = []
    seen: dict[str, int] = {}
    images: dict[str, str | None] = {}  # image reference -> its problem (each distinct file or URL asked once)
    for number, row in enumerate(rows, start=1):
        rid = cell_text(row.get(settings.id)) if settings.id else ""
        at = f"{data_name}: row {number}" + (f" (id {rid})" if rid else "")
        if settings.id:
            if not rid.strip():
                problems.append(f"{at}, column '{settings.id}': empty id")
            elif rid in seen:
                problems.append(f"{at}, column '{settings.id}': duplicate id (first at row {seen[rid]})")
            else:
                seen[rid] = number
        if not cell_text(row.get(settings.question)).strip():
            problems.append(f"{at}, column '{settings.question}': empty question")
        if settings.format in CHOICE_FORMATS:
            options = doc_options(settings, row)
            column = settings.options if isinstance(settings.options, str) else "/".join(settings.options or ())
            if len(options) < 2:
                problems.append(f"{at}, column '{column}': {len(options)} option(s); need at least 2")
            elif len(options) > len(settings.labels):
                problems.append(
                    f"{at}, column '{column}': {len(options)} options but only {len(settings.labels)} labels"
                )
            elif len({o.strip() for o in options}) != len(options):
                problems.append(f"{at}, column '{column}': duplicate option texts")
            elif problem := answer_problem(settings, row):
                problems.append(f"{at}, column '{settings.answer}': {problem}")
        elif problem := answer_problem(settings, row):
            problems.append(f"{at}, column '{settings.answer}': {problem}")
        for column in settings.slices:
            if not slice_values(row.get(column), settings.slice_fill):
                problems.append(f"{at}, column '{column}': empty slice value")
        if settings.image:
            refs = image_refs(settings, row)
            if not refs and not settings.image_optional:
                problems.append(f"{at}, column '{settings.image}': no image")
            for ref in refs:
                if not isinstance(ref, str):  # bytes or a decoded image: asked each time
                    problem = problem_of(ref)
                elif ref in images:
                    problem = images[ref]
                else:
                    problem = images[ref] = problem_of(ref)
                if problem:
                    problems.append(f"{at}, column '{settings.image}': {problem}")
    return problems


def capped(lines: Sequence[str], data_name: str, limit: int = MAX_LINE_PROBLEMS) -> list[str]:
    """The first ``limit`` lines, then the count of the others (a run's error; validate lists them all)."""
    if len(lines) <= limit:
        return list(lines)
    return [*lines[:limit], f"{data_name}: {len(lines) - limit} more problem(s) like these"]
