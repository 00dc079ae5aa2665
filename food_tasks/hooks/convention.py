"""One hook convention for every benchmark: metric declarations, ``process_results`` and aggregation.

A benchmark's hook module (``utils/<bench>.py``, installed as ``food_tasks.utils.<bench>``) declares
each metric once, as a :class:`Metric` (name, reducer over per-document records, higher-is-better,
scale, how groups combine it), in one :class:`MetricTable` per task kind::

    TABLES = {"cls": MetricTable(Metric("acc", scoring.cls_acc), ..., version=1.0), ...}
    process_results_cls = results_hook(scoring.score_cls, TABLES["cls"])

and the YAML generators (:mod:`food_tasks.tasks.taskgen`) write each task's ``metric_list`` from that table.
:func:`results_hook` builds the task's ``process_results``: the backend output always goes through
:func:`food_tasks.hooks.outputs.model_output` (so lmms-eval's failure markers are never scored as an answer),
the benchmark's scorer turns it into one record, and the record is handed to every metric of the table
as a :class:`Payload`. Every metric of every YAML names the same aggregation hook, :func:`aggregate`,
which applies the metric that the payloads carry: one definition, found by grep, for all of them.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Hashable, Iterator, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any, TypeAlias

from food_tasks.hooks import truncation
from food_tasks.hooks.outputs import NoAnswer, model_output
from food_tasks.stats.uncertainty import Estimator, canonical, mean

if TYPE_CHECKING:  # pragma: no cover
    import datasets

# What lmms-eval hands the hooks: one document, a task's documents, and ``lmms_eval_specific_kwargs``.
Doc: TypeAlias = dict[str, Any]
Docs: TypeAlias = "datasets.Dataset"
HookKwargs: TypeAlias = dict[str, Any] | None
Output: TypeAlias = Any  # the model's answer, untrusted: not always a string (food_tasks.hooks.outputs.model_output)
Record = Mapping[str, Any]
Scorer = Callable[[Mapping[str, Any], Any], Record]

# How a group combines a metric over its tasks (see food_tasks.tasks.taskgen.group_metric_list).
GROUP_REDUCTIONS = ("mean", "max", "official", "official_numpy")
# What a metric's number is, for the README tables and the report (one truth per unit).
# Every accuracy and rate is in percent (no "fraction" scale: one scale per kind of number across benchmarks).
SCALES = ("percent", "score", "native", "count", "breakdown", "info")
# Scales whose numbers are no score, so neither higher nor lower is better: more documents, a dict of slices or a
# p-value say nothing of the model's quality (Metric.direction: null in the results JSON, no arrow in the table).
UNDIRECTED = frozenset({"count", "breakdown", "info"})
_UNSET: Any = object()  # a Payload built without its document's key computes it


SCORE_DECIMALS = 4  # a [0, 1] score (an F1, an MRR, Kendall's tau, CTC): as the report's columns show them


@dataclass(frozen=True)
class Metric:
    """One reported metric.

    Attributes:
        name: the metric name in lmms-eval's results (``acc``, ``rationale_macro_f1_official`` ...).
        reduce: reduces the task's per-document records to the reported value (:func:`aggregate` passes them in
            canonical order: by document key, :meth:`MetricTable.in_order`).
        higher_is_better: the direction of a score (what the YAML's ``metric_list`` says); the results JSON and the
            table give :attr:`direction`, which is None for a count, a breakdown or a diagnostic.
        scale: one of :data:`SCALES`: ``percent`` (0-100: every accuracy and rate), ``score`` (a 0-1 statistic
            such as F1, MRR or Kendall tau, or a text-overlap score x 100), ``native`` (units of the data: kcal, g),
            ``count``, ``breakdown`` (a dict per language, condition ...), ``info`` (diagnostics).
        alias_of: for a metric that repeats another under the name shared across benchmarks
            (``parse_fail_rate``), the name it repeats; None otherwise.
        estimator: the metric as per-document sufficient statistics (:mod:`food_tasks.stats.uncertainty`): its standard
            error, ``n``, paired comparisons. None for breakdowns, counts and diagnostics. Must pickle (no
            lambdas: several processes gather payloads); use :func:`food_tasks.stats.uncertainty.field` and module
            functions.
        decimals: the decimals its values are shown with (``food-tasks compare``: as its benchmark's report column
            shows it, 3 for CLIP-S, 4 for an F1 or CTC); None: :attr:`places` says (4 for a [0, 1] score, else 2).
    """

    name: str
    reduce: Callable[[Sequence[Record]], Any]
    higher_is_better: bool = True
    scale: str = "percent"
    alias_of: str | None = None
    estimator: Estimator | None = None
    decimals: int | None = None

    def __post_init__(self) -> None:
        if self.scale not in SCALES:
            raise ValueError(f"metric {self.name}: scale {self.scale!r} is not one of {', '.join(SCALES)}")

    def __call__(self, records: Sequence[Record]) -> Any:
        return self.reduce(records)

    @property
    def direction(self) -> bool | None:
        """True: higher is better, False: lower is better, None: neither (a scale of :data:`UNDIRECTED`)."""
        return None if self.scale in UNDIRECTED else self.higher_is_better

    @property
    def places(self) -> int:
        """The decimals its values are shown with: :attr:`decimals` where declared, else :data:`SCORE_DECIMALS` for a
        [0, 1] score (scale ``score``, its estimator on scale 1: an F1, an MRR, Kendall's tau), else 2."""
        if self.decimals is not None:
            return self.decimals
        return SCORE_DECIMALS if self.scale == "score" and getattr(self.estimator, "scale", None) == 1.0 else 2

    def alias(self, name: str) -> Metric:
        """The same metric under another name (documented as an alias of this one)."""
        return replace(self, name=name, alias_of=self.name)

    def with_estimator(self, estimator: Estimator) -> Metric:
        """The same metric with another standard-error estimator."""
        return replace(self, estimator=estimator)


class MetricTable(Mapping[str, Metric]):
    """The metrics of one task kind, in the order lmms-eval reports them, with the kind's version.

    A mapping from metric name to :class:`Metric` (a Metric is callable on records, so
    ``table["acc"](records)`` gives the value). ``consistency``: a :class:`food_tasks.stats.consistency.View` saying
    how the records read across languages and contexts (the measures computed across tasks), or None.
    ``headline``: the metric the benchmark's report leads with, where that is not the first metric with an
    estimator (a caption benchmark: CIDEr after BLEU-4); :func:`food_tasks.stats.paired.headline_of` reads it.
    """

    def __init__(
        self,
        *metrics: Metric,
        version: float = 1.0,
        key: Callable[[Record], Hashable] | None = None,
        cluster: Callable[[Record], Hashable] | None = None,
        consistency: Any = None,
        headline: str | None = None,
    ) -> None:
        if not metrics:
            raise ValueError("a metric table needs at least one metric")
        if headline is not None and not any(m.name == headline and m.estimator is not None for m in metrics):
            raise ValueError(f"headline {headline!r} is not a metric of the table with an estimator")
        names = [m.name for m in metrics]
        duplicates = sorted({n for n in names if names.count(n) > 1})
        if duplicates:
            raise ValueError(f"metric declared twice: {', '.join(duplicates)}")
        self._metrics = {m.name: m for m in metrics}
        self.version = version
        self.key = key  # a document's identity in a record (paired comparisons match runs on it)
        self.cluster = cluster if cluster is not None else key  # the independent unit (default: the document)
        self.consistency = consistency  # food_tasks.stats.consistency.View: its records across languages and contexts
        self.headline = headline

    def __getitem__(self, name: str) -> Metric:
        return self._metrics[name]

    def __iter__(self) -> Iterator[str]:
        return iter(self._metrics)

    def __len__(self) -> int:
        return len(self._metrics)

    def __repr__(self) -> str:
        return f"MetricTable({', '.join(self._metrics)}; version={self.version})"

    def without(self, *names: str) -> MetricTable:
        """This table less some metrics (same version), e.g. a packaged sample lacks a metric needing a download."""
        unknown = set(names) - set(self._metrics)
        if unknown:
            raise KeyError(f"not in the table: {', '.join(sorted(unknown))}")
        return MetricTable(
            *(m for n, m in self._metrics.items() if n not in names),
            version=self.version,
            key=self.key,
            cluster=self.cluster,
            consistency=self.consistency,
            headline=self.headline if self.headline not in names else None,
        )

    def plus(self, *metrics: Metric) -> MetricTable:
        """This table with more metrics appended (same version)."""
        return MetricTable(
            *self._metrics.values(),
            *metrics,
            version=self.version,
            key=self.key,
            cluster=self.cluster,
            consistency=self.consistency,
            headline=self.headline,
        )

    def doc_key(self, record: Record) -> Hashable:
        """The document's identity (its position-free key), or None without a ``key`` function."""
        return self.key(record) if self.key is not None else None

    def cluster_of(self, record: Record) -> Hashable:
        """The document's cluster (the unit resampled for standard errors)."""
        if self.cluster is not None:
            return self.cluster(record)
        return id(record)  # no key: every document is its own cluster

    @property
    def cluster_noun(self) -> str:
        """What a cluster is, in the plural ("dishes"): the cluster column's ``noun``, else "documents" where the
        document is its own cluster, else the cluster's columns."""
        noun = getattr(self.cluster, "noun", "")
        if noun:
            return noun
        if self.cluster is None or self.cluster is self.key:
            return "documents"
        names = getattr(self.cluster, "names", ())
        return f"clusters ({'+'.join(names)})" if names else "clusters"

    def in_order(self, records: Sequence[Record], keys: Sequence[Hashable] | None = None) -> list[Record]:
        """The records in canonical order: by document key, documents with the same key by their content.

        Reducers sum floating-point numbers in the order they get the records; in this order the value is a
        function of the set of documents, whatever order (and number of processes) they were scored in.
        ``keys``: the records' :meth:`doc_key`, where already at hand (each :class:`Payload` carries its own)."""
        keys = [self.doc_key(r) for r in records] if keys is None else list(keys)
        if not _plain(keys):  # mixed types, floats, None ...: the canonical key of each (exact but slower)
            keys = [canonical(k) for k in keys]
        order = sorted(range(len(records)), key=keys.__getitem__)  # stable: ties stay in input order
        if any(keys[a] == keys[b] for a, b in zip(order, order[1:])):  # the same key twice (or no key): content decides
            content = [_content(r) for r in records]
            order = sorted(range(len(records)), key=lambda i: (keys[i], content[i]))
        return [records[i] for i in order]

    def payloads(self, record: Record, failed: bool = False) -> dict[str, Payload]:
        """What ``process_results`` returns for one document: one :class:`Payload` per metric.

        The samples file (``--log_samples``) shows the whole record once, under the table's first metric;
        each metric's payload shows the document's own score (``{"score": 1.0}``: what lmms-eval's ``--repeats``
        stability metrics read) where the metric has one, else nothing.
        Every payload carries the record for its aggregation; nothing is copied per metric.
        """
        out = {}
        key = self.doc_key(record)  # once per document: every metric's aggregation sorts by it
        for i, (name, metric) in enumerate(self._metrics.items()):
            score = metric.estimator.score(record) if metric.estimator is not None else None
            shown: Mapping[str, Any] = {"score": score} if score is not None else {}
            if i == 0:
                if "score" in record:
                    raise ValueError(
                        "a per-document record may not hold a 'score' field (the samples file shows the "
                        "document's score under that name)"
                    )
                shown = {**record, **shown}
            out[name] = Payload(shown, record, self, name, failed, key)
        return out


class Payload(dict):
    """One metric's per-document value as lmms-eval stores it.

    lmms-eval keeps the value ``process_results`` returns under each metric name, passes the list of them
    to the metric's aggregation, pickles them to gather several processes' documents, and writes them into
    the samples file (``--log_samples``). A Payload is a dict (what the samples file shows, and what
    lmms-eval's own per-document statistics read) that also carries the document's whole record, its
    table and the name of the :class:`Metric` that reduces it, so :func:`aggregate` needs no per-metric hook.
    """

    __slots__ = ("record", "table", "name", "failed", "key")

    def __init__(
        self,
        shown: Mapping[str, Any],
        record: Record,
        table: MetricTable,
        name: str,
        failed: bool = False,
        key: Hashable = _UNSET,
    ) -> None:
        super().__init__(shown)
        self.record = record
        self.table = table
        self.name = name
        self.failed = failed  # the backend gave no answer (food_tasks.hooks.outputs.NoAnswer)
        self.key = table.doc_key(record) if key is _UNSET else key  # the document's key (MetricTable.doc_key)

    @property
    def metric(self) -> Metric:
        """The :class:`Metric` that reduces this payload (looked up in its table by name)."""
        return self.table[self.name]

    def __reduce__(self) -> tuple[type[Payload], tuple[Any, ...]]:
        return (Payload, (dict(self), self.record, self.table, self.name, self.failed, self.key))


def aggregate(items: Sequence[Any]) -> Any:
    """The aggregation hook of every metric of every task: the metric the payloads carry, over their records in
    canonical order (:meth:`MetricTable.in_order`: the value does not depend on the order lmms-eval gathered them).

    Raises:
        TypeError: when the items are not :class:`Payload` objects (a YAML that pairs this aggregation with
            another task's ``process_results``).
    """
    if not items:
        return float("nan")
    first = items[0]
    if not isinstance(first, Payload):
        raise TypeError(
            "food_tasks.hooks.convention.aggregate: the per-document values were not produced by a food_tasks "
            "process_results "
            f"(got {type(first).__name__}); each task's metric_list must come from its own hook module's table"
        )
    records = first.table.in_order([item.record for item in items], [item.key for item in items])
    value = first.metric.reduce(records)
    zero = isinstance(value, (int, float)) and not isinstance(value, bool) and value == 0  # an empty set's fallback
    return math.nan if zero and no_units(first.metric, records) else value


def no_units(metric: Metric, records: Sequence[Record]) -> bool:
    """Whether ``metric`` is a rate (or mean, or score) over zero units on ``records``: its estimator counts no
    document (``<metric>_n`` is 0 in the results JSON: every image unreachable, nothing parsed to compare ...). Its
    value is then undefined (NaN while lmms-eval aggregates, ``null`` in the results file, "undefined" in the table,
    compare and the report), never the 0 a reducer falls back to on an empty set: a network outage must not look
    like a model that scores 0 (a mean length of 0 words either). Counts, breakdowns and a judge's figures (no
    estimator over the samples) keep theirs.
    """
    estimator = metric.estimator
    if estimator is None or not estimator.from_samples:
        return False
    return not bool(estimator.counted(estimator.rows(records)).any()) if records else True


def _plain(keys: Sequence[Hashable]) -> bool:
    """True when the keys sort among themselves exactly as their :func:`food_tasks.stats.uncertainty.canonical` keys
    do, and are equal exactly when those are: all ``str``, all ``int``, or tuples of one length whose every position
    holds only ``str`` or only ``int`` (document keys such as ``(qa_id, lang)``). Exact types only: ``True``, ``1.0``
    and numpy scalars go through :func:`canonical`. Sorting these directly saves a canonical key per record per metric.
    """
    kinds = set(map(type, keys))
    if kinds == {str} or kinds == {int}:
        return True
    if kinds != {tuple} or len(set(map(len, keys))) != 1:
        return False
    return all(set(map(type, position)) in ({str}, {int}) for position in zip(*keys))


def _content(record: Record) -> str:
    """A record's content as one canonical string (the tie-break of :meth:`MetricTable.in_order`)."""
    import json

    try:
        return json.dumps(record, sort_keys=True, ensure_ascii=False, default=repr)
    except (TypeError, ValueError):  # keys of mixed types cannot be sorted
        return repr(sorted(((canonical(k), repr(v)) for k, v in record.items())))


# Every task's table holds this metric (one declaration for all): the percent of outputs that ran out of tokens
# (reasoning never closed, or the whole max_new_tokens used: food_tasks.hooks.truncation). results_hook adds the
# record's ``truncated`` field for a table that holds it.
TRUNCATED_RATE = Metric(
    "truncated_rate",
    truncation.rate,
    higher_is_better=False,
    estimator=mean(truncation.value, scale=100.0, binary=True),
)


def results_hook(
    score: Scorer, table: MetricTable | Callable[[Mapping[str, Any]], MetricTable], tables: Sequence[MetricTable] = ()
) -> Callable:
    """Build a task's ``process_results`` from a benchmark's per-document scorer and its metric table.

    Args:
        score: ``score(doc, output) -> record``. ``output`` is the model's answer as
            :func:`food_tasks.hooks.outputs.model_output` returns it: ``""`` for a failed backend request, and
            possibly not a string (scorers count anything that is not a string as unparseable). A table that
            holds :data:`TRUNCATED_RATE` gets the record with its ``truncated`` field added
            (:func:`food_tasks.hooks.truncation.truncated` of the output).
        table: the task kind's table, or a function of the document that picks it (a benchmark whose
            documents carry their task variant).
        tables: with a function, every table it can pick (read back with a run's files: the report and
            ``food-tasks compare`` find a task's metrics from its ``process_results``).

    Returns:
        ``process_results(doc, results) -> {metric name: Payload}``, with ``.tables`` (the candidate tables).
    """
    pick = table if callable(table) and not isinstance(table, MetricTable) else (lambda doc: table)

    def process_results(doc: Doc, results: Sequence[Any]) -> dict[str, Payload]:
        output = model_output(results)
        chosen, record = pick(doc), score(doc, output)
        if TRUNCATED_RATE.name in chosen:
            record = {**record, truncation.FIELD: truncation.truncated(output)}
        return chosen.payloads(record, failed=isinstance(output, NoAnswer))

    process_results.__doc__ = (
        f"``process_results``: {getattr(score, '__qualname__', score)} scored through model_output."
    )
    process_results.tables = (table,) if isinstance(table, MetricTable) else tuple(tables)  # type: ignore[attr-defined]
    if not process_results.tables:  # type: ignore[attr-defined]
        raise ValueError("results_hook: a table chosen per document needs tables=[every table it can choose]")
    return process_results
