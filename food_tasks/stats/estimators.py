"""Metrics as per-document sufficient statistics, and the canonical order every statistic sums in.

An :class:`Estimator` gives ``rows(records)`` (one row of ``k`` numbers per document) and ``combine(sums)`` (the
value from the column sums), vectorised over leading axes so that a bootstrap evaluates thousands of resamples
in one array operation: :class:`Ratio` (means, rates, micro averages; analytic standard error), :class:`Macro`
(unweighted mean over groups) and :class:`Custom` (any statistic of column sums). :func:`canonical` is the total
order over ids of mixed types that makes every figure a function of the set of documents.
:mod:`food_tasks.stats.uncertainty` turns these into standard errors and comparisons (and re-exports every name here).
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Callable, Hashable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

Record = Mapping[str, Any]


class Estimator:
    """Per-document sufficient statistics of a metric (``rows``) and the value they give (``combine``).

    ``from_samples``: whether ``rows`` can be computed from the records of a samples file alone; False for a judge's
    figures, whose verdicts exist only while the task aggregates (``food-tasks compare`` and the report then give the
    two reported values and no paired difference, and never call a judge)."""

    linear = False
    from_samples = True
    # The statistic's range where its rows do not say it (food_tasks.stats.intervals.support), and whether its
    # sampling distribution is skewed (its 95 % interval is then always the percentile bootstrap's).
    bounds: tuple[float, float] | None = None
    skewed = False

    def rows(self, records: Sequence[Record]) -> np.ndarray:  # pragma: no cover - interface
        """An ``(n, k)`` array: each document's ``k`` sufficient statistics, summed over documents."""
        raise NotImplementedError

    def combine(self, sums: np.ndarray) -> np.ndarray:  # pragma: no cover - interface
        """The metric's value from column sums ``(..., k)``, one per leading index (resamples)."""
        raise NotImplementedError

    def counted(self, rows: np.ndarray) -> np.ndarray:
        """Which documents are in the metric's denominator (default: a non-zero row)."""
        return np.any(rows != 0, axis=1)

    def score(self, record: Record) -> float | None:
        """The document's own score, for lmms-eval's per-document statistics (``--repeats``); None if none."""
        return None


class Ratio(Estimator):
    """``scale * sum(num) / sum(den)``: a mean (den 1 per counted document, None = not counted), a micro rate,
    a mean error. Analytic clustered standard error."""

    linear = True

    def __init__(
        self,
        num: Callable[[Record], float | None],
        den: Callable[[Record], float] | None = None,
        scale: float = 1.0,
        binary: bool = False,
        keep_nonfinite: bool = False,
    ) -> None:
        """``keep_nonfinite``: a NaN or infinite value counts (and makes the value NaN or infinite, as a reducer
        summing it would); by default only None leaves a document out, and a non-finite value does too."""
        self.num, self.den, self.scale, self.binary, self.keep_nonfinite = num, den, scale, binary, keep_nonfinite

    def rows(self, records: Sequence[Record]) -> np.ndarray:
        """``[num, den]`` per document (both 0 for a document that does not count)."""
        if self.keep_nonfinite:
            values = [self.num(r) for r in records]
            counted = np.array([v is not None for v in values], dtype=bool).reshape(len(records))
            num = np.array([math.nan if v is None else float(v) for v in values], dtype=float).reshape(len(records))
        else:
            num = np.array([_nan(self.num(r)) for r in records], dtype=float).reshape(len(records))
            counted = ~np.isnan(num)
        if self.den is None:
            den = counted.astype(float)
        else:
            den = np.array([float(self.den(r)) if c else 0.0 for r, c in zip(records, counted)], dtype=float).reshape(
                len(records)
            )
        return np.stack([np.where(counted, num, 0.0), den], axis=1)

    def combine(self, sums: np.ndarray) -> np.ndarray:
        """``scale * num / den``; NaN where no document counted."""
        num, den = sums[..., 0], sums[..., 1]
        with np.errstate(invalid="ignore", divide="ignore"):
            return np.where(den > 0, self.scale * num / np.where(den > 0, den, 1.0), np.nan)

    def counted(self, rows: np.ndarray) -> np.ndarray:
        """Documents with a non-zero denominator."""
        return rows[:, 1] != 0

    def score(self, record: Record) -> float | None:
        """The document's 0/1 value for a binary mean; None otherwise."""
        if self.den is not None or not self.binary:
            return None
        v = self.num(record)
        return None if v is None else float(v)


@dataclass(frozen=True)
class field:  # noqa: N801  (used like a function: field("correct"))
    """A picklable per-document value read from a record: ``record[name]`` as a number (a bool is 0/1).

    ``unless``: None (the document does not count) when ``record[unless]`` is truthy (``image_missing``);
    ``test``: ``"not"`` gives 1 for a falsy value, ``"none"`` gives 1 when the value is None (an unparsed
    answer), ``"some"`` 1 when it is not None. A missing key reads as None (the document does not count).
    """

    name: str
    unless: str | None = None
    test: str | None = None

    def __call__(self, record: Record) -> float | None:
        if self.unless is not None and record.get(self.unless):
            return None
        if self.name not in record:
            return None
        value = record[self.name]
        if self.test == "not":
            return float(not value)
        if self.test == "none":
            return float(value is None)
        if self.test == "some":
            return float(value is not None)
        return None if value is None else float(value)


@dataclass(frozen=True)
class column:  # noqa: N801  (used like a function: column("lang"), column("qa_id", "lang"))
    """A picklable raw accessor: ``record[name]``, or the tuple of several columns (document keys, clusters,
    groups). A missing key reads as None. ``noun``: what a value is, in the plural, where it names clusters."""

    names: tuple[str, ...]
    noun: str = ""  # what one value is, in the plural ("dishes"): the results JSON names clusters with it

    def __init__(self, *names: str, noun: str = "") -> None:
        object.__setattr__(self, "names", names)
        object.__setattr__(self, "noun", noun)

    def __call__(self, record: Record) -> Hashable:
        if len(self.names) == 1:
            return record.get(self.names[0])
        return tuple([record.get(n) for n in self.names])  # a list comprehension: faster than a generator


def mean(value: Callable[[Record], float | bool | None], scale: float = 1.0, binary: bool = False) -> Ratio:
    """The mean of a per-document value over the documents where it is not None (``scale=100``: percent).

    ``binary``: the value is 0 or 1 (right/wrong, parsed/unparsed): each document's samples-file payload then
    shows it as ``score``, which lmms-eval's ``--repeats`` stability metrics read (they assume 0/1 scores)."""
    return Ratio(_Numeric(value), None, scale, binary)


@dataclass(frozen=True)
class _Numeric:
    value: Callable[[Record], Any]

    def __call__(self, record: Record) -> float | None:
        return _num(self.value(record))


def _num(v: Any) -> float | None:
    if v is None:
        return None
    v = float(v)
    return v if math.isfinite(v) else None


def _nan(v: Any) -> float:
    """A per-document value as a float, NaN for "does not count" (None or not finite)."""
    if v is None:
        return math.nan
    v = float(v)
    return v if math.isfinite(v) else math.nan


class Macro(Estimator):
    """The unweighted mean over groups (languages ...) of each group's mean; documents where ``value`` is None
    do not count. Groups are the ones present in the records, in canonical order (:func:`canonical`)."""

    def __init__(
        self,
        value: Callable[[Record], float | bool | None],
        group: Callable[[Record], Hashable],
        scale: float = 1.0,
        binary: bool = False,
    ) -> None:
        self.value, self.group, self.scale, self.binary = value, group, scale, binary
        self._groups: list[Hashable] = []

    def rows(self, records: Sequence[Record], memo: dict | None = None) -> np.ndarray:
        """Per document: its value in its group's numerator column, 1 in its group's count column."""
        key = ("groups", self.group)
        if memo is not None and key in memo:
            codes, groups = memo[key]
        else:
            labels = [self.group(r) for r in records]
            groups = canonical_unique(labels)  # groups in canonical order: sums do not move
            rank = {label: i for i, label in enumerate(groups)}
            codes = np.fromiter((rank[label] for label in labels), dtype=np.int64, count=len(labels))
            if memo is not None:
                memo[key] = codes, groups
        values = np.array([_nan(self.value(r)) for r in records], dtype=float).reshape(len(records))
        self._groups = groups
        g = len(groups)
        out = np.zeros((len(records), 2 * g))
        counted = np.flatnonzero(~np.isnan(values))
        out[counted, codes[counted]] = values[counted]
        out[counted, g + codes[counted]] = 1.0
        return out

    def combine(self, sums: np.ndarray) -> np.ndarray:
        """The mean of the present groups' means; NaN when no group has a counted document."""
        g = sums.shape[-1] // 2
        num, den = sums[..., :g], sums[..., g:]
        with np.errstate(invalid="ignore", divide="ignore"):
            cells = np.where(den > 0, num / np.where(den > 0, den, 1.0), np.nan)
        present = den > 0
        count = present.sum(axis=-1)
        total = np.where(present, cells, 0.0).sum(axis=-1)
        return np.where(count > 0, self.scale * total / np.where(count > 0, count, 1), np.nan)

    def counted(self, rows: np.ndarray) -> np.ndarray:
        """Documents counted in some group."""
        return np.any(rows[:, rows.shape[1] // 2 :] != 0, axis=1)

    def score(self, record: Record) -> float | None:
        """The document's 0/1 value when ``binary``; None otherwise."""
        return _num(self.value(record)) if self.binary else None


class Custom(Estimator):
    """Any statistic of column sums: ``rows(records) -> (n, k)``, ``combine(sums (..., k)) -> (...)``.
    ``counted(rows)`` says which documents are in its denominator (default: a non-zero row)."""

    def __init__(
        self,
        rows: Callable[[Sequence[Record]], np.ndarray],
        combine: Callable[[np.ndarray], np.ndarray],
        counted: Callable[[np.ndarray], np.ndarray] | None = None,
    ) -> None:
        self._rows, self._combine, self._counted = rows, combine, counted

    def rows(self, records: Sequence[Record]) -> np.ndarray:
        """The given ``rows`` function's array, shaped ``(n, k)``."""
        return np.asarray(self._rows(records), dtype=float).reshape(len(records), -1)

    def combine(self, sums: np.ndarray) -> np.ndarray:
        """The given ``combine`` function of the sums."""
        return self._combine(sums)

    def counted(self, rows: np.ndarray) -> np.ndarray:
        """The given ``counted`` function, else a non-zero row."""
        return self._counted(rows) if self._counted else super().counted(rows)


@dataclass(frozen=True)
class ratio_combine:  # noqa: N801  (used like a function)
    """``combine`` of a :class:`Custom` estimator whose rows are ``[numerator, denominator]``: ``scale * num / den``."""

    scale: float = 1.0

    def __call__(self, sums: np.ndarray) -> np.ndarray:
        num, den = sums[..., 0], sums[..., 1]
        with np.errstate(invalid="ignore", divide="ignore"):
            return np.where(den > 0, self.scale * num / np.where(den > 0, den, 1.0), np.nan)


# --------------------------------------------------------------------------- canonical order


def canonical(value: Any) -> tuple:
    """A sort key that puts cluster ids, document keys and group labels of any mix of types in one total order.

    None first; then numbers (bool, int, float, numpy scalars) by value, NaN after every other number; strings;
    bytes; tuples and lists element by element; sets as their sorted elements; anything else by type name and
    repr. Values that are equal as dict keys (``1``, ``1.0``, ``True``) get equal keys, so which of them came
    first never matters."""
    kind = type(value)  # the common exact types first: an isinstance check against the numbers ABCs is slow
    if kind is str:
        return (2, value)
    if kind is int:
        return (1, 0, value)
    if kind is tuple:
        return (4, tuple(canonical(v) for v in value))
    if kind is float:
        return (1, 0, value) if value == value else (1, 1)
    if value is None:
        return (0,)
    if isinstance(value, numbers.Integral):
        return (1, 0, int(value))
    if isinstance(value, numbers.Real):
        number = float(value)
        return (1, 1) if math.isnan(number) else (1, 0, number)
    if isinstance(value, str):
        return (2, value)
    if isinstance(value, (bytes, bytearray)):
        return (3, bytes(value))
    if isinstance(value, (tuple, list)):
        return (4, tuple(canonical(v) for v in value))
    if isinstance(value, (set, frozenset)):
        return (5, tuple(sorted(canonical(v) for v in value)))
    return (6, type(value).__qualname__, repr(value))


def canonical_unique(values: Iterable[Hashable]) -> list[Hashable]:
    """The distinct values, in canonical order (:func:`canonical`)."""
    return sorted(dict.fromkeys(values), key=canonical)
