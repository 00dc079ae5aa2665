"""Does the model agree with itself? Cross-lingual consistency and context sensitivity, from per-document records.

No extra generation: every measure is computed from the records a run already keeps, clustered like the
headline metrics (:mod:`food_tasks.stats.uncertainty`), with analytic clustered standard errors (every measure here is a
mean of per-unit values, so :func:`food_tasks.stats.uncertainty.ratio_se` applies).

A benchmark says how to read its records with a :class:`View` (which item a document asks, in which
language, whether it is right, which option it chose, its cluster ...), declared on its metric table
(``MetricTable(..., consistency=View(...))``). Two families of measures:

* **Cross-lingual consistency** over the documents that ask one item in several languages:
  :func:`all_correct` (share of items answered correctly in every language present), :func:`agreement`
  (multiple choice: share of items where every language chose the same option, right or wrong),
  :func:`gap_to_reference` (per language, the paired difference to the reference language on the items
  both answered) and :func:`gap_by_status` (the same difference pooled over the languages, by a status of
  the document such as "options translated or not"). Items answered in fewer than two languages do not
  count. A task that holds every language computes them as its own metrics (:class:`ItemRatio` is their
  estimator); where each language is a task of its own (``View.family`` set), :func:`run_statistics`
  pools the tasks of one run and writes them into the row of each task whose language is not the reference.
* **Context sensitivity** across the tasks of one group that ask the same unit (a dish, in one language)
  without context, with a correct hint and with a misleading one (``View.context``): :func:`context_sensitivity`
  gives ``misled_rate`` (right without context, wrong when misled, over the units right without context) and
  ``hint_gain`` (wrong without context, right with the hint, over the units wrong without context), also on
  the units whose two documents show the same image (``View.image``); and the misled rate's control,
  ``context_loss_rate`` (right without context, wrong with the *correct* hint) and ``misled_excess`` (the misled
  rate minus that loss on the units asked with both hints, paired per unit, clustered).

Every statistic is a function of the set of records: records are grouped by item and sorted canonically
before anything is summed. :func:`measures` computes all of them from several tasks' records read back
from files (``food-tasks report`` / ``compare``).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Hashable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from loguru import logger

from food_tasks.stats import uncertainty as stats
from food_tasks.stats.intervals import CUT, NORMAL, Interval, choose, value_bounds

Record = Mapping[str, Any]
Reader = Callable[[Record], Any]

NO_CONTEXT, HINT, MISLEADING = "none", "hint", "misleading"  # the values View.context returns
DIFFERENCES = frozenset({"misled_excess"})  # context measures that are differences of two shares (points)
# The direction of the measures computed across tasks, which no metric_list declares (lmms-eval reads
# higher_is_better from a task's metric_list): the context measures of a group (run_statistics) and a task's
# answerable_without_image (food_tasks.lmms.errorbars.finish; its image_gain has the direction of the task's headline
# metric). True: higher is better, False: lower is better, None: neither (the share of the benchmark answerable
# without the image says more of the benchmark than of the model). food_tasks.lmms.results_table.directions applies it.
HIGHER_IS_BETTER: dict[str, bool | None] = {
    "misled_rate": False,
    "misled_rate_same_image": False,
    "hint_gain": True,
    "hint_gain_same_image": True,
    "context_loss_rate": False,
    "misled_excess": False,
    "answerable_without_image": None,
}


@dataclass(frozen=True)
class View:
    """How to read one benchmark's per-document records for the consistency measures (picklable callables:
    :class:`food_tasks.stats.uncertainty.column`, :class:`food_tasks.stats.uncertainty.field`, module-level functions).

    Attributes:
        item: the item a document asks, the same in every language (a question id shared by its translations).
        lang: the document's language.
        correct: 1 / 0 (a bool reads as 0/1), or None when the document does not count (image missing).
        cluster: the unit of resampling (as the metric table's ``cluster``).
        choice: the option chosen (multiple choice), None for an unparsed answer; None: no agreement measure.
        status: a summary key per document for :func:`gap_by_status` (None: no such summary).
        reference: the language every other language is compared with.
        family: None when a task holds every language of its items; else the languages live in separate
            tasks and ``family(record)`` names the setting whose tasks are pooled (items are matched within it).
        context: NO_CONTEXT, HINT or MISLEADING for documents of a context-sensitivity group, None otherwise.
        unit: what context sensitivity pairs across tasks (a dish: its documents in one language are paired).
        image: the image a document shows (context sensitivity also reports the pairs that share it).
    """

    item: Reader
    lang: Reader
    correct: Reader
    cluster: Reader
    choice: Reader | None = None
    status: Reader | None = None
    reference: str = "en"
    family: Reader | None = None
    context: Reader | None = None
    unit: Reader | None = None
    image: Reader | None = None


@dataclass(frozen=True)
class Stat:
    """A mean of per-unit values on the metric's scale, its clustered standard error, the sample behind it, and its
    95 % interval within the measure's range (:mod:`food_tasks.stats.intervals`; the normal one when not given)."""

    value: float
    se: float | None
    n: int
    clusters: int
    interval: Interval | None = field(default=None, compare=False)

    def bounds(self) -> Interval | None:
        """The 95 % interval: :attr:`interval`, else the normal one (None without a standard error)."""
        if self.interval is not None:
            return self.interval
        ci = stats.interval(self.value, self.se)
        return Interval(ci[0], ci[1], NORMAL) if ci else None

    def as_dict(self) -> dict[str, Any]:
        """``value``, ``se``, the 95 % interval (``low``, ``high``), ``n`` and ``clusters`` (for a breakdown), and
        ``interval``, the interval's method, where it is not the normal one."""
        ci = self.bounds()
        out = {
            "value": self.value,
            "se": self.se,
            "low": ci.low if ci else None,
            "high": ci.high if ci else None,
            "n": self.n,
            "clusters": self.clusters,
        }
        if ci is not None and ci.method != NORMAL:
            out["interval"] = ci.method
        return out


def _sort_key(value: Hashable) -> tuple[str, str]:
    """A canonical order for ids of any type (numbers, strings, tuples of them)."""
    return (type(value).__name__, repr(value))


def mean_stat(values: Iterable[tuple[Hashable, Hashable, float]], scale: float = 1.0, difference: bool = False) -> Stat:
    """``scale`` x the mean of ``(sort key, cluster, value)`` triples, with its clustered standard error
    (CR1, :func:`food_tasks.stats.uncertainty.ratio_se`); summed in the canonical order of the sort keys. Its 95 %
    interval stays within the measure's range (:func:`food_tasks.stats.intervals.choose`); ``difference``: the values
    are paired differences (a gap to the reference language, ``misled_excess``), within ``-scale..scale``, never a
    proportion's Wilson interval, even where every value happens to be 0."""
    triples = sorted(values, key=lambda t: (_sort_key(t[0]), _sort_key(t[1])))
    if not triples:
        return Stat(math.nan, None, 0, 0)
    rows = np.array([[v, 1.0] for _, _, v in triples], dtype=float)
    inverse, n_clusters = stats.cluster_index([c for _, c, _ in triples])
    value = float(scale * rows[:, 0].sum() / rows[:, 1].sum())
    se = stats.ratio_se(rows, inverse, n_clusters, scale)
    bounds = value_bounds([v for _, _, v in triples], scale, difference)
    binary = not difference and all(v in (0.0, 1.0) for _, _, v in triples)  # a 0-wide share at 0 or 100 %: Wilson
    ci = choose(value, se, bounds, n_clusters, binary=binary)
    if ci is not None and ci.method == CUT and n_clusters >= 2:  # outside its range, not a proportion: percentile
        sums = stats.cluster_sums(rows, inverse, n_clusters)
        draws = stats.bootstrap(stats.Ratio(_never, scale=scale), sums, stats.DEFAULT_ITERS)
        ci = choose(value, se, bounds, n_clusters, draws, stats.DEFAULT_ITERS)
    return Stat(value, se, len(triples), n_clusters, ci)


# --------------------------------------------------------------------------- items across languages


@dataclass(frozen=True)
class Item:
    """One item's counted documents, by language (several documents of one language: all of them count)."""

    key: Hashable
    cluster: Hashable
    langs: dict[Hashable, list[Record]]


def items(records: Sequence[Record], view: View) -> list[Item]:
    """The items of ``records`` (documents whose ``correct`` is None left out), in canonical order."""
    found: dict[Hashable, dict[Hashable, list[Record]]] = {}
    clusters: dict[Hashable, set] = {}
    for record in records:
        if view.correct(record) is None:
            continue
        key = view.item(record)
        found.setdefault(key, {}).setdefault(view.lang(record), []).append(record)
        clusters.setdefault(key, set()).add(view.cluster(record))
    # An item's documents share one cluster in every benchmark we ship; if not, the smallest id stands for all.
    return [Item(key, min(clusters[key], key=_sort_key), found[key]) for key in sorted(found, key=_sort_key)]


def _right(view: View, records: Sequence[Record]) -> float:
    return sum(float(view.correct(r)) for r in records) / len(records)


def item_value(item: Item, view: View, what: str) -> float | None:
    """``all_correct`` (1 when every document of every language is right) or ``agreement`` (1 when every
    document chose the same option, an unparsed answer agreeing with nothing); None below two languages."""
    if len(item.langs) < 2:
        return None
    docs = [r for key in sorted(item.langs, key=_sort_key) for r in item.langs[key]]
    if what == "all_correct":
        return float(all(float(view.correct(r)) == 1.0 for r in docs))
    if what == "agreement":
        if view.choice is None:
            return None
        choices = [view.choice(r) for r in docs]
        return float(choices[0] is not None and all(c == choices[0] for c in choices))
    raise ValueError(f"unknown item measure {what!r}")


def item_units(records: Sequence[Record], view: View, what: str) -> list[tuple[Hashable, Hashable, float]]:
    """``(item, cluster, value)`` of every item of ``records`` asked in two languages at least (:func:`item_value`):
    the units ``xling_all_correct`` / ``xling_agreement`` average, during a run and when two runs are compared."""
    values = ((it.key, it.cluster, item_value(it, view, what)) for it in items(records, view))
    return [(k, c, v) for k, c, v in values if v is not None]


def _item_stat(records: Sequence[Record], view: View, what: str, scale: float) -> Stat:
    return mean_stat(item_units(records, view, what), scale)


def all_correct(records: Sequence[Record], view: View, scale: float = 100.0) -> float:
    """Share of items (asked in at least two languages) answered correctly in every language present."""
    return _item_stat(records, view, "all_correct", scale).value


def agreement(records: Sequence[Record], view: View, scale: float = 100.0) -> float:
    """Share of items (asked in at least two languages) where every language chose the same option."""
    return _item_stat(records, view, "agreement", scale).value


def _paired(rows: list[tuple[Hashable, Hashable, float, float]], scale: float) -> dict[str, Any]:
    """``(key, cluster, right in the language, right in the reference)`` rows: the difference and both accuracies."""
    stat = mean_stat(((k, c, x - b) for k, c, x, b in rows), scale, difference=True)
    acc, reference = (
        scale * math.fsum(col) / len(rows) for col in ([x for _, _, x, _ in rows], [b for _, _, _, b in rows])
    )
    return stat.as_dict() | {"acc": acc, "acc_reference": reference}


def gap_to_reference(records: Sequence[Record], view: View, scale: float = 100.0) -> dict[str, dict[str, Any]]:
    """Per language other than the reference, on the items both answered: ``value`` = accuracy in the language
    minus accuracy in the reference (paired per item, clustered interval), ``acc`` and ``acc_reference``."""
    per_lang: dict[Hashable, list[tuple[Hashable, Hashable, float, float]]] = {}
    for it, lang, docs, base in _beside_reference(records, view):
        per_lang.setdefault(lang, []).append((it.key, it.cluster, _right(view, docs), base))
    out = {}
    for lang in sorted(per_lang, key=_sort_key):
        out[str(lang)] = _paired(per_lang[lang], scale)
    return out


def gap_by_status(records: Sequence[Record], view: View, scale: float = 100.0) -> dict[str, dict[str, Any]]:
    """Per value of ``view.status`` (of the non-reference document): the paired difference to the reference
    pooled over every (item, language) pair with that status, clustered interval, ``acc`` and ``acc_reference``."""
    if view.status is None:
        return {}
    pooled: dict[str, list[tuple[Hashable, Hashable, float, float]]] = {}
    for it, lang, docs, base in _beside_reference(records, view):
        for record in docs:
            pooled.setdefault(str(view.status(record)), []).append(
                ((it.key, lang), it.cluster, float(view.correct(record)), base)
            )
    out = {}
    for status in sorted(pooled):
        out[status] = _paired(pooled[status], scale)
    return out


def _beside_reference(records: Sequence[Record], view: View) -> Iterator[tuple[Any, Hashable, Any, float]]:
    """(item, language, its documents, the item's result in the reference language) for every language other than
    the reference of every item the reference answered (:func:`gap_to_reference`, :func:`gap_by_status`)."""
    for it in items(records, view):
        ref = it.langs.get(view.reference)
        if ref is None:
            continue
        base = _right(view, ref)
        for lang, docs in it.langs.items():
            if lang != view.reference:
                yield it, lang, docs, base


def _never(record: Record) -> None:  # pragma: no cover - ItemRatio computes its own rows
    return None


class ItemRatio(stats.Ratio):
    """The estimator of :func:`all_correct` / :func:`agreement`: each item's value sits on one of its
    documents (the others count 0 / 0), so the clustered ratio error resamples items within their clusters."""

    def __init__(self, view: View, what: str, scale: float = 100.0) -> None:
        super().__init__(_never, scale=scale, binary=True)  # 0/1 per item (a 0-wide interval at 0 %: Wilson's)
        self.view, self.what = view, what

    def rows(self, records: Sequence[Record]) -> np.ndarray:
        """``(value, 1)`` on the first document of each item with a value, ``(0, 0)`` on every other document."""
        out = np.zeros((len(records), 2))
        position = {id(r): i for i, r in enumerate(records)}
        for it in items(records, self.view):
            value = item_value(it, self.view, self.what)
            if value is None:
                continue
            first = it.langs[min(it.langs, key=_sort_key)]
            out[min(position[id(r)] for r in first)] = (value, 1.0)
        return out

    def score(self, record: Record) -> float | None:
        """None: an item measure has no per-document score."""
        return None


# --------------------------------------------------------------------------- context sensitivity


def context_rows(records: Sequence[Record], view: View) -> dict[str, list[tuple[Hashable, Hashable, float]]]:
    """The ``(unit, cluster, value)`` rows behind :func:`context_sensitivity`, by measure name (a paired
    comparison of two runs pairs them by unit); absent measures are left out."""
    if view.context is None or view.unit is None:
        return {}
    by_role: dict[str, dict[Hashable, list[Record]]] = {}
    for record in records:
        role = view.context(record)
        if role is not None and view.correct(record) is not None:
            by_role.setdefault(role, {}).setdefault((view.unit(record), view.lang(record)), []).append(record)
    base = by_role.get(NO_CONTEXT, {})
    out: dict[str, list[tuple[Hashable, Hashable, float]]] = {}
    for name, role, right_first in (("misled_rate", MISLEADING, 1.0), ("hint_gain", HINT, 0.0)):
        other = by_role.get(role)
        if not base or not other:
            continue
        for suffix, same_image in (("", False), ("_same_image", True)):
            if same_image and view.image is None:
                continue
            rows = []
            for unit in base.keys() & other.keys():
                first, then = base[unit], other[unit]
                if same_image and {view.image(r) for r in first} != {view.image(r) for r in then}:
                    continue
                if _right(view, first) != right_first:
                    continue
                right = _right(view, then)
                rows.append((unit, view.cluster(first[0]), 1.0 - right if role == MISLEADING else right))
            out[name + suffix] = rows
    out.update(_control_rows(base, by_role.get(HINT, {}), by_role.get(MISLEADING, {}), view))
    return out


def _control_rows(
    base: Mapping[Hashable, list[Record]],
    hint: Mapping[Hashable, list[Record]],
    misled: Mapping[Hashable, list[Record]],
    view: View,
) -> dict[str, list[tuple[Hashable, Hashable, float]]]:
    """The misled rate's control, over the units right without context: ``context_loss_rate`` (wrong with the
    correct hint: the answers that change whatever the context says) and, on the units asked with both hints,
    ``misled_excess`` (wrong when misled minus wrong with the correct hint, paired per unit: what the misleading
    hint adds to that instability)."""
    out: dict[str, list[tuple[Hashable, Hashable, float]]] = {}
    if not base or not hint:
        return out
    right_first = [unit for unit in base.keys() & hint.keys() if _right(view, base[unit]) == 1.0]
    out["context_loss_rate"] = [(u, view.cluster(base[u][0]), 1.0 - _right(view, hint[u])) for u in right_first]
    if misled:
        out["misled_excess"] = [
            (u, view.cluster(base[u][0]), _right(view, hint[u]) - _right(view, misled[u]))
            for u in right_first
            if u in misled
        ]
    return out


def context_sensitivity(records: Sequence[Record], view: View, scale: float = 100.0) -> dict[str, Stat]:
    """``misled_rate`` and ``hint_gain`` (and ``_same_image`` variants), ``context_loss_rate`` and ``misled_excess``
    over units asked without context and with a misleading / correct hint; a unit is ``(view.unit, view.lang)``.
    Absent measures are left out."""
    found = context_rows(records, view).items()
    return {name: mean_stat(rows, scale, difference=name in DIFFERENCES) for name, rows in found}


# --------------------------------------------------------------------------- runs


def view_of(table: Any) -> View | None:
    """The consistency view a metric table declares (``MetricTable(..., consistency=View(...))``), or None."""
    view = getattr(table, "consistency", None)
    return view if isinstance(view, View) else None


def family_measures(records: Sequence[Record], view: View, scale: float = 100.0) -> dict[str, Any]:
    """Cross-lingual measures of records pooled from tasks of one family: ``xling_all_correct``,
    ``xling_agreement`` (multiple choice) as :class:`Stat`, and the ``xling_gap_to_<reference>`` breakdown."""
    out: dict[str, Any] = {"xling_all_correct": _item_stat(records, view, "all_correct", scale)}
    if view.choice is not None:
        out["xling_agreement"] = _item_stat(records, view, "agreement", scale)
    out[f"xling_gap_to_{view.reference}"] = gap_to_reference(records, view, scale)
    return out


def measures(tasks: Mapping[str, Any], groups: Mapping[str, Sequence[str]] | None = None) -> dict[str, dict[str, Any]]:
    """Every cross-task measure of a run, by task or group name: ``tasks`` maps a task name to an object with
    ``.table`` and ``.records`` (:class:`food_tasks.lmms.errorbars.TaskData` during a run, ``RunTask`` from files);
    ``groups`` maps a group name to its leaf tasks (context sensitivity). Values are :class:`Stat` or
    breakdown dicts. Task-level measures (a task holding every language) are the task's own metrics."""
    out: dict[str, dict[str, Any]] = {}
    for group, members in sorted((groups or {}).items()):
        data = [tasks[t] for t in members if t in tasks]
        views = {view_of(d.table) for d in data}
        if len(data) != len(members) or len(views) != 1 or None in views:
            continue
        view = views.pop()
        if view.context is None:
            continue
        found = context_sensitivity([r for d in data for r in d.records], view)
        if found:
            out[group] = dict(found)
    for view, pairs in family_pools(tasks):
        found = family_measures([r for _, r in pairs], view)
        for task in sorted({t for t, r in pairs if view.lang(r) != view.reference}):
            out[task] = found
    return out


def family_pools(tasks: Mapping[str, Any]) -> list[tuple[View, list[tuple[str, Record]]]]:
    """The records of tasks whose languages live in separate tasks (a view with a ``family``), pooled per family
    (view and family value) as ``(task, record)`` pairs, families in canonical order; a family in fewer than two
    languages is left out. ``tasks`` as :func:`measures` takes them (during a run, and from files)."""
    families: dict[tuple[View, Hashable], list[tuple[str, Record]]] = {}
    for task in sorted(tasks):
        view = view_of(tasks[task].table)
        if view is None or view.family is None:
            continue
        for record in tasks[task].records:
            families.setdefault((view, view.family(record)), []).append((task, record))
    return [
        (view, pairs)
        for (view, _), pairs in sorted(families.items(), key=lambda kv: _sort_key(kv[0][1]))
        if len({view.lang(r) for _, r in pairs}) >= 2
    ]


def run_statistics(results: dict, groups: Mapping[str, tuple[Any, Sequence[str]]], tasks: Mapping[str, Any]) -> None:
    """During a run (:func:`food_tasks.lmms.errorbars.finish`): :func:`measures` into the results rows, each measure as
    ``<name>,<filter>`` with ``_stderr``, ``_n`` and ``_clusters`` (breakdowns as one dict). Never raises."""
    try:
        found = measures(tasks, {g: list(members) for g, (_, members) in groups.items()})
    except Exception as err:  # noqa: BLE001 - a diagnostic must never cost the run its numbers
        logger.warning(f"food-tasks: consistency measures skipped ({type(err).__name__}: {err})")
        return
    for name, values in found.items():
        row = results.get(name)
        if not isinstance(row, dict):
            continue
        filter_key = next((k.partition(",")[2] for k in row if "," in str(k)), "none")
        for metric, value in values.items():
            if isinstance(value, Stat):
                row[f"{metric},{filter_key}"] = value.value
                row[f"{metric}_stderr,{filter_key}"] = value.se if value.se is not None else "N/A"
                row[f"{metric}_n,{filter_key}"] = value.n
                row[f"{metric}_clusters,{filter_key}"] = value.clusters
                if value.interval is not None and value.interval.method != NORMAL:  # beside the standard error
                    row[f"{metric}_stderr_ci,{filter_key}"] = value.interval.as_dict()
            else:
                row[f"{metric},{filter_key}"] = value
