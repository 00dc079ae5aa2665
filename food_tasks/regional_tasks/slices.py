"""Slices of regional tasks (``metadata.regional.slices``): each row's values, per-slice accuracy and sizes, and a
judged task's per-slice judge accuracy.

A slice cell holds one value, or a list of values (a list column; a JSON list in CSV files): the row then counts in
each of its slices (``["Asia", "Europe"]`` counts once under Asia and once under Europe, so the slices' sizes add up to
more than the rows). An empty cell (or an empty list) takes ``metadata.regional.slice_fill`` when the YAML gives one,
and is a problem ``validate`` names otherwise. No lmms-eval import.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from food_tasks.regional_tasks.answers import as_list


def _text(value: Any) -> str:
    return "" if value is None or (isinstance(value, float) and value != value) else str(value).strip()


def slice_values(cell: Any, fill: str | None = None) -> list[str]:
    """The slice values of one cell: its one value, or each distinct value of a list (in the cell's order), empty
    ones left out; ``[fill]`` when none is left and a fill value is given, else ``[]`` (a problem)."""
    values = list(dict.fromkeys(v for v in (_text(x) for x in as_list(cell)) if v))
    return values or ([fill] if fill else [])


def record_slice(cell: Any, fill: str | None = None) -> str | list[str]:
    """What a record keeps of a slice cell: the value as text (one value), or the list of values (a list cell)."""
    values = slice_values(cell, fill)
    listed = (
        isinstance(cell, (list, tuple))
        or hasattr(cell, "tolist")
        or (isinstance(cell, str) and cell.strip().startswith("[") and as_list(cell) != [cell])
    )
    if listed:
        return values
    return values[0] if values else ""


def _values(record: Mapping[str, Any], column: str) -> list[str]:
    value = (record.get("slices") or {}).get(column, "")
    return [str(v) for v in value] if isinstance(value, list) else [str(value)]


def _present(records: Sequence[Mapping[str, Any]]) -> list[Mapping[str, Any]]:
    return [r for r in records if not r.get("image_missing")]


def groups(column: str, records: Sequence[Mapping[str, Any]]) -> dict[str, list[int]]:
    """Slice value -> positions in ``records`` of the rows in it (rows whose images all loaded), values sorted."""
    found: dict[str, list[int]] = {}
    for i, record in enumerate(records):
        if record.get("image_missing"):
            continue
        for value in dict.fromkeys(_values(record, column)):
            found.setdefault(value, []).append(i)
    return {value: found[value] for value in sorted(found)}


def by_slice(column: str, records: Sequence[Mapping[str, Any]], field: str = "correct") -> dict[str, float]:
    """Accuracy (%) per value of one slice column, values sorted; a row in several slices counts in each."""
    return {
        value: 100.0 * sum(bool(records[i].get(field)) for i in rows) / len(rows)
        for value, rows in groups(column, records).items()
    }


def slice_sizes(column: str, records: Sequence[Mapping[str, Any]]) -> dict[str, int]:
    """Documents per value of one slice column, values sorted (the group sizes behind ``acc_by_<column>``: rows with
    an image that could not be loaded are not in them; a row in several slices counts in each)."""
    return {value: len(rows) for value, rows in groups(column, records).items()}


class JudgeBySlice:
    """``judge_acc_by_<column>`` (``sizes=False``) or ``judge_n_by_<column>`` (``sizes=True``) of a judged task: the
    headline judge's accuracy (%) per slice value, and the rows it judged per value (its denominator: a row whose
    judge call failed is left out, as in ``judge_acc``); a value with no judged row is null. Picklable."""

    def __init__(self, settings: Any, column: str, sizes: bool = False) -> None:
        self.settings, self.column, self.sizes = settings, column, sizes

    def __call__(self, records: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
        from food_tasks.regional_tasks.judged import JudgeFigure

        rows = JudgeFigure(self.settings, "judge_acc").rows(records)  # (right, judged) per record
        out: dict[str, Any] = {}
        for value, members in groups(self.column, records).items():
            right, judged = (float(x) for x in np.sum(rows[members], axis=0)) if members else (0.0, 0.0)
            if self.sizes:
                out[value] = int(judged)
            else:
                out[value] = 100.0 * right / judged if judged else None
        return out
