"""``food-tasks compare``: the tables it prints of two runs' paired differences: the main table (each task's and
group's metrics), then, beyond accuracy, image gains over image-free twins (or why there is none) and the paired
beyond-accuracy measures.

The rows come computed (:func:`food_tasks.stats.comparison.compared`: the documents both runs scored, matched by
identity, each row's verdict and decimals); this module only writes them as text.
"""

from __future__ import annotations

import math
import textwrap
from collections.abc import Sequence

from food_tasks.runs.run import Run
from food_tasks.stats.comparison import Compared, Row
from food_tasks.stats.confidence import MIN_UNITS, interval_p, p_text
from food_tasks.stats.paired import ImageGain
from food_tasks.stats.uncertainty import Comparison

# --------------------------------------------------------------------------- the table `food-tasks compare` prints

HEADER = ("metric", "A", "B", "A - B", "95% interval", "p", "docs (units)", "verdict")
WIDTH = 120  # the widest line `food-tasks compare` prints: each task or group heads its rows, long notes wrap
EXPLANATION = (
    "Differences A - B on the documents both runs scored, 95% intervals (clustered; paired bootstrap for\n"
    "statistics that are not means); 'no detectable difference' when the interval contains 0; units are the\n"
    f"independent clusters (dishes, questions, images): with fewer than {MIN_UNITS} no verdict, interval or p.\n"
)


def table_rows(rows: list[Row]) -> list[tuple[str, ...]]:
    """One line of cells per comparison row, the task or group name first (a row without a comparison says why
    in its last cell; a metric's reported values are still shown, its difference, interval and p ``n/a``), its values
    with the decimals of its metric's declaration (:attr:`Row.decimals`). The verdict does not repeat the unit count of
    the cell before it."""
    table = []
    for row in rows:
        c = row.comparison
        if c is None and row.metric:  # reported values, no difference (a judge's figure): n/a, and why
            d = row.decimals
            table.append((row.name, row.metric, value_text(row.a, d), value_text(row.b, d), *["n/a"] * 3, "", row.note))
            continue
        undefined = [side for side, value in (("A", row.a), ("B", row.b)) if value_text(value) == "undefined"]
        if c is not None and undefined and math.isfinite(c.diff):  # never a difference beside an undefined side
            d = row.decimals  # (its results file says undefined, a bare NaN, where its samples give a value)
            why = f"{' and '.join(undefined)} undefined: no difference"
            table.append((row.name, row.metric, value_text(row.a, d), value_text(row.b, d), *["n/a"] * 3, "", why))
            continue
        if c is None:
            table.append((row.name, row.metric or "-", "", "", "", "", "", "", row.note))
            continue
        d = row.decimals
        table.append((row.name, row.metric, value_text(row.a, d), value_text(row.b, d), *_cells(c, row, d, True)))
    return table


def _cells(c: Comparison, row: Row | ImageGain, decimals: int = 2, main: bool = False) -> tuple[str, ...]:
    """Difference, interval (and p, in the main table), documents or independent units and verdict of a comparison
    (no verdict, and no interval, below MIN_UNITS units: :func:`food_tasks.stats.confidence.interval_p`)."""
    diff = f"{c.diff:+.{decimals}f}" if math.isfinite(c.diff) else "n/a"
    verdict = verdict_text(row.verdict, c.diff, row.higher_is_better)
    interval, p = interval_p(c, 1.0, decimals)
    return (diff, interval, p, f"{c.n} ({c.clusters})", verdict) if main else (diff, interval, str(c.clusters), verdict)


def verdict_text(verdict: str, diff: float, higher_is_better: bool) -> str:
    """A comparison's verdict cell (its computed verdict, :meth:`food_tasks.stats.uncertainty.Comparison.verdict`);
    ``A > B`` or ``A < B`` also says which run is better (the metric's direction decides)."""
    if verdict in ("A > B", "A < B"):
        verdict += f" ({'A' if (diff > 0) == higher_is_better else 'B'} better)"
    return verdict


def same_run(a: Run) -> str:
    """The warning ``food-tasks compare`` prints once when A and B are the same results files (every difference
    is then 0 by construction)."""
    return f"A and B are the same run ({a.path}): every difference below is 0; give two runs to compare them."


def nothing_in_common(a: Run, b: Run) -> str:
    """Why ``food-tasks compare`` has nothing to compare (it then exits 1): the runs share no task or group and no
    image-free twin of one is the other's."""

    def brief(run: Run) -> str:
        names = sorted(run.tasks) or ["no task"]
        return ", ".join(names[:3]) + (f" and {len(names) - 3} more" if len(names) > 3 else "")

    return (
        f"the two runs share no task, so there is nothing to compare: A has {brief(a)}; B has {brief(b)}. "
        "Give two runs of the same tasks (or a task and its image-free twin)."
    )


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


def value_text(value: object, decimals: int = 2) -> str:
    """A run's value in the table: a number with ``decimals`` decimals, nothing for None (not in the run), an undefined
    metric (NaN: null in the results JSON) as ``undefined`` and an absent one as ``absent`` (its reason is in the
    results JSON), as the report and the printed table say them; other values cut to 20 characters at a word
    boundary."""
    if isinstance(value, float) and math.isnan(value):
        return "undefined"
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return f"{value:.{decimals}f}"
    if value is None:
        return ""
    text = str(value)
    if text.startswith("absent:"):
        return "absent"
    return text if len(text) <= 20 else textwrap.shorten(text, 20, placeholder="...")


# --------------------------------------------------------------------------- beyond accuracy

GAIN_HEADER = ("task", "metric", "runs", "with", "without", "image gain", "95% interval", "units", "verdict")
MEASURE_HEADER = ("task or group", "measure", "A", "B", "A - B", "95% interval", "units", "verdict")


def fitted(header: tuple[str, ...], table: Sequence[tuple[str, ...]]) -> list[str]:
    """The table as ``food-tasks compare`` prints its main one, within :data:`WIDTH` columns: each task or group
    (the first column) on a line of its own, whole, and its rows indented below it; a long verdict or note wraps at
    word boundaries."""
    return lines(list(table), WIDTH, header[1:])


def gain_lines(gains: Sequence[tuple[str, str, ImageGain]]) -> list[str]:
    """The image-gain tables of ``food-tasks compare``: per model, one line per task; ``runs`` says which run
    (A or B) the score with the image and the one without it come from."""
    lines: list[str] = []
    for label in dict.fromkeys(label for label, _, _ in gains):
        table = [
            (
                g.task,
                g.metric,
                runs,
                value_text(g.with_image),
                value_text(g.without_image),
                *_cells(g.gain, g),
            )
            for m, runs, g in gains
            if m == label
        ]
        lines += [f"model: {label}", *fitted(GAIN_HEADER, table)]
    return lines


def measure_lines(rows: Sequence[Row]) -> list[str]:
    """The measures table of ``food-tasks compare``: one line per task or group and measure."""
    table = []
    for row in rows:
        shown = p_text if row.metric == "position_bias_p" else value_text
        values = (row.name, row.metric, shown(row.a), shown(row.b))
        c = row.comparison
        table.append((*values, "", "", "", row.note) if c is None else (*values, *_cells(c, row)))
    return fitted(MEASURE_HEADER, table)


GAIN_NOTE = (
    "Image gain: a task's headline score with the image minus its image-free twin's (`_noimage`, or a\n"
    "text-only input mode) on the documents both scored, paired by document, clustered; 'without' is\n"
    "answerable_without_image; runs: where 'with' / 'without' come from (A/A: both from run A). A model is paired\n"
    "with itself only: the twin from the task's own run, else from the other run when it is the same model.\n"
    f"Units: independent clusters (no verdict or interval below {MIN_UNITS})."
)


def gain_missing(task: str, label: str, why: str) -> list[str]:
    """Why ``food-tasks compare`` shows no image gain of ``task`` (``why``:
    :func:`food_tasks.stats.comparison.gain_missing_reason`), one sentence wrapped at :data:`WIDTH`."""
    text = f"{task} ({label}): no image gain, {why}"
    return textwrap.wrap(text, WIDTH, subsequent_indent="  ", break_long_words=False, break_on_hyphens=False)


def compare_text(found: Compared) -> list[str]:
    """The lines ``food-tasks compare`` prints after its main table: image gains (each model's tasks against their
    twins, as the report pairs them), or why there is none, and the beyond-accuracy measures both runs report ([]
    when there are none)."""
    missing = [line for task, label, why in found.no_gain for line in gain_missing(task, label, why)]
    lines: list[str] = []
    if found.gains or missing:
        lines += ["", "Image gain (with the image minus without it)", *gain_lines(found.gains), *missing]
        lines += GAIN_NOTE.splitlines() if found.gains else []
    if found.measures:
        lines += [
            "",
            "Beyond accuracy (consistency across languages and contexts, circular accuracy, position bias)",
            *measure_lines(found.measures),
        ]
    return lines


__all__ = [
    "EXPLANATION",
    "GAIN_NOTE",
    "HEADER",
    "Row",
    "aligned",
    "compare_text",
    "gain_lines",
    "gain_missing",
    "lines",
    "measure_lines",
    "nothing_in_common",
    "same_run",
    "table_rows",
    "value_text",
    "verdict_text",
]
