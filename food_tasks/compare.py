"""``food-tasks compare``: the table it prints of two runs' paired differences.

The runs and their comparison come from :mod:`food_tasks.runs` (:func:`~food_tasks.runs.load_run`,
:func:`~food_tasks.runs.paired.compare_runs`: the documents both runs scored, matched by identity); this module
writes them as text. Its names of the comparison (``Run``, ``load_run``, ``compare_runs`` ...) are those of
:mod:`food_tasks.runs`.
"""

from __future__ import annotations

import math
import textwrap

from food_tasks import stats
from food_tasks.confidence import p_text
from food_tasks.runs.paired import BestOf, Row, best_of_bias, compare_one, compare_runs, few_note, group_entries
from food_tasks.runs.run import Run, load_run

# --------------------------------------------------------------------------- the table `food-tasks compare` prints

HEADER = ("metric", "A", "B", "A - B", "95% interval", "p", "docs (units)", "verdict")
WIDTH = 120  # the widest line `food-tasks compare` prints: each task or group heads its rows, long notes wrap
EXPLANATION = (
    "Differences A - B on the documents both runs scored, 95% intervals (clustered; paired bootstrap for\n"
    "statistics that are not means); 'no detectable difference' when the interval contains 0; units are the\n"
    f"independent clusters (dishes, questions, images): with fewer than {stats.MIN_UNITS} no verdict, interval or p.\n"
)


def table_rows(rows: list[Row]) -> list[tuple[str, ...]]:
    """One line of cells per comparison row, the task or group name first (a row without a comparison says why
    in its last cell). The verdict does not repeat the unit count of the cell before it."""
    table = []
    for row in rows:
        c = row.comparison
        if c is None:
            table.append((row.name, row.metric or "-", "", "", "", "", "", "", row.note))
            continue
        verdict = c.verdict(row.higher_is_better, "A", "B")
        if verdict in ("A > B", "A < B"):
            better = (c.diff > 0) == row.higher_is_better
            verdict += f" ({'A' if better else 'B'} better)"
        defined = math.isfinite(c.diff)
        table.append(
            (
                row.name,
                row.metric,
                value_text(row.a),
                value_text(row.b),
                f"{c.diff:+.2f}" if defined else "n/a",
                *interval_p(c),
                f"{c.n} ({c.clusters})",
                verdict,
            )
        )
    return table


def interval_p(c: stats.Comparison, scale: float = 1.0, decimals: int = 2) -> tuple[str, str]:
    """The 95% interval and p-value cells of a comparison (:func:`food_tasks.confidence.p_text`), the interval's
    bounds times ``scale`` with ``decimals`` decimals: ``n/a`` for an undefined difference, and below
    :data:`food_tasks.stats.MIN_UNITS` independent units, where no verdict is given: the normal interval is not to
    be trusted there (it can cross the metric's bounds: +108.67 points for a difference of two percentages) and
    neither is its p-value. ``food-tasks compare`` and the report's tables of differences both use it."""
    if not math.isfinite(c.diff) or c.clusters < stats.MIN_UNITS or c.low is None or c.high is None:
        return "n/a", "n/a"
    return f"[{c.low * scale:+.{decimals}f}, {c.high * scale:+.{decimals}f}]", p_text(c.p)


def aligned(header: tuple[str, ...], table: list[tuple[str, ...]]) -> list[str]:
    """The header and the rows as text lines, each column padded to its widest cell."""
    widths = [max(len(str(x)) for x in column) for column in zip(header, *table)]
    return ["  ".join(str(x).ljust(w) for x, w in zip(line, widths)).rstrip() for line in (header, *table)]


def lines(table: list[tuple[str, ...]], width: int = WIDTH, header: tuple[str, ...] = HEADER) -> list[str]:
    """What ``food-tasks compare`` prints: the header, then each task or group on a line of its own followed by
    its metrics (indented, columns aligned over the whole table); a cell that would pass ``width`` (a note: why
    a row has no comparison) wraps at word boundaries under the column it starts in. ``header`` names the
    columns after the first (the task or group)."""
    indent = "  "
    body = aligned(header, [row[1:] for row in table])
    start = len(body[0]) - len(header[-1])  # where the last column starts
    out = [indent + body[0]]
    previous = None
    for row, line in zip(table, body[1:]):
        if row[0] != previous:
            out.append(row[0])
            previous = row[0]
        line = indent + line
        if len(line) > width:
            head, tail = line[: len(indent) + start], line[len(indent) + start :]
            wrapped = textwrap.wrap(tail, max(20, width - len(head)), break_long_words=False, break_on_hyphens=False)
            line = head + "\n".join([wrapped[0], *(" " * len(head) + w for w in wrapped[1:])])
        out += line.split("\n")
    return out


def value_text(value: object) -> str:
    """A run's value in the table: a number with two decimals, nothing for None (not in the run), an undefined
    metric (NaN: null in the results JSON) as ``undefined`` and an absent one as ``absent`` (its reason is in the
    results JSON), as the report and the printed table say them; other values cut to 20 characters at a word
    boundary."""
    if isinstance(value, float) and math.isnan(value):
        return "undefined"
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return f"{value:.2f}"
    if value is None:
        return ""
    text = str(value)
    if text.startswith("absent:"):
        return "absent"
    return text if len(text) <= 20 else textwrap.shorten(text, 20, placeholder="...")


__all__ = [
    "BestOf",
    "Run",
    "Row",
    "best_of_bias",
    "compare_one",
    "compare_runs",
    "few_note",
    "group_entries",
    "interval_p",
    "lines",
    "load_run",
    "table_rows",
    "value_text",
]
