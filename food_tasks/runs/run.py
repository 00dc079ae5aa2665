"""One run read back from lmms-eval's files: :class:`Run`, :func:`load_run` (one results file, ``food-tasks compare``)
and :func:`load_runs` (one run per model, its results files merged: the report).

Each results file is read once, by :func:`food_tasks.lmms.runfiles.read_results`, when the run is loaded; a task's
samples file (``--log_samples``: the first metric of each task logs the whole per-document record) is read when first
asked for (:meth:`Run.task`), once.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from food_tasks.lmms import runfiles
from food_tasks.lmms.errorbars import RunTask, tables_for
from food_tasks.stats.confidence import MIN_UNITS
from food_tasks.tasks import registry

FILTER = "none"  # the lmms-eval filter our metrics are reported under
# The task-name token of a rotated task, read ONLY for results files written before rotation_of was declared.
UNDECLARED_ROTATION = "_circular"


@dataclass
class Run:
    """One model's results: one results file, or several of the same model with disjoint tasks (the report).

    ``model`` names the model as the run's ``model_args`` do (a local checkpoint by its full path); ``label`` is the
    short name the tables show (:func:`short_label`), unique among the runs of a report. ``metrics``, ``stderr``,
    ``units`` and ``counts`` hold each task's or group's values under the ``none`` filter (:meth:`value`, :meth:`se`);
    ``data`` each results file's JSON, by path (:meth:`reported`, :meth:`task`, :attr:`tasks`, :attr:`groups`).
    """

    label: str
    paths: list[Path]
    metrics: dict[str, dict[str, Any]]  # task or group -> {metric: value}
    fingerprints: dict[str, dict[str, Any]] = field(default_factory=dict)  # task -> comparability settings
    partial: dict[str, tuple[int, int]] = field(default_factory=dict)  # task -> (effective, original) documents
    model: str = ""
    stderr: dict[str, dict[str, float]] = field(default_factory=dict)  # task or group -> {metric: standard error}
    files: dict[str, Path] = field(default_factory=dict)  # task or group -> its results file
    units: dict[str, dict[str, Any]] = field(
        default_factory=dict
    )  # task or group -> {metric: independent units (clusters)}
    counts: dict[str, dict[str, Any]] = field(default_factory=dict)  # task or group -> {metric: documents behind it}
    data: dict[Path, dict] = field(default_factory=dict, repr=False)  # results file -> its JSON, read once
    read: dict[str, RunTask | None] = field(default_factory=dict, repr=False, compare=False)  # task -> its samples

    # ----------------------------------------------------------------- the report's view: values under `none`

    def value(self, task: str, metric: str) -> Any:
        """The metric's value in the task's (or group's) results, None when absent."""
        return self.metrics.get(task, {}).get(metric)

    def few(self, task: str, metric: str) -> bool:
        """True when fewer than :data:`MIN_UNITS` independent units (clusters) are behind the metric's error."""
        value = self.units.get(task, {}).get(metric)
        return isinstance(value, (int, float)) and value < MIN_UNITS

    def unit_count(self, task: str, metric: str) -> int | None:
        """The independent units (clusters) behind the metric's error, else its documents, else None."""
        for source in (self.units, self.counts):
            value = source.get(task, {}).get(metric)
            if isinstance(value, (int, float)) and not isinstance(value, bool) and value > 0:
                return int(value)
        return None

    def se(self, task: str, metric: str) -> float | None:
        """The metric's standard error (food_tasks.lmms.errorbars), or None (none computed, or not a number)."""
        value = self.stderr.get(task, {}).get(metric)
        return (
            value if isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value) else None
        )

    # ----------------------------------------------------------------- the results files as lmms-eval wrote them

    @property
    def path(self) -> Path:
        """The run's (first) results file."""
        return self.paths[0]

    def _section(self, key: str) -> dict:
        merged: dict = {}
        for path in self.paths:
            merged.update((self.data.get(path) or {}).get(key) or {})
        return merged

    @property
    def tasks(self) -> list[str]:
        """Tasks (not groups) the run reports."""
        configs = self._section("configs")
        return [t for t in self._section("results") if t in configs]

    @property
    def groups(self) -> list[str]:
        """Groups the run reports a value for (lmms-eval lists them under results, and under groups too)."""
        reported = {**self._section("results"), **self._section("groups")}
        return [g for g, children in self._section("group_subtasks").items() if children and g in reported]

    def row(self, name: str) -> dict:
        """The task's or group's results row as lmms-eval wrote it (every filter; ``{}`` when absent)."""
        data = self.data.get(self.files.get(name, self.path)) or {}
        return {**((data.get("results") or {}).get(name) or {}), **((data.get("groups") or {}).get(name) or {})}

    def reported(self, name: str, metric: str) -> Any:
        """The reported value of ``metric`` (any filter) for task or group ``name``; None when the run has none, NaN
        when it is undefined (``null`` in the results file, as lmms-eval writes it through our harness)."""
        data = self.data.get(self.files.get(name, self.path)) or {}
        for section in ("results", "groups"):
            for key, value in ((data.get(section) or {}).get(name) or {}).items():
                if key.partition(",")[0] == metric:
                    return math.nan if value is None else value
        return None

    def task(self, task: str) -> RunTask | None:
        """The task's table and per-document records (None when there is no samples file or table)."""
        if task not in self.read:
            path = self.files.get(task, self.path)
            tables = tables_for(task, ((self.data.get(path) or {}).get("configs") or {}).get(task))
            found = runfiles.samples_file(path, task) if tables else None
            self.read[task] = RunTask(tables[0], runfiles.read_records(found, tables[0]), tables) if found else None
        return self.read[task]

    def variant(self, task: str) -> tuple[str, str] | None:
        """``(kind, base task)`` that the task's config declares in its results file (``configs.<task>.metadata``,
        :func:`food_tasks.tasks.registry.variant_in`): ``("noimage", <image twin>)``, ``("circular", <task rotated>)``;
        None for a base task. Read from the declaration, never from the task's name.

        Results files written before rotation was declared (``rotation_of``, food-tasks 0.1.0 of 2026-11-27) name
        no base task for a ``_circular`` task: for a config that declares no variant at all, and only then, the old
        name rule stands in (``<base>_circular<...>`` rotates ``<base><...>``). An image-free twin has declared its
        ``image_twin`` since such twins exist, so it has no such fallback."""
        config = ((self.data.get(self.files.get(task, self.path)) or {}).get("configs") or {}).get(task) or {}
        metadata = config.get("metadata") if isinstance(config, dict) else None
        declared = registry.variant_in(metadata)
        if declared is not None or not isinstance(config, dict) or not config:
            return declared
        # Older results files only (no declaration in this config): the suffix rule they were written under.
        base = task.replace(UNDECLARED_ROTATION, "", 1)
        return ("circular", base) if base != task else None

    def leaves(self, name: str) -> list[str]:
        """The tasks under a group (recursively), or [name] for a task."""
        children = self._section("group_subtasks").get(name)
        if not children:
            return [name]
        return [leaf for child in children for leaf in self.leaves(child)]

    def members(self, name: str) -> list[RunTask] | None:
        """The tasks under a group (:meth:`leaves`), or the task itself, read back (:meth:`task`); None when one of
        them has no samples file (or no table)."""
        found = [self.task(t) for t in self.leaves(name)]
        return None if any(m is None for m in found) else found  # type: ignore[return-value]


def _model_label(data: Mapping[str, Any]) -> str:
    config = data.get("config") or {}
    args = str(config.get("model_args") or "")
    named = dict(part.split("=", 1) for part in args.split(",") if "=" in part)
    for key in ("pretrained", "model", "model_version", "model_name", "responses"):
        if named.get(key):
            return f"{named[key]}" if key != "responses" else f"{config.get('model')} ({Path(named[key]).name})"
    return str(data.get("model_name") or config.get("model") or "model")


def model_name(data: Mapping[str, Any]) -> str:
    """The model of a results file as its ``model_args`` name it (a local checkpoint by its full path): what makes
    two results files one model's (the report merges them; image gains pair a task and its twin only within one)."""
    return _model_label(data)


def model_label(data: Mapping[str, Any]) -> str:
    """The short name of a results file's model, as the report's tables and ``food-tasks compare`` show it."""
    return short_label(_model_label(data))


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


def from_results(path: Path, data: Mapping[str, Any]) -> Run:
    """The run of one results file (``data``: its JSON, as :func:`food_tasks.lmms.runfiles.read_results` returned
    it)."""
    metrics: dict[str, dict[str, Any]] = {}
    stderr: dict[str, dict[str, float]] = {}
    units: dict[str, dict[str, Any]] = {}
    n_docs: dict[str, dict[str, Any]] = {}
    for section in ("results", "groups"):
        for task, values in (data.get(section) or {}).items():
            clean = {
                k.rsplit(",", 1)[0]: v for k, v in values.items() if k.endswith(f",{FILTER}") and "_stderr" not in k
            }
            # <metric>_n and <metric>_clusters (food_tasks.lmms.errorbars) describe a metric, they are not metrics
            described = {m for m in clean if m.endswith(("_n", "_clusters")) and m.rsplit("_", 1)[0] in clean}
            units.setdefault(task, {}).update(
                {m.removesuffix("_clusters"): clean[m] for m in described if m.endswith("_clusters")}
            )
            n_docs.setdefault(task, {}).update({m.removesuffix("_n"): clean[m] for m in described if m.endswith("_n")})
            clean = {m: v for m, v in clean.items() if m not in described}
            metrics.setdefault(task, {}).update(clean)
            stderr.setdefault(task, {}).update(
                {
                    k.rsplit(",", 1)[0].removesuffix("_stderr"): v
                    for k, v in values.items()
                    if k.endswith(f"_stderr,{FILTER}")
                }
            )
    tasks = {t for t in metrics if t in (data.get("configs") or {})}
    counts = data.get("n-samples") or {}
    partial = {
        t: (int(c["effective"]), int(c["original"]))
        for t, c in counts.items()
        if isinstance(c, dict)
        and c.get("effective") is not None
        and c.get("original") is not None
        and int(c["effective"]) < int(c["original"])
    }
    model = _model_label(data)
    return Run(
        short_label(model),
        [path],
        metrics,
        {t: _fingerprint(data, t) for t in tasks},
        partial,
        model,
        stderr,
        dict.fromkeys(metrics, path),
        units,
        n_docs,
        {path: dict(data)},
    )


def load_run(path: str | Path) -> Run:
    """A run from its results file, or from the newest results file below a folder (``food-tasks compare``)."""
    path = Path(path)
    if path.is_dir():
        found = runfiles.newest_results(path)
        if found is None:
            raise FileNotFoundError(f"{path}: no lmms-eval results file (*_results.json) below this folder")
        path = found
    if not path.is_file():
        raise FileNotFoundError(f"{path}: no such results file or folder")
    return from_results(path, runfiles.read_results(path))


def load_runs(paths: Iterable[str | Path]) -> list[Run]:
    """One :class:`Run` per model (the report): results files of one model with disjoint tasks are merged."""
    runs: list[Run] = []
    for path in runfiles.results_files(paths):
        run = from_results(path, runfiles.read_results(path))
        same = next((r for r in runs if r.model == run.model and not set(r.metrics) & set(run.metrics)), None)
        if same is not None:
            same.paths.append(path)
            for name in ("metrics", "fingerprints", "partial", "stderr", "units", "counts", "files", "data"):
                getattr(same, name).update(getattr(run, name))
            continue
        taken = sum(r.label == run.label or r.label.startswith(run.label + " #") for r in runs)
        if taken:
            run.label = f"{run.label} #{taken + 1}"
        runs.append(run)
    return runs
