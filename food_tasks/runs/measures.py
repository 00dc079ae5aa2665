"""Beyond accuracy, read back from runs: the image gain of a task over its image-free twin, and paired comparisons of
two runs on the measures that are not plain accuracy (``food-tasks compare``, ``food-tasks report``).

* **Image gain** (MMStar's multi-modal gain, Chen et al. 2024, arXiv:2403.20330): a task and its image-free twin
  (declared in its results file's config, :meth:`food_tasks.runs.run.Run.variant`) score the same documents (the
  twin reads them with the task's own ``process_docs``), so they are paired by document identity; ``image_gain`` is
  the task's headline metric with the image minus without it on the shared documents, clustered like the metric
  (:func:`food_tasks.stats.uncertainty.compare`),
  and ``answerable_without_image`` the image-free score on those documents, with its clustered standard error
  (:func:`food_tasks.lmms.errorbars.paired_gain`, the function a run writes them with). Each model's tasks are paired
  with that model's own twins (:func:`gain_pairs`, in ``compare`` and the report).
* **Measures of two runs** (:data:`MEASURES`): a measure its task's metric table declares with an estimator
  (``circular_acc``, a task's own ``xling_*``) is compared like any metric (:func:`food_tasks.runs.paired.compare_one`);
  one computed across tasks (``xling_*`` pooled over a benchmark's language tasks, ``misled_rate`` / ``hint_gain``
  of a group) is recomputed from both runs' records by the functions a run computes them with
  (:mod:`food_tasks.stats.consistency`) as a mean of per-unit values (an item, a dish in one language), the two means
  compared on the same clusters (:func:`paired_means`). ``position_rstd`` (RStd) is compared like a metric;
  ``position_bias_p`` is a p-value: shown side by side, never differenced.
"""

from __future__ import annotations

from collections.abc import Hashable, Iterable, Sequence
from typing import Any

from food_tasks.lmms.errorbars import ImageGain, RunTask, headline_of, paired_gain
from food_tasks.runs.paired import WHY_NOT_PAIRED, Row, compare_one, from_samples
from food_tasks.runs.run import Run
from food_tasks.stats import consistency
from food_tasks.stats import uncertainty as stats

XLING = ("xling_all_correct", "xling_agreement")
CONTEXT = ("misled_rate", "hint_gain", "misled_rate_same_image", "hint_gain_same_image")
CONTEXT += ("context_loss_rate", "misled_excess")  # the misled rate's control (food_tasks.stats.consistency)
CIRCULAR = ("circular_acc", "rotation_mean_acc")
POSITION = ("position_rstd", "position_bias_p")
MEASURES = (*XLING, *CONTEXT, *CIRCULAR, *POSITION)
LOWER_IS_BETTER = {m for m, higher in consistency.HIGHER_IS_BETTER.items() if higher is False} | {"position_rstd"}
Unit = tuple[Hashable, Hashable, float]  # (unit, cluster, value)


# --------------------------------------------------------------------------- image gain


def twin_pairs(with_run: Run, without_run: Run) -> list[tuple[str, str]]:
    """``(task, image-free twin)``: the image-free tasks of ``without_run`` whose image twin ``with_run`` holds."""
    found = [(without_run.variant(t), t) for t in without_run.tasks]
    return sorted((v[1], twin) for v, twin in found if v is not None and v[0] == "noimage" and v[1] in with_run.tasks)


def gain_pairs(runs: Sequence[Run]) -> list[tuple[Run, Run, str, str]]:
    """``(run with the image, run without it, task, image-free twin)``: each task of ``runs`` paired with its twin
    as ``food-tasks compare`` and the report both pair them. A model's image gain is its own score with the image
    against its own score without it: the twin comes from the task's own run when that run holds it, else from
    another run of the same model (:attr:`Run.model`: results files of one model given separately); runs of
    different models are never paired. Tasks only: a group has no samples file of its own (its tasks are paired
    one by one). A run given twice counts once."""
    unique = list({r.path: r for r in runs}.values())
    out = []
    for run in unique:
        model = run.model
        same = [run] + [r for r in unique if r is not run and r.model == model]
        pairs = [(source, twin_pairs(run, source)) for source in same]
        for task in sorted(run.tasks, key=lambda t: (run.paths.index(run.files.get(t, run.path)), t)):  # file by file
            for source, found in pairs:
                twins = [twin for x, twin in found if x == task]
                if twins:
                    out += [(run, source, task, twin) for twin in twins]
                    break
    return out


def image_gain(
    with_run: Run, without_run: Run, task: str, twin: str, iters: int = stats.DEFAULT_ITERS
) -> ImageGain | None:
    """The image gain of ``task`` (in ``with_run``) over ``twin`` (in ``without_run``); None without both samples
    files, a headline metric, or a shared document (:func:`food_tasks.lmms.errorbars.paired_gain`, as the run writes it
    into the results JSON)."""
    ta, tb = with_run.task(task), without_run.task(twin)
    if ta is None or tb is None or not _gain_from_samples(ta):
        return None
    return paired_gain(ta, tb, task, twin, iters)


def _gain_from_samples(ta: RunTask) -> bool:
    """Whether the task's headline metric can be paired from samples files (not a judge's figure: its verdicts are
    not in them, :func:`food_tasks.runs.paired.from_samples`)."""
    name = headline_of(ta)
    return name is None or from_samples(ta.table.get(name))


# --------------------------------------------------------------------------- measures recomputed from records


def paired_means(
    a: Iterable[Unit], b: Iterable[Unit], scale: float, iters: int, seed: int, pair_units: bool
) -> stats.Comparison:
    """Mean of ``a``'s per-unit values minus ``b``'s (``scale`` x), clustered, the same clusters for both runs.

    ``pair_units``: only the units both runs have count (an item answered in several languages by both); otherwise
    each run keeps its own units (``misled_rate`` counts the dishes a run got right without context) and the two
    ratios are compared over the union of their units, each unit in its cluster (the linearised paired ratio
    difference of :func:`food_tasks.stats.uncertainty.compare`)."""
    va = {u: (c, v) for u, c, v in a}
    vb = {u: (c, v) for u, c, v in b}
    units = sorted(va.keys() & vb.keys() if pair_units else va.keys() | vb.keys(), key=stats.canonical)
    records_a = [{"v": va[u][1] if u in va else None} for u in units]
    records_b = [{"v": vb[u][1] if u in vb else None} for u in units]
    clusters = [(va.get(u) or vb[u])[0] for u in units]
    return stats.compare(stats.mean(stats.field("v"), scale), records_a, records_b, clusters, iters, seed)


def xling_units(run: Run, name: str, what: str) -> list[Unit] | None:
    """Per item (asked in two languages at least): 1 when right in every language (``all_correct``) or when every
    language chose the same option (``agreement``); the items of ``name``'s task, or of its family pooled over the
    run's tasks as a run pools them (:func:`food_tasks.stats.consistency.family_pools`: a benchmark's separate language
    tasks). None when the task declares no consistency view."""
    if name not in run.tasks:
        return None
    read = {t: found for t in run.tasks if (found := run.task(t)) is not None}  # once per run (Run.task caches)
    data = read.get(name)
    view = consistency.view_of(data.table) if data is not None else None
    if data is None or view is None:
        return None
    records = list(data.records)
    if view.family is not None:
        pools = consistency.family_pools(read)
        records = [r for v, pairs in pools if v == view and any(t == name for t, _ in pairs) for _, r in pairs]
    return consistency.item_units(records, view, what)


def context_units(run: Run, group: str, what: str) -> list[Unit] | None:
    """The per-dish rows of a group's ``misled_rate`` / ``hint_gain``
    (:func:`food_tasks.stats.consistency.context_rows`)."""
    members = run.members(group)
    if not members:
        return None
    views = {consistency.view_of(m.table) for m in members}
    if len(views) != 1 or None in views:
        return None
    records = [r for m in members for r in m.records]
    return consistency.context_rows(records, views.pop()).get(what)  # type: ignore[arg-type]


def measure_row(a: Run, b: Run, name: str, metric: str, iters: int = stats.DEFAULT_ITERS) -> Row | None:
    """A minus B of one measure of :data:`MEASURES` for a task or group both runs report it for (None otherwise)."""
    va, vb = a.reported(name, metric), b.reported(name, metric)
    if va is None or vb is None:
        return None
    higher = metric not in LOWER_IS_BETTER
    if metric == "position_bias_p":
        return Row(name, metric, va, vb, None, higher, "a p-value: not differenced")
    row = compare_one(a, b, name, metric, iters)
    if row is not None and row.comparison is not None:
        return row
    units = (
        (xling_units(a, name, metric.removeprefix("xling_")), xling_units(b, name, metric.removeprefix("xling_")))
        if metric in XLING
        else (context_units(a, name, metric), context_units(b, name, metric))
        if metric in CONTEXT
        else (None, None)
    )
    if units[0] is None or units[1] is None:
        return Row(name, metric, va, vb, None, higher, "no samples files of its tasks (run with --log_samples)")
    # In percent, as every accuracy and rate of every benchmark (food_tasks.hooks.convention.SCALES).
    result = paired_means(units[0], units[1], 100.0, iters, stats.seed_for(name, metric), metric in XLING)
    return Row(name, metric, va, vb, result, higher, result.few_note())


def measure_rows(a: Run, b: Run, iters: int = stats.DEFAULT_ITERS, skip: Iterable[tuple[str, str]] = ()) -> list[Row]:
    """Every measure of :data:`MEASURES` both runs report, per task and group (``skip``: rows shown elsewhere)."""
    done = set(skip)
    names = [t for t in a.tasks if t in b.tasks] + [g for g in a.groups if g in b.groups]
    rows = []
    for name in names:
        for metric in MEASURES:
            if (name, metric) not in done and (row := measure_row(a, b, name, metric, iters)) is not None:
                rows.append(row)
    return rows


def gain_missing_reason(with_run: Run, without_run: Run, task: str, twin: str) -> str:
    """Why there is no image gain of ``task`` over ``twin``: the samples file it lacks and that the run needs
    ``--log_samples``, or that no document was scored by both (what compare and the report say)."""
    lacking = [(run, name) for run, name in ((with_run, task), (without_run, twin)) if run.task(name) is None]
    found = with_run.task(task)
    if not lacking and found is not None and not _gain_from_samples(found):
        return f"its headline metric is a judge's figure: {WHY_NOT_PAIRED}"
    why = "; ".join(f"no samples file of {name} beside {run.files.get(name, run.path)}" for run, name in lacking)
    return f"{why} (run with --log_samples)" if lacking else f"no document scored by both {task} and {twin}"


def shares(breakdown: Any) -> dict[str, tuple[float, float]]:
    """``{position: (chosen share, gold share)}`` of a ``position_bias`` breakdown ({} for anything else)."""
    if not isinstance(breakdown, dict):
        return {}
    return {
        str(k): (float(v["chosen_share"]), float(v["gold_share"]))
        for k, v in breakdown.items()
        if isinstance(v, dict) and {"chosen_share", "gold_share"} <= v.keys()
    }
