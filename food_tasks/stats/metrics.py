"""Aggregation reducers shared by all benchmarks.

``process_results`` hooks return one small record (a dict) per document; the
functions here reduce lists of such records to scores. Names say whether an
average is micro (over documents) or macro (over groups such as languages).

Scale: accuracies and rates are percentages in [0, 100]; precision/recall/F1, reciprocal ranks and Kendall tau
are in [0, 1] (as the benchmarks' papers print them). Empty input gives 0.0 here; a task's metric over zero units
is then undefined (NaN, ``null`` in the results file: food_tasks.hooks.convention.aggregate), never that 0.0.
"Official" reducers reproduce the rounding of a benchmark's reference scorer
(2 decimals per cell, then 2 decimals for the average of the rounded cells).
"""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any

from food_tasks.stats.uncertainty import canonical

Record = Mapping[str, Any]


def group_records(records: Iterable[Record], key: str) -> dict[Any, list[Record]]:
    """Group records by ``record[key]``, groups in canonical order (:func:`food_tasks.stats.uncertainty.canonical`;
    strings sorted), so that a macro average sums its groups in the same order whatever the order of the records."""
    groups: dict[Any, list[Record]] = defaultdict(list)
    for record in records:
        groups[record[key]].append(record)
    return {g: groups[g] for g in sorted(groups, key=canonical)}


def mean(values: Sequence[float]) -> float:
    """Arithmetic mean, 0.0 for an empty sequence (plain left-to-right sum, as the reference scorers)."""
    return sum(values) / len(values) if values else 0.0


def percent_true(records: Sequence[Record], field: str) -> float:
    """Micro average: percentage of records whose ``field`` is truthy."""
    return 100.0 * sum(bool(r[field]) for r in records) / len(records) if records else 0.0


def macro_percent(records: Sequence[Record], field: str, by: str) -> tuple[float, dict[Any, float]]:
    """Macro average over groups: percent of truthy ``field`` per group, then the unweighted mean.

    Returns:
        ``(macro, per_group)``, unrounded.
    """
    cells = {g: percent_true(rs, field) for g, rs in group_records(records, by).items()}
    return mean(list(cells.values())), cells


def percent_of(reduce: Callable[[Sequence[Record]], float], records: Sequence[Record]) -> float:
    """``100 * reduce(records)``: a share in [0, 1] in percent (every accuracy and rate reads 0-100 in every
    benchmark), or a [0, 1] text-overlap score on the x 100 scale every benchmark prints it on."""
    return 100.0 * reduce(records)


def round_numpy(value: float, ndigits: int = 2) -> float:
    """``numpy.round`` semantics: scale, round half to even on the scaled float, unscale.

    Differs from Python's ``round`` only on (near-)ties such as ``17.575`` (Python 17.57,
    numpy 17.58). Reference scorers that round ``numpy.float64`` values (pandas sums) need it.
    """
    if not math.isfinite(value):  # undefined (a subtask over zero units): stays undefined
        return value
    scale = 10.0**ndigits
    return round(value * scale) / scale


def macro_percent_official(
    records: Sequence[Record], field: str, by: str, rounding: Callable[[float, int], float] = round
) -> tuple[float, dict[Any, float]]:
    """Like :func:`macro_percent` with the reference rounding: each cell, then the mean, to 2 decimals."""
    cells = {g: rounding(percent_true(rs, field), 2) for g, rs in group_records(records, by).items()}
    return (rounding(mean(list(cells.values())), 2) if cells else 0.0), cells


def macro_mean(
    records: Sequence[Record], field: str, by: str, rounding: int | None = None
) -> tuple[float, dict[Any, float]]:
    """Macro average of a numeric ``field``: mean per group, then the unweighted mean of groups."""
    cells = {g: mean([float(r[field]) for r in rs]) for g, rs in group_records(records, by).items()}
    if rounding is not None:
        cells = {g: round(v, rounding) for g, v in cells.items()}
        return (round(mean(list(cells.values())), rounding) if cells else 0.0), cells
    return mean(list(cells.values())), cells


def per_group_table(
    records: Sequence[Record], by: str, columns: Mapping[str, Callable[[Sequence[Record]], float]]
) -> dict[str, dict[str, float]]:
    """One row per group (sorted by name) with ``n`` and one value per named reducer."""
    table: dict[str, dict[str, float]] = {}
    for group, rows in sorted(group_records(records, by).items(), key=lambda kv: str(kv[0])):
        table[str(group)] = {"n": len(rows), **{name: fn(rows) for name, fn in columns.items()}}
    return table


def group_mean(metrics: Sequence[float], sizes: Sequence[int], weight_by_size: bool = False) -> float:
    """Group aggregation (lmms-eval signature): unweighted or size-weighted mean of subtask scores."""
    if not metrics:
        return 0.0
    if weight_by_size:
        return sum(m * s for m, s in zip(metrics, sizes)) / sum(sizes)
    return mean(list(metrics))


def group_max(metrics: Sequence[float], sizes: Sequence[int], weight_by_size: bool = False) -> float:
    """Group aggregation (lmms-eval signature): the best subtask score (e.g. best of several prompt
    templates); 0.0 without subtasks. ``sizes``/``weight_by_size`` are ignored. An undefined subtask (NaN: zero
    units) is not a candidate; NaN when every subtask is undefined."""
    defined = [m for m in metrics if not (isinstance(m, float) and math.isnan(m))]
    return max(defined) if defined else (math.nan if metrics else 0.0)


def group_mean_official(metrics: Sequence[float], sizes: Sequence[int], weight_by_size: bool = False) -> float:
    """Group aggregation with reference rounding: mean of the (rounded) subtask scores, to 2 decimals."""
    return round(group_mean(metrics, sizes, weight_by_size), 2)


def group_mean_official_numpy(metrics: Sequence[float], sizes: Sequence[int], weight_by_size: bool = False) -> float:
    """:func:`group_mean_official` with :func:`round_numpy` (reference scorers that round numpy floats)."""
    return round_numpy(group_mean(metrics, sizes, weight_by_size), 2)


def safe_div(num: float, den: float) -> float:
    """``num / den``, 0.0 when ``den`` is 0 (the convention of the reference scorers)."""
    return num / den if den else 0.0


def set_prf(predicted: set, gold: set) -> dict[str, float]:
    """Set overlap: tp/fp/fn and precision/recall/F1, each 0.0 when its denominator is 0.

    Note that an empty prediction against an empty gold set scores F1 = 0, not 1."""
    tp, fp, fn = len(predicted & gold), len(predicted - gold), len(gold - predicted)
    precision, recall = safe_div(tp, tp + fp), safe_div(tp, tp + fn)
    return {
        "tp": tp,
        "fp": fp,
        "fn": fn,
        "precision": precision,
        "recall": recall,
        "f1": safe_div(2 * precision * recall, precision + recall),
    }


def micro_prf(rows: Iterable[Record]) -> tuple[float, float, float]:
    """Micro precision/recall/F1 from the tp/fp/fn pooled over ``rows``."""
    rows = list(rows)
    tp, fp, fn = (sum(r[k] for r in rows) for k in ("tp", "fp", "fn"))
    precision, recall = safe_div(tp, tp + fp), safe_div(tp, tp + fn)
    return precision, recall, safe_div(2 * precision * recall, precision + recall)


def reciprocal_rank(ranking: Sequence[Any] | None, gold: Any) -> float:
    """1 / (1-based position of ``gold`` in ``ranking``); 0.0 when absent or without a ranking."""
    return 1.0 / (list(ranking).index(gold) + 1) if ranking and gold in ranking else 0.0


def kendall_tau(predicted: Sequence[Any], gold: Sequence[Any]) -> float:
    """Kendall tau between two orderings of the same items without ties; 0.0 if they are not."""
    if len(predicted) != len(gold) or set(predicted) != set(gold) or len(set(gold)) != len(gold) or len(gold) < 2:
        return 0.0
    pp, gp = {x: i for i, x in enumerate(predicted)}, {x: i for i, x in enumerate(gold)}
    items, score = list(gold), 0
    for i, a in enumerate(items):
        for b in items[i + 1 :]:
            s = (pp[a] - pp[b]) * (gp[a] - gp[b])
            score += (s > 0) - (s < 0)
    n = len(items)
    return score / (n * (n - 1) / 2)
