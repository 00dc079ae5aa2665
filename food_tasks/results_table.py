"""A results table that fits a terminal.

lmms-eval 0.7.x prints every metric a task returns in its Markdown table, a
dict-valued breakdown (``per_language`` with 30 languages, ``per_condition``
...) as one inline cell: each row of the table is then padded to hundreds or
thousands of characters and the headline scalars sit far to the right.

:func:`food_tasks.harness.install_table` wraps ``lmms_eval.utils.make_table``
(the function ``lmms_eval.evaluator`` binds when it is imported, after our entry
point ran) so that, in the rows of *our* tasks and groups only, a metric that is
not a scalar is printed as a short note (:func:`note`) by :func:`compact`. The table is rendered after
the results JSON was written, and from a copy: the breakdowns stay in the
results JSON, unchanged. Tasks that are not ours are printed as lmms-eval
prints them.
"""

from __future__ import annotations

from typing import Any, Collection, Mapping


def note(value: Any) -> Any:
    """What the table shows for a metric value: scalars unchanged, a breakdown as a short note."""
    if isinstance(value, Mapping):
        return f"see JSON ({len(value)} keys)"
    if isinstance(value, (list, tuple)):
        return f"see JSON ({len(value)} items)"
    if isinstance(value, str) and len(value) > 24:  # "absent: <reason>" metrics: the reason is in the JSON
        return value.split(":", 1)[0] + " (see JSON)" if ":" in value[:24] else "see JSON (text)"
    return value


def compact(result_dict: Mapping, column: str, ours: Collection[str]) -> dict:
    """A copy of ``result_dict`` in which the rows of ``column`` named in ``ours`` have their breakdowns
    replaced by :func:`note`. The input is not modified (``make_table`` pops ``alias`` from the rows it prints)."""
    rows = result_dict.get(column)
    if not isinstance(rows, Mapping):
        return dict(result_dict)
    out = dict(result_dict)
    out[column] = {
        name: ({m: note(v) for m, v in row.items()} if name in ours and isinstance(row, Mapping) else dict(row) if isinstance(row, Mapping) else row)
        for name, row in rows.items()
    }
    return out
