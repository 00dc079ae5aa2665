"""Runs as the report sees them: one :class:`Run` per model (its results files merged), read with
:mod:`food_tasks.runfiles`, labelled, and the settings that must match for two runs to be compared."""

from __future__ import annotations

import json
import math
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from food_tasks.confidence import MIN_UNITS
from food_tasks.errors import ReportInputError  # noqa: F401  (raised by the reads below; public here too)
from food_tasks.report.spec import FILTER
from food_tasks.runfiles import read_results, results_files


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
    units: dict[str, dict[str, Any]] = field(
        default_factory=dict
    )  # task or group -> {metric: independent units (clusters)}
    counts: dict[str, dict[str, Any]] = field(default_factory=dict)  # task or group -> {metric: documents behind it}

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
        """The metric's standard error (food_tasks.errorbars), or None (none computed, or not a number)."""
        value = self.stderr.get(task, {}).get(metric)
        return (
            value if isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value) else None
        )


find_results = results_files  # the report's name for it


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


def load_runs(paths: Iterable[str | Path]) -> list[Run]:
    """One :class:`Run` per model; files of one model with disjoint tasks are merged."""
    runs: list[Run] = []
    for path in find_results(paths):
        data = read_results(path)
        metrics: dict[str, dict[str, Any]] = {}
        stderr: dict[str, dict[str, float]] = {}
        units: dict[str, dict[str, Any]] = {}
        n_docs: dict[str, dict[str, Any]] = {}
        for section in ("results", "groups"):
            for task, values in (data.get(section) or {}).items():
                clean = {
                    k.rsplit(",", 1)[0]: v for k, v in values.items() if k.endswith(f",{FILTER}") and "_stderr" not in k
                }
                # <metric>_n and <metric>_clusters (food_tasks.errorbars) describe a metric, they are not metrics
                described = {m for m in clean if m.endswith(("_n", "_clusters")) and m.rsplit("_", 1)[0] in clean}
                units.setdefault(task, {}).update(
                    {m.removesuffix("_clusters"): clean[m] for m in described if m.endswith("_clusters")}
                )
                n_docs.setdefault(task, {}).update(
                    {m.removesuffix("_n"): clean[m] for m in described if m.endswith("_n")}
                )
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
        run = Run(
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
        )
        same = next((r for r in runs if r.model == run.model and not set(r.metrics) & set(run.metrics)), None)
        if same is not None:
            same.paths.append(path)
            same.metrics.update(run.metrics)
            same.fingerprints.update(run.fingerprints)
            same.partial.update(run.partial)
            same.stderr.update(run.stderr)
            same.units.update(run.units)
            same.counts.update(run.counts)
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
    return [
        f"{key} differs ({detail}) in " + ", ".join(f"`{t}`" for t in tasks) for (key, detail), tasks in found.items()
    ]


def flagged_tasks(problems: Sequence[str]) -> set[str]:
    """The tasks named in :func:`comparability_problems` lines."""
    return {name for line in problems for name in re.findall(r"`([^`]+)`", line.rsplit(") in ", 1)[-1])}
