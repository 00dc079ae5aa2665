"""One run read back from lmms-eval's files: :class:`Run`, :func:`load_run` (one results file, ``food-tasks compare``)
and :func:`load_runs` (one run per model, its results files merged: the report); and two runs read for a comparison:
:func:`read_pair` (all ``food-tasks compare`` needs, read before anything is computed), :func:`read_one` (one task
or group of both runs: the report's paired tables), :func:`gain_pairs` (each task and its image-free twin).

Each results file is read once, by :func:`food_tasks.lmms.runfiles.read_results`, when the run is loaded; a task's
samples file (``--log_samples``: the first metric of each task logs the whole per-document record) is read when first
asked for (:meth:`Run.task`), once.
"""

from __future__ import annotations

import json
import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from food_tasks.judge.family import family_matches, own_family_note
from food_tasks.judge.probes import notes as probe_notes
from food_tasks.lmms import runfiles
from food_tasks.lmms.facts import TaskFacts
from food_tasks.stats.comparison import XLING, GainRead, Read
from food_tasks.stats.confidence import MIN_UNITS
from food_tasks.stats.paired import RunTask

FILTER = "none"  # the lmms-eval filter our metrics are reported under
JUDGE_KEY = "judge model"  # the comparability setting of a judged task's headline judge


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
    facts: dict[str, TaskFacts] = field(default_factory=dict, repr=False)  # task or group -> what its results mean

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
        return self.values(name).get(metric)

    def values(self, name: str) -> dict[str, Any]:
        """Every reported value of task or group ``name`` by metric (any filter, the first one written; NaN when it
        is undefined: ``null`` in the results file, as lmms-eval writes it through our harness)."""
        data = self.data.get(self.files.get(name, self.path)) or {}
        out: dict[str, Any] = {}
        for section in ("results", "groups"):
            for key, value in ((data.get(section) or {}).get(name) or {}).items():
                out.setdefault(key.partition(",")[0], math.nan if value is None else value)
        return out

    def task(self, task: str) -> RunTask | None:
        """The task's table and per-document records (None when there is no samples file or table)."""
        if task not in self.read:
            tables = self.facts_of(task).tables
            found = runfiles.samples_file(self.files.get(task, self.path), task) if tables else None
            self.read[task] = RunTask(tables[0], runfiles.read_records(found, tables[0]), tables) if found else None
        return self.read[task]

    def facts_of(self, name: str) -> TaskFacts:
        """What the results of task or group ``name`` mean (:class:`food_tasks.lmms.facts.TaskFacts`), resolved when
        the run was loaded (an empty sheet for a name the run does not report)."""
        return self.facts.get(name) or TaskFacts(name)

    def variant(self, task: str) -> tuple[str, str] | None:
        """``(kind, base task)`` that the task's config declares in its results file (its facts'
        :attr:`~food_tasks.lmms.facts.TaskFacts.variant`): ``("noimage", <image twin>)``, ``("circular", <task
        rotated>)``, ``("sample", <full-data task>)``; None for a base task. Read from the declaration, never from the
        task's name (older results files: :func:`food_tasks.tasks.registry.declared_variant`)."""
        return self.facts_of(task).variant

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
    return {JUDGE_KEY: info.get("model")} if isinstance(info, Mapping) else {}


def from_results(path: Path, data: Mapping[str, Any], facts: Mapping[str, TaskFacts]) -> Run:
    """The run of one results file, as :func:`food_tasks.lmms.runfiles.read_run` read it: ``data``, its JSON, and
    ``facts``, what each of its tasks' and groups' results mean."""
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
    fingerprints = {t: _fingerprint(data, t) for t in tasks}
    return Run(
        short_label(model),
        [path],
        metrics,
        fingerprints,
        partial,
        model,
        stderr,
        dict.fromkeys(metrics, path),
        units,
        n_docs,
        {path: dict(data)},
        facts=dict(facts),
    )


def load_run(path: str | Path) -> Run:
    """A run from its results file, or from the newest results file below a folder (``food-tasks compare``)."""
    return from_results(*runfiles.read_run(path))


def load_runs(paths: Iterable[str | Path]) -> list[Run]:
    """One :class:`Run` per model (the report): results files of one model with disjoint tasks are merged."""
    runs: list[Run] = []
    for path in runfiles.results_files(paths):
        run = from_results(*runfiles.read_run(path))
        same = next((r for r in runs if r.model == run.model and not set(r.metrics) & set(run.metrics)), None)
        if same is not None:
            same.paths.append(path)
            for name in ("metrics", "fingerprints", "partial", "stderr", "units", "counts", "files", "data", "facts"):
                getattr(same, name).update(getattr(run, name))
            continue
        taken = sum(r.label == run.label or r.label.startswith(run.label + " #") for r in runs)
        if taken:
            run.label = f"{run.label} #{taken + 1}"
        runs.append(run)
    return runs


# ----------------------------------------------------------------- two runs read for a comparison


def read_one(a: Run, b: Run, name: str, records: dict | None = None) -> Read | None:
    """Task or group ``name`` of both runs as planned for reading (None when the runs do not both report it): its
    facts, reported values and the tasks whose records it needs, which :func:`read_records` reads into
    ``records`` (a fresh mapping when None: then read here); each run's every task too where both report a cross-task
    consistency measure of it (``xling_*``)."""
    group = name not in a.tasks or name not in b.tasks
    if group and (name not in a.groups or name not in b.groups):
        return None
    values = a.values(name), b.values(name)
    leaves = a.leaves(name) if group else [name]
    pooled = not group and any(values[0].get(m) is not None and values[1].get(m) is not None for m in XLING)
    read = Read(
        name,
        a.facts_of(name),
        values,
        tuple((t, a.facts_of(t)) for t in leaves),
        {} if records is None else records,
        tuple(a.row(name)) if group else (),
        (str(a.path), str(b.path)),
        group,
        pooled,
    )
    if records is None:
        read_records((a, b), _wanted((a, b), [read], []), read.records)  # type: ignore[arg-type]
    return read


def gain_pairs(runs: Sequence[Run]) -> list[tuple[Run, Run, str, str]]:
    """``(run with the image, run without it, task, image-free twin)``: each task of ``runs`` paired with its twin
    as ``food-tasks compare`` and the report both pair them. A model's image gain is its own score with the image
    against its own score without it: the twin comes from the task's own run when that run holds it, else from
    another run of the same model (:attr:`Run.model`: results files of one model given separately); runs of
    different models are never paired. Tasks only: a group has no samples file of its own (its tasks are paired
    one by one). A run given twice counts once. The twins are those the runs' facts declare
    (:meth:`Run.variant`)."""
    unique = list({r.path: r for r in runs}.values())
    out = []
    for run in unique:
        same = [run] + [r for r in unique if r is not run and r.model == run.model]
        pairs = [(source, twin_pairs(run, source)) for source in same]
        for task in sorted(run.tasks, key=lambda t: (run.paths.index(run.files.get(t, run.path)), t)):  # file by file
            for source, found in pairs:
                twins = [twin for x, twin in found if x == task]
                if twins:
                    out += [(run, source, task, twin) for twin in twins]
                    break
    return out


def twin_pairs(with_run: Run, without_run: Run) -> list[tuple[str, str]]:
    """``(task, image-free twin)``: the image-free tasks of ``without_run`` whose image twin ``with_run`` holds."""
    found = [(without_run.variant(t), t) for t in without_run.tasks]
    return sorted((v[1], twin) for v, twin in found if v is not None and v[0] == "noimage" and v[1] in with_run.tasks)


def gain_read(
    with_run: Run, without_run: Run, task: str, twin: str, runs: str = "", records: dict | None = None
) -> GainRead:
    """A task and its image-free twin as planned for reading (``runs``: which run of a comparison, A or B, each
    comes from; the records are read into that comparison's ``records``); alone (``records`` None), read here."""
    sides = (int(runs[:1] == "B"), int(runs[-1:] == "B")) if runs else (0, 1)
    paths = (str(with_run.files.get(task, with_run.path)), str(without_run.files.get(twin, without_run.path)))
    tabled = (with_run.facts_of(task).table is not None, without_run.facts_of(twin).table is not None)
    found = GainRead(with_run.label, runs, task, twin, sides, paths, {} if records is None else records, tabled)
    if records is None:
        read_records((with_run, without_run), _wanted((with_run, without_run), [], [found]), found.records)  # type: ignore[arg-type]
    return found


def _wanted(runs: Sequence[Run], reads: Sequence[Read], gains: Sequence[GainRead]) -> list[tuple[int, str]]:
    """``(run, task)`` of every samples file the reads and gains need (run: 0 for A, 1 for B), each once."""
    wanted = [(side, t) for read in reads for t, _ in read.members for side in (0, 1)]
    wanted += [(side, t) for read in reads if read.pooled for side in (0, 1) for t in runs[side].tasks]
    wanted += [pair for gain in gains for pair in ((gain.sides[0], gain.task), (gain.sides[1], gain.twin))]
    return list(dict.fromkeys(wanted))


def read_records(runs: Sequence[Run], wanted: Sequence[tuple[int, str]], records: dict) -> None:
    """Read each ``(run, task)`` of ``wanted`` into ``records`` (:meth:`Run.task`: each samples file once)."""
    for side, task in wanted:
        records[side, task] = runs[side].task(task)


@dataclass
class Pair:
    """Runs A and B as read for ``food-tasks compare``: every task and group both report (tasks first), every image
    gain pair, whether A and B are one run, the judges of the model's own family, the tasks whose headline judges
    differ, and each judge's probe figures."""

    a: Run
    b: Run
    reads: list[Read]
    gains: list[GainRead]
    cross_gains: int  # image gains paired across the two runs
    same: bool
    family_note: str | None  # the warning of a judge of the evaluated model's own family (judge.family)
    judges_differ: list[str] = field(default_factory=list)  # comparability_problems of the headline judge
    probes: list[tuple[int, str, str]] = field(default_factory=list)  # (run: 0 A, 1 B; task; probe line)

    @property
    def shared(self) -> bool:
        """Whether there is something to compare: a task or group both report, or an image gain across the runs."""
        a, b = self.a, self.b
        return bool(set(a.tasks) & set(b.tasks) or set(a.groups) & set(b.groups) or self.cross_gains)


def read_pair(a: Run, b: Run) -> Pair:
    """All ``food-tasks compare`` needs of runs A and B, read before anything is computed: each run's facts and
    values first, then every samples file the comparison needs, each once (:func:`read_records`)."""
    pairs = gain_pairs([a, b])  # image gains, across the two runs too
    names = {b.path: "B", a.path: "A"}
    same = [p.resolve() for p in a.paths] == [p.resolve() for p in b.paths]
    judged = [(run, run.model or run.label, run.facts_of(t).judges) for run in (a, b) for t in sorted(run.metrics)]
    shared = [t for t in a.tasks if t in b.tasks] + [g for g in a.groups if g in b.groups]
    records: dict[tuple[int, str], Any] = {}
    reads = [found for name in shared if (found := read_one(a, b, name, records)) is not None]
    gains = [gain_read(w, wo, task, twin, f"{names[w.path]}/{names[wo.path]}", records) for w, wo, task, twin in pairs]
    read_records((a, b), _wanted((a, b), reads, gains), records)
    family = own_family_note(family_matches(judged))  # a judge of the model's own family: said once
    differ = [
        problem
        for problem in comparability_problems([a, b], set(a.fingerprints) & set(b.fingerprints))
        if problem.startswith(f"{JUDGE_KEY} differs")
    ]
    probes = probes_of(a, b)
    return Pair(a, b, reads, gains, sum(w.path != wo.path for w, wo, _, _ in pairs), same, family, differ, probes)


def read_paths(path_a: str | Path, path_b: str | Path) -> Pair:
    """:func:`read_pair` of the runs of two results files (or folders: the newest results file below each), each
    loaded in one read (:func:`load_run`): all ``food-tasks compare`` reads."""
    return read_pair(load_run(path_a), load_run(path_b))


def probes_of(a: Any, b: Any) -> list[tuple[int, str, str]]:
    """Each judge's probe figures of runs A and B: ``(run: 0 A, 1 B; task; the judge_info probes' note line)``, by
    task name (reads only ``run.metrics`` and ``run.value``)."""
    return [
        (side, task, line)
        for side, run in enumerate((a, b))
        for task in sorted(run.metrics)
        for line in probe_notes(_probes(run.value(task, "judge_info")))
    ]


def _probes(info: Any) -> Any:
    return info.get("probes") if isinstance(info, dict) else None


def comparability_problems(runs: Sequence[Run], tasks: Iterable[str]) -> list[str]:
    """One line per setting where the runs differ, naming the tasks (grouped when they differ alike): the report's
    rule of which runs are comparable, and compare's (the headline judge, :data:`JUDGE_KEY`)."""
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
