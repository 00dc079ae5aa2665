"""Uncertainty of our metrics: clustered standard errors, a vectorised cluster bootstrap, paired comparisons, power.

Method: E. Miller, "Adding Error Bars to Evals: A Statistical Approach to Language Model Evaluations"
(arXiv:2411.00640, 2024): a score is an estimate of the mean over a population of questions; report its
standard error (CLT), cluster it when questions share a context (the same dish photographed once, asked
in 30 languages), compare models on the questions both answered (paired differences), and plan for the
smallest difference a benchmark can detect.

Every metric is written as a function of **per-document sufficient statistics** (sacrebleu style: the
statistics first, the score second): an :class:`Estimator` gives ``rows(records)`` (one row of ``k``
numbers per document) and ``combine(sums)`` (the value from the column sums), vectorised over leading
axes so that a bootstrap evaluates thousands of resamples in one array operation. Two families:

* :class:`Ratio` (means, rates, micro averages, MAE: ``scale * sum(num) / sum(den)``): analytic standard
  error, clustered (the ratio's linearisation, CR1 small-sample factor ``C / (C - 1)``);
* everything else (macro means over languages, RMSE, F1, BLEU, best-of-templates): a cluster bootstrap,
  resampling whole clusters with replacement, seeded, ``iters`` resamples.

The reported value always comes from the benchmark's own reducer (its official rounding and summation
order); the estimator's ``combine`` of the full sums equals it (tests check every metric), and gives the
standard error, intervals and paired differences. Intervals are normal: value +- 1.96 SE; a binomial interval
(a rate over n independent units, as in the report's breakdowns) is Wilson's (:func:`wilson`), which behaves at 0/n
and n/n.
"""

from __future__ import annotations

import math
import zlib
from collections.abc import Callable, Hashable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from food_tasks.confidence import DEFAULT_ITERS, MIN_UNITS, Z80, Z95, wilson  # noqa: F401  (public here too)

Record = Mapping[str, Any]
SEED = 20241104  # fixed: every figure is reproducible; paired resamples share it


@dataclass(frozen=True)
class Estimate:
    """A metric's standard error and the sample behind it.

    Attributes:
        se: standard error on the metric's scale; None when it cannot be estimated (fewer than two clusters,
            bootstrap turned off for a statistic that needs it).
        n: documents in the metric's denominator; clusters: independent units among them.
        method: ``"clustered"`` (analytic, clusters of documents), ``"iid"`` (analytic, one document per
            cluster), ``"bootstrap"`` (cluster bootstrap), or ``"none"``.
    """

    se: float | None
    n: int
    clusters: int
    method: str


class Estimator:
    """Per-document sufficient statistics of a metric (``rows``) and the value they give (``combine``)."""

    linear = False

    def rows(self, records: Sequence[Record]) -> np.ndarray:  # pragma: no cover - interface
        raise NotImplementedError

    def combine(self, sums: np.ndarray) -> np.ndarray:  # pragma: no cover - interface
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

    def __init__(self, num: Callable[[Record], float | None], den: Callable[[Record], float] | None = None, scale: float = 1.0,
                 binary: bool = False, keep_nonfinite: bool = False) -> None:  # fmt: skip
        """``keep_nonfinite``: a NaN or infinite value counts (and makes the value NaN or infinite, as a reducer
        summing it would); by default only None leaves a document out, and a non-finite value does too."""
        self.num, self.den, self.scale, self.binary, self.keep_nonfinite = num, den, scale, binary, keep_nonfinite

    def rows(self, records: Sequence[Record]) -> np.ndarray:
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
            den = np.array([float(self.den(r)) if c else 0.0 for r, c in zip(records, counted)], dtype=float).reshape(len(records))
        return np.stack([np.where(counted, num, 0.0), den], axis=1)

    def combine(self, sums: np.ndarray) -> np.ndarray:
        num, den = sums[..., 0], sums[..., 1]
        with np.errstate(invalid="ignore", divide="ignore"):
            return np.where(den > 0, self.scale * num / np.where(den > 0, den, 1.0), np.nan)

    def counted(self, rows: np.ndarray) -> np.ndarray:
        return rows[:, 1] != 0

    def score(self, record: Record) -> float | None:
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
    groups). A missing key reads as None."""

    names: tuple[str, ...]

    def __init__(self, *names: str) -> None:
        object.__setattr__(self, "names", names)

    def __call__(self, record: Record) -> Hashable:
        if len(self.names) == 1:
            return record.get(self.names[0])
        return tuple(record.get(n) for n in self.names)


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
    do not count. Groups are the ones present in the records."""

    def __init__(self, value: Callable[[Record], float | bool | None], group: Callable[[Record], Hashable], scale: float = 1.0,
                 binary: bool = False) -> None:  # fmt: skip
        self.value, self.group, self.scale, self.binary = value, group, scale, binary
        self._groups: list[Hashable] = []

    def rows(self, records: Sequence[Record], memo: dict | None = None) -> np.ndarray:
        key = ("groups", self.group)
        if memo is not None and key in memo:
            codes, groups = memo[key]
        else:
            index: dict[Hashable, int] = {}
            codes = np.fromiter((index.setdefault(self.group(r), len(index)) for r in records), dtype=np.int64, count=len(records))
            groups = list(index)
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
        g = sums.shape[-1] // 2
        num, den = sums[..., :g], sums[..., g:]
        with np.errstate(invalid="ignore", divide="ignore"):
            cells = np.where(den > 0, num / np.where(den > 0, den, 1.0), np.nan)
        present = den > 0
        count = present.sum(axis=-1)
        total = np.where(present, cells, 0.0).sum(axis=-1)
        return np.where(count > 0, self.scale * total / np.where(count > 0, count, 1), np.nan)

    def counted(self, rows: np.ndarray) -> np.ndarray:
        return np.any(rows[:, rows.shape[1] // 2 :] != 0, axis=1)

    def score(self, record: Record) -> float | None:
        return _num(self.value(record)) if self.binary else None


class Custom(Estimator):
    """Any statistic of column sums: ``rows(records) -> (n, k)``, ``combine(sums (..., k)) -> (...)``.
    ``counted(rows)`` says which documents are in its denominator (default: a non-zero row)."""

    def __init__(self, rows: Callable[[Sequence[Record]], np.ndarray], combine: Callable[[np.ndarray], np.ndarray],
                 counted: Callable[[np.ndarray], np.ndarray] | None = None) -> None:  # fmt: skip
        self._rows, self._combine, self._counted = rows, combine, counted

    def rows(self, records: Sequence[Record]) -> np.ndarray:
        return np.asarray(self._rows(records), dtype=float).reshape(len(records), -1)

    def combine(self, sums: np.ndarray) -> np.ndarray:
        return self._combine(sums)

    def counted(self, rows: np.ndarray) -> np.ndarray:
        return self._counted(rows) if self._counted else super().counted(rows)


@dataclass(frozen=True)
class ratio_combine:  # noqa: N801  (used like a function)
    """``combine`` of a :class:`Custom` estimator whose rows are ``[numerator, denominator]``: ``scale * num / den``."""

    scale: float = 1.0

    def __call__(self, sums: np.ndarray) -> np.ndarray:
        num, den = sums[..., 0], sums[..., 1]
        with np.errstate(invalid="ignore", divide="ignore"):
            return np.where(den > 0, self.scale * num / np.where(den > 0, den, 1.0), np.nan)


# --------------------------------------------------------------------------- clusters and estimates


def cluster_index(clusters: Sequence[Hashable]) -> tuple[np.ndarray, int]:
    """``(inverse, C)``: each document's cluster number (first-seen order) and the number of clusters."""
    index: dict[Hashable, int] = {}
    inverse = np.fromiter((index.setdefault(c, len(index)) for c in clusters), dtype=np.int64, count=len(clusters))
    return inverse, len(index)


def cluster_sums(rows: np.ndarray, inverse: np.ndarray, n_clusters: int) -> np.ndarray:
    """Per-cluster column sums, ``(C, k)``."""
    if rows.shape[1] == 0:
        return np.zeros((n_clusters, 0))
    return np.stack([np.bincount(inverse, weights=rows[:, j], minlength=n_clusters) for j in range(rows.shape[1])], axis=1)


def ratio_se(rows: np.ndarray, inverse: np.ndarray, n_clusters: int, scale: float) -> float | None:
    """Clustered standard error of ``scale * sum(num) / sum(den)`` (linearisation, CR1 factor C/(C-1)).

    With one document per cluster and den 1 it is the CLT standard error ``sd(x) / sqrt(n)`` (ddof 1).
    """
    num, den = rows[:, 0], rows[:, 1]
    total = den.sum()
    counted_clusters = len(np.unique(inverse[den != 0]))
    if total <= 0 or counted_clusters < 2:
        return None
    r = num.sum() / total
    residual = cluster_sums((num - r * den)[:, None], inverse, n_clusters)[:, 0]
    c = counted_clusters
    return float(abs(scale) * math.sqrt(c / (c - 1) * float(np.sum(residual**2))) / total)


def iid_se(estimator: Ratio, records: Sequence[Record]) -> float | None:
    """A ratio's standard error as if every document were independent (the CLT error, ddof 1)."""
    rows = estimator.rows(records)
    return ratio_se(rows, np.arange(len(records)), len(records), estimator.scale)


def bootstrap_weights(n_clusters: int, iters: int, seed: int) -> np.ndarray:
    """``(iters, C)`` multinomial cluster counts: each resample draws C clusters with replacement."""
    rng = np.random.default_rng(seed)
    draws = rng.integers(0, n_clusters, size=(iters, n_clusters))
    offsets = (np.arange(iters) * n_clusters)[:, None]
    return np.bincount((draws + offsets).ravel(), minlength=iters * n_clusters).reshape(iters, n_clusters).astype(float)


def bootstrap(estimator: Estimator, sums: np.ndarray, iters: int, seed: int = SEED) -> np.ndarray:
    """``iters`` resampled values of the estimator from per-cluster sums ``(C, k)`` (chunks bound the memory)."""
    n_clusters = sums.shape[0]
    out = []
    rng = np.random.default_rng(seed)
    chunk = max(1, min(iters, 4_000_000 // max(n_clusters, 1)))
    done = 0
    while done < iters:
        size = min(chunk, iters - done)
        weights = bootstrap_weights(n_clusters, size, int(rng.integers(2**31)))
        out.append(np.asarray(estimator.combine(weights @ sums), dtype=float).reshape(size))
        done += size
    return np.concatenate(out) if out else np.zeros(0)


def estimate(estimator: Estimator, records: Sequence[Record], clusters: Sequence[Hashable], iters: int = DEFAULT_ITERS,
             seed: int = SEED) -> Estimate:  # fmt: skip
    """The standard error of one metric over one task's records (clustered; bootstrap when not a ratio)."""
    rows = estimator.rows(records)
    counted = estimator.counted(rows) if len(records) else np.zeros(0, dtype=bool)
    inverse, n_clusters = cluster_index(clusters)
    n = int(counted.sum())
    c = len(np.unique(inverse[counted])) if n else 0
    method = "clustered" if c < n else "iid"
    if isinstance(estimator, Ratio):
        se = ratio_se(rows, inverse, n_clusters, estimator.scale)
        return Estimate(se, n, c, method if se is not None else "none")
    if iters <= 0 or c < 2:
        return Estimate(None, n, c, "none")
    values = bootstrap(estimator, cluster_sums(rows, inverse, n_clusters), iters, seed)
    values = values[np.isfinite(values)]
    if len(values) < max(2, iters // 2):
        return Estimate(None, n, c, "none")
    return Estimate(float(np.std(values, ddof=1)), n, c, "bootstrap")


@dataclass(frozen=True)
class ClusterSums:
    """One estimator's statistics of one task, summed per cluster: what a group's joint bootstrap needs."""

    sums: np.ndarray  # (C, k), clusters in first-seen order
    counted: np.ndarray  # (C,) bool: the cluster holds a document in the metric's denominator
    n: int  # counted documents


def estimate_many(estimators: Sequence[Estimator], records: Sequence[Record], clusters: Sequence[Hashable],
                  iters: int = DEFAULT_ITERS, seed: int = SEED, keep: dict | None = None) -> list[Estimate]:  # fmt: skip
    """:func:`estimate` of several metrics of one task at once: one cluster index, one set of resamples shared by
    every bootstrap statistic (each estimator object is computed once, however many metrics share it).

    ``keep``: filled with ``{id(estimator): ClusterSums}`` and ``"clusters"``: the cluster ids in index order."""
    inverse, n_clusters = cluster_index(clusters)
    if keep is not None:
        keep["clusters"] = list(dict.fromkeys(clusters))
    unique = list({id(e): e for e in estimators}.values())
    done: dict[int, Estimate] = {}
    boot: list[tuple[Estimator, np.ndarray, int, int]] = []
    memo: dict = {}  # per-document work shared by estimators (a macro mean's groups)
    for est in unique:
        rows = est.rows(records, memo) if isinstance(est, Macro) else est.rows(records)
        counted = est.counted(rows) if len(records) else np.zeros(0, dtype=bool)
        n = int(counted.sum())
        c = len(np.unique(inverse[counted])) if n else 0
        method = "clustered" if c < n else "iid"
        sums = cluster_sums(rows, inverse, n_clusters)
        if keep is not None:
            mask = np.zeros(n_clusters, dtype=bool)
            mask[inverse[counted]] = True
            keep[id(est)] = ClusterSums(sums, mask, n)
        if isinstance(est, Ratio):
            se = ratio_se(rows, inverse, n_clusters, est.scale)
            done[id(est)] = Estimate(se, n, c, method if se is not None else "none")
        elif iters <= 0 or c < 2:
            done[id(est)] = Estimate(None, n, c, "none")
        else:
            boot.append((est, sums, n, c))
    if boot:
        widths = [s.shape[1] for _, s, _, _ in boot]
        stacked = np.concatenate([s for _, s, _, _ in boot], axis=1)
        values: list[list[np.ndarray]] = [[] for _ in boot]
        rng = np.random.default_rng(seed)
        chunk = max(1, min(iters, 4_000_000 // max(n_clusters, 1)))
        drawn = 0
        while drawn < iters:
            size = min(chunk, iters - drawn)
            resampled = bootstrap_weights(n_clusters, size, int(rng.integers(2**31))) @ stacked
            start = 0
            for i, ((est, _, _, _), width) in enumerate(zip(boot, widths)):
                values[i].append(np.asarray(est.combine(resampled[:, start : start + width]), dtype=float).reshape(size))
                start += width
            drawn += size
        for (est, _, n, c), parts in zip(boot, values):
            draws = np.concatenate(parts)
            draws = draws[np.isfinite(draws)]
            ok = len(draws) >= max(2, iters // 2)
            done[id(est)] = Estimate(float(np.std(draws, ddof=1)), n, c, "bootstrap") if ok else Estimate(None, n, c, "none")
    return [done[id(e)] for e in estimators]


# --------------------------------------------------------------------------- paired comparisons and power


@dataclass(frozen=True)
class Comparison:
    """A minus B on the documents both runs scored.

    Attributes:
        diff: A - B (the estimator on the shared documents; on the metric's scale).
        se: standard error of the difference, paired by cluster; None when not estimable.
        low, high: 95 % interval (diff +- 1.96 se); p: two-sided p-value of "no difference" (normal).
        n: shared documents; clusters: shared clusters; mde: the smallest difference this comparison
            detects with 80 % power at 5 % significance (2.80 se).
    """

    diff: float
    se: float | None
    low: float | None
    high: float | None
    p: float | None
    n: int
    clusters: int
    mde: float | None
    method: str

    def verdict(self, higher_is_better: bool = True, a: str = "A", b: str = "B") -> str:
        """``"A > B"``, ``"A < B"`` (the interval excludes 0), ``"no detectable difference"``, ``"undefined"`` (the
        metric is not a number on these documents) or, with fewer than :data:`MIN_UNITS` shared clusters,
        ``"too few independent units to tell (k)"``: the normal interval is not to be trusted there (it can be
        0 wide when every unit agrees, or cross the metric's bounds)."""
        if not math.isfinite(self.diff):
            return "undefined"
        if self.clusters < MIN_UNITS:
            return f"too few independent units to tell ({self.clusters})"
        if self.low is None or self.high is None or (self.low <= 0 <= self.high):
            return "no detectable difference"
        return f"{a} > {b}" if self.diff > 0 else f"{a} < {b}"


def normal_p(z: float) -> float:
    """Two-sided p-value of a standard normal statistic."""
    return math.erfc(abs(z) / math.sqrt(2))


def compare(estimator: Estimator, records_a: Sequence[Record], records_b: Sequence[Record], clusters: Sequence[Hashable],
            iters: int = DEFAULT_ITERS, seed: int = SEED) -> Comparison:  # fmt: skip
    """Paired comparison of two runs' records of the same documents (same order, same clusters).

    Ratios: the difference of the two linearised ratios, clustered (analytic). Others: the same cluster
    resamples applied to both runs (paired bootstrap).
    """
    rows_a, rows_b = estimator.rows(records_a), estimator.rows(records_b)
    inverse, n_clusters = cluster_index(clusters)
    sums_a, sums_b = cluster_sums(rows_a, inverse, n_clusters), cluster_sums(rows_b, inverse, n_clusters)
    diff = float(estimator.combine(sums_a.sum(0)) - estimator.combine(sums_b.sum(0)))
    n, c = len(records_a), n_clusters
    se: float | None = None
    method = "none"
    if isinstance(estimator, Ratio):
        ta, tb = rows_a[:, 1].sum(), rows_b[:, 1].sum()
        if ta > 0 and tb > 0 and c >= 2:
            ra, rb = rows_a[:, 0].sum() / ta, rows_b[:, 0].sum() / tb
            e = (rows_a[:, 0] - ra * rows_a[:, 1]) / ta - (rows_b[:, 0] - rb * rows_b[:, 1]) / tb
            per_cluster = cluster_sums(e[:, None], inverse, n_clusters)[:, 0]
            se = float(abs(estimator.scale) * math.sqrt(c / (c - 1) * float(np.sum(per_cluster**2))))
            method = "clustered paired" if c < n else "paired"
    elif iters > 0 and c >= 2:
        weights = bootstrap_weights(c, iters, seed)
        diffs = np.asarray(estimator.combine(weights @ sums_a), dtype=float) - np.asarray(estimator.combine(weights @ sums_b), dtype=float)
        diffs = diffs[np.isfinite(diffs)]
        if len(diffs) >= max(2, iters // 2):
            se, method = float(np.std(diffs, ddof=1)), "paired bootstrap"
    if se is None or not math.isfinite(diff):
        return Comparison(diff, None, None, None, None, n, c, None, method)
    p = normal_p(diff / se) if se > 0 else (1.0 if diff == 0 else 0.0)
    return Comparison(diff, se, diff - Z95 * se, diff + Z95 * se, p, n, c, (Z95 + Z80) * se, method)


def mde(se: float | None, paired: bool = False) -> float | None:
    """Smallest difference detectable with 80 % power at 5 % two-sided significance.

    ``paired=True``: ``se`` is already the standard error of a difference. Otherwise ``se`` is one run's, and the
    comparison is taken against an independent run with the same standard error (``sqrt(2) * se``): a paired
    comparison on the same documents usually does better, since the two models' errors correlate.
    """
    if se is None or not math.isfinite(se):
        return None
    return (Z95 + Z80) * se * (1.0 if paired else math.sqrt(2.0))


def interval(value: float, se: float | None) -> tuple[float, float] | None:
    """The 95 % normal interval ``value +- 1.96 se``."""
    return None if se is None or not math.isfinite(value) else (value - Z95 * se, value + Z95 * se)


def seed_for(*parts: str) -> int:
    """A reproducible seed per metric (and task), derived from :data:`SEED`."""
    return (SEED + zlib.crc32("/".join(parts).encode("utf-8"))) % 2**31
