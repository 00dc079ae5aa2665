"""Regional tasks' local data files: which files a YAML's ``data_files`` name, what is wrong in them (a missing file,
a JSON Lines line that is not UTF-8 or not JSON), and the root cause of a load error, each naming the file. Shared
by the task (at load time) and the ``food-tasks validate`` checker."""

from __future__ import annotations

import json
import os
from collections.abc import Sequence
from pathlib import Path

from food_tasks.regional_yaml import shown

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
    """What ``datasets`` would report without a line number: a missing local data file, and (``json``) each
    line of a JSON Lines file that is not one JSON object (``<file>: line <n>: <what is wrong>``)."""
    problems: list[str] = []
    for path in files:
        if not path.is_file():
            problems.append(f"{shown(path)}: no such data file (relative data_files paths start at the YAML's folder)")
        elif builder == "json":
            problems += json_lines_problems(path)
    return problems


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
        return []
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
