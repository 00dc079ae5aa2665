"""The report's "Beyond accuracy" section of a benchmark: image gain over the image-free twin, cross-lingual
consistency (with a chart of each language's gap to the reference language), context sensitivity, circular accuracy
next to plain accuracy, and position bias (a chart of chosen against gold shares per position).

Every value comes from the results files (measures computed during the run, :mod:`food_tasks.stats.consistency`,
:mod:`food_tasks.hooks.rotation`), except the image gain, which pairs a task's and its twin's samples files by document
(:mod:`food_tasks.runs.measures`). A part that cannot be built says so in one line with the reason.
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping, Sequence
from typing import Any

from food_tasks.report.cells import fmt, number, stored_interval, with_interval
from food_tasks.report.charts import Charts
from food_tasks.report.spec import DATA_DIR, FEW, MARKS_NOTE, BenchmarkSpec, Block, spec_for
from food_tasks.report.variants import declared_base, measured_by
from food_tasks.runs.measures import gain_missing_reason, gain_pairs, image_gain
from food_tasks.runs.measures import shares as read_shares
from food_tasks.runs.run import Run
from food_tasks.stats.confidence import MIN_UNITS, interval_p, p_text

MAX_POSITION_CHARTS = 6  # per benchmark: the circular tasks first, then ordinary ones
GAP = "xling_gap_to_"
GAP_SPAN = 10.0  # the gap chart's axis spans at least ±GAP_SPAN points


def _tasks(spec: BenchmarkSpec, run: Run) -> list[str]:
    """The run's tasks and groups the benchmark claims, sorted."""
    return sorted(t for t in run.metrics if (found := spec_for(t)) is not None and found.name == spec.name)


def _with_error(run: Run, task: str, metric: str, proportion: bool = True) -> str:
    """The value and its 95% interval as the report's other tables write it (:func:`with_interval`: ``± half-width``;
    where that would be 0 wide, a ``proportion`` (a rate in %) at 0 or 100 gets its Wilson interval over the
    metric's independent units, anything else says it has none), the few-units mark below :data:`MIN_UNITS`; the
    value alone without a standard error."""
    value, se = run.value(task, metric), run.se(task, metric)
    method = run.reported(task, f"{metric}_stderr_method") if se is None else None
    tried = isinstance(method, str) and method.startswith("not estimated: ")
    if tried and number(value) is not None and not math.isnan(value):
        # a number whose interval the run could not estimate says why (was a bare 0.00 beside intervals)
        return f"{fmt(value, 2)} (no interval: {method.removeprefix('not estimated: ')})" + (
            FEW if run.few(task, metric) else ""
        )
    if se is None or number(value) is None or math.isnan(value):
        return fmt(value, 2)
    bounds = stored_interval(run, task, metric)  # where it is not the normal one (Wilson, bootstrap percentile)
    shown = with_interval(value, se, run.unit_count(task, metric), 2, proportion=proportion, bounds=bounds)
    return shown + (FEW if run.few(task, metric) else "")


def _gap(entry: Any) -> str:
    """A gap to the reference language (a difference of two accuracies, in points) from its breakdown entry: with
    its 95% interval (``± half-width``; none when every unit scored alike) from :data:`MIN_UNITS` independent units
    on, below them the value alone with the few-units mark: a normal interval there can pass ±100 points."""
    entry = entry if isinstance(entry, dict) else {}
    value, se, units = entry.get("value"), entry.get("se"), number(entry.get("clusters"))
    if units is not None and units < MIN_UNITS and number(value) is not None:
        return fmt(value, 2) + FEW
    return with_interval(value, number(se), units, 2, proportion=False, bounds=_kept_bounds(entry))


def _kept_bounds(entry: Mapping[str, Any]) -> tuple[float, float] | None:
    """``(low, high)`` of a stored measure whose interval is not the normal one (its ``interval`` names the method:
    Wilson, a bootstrap percentile; :meth:`food_tasks.stats.consistency.Stat.as_dict`), else None."""
    low, high = number(entry.get("low")), number(entry.get("high"))
    return (low, high) if entry.get("interval") and low is not None and high is not None else None


def _gap_interval(entry: dict[str, Any]) -> tuple[float, float] | None:
    """(below, above) the value of a gap's 95% interval for its chart; None below :data:`MIN_UNITS` units."""
    units = number(entry.get("clusters"))
    if units is not None and units < MIN_UNITS:
        return None
    value, low, high = entry["value"], number(entry.get("low")), number(entry.get("high"))
    return (value - low if low is not None else 0.0, high - value if high is not None else 0.0)


def beyond_blocks(spec: BenchmarkSpec, runs: Sequence[Run], charts: Charts) -> list[Block]:
    """The benchmark's "Beyond accuracy" section ([] when no run holds a task of it)."""
    present = [(r, _tasks(spec, r)) for r in runs]
    present = [(r, tasks) for r, tasks in present if tasks]
    if not present:
        return []
    blocks: list[Block] = [("h", 2, f"{spec.title} — beyond accuracy")]
    unbuilt: list[str] = []
    for part in (_image_gain, _xling, _context, _circular, _positions, published_blocks):
        found, reason = part(spec, present, charts)
        blocks += found
        if reason:
            unbuilt.append(reason)
    if unbuilt:
        blocks.append(("p", "\n".join(unbuilt)))
    return blocks


def _image_gain(
    spec: BenchmarkSpec, present: Sequence[tuple[Run, list[str]]], charts: Charts
) -> tuple[list[Block], str]:
    """Each task of the benchmark against its image-free twin, paired over all the report's runs as
    ``food-tasks compare`` pairs them (:func:`gain_pairs`: the twin from the task's own run, else from another run
    of the same model); the *Runs* column names the run of each side."""
    rows, missing = [], []
    ours = {run.path: set(tasks) for run, tasks in present}
    for with_run, without_run, task, twin in gain_pairs([run for run, _ in present]):
        if task not in ours.get(with_run.path, ()):  # another benchmark's task
            continue
        gain = image_gain(with_run, without_run, task, twin)
        if gain is None:  # the same reason compare gives (a samples file, or no document scored by both)
            why = gain_missing_reason(with_run, without_run, task, twin)
            missing.append(f"`{task}` ({with_run.label}): {why}")
            continue
        c = gain.gain
        few = FEW if c.clusters < MIN_UNITS else ""
        proportion = getattr((without_run.task(twin) or with_run.task(task)).table.get(gain.metric), "scale", None)
        without = with_interval(gain.without_image, gain.without_se, c.clusters, 2, proportion=proportion == "percent")
        rows.append(
            [
                f"**{with_run.label}**",
                f"`{task}`",
                f"{with_run.label} / {without_run.label}",
                gain.metric,
                fmt(gain.with_image, 2),
                without + few,
                f"{c.diff:+.2f}{few}",
                interval_p(c)[0],
                f"{c.n} ({c.clusters})",
            ]
        )
    if not rows:
        why = (
            "; ".join(sorted(set(missing)))
            if missing
            else "no run holds a task together with its image-free twin (`_noimage`, or the paper's `_textonly` mode)"
        )
        return [], f"Image gain: not shown, {why}."
    blocks: list[Block] = [
        ("h", 3, "Image gain (does the model use the image?)"),
        (
            "table",
            [
                "Model",
                "Task",
                "Runs (with / without)",
                "Metric",
                "With image",
                "Without image",
                "Image gain",
                "95% interval",
                "Documents (units)",
            ],
            rows,
        ),
        (
            "p",
            "Image gain: the task's headline score with the image minus its image-free twin's on the "
            "documents both scored, paired by document and clustered like the metric (MMStar's "
            "multi-modal gain); *Without image* (± 95%) is answerable_without_image, the score the "
            "text alone earns. *Runs*: the run the score with the image comes from and the one without it "
            "comes from (the same run, or another run of the same model; never another model). "
            + (
                f"{FEW}: fewer than {MIN_UNITS} independent units (no interval for the gain)."
                if any(FEW in r[6] for r in rows)
                else ""
            ),
        ),
    ]
    if missing:
        blocks.append(("p", "No image gain for " + "; ".join(sorted(set(missing))) + "."))
    return blocks, ""


def _gap_chart(charts: Charts, gaps: dict[str, dict[str, Any]], title: str, name: str) -> str | None:
    """Horizontal bars of each language's gap to the reference language, sorted, with 95% intervals."""
    if charts.plt is None:
        return None
    items = sorted(
        (
            (k, v)
            for k, v in gaps.items()
            if isinstance(v, dict) and isinstance(v.get("value"), (int, float)) and math.isfinite(v["value"])
        ),
        key=lambda kv: (kv[1]["value"], kv[0]),
    )
    if not items:
        return None
    values = [v["value"] for _, v in items]
    intervals = [_gap_interval(v) for _, v in items]
    fig, ax = charts.plt.subplots(figsize=(7, max(2.0, 0.25 * len(items) + 1)))
    ax.barh(
        range(len(items)),
        values,
        xerr=[[i[0] if i else 0.0 for i in intervals], [i[1] if i else 0.0 for i in intervals]]
        if any(intervals)
        else None,
        color=["#c44" if v < 0 else "#4a4" for v in values],
        error_kw={"elinewidth": 0.8, "capsize": 2, "ecolor": "#333"},
    )
    ax.set_yticks(range(len(items)), [k for k, _ in items])
    ax.axvline(0, color="#333", linewidth=0.8)
    if all(intervals):
        what = "bars: 95% intervals, paired by item, clustered"
    elif any(intervals):
        what = f"bars: 95% intervals, paired by item, clustered; none below {MIN_UNITS} independent units"
    else:
        what = f"no intervals: fewer than {MIN_UNITS} independent units"
    ax.set_title(f"{title}\n{what}", fontsize="medium")
    low, high = ax.get_xlim()  # points of accuracy: at least ±10 (all gaps 0 would span ±0.05)
    ax.set_xlim(min(low, -GAP_SPAN), max(high, GAP_SPAN))
    ax.grid(axis="x", alpha=0.3)
    return charts._save(fig, name)


def _xling(spec: BenchmarkSpec, present: Sequence[tuple[Run, list[str]]], charts: Charts) -> tuple[list[Block], str]:
    rows, blocks = [], []
    images: list[Block] = []
    for run, tasks in present:
        for task in tasks:
            if run.value(task, "xling_all_correct") is None:
                continue
            rows.append(
                [
                    f"**{run.label}**",
                    f"`{task}`",
                    _with_error(run, task, "xling_all_correct"),
                    _with_error(run, task, "xling_agreement"),
                    fmt(run.units.get(task, {}).get("xling_all_correct"), 0),
                ]
            )
            for metric in [
                m for m in run.metrics[task] if m.startswith(GAP) and isinstance(run.metrics[task][m], dict)
            ]:
                reference = metric.removeprefix(GAP)
                image = _gap_chart(
                    charts,
                    run.metrics[task][metric],
                    f"{run.label}, {task}: accuracy minus {reference}",
                    f"{task}_{run.label}_{metric}",
                )
                if image:
                    images.append(("img", image, f"{task}: gap to {reference} by language"))
            status = run.value(task, "xling_by_lang_status")
            if isinstance(status, dict) and status:
                images.append(
                    (
                        "table",
                        [f"{run.label}, `{task}`: options", "Gap to English (points) ± 95%", "Accuracy", "English"],
                        [
                            [
                                k,
                                _gap(v),
                                fmt(v.get("acc"), 2),
                                fmt(v.get("acc_reference"), 2),
                            ]
                            for k, v in sorted(status.items())
                        ],
                    )
                )
    if not rows:
        return [], (
            "Cross-lingual consistency: not shown, no task of these runs asks one item in several languages "
            "(one task holding every language, or both language tasks of one setting in one run)."
        )
    blocks += [
        ("h", 3, "Cross-lingual consistency (is it the same model in every language?)"),
        ("table", ["Model", "Task", "All languages right % ± 95%", "Same option everywhere % ± 95%", "Items"], rows),
        (
            "p",
            "*All languages right* (xling_all_correct): share of items answered correctly in every language "
            "present; *same option everywhere* (xling_agreement, multiple choice): share of items where every "
            "language chose the same option, right or wrong. Items asked in fewer than two languages do not "
            "count; intervals clustered like the headline metric. A gap to English is a difference of two accuracies "
            f"(points): below {MIN_UNITS} independent units it has no interval ({FEW}), in its table and chart.",
        ),
        *images,
    ]
    return blocks, ""


def _context(spec: BenchmarkSpec, present: Sequence[tuple[Run, list[str]]], charts: Charts) -> tuple[list[Block], str]:
    names = ("misled_rate", "context_loss_rate", "misled_excess", "hint_gain", "misled_rate_same_image")
    names += ("hint_gain_same_image",)
    rows = [
        [f"**{run.label}**", f"`{task}`", *(_with_error(run, task, m, m != "misled_excess") for m in names)]
        for run, tasks in present
        for task in tasks
        if any(run.value(task, m) is not None for m in names)
    ]
    if not rows:
        return [], (
            "Context sensitivity: not shown, no run holds a question without context together with its "
            "hinted or misleading version (a no-context subtask with its hinted or misleading subtask)."
        )
    return [
        ("h", 3, "Context sensitivity (does a hint help, does a misleading one flip it?)"),
        (
            "table",
            [
                "Model",
                "Group",
                "Misled rate % ± 95%",
                "Context loss % ± 95%",
                "Misled excess (points) ± 95%",
                "Hint gain % ± 95%",
                "Misled %, same image",
                "Hint gain %, same image",
            ],
            rows,
        ),
        (
            "p",
            "*Misled rate*: of the dishes answered right without context, the share answered wrong with the misleading "
            "hint (lower is better); *context loss*, its control: of the same dishes, the share answered wrong with "
            "the *correct* hint (answers that change whatever the context says); *misled excess*: misled rate minus "
            "context loss on the dishes asked with both hints, paired per dish (what the misleading hint itself adds); "
            "*hint gain*: of the dishes answered wrong without context, the share answered "
            "right with the correct hint. A dish is paired with itself in the same language; *same image*: only the "
            "pairs that show the same image.",
        ),
    ], ""


def _circular(spec: BenchmarkSpec, present: Sequence[tuple[Run, list[str]]], charts: Charts) -> tuple[list[Block], str]:
    rows = []
    for run, tasks in present:
        for task in tasks:
            if run.value(task, "circular_acc") is None:
                continue
            declared = run.variant(task)  # the rotated task's declared base (rotation_of), never its name
            base = declared[1] if declared and declared[0] == "circular" else None
            rows.append(
                [
                    f"**{run.label}**",
                    f"`{task}`",
                    _with_error(run, base, "acc") if base and base in run.metrics else "–",
                    _with_error(run, task, "acc"),
                    _with_error(run, task, "rotation_mean_acc"),
                    _with_error(run, task, "circular_acc"),
                ]
            )
    if not rows:
        return [], "Circular accuracy: not shown, no `_circular` task in these runs."
    return [
        ("h", 3, "Circular accuracy (right in every rotation of the options)"),
        (
            "table",
            [
                "Model",
                "Task",
                "Plain accuracy (base task)",
                "Accuracy over rotations",
                "Mean per question",
                "Circular accuracy",
            ],
            rows,
        ),
        (
            "p",
            "*Circular accuracy* (CircularEval, MMBench): share of questions answered right in every rotation of "
            "their options; the gap to plain accuracy measures luck and position preference. *Plain accuracy* comes "
            "from the base task when the run holds it (– otherwise). Intervals resample questions.",
        ),
    ], ""


def _position_chart(charts: Charts, breakdown: dict[str, Any], title: str, name: str) -> str | None:
    """Grouped bars per option position: the share of answers that chose it and the share of gold answers there."""
    found = shares(breakdown)
    if charts.plt is None or not found:
        return None
    labels = list(found)
    fig, ax = charts.plt.subplots(figsize=(max(4.0, 0.6 * len(labels) + 2), 3.2))
    xs = range(len(labels))
    ax.bar([x - 0.2 for x in xs], [found[k][0] for k in labels], width=0.4, label="chosen")
    ax.bar([x + 0.2 for x in xs], [found[k][1] for k in labels], width=0.4, label="gold")
    ax.set_xticks(list(xs), labels)
    ax.set_ylabel("% of answers read")
    ax.set_title(title, fontsize="medium")
    ax.legend(fontsize="small")
    ax.grid(axis="y", alpha=0.3)
    return charts._save(fig, name)


def _positions(
    spec: BenchmarkSpec, present: Sequence[tuple[Run, list[str]]], charts: Charts
) -> tuple[list[Block], str]:
    rows, images = [], []
    found = [
        (run, task) for run, tasks in present for task in tasks if isinstance(run.value(task, "position_bias"), dict)
    ]
    # rotated tasks first (their declared variant), then by task and model
    found.sort(key=lambda rt: ((rt[0].variant(rt[1]) or ("",))[0] != "circular", rt[1], rt[0].label))
    for i, (run, task) in enumerate(found):
        p = run.value(task, "position_bias_p")
        rows.append(
            [
                f"**{run.label}**",
                f"`{task}`",
                _with_error(run, task, "position_rstd", proportion=False)
                if run.value(task, "position_rstd") is not None
                else "–",
                p_text(p),
                over_chosen(run.value(task, "position_bias"), p),
            ]
        )
        if i < MAX_POSITION_CHARTS:
            image = _position_chart(
                charts,
                run.value(task, "position_bias"),
                f"{run.label}, {task}: answer positions",
                f"{task}_{run.label}_position_bias",
            )
            if image:
                images.append(("img", image, f"{task}: chosen vs gold position shares"))
    if not rows:
        # Said of this benchmark's tasks: the runs may hold multiple-choice tasks of other benchmarks.
        return [], (
            f"Position bias: not shown, none of these runs' {spec.title} tasks reports `position_bias` (a "
            "multiple-choice task that picks one of its listed options does)."
        )
    blocks: list[Block] = [
        ("h", 3, "Position bias (does it prefer a letter?)"),
        ("table", ["Model", "Task", "RStd % ± 95%", "p (chi-square)", "Most over-chosen: chosen vs gold %"], rows),
        (
            "p",
            "*RStd* (Zheng et al. 2024): the standard deviation over option positions of each position's recall (the "
            "share of the documents whose gold answer sits there answered right), lower is better, its interval "
            "clustered like the accuracy. *p*: chi-square test of homogeneity of the chosen and gold positions of "
            "the same documents (answers that could not be read left out; Monte Carlo below Cochran's rule); it "
            "treats documents as independent, so read it as a screen and the shares as the finding. A position is "
            "named over-chosen only when p < 0.05 and it is chosen more often than it is gold."
            + (f" Charts for the first {MAX_POSITION_CHARTS}." if len(found) > MAX_POSITION_CHARTS else ""),
        ),
        *images,
    ]
    return blocks, ""


# The published models' measures (BenchmarkSpec.published_beyond): (metric, table title, heading of its cells), one
# table each; a measure of the file's last column (a group's) goes into the context table.
PUBLISHED_TABLES = (
    ("xling_all_correct", "All languages right (xling_all_correct) % ± 95%"),
    ("xling_agreement", "Same option everywhere (xling_agreement) % ± 95%"),
    ("xling_gap_to_en", "Largest gaps to English (points ± 95%, the three lowest)"),
    ("position_rstd", "Position bias: RStd % ± 95% (p, chi-square)"),
)
PUBLISHED_GROUP = (
    ("misled_rate", "Misled rate % ± 95%"),
    ("context_loss_rate", "Context loss % ± 95%"),
    ("misled_excess", "Misled excess (points) ± 95%"),
    ("hint_gain", "Hint gain % ± 95%"),
)
LARGEST_GAPS = 3


def published_beyond(spec: BenchmarkSpec) -> dict[str, Any]:
    """The benchmark's published beyond-accuracy measures (``DATA_DIR/<spec.published_beyond>``), ``{}`` without."""
    path = DATA_DIR / spec.published_beyond if spec.published_beyond else None
    return json.loads(path.read_text(encoding="utf-8")) if path is not None and path.is_file() else {}


def _stat_cell(stat: Any, proportion: bool = True) -> str:
    """A published measure (``value``, ``se``, ``clusters``) as the runs' cells write theirs (:func:`_with_error`)."""
    if not isinstance(stat, Mapping):
        return fmt(None, 2)
    value, units = stat.get("value"), number(stat.get("clusters"))
    value = math.nan if value is None else value  # null in the file: undefined (RStd with gold on one position)
    few = FEW if stat.get("se") is not None and units is not None and units < MIN_UNITS else ""
    bounds = _kept_bounds(stat)
    return with_interval(value, number(stat.get("se")), units, 2, proportion=proportion, bounds=bounds) + few


def _gaps_cell(gaps: Any) -> str:
    """The :data:`LARGEST_GAPS` lowest gaps to the reference language, ``lang value ± half-width`` (:func:`_gap`)."""
    items = gaps.items() if isinstance(gaps, Mapping) else ((g.get("lang"), g) for g in gaps or [])
    found = sorted(
        ((str(k), v) for k, v in items if isinstance(v, Mapping) and number(v.get("value")) is not None),
        key=lambda kv: (kv[1]["value"], kv[0]),
    )
    return "; ".join(f"{lang} {_gap(v)}" for lang, v in found[:LARGEST_GAPS]) or fmt(None, 2)


def _run_cell(run: Run, task: str, metric: str) -> str:
    if metric == "xling_gap_to_en":
        return _gaps_cell(run.value(task, metric))
    if metric == "position_rstd" and run.value(task, metric) is not None:
        return f"{_with_error(run, task, metric, proportion=False)} (p {p_text(run.value(task, 'position_bias_p'))})"
    return _with_error(run, task, metric)


def _published_cell(values: Mapping[str, Any], metric: str) -> str:
    if metric == "xling_gap_to_en":
        return _gaps_cell(values.get("xling_gap_to_en_largest"))
    if metric == "position_rstd":
        return f"{_stat_cell(values.get(metric), proportion=False)} (p {p_text(values.get('position_bias_p'))})"
    return _stat_cell(values.get(metric))


def published_blocks(
    spec: BenchmarkSpec, present: Sequence[tuple[Run, list[str]]], charts: Charts
) -> tuple[list[Block], str]:
    """The runs beside the published models on each beyond-accuracy measure (:func:`published_beyond`): a table per
    measure, the runs' rows first, then the published rows; only for runs holding the tasks the published values
    were computed on (the file's ``columns``), and only the measures the runs have. Runs of the same task's other
    variants (the full task beside the ``_smallref`` subset the published values use) are not comparable with them: they
    get one line saying which run would be placed among the published models."""
    data = published_beyond(spec)
    columns = [c for c in data.get("columns", []) if isinstance(c, Mapping)]
    *per_task, group = columns or [None]
    runs = [run for run, tasks in present if any(c["task"] in tasks for c in columns)]
    if group is None:
        return [], ""
    if not runs:
        comparable = str(data.get("comparable_with") or group["task"])
        same = measured_by([comparable, *data.get("same_measure", [])])  # the file declares them: never a name's part
        if not any(declared_base(run, task) in same for run, tasks in present for task in tasks):
            return [], ""
        return [], (
            f"The beyond-accuracy measures of {len(data.get('models', []))} published models ({data.get('title')}) "
            f"are on other documents than these runs: a run of `{comparable}` is placed among them here."
        )
    blocks: list[Block] = [("h", 3, f"Beside the published models ({data.get('title', 'published predictions')})")]
    models = [m for m in data.get("models", []) if isinstance(m, Mapping)]
    for metric, title in PUBLISHED_TABLES:
        mine = [r for r in runs if any(r.value(c["task"], metric) is not None for c in per_task)]
        if not mine:
            continue
        rows = [[f"**{r.label}**", "this run", *(_run_cell(r, c["task"], metric) for c in per_task)] for r in mine]
        rows += [
            [m.get("model", ""), "paper predictions"]
            + [_published_cell((m.get("tasks") or {}).get(c["task"]) or {}, metric) for c in per_task]
            for m in models
        ]
        blocks += [("p", f"**{title}**"), ("table", ["Model", "Source", *(c["label"] for c in per_task)], rows)]
    wanted = [
        (metric, title)
        for metric, title in PUBLISHED_GROUP
        if any(r.value(group["task"], metric) is not None for r in runs)
    ]
    if wanted:
        rows = [
            [f"**{r.label}**", "this run", *(_with_error(r, group["task"], m, m != "misled_excess") for m, _ in wanted)]
            for r in runs
        ]
        rows += [
            [m.get("model", ""), "paper predictions"]
            + [
                _stat_cell(((m.get("group") or {}).get(group["task"]) or {}).get(metric), metric != "misled_excess")
                for metric, _ in wanted
            ]
            for m in models
        ]
        blocks += [("p", "**Context sensitivity**"), ("table", ["Model", "Source", *(t for _, t in wanted)], rows)]
    source = data.get("source") or {}
    commit = str(source.get("commit", ""))
    files = [
        [
            m.get("model", ""),
            " ".join(f"[{f.get('path', '').rsplit('/', 1)[-1]}]({f.get('url', '')})" for f in m.get("files", [])),
        ]
        for m in models
    ]
    blocks += [
        (
            "p",
            f"{data.get('note', '')} *Paper predictions*: the model's released prediction files of "
            f"[{source.get('repository', '')}]({source.get('repository', '')}) at commit {commit[:7]}, scored by "
            f"this pack ({data.get('generated_by', '')}); the intervals are the pack's, clustered as a run's. "
            f"{MARKS_NOTE}",
        ),
        ("details", "Sources of the published rows", ["Model", "Prediction files (at that commit)"], files),
    ]
    return blocks, ""


def over_chosen(breakdown: Any, p: Any, alpha: float = 0.05) -> str:
    """The most over-chosen position, ``"B: 60.0 vs 25.0"`` (chosen vs gold %), when the test finds a preference
    (``p < alpha``) and a position is chosen more often than it is gold; otherwise why none is named."""
    if isinstance(p, str) and p.startswith("absent: not testable"):
        return "– (not testable)"
    if isinstance(p, bool) or not isinstance(p, (int, float)) or math.isnan(p):
        return "–"
    if p >= alpha:
        return f"none (p ≥ {alpha:g})"
    top = max(shares(breakdown).items(), key=lambda kv: (kv[1][0] - kv[1][1], kv[0]), default=None)
    if top is None or top[1][0] <= top[1][1]:
        return "none"
    return f"{top[0]}: {fmt(top[1][0], 1)} vs {fmt(top[1][1], 1)}"


def shares(breakdown: Any) -> dict[str, tuple[float, float]]:
    """``{position: (chosen %, gold %)}`` of a ``position_bias`` breakdown (:func:`food_tasks.runs.measures.shares`)."""
    return read_shares(breakdown)
