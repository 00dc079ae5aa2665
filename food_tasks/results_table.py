"""A results table that fits a terminal.

lmms-eval 0.7.x prints every metric a task returns in its Markdown table, a
dict-valued breakdown (``per_language`` with 30 languages, ``per_condition``
...) as one inline cell: each row of the table is then padded to hundreds or
thousands of characters and the headline scalars sit far to the right.

:func:`install_table_hook` wraps ``lmms_eval.utils.make_table`` (the function
``lmms_eval.__main__`` binds when it is imported, after our entry point ran)
so that, in the rows of *our* tasks and groups only, a metric that is not a
scalar is printed as a short note (:func:`note`). The table is rendered after
the results JSON was written, and from a copy: the breakdowns stay in the
results JSON, unchanged. Tasks that are not ours are printed as lmms-eval
prints them.
"""

from __future__ import annotations

import functools
from typing import Any, Callable, Collection, Mapping

_MARKER = "_food_tasks_table_hook"


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


def install_table_hook(ours: Callable[[], Collection[str]]) -> bool:
    """Wrap ``lmms_eval.utils.make_table`` (idempotent).

    Args:
        ours: returns the names of our tasks and groups; called once, when the first table is printed.

    Returns:
        True when the wrapper is in place, False when this lmms-eval has no ``make_table`` to wrap
        (the harness then prints its own table).
    """
    import lmms_eval.utils

    original = getattr(lmms_eval.utils, "make_table", None)
    if original is None:
        return False
    if getattr(original, _MARKER, False):
        return True
    names = functools.lru_cache(maxsize=1)(lambda: frozenset(ours()))

    @functools.wraps(original)
    def make_table(result_dict, column: str = "results", sort_results: bool = False):  # type: ignore[no-untyped-def]
        if isinstance(result_dict, Mapping):
            result_dict = compact(result_dict, column, names())
        return original(result_dict, column, sort_results)

    setattr(make_table, _MARKER, True)
    lmms_eval.utils.make_table = make_table
    return True
