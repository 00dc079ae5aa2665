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
  statistics (:mod:`food_tasks.stats.uncertainty`): the question's whole value sits on its first rotation, so a
  resample of clusters resamples questions (never single rotations) and ``n`` counts questions.
* :func:`position_bias` and :func:`position_bias_p` compare the positions a model chose with the gold positions of
  the same documents (answers that could not be read leave both): shares per position, and the p-value of a
  chi-square test of homogeneity of the chosen and gold counts (:func:`chi_square_p`; Monte Carlo below Cochran's
  rule). The test treats documents as independent; rotations or languages of one question are not, so
  read the p-value as a screen, the shares, ``position_rstd`` (RStd, :class:`RecallSpread`, with a clustered
  bootstrap error) and ``circular_acc`` as the finding.

A benchmark states how to read a record's chosen and gold positions with :class:`position` (picklable), and
its ``_circular`` tasks with one :class:`Circular` (``CIRCULAR`` in its hook module), from which
:func:`food_tasks.tasks.taskgen.circular_task` generates each rotated task out of its base task.
"""

from __future__ import annotations

import math
import os
from collections.abc import Callable, Hashable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from functools import partial
from typing import Any

import numpy as np

from food_tasks.data.hub import DataSettingError, stop_run_on_data_error
from food_tasks.hooks.convention import Metric, MetricTable, results_hook
from food_tasks.stats import uncertainty as stats

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


def rotate_spans(text: str, spans: Sequence[tuple[str, int, int]], offset: int) -> str:
    """``text`` with the option texts at ``spans`` (``(label, start, end)``, in order, as
    :func:`food_tasks.hooks.parsing.option_spans` finds them) rotated by ``offset`` (:func:`rotate`); labels,
    punctuation, spacing and every other character stay byte-exact."""
    texts = rotate([text[start:end] for _, start, end in spans], offset)
    out, last = [], 0
    for (_, start, end), option in zip(spans, texts):
        out += [text[last:start], option]
        last = end
    return "".join(out) + text[last:]


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


class Circular:
    """How a benchmark rotates its options: declared once, as ``CIRCULAR`` in its hook module
    (``utils/<bench>.py``, beside the base tasks' ``process_docs``).

    A ``_circular`` task is generated from its base task (:func:`food_tasks.tasks.taskgen.circular_task`): it declares
    ``metadata: rotation_of: <base task>``, reads its documents through the hook ``<base process_docs>_circular``
    (``docs_large_1a_circular = CIRCULAR.docs(docs_large_1a)``: :meth:`docs`) and scores with
    ``process_results_circular = CIRCULAR.process_results``.

    Args:
        expand: ``expand(dataset) -> dataset``: the base task's documents (a ``datasets.Dataset``), one per
            rotation of each one's options (the benchmark's ``circular.expand``, built on :func:`expand`).
        score: the base task's per-document scorer (``score(doc, output) -> record``).
        table: the rotated tasks' metric table: the base task's metrics that are defined over rotations, plus
            :func:`circular_metrics`.
    """

    def __init__(
        self, expand: Callable[[Any], Any], score: Callable[[Mapping[str, Any], Any], dict], table: MetricTable
    ):
        self.expand = expand
        self.table = table
        self.process_results = results_hook(with_rotation(score), table)

    def docs(self, base: Callable[[Any], Any]) -> Callable[[Any], Any]:
        """The ``process_docs`` of a rotated task: ``base`` (its base task's), then :attr:`expand`."""
        return partial(_rotated_docs, self.expand, base)


@stop_run_on_data_error
def _rotated_docs(expand: Callable[[Any], Any], base: Callable[[Any], Any], dataset: Any) -> Any:
    """The base task's documents, one per rotation of each one's options (a data error stops the run)."""
    return expand(base(dataset))


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


MIN_EXPECTED, MIN_EXPECTED_SHARE = 5.0, 0.8  # Cochran's rule: expected >= 5 in 80 % of the cells ...
MIN_EXPECTED_ANY = 1.0  # ... and none below 1
SIMULATED = 9999  # Monte Carlo tables below Cochran's rule: p-values from 1e-4 up
NOT_TESTABLE = "absent: not testable"  # position_bias_p on fewer than two positions (a reason follows)


def chi_square_p(observed: Mapping[int, int], expected: Mapping[int, int]) -> float | str:
    """p-value of the chi-square test of homogeneity of the 2 x k table of ``observed`` (chosen) and ``expected``
    (gold) counts per position, over the positions either holds: valid where a position holds no gold answer (a
    goodness-of-fit test divides by an expected count of 0 there and gives p = 0).

    Where the table meets Cochran's rule (expected counts of at least 5 in 80 % of the cells, none below 1) the
    p-value is the asymptotic one (:func:`scipy.stats.chi2_contingency`, no continuity correction); below it, the
    Monte Carlo conditional test (R's ``chisq.test(simulate.p.value = TRUE)``): :data:`SIMULATED` tables with the
    same margins (:func:`scipy.stats.random_table`, seeded: the same counts give the same p), p = (1 + tables at
    least as extreme) / (1 + tables), so never below 1e-4. With fewer than two positions, or no answers, it gives
    :data:`NOT_TESTABLE` and the reason (the package's ``"absent: <reason>"`` value), never a number.

    The two rows count the same documents; the test treats them as independent samples, which makes it
    conservative when the model is mostly right."""
    from scipy.stats import chi2_contingency, random_table
    from scipy.stats.contingency import expected_freq

    keys = sorted(k for k in set(observed) | set(expected) if observed.get(k, 0) or expected.get(k, 0))
    table = np.array([[observed.get(k, 0) for k in keys], [expected.get(k, 0) for k in keys]], dtype=np.int64)
    if not table[0].sum():
        return f"{NOT_TESTABLE}: no answer could be read"
    if len(keys) < 2:
        return f"{NOT_TESTABLE}: answers and gold answers on fewer than two positions"
    cells = expected_freq(table)
    if cells.min() >= MIN_EXPECTED_ANY and (cells < MIN_EXPECTED).sum() <= (1 - MIN_EXPECTED_SHARE) * cells.size:
        return float(chi2_contingency(table, correction=False).pvalue)
    drawn = random_table(table.sum(axis=1), table.sum(axis=0), seed=np.random.default_rng(stats.SEED)).rvs(SIMULATED)
    statistic = float(((table - cells) ** 2 / cells).sum())
    simulated = ((drawn - cells) ** 2 / cells).sum(axis=(1, 2))
    return float((1 + np.count_nonzero(simulated >= statistic * (1 - 1e-9))) / (1 + SIMULATED))


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
) -> float | str:
    """p-value of the chosen positions against the gold positions (:func:`chi_square_p`), or why not testable."""
    return chi_square_p(*position_counts(records, chosen, gold))


class RecallSpread(stats.Estimator):
    """RStd (Zheng et al. 2024, "Large Language Models Are Not Robust Multiple Choice Selectors",
    arXiv:2309.03882): the standard deviation (population, ddof 0) over option positions of the recall of each
    position, in percent. A position's recall is the share of the documents whose gold answer sits there that the
    model answered right; an answer that could not be read is a miss (as accuracy counts it); positions holding no
    gold answer have no recall and stay out. NaN with fewer than two such positions.

    Per-document statistics ``[right at position j (k columns), gold at position j (k columns)]``: a cluster
    bootstrap (:mod:`food_tasks.stats.uncertainty`) gives its standard error on the accuracy's clusters. Documents
    without a gold position, or with one outside the ``k`` positions, are not counted."""

    skewed = True  # a standard deviation of a few recalls: its 95 % interval is the percentile bootstrap's

    def __init__(self, chosen: Callable[[Record], int | None], gold: Callable[[Record], int | None], k: int) -> None:
        self.chosen, self.gold, self.k = chosen, gold, k

    def rows(self, records: Sequence[Record]) -> np.ndarray:
        """``(n, 2k)``: a 1 at the document's gold position in the second half, and in the first when right."""
        out = np.zeros((len(records), 2 * self.k))
        for i, r in enumerate(records):
            g = self.gold(r)
            if g is None or not 0 <= g < self.k:
                continue
            out[i, self.k + g] = 1.0
            out[i, g] = float(self.chosen(r) == g)
        return out

    def combine(self, sums: np.ndarray) -> np.ndarray:
        """RStd in percent from column sums ``(..., 2k)`` (NaN below two positions holding gold answers)."""
        sums = np.asarray(sums, dtype=float)
        hits, golds = sums[..., : self.k], sums[..., self.k :]
        present = golds > 0
        recall = np.where(present, hits / np.where(present, golds, 1.0), 0.0)
        m = present.sum(axis=-1)
        mean = recall.sum(axis=-1) / np.maximum(m, 1)
        var = np.where(present, (recall - mean[..., None]) ** 2, 0.0).sum(axis=-1) / np.maximum(m, 1)
        return np.where(m >= 2, 100.0 * np.sqrt(var), np.nan)

    def value(self, records: Sequence[Record]) -> float:
        """RStd over ``records`` (the metric's reported value)."""
        return float(self.combine(self.rows(records).sum(axis=0)))


@dataclass(frozen=True)
class _Bias:
    chosen: Callable[[Record], int | None]
    gold: Callable[[Record], int | None]
    labels: tuple[str, ...]

    def breakdown(self, records: Sequence[Record]) -> dict[str, dict[str, float]]:
        """The ``position_bias`` breakdown: how often each option position is chosen and is gold."""
        return position_bias(records, self.chosen, self.gold, self.labels)

    def p(self, records: Sequence[Record]) -> float | str:
        """``position_bias_p``: chi-square p-value of the chosen positions against the gold positions."""
        return position_bias_p(records, self.chosen, self.gold)


def position_metrics(
    chosen: Callable[[Record], int | None], gold: Callable[[Record], int | None], labels: Sequence[str]
) -> tuple[Metric, Metric, Metric]:
    """``position_bias`` (a breakdown per position), ``position_bias_p`` (a p-value: a diagnostic, no standard
    error) and ``position_rstd`` (RStd, :class:`RecallSpread`, lower is better, with its clustered bootstrap error)
    of any multiple-choice task: computed from the records, no extra generation. Recomputations from files use the
    same functions (:func:`position_bias_p`, :class:`RecallSpread`)."""
    bias = _Bias(chosen, gold, tuple(labels))
    spread = RecallSpread(chosen, gold, len(labels))
    return (
        Metric("position_bias", bias.breakdown, scale="breakdown"),
        Metric("position_bias_p", bias.p, scale="info"),
        Metric("position_rstd", spread.value, higher_is_better=False, scale="percent", estimator=spread),
    )
