"""Agreement between judges, and one judge's agreement with itself, as per-record sufficient statistics.

A judged record carries one verdict code per judge (and per repeat): :data:`CORRECT`, :data:`WRONG`,
:data:`UNREADABLE` (the judge answered, but neither yes nor no could be read), :data:`FAILED` (the call failed after
its retries) or :data:`NOT_ASKED` (nothing to judge, such as an empty answer: scored wrong without a call, the same
for every judge). Each figure is written in the rows -> column sums -> combine shape of
:mod:`food_tasks.stats.estimators` (a ``*_rows`` function and a picklable combine), so
:mod:`food_tasks.stats.uncertainty` gives it a clustered interval on the benchmark's clusters, and its value is the
combine of the full column sums:

* ``agreement``: the share of records on which all judges give the same verdict;
* ``kappa``: Cohen's kappa for two judges (from the summed 2 x 2 confusion table), Fleiss' kappa for three or more
  (from the summed category counts); NaN where the expected agreement is 1 (every verdict in one category);
* ``majority``: the share of records whose majority verdict is "correct" (a tie is left out: :func:`ties`; a record
  no judge was asked about counts, wrong: an accuracy of the model, as the headline ``judge_acc``);
* ``flip``: one judge's share of records whose verdict is not the same in all its repeats (NaN with one repeat).

A record that some judge could not judge (unreadable or failed) is left out of the figures between judges and
counted (:func:`left_out`); a record no judge was asked about (:func:`not_asked`) is wrong in the accuracies
(:func:`accuracy_rows`, :func:`majority_rows`) and in none of the figures between judges (agreement, kappa, flip).
Every combine reads what it needs from the rows themselves (:class:`Kappa`: the judges' number from the rows' width
and their last column), so one combine object serves panels of any size, in any order.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from food_tasks.stats.estimators import ratio_combine

CORRECT, WRONG, UNREADABLE, FAILED, NOT_ASKED = 1, 0, -1, -2, -3


def _codes(codes: np.ndarray) -> np.ndarray:
    out = np.asarray(codes, dtype=np.int64)
    return out.reshape(len(out), -1)


def complete(codes: np.ndarray) -> np.ndarray:
    """``(n,)`` bool: every judge gave a readable verdict (codes ``(n, judges)``)."""
    codes = _codes(codes)
    return np.all(codes >= 0, axis=1) if codes.shape[1] else np.zeros(len(codes), dtype=bool)


def left_out(codes: np.ndarray) -> int:
    """Records asked about on which some judge failed or gave an unreadable verdict (out of the agreement figures)."""
    codes = _codes(codes)
    return int(np.sum(np.any((codes == UNREADABLE) | (codes == FAILED), axis=1)))


def not_asked(codes: np.ndarray) -> int:
    """Records no judge was asked about (an empty answer: wrong without a call, out of the figures between judges)."""
    codes = _codes(codes)
    return int(np.sum(np.all(codes == NOT_ASKED, axis=1))) if codes.shape[1] else 0


def gave_verdict(codes: np.ndarray) -> bool:
    """One judge (codes ``(n,)``) answered at least one call, or was sent none: its accuracy is defined. A judge whose
    every call failed gave no verdict at all: its accuracy is undefined, not the 0 of the records not asked about."""
    codes = np.asarray(codes, dtype=np.int64).reshape(-1)
    return bool(np.any(codes >= UNREADABLE) or not np.any(codes == FAILED))


def accuracy_rows(codes: np.ndarray) -> np.ndarray:
    """One judge's accuracy: ``[correct, judged]`` per record (codes ``(n,)``); a failed call is not judged, an
    unreadable verdict and a record not asked about are judged wrong (the headline ``judge_acc`` rule). All zeros
    (the accuracy is NaN: undefined) where the judge gave no verdict at all (:func:`gave_verdict`)."""
    codes = np.asarray(codes, dtype=np.int64).reshape(-1)
    if not gave_verdict(codes):
        return np.zeros((len(codes), 2))
    return np.stack([(codes == CORRECT).astype(float), (codes != FAILED).astype(float)], axis=1)


def agreement_rows(codes: np.ndarray) -> np.ndarray:
    """``[all judges agree, 1]`` per complete record (:func:`complete`), zeros otherwise; codes ``(n, judges)``."""
    codes = _codes(codes)
    full = complete(codes)
    same = np.all(codes == codes[:, :1], axis=1) if codes.shape[1] else full
    return np.stack([(full & same).astype(float), full.astype(float)], axis=1)


def kappa_rows(codes: np.ndarray) -> np.ndarray:
    """Per complete record, zeros otherwise (codes ``(n, judges)``, two or more judges), for :class:`Kappa`. Two
    judges: the one-hot cell of the 2 x 2 confusion table ``[yes-yes, yes-no, no-yes, no-no]`` (first judge first).
    Three or more: :func:`fleiss_rows` of the yes / no counts, then the number of judges (width 5)."""
    codes = _codes(codes)
    full = complete(codes).astype(float)
    if codes.shape[1] == 2:
        a, b = codes[:, 0] == CORRECT, codes[:, 1] == CORRECT
        cells = np.stack([a & b, a & ~b, ~a & b, ~a & ~b], axis=1).astype(float)
        return cells * full[:, None]
    yes = np.sum(codes == CORRECT, axis=1)
    rows = fleiss_rows(np.stack([yes, codes.shape[1] - yes], axis=1))
    return np.concatenate([rows, np.full((len(codes), 1), float(codes.shape[1]))], axis=1) * full[:, None]


def fleiss_rows(counts: np.ndarray) -> np.ndarray:
    """``[n_1 .. n_K, sum of n_k**2, 1]`` per record, from its ``(n, K)`` counts of raters per category."""
    counts = np.asarray(counts, dtype=float)
    return np.concatenate([counts, np.sum(counts**2, axis=1, keepdims=True), np.ones((len(counts), 1))], axis=1)


def kappa_combine() -> Kappa:
    """The combine of :func:`kappa_rows`, whatever the number of judges (it is in the rows)."""
    return Kappa()


def _kappa(observed: np.ndarray, expected: np.ndarray, total: np.ndarray) -> np.ndarray:
    with np.errstate(invalid="ignore", divide="ignore"):
        value = (observed - expected) / (1 - expected)
    return np.where((total > 0) & (expected < 1 - 1e-12), value, np.nan)


@dataclass(frozen=True)
class Cohen:
    """Cohen's kappa from the summed 2 x 2 confusion table ``[yes-yes, yes-no, no-yes, no-no]``; NaN without records
    or where the expected agreement is 1."""

    def __call__(self, sums: np.ndarray) -> np.ndarray:
        yy, yn, ny, nn = (np.asarray(sums, dtype=float)[..., i] for i in range(4))
        total = yy + yn + ny + nn
        with np.errstate(invalid="ignore", divide="ignore"):
            first, second = (yy + yn) / total, (yy + ny) / total
            return _kappa((yy + nn) / total, first * second + (1 - first) * (1 - second), total)


@dataclass(frozen=True)
class Fleiss:
    """Fleiss' kappa of ``raters`` raters per record from the column sums of :func:`fleiss_rows`; NaN without records
    or where the expected agreement is 1."""

    raters: float | np.ndarray

    def __call__(self, sums: np.ndarray) -> np.ndarray:
        sums = np.asarray(sums, dtype=float)
        k, n = sums.shape[-1] - 2, np.asarray(self.raters, dtype=float)
        totals, squares, records = sums[..., :k], sums[..., k], sums[..., k + 1]
        with np.errstate(invalid="ignore", divide="ignore"):
            observed = (squares - records * n) / (records * n * (n - 1))
            expected = np.sum((totals / (records * n)[..., None]) ** 2, axis=-1)
        return _kappa(observed, expected, records)


@dataclass(frozen=True)
class Kappa:
    """The combine of :func:`kappa_rows` of any panel: width 4, :class:`Cohen` of the two judges' table; width 5,
    :class:`Fleiss` with the number of judges from the last column (its sum over the records' count)."""

    def __call__(self, sums: np.ndarray) -> np.ndarray:
        sums = np.asarray(sums, dtype=float)
        if sums.shape[-1] == 4:
            return Cohen()(sums)
        records = sums[..., -2]
        with np.errstate(invalid="ignore", divide="ignore"):
            raters = np.where(records > 0, sums[..., -1] / np.where(records > 0, records, 1), np.nan)
        return Fleiss(raters)(sums[..., :-1])


def majority_rows(codes: np.ndarray) -> np.ndarray:
    """``[majority says correct, 1]`` per complete record without a tie, ``[0, 1]`` per record no judge was asked
    about (wrong: every judge would say no), zeros otherwise; codes ``(n, judges)``."""
    codes = _codes(codes)
    full = complete(codes)
    yes = np.sum(codes == CORRECT, axis=1)
    no = codes.shape[1] - yes
    empty = np.all(codes == NOT_ASKED, axis=1) if codes.shape[1] else np.zeros(len(codes), dtype=bool)
    counted = (full & (yes != no)) | empty
    return np.stack([(counted & (yes > no)).astype(float), counted.astype(float)], axis=1)


def ties(codes: np.ndarray) -> int:
    """Complete records on which as many judges say correct as wrong (out of the majority's accuracy)."""
    codes = _codes(codes)
    yes = np.sum(codes == CORRECT, axis=1)
    return int(np.sum(complete(codes) & (2 * yes == codes.shape[1])))


def flip_rows(codes: np.ndarray) -> np.ndarray:
    """One judge's ``[verdict not the same in all repeats, 1]`` per record whose every repeat gave a readable verdict
    (codes ``(n, repeats)``); all zeros (the rate is NaN: undefined) with fewer than two repeats."""
    codes = _codes(codes)
    if codes.shape[1] < 2:
        return np.zeros((len(codes), 2))
    full = complete(codes)
    flips = full & np.any(codes != codes[:, :1], axis=1)
    return np.stack([flips.astype(float), full.astype(float)], axis=1)


RATE = ratio_combine  # combine of the accuracy, agreement, majority and flip rows: ``scale * num / den``


def value(rows: np.ndarray, combine: Callable[[np.ndarray], np.ndarray]) -> float:
    """A figure from its rows: ``combine`` of the column sums (NaN where undefined)."""
    rows = np.asarray(rows, dtype=float)
    return float(combine(rows.sum(axis=0)))
