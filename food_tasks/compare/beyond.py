"""Beyond accuracy in ``food-tasks compare``: the lines it prints after its main table, image gains over image-free
twins and the paired beyond-accuracy measures of two runs, computed by :mod:`food_tasks.runs.measures` (whose names
this module also offers)."""

from __future__ import annotations

import math
import textwrap
from collections.abc import Iterable, Sequence

from food_tasks.compare.table import lines as grouped_lines
from food_tasks.compare.table import value_text, verdict_text
from food_tasks.lmms.errorbars import ImageGain
from food_tasks.runs.measures import (
    MEASURES,
    gain_missing_reason,
    gain_pairs,
    image_gain,
    measure_rows,
    paired_means,
    shares,
    twin_pairs,
)
from food_tasks.runs.paired import Row, interval_p
from food_tasks.runs.run import Run
from food_tasks.stats import uncertainty as stats
from food_tasks.stats.confidence import p_text

# --------------------------------------------------------------------------- `food-tasks compare`

GAIN_HEADER = ("task", "metric", "runs", "with", "without", "image gain", "95% interval", "units", "verdict")
MEASURE_HEADER = ("task or group", "measure", "A", "B", "A - B", "95% interval", "units", "verdict")
WIDTH = 120  # columns of a line of `food-tasks compare`


def _cells(c: stats.Comparison, higher_is_better: bool, a: str, b: str) -> tuple[str, ...]:
    """Difference, interval, independent units and verdict of a comparison (no verdict, and no interval, below
    MIN_UNITS units: :func:`food_tasks.runs.paired.interval_p`)."""
    cells = f"{c.diff:+.2f}" if math.isfinite(c.diff) else "n/a", interval_p(c)[0], str(c.clusters)
    return (*cells, verdict_text(c, higher_is_better, a, b))


def fitted(header: tuple[str, ...], table: Sequence[tuple[str, ...]]) -> list[str]:
    """The table as ``food-tasks compare`` prints its main one, within :data:`WIDTH` columns: each task or group
    (the first column) on a line of its own, whole, and its rows indented below it; a long verdict or note wraps at
    word boundaries."""
    return grouped_lines(list(table), WIDTH, header[1:])


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
                *_cells(g.gain, g.higher_is_better, "with", "without"),
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
        table.append(
            (*values, "", "", "", row.note) if c is None else (*values, *_cells(c, row.higher_is_better, "A", "B"))
        )
    return fitted(MEASURE_HEADER, table)


GAIN_NOTE = (
    "Image gain: a task's headline score with the image minus its image-free twin's (`_noimage`, or a\n"
    "text-only input mode) on the documents both scored, paired by document, clustered; 'without' is\n"
    "answerable_without_image; runs: where 'with' / 'without' come from (A/A: both from run A). A model is paired\n"
    "with itself only: the twin from the task's own run, else from the other run when it is the same model.\n"
    f"Units: independent clusters (no verdict or interval below {stats.MIN_UNITS})."
)


def gain_missing(with_run: Run, without_run: Run, task: str, twin: str) -> list[str]:
    """Why ``food-tasks compare`` shows no image gain of ``task`` over ``twin`` (:func:`gain_missing_reason`), one
    sentence wrapped at :data:`WIDTH`."""
    text = f"{task} ({with_run.label}): no image gain, {gain_missing_reason(with_run, without_run, task, twin)}"
    return textwrap.wrap(text, WIDTH, subsequent_indent="  ", break_long_words=False, break_on_hyphens=False)


def compare_text(
    a: Run,
    b: Run,
    iters: int = stats.DEFAULT_ITERS,
    skip: Iterable[tuple[str, str]] = (),
    pairs: Sequence[tuple[Run, Run, str, str]] | None = None,
) -> list[str]:
    """The lines ``food-tasks compare`` prints after its main table: image gains (each model's tasks against their
    twins, ``pairs``: :func:`gain_pairs` of the two runs, as the report pairs them) and the beyond-accuracy measures
    both runs report ([] when there are none)."""
    names = {b.path: "B", a.path: "A"}
    gains: list[tuple[str, str, ImageGain]] = []
    missing: list[str] = []
    for w, wo, task, twin in gain_pairs([a, b]) if pairs is None else pairs:
        if (g := image_gain(w, wo, task, twin, iters)) is not None:
            gains.append((w.label, f"{names[w.path]}/{names[wo.path]}", g))
        else:  # said, never dropped: a pair without its samples files (or without a document both scored)
            missing += gain_missing(w, wo, task, twin)
    lines: list[str] = []
    if gains or missing:
        lines += ["", "Image gain (with the image minus without it)", *gain_lines(gains), *missing]
        lines += GAIN_NOTE.splitlines() if gains else []
    rows = measure_rows(a, b, iters, skip)
    if rows:
        lines += [
            "",
            "Beyond accuracy (consistency across languages and contexts, circular accuracy, position bias)",
            *measure_lines(rows),
        ]
    return lines


__all__ = [
    "gain_missing_reason",
    "gain_pairs",
    "ImageGain",
    "MEASURES",
    "compare_text",
    "image_gain",
    "measure_rows",
    "paired_means",
    "shares",
    "twin_pairs",
]
