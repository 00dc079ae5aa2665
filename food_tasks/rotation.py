"""Option rotation (circular evaluation) and answer-position bias, for any multiple-choice benchmark.

CircularEval (VLMEvalKit, MMBench: Liu et al. 2023, arXiv:2307.06281) asks every question once per rotation of
its options and counts it answered only when every rotation is right. Here:

* :func:`expand` turns a benchmark's documents into one document per rotation (``process_docs``): the benchmark
  rotates its own options and remaps its gold answer (``rotate_doc``); each copy carries ``rotation`` (the shift:
  option ``i`` of the copy is option ``(i + rotation) % n`` of the original), ``rotations`` (how many copies its
  question has) and ``item`` (the original document's key). Rotation offsets are spread evenly over the ``n``
  positions; :data:`ROTATIONS_ENV` lowers their number (every question keeps at least 2).
* :func:`with_rotation` copies those three fields into the per-document record a benchmark's scorer returns.
* :class:`CircularRatio` gives ``circular_acc`` (share of questions right in every rotation) and
  ``rotation_mean_acc`` (mean over questions of the share of their rotations right) as per-document sufficient
  statistics (:mod:`food_tasks.stats`): the question's whole value sits on its first rotation, so a resample of
  clusters resamples questions (never single rotations) and ``n`` counts questions.
* :func:`position_bias` and :func:`position_bias_p` compare the positions a model chose with the gold positions of
  the same documents (answers that could not be read leave both): shares per position, and the chi-square
  goodness-of-fit p-value of the chosen counts against the gold distribution (:func:`scipy.stats.chisquare`). The
  test treats documents as independent; rotations or languages of one question are not, so read the p-value as a
  screen, the shares (and ``circular_acc``) as the finding.

A benchmark states how to read a record's chosen and gold positions with :class:`position` (picklable).
"""

from __future__ import annotations

import math
import os
from collections.abc import Callable, Hashable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from food_tasks import stats
from food_tasks.data import DataSettingError
from food_tasks.hooks import Metric

Record = Mapping[str, Any]
ROTATIONS_ENV = "FOOD_TASKS_ROTATIONS"
FIELDS = ("item", "rotation", "rotations")


def rotations_setting() -> int | None:
    """The number of rotations asked per question (``$FOOD_TASKS_ROTATIONS``), None for all of them.

    Raises:
        DataSettingError: not an integer of at least 2 (a ``ValueError``; it stops the run before generation).
    """
    value = os.environ.get(ROTATIONS_ENV, "").strip()
    if not value:
        return None
    if not value.isdigit() or int(value) < 2:
        raise DataSettingError(f"{ROTATIONS_ENV}={value!r}: give a whole number of rotations, at least 2 (unset: all)")
    return int(value)


def offsets(n: int, k: int | None = None) -> list[int]:
    """The rotation offsets of an ``n``-option question: all ``n``, or ``k`` of them spread evenly (0 first)."""
    if n < 1:
        raise ValueError(f"a question needs at least one option to rotate, got {n}")
    if k is None or k >= n:
        return list(range(n))
    return sorted({(j * n) // k for j in range(k)})


def rotate(values: Sequence[Any], offset: int) -> list[Any]:
    """The options of rotation ``offset``: position ``i`` holds ``values[(i + offset) % n]``."""
    n = len(values)
    return [values[(i + offset) % n] for i in range(n)] if n else []


def rotated_gold(gold: int, offset: int, n: int) -> int:
    """The position (0-based) of the original option ``gold`` after rotation ``offset``."""
    return (gold - offset) % n


def expand(
    docs: Iterable[dict],
    n_options: Callable[[dict], int],
    rotate_doc: Callable[[dict, int], dict],
    item: Callable[[dict], Hashable],
    k: int | None = None,
) -> list[dict]:
    """One document per rotation of each document's options, in document order then rotation order.

    Args:
        docs: the benchmark's documents (plain dicts).
        n_options: the number of options of a document (the positions that rotate).
        rotate_doc: ``rotate_doc(doc, offset)``: a new document with options rotated by ``offset`` (see
            :func:`rotate`), the gold answer remapped (:func:`rotated_gold`) and its prompt rebuilt by the
            benchmark's own prompt builder; it must not change ``doc``.
        item: the original document's key (a string: the samples file shows it).
        k: rotations per question (None: :func:`rotations_setting`, then all).
    """
    k = rotations_setting() if k is None else k
    out = []
    for doc in docs:
        shifts = offsets(n_options(doc), k)
        key = str(item(doc))
        for offset in shifts:
            out.append({**rotate_doc(doc, offset), "item": key, "rotation": offset, "rotations": len(shifts)})
    return out


def with_rotation(score: Callable[[Mapping[str, Any], Any], dict]) -> Callable[[Mapping[str, Any], Any], dict]:
    """A scorer whose records also carry the document's ``item``, ``rotation`` and ``rotations``."""

    def scored(doc: Mapping[str, Any], output: Any) -> dict:
        return {**score(doc, output), **{name: doc[name] for name in FIELDS}}

    scored.__qualname__ = getattr(score, "__qualname__", "scored")
    return scored


# --------------------------------------------------------------------------- circular accuracy


def _questions(records: Sequence[Record], correct: Callable[[Record], float | None]) -> dict[str, tuple[int, float]]:
    """``{item: (index of its first rotation's record, share of rotations right)}`` for the questions whose every
    rotation is present and counted (``correct`` not None)."""
    seen: dict[str, dict[int, float | None]] = {}
    first: dict[str, tuple[int, int]] = {}
    for i, r in enumerate(records):
        item, rotation = r["item"], int(r["rotation"])
        seen.setdefault(item, {})[rotation] = correct(r)
        if item not in first or rotation < first[item][0]:
            first[item] = (rotation, i)
    out = {}
    for item, values in seen.items():
        wanted = int(records[first[item][1]]["rotations"])
        if len(values) == wanted and all(v is not None for v in values.values()):
            out[item] = (first[item][1], sum(float(v) for v in values.values()) / wanted)  # type: ignore[arg-type]
    return out


class CircularRatio(stats.Ratio):
    """``circular_acc`` (``all_right=True``) or ``rotation_mean_acc`` per question, as a ratio whose numerator and
    denominator sit on each question's first rotation (its other rotations add zeros): the clustered analytic
    standard error then resamples questions, or coarser clusters that hold whole questions."""

    def __init__(self, correct: Callable[[Record], float | None], all_right: bool, scale: float = 1.0) -> None:
        super().__init__(correct, None, scale)
        self.correct, self.all_right = correct, all_right

    def rows(self, records: Sequence[Record]) -> np.ndarray:
        """``(numerator, 1)`` on each complete question's first rotation, ``(0, 0)`` on every other record."""
        out = np.zeros((len(records), 2))
        for index, share in _questions(records, self.correct).values():
            out[index] = (float(share == 1.0) if self.all_right else share, 1.0)
        return out

    def score(self, record: Record) -> float | None:
        """None: a rotation has no score of its own."""
        return None

    def value(self, records: Sequence[Record]) -> float:
        """The metric over ``records`` (NaN without a complete question)."""
        total = self.rows(records).sum(axis=0)
        return float(self.scale * total[0] / total[1]) if total[1] > 0 else math.nan


def circular_metrics(correct: Callable[[Record], float | None]) -> tuple[Metric, Metric]:
    """``circular_acc`` and ``rotation_mean_acc`` of a circular task, with their estimators (in percent, as every
    accuracy of every benchmark)."""
    metrics = []
    for name, all_right in (("circular_acc", True), ("rotation_mean_acc", False)):
        estimator = CircularRatio(correct, all_right, 100.0)
        metrics.append(Metric(name, estimator.value, scale="percent", estimator=estimator))
    return metrics[0], metrics[1]


# --------------------------------------------------------------------------- position bias


@dataclass(frozen=True)
class position:  # noqa: N801  (used like a function: position("parsed", base=1))
    """A picklable reader of a 0-based option position from a record: ``record[name]`` as an int less ``base``,
    or its index in ``labels`` (letters); None when absent, unreadable or ``record[unless]`` is truthy."""

    name: str
    base: int = 0
    labels: tuple[str, ...] = ()
    unless: str | None = None

    def __call__(self, record: Record) -> int | None:
        if self.unless is not None and record.get(self.unless):
            return None
        value = record.get(self.name)
        if value is None or isinstance(value, bool):
            return None
        if self.labels:
            return self.labels.index(value) if value in self.labels else None
        try:
            return int(value) - self.base
        except (TypeError, ValueError):
            return None


def position_counts(
    records: Sequence[Record], chosen: Callable[[Record], int | None], gold: Callable[[Record], int | None]
) -> tuple[dict[int, int], dict[int, int]]:
    """Chosen and gold positions counted over the documents that have both."""
    picks: dict[int, int] = {}
    golds: dict[int, int] = {}
    for r in records:
        c, g = chosen(r), gold(r)
        if c is None or g is None:
            continue
        picks[c] = picks.get(c, 0) + 1
        golds[g] = golds.get(g, 0) + 1
    return picks, golds


def chi_square_p(observed: Mapping[int, int], expected: Mapping[int, int]) -> float:
    """Chi-square goodness-of-fit p-value of ``observed`` counts against the distribution of ``expected`` counts
    (same total), over the positions either holds. A position chosen but never gold gives 0; fewer than two
    positions, NaN."""
    from scipy.stats import chisquare

    keys = sorted(set(observed) | set(expected))
    if len(keys) < 2:
        return math.nan
    obs = [observed.get(k, 0) for k in keys]
    exp = [expected.get(k, 0) for k in keys]
    if any(e == 0 and o > 0 for o, e in zip(obs, exp)):
        return 0.0
    kept = [(o, e) for o, e in zip(obs, exp) if e > 0]
    if len(kept) < 2:
        return math.nan
    return float(chisquare([o for o, _ in kept], [e for _, e in kept]).pvalue)


def position_bias(
    records: Sequence[Record],
    chosen: Callable[[Record], int | None],
    gold: Callable[[Record], int | None],
    labels: Sequence[str],
) -> dict[str, dict[str, float]]:
    """Per option position (labelled with the benchmark's labels): how many answers chose it and how many gold
    answers sit there, as counts and percent of the documents with a readable answer."""
    picks, golds = position_counts(records, chosen, gold)
    total = sum(picks.values())
    out = {}
    for pos in sorted(set(picks) | set(golds)):
        label = labels[pos] if 0 <= pos < len(labels) else str(pos + 1)
        out[label] = {
            "chosen": picks.get(pos, 0),
            "gold": golds.get(pos, 0),
            "chosen_share": 100.0 * picks.get(pos, 0) / total,
            "gold_share": 100.0 * golds.get(pos, 0) / total,
        }
    return out


def position_bias_p(
    records: Sequence[Record], chosen: Callable[[Record], int | None], gold: Callable[[Record], int | None]
) -> float:
    """Chi-square p-value of the chosen positions against the gold positions (:func:`chi_square_p`)."""
    return chi_square_p(*position_counts(records, chosen, gold))


@dataclass(frozen=True)
class _Bias:
    chosen: Callable[[Record], int | None]
    gold: Callable[[Record], int | None]
    labels: tuple[str, ...]

    def breakdown(self, records: Sequence[Record]) -> dict[str, dict[str, float]]:
        """The ``position_bias`` breakdown: how often each option position is chosen and is gold."""
        return position_bias(records, self.chosen, self.gold, self.labels)

    def p(self, records: Sequence[Record]) -> float:
        """``position_bias_p``: chi-square p-value of the chosen positions against the gold positions."""
        return position_bias_p(records, self.chosen, self.gold)


def position_metrics(
    chosen: Callable[[Record], int | None], gold: Callable[[Record], int | None], labels: Sequence[str]
) -> tuple[Metric, Metric]:
    """``position_bias`` (a breakdown per position) and ``position_bias_p`` (a p-value: a diagnostic, no standard
    error) of any multiple-choice task: computed from the records, no extra generation."""
    bias = _Bias(chosen, gold, tuple(labels))
    return (Metric("position_bias", bias.breakdown, scale="breakdown"), Metric("position_bias_p", bias.p, scale="info"))
