"""Uncertainty of our metrics: clustered standard errors, a vectorised cluster bootstrap, paired comparisons, power.

Method: E. Miller, "Adding Error Bars to Evals: A Statistical Approach to Language Model Evaluations"
(arXiv:2411.00640, 2024): a score is an estimate of the mean over a population of questions; report its
standard error (CLT), cluster it when questions share a context (the same dish photographed once, asked
in 30 languages), compare models on the questions both answered (paired differences), and plan for the
smallest difference a benchmark can detect.

Every metric is written as a function of **per-document sufficient statistics** (sacrebleu style: the
statistics first, the score second; :mod:`food_tasks.stats.estimators`, re-exported here): an :class:`Estimator`
gives ``rows(records)`` (one row of ``k`` numbers per document) and ``combine(sums)`` (the value from the
column sums), vectorised over leading axes so that a bootstrap evaluates thousands of resamples in one array
operation. Two families:

* :class:`Ratio` (means, rates, micro averages, MAE: ``scale * sum(num) / sum(den)``): analytic standard
  error, clustered (the ratio's linearisation, CR1 small-sample factor ``C / (C - 1)``);
* everything else (macro means over languages, RMSE, F1, BLEU, best-of-templates): a cluster bootstrap,
  resampling whole clusters with replacement, seeded, ``iters`` resamples.

The reported value always comes from the benchmark's own reducer (its official rounding and summation
order); the estimator's ``combine`` of the full sums equals it (tests check every metric), and gives the
standard error, intervals and paired differences. A metric's 95 % interval (:attr:`Estimate.interval`) is normal,
value +- 1.96 SE, where that stays within the statistic's range, else Wilson's for a proportion and the cluster
bootstrap's percentile interval otherwise; a skewed statistic (RStd) always takes the percentile interval
(:mod:`food_tasks.stats.intervals`). A binomial interval (a rate over n independent units, as in the report's
breakdowns) is Wilson's (:func:`wilson`), which behaves at 0/n and n/n. Paired differences keep normal intervals.

Same documents, same numbers: every figure here is a function of the *set* of documents, never of their
order or of how many processes scored them. Clusters are numbered in one canonical order (:func:`canonical`,
a total order over ids of mixed types), so a seed resamples the same clusters whatever order the records came
in; the documents of a cluster are summed in a canonical order of their rows (:func:`cluster_sums`), so the
floating-point sums do not move either.
"""

from __future__ import annotations

import math
import zlib
from collections.abc import Callable, Hashable, Iterator, Sequence
from dataclasses import dataclass
from dataclasses import field as _field

import numpy as np

from food_tasks.stats import intervals
from food_tasks.stats.confidence import DEFAULT_ITERS, MIN_UNITS, TOO_FEW, Z80, Z95, wilson  # noqa: F401  (public here too)
from food_tasks.stats.estimators import (  # noqa: F401  (public here too: callers import them from food_tasks.stats.uncertainty)
    Custom,
    Estimator,
    Macro,
    Ratio,
    Record,
    canonical,
    canonical_unique,
    column,
    field,
    mean,
    ratio_combine,
)
from food_tasks.stats.intervals import Interval

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
        clt: the same estimator's standard error with every document its own cluster (the independent-documents
            figure lmms-eval calls CLT); None when not estimated.
        iters: resamples behind a bootstrap ``se`` (0 for analytic errors and when none was drawn).
        note: why ``se`` is None ("" otherwise).
        interval: the 95 % interval within the statistic's range (:mod:`food_tasks.stats.intervals`), None
            without a standard error.
    """

    se: float | None
    n: int
    clusters: int
    method: str
    clt: float | None = None
    iters: int = 0
    note: str = _field(default="", compare=False)
    interval: Interval | None = _field(default=None, compare=False)

    @property
    def clustered(self) -> bool:
        """The error treats clusters of several documents as the independent units."""
        return self.se is not None and self.clusters < self.n


def cluster_index(clusters: Sequence[Hashable]) -> tuple[np.ndarray, int]:
    """``(inverse, C)``: each document's cluster number and the number of clusters. Clusters are numbered in
    canonical order (:func:`canonical`), so the same seed resamples the same clusters whatever the order of the
    documents."""
    clusters = list(clusters)
    rank = {c: i for i, c in enumerate(canonical_unique(clusters))}
    return np.fromiter((rank[c] for c in clusters), dtype=np.int64, count=len(clusters)), len(rank)


def joint_index(cluster_lists: Sequence[Sequence[Hashable]]) -> tuple[list[np.ndarray], int]:
    """:func:`cluster_index` of several tasks' documents at once (a group: the same dish in several tasks is one
    cluster): each list's cluster numbers in one canonical numbering, and the number of clusters."""
    lists = [list(c) for c in cluster_lists]
    inverse, n_clusters = cluster_index([c for clusters in lists for c in clusters])
    bounds = np.cumsum([0, *(len(c) for c in lists)])
    return [inverse[bounds[i] : bounds[i + 1]] for i in range(len(lists))], n_clusters


def exact(matrix: np.ndarray, terms: int) -> bool:
    """Every entry is a whole number and ``terms`` times the largest stays below 2**53: any sum of up to ``terms``
    entries (times resample counts adding up to at most ``terms``) is exact in float64, so its value does not depend
    on the order of the terms (a sort for canonical order can be skipped, a sparse product gives the dense one's
    bits)."""
    values = matrix[matrix != 0]  # mostly zeros in a macro mean's rows: check the rest
    if values.size == 0:
        return True
    if not np.array_equal(values, np.rint(values)):  # NaN fails here
        return False
    return float(np.max(np.abs(values))) * max(terms, 1) ** 2 < 2.0**53  # infinities fail here


def row_order(rows: np.ndarray, inverse: np.ndarray) -> np.ndarray:
    """The canonical order of documents: by cluster number, then by their rows of statistics (documents that tie
    are interchangeable). Floating-point sums taken in this order are a function of the set of documents."""
    return np.lexsort((*np.asarray(rows).T[::-1], inverse))


def cluster_sums(rows: np.ndarray, inverse: np.ndarray, n_clusters: int) -> np.ndarray:
    """Per-cluster column sums, ``(C, k)``, each cluster's documents added in canonical order (:func:`row_order`)."""
    if rows.shape[1] == 0:
        return np.zeros((n_clusters, 0))
    if not exact(rows, len(rows)):  # whole numbers add up exactly in any order: no need to sort them
        order = row_order(rows, inverse)
        rows, inverse = rows[order], inverse[order]
    return np.stack(
        [np.bincount(inverse, weights=rows[:, j], minlength=n_clusters) for j in range(rows.shape[1])], axis=1
    )


def ratio_se(rows: np.ndarray, inverse: np.ndarray, n_clusters: int, scale: float) -> float | None:
    """Clustered standard error of ``scale * sum(num) / sum(den)`` (linearisation, CR1 factor C/(C-1)).

    With one document per cluster and den 1 it is the CLT standard error ``sd(x) / sqrt(n)`` (ddof 1).
    """
    num, den = rows[:, 0], rows[:, 1]
    sums = cluster_sums(rows, inverse, n_clusters)  # totals over clusters in canonical order
    total = sums[:, 1].sum()
    counted_clusters = len(np.unique(inverse[den != 0]))
    if total <= 0 or counted_clusters < 2:
        return None
    r = sums[:, 0].sum() / total
    residual = cluster_sums((num - r * den)[:, None], inverse, n_clusters)[:, 0]
    c = counted_clusters
    return float(abs(scale) * math.sqrt(c / (c - 1) * float(np.sum(residual**2))) / total)


def iid_se(estimator: Ratio, records: Sequence[Record]) -> float | None:
    """A ratio's standard error as if every document were independent (the CLT error, ddof 1)."""
    rows = estimator.rows(records)
    rows = rows[row_order(rows, np.zeros(len(rows), dtype=np.int64))]
    return ratio_se(rows, np.arange(len(records)), len(records), estimator.scale)


def bootstrap_weights(n_clusters: int, iters: int, seed: int) -> np.ndarray:
    """``(iters, C)`` multinomial cluster counts: each resample draws C clusters with replacement."""
    rng = np.random.default_rng(seed)
    draws = rng.integers(0, n_clusters, size=(iters, n_clusters))
    weights = np.empty((iters, n_clusters))
    for i, row in enumerate(draws):  # a count per resample: no (iters * C) index array to build and bincount
        weights[i] = np.bincount(row, minlength=n_clusters)
    return weights


def _product(matrix: np.ndarray, n_units: int) -> Callable[[np.ndarray], np.ndarray]:
    """``weights -> weights @ matrix`` for resample counts of ``n_units`` units; a mostly-zero matrix of whole
    numbers (a macro mean's rows: 2 non-zeros in 2 x groups columns) goes through scipy.sparse, whose sums are then
    exact, so equal to the dense product's bit for bit."""
    if matrix.size and np.count_nonzero(matrix) < 0.2 * matrix.size and exact(matrix, n_units):
        from scipy import sparse  # deferred: importing scipy costs every run that draws nothing

        transposed = sparse.csr_matrix(matrix.T)
        # C order, as the dense product: a combine's sums over columns then add in the same order
        return lambda weights: np.ascontiguousarray(np.asarray(transposed @ np.ascontiguousarray(weights.T)).T)
    return lambda weights: weights @ matrix


def weight_chunks(n_units: int, iters: int, seed: int) -> Iterator[np.ndarray]:
    """:func:`bootstrap_weights` of ``iters`` resamples of ``n_units`` units, in chunks that bound the memory;
    the same seed gives the same resamples to every caller."""
    rng = np.random.default_rng(seed)
    chunk = max(1, min(iters, 4_000_000 // max(n_units, 1)))
    drawn = 0
    while drawn < iters:
        size = min(chunk, iters - drawn)
        yield bootstrap_weights(n_units, size, int(rng.integers(2**31)))
        drawn += size


def bootstrap(estimator: Estimator, sums: np.ndarray, iters: int, seed: int = SEED) -> np.ndarray:
    """``iters`` resampled values of the estimator from per-cluster sums ``(C, k)`` (chunks bound the memory)."""
    chunks = weight_chunks(sums.shape[0], iters, seed)
    product = _product(sums, sums.shape[0])
    out = [np.asarray(estimator.combine(product(w)), dtype=float).reshape(len(w)) for w in chunks]
    return np.concatenate(out) if out else np.zeros(0)


def resample(
    parts: Sequence[tuple[Estimator, np.ndarray, np.ndarray]], n_units: int, iters: int, seed: int = SEED
) -> np.ndarray:
    """Each part's value on the same ``iters`` resamples of ``n_units`` units: ``(iters, len(parts))``.

    A part is ``(estimator, units, sums)``: ``sums[i]`` holds the column sums of the estimator's rows in unit
    ``units[i]`` (distinct unit numbers, as :func:`joint_index` gives them); a unit a part lacks adds nothing to it.
    Groups (one part per task) and paired comparisons (one part per run) resample this way."""
    out = []
    # a part whose units are a run of consecutive numbers (the documents of one task) takes a view, not a copy
    spans = [slice(int(u[0]), int(u[-1]) + 1) if len(u) and np.all(np.diff(u) == 1) else u for _, u, _ in parts]
    products = [_product(sums, n_units) for _, _, sums in parts]
    for weights in weight_chunks(n_units, iters, seed):
        values = [
            np.asarray(est.combine(product(weights[:, span])), dtype=float).reshape(len(weights))
            for (est, _, _), span, product in zip(parts, spans, products)
        ]
        out.append(np.stack(values, axis=1) if values else np.zeros((len(weights), 0)))
    return np.concatenate(out) if out else np.zeros((0, len(parts)))


def spread(draws: np.ndarray, iters: int) -> float | None:
    """The bootstrap standard error of resampled values: their SD over the finite ones, None when fewer than
    half of the resamples give a number."""
    draws = draws[np.isfinite(draws)]
    return float(np.std(draws, ddof=1)) if len(draws) >= max(2, iters // 2) else None


def estimate(
    estimator: Estimator,
    records: Sequence[Record],
    clusters: Sequence[Hashable],
    iters: int = DEFAULT_ITERS,
    seed: int = SEED,
) -> Estimate:
    """The standard error of one metric over one task's records (clustered; bootstrap when not a ratio)."""
    return estimate_many([estimator], records, clusters, iters, seed)[0]


@dataclass(frozen=True)
class ClusterSums:
    """One estimator's statistics of one task, summed per cluster: what a group's joint bootstrap needs."""

    sums: np.ndarray  # (C, k), clusters in canonical order (keep["clusters"])
    counted: np.ndarray  # (C,) bool: the cluster holds a document in the metric's denominator
    n: int  # counted documents


def _few(c: int) -> str:
    return f"fewer than 2 independent units ({c})"


def _stacked_draws(
    estimators: Sequence[Estimator], sums: Sequence[np.ndarray], n_units: int, iters: int, seed: int
) -> list[np.ndarray]:
    """Each estimator's ``iters`` resampled values, every estimator on the same resamples (one product per chunk)."""
    widths = [s.shape[1] for s in sums]
    product = _product(np.concatenate(sums, axis=1), n_units)
    values: list[list[np.ndarray]] = [[] for _ in estimators]
    for weights in weight_chunks(n_units, iters, seed):
        resampled = product(weights)
        start = 0
        for i, (est, width) in enumerate(zip(estimators, widths)):
            value = est.combine(resampled[:, start : start + width])
            values[i].append(np.asarray(value, dtype=float).reshape(len(weights)))
            start += width
    return [np.concatenate(v) if v else np.zeros(0) for v in values]


def estimate_many(
    estimators: Sequence[Estimator],
    records: Sequence[Record],
    clusters: Sequence[Hashable],
    iters: int = DEFAULT_ITERS,
    seed: int = SEED,
    keep: dict | None = None,
) -> list[Estimate]:
    """:func:`estimate` of several metrics of one task at once: one cluster index, one set of resamples shared by
    every bootstrap statistic (each estimator object is computed once, however many metrics share it). Each
    estimate also carries the independent-documents figure (``clt``: the same estimator, every document its own
    cluster). Every figure is a function of the set of (record, cluster) pairs, not of their order.

    ``keep``: filled with ``{id(estimator): ClusterSums}`` and ``"clusters"``: the cluster ids in index order."""
    inverse, n_clusters = cluster_index(clusters)
    if keep is not None:
        keep["clusters"] = canonical_unique(clusters)
    unique = list({id(e): e for e in estimators}.values())
    memo: dict = {}  # per-document work shared by estimators (a macro mean's groups)
    all_rows = [est.rows(records, memo) if isinstance(est, Macro) else est.rows(records) for est in unique]
    # One canonical order of the documents for every estimator (by cluster, then by all their statistics): sums
    # within a cluster, and the independent-documents resamples, do not depend on the order the records came in.
    order = row_order(np.concatenate(all_rows, axis=1) if all_rows else np.zeros((len(records), 0)), inverse)
    inverse = inverse[order]
    n_docs = len(records)
    documents = np.arange(n_docs)
    done: dict[int, Estimate] = {}
    boot: list[tuple[Estimator, np.ndarray, np.ndarray, int, int]] = []
    for est, rows in zip(unique, all_rows):
        rows = rows[order]
        counted = est.counted(rows) if n_docs else np.zeros(0, dtype=bool)
        n = int(counted.sum())
        c = len(np.unique(inverse[counted])) if n else 0
        sums = cluster_sums(rows, inverse, n_clusters)
        if keep is not None:
            mask = np.zeros(n_clusters, dtype=bool)
            mask[inverse[counted]] = True
            keep[id(est)] = ClusterSums(sums, mask, n)
        if isinstance(est, Ratio):
            se = ratio_se(rows, inverse, n_clusters, est.scale)
            clt = se if n_clusters == n_docs else ratio_se(rows, documents, n_docs, est.scale)
            method = ("clustered" if c < n else "iid") if se is not None else "none"
            ci = _ratio_interval(est, rows, sums, se, c, iters, seed)
            done[id(est)] = Estimate(se, n, c, method, clt, 0, "" if se is not None else _few(c), ci)
        elif iters <= 0 or c < 2:
            note = "bootstrap turned off (0 resamples)" if iters <= 0 else _few(c)
            done[id(est)] = Estimate(None, n, c, "none", note=note)
        else:
            boot.append((est, rows, sums, n, c))
    if boot:
        ests = [b[0] for b in boot]
        clustered = _stacked_draws(ests, [b[2] for b in boot], n_clusters, iters, seed)
        # With one document per cluster the two are the same resamples (documents in cluster order).
        if n_clusters == n_docs:
            independent = clustered
        else:
            independent = _stacked_draws(ests, [b[1] for b in boot], n_docs, iters, seed)
        for (est, rows, sums, n, c), draws, draws_iid in zip(boot, clustered, independent):
            se, clt = spread(draws, iters), spread(draws_iid, iters)
            if se is None:
                done[id(est)] = Estimate(None, n, c, "none", clt, note="fewer than half of the resamples give a number")
            else:
                value = float(np.asarray(est.combine(sums.sum(0)), dtype=float))
                ci = intervals.of_estimator(est, rows, value, se, c, draws, iters)
                done[id(est)] = Estimate(se, n, c, "bootstrap", clt, iters, interval=ci)
    return [done[id(e)] for e in estimators]


def _ratio_interval(
    est: Ratio, rows: np.ndarray, sums: np.ndarray, se: float | None, units: int, iters: int, seed: int
) -> Interval | None:
    """A ratio's 95 % interval (:func:`food_tasks.stats.intervals.of_estimator`): normal within its range, else Wilson
    for a proportion, else the percentile of a cluster bootstrap drawn here (only then)."""
    if se is None:
        return None
    value = float(np.asarray(est.combine(sums.sum(0)), dtype=float))
    return intervals.of_estimator(est, rows, value, se, units, None, iters, lambda: bootstrap(est, sums, iters, seed))


def describe(est: Estimate, noun: str = "clusters") -> str:
    """How ``est.se`` was computed, in a few words (the results JSON's ``<metric>_stderr_method``); ``noun``: what
    a cluster is, in the plural ("dishes")."""
    if est.se is None:
        return f"not estimated: {est.note}" if est.note else "not estimated"
    if est.method == "bootstrap":
        if est.clustered:
            return f"cluster bootstrap, {est.iters} resamples, {est.clusters} {noun}"
        return f"bootstrap over independent documents, {est.iters} resamples"
    if est.clustered:
        return f"clustered analytic (CR1), {est.clusters} {noun}"
    return "independent documents (CLT)"


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
        :data:`TOO_FEW` (the unit count is printed beside it): the normal interval is not to be trusted there (it
        can be 0 wide when every unit agrees, or cross the metric's bounds)."""
        if not math.isfinite(self.diff):
            return "undefined"
        if self.clusters < MIN_UNITS:
            return TOO_FEW
        if self.low is None or self.high is None or (self.low <= 0 <= self.high):
            return "no detectable difference"
        return f"{a} > {b}" if self.diff > 0 else f"{a} < {b}"

    def few_note(self) -> str:
        """The warning of a comparison on fewer than :data:`MIN_UNITS` independent units ("" with enough)."""
        if self.clusters >= MIN_UNITS:
            return ""
        return f"only {self.n} shared documents in {self.clusters} independent units (clusters)"


def normal_p(z: float) -> float:
    """Two-sided p-value of a standard normal statistic."""
    return math.erfc(abs(z) / math.sqrt(2))


def compare(
    estimator: Estimator,
    records_a: Sequence[Record],
    records_b: Sequence[Record],
    clusters: Sequence[Hashable],
    iters: int = DEFAULT_ITERS,
    seed: int = SEED,
) -> Comparison:
    """Paired comparison of two runs' records of the same documents (same order, same clusters).

    Ratios: the difference of the two linearised ratios, clustered (analytic). Others: the same cluster
    resamples applied to both runs (paired bootstrap).
    """
    rows_a, rows_b = estimator.rows(records_a), estimator.rows(records_b)
    inverse, n_clusters = cluster_index(clusters)
    # every sum below is a cluster_sums, taken in canonical order: a function of the set of document pairs
    sums_a, sums_b = cluster_sums(rows_a, inverse, n_clusters), cluster_sums(rows_b, inverse, n_clusters)
    diff = float(estimator.combine(sums_a.sum(0)) - estimator.combine(sums_b.sum(0)))
    n, c = len(records_a), n_clusters
    se: float | None = None
    method = "none"
    if isinstance(estimator, Ratio):
        ta, tb = sums_a[:, 1].sum(), sums_b[:, 1].sum()
        if ta > 0 and tb > 0 and c >= 2:
            ra, rb = sums_a[:, 0].sum() / ta, sums_b[:, 0].sum() / tb
            e = (rows_a[:, 0] - ra * rows_a[:, 1]) / ta - (rows_b[:, 0] - rb * rows_b[:, 1]) / tb
            per_cluster = cluster_sums(e[:, None], inverse, n_clusters)[:, 0]
            se = float(abs(estimator.scale) * math.sqrt(c / (c - 1) * float(np.sum(per_cluster**2))))
            method = "clustered paired" if c < n else "paired"
    elif iters > 0 and c >= 2:
        units = np.arange(c)
        values = resample([(estimator, units, sums_a), (estimator, units, sums_b)], c, iters, seed)
        se = spread(values[:, 0] - values[:, 1], iters)
        method = "paired bootstrap" if se is not None else "none"
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
