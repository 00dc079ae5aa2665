"""The one reader of lmms-eval output folders: results files, samples files, and which results file is the newest.

lmms-eval writes ``<output_path>/<model>/<date>_results.json`` and, with ``--log_samples``,
``<date>_samples_<task>.jsonl`` beside it; ``<date>`` is ``YYYYMMDD_HHMMSS`` of the run's start.

**The newest-file rule** (:func:`newest`): of several results (or samples) files, the newest is the one whose
file name sorts last (the date prefix sorts chronologically), ties broken by the full path. Modification times
are not used to choose: a copy or a checkout changes them, a name does not. (``food-tasks demo`` only narrows the
candidates to the files its own run wrote, before applying the rule: those absent from, or changed since, a
:func:`results_snapshot` taken before the run. No file time is compared with the clock: a file's time comes from the
kernel's coarse clock, which can lag ``time.time()`` by a tick, so a file written at once can look older than the run.)

Used by the report, ``food-tasks compare``, the demo, the CLI and, during a run, ``--baseline``.
"""

from __future__ import annotations

import json
import math
import sys
import textwrap
from collections.abc import Iterable, Iterator, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from food_tasks.errors import ReportInputError

if TYPE_CHECKING:  # pragma: no cover
    from food_tasks.hooks.convention import MetricTable
    from food_tasks.lmms.facts import TaskFacts

RESULTS_GLOB = "*_results.json"

#: A results file's state as :func:`results_snapshot` records it: inode, size, modification and change times (ns).
FileState = tuple[int, int, int, int]


def newest(paths: Iterable[Path]) -> Path | None:
    """The newest of ``paths`` by the rule above (file name, then full path), or None."""
    return max(paths, key=lambda p: (p.name, str(p)), default=None)


def _state(path: Path) -> FileState | None:
    """``path``'s :data:`FileState`, or None when it is gone."""
    try:
        stat = path.stat()
    except OSError:  # gone since the listing
        return None
    return (stat.st_ino, stat.st_size, stat.st_mtime_ns, stat.st_ctime_ns)


def results_snapshot(folder: str | Path) -> dict[Path, FileState]:
    """Every results file below ``folder`` (none if it does not exist) and its state: taken before a run, it tells
    :func:`newest_results` which files the run wrote (a rewrite changes a file's times, whatever the clock says)."""
    states = {path: _state(path) for path in Path(folder).rglob(RESULTS_GLOB)}
    return {path: state for path, state in states.items() if state is not None}


def newest_results(folder: str | Path, before: Mapping[Path, FileState] | None = None) -> Path | None:
    """The newest results file below ``folder``, or None; with ``before`` (a :func:`results_snapshot` of ``folder``),
    among the files created or rewritten since that snapshot."""
    found = Path(folder).rglob(RESULTS_GLOB)
    if before is not None:
        found = (path for path in found if _written_since(path, before))
    return newest(found)


def _written_since(path: Path, before: Mapping[Path, FileState]) -> bool:
    """Whether ``path`` exists and was absent from, or has changed since, the snapshot ``before``."""
    now = _state(path)
    return now is not None and before.get(path) != now


def results_files(paths: Iterable[str | Path]) -> list[Path]:
    """Results files under the given directories, or the given files; raises when there are none."""
    found: list[Path] = []
    for raw in paths:
        path = Path(raw)
        if path.is_dir():
            hits = sorted(path.rglob(RESULTS_GLOB)) or sorted(path.rglob("results*.json"))
            if not hits:
                raise ReportInputError(f"{path}: no lmms-eval results file (*_results.json) below this directory")
            found += hits
        elif path.is_file():
            found.append(path)
        else:
            raise ReportInputError(f"{path}: no such file or directory")
    return list(dict.fromkeys(found))


def read_results(path: Path) -> dict:
    """A results file's JSON; raises :class:`ReportInputError` naming the file when it is not one. A file that is
    not strict JSON (a bare ``NaN`` or ``Infinity``: written by another tool, or edited by hand) is read, its value
    undefined, with one warning on stderr naming the file and what is non-standard (:func:`not_strict`)."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as err:
        raise ReportInputError(f"{path}: not a readable JSON file: {err}") from err
    if not isinstance(data, dict) or not isinstance(data.get("results"), dict):
        raise ReportInputError(f"{path}: not an lmms-eval results file (no 'results' object)")
    if not_strict(data):
        print(not_strict_warning(path, data), file=sys.stderr, flush=True)
    return data


def read_run(path: str | Path) -> tuple[Path, dict, dict[str, TaskFacts]]:
    """A run's results file (``path``, or the newest results file below the folder ``path``), its JSON
    (:func:`read_results`) and what its tasks' and groups' results mean
    (:func:`food_tasks.lmms.facts.facts_of_results`): all that loading a run reads, in one call. Raises
    :class:`FileNotFoundError` naming the path when there is no such file, or no results file below the folder."""
    from food_tasks.lmms.facts import facts_of_results  # numpy and the hooks' tables: not for the CLI's other uses

    path = Path(path)
    if path.is_dir():
        found = newest_results(path)
        if found is None:
            raise FileNotFoundError(f"{path}: no lmms-eval results file (*_results.json) below this folder")
        path = found
    if not path.is_file():
        raise FileNotFoundError(f"{path}: no such results file or folder")
    data = read_results(path)
    return path, data, facts_of_results(data)


def non_finite(value: Any, where: str = "") -> Iterator[tuple[str, float]]:
    """Where ``value`` (a results file's JSON) holds a number that strict JSON cannot write (NaN, an infinity): each
    as ``(dotted path, value)``, the path ``results.<task>.<metric>``."""
    if isinstance(value, float) and not math.isfinite(value):
        yield where, value
    elif isinstance(value, dict):
        for key, item in value.items():
            yield from non_finite(item, f"{where}.{key}" if where else str(key))
    elif isinstance(value, list):
        for number, item in enumerate(value):
            yield from non_finite(item, f"{where}[{number}]")


def not_strict(data: Mapping[str, Any], shown: int = 3) -> str:
    """What makes a results file's JSON (as read) not strict JSON: ``bare NaN at results.t.acc,none and 2 more``;
    '' when it is strict (an undefined value written as ``null``, as lmms-eval with food-tasks writes it)."""
    found = list(non_finite(data))
    if not found:
        return ""
    kinds = sorted({"NaN" if math.isnan(v) else "Infinity" for _, v in found})
    more = f" and {len(found) - shown} more" if len(found) > shown else ""
    return f"bare {' and '.join(kinds)} at {', '.join(w for w, _ in found[:shown])}{more}"


def not_strict_warning(path: Path, data: Mapping[str, Any]) -> str:
    """The warning naming a results file that is not strict JSON, what is non-standard and how it is read."""
    return f"food-tasks: warning: not strict JSON (another tool wrote it, or it was edited):\n  {path}\n" + "\n".join(
        textwrap.wrap(
            f"{not_strict(data) or 'a bare NaN or Infinity'}: read as undefined (strict JSON writes null), "
            "whatever its samples file says",
            116,
            initial_indent="  ",
            subsequent_indent="    ",
            break_long_words=False,
        )
    )


def samples_file(path: Path, task: str) -> Path | None:
    """The samples file of ``task`` for a results file, a samples file or a folder (the newest)."""
    path = Path(path)
    if path.is_file() and path.name.endswith(f"_samples_{task}.jsonl"):
        return path
    if path.is_file() and path.name.endswith("_results.json"):
        candidate = path.with_name(path.name.removesuffix("_results.json") + f"_samples_{task}.jsonl")
        return candidate if candidate.is_file() else None
    if path.is_dir():
        return newest(path.rglob(f"*_samples_{task}.jsonl"))
    if path.is_file() and "_samples_" in path.name:  # a samples file of another task: look beside it
        return newest(path.parent.glob(f"*_samples_{task}.jsonl"))
    return None


def read_records(path: Path, table: MetricTable) -> list[Mapping[str, Any]]:
    """Each document's record from a samples file: the value of the table's first metric (the whole record)."""
    first = next(iter(table))
    records = []
    with open(path, encoding="utf-8") as handle:
        for number, line in enumerate(handle, 1):
            if not line.strip():
                continue
            sample = json.loads(line)
            record = sample.get(first)
            if not isinstance(record, dict) or not record:
                raise ValueError(
                    f"{path}: line {number} has no per-document record under {first!r} (a samples file written "
                    "by another version of this task?)"
                )
            records.append(record)
    return records
