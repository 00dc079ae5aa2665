"""``food-tasks compare``: the table it prints of two runs' paired differences.

The runs and their comparison come from :mod:`food_tasks.runs` (:func:`~food_tasks.runs.load_run`,
:func:`~food_tasks.runs.paired.compare_runs`: the documents both runs scored, matched by identity); this module
writes them as text. Its names of the comparison (``Run``, ``load_run``, ``compare_runs`` ...) are those of
:mod:`food_tasks.runs`.
"""

from __future__ import annotations

import math
import textwrap

from food_tasks.report import spec
from food_tasks.runs.paired import (
    BestOf,
    Row,
    best_of_bias,
    compare_one,
    compare_runs,
    few_note,
    group_entries,
    interval_p,
)
from food_tasks.runs.run import Run, load_run
from food_tasks.stats import uncertainty as stats

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
    in its last cell; a metric's reported values are still shown, its difference, interval and p ``n/a``). The
    verdict does not repeat the unit count of the cell before it."""
    table = []
    for row in rows:
        c = row.comparison
        if c is None and row.metric:  # reported values, no difference (a judge's figure): n/a, and why
            d = decimals(row)
            table.append((row.name, row.metric, value_text(row.a, d), value_text(row.b, d), *["n/a"] * 3, "", row.note))
            continue
        undefined = [side for side, value in (("A", row.a), ("B", row.b)) if value_text(value) == "undefined"]
        if c is not None and undefined and math.isfinite(c.diff):  # never a difference beside an undefined side
            d = decimals(row)  # (its results file says undefined, a bare NaN, where its samples give a value)
            why = f"{' and '.join(undefined)} undefined: no difference"
            table.append((row.name, row.metric, value_text(row.a, d), value_text(row.b, d), *["n/a"] * 3, "", why))
            continue
        if c is None:
            table.append((row.name, row.metric or "-", "", "", "", "", "", "", row.note))
            continue
        verdict = verdict_text(c, row.higher_is_better)
        defined, d = math.isfinite(c.diff), decimals(row)
        table.append(
            (
                row.name,
                row.metric,
                value_text(row.a, d),
                value_text(row.b, d),
                f"{c.diff:+.{d}f}" if defined else "n/a",
                *interval_p(c, 1.0, d),
                f"{c.n} ({c.clusters})",
                verdict,
            )
        )
    return table


def verdict_text(c: stats.Comparison, higher_is_better: bool, a: str = "A", b: str = "B") -> str:
    """A comparison's verdict cell (:meth:`~food_tasks.stats.uncertainty.Comparison.verdict`); between runs A and B,
    ``A > B`` or ``A < B`` also says which run is better (the metric's direction decides)."""
    verdict = c.verdict(higher_is_better, a, b)
    if (a, b) == ("A", "B") and verdict in ("A > B", "A < B"):
        verdict += f" ({'A' if (c.diff > 0) == higher_is_better else 'B'} better)"
    return verdict


def same_run(a: Run, b: Run) -> str | None:
    """The warning ``food-tasks compare`` prints once when A and B are the same results files (every difference
    is then 0 by construction), else None."""
    if [p.resolve() for p in a.paths] != [p.resolve() for p in b.paths]:
        return None
    return f"A and B are the same run ({a.path}): every difference below is 0; give two runs to compare them."


def nothing_in_common(a: Run, b: Run, cross_gains: int) -> str | None:
    """Why ``food-tasks compare`` has nothing to compare (it then exits 1): the runs share no task or group and no
    image-free twin of one is the other's (``cross_gains``: image gains paired across the runs); else None."""
    if set(a.tasks) & set(b.tasks) or set(a.groups) & set(b.groups) or cross_gains:
        return None

    def brief(run: Run) -> str:
        names = sorted(run.tasks) or ["no task"]
        return ", ".join(names[:3]) + (f" and {len(names) - 3} more" if len(names) > 3 else "")

    return (
        f"the two runs share no task, so there is nothing to compare: A has {brief(a)}; B has {brief(b)}. "
        "Give two runs of the same tasks (or a task and its image-free twin)."
    )


SCORE_DECIMALS = 4  # a [0, 1] score (an F1, an MRR, Kendall's tau, CTC): as the report's columns show them


def decimals(row: Row) -> int:
    """The decimals a row's values are shown with: those of the report's column of its metric (its benchmark's
    table: 4 for an F1, an MRR or CTC, 3 for CLIP-S, 2 for an accuracy in %), or of the column of the metric it
    refines or is a sibling of (``mrr_parsed``: ``mrr``'s; ``rationale_micro_recall``: ``rationale_micro_f1``'s);
    else :data:`SCORE_DECIMALS` for a [0, 1] score (scale ``score``, its estimator on scale 1); else 2."""
    found = spec.spec_for(row.name)
    shown: dict[str, int] = {}
    for table in found.tables if found is not None else ():
        modes = [mode for _, _, mode in table.modes if mode]
        for column in table.columns:
            names = [n for source in column.sources for n in (source.metric, source.official) if n]
            for name in names if column.scale == 1.0 else ():
                for each in [name.format(mode=m) for m in modes] if "{mode}" in name else [name]:
                    shown.setdefault(each, column.decimals)
    words = row.metric.split("_")

    def shared(name: str) -> int:  # leading words in common; every word of ``name`` when it is a prefix
        common = next((i for i, (x, y) in enumerate(zip(words, name.split("_"))) if x != y), None)
        return len(name.split("_")) if common is None and len(name.split("_")) <= len(words) else common or 0

    kin = [(shared(m), m) for m in shown if shared(m) >= min(2, len(m.split("_")))]
    if kin:
        return shown[max(kin, key=lambda x: x[0])[1]]
    declared = row.declared
    if declared is not None and declared.scale == "score" and getattr(declared.estimator, "scale", None) == 1.0:
        return SCORE_DECIMALS
    return 2


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


__all__ = [
    "BestOf",
    "Run",
    "Row",
    "best_of_bias",
    "compare_one",
    "compare_runs",
    "decimals",
    "few_note",
    "group_entries",
    "interval_p",
    "lines",
    "load_run",
    "nothing_in_common",
    "same_run",
    "table_rows",
    "value_text",
    "verdict_text",
]
