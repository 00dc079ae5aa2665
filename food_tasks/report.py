"""``food-tasks report``: lmms-eval results files -> a Markdown and HTML report with charts.

Each benchmark's main table is laid out like its paper's table: the user's runs (one row with the
official-parity metrics, one with the robust metrics, and the parse-failure / missing-image rates
beside them) above the published reference numbers, which are data files citing their source
(``food_tasks/report_data/<benchmark>.json``). Breakdowns follow (per language, per condition, per
question type, per region: bar or radar charts with tables) and curves over a sequence of tasks (say,
accuracy by number of views). Several runs are shown side by side, with a models-by-benchmark heat map;
runs whose task versions, generation settings, prompts or judge settings differ are flagged as not
comparable.

This module holds the generic pieces. Each benchmark's layout is a :class:`BenchmarkSpec` in its own
package (``food_tasks/benchmarks/<name>/report.py``), named by its registry record
(:attr:`food_tasks.registry.Benchmark.report`); :data:`REGISTRY` collects them in the order of
:mod:`food_tasks.benchmarks` (keyed by task-name prefix), with the published numbers the record names.
Tasks no entry claims (regional tasks, for example) get a generic table of their scalar metrics and a
bar chart per dict metric (``acc_by_region``).
"""

from __future__ import annotations

import html
import json
import math
import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from food_tasks.registry import PUBLISHED_DIR

DATA_DIR = PUBLISHED_DIR  # published numbers of a report spec that no registry record declares: <name>.json
FILTER = "none"
MISSING = "–"
UNDEFINED = "undefined"  # a NaN metric (no pair to compare ...): each table says why
Z95 = 1.959963984540054  # two-sided 95 % (food_tasks.stats.Z95; numpy is imported only when a report compares runs)
MIN_UNITS = 30  # food_tasks.stats.MIN_UNITS (not imported: numpy only when a report compares runs)
FEW = "†"
FEW_NOTE = (f"{FEW}: fewer than {MIN_UNITS} independent units (clusters) behind the value: its normal interval is not to be "
            "trusted (it is 0 wide when every unit scored the same, and it can cross the metric's bounds).")  # fmt: skip
INTERVAL_NOTE = ("± half-width of the 95% interval (1.96 standard errors, clustered where documents share a context; "
                 "README \"Error bars\"); the paper's numbers come without one.")  # fmt: skip


# --------------------------------------------------------------------------- table specifications


@dataclass(frozen=True)
class Source:
    """Where a cell comes from: a task (template) and its robust and official metric names.

    Templates may use ``{v}`` (variant suffix), ``{m}`` (mode suffix) and ``{mode}`` (mode name).
    """

    task: str
    metric: str
    official: str | None = None


@dataclass(frozen=True)
class Column:
    """One column of a benchmark's main table.

    Attributes:
        key: the column's key in the reference data.
        sources: where the run's value comes from (the first source the run has).
        rate: a failure rate or count shown beside the scores (the same in the official and robust rows).
        scale: display factor (a fraction shown as a percentage: 100).
        lower_is_better: an error score (MAPE, MAE): the heat map colours its lowest run best.
        parts: when no source ran (a partial run: one subtask, not its group), the mean of these over the
            parts that ran, shown as :class:`Partial` ("12.50 (1 of 4)"); only for a mean the group itself
            takes over its parts unweighted.
        differs: why the official and robust values of this column can differ, printed under the table
            when they do for a run.
        undefined: why the metric can be undefined (NaN), printed under the table when it is.
    """

    key: str
    label: str
    sources: tuple[Source, ...]
    decimals: int = 2
    rate: bool = False
    scale: float = 1.0
    lower_is_better: bool = False
    parts: tuple[Source, ...] = ()
    differs: str = ""
    undefined: str = ""


@dataclass(frozen=True)
class Partial:
    """A column's value computed from the parts of a task that ran (:attr:`Column.parts`)."""

    value: float
    ran: int
    of: int


@dataclass(frozen=True)
class TableSpec:
    title: str
    reference: str | None  # table key in the benchmark's reference file ({variant} is replaced)
    columns: tuple[Column, ...]
    modes: tuple[tuple[str, str, str], ...] = (("", "", ""),)  # (label, suffix, name)


@dataclass(frozen=True)
class CurveSpec:
    """A metric over a sequence of tasks (accuracy by number of views, say): a table and a line chart."""

    title: str
    x_label: str
    points: tuple[tuple[str, str], ...]  # (x value label, task template with {v})
    metric: str
    y_label: str = ""
    decimals: int = 2


@dataclass(frozen=True)
class BenchmarkSpec:
    name: str
    title: str
    prefixes: tuple[str, ...]
    tables: tuple[TableSpec, ...]
    variants: tuple[tuple[str, str, str | None], ...]  # (label, suffix, reference table key or None)
    headline: tuple[str, ...]  # column keys (first table, first mode) for the heat map
    # Sections after the tables: breakdown(runs that have the variant, variant suffix, charts) -> blocks.
    breakdown: Callable[[Sequence[Run], str, Charts], list[Block]] | None = None
    notes: tuple[str, ...] = ()
    curves: tuple[CurveSpec, ...] = ()


def __getattr__(name: str) -> Any:
    """``REGISTRY``, built on first use: the benchmark modules that hold the specs import this one."""
    if name == "REGISTRY":
        from food_tasks.benchmarks import BENCHMARKS

        specs = tuple(b.report.load() for b in BENCHMARKS if b.report is not None)
        mismatched = [(b.name, s.name) for b, s in zip([b for b in BENCHMARKS if b.report is not None], specs) if b.name != s.name]
        if mismatched:
            raise ValueError(f"report specs named unlike their registry records (record, spec): {mismatched}")
        globals()["REGISTRY"] = specs
        return specs
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def _registry() -> tuple[BenchmarkSpec, ...]:
    """:data:`REGISTRY` as it is now (a test may have replaced it)."""
    return globals()["REGISTRY"] if "REGISTRY" in globals() else __getattr__("REGISTRY")


def spec_for(task: str) -> BenchmarkSpec | None:
    """The registry entry whose prefix starts ``task`` (longest prefix wins)."""
    matches = [(len(p), s) for s in _registry() for p in s.prefixes if task.startswith(p)]
    return max(matches, key=lambda x: x[0])[1] if matches else None


def reference_data(name: str) -> dict:
    """The published numbers of one benchmark (the file its registry record names; ``DATA_DIR/<name>.json``
    for a spec no record declares), ``{}`` when absent."""
    from food_tasks.benchmarks import get

    record = get(name)
    path = record.published_path if record is not None else DATA_DIR / f"{name}.json"
    return json.loads(path.read_text(encoding="utf-8")) if path is not None and path.is_file() else {}


# --------------------------------------------------------------------------- runs


@dataclass
class Run:
    """One model's results (one or several results files of the same model, disjoint tasks).

    ``model`` names the model as the run's ``model_args`` do (a local checkpoint by its full path);
    ``label`` is the short name the tables show (:func:`short_label`), unique among the runs.
    """

    label: str
    paths: list[Path]
    metrics: dict[str, dict[str, Any]]  # task or group -> {metric: value}
    fingerprints: dict[str, dict[str, Any]] = field(default_factory=dict)  # task -> comparability settings
    partial: dict[str, tuple[int, int]] = field(default_factory=dict)  # task -> (effective, original) documents
    model: str = ""
    stderr: dict[str, dict[str, float]] = field(default_factory=dict)  # task or group -> {metric: standard error}
    files: dict[str, Path] = field(default_factory=dict)  # task or group -> its results file
    units: dict[str, dict[str, Any]] = field(default_factory=dict)  # task or group -> {metric: independent units (clusters)}

    def value(self, task: str, metric: str) -> Any:
        return self.metrics.get(task, {}).get(metric)

    def few(self, task: str, metric: str) -> bool:
        """True when fewer than :data:`MIN_UNITS` independent units (clusters) are behind the metric's error."""
        value = self.units.get(task, {}).get(metric)
        return isinstance(value, (int, float)) and value < MIN_UNITS

    def se(self, task: str, metric: str) -> float | None:
        """The metric's standard error (food_tasks.errorbars), or None (none computed, or not a number)."""
        value = self.stderr.get(task, {}).get(metric)
        return value if isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value) else None


class ReportInputError(ValueError):
    """Bad report input; the message names the path and what to pass."""


def find_results(paths: Iterable[str | Path]) -> list[Path]:
    """Results files under the given directories, or the given files; raises when there are none."""
    found: list[Path] = []
    for raw in paths:
        path = Path(raw)
        if path.is_dir():
            hits = sorted(path.rglob("*_results.json")) or sorted(path.rglob("results*.json"))
            if not hits:
                raise ReportInputError(f"{path}: no lmms-eval results file (*_results.json) below this directory")
            found += hits
        elif path.is_file():
            found.append(path)
        else:
            raise ReportInputError(f"{path}: no such file or directory")
    return list(dict.fromkeys(found))


def _model_label(data: Mapping[str, Any]) -> str:
    config = data.get("config") or {}
    args = str(config.get("model_args") or "")
    named = dict(part.split("=", 1) for part in args.split(",") if "=" in part)
    for key in ("pretrained", "model", "model_version", "model_name", "responses"):
        if named.get(key):
            return f"{named[key]}" if key != "responses" else f"{config.get('model')} ({Path(named[key]).name})"
    return str(data.get("model_name") or config.get("model") or "model")


def short_label(model: str) -> str:
    """The name a table shows for ``model``: a local checkpoint path by its last folder name (a full path
    would widen every table), a hub id (``org/name``) and anything else as they are."""
    text = model.strip()
    if text.startswith(("/", "./", "../", "~")) or (text.count("/") > 1 and not text.startswith("http")):
        return Path(text.rstrip("/")).name or text
    return text


def _fingerprint(data: Mapping[str, Any], task: str) -> dict[str, Any]:
    """What must match for two runs of ``task`` to be compared: version, prompts, decoding, judge."""
    config = (data.get("configs") or {}).get(task) or {}
    metadata = config.get("metadata") if isinstance(config.get("metadata"), dict) else {}
    return {
        "task version": (data.get("versions") or {}).get(task),
        "metadata (judge, prompt settings)": {k: v for k, v in (metadata or {}).items() if k != "version"} or None,
        "generation_kwargs": config.get("generation_kwargs"),
        "lmms_eval_specific_kwargs": config.get("lmms_eval_specific_kwargs"),
        "system instruction": data.get("system_instruction_sha"),
        "chat template": data.get("chat_template_sha"),
        **_judge_fingerprint(data, task),
    }


def _judge_fingerprint(data: Mapping[str, Any], task: str) -> dict[str, Any]:
    """The judge model of LLM-judged tasks (a ``judge_info`` metric), when logged."""
    info = ((data.get("results") or {}).get(task) or {}).get(f"judge_info,{FILTER}")
    return {"judge model": info.get("model")} if isinstance(info, Mapping) else {}


def _read(path: Path) -> dict:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as err:
        raise ReportInputError(f"{path}: not a readable JSON file: {err}") from err
    if not isinstance(data, dict) or not isinstance(data.get("results"), dict):
        raise ReportInputError(f"{path}: not an lmms-eval results file (no 'results' object)")
    return data


def load_runs(paths: Iterable[str | Path]) -> list[Run]:
    """One :class:`Run` per model; files of one model with disjoint tasks are merged."""
    runs: list[Run] = []
    for path in find_results(paths):
        data = _read(path)
        metrics: dict[str, dict[str, Any]] = {}
        stderr: dict[str, dict[str, float]] = {}
        units: dict[str, dict[str, Any]] = {}
        for section in ("results", "groups"):
            for task, values in (data.get(section) or {}).items():
                clean = {k.rsplit(",", 1)[0]: v for k, v in values.items() if k.endswith(f",{FILTER}") and "_stderr" not in k}
                # <metric>_n and <metric>_clusters (food_tasks.errorbars) describe a metric, they are not metrics
                described = {m for m in clean if m.endswith(("_n", "_clusters")) and m.rsplit("_", 1)[0] in clean}
                units.setdefault(task, {}).update({m.removesuffix("_clusters"): clean[m] for m in described if m.endswith("_clusters")})
                clean = {m: v for m, v in clean.items() if m not in described}
                metrics.setdefault(task, {}).update(clean)
                stderr.setdefault(task, {}).update({k.rsplit(",", 1)[0].removesuffix("_stderr"): v for k, v in values.items()
                                                    if k.endswith(f"_stderr,{FILTER}")})  # fmt: skip
        tasks = {t for t in metrics if t in (data.get("configs") or {})}
        counts = data.get("n-samples") or {}
        partial = {t: (int(c["effective"]), int(c["original"])) for t, c in counts.items()
                   if isinstance(c, dict) and c.get("effective") is not None and c.get("original") is not None
                   and int(c["effective"]) < int(c["original"])}  # fmt: skip
        model = _model_label(data)
        run = Run(short_label(model), [path], metrics, {t: _fingerprint(data, t) for t in tasks}, partial, model, stderr,
                  dict.fromkeys(metrics, path), units)  # fmt: skip
        same = next((r for r in runs if r.model == run.model and not set(r.metrics) & set(run.metrics)), None)
        if same is not None:
            same.paths.append(path)
            same.metrics.update(run.metrics)
            same.fingerprints.update(run.fingerprints)
            same.partial.update(run.partial)
            same.stderr.update(run.stderr)
            same.units.update(run.units)
            same.files.update(run.files)
            continue
        taken = sum(r.label == run.label or r.label.startswith(run.label + " #") for r in runs)
        if taken:
            run.label = f"{run.label} #{taken + 1}"
        runs.append(run)
    return runs


def comparability_problems(runs: Sequence[Run], tasks: Iterable[str]) -> list[str]:
    """One line per setting where the runs differ, naming the tasks (grouped when they differ alike)."""
    found: dict[tuple[str, str], list[str]] = {}
    for task in sorted(set(tasks)):
        have = [r for r in runs if task in r.fingerprints]
        if len(have) < 2:
            continue
        for key in have[0].fingerprints[task]:
            shown = {r.label: json.dumps(r.fingerprints[task].get(key), sort_keys=True, default=str) for r in have}
            if len(set(shown.values())) > 1:
                detail = "; ".join(f"{label}: {value}" for label, value in shown.items())
                found.setdefault((key, detail), []).append(task)
    return [f"{key} differs ({detail}) in " + ", ".join(f"`{t}`" for t in tasks) for (key, detail), tasks in found.items()]


def _flagged_tasks(problems: Sequence[str]) -> set[str]:
    return {name for line in problems for name in re.findall(r"`([^`]+)`", line.rsplit(") in ", 1)[-1])}


# --------------------------------------------------------------------------- cells


def fmt(value: Any, decimals: int) -> str:
    if value is None:
        return MISSING
    if isinstance(value, Partial):
        return f"{fmt(value.value, decimals)} ({value.ran} of {value.of})"
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return str(value)
    if isinstance(value, float) and math.isnan(value):
        return "NaN"
    return f"{value:.{decimals}f}"


def _cell(run: Run, column: Column, variant: str, mode: tuple[str, str, str], official: bool) -> tuple[Any, str | None]:
    """(value, task) of the first source the run has. Official rows take only sources with an official
    metric (a robust number is never shown as official); rate columns are the same in both rows."""
    value, task, _ = _source_cell(run, column, variant, mode, official)
    return value, task


def _source_cell(run: Run, column: Column, variant: str, mode: tuple[str, str, str], official: bool) -> tuple[Any, str | None, str | None]:
    """:func:`_cell` and the metric the value came from (None for a :class:`Partial` or nothing)."""
    for source in column.sources:
        if official and not column.rate and not source.official:
            continue
        fill = {"v": variant, "m": mode[1], "mode": mode[2]}
        task = source.task.format(**fill)
        if task not in run.metrics:
            continue
        metric = (source.official if official and not column.rate else source.metric).format(**fill)
        value = _lookup(run.metrics[task], metric)
        if isinstance(value, (int, float)) and not isinstance(value, bool) and column.scale != 1.0:
            value = value * column.scale
        if value is not None:
            return value, task, metric
    return (*_parts(run, column, variant, mode, official), None)


def _parts(run: Run, column: Column, variant: str, mode: tuple[str, str, str], official: bool) -> tuple[Any, str | None]:
    """The mean of :attr:`Column.parts` over the parts the run has (:class:`Partial`), or ``(None, None)``."""
    fill = {"v": variant, "m": mode[1], "mode": mode[2]}
    found: list[tuple[float, str]] = []
    for source in column.parts:
        metric = source.official if official and not column.rate else source.metric
        task = source.task.format(**fill)
        value = _lookup(run.metrics[task], metric.format(**fill)) if metric and task in run.metrics else None
        if isinstance(value, (int, float)) and not isinstance(value, bool) and not math.isnan(value):
            found.append((value * column.scale, task))
    if not found:
        return None, None
    return Partial(sum(v for v, _ in found) / len(found), len(found), len(column.parts)), found[0][1]


def _lookup(metrics: Mapping[str, Any], metric: str) -> Any:
    """A metric's value; ``a/b/c`` walks into dict metrics (``per_region/Chinese/sla_accurate``). An
    ``"absent: <reason>"`` string met on the way is the value (rendered as absent with its reason)."""
    value: Any = metrics
    for part in metric.split("/"):
        if absent_reason(value) is not None:
            return value
        value = value.get(part) if isinstance(value, Mapping) else None
    return value


def absent_reason(value: Any) -> str | None:
    """The reason of an ``"absent: <reason>"`` metric value (a metric that could not be computed), else None."""
    if isinstance(value, str) and value.startswith("absent:"):
        return value.split(":", 1)[1].strip()
    return None


def _tasks_of(spec: BenchmarkSpec, run: Run, variant: str) -> set[str]:
    out = set()
    for table in spec.tables:
        for mode in table.modes:
            for column in table.columns:
                for source in column.sources + column.parts:
                    task = source.task.format(v=variant, m=mode[1], mode=mode[2])
                    if task in run.metrics:
                        out.add(task)
    return out


# --------------------------------------------------------------------------- document model

# ("h", level, text) | ("p", text) | ("list", items) | ("table", header, rows) | ("details", summary, header, rows)
# | ("img", path, alt) | ("warn", text). In "p" and "warn" text, lines starting with "- " are a bulleted list.
Block = tuple


def benchmark_blocks(spec: BenchmarkSpec, runs: Sequence[Run], charts: Charts) -> list[Block]:
    blocks: list[Block] = []
    ref = reference_data(spec.name)
    for variant_label, suffix, ref_key in spec.variants:
        present = [r for r in runs if _tasks_of(spec, r, suffix)]
        if not present:
            continue
        blocks.append(("h", 2, f"{spec.title} — {variant_label}"))
        tasks = set().union(*(_tasks_of(spec, r, suffix) for r in present))
        problems = comparability_problems(present, tasks)
        partial = [f"{r.label} evaluated {e} of {o} documents of `{t}` (--limit or missing data)"
                   for r in present for t, (e, o) in sorted(r.partial.items()) if t in tasks]  # fmt: skip
        flagged = _flagged_tasks(problems) | {t for r in present for t in r.partial if t in tasks}
        if problems:
            blocks.append(("warn", "Not comparable: these runs used different settings, so their numbers are not "
                                   "comparable side by side:\n" + "\n".join(f"- {p}" for p in problems)))  # fmt: skip
        if partial:
            blocks.append(("warn", "Partial runs, not comparable with the paper:\n" + "\n".join(f"- {p}" for p in partial)))
        for note in spec.notes:
            blocks.append(("p", note))
        judges = _judge_lines(present, tasks)
        if judges:
            blocks.append(("p", "Judge (LLM-as-a-judge tasks):\n" + "\n".join(judges)))
        for table in spec.tables:
            blocks += _main_table(spec, table, present, suffix, ref, ref_key, flagged)
        blocks += uncertainty_blocks(spec, present, suffix)
        if spec.breakdown is not None:
            blocks += spec.breakdown(present, suffix, charts)
        for curve in spec.curves:
            blocks += _curve_blocks(curve, present, suffix, charts)
    return blocks


# --------------------------------------------------------------------------- uncertainty

POWER_NOTE = ("Smallest detectable difference: how far another model's score must lie from this one for a comparison of two "
              "independent runs of this size to detect it with 80% power at 5% significance (2.80 x sqrt(2) x the standard "
              "error, clustered as the README says). A paired comparison on the same documents (below) usually detects less: "
              "the two models' errors on a question are correlated.")  # fmt: skip
PAIRED_NOTE = ("A - B on the documents both runs scored, matched by document identity (never by position); 95% interval and "
               "p-value of the paired difference (clustered analytic for means, paired cluster bootstrap otherwise). "
               "\"No detectable difference\" when the interval contains 0; units are the independent clusters (dishes, "
               "questions, images): with fewer than 30 the interval is not trusted and no verdict is given. Robust scorer.")  # fmt: skip
MAX_PAIRS = 10  # model pairs compared per benchmark (the first runs')


def _headline(spec: BenchmarkSpec, run: Run, suffix: str) -> list[tuple[Column, Any, str, str]]:
    """(column, value, task, metric) of the benchmark's headline columns the run has (robust scorer, first mode)."""
    table = spec.tables[0]
    out = []
    for column in table.columns:
        if column.key not in spec.headline:
            continue
        value, task, metric = _source_cell(run, column, suffix, table.modes[0], False)
        if task and metric and isinstance(value, (int, float)) and not isinstance(value, bool):
            out.append((column, value, task, metric))
    return out


def uncertainty_blocks(spec: BenchmarkSpec, runs: Sequence[Run], suffix: str) -> list[Block]:
    """Standard errors and the smallest detectable difference of the headline numbers; with two or more runs, paired
    differences and verdicts; for a best-of-templates group, the selection bias of its max."""
    power = []
    for run in runs:
        for column, value, task, metric in _headline(spec, run, suffix):
            se = run.se(task, metric)
            if se is None:
                continue
            scaled = se * column.scale
            mark = FEW if run.few(task, metric) else ""
            units = run.units.get(task, {}).get(metric)
            power.append([f"**{run.label}**", column.label, f"{fmt(value, column.decimals)} ± {fmt(Z95 * scaled, column.decimals)}{mark}",
                          fmt(scaled, column.decimals), fmt(units, 0) if isinstance(units, (int, float)) else MISSING,
                          fmt(2.8016 * math.sqrt(2) * scaled, column.decimals) + mark])  # fmt: skip
    if not power:
        return []
    blocks: list[Block] = [("h", 3, "Uncertainty"), ("table", ["Model", "Metric", "Value ± 95%", "Std. error", "Independent units",
                                                               "Smallest detectable difference"], power), ("p", POWER_NOTE)]  # fmt: skip
    if any(FEW in row[2] for row in power):
        blocks.append(("p", FEW_NOTE))
    cache: dict = {}  # one read of each run's files (and samples) for both sections below
    blocks += _best_of_blocks(spec, runs, suffix, cache)
    if len(runs) >= 2:
        blocks += _paired_blocks(spec, runs, suffix, cache)
    return blocks


def _error_run(run: Run, task: str, cache: dict) -> Any:
    from food_tasks import errorbars

    path = run.files.get(task)
    if path is None:
        return None
    if path not in cache:
        loaded = errorbars.load_run(path)
        loaded.label = run.label
        cache[path] = loaded
    return cache[path]


def _paired_blocks(spec: BenchmarkSpec, runs: Sequence[Run], suffix: str, cache: dict) -> list[Block]:
    from food_tasks import errorbars

    rows, missing, few = [], set(), []
    pairs = [(a, b) for i, a in enumerate(runs) for b in runs[i + 1 :]][:MAX_PAIRS]
    for a, b in pairs:
        targets = {(task, metric): column for column, _, task, metric in _headline(spec, a, suffix)}
        for column, _, task, metric in _headline(spec, b, suffix):
            if (task, metric) not in targets:
                continue
            ra, rb = _error_run(a, task, cache), _error_run(b, task, cache)
            row = errorbars.compare_one(ra, rb, task, metric) if ra is not None and rb is not None else None
            c = row.comparison if row is not None else None
            if ra is None or rb is None or any(r.task(leaf) is None for r in (ra, rb) for leaf in r.leaves(task)):
                missing.add(task)  # a task (or a task of the group) without its samples file
                continue
            if c is None:
                continue
            scale, d = column.scale, column.decimals
            verdict = c.verdict(not column.lower_is_better, a.label, b.label)
            if row.note:
                few.append(f"{a.label} vs {b.label}, `{task}`: {row.note}")
            if c.se is None or not math.isfinite(c.diff):  # undefined on these documents (no pair for CTC ...)
                rows.append([f"{a.label} vs {b.label}", column.label, "n/a", "n/a", "n/a", f"{c.n} ({c.clusters})", "n/a",
                             verdict if not math.isfinite(c.diff) else "no standard error"])  # fmt: skip
                continue
            rows.append([f"{a.label} vs {b.label}", column.label, f"{c.diff * scale:+.{d}f}",
                         f"[{c.low * scale:+.{d}f}, {c.high * scale:+.{d}f}]", f"{c.p:.3g}", f"{c.n} ({c.clusters})",
                         fmt(c.mde * scale, d), verdict])  # fmt: skip
    blocks: list[Block] = []
    if rows:
        blocks += [("h", 3, "Paired differences"), ("table", ["A vs B", "Metric", "A - B", "95% interval", "p", "Shared documents (units)",
                                                              "Detectable (paired)", "Verdict"], rows), ("p", PAIRED_NOTE)]  # fmt: skip
    if few:
        blocks.append(("warn", f"Too few independent units (clusters) to compare; no verdict below {errorbars.MIN_SHARED}:\n"
                               + "\n".join(f"- {line}" for line in few)))  # fmt: skip
    if missing:
        blocks.append(("p", "No paired comparison for " + ", ".join(f"`{t}`" for t in sorted(missing)) + ": it needs both runs' "
                            "samples files (lmms-eval `--log_samples`) beside their results files."))  # fmt: skip
    return blocks


def _best_of_blocks(spec: BenchmarkSpec, runs: Sequence[Run], suffix: str, cache: dict) -> list[Block]:
    from food_tasks import errorbars

    rows = []
    for run in runs:
        for column, value, task, metric in _headline(spec, run, suffix):
            loaded = _error_run(run, task, cache)
            if loaded is None or task not in loaded.groups:
                continue
            found = errorbars.best_of_bias(loaded, task, metric)
            if found is None or math.isnan(found.bias):
                continue
            s, d = column.scale, column.decimals
            rows.append([f"**{run.label}**", column.label, fmt(found.best * s, d), fmt(found.mean * s, d), f"{found.bias * s:+.{d}f}"])
    if not rows:
        return []
    return [("table", ["Model", "Best-of group", "Best of k", "Mean of k", "Selection bias of the best"], rows),
            ("p", "A best-of-k number picks the best of k templates on the same questions, so it is biased upwards: the "
                  "bias is the cluster bootstrap's mean resampled best minus the best of the resampled means (questions "
                  "resampled jointly in every template). The mean of the k templates has no selection bias; compare models on it.")]  # fmt: skip


def _judge_lines(runs: Sequence[Run], tasks: Iterable[str]) -> list[str]:
    """One line per run and judged task: the judge model and endpoint host logged in ``judge_info``."""
    lines = []
    for run in runs:
        for task in sorted(tasks):
            info = run.value(task, "judge_info")
            if isinstance(info, Mapping):
                where = f" at {info['endpoint']}" if info.get("endpoint") else ""
                note = f" ({info['note']})" if info.get("note") else ""
                lines.append(f"- {run.label}, `{task}`: {info.get('model') or 'none'}{where}{note}")
    return lines


def _curve_blocks(curve: CurveSpec, runs: Sequence[Run], suffix: str, charts: Charts) -> list[Block]:
    xs = [x for x, _ in curve.points]
    series = {r.label: [r.value(t.format(v=suffix), curve.metric) for _, t in curve.points] for r in runs}
    series = {k: v for k, v in series.items() if sum(isinstance(y, (int, float)) for y in v) >= 2}  # a curve has 2+ points
    errors = {r.label: [Z95 * se if (se := r.se(t.format(v=suffix), curve.metric)) is not None else None for _, t in curve.points]
              for r in runs if r.label in series}  # fmt: skip
    if not series:
        return []
    blocks: list[Block] = [("h", 3, curve.title)]
    image = charts.curve(series, xs, curve.title, curve.x_label, curve.y_label or curve.metric,
                         re.sub(r"\W+", "_", f"{curve.points[0][1].format(v=suffix)}_{curve.metric}_curve"), errors)  # fmt: skip
    if image:
        blocks.append(("img", image, curve.title))
    def point(k: str, i: int) -> str:
        width = errors.get(k, [None] * len(xs))[i]
        text = fmt(series[k][i], curve.decimals)
        return f"{text} ± {fmt(width, curve.decimals)}" if width is not None and series[k][i] is not None else text

    blocks.append(("table", [curve.x_label] + list(series), [[x] + [point(k, i) for k in series] for i, x in enumerate(xs)]))
    return blocks


def _main_table(spec, table, runs, suffix, ref, ref_key, flagged) -> list[Block]:  # type: ignore[no-untyped-def]
    multi_mode = len(table.modes) > 1
    header = ["Model"] + (["Mode"] if multi_mode else []) + ["Scorer"] + [c.label for c in table.columns]
    rows = []
    reasons: list[tuple[str, str]] = []  # "absent [k]" / "undefined [k]" cells: (kind, reason) k below the table
    differ: list[Column] = []  # columns whose official and robust values differ for some run
    partial = False

    def numbered(kind: str, reason: str) -> str:
        if (kind, reason) not in reasons:
            reasons.append((kind, reason))
        return f"{kind} [{reasons.index((kind, reason)) + 1}]"

    intervals = few = False

    def cell_text(value: Any, column: Column, error: tuple[float | None, bool] = (None, False)) -> str:
        nonlocal partial, intervals, few
        partial |= isinstance(value, Partial)
        reason = absent_reason(value)
        if reason is not None:
            return numbered("absent", reason)
        if isinstance(value, float) and math.isnan(value):
            return numbered("undefined", column.undefined or "the metric is undefined (NaN) on this run")
        se, thin = error
        if se is not None and isinstance(value, (int, float)) and not isinstance(value, bool):
            intervals, few = True, few or thin
            return f"{fmt(value, column.decimals)} ± {fmt(Z95 * se * column.scale, column.decimals)}{FEW if thin else ''}"
        return fmt(value, column.decimals)

    def with_se(run: Run, column: Column, mode: tuple[str, str, str], official: bool) -> tuple[Any, str | None, tuple[float | None, bool]]:
        value, task, metric = _source_cell(run, column, suffix, mode, official)
        return value, task, (run.se(task, metric), run.few(task, metric)) if task and metric else (None, False)

    for run in runs:
        for mode in table.modes:
            triples = [[with_se(run, c, mode, official) for c in table.columns] for official in (True, False)]
            pair = [[(v, t) for v, t, _ in values] for values in triples]
            same = [fmt(v, 6) for v, _ in pair[0]] == [fmt(v, 6) for v, _ in pair[1]]  # NaN == NaN here
            differ += [c for c, (a, _), (b, _) in zip(table.columns, *pair)
                       if c.differs and c not in differ and a is not None and b is not None and fmt(a, 6) != fmt(b, 6)]  # fmt: skip
            for scorer, values in ((("official = robust", triples[0]),) if same else (("official", triples[0]), ("robust", triples[1]))):
                if not any(v is not None for v, _, _ in values):
                    continue
                mark = " ⚠" if {t for _, t, _ in values if t} & flagged else ""
                cells = [f"**{run.label}**{mark}"] + ([mode[0]] if multi_mode else []) + [scorer]
                rows.append(cells + [cell_text(v, c, se) for c, (v, _, se) in zip(table.columns, values)])
    if not rows:
        return []
    ref_table = None
    if ref_key and table.reference:  # a variant without published numbers has ref_key None
        ref_table = (ref.get("tables") or {}).get(table.reference.replace("{variant}", ref_key))
    if ref_table:
        for row in ref_table["rows"]:
            mode_label = next((m[0] for m in table.modes if m[2] == row.get("mode")), row.get("mode") or "")
            cells = [row["model"] + (" *" if row.get("note") else "")] + ([mode_label] if multi_mode else [])
            cells.append("paper")
            cells += [fmt(row["values"].get(c.key), c.decimals) for c in table.columns]
            rows.append(cells)
    blocks: list[Block] = [("h", 3, table.title), ("table", header, rows)]
    notes = [f"{kind} [{k}]: {reason}" for k, (kind, reason) in enumerate(reasons, 1)]
    if intervals:
        notes.append(INTERVAL_NOTE)
    if few:
        notes.append(FEW_NOTE)
    notes += [f"{c.label}, official and robust differ: {c.differs}" for c in differ]
    if partial:
        notes.append("(k of n): computed from the k of the n subtasks that ran, as their group would be over all n.")
    if notes:
        blocks.append(("p", "\n".join(notes)))
    if ref_table:
        notes = [f"* {r['model']}: {r['note']}" for r in ref_table["rows"] if r.get("note")]
        blocks.append(("p", f"Reference rows (*paper*): {ref_table['source']}." + ("\n" + "\n".join(notes) if notes else "")))
    else:
        blocks.append(("p", "No published numbers for this variant."))
    return blocks


def series_blocks(heading: str, image: Any, alt: str, first: str, series: Mapping[str, Mapping[str, Any]],
                   counts: Mapping[str, Mapping[str, Any]], column: Callable[[str], str]) -> list[Block]:
    """A breakdown section: its heading, its chart (when one was drawn) and a table of every run's value
    per group with the group's size in brackets."""
    blocks: list[Block] = [("h", 3, heading)]
    if image:
        blocks.append(("img", image, alt))
    groups = sorted({g for values in series.values() for g in values})
    rows = [[g] + [f"{fmt(series[r].get(g), 2)} ({counts.get(r, {}).get(g, MISSING)})" for r in series] for g in groups]
    blocks.append(("table", [first] + [column(r) for r in series], rows))
    return blocks


def generic_blocks(tasks: Sequence[str], runs: Sequence[Run], charts: Charts) -> list[Block]:
    """Tasks no registry entry claims: scalar metrics per run, a bar chart per dict metric of flat numbers."""
    blocks: list[Block] = []
    for task in tasks:
        have = [r for r in runs if task in r.metrics]
        blocks.append(("h", 2, f"Task `{task}`"))
        problems = comparability_problems(have, [task])
        if problems:
            blocks.append(("warn", "Not comparable:\n" + "\n".join(f"- {p}" for p in problems)))
        names = sorted({m for r in have for m, v in r.metrics[task].items() if isinstance(v, (int, float)) and m != "alias"})
        if names:
            def cell(r: Run, m: str) -> str:
                value, se = r.value(task, m), r.se(task, m)
                if se is None or not isinstance(value, (int, float)) or isinstance(value, bool) or math.isnan(value):
                    return fmt(value, 2)
                return f"{fmt(value, 2)} ± {fmt(Z95 * se, 2)}{FEW if r.few(task, m) else ''}"

            rows = [[f"`{m}`"] + [cell(r, m) for r in have] for m in names]
            blocks.append(("table", ["Metric"] + [r.label for r in have], rows))
            if any(" ± " in c for row in rows for c in row):
                blocks.append(("p", INTERVAL_NOTE + (" " + FEW_NOTE if any(FEW in c for row in rows for c in row) else "")))
        dicts = sorted({m for r in have for m, v in r.metrics[task].items() if isinstance(v, dict)})
        for metric in dicts:
            column = metric.split("_by_")[-1]
            sizes = f"n_by_{column}"  # the group sizes of a breakdown (regional tasks report them)
            if metric == sizes and any(d != sizes and d.endswith(f"_by_{column}") for d in dicts):
                continue  # shown beside the breakdown it sizes
            series = {r.label: r.value(task, metric) for r in have if isinstance(r.value(task, metric), dict)}
            flat = {k: {g: v for g, v in s.items() if isinstance(v, (int, float))} for k, s in series.items()}
            if not any(flat.values()):
                continue
            counts = {r.label: r.value(task, sizes) for r in have if isinstance(r.value(task, sizes), dict)}
            errors = {k: {g: binomial_half_width(v, (counts.get(k) or {}).get(g)) for g, v in s.items()} for k, s in flat.items()} \
                if counts and metric.startswith("acc_by_") else None  # fmt: skip
            image = charts.language_bars(flat, f"{task}: {metric}", f"{task}_{metric}", errors)
            if counts and metric != sizes:
                blocks += series_blocks(f"`{metric}`", image, metric, column, flat, counts, lambda r: f"{r} (n)")
                continue
            blocks.append(("h", 3, f"`{metric}`"))
            if image:
                blocks.append(("img", image, metric))
            groups = sorted({g for s in flat.values() for g in s})
            blocks.append(("table", [column] + list(flat), [[g] + [fmt(flat[k].get(g), 2) for k in flat] for g in groups]))
    return blocks


def binomial_half_width(percent: Any, n: Any) -> float | None:
    """The 95% half-width (percentage points) of a proportion given in percent over ``n`` independent documents."""
    if not isinstance(percent, (int, float)) or not isinstance(n, (int, float)) or n <= 0 or math.isnan(percent):
        return None
    p = min(max(percent / 100.0, 0.0), 1.0)
    return Z95 * 100.0 * math.sqrt(p * (1 - p) / n)


def mean_half_width(widths: Sequence[float | None]) -> float | None:
    """The half-width of the mean of independent cells (None if any cell has none)."""
    if not widths or any(w is None for w in widths):
        return None
    return math.sqrt(sum(w * w for w in widths)) / len(widths)  # type: ignore[operator]


def _nan(value: Any) -> bool:
    return isinstance(value, float) and math.isnan(value)


def _number(value: Any) -> float | None:
    return value if isinstance(value, (int, float)) and not isinstance(value, bool) else None


def heatmap_blocks(runs: Sequence[Run], charts: Charts, others: Sequence[str] = ()) -> list[Block]:
    """Models x benchmark headline numbers (robust scorer), when several runs are given; other tasks
    contribute their ``acc``."""
    if len(runs) < 2:
        return []
    columns: list[tuple[str, Column, str, tuple[str, str, str]]] = []
    for spec in _registry():
        table = spec.tables[0]
        for _, suffix, _ in spec.variants:
            if not any(_tasks_of(spec, r, suffix) for r in runs):
                continue
            for key in spec.headline:
                column = next(c for c in table.columns if c.key == key)
                columns.append((f"{spec.name}{suffix}: {column.label}", column, suffix, table.modes[0]))
    for task in others:
        if any(isinstance(r.value(task, "acc"), (int, float)) for r in runs):
            columns.append((f"{task}: acc", Column("acc", "acc", (Source(task, "acc"),)), "", ("", "", "")))
    matrix = [[_number(_cell(r, c, suffix, mode, False)[0]) for _, c, suffix, mode in columns] for r in runs]
    used = [j for j in range(len(columns)) if any(row[j] is not None for row in matrix)]  # e.g. no group average run
    columns, matrix = [columns[j] for j in used], [[row[j] for j in used] for row in matrix]
    keep = [i for i, row in enumerate(matrix) if any(v is not None for v in row)]
    runs, matrix = [runs[i] for i in keep], [matrix[i] for i in keep]
    if len(runs) < 2 or not columns:
        return []
    labels = [name for name, *_ in columns]
    blocks: list[Block] = [("h", 2, "Models by benchmark (headline numbers, robust scorer)")]
    image = charts.heatmap([r.label for r in runs], labels, matrix, "food_tasks_heatmap", [c.lower_is_better for _, c, _, _ in columns])
    if image:
        blocks.append(("img", image, "models by benchmark"))
    rows = [[r.label] + [UNDEFINED if _nan(v) else fmt(v, c.decimals) for v, (_, c, _, _) in zip(row, columns)]
            for r, row in zip(runs, matrix)]  # fmt: skip
    blocks.append(("table", ["Model"] + labels, rows))
    if any(_nan(v) for row in matrix for v in row):
        blocks.append(("p", f"{UNDEFINED}: the metric has no value on this run; the benchmark's table below says why."))
    return blocks


# --------------------------------------------------------------------------- charts


class Charts:
    """PNG charts with matplotlib (the ``report`` extra); disabled with a note when it is missing."""

    def __init__(self, out_dir: Path) -> None:
        self.out_dir = out_dir
        self.files: list[Path] = []
        try:
            import matplotlib

            matplotlib.use("Agg")
            import matplotlib.pyplot as plt

            self.plt = plt
        except ImportError:
            self.plt = None

    def _save(self, fig, name: str) -> str:  # type: ignore[no-untyped-def]
        path = self.out_dir / "charts" / (re.sub(r"[^A-Za-z0-9_.-]+", "_", name) + ".png")
        path.parent.mkdir(parents=True, exist_ok=True)
        fig.savefig(path, dpi=110, bbox_inches="tight")
        self.plt.close(fig)
        self.files.append(path)
        return f"charts/{path.name}"

    def language_bars(self, series: Mapping[str, Mapping[str, float]], title: str, name: str,
                      errors: Mapping[str, Mapping[str, float | None]] | None = None) -> str | None:  # fmt: skip
        """Horizontal grouped bars: one group per language (or slice value), one bar per run; ``errors``: the
        95% half-width of each bar (drawn as an interval; the title says how it was computed)."""
        if self.plt is None or not series:
            return None
        groups = sorted({g for s in series.values() for g in s})
        n = len(series)
        height = 0.8 / n
        fig, ax = self.plt.subplots(figsize=(7, max(2.0, 0.28 * len(groups) * max(1, n ** 0.5) + 1)))
        for i, (label, values) in enumerate(series.items()):
            ys = [j + i * height for j in range(len(groups))]
            shown = [_number(values.get(g)) for g in groups]
            widths = [_number((errors or {}).get(label, {}).get(g)) for g in groups]
            xerr = [w or 0.0 for w in widths] if any(w for w in widths) else None
            bars = ax.barh(ys, [v or 0.0 for v in shown], height=height, label=label, xerr=xerr,
                           error_kw={"elinewidth": 0.8, "capsize": 2, "ecolor": "#333"})  # fmt: skip
            # Every bar says its value: a zero-length bar (or a missing value) is not an empty axis.
            ax.bar_label(bars, [MISSING if v is None else fmt(v, 1) for v in shown], padding=2, fontsize="x-small")
        ax.set_yticks([j + height * (n - 1) / 2 for j in range(len(groups))], groups)
        ax.invert_yaxis()
        ax.set_xlim(0, 105)
        ax.set_title(f"{title} (%)" + ("\nbars: 95% intervals, binomial within each group" if errors else ""))
        _all_zero_note(ax, [v for values in series.values() for v in values.values()])
        ax.grid(axis="x", alpha=0.3)
        if n > 1:  # below the tick labels (about 0.3 inch), whatever the figure height
            offset = 0.3 / (ax.get_position().height * fig.get_figheight())
            ax.legend(fontsize="small", loc="upper center", bbox_to_anchor=(0.5, -offset), ncol=min(n, 3))
        return self._save(fig, name)

    def radar(self, series: Mapping[str, Mapping[str, float | None]], title: str, name: str) -> str | None:
        """One polygon per run over the conditions (or any groups; three at least)."""
        if self.plt is None or not series:
            return None
        axes = sorted({c for s in series.values() for c in s})
        if len(axes) < 3:
            return None
        angles = [2 * math.pi * i / len(axes) for i in range(len(axes))]
        fig = self.plt.figure(figsize=(6.5, 6.5))
        ax = fig.add_subplot(projection="polar")
        for label, values in series.items():
            vals = [values.get(a) or 0.0 for a in axes]
            ax.plot(angles + angles[:1], vals + vals[:1], linewidth=1.5, label=label)
            ax.fill(angles + angles[:1], vals + vals[:1], alpha=0.1)
        ax.set_xticks(angles, [a.replace("_", " ") for a in axes], fontsize="small")
        ax.set_ylim(0, 100)
        ax.set_title(title, pad=24)
        _all_zero_note(ax, [v for values in series.values() for v in values.values()])
        ax.legend(fontsize="small", loc="upper center", bbox_to_anchor=(0.5, -0.06), ncol=min(len(series), 3))
        return self._save(fig, name)

    def curve(self, series: Mapping[str, Sequence[Any]], xs: Sequence[str], title: str, x_label: str, y_label: str,
              name: str, errors: Mapping[str, Sequence[float | None]] | None = None) -> str | None:  # fmt: skip
        """One line per run over ordered x values (missing points are gaps); ``errors``: 95% half-widths."""
        if self.plt is None or not series:
            return None
        fig, ax = self.plt.subplots(figsize=(6, 3.6))
        for label, ys in series.items():
            values = [y if isinstance(y, (int, float)) else float("nan") for y in ys]
            widths = [(w if isinstance(w, (int, float)) else 0.0) for w in (errors or {}).get(label, [])]
            if widths and any(widths):
                ax.errorbar(range(len(xs)), values, yerr=widths, marker="o", capsize=3, label=label)
            else:
                ax.plot(range(len(xs)), values, marker="o", label=label)
        ax.set_xticks(range(len(xs)), xs)
        ax.set_xlabel(x_label)
        ax.set_ylabel(y_label)
        ax.set_title(title)
        ax.grid(alpha=0.3)
        ax.legend(fontsize="small")
        return self._save(fig, name)

    def heatmap(self, rows: Sequence[str], cols: Sequence[str], matrix: Sequence[Sequence[Any]], name: str,
                lower_is_better: Sequence[bool] = ()) -> str | None:  # fmt: skip
        """Colour per column (min-max over runs, reversed for error scores), raw values written in the cells."""
        if self.plt is None:
            return None
        fig, ax = self.plt.subplots(figsize=(1.3 * len(cols) + 2.5, 0.55 * len(rows) + 1.8))
        norm = []
        for j in range(len(cols)):
            col = [row[j] for row in matrix if isinstance(row[j], (int, float)) and not math.isnan(row[j])]
            lo, hi = (min(col), max(col)) if col else (0.0, 1.0)
            norm.append([((row[j] - lo) / (hi - lo) if hi > lo else 0.5) if isinstance(row[j], (int, float)) and not math.isnan(row[j]) else float("nan") for row in matrix])
            if j < len(lower_is_better) and lower_is_better[j]:
                norm[-1] = [1.0 - v for v in norm[-1]]
        data = [[norm[j][i] for j in range(len(cols))] for i in range(len(rows))]
        ax.imshow(data, cmap="viridis", aspect="auto", vmin=0, vmax=1)
        for i, row in enumerate(matrix):
            for j, value in enumerate(row):
                text = MISSING if value is None else UNDEFINED if _nan(value) else (f"{value:.3f}" if isinstance(value, float) and abs(value) <= 1 else fmt(value, 1))
                ax.text(j, i, text, ha="center", va="center", color="white" if (data[i][j] or 0) < 0.6 else "black", fontsize="small")
        ax.set_xticks(range(len(cols)), cols, rotation=30, ha="right", fontsize="small")
        ax.set_yticks(range(len(rows)), rows)
        ax.set_title("Headline numbers (colour: position between the column's worst and best run"
                     + ("; lower is better for MAPE/MAE/RMSE)" if any(lower_is_better) else ")"))
        return self._save(fig, name)


def _all_zero_note(ax, values: Iterable[Any]) -> None:  # type: ignore[no-untyped-def]
    """Say so on a chart whose values are all 0 (or missing): its bars or polygons have no area."""
    numbers = [v for v in map(_number, values) if v is not None and not math.isnan(v)]
    if any(numbers):
        return
    ax.text(0.5, 0.5, "all values 0" if numbers else "no values", transform=ax.transAxes, ha="center", va="center", fontsize="large", color="#555",
            bbox={"boxstyle": "round", "facecolor": "white", "edgecolor": "#bbb"})  # fmt: skip


# --------------------------------------------------------------------------- rendering


def _md_table(header: Sequence[str], rows: Sequence[Sequence[str]]) -> str:
    def esc(cell: str) -> str:
        return str(cell).replace("|", "\\|").replace("\n", " ")

    lines = ["| " + " | ".join(esc(h) for h in header) + " |", "|" + "|".join("---" for _ in header) + "|"]
    return "\n".join(lines + ["| " + " | ".join(esc(c) for c in row) + " |" for row in rows])


def to_markdown(blocks: Sequence[Block]) -> str:
    out = []
    for block in blocks:
        kind = block[0]
        if kind == "h":
            out.append("#" * block[1] + " " + block[2])
        elif kind == "p":
            out.append(block[1])
        elif kind == "list":
            out.append("\n".join(f"- {item}" for item in block[1]))
        elif kind == "warn":
            out.append("> **⚠ " + block[1].replace("\n", "\n> ") + "**" if "\n" not in block[1] else "> **⚠** " + block[1].replace("\n", "\n> "))
        elif kind == "table":
            out.append(_md_table(block[1], block[2]))
        elif kind == "details":
            out.append(f"<details><summary>{html.escape(block[1])}</summary>\n\n{_md_table(block[2], block[3])}\n\n</details>")
        elif kind == "img":
            out.append(f"![{block[2]}]({block[1]})")
    return "\n\n".join(out) + "\n"


_INLINE = [(re.compile(r"\*\*(.+?)\*\*"), r"<b>\1</b>"), (re.compile(r"`([^`]+)`"), r"<code>\1</code>"),
           (re.compile(r"(?<![\w*])\*([^*\n]+)\*(?![\w*])"), r"<i>\1</i>")]  # fmt: skip


def _inline(text: str) -> str:
    """Escapes, then renders the few Markdown marks the report writes (**bold**, `code`, *italic*)."""
    text = html.escape(text, quote=False)
    for pattern, repl in _INLINE:
        text = pattern.sub(repl, text)
    return text


def _html_lines(text: str) -> str:
    """Lines of a paragraph: runs of ``- `` lines become a bulleted list, other lines are joined by breaks."""
    parts: list[str] = []
    items: list[str] = []
    for line in text.split("\n"):
        if line.startswith("- "):
            items.append(f"<li>{_inline(line[2:])}</li>")
            continue
        if items:
            parts.append("<ul>" + "".join(items) + "</ul>")
            items = []
        parts.append(_inline(line) + "<br>")
    if items:
        parts.append("<ul>" + "".join(items) + "</ul>")
    return "".join(parts).removesuffix("<br>")


def _html_table(header: Sequence[str], rows: Sequence[Sequence[str]]) -> str:
    head = "".join(f"<th>{_inline(h)}</th>" for h in header)
    body = "".join("<tr>" + "".join(f"<td>{_inline(str(c))}</td>" for c in row) + "</tr>" for row in rows)
    return f"<div class='scroll'><table><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table></div>"


STYLE = ("body{font-family:system-ui,sans-serif;max-width:1200px;margin:2em auto;padding:0 1em;color:#222}"
         "table{border-collapse:collapse;margin:1em 0;font-size:14px}th,td{border:1px solid #ccc;padding:3px 8px;text-align:right}"
         "th:first-child,td:first-child{text-align:left;white-space:nowrap}tr:nth-child(even){background:#f6f6f6}"
         ".scroll{overflow-x:auto}"
         ".warn{background:#fff3cd;border-left:4px solid #e0a800;padding:.5em 1em}.p{margin:1em 0}ul{margin:.3em 0}"
         "img{max-width:100%}")  # fmt: skip


def to_html(blocks: Sequence[Block], title: str) -> str:
    out = [f"<!DOCTYPE html><html><head><meta charset='utf-8'><title>{html.escape(title)}</title><style>{STYLE}</style></head><body>"]
    for block in blocks:
        kind = block[0]
        if kind == "h":
            out.append(f"<h{block[1]}>{_inline(block[2])}</h{block[1]}>")
        elif kind == "p":
            out.append(f"<div class='p'>{_html_lines(block[1])}</div>")
        elif kind == "list":
            out.append(_html_lines("\n".join(f"- {item}" for item in block[1])))
        elif kind == "warn":
            out.append(f"<div class='warn'>⚠ {_html_lines(block[1])}</div>")
        elif kind == "table":
            out.append(_html_table(block[1], block[2]))
        elif kind == "details":
            out.append(f"<details><summary>{html.escape(block[1])}</summary>{_html_table(block[2], block[3])}</details>")
        elif kind == "img":
            out.append(f"<p><img src='{html.escape(block[1])}' alt='{html.escape(block[2])}'></p>")
    return "\n".join(out) + "</body></html>\n"


def build_report(paths: Iterable[str | Path], out_dir: str | Path) -> dict[str, Any]:
    """Writes ``report.md``, ``report.html`` and ``charts/*.png`` into ``out_dir``.

    Returns:
        ``{"markdown", "html", "charts", "runs"}`` (paths and run labels).

    Raises:
        ReportInputError: no results files, or a file that is not an lmms-eval results file.
    """
    runs = load_runs(paths)  # every input read before anything is written (a typo leaves no folder behind)
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    charts = Charts(out)
    blocks: list[Block] = [("h", 1, "food-tasks report"), ("p", "Runs:")]
    blocks.append(("list", [f"**{r.label}**" + (f" (`{r.model}`)" if r.model and r.model != r.label else "") + ": "
                            + ", ".join(f"`{p}`" for p in r.paths) for r in runs]))  # fmt: skip
    blocks.append(("p", ("*official*: the benchmark's own parser and scorer (compare with the paper rows); *robust*: "
                         "our parser (reasoning removed, multilingual answer forms, ambiguity = unparsed). Rates beside "
                         "the scores count outputs that could not be parsed and inputs whose images were missing.")))
    if charts.plt is None:
        blocks.append(("warn", "matplotlib is not installed: no charts (pip install 'food-tasks[report]')."))
    # Tasks no registry entry claims; groups (no config of their own) are left out.
    others = sorted({t for r in runs for t in r.metrics if spec_for(t) is None and t in r.fingerprints
                     and any(isinstance(v, (int, float, dict)) and m != "alias" for m, v in r.metrics[t].items())})  # fmt: skip
    blocks += heatmap_blocks(runs, charts, others)
    for spec in _registry():
        blocks += benchmark_blocks(spec, runs, charts)
    blocks += generic_blocks(others, runs, charts)
    md_path, html_path = out / "report.md", out / "report.html"
    md_path.write_text(to_markdown(blocks), encoding="utf-8")
    html_path.write_text(to_html(blocks, "food-tasks report"), encoding="utf-8")
    return {"markdown": md_path, "html": html_path, "charts": charts.files, "runs": [r.label for r in runs]}
