"""``food-tasks rescore RUN [-o OUT]``: a run made with ``--log_samples`` scored again by the installed pack, without
its model and without an image.

lmms-eval itself runs again, with the replay model (``food_tasks_replay``, ``keys=identity``) answering each document
with the text the samples file recorded for it (``filtered_resps``: the model's output after lmms-eval's
reasoning-tag stripping), the source run's tasks and its generation-relevant settings; so the results and samples
files under OUT are lmms-eval's own and ``food-tasks report`` / ``compare`` read them unchanged.

Documents are matched by identity, never by position: the fields of the task's document key
(:meth:`food_tasks.hooks.convention.MetricTable.doc_key`: ``qa_id`` + ``lang``, ``idx``, the caption task's image
``key`` ...), each read from the document column that holds it (:func:`doc_fields`: a regional task's ``id`` from
its ``metadata.regional`` id column); only a regional task without an id column is matched by position
(:func:`doc_identity`). A document of the task that the run did not answer is left out of the re-scored task (not
scored), counted and listed. Each document keeps the image status its record holds (``image_missing``), so no
image is opened, and the token counts the run recorded (``token_counts``) are reported again, as the backend
reported them, so an answer that used its task's whole ``max_new_tokens`` counts in ``truncated_rate`` as in the run.
Each matched document's recorded gold answer (``target``) is compared with the re-scored one (:func:`changed_gold`):
those that changed are counted and listed, and past :data:`MAX_SHARE` of a task the re-score stops. The files land
where the source run's layout puts them (:func:`_mirror_layout`). The provenance goes into the new results file
under :data:`PROVENANCE`.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import food_tasks
from food_tasks.errors import ReportInputError
from food_tasks.lmms import runfiles
from food_tasks.lmms.facts import NO_FIELD, TaskFacts, doc_fields, doc_identity, facts_of, key_names  # noqa: F401
from food_tasks.runs.run import model_name
from food_tasks.tasks import catalogue, registry

PROVENANCE = "food_tasks_rescore"  # the results file's top-level object saying what was re-scored
MAX_SHARE = 0.01  # documents gone or new, per task, beyond which the re-score stops
REPLAY = "food_tasks_replay"
RESPONSES = "rescore_responses.jsonl"  # written under OUT: what the replay model answers
MATCHING = "rescore_matching.json"  # written under OUT by the replay model: documents matched, new, gone
VARIANT_NAMES = {"noimage": "image gain", "circular": "rotation (circular accuracy, flips)"}


class RescoreError(ReportInputError):
    """A run that cannot be re-scored; the message names the file or task and what to do."""


# ----------------------------------------------------------------------------------------- reading the source run


@dataclass
class Source:
    """The run to re-score: its results file, its JSON, its samples files by task and each task's facts; each file
    read once (:func:`read_samples` keeps what it read), and the re-score's results once written (:func:`rescore`)."""

    results: Path
    data: dict
    tasks: list[str]  # leaf tasks of ours with a samples file
    samples: dict[str, Path]
    facts: dict[str, TaskFacts] = field(default_factory=dict)  # task -> what its results mean
    read: dict[str, list[dict]] = field(default_factory=dict, repr=False)  # task -> its samples, once read
    written: dict | None = field(default=None, repr=False)  # the re-score's results JSON, as rescore() wrote it

    @property
    def top(self) -> list[str]:
        """What the run's ``--tasks`` named, as lmms-eval reports it: groups and tasks that no group holds."""
        groups = self.data.get("group_subtasks") or {}
        children = {c for kids in groups.values() for c in (kids or [])}
        names = [g for g in groups if g not in children]
        return names or list(self.tasks)


def results_file(run: str | Path) -> Path:
    """The one results file of ``run`` (a results file, or a folder holding exactly one)."""
    path = Path(run)
    if path.is_file():
        return path
    if not path.exists():
        raise RescoreError(f"{path}: no such file or folder")
    found = sorted(path.rglob(runfiles.RESULTS_GLOB))
    if not found:
        raise RescoreError(f"{path}: no lmms-eval results file (*_results.json) below this folder")
    if len(found) > 1:
        listed = "\n".join(f"  {p}" for p in found)
        raise RescoreError(
            f"{path} holds {len(found)} runs; re-score one at a time: pass one results file of\n{listed}"
        )
    return found[0]


def read_source(run: str | Path) -> Source:
    """The run's results file and samples files, checked: every task ours, every samples file whole."""
    path = results_file(run)
    data = runfiles.read_results(path)
    configs = data.get("configs") or {}
    tasks = [t for t in data["results"] if t in configs]
    facts = {t: facts_of(t, configs.get(t), data["results"].get(t)) for t in tasks}
    ours = catalogue.index()
    unknown = [t for t in tasks if not facts[t].tables and t not in ours]
    if unknown:
        names = sorted(n for n in ours if not n.startswith("_"))
        shown = ", ".join(names[:40]) + (f" ... ({len(names)} in all; `food-tasks list`)" if len(names) > 40 else "")
        raise RescoreError(
            f"{path}: task(s) {', '.join(unknown)} are not tasks of this pack (food-tasks {food_tasks.__version__}); "
            f"re-score a run of its tasks: {shown}"
        )
    samples = {}
    for task in tasks:
        found = runfiles.samples_file(path, task)
        if found is None:
            raise RescoreError(
                f"{path}: no samples file of task {task} beside it (expected "
                f"{path.name.removesuffix('_results.json')}_samples_{task}.jsonl); re-score needs the model's answers: "
                "re-run the evaluation with --log_samples"
            )
        samples[task] = found
    return Source(path, data, tasks, samples, facts)


def read_samples(source: Source, task: str) -> list[dict]:
    """The task's samples, each checked (a JSON object with the model's answer), read once; raises naming file and
    line."""
    if task in source.read:
        return source.read[task]
    path = source.samples[task]
    out = []
    with open(path, "rb") as handle:
        for number, raw in enumerate(handle, 1):
            if not raw.strip():
                continue
            try:
                sample = json.loads(raw.decode("utf-8"))
            except (UnicodeDecodeError, ValueError) as err:
                raise RescoreError(
                    f"{path}: line {number} is damaged ({err}); the samples file was cut or edited: re-run the "
                    "evaluation with --log_samples"
                ) from None
            if not isinstance(sample, dict) or "filtered_resps" not in sample:
                raise RescoreError(f"{path}: line {number} is not an lmms-eval sample (no 'filtered_resps')")
            if several_answers(sample):
                raise RescoreError(
                    f"{path}: line {number} holds {len(sample['filtered_resps'])} answers for one document (a task "
                    "with repeats): re-scoring replays one answer per document, so this run cannot be re-scored"
                )
            out.append(sample)
    expected = ((source.data.get("n-samples") or {}).get(task) or {}).get("effective")
    if isinstance(expected, int) and len(out) < expected:
        raise RescoreError(
            f"{path}: {len(out)} samples, the results file counts {expected} for {task}: the samples file is "
            "truncated; re-run the evaluation with --log_samples"
        )
    source.read[task] = out
    return out


def several_answers(sample: Mapping[str, Any]) -> bool:
    """Whether a sample holds more than one answer (``filtered_resps`` of a task with ``repeats``)."""
    value = sample.get("filtered_resps")
    return isinstance(value, list) and len(value) > 1


def answer_text(sample: Mapping[str, Any]) -> str | None:
    """The answer the task scored: ``filtered_resps`` (one request per document: flattened to its text)."""
    value = sample.get("filtered_resps")
    while isinstance(value, list) and len(value) == 1:
        value = value[0]
    return value if isinstance(value, str) or value is None else json.dumps(value, ensure_ascii=False)


def sample_lines(
    task: str,
    config: Mapping[str, Any] | None,
    samples: Sequence[Mapping[str, Any]],
    facts: TaskFacts | None = None,
) -> list[dict]:
    """One line per sample of ``task``: the task, the record's key fields, ``doc_id``, the answer, the image status
    and the token counts lmms-eval recorded (``token_counts``, where the backend reported any); ``facts``: the task's
    (resolved here when None)."""
    facts = facts_of(task, config) if facts is None else facts
    fields = doc_fields(task, config, facts.key)
    first = next(iter(facts.table)) if facts.table is not None else None
    lines = []
    for sample in samples:
        record = sample.get(first) if first else None
        record = record if isinstance(record, dict) else {}
        line = {
            "task": task,
            "identity": {column: record.get(name) for name, column in fields.items()},
            "doc_id": sample.get("doc_id"),
            "response": answer_text(sample),
        }
        if "image_missing" in record:
            line["image_missing"] = bool(record["image_missing"])
        counts = sample.get("token_counts")
        if isinstance(counts, list) and any(c is not None for c in counts):
            line["token_counts"] = counts  # per request, as the backend reported them: truncated_rate reads them
        lines.append(line)
    return lines


def responses_lines(source: Source) -> list[dict]:
    """The :func:`sample_lines` of every task of the run: what the replay model answers."""
    configs = source.data.get("configs") or {}
    return [
        line
        for task in source.tasks
        for line in sample_lines(task, configs.get(task), read_samples(source, task), source.facts.get(task))
    ]


def line_identity(line: Mapping[str, Any]) -> tuple[str, ...]:
    """The document identity of a :func:`sample_lines` line, as the replay model matches it (:func:`doc_identity`
    of its key fields, by position where it has none)."""
    identity = line["identity"]
    row = {**{k: str(v) for k, v in identity.items()}, "doc_id": line.get("doc_id")}
    return doc_identity(tuple(identity), row)


def _gold(sample: Mapping[str, Any]) -> str:
    """A sample's recorded gold answer (``target``: the task's ``doc_to_target``), as comparable text."""
    return json.dumps(sample.get("target"), ensure_ascii=False, sort_keys=True, default=str)


def changed_gold(source: Source, written: Path) -> dict[str, list[str]]:
    """Per task, the identities (``+``-joined) of the re-scored documents whose gold answer (``target``) differs
    from every one the source run recorded for that identity: the task's data changed since the run. lmms-eval
    0.7.3's ``doc_hash`` is the same for every document, so the target is compared, not a hash."""
    configs = source.data.get("configs") or {}
    out = {}
    for task in source.tasks:
        found = runfiles.samples_file(written, task)
        if found is None:
            continue
        config = configs.get(task)
        before = read_samples(source, task)
        recorded: dict[tuple[str, ...], set[str]] = {}
        for line, sample in zip(sample_lines(task, config, before, source.facts.get(task)), before):
            if "target" in sample:  # a sample without one (edited) has nothing to compare
                recorded.setdefault(line_identity(line), set()).add(_gold(sample))
        with open(found, encoding="utf-8") as handle:
            after = [json.loads(raw) for raw in handle if raw.strip()]
        out[task] = sorted(
            "+".join(key)
            for line, sample in zip(sample_lines(task, config, after, source.facts.get(task)), after)
            if (key := line_identity(line)) in recorded and _gold(sample) not in recorded[key]
        )
    return out


# ----------------------------------------------------------------------------------------- the re-run


def output_root(source: Source) -> Path:
    """The source run's ``--output_path``: the results file's folder, or the one above its model's folder."""
    folder = source.results.resolve().parent
    return folder.parent if folder.name == source.data.get("model_name_sanitized") else folder


def default_out(source: Source) -> Path:
    """``<run's --output_path>_rescored``, beside the run's output folder (the re-score mirrors the run's layout:
    ``results/<model folder>/`` is re-scored into ``results_rescored/<model folder>/``, a run written directly
    into ``results/`` directly into ``results_rescored/``)."""
    root = output_root(source)
    return root.with_name(root.name + "_rescored")


def _seed(config: Mapping[str, Any]) -> str | None:
    seeds = [config.get(k) for k in ("random_seed", "numpy_seed", "torch_seed", "fewshot_seed")]
    return ",".join("None" if s is None else str(s) for s in seeds) if any(s is not None for s in seeds) else None


def command(source: Source, out: Path, responses: Path) -> list[str]:
    """The lmms-eval command line of the re-score: the replay model, the source run's tasks and settings."""
    config = source.data.get("config") or {}
    cli = config.get("resolved_cli_args") or {}
    name = model_name(source.data)
    args = [
        f"responses={responses}",
        "keys=identity",
        f"model_name={name}",
        f"rescore_of={source.results}",
    ]
    argv = [
        sys.executable,
        "-m",
        "lmms_eval",
        "--model",
        REPLAY,
        "--model_args",
        ",".join(a.replace(",", "%2C") for a in args),
        "--tasks",
        ",".join(source.top),
        "--batch_size",
        "1",
        "--output_path",
        str(out),
        "--log_samples",
    ]
    settings = {
        "--limit": config.get("limit"),
        "--offset": config.get("offset") or None,
        "--num_fewshot": cli.get("num_fewshot"),
        "--gen_kwargs": config.get("gen_kwargs") or None,
        "--seed": _seed(config),
        "--system_instruction": cli.get("system_instruction"),
        "--reasoning_tags": cli.get("reasoning_tags"),
        "--include_path": cli.get("include_path"),  # regional tasks: the folder of their YAML
    }
    for flag, value in settings.items():
        if value is not None and value != "":
            argv += [flag, str(value)]
    if cli.get("apply_chat_template"):
        argv.append("--apply_chat_template")
    if cli.get("fewshot_as_multiturn"):
        argv.append("--fewshot_as_multiturn")
    return argv


def subprocess_runner(argv: list[str], env: dict[str, str], cwd: Path) -> int:
    """Run lmms-eval in a child process; its exit status."""
    return subprocess.call(argv, env=env, cwd=cwd)


def source_time(data: Mapping[str, Any]) -> dict[str, Any]:
    """The source run's date as lmms-eval stamped it (``date``: ``YYYYMMDD_HHMMSS`` in the run's ``--timezone``,
    lmms-eval's default Asia/Singapore, not UTC nor the machine's clock) with that zone, read from the run's
    ``config.resolved_cli_args``, and the same moment in UTC (ISO 8601); the zone and the UTC time are null where
    the results file names no zone this Python knows, or the stamp is not of that form."""
    from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

    stamp = data.get("date")
    zone = ((data.get("config") or {}).get("resolved_cli_args") or {}).get("timezone")
    try:
        local = datetime.strptime(str(stamp), "%Y%m%d_%H%M%S").replace(tzinfo=ZoneInfo(str(zone)))
    except (ValueError, TypeError, ZoneInfoNotFoundError):
        return {"source_date": stamp, "source_date_timezone": None, "source_date_utc": None}
    return {
        "source_date": stamp,
        "source_date_timezone": zone,
        "source_date_utc": local.astimezone(UTC).isoformat(timespec="seconds"),
    }


def provenance(source: Source, matching: Mapping[str, Any]) -> dict[str, Any]:
    """What the new results file records about its source."""
    data = source.data
    return {
        "source": str(source.results.resolve()),
        **source_time(data),
        "source_model": model_name(data),
        "source_model_args": (data.get("config") or {}).get("model_args"),
        "source_lmms_eval_version": data.get("lmms_eval_version"),
        # Results files written before 2026-11-27 do not record the pack's version: their task versions stand for it.
        "source_food_tasks_version": data.get("food_tasks_version")
        or (data.get(PROVENANCE) or {}).get("food_tasks_version"),
        "source_task_versions": data.get("versions"),
        "food_tasks_version": food_tasks.__version__,
        "rescored_at": datetime.now(UTC).isoformat(timespec="seconds"),
        "answers": "filtered_resps (the model's text after lmms-eval's reasoning-tag stripping)",
        "documents": dict(matching),
    }


def more_runs(source: Source, present: Sequence[str]) -> list[str]:
    """The variants of the run's tasks that the run lacks: each a line naming the task (or the group holding them
    all) and the measure it gives. A variant is one its YAML declares (:func:`food_tasks.tasks.registry.variant`) on
    a task or group the run holds (a group's member too), never read from a name; the packaged sample of a task
    (``sample_of``) measures nothing more and is never suggested."""
    have = set(present) | set(source.tasks) | set(source.data.get("group_subtasks") or {})
    for kids in (source.data.get("group_subtasks") or {}).values():
        have.update(kids or [])
    missing: dict[str, str] = {}  # variant task or group the run lacks -> its kind
    for name in sorted(catalogue.index()):
        declared = registry.variant(name)
        if declared and declared[0] != registry.SAMPLE and declared[1] in have and name not in have:
            missing[name] = declared[0]
    groups = {name: members for name, kind, _, members in catalogue.entries() if kind == "group" and members}
    grown = True
    while grown:  # a group whose every member is a missing variant of one kind is named instead of its members
        grown = False
        for group, members in groups.items():
            kinds = {missing.get(m) for m in members}
            if group not in have and group not in missing and len(kinds) == 1 and None not in kinds:
                missing[group], grown = kinds.pop() or "", True
    inside = {m for group in missing if group in groups for m in groups[group]}
    return [
        f"  {VARIANT_NAMES.get(kind, kind)}: run {name}" for name, kind in sorted(missing.items()) if name not in inside
    ]


def rescore(
    run: str | Path | Source,
    out: str | Path | None = None,
    force: bool = False,
    runner: Callable[[list[str], dict[str, str], Path], Any] | None = None,
) -> Path:
    """Re-score ``run`` into ``out``; the new results file. Raises :class:`RescoreError`; what this call wrote
    under ``out`` (and ``out`` itself, where it made it) is removed then, nothing that was there before. ``run``: a
    run's folder or results file, or its :class:`Source` already read (each of its files is read once)."""
    source = run if isinstance(run, Source) else read_source(run)
    target = Path(out) if out is not None else default_out(source)
    run_root = output_root(source)
    resolved = target.resolve()
    if resolved == run_root or resolved in run_root.parents or run_root in resolved.parents:
        raise RescoreError(
            f"{target}: OUT is the source run's folder, inside it or above it ({run_root}); the source run is never "
            "written to: name another folder with -o"
        )
    if target.exists() and any(target.rglob(runfiles.RESULTS_GLOB)):
        if not force:
            raise RescoreError(
                f"{target} already holds results; name another folder with -o, or add --force to write beside them"
            )
    lines = responses_lines(source)
    created = _created_by_mkdir(target)
    responses = target / RESPONSES
    matching_path = target / MATCHING
    matching_path.unlink(missing_ok=True)
    responses.write_text("".join(json.dumps(line, ensure_ascii=False) + "\n" for line in lines), encoding="utf-8")
    before = runfiles.results_snapshot(target)
    present = set(target.rglob("*"))  # what OUT held before lmms-eval ran (--force): never removed
    env = dict(os.environ, HF_HUB_OFFLINE="1", HF_DATASETS_OFFLINE="1", TOKENIZERS_PARALLELISM="false")
    try:
        result = (runner or subprocess_runner)(command(source, target, responses), env, Path.cwd())
    except BaseException:  # interrupted (Ctrl-C): what this command wrote goes too
        _remove_new(target, present - {responses, matching_path}, created)
        raise
    code = getattr(result, "returncode", result)
    written = runfiles.newest_results(target, before=before)
    if code != 0 or written is None:
        _remove_new(target, present - {responses, matching_path}, created)
        raise RescoreError(
            f"lmms-eval wrote no re-scored results under {target} (exit code {code}); see above (what this "
            "command wrote there is removed)"
        )
    matching = json.loads(matching_path.read_text(encoding="utf-8")) if matching_path.is_file() else {}
    for task, changed in changed_gold(source, written).items():
        if task in matching:
            matching[task]["changed"] = changed
    try:
        stop = changed_past_share(source, matching)
        if stop:
            raise RescoreError(stop)
        written = _mirror_layout(source, target, written, present)
    except RescoreError:
        _remove_new(target, present - {responses, matching_path}, created)
        raise
    data = runfiles.read_results(written)
    data["model_name_sanitized"] = written.parent.name if written.parent != target else ""
    for task, counts in matching.items():  # the documents left out (new) were not scored: lmms-eval counts them
        effective = ((data.get("n-samples") or {}).get(task) or {}).get("effective")
        if isinstance(effective, int) and counts.get("new"):
            data["n-samples"][task]["effective"] = effective - len(counts["new"])
    data[PROVENANCE] = provenance(source, matching)
    written.write_text(json.dumps(data, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    source.written = data
    return written


def changed_past_share(source: Source, matching: Mapping[str, Any]) -> str | None:
    """The message that stops a re-score in which a task's documents whose gold answer changed, with those new,
    gone or recorded twice, pass :data:`MAX_SHARE` of the task (the benchmark is not the one the run answered);
    None when none does."""
    for task, counts in sorted(matching.items()):
        changed = counts.get("changed") or []
        others = sum(len(counts.get(k) or []) for k in ("new", "gone", "twice"))
        if changed and (len(changed) + others) / max(counts.get("documents") or 0, 1) > MAX_SHARE:
            shown = ", ".join(changed[:3]) + (f" and {len(changed) - 3} more" if len(changed) > 3 else "")
            return (
                f"{source.results}: task {task}: {len(changed)} document(s) changed their gold answer since the run "
                f"({shown}) and {others} are new, gone or recorded twice, of {counts.get('documents')} recorded; "
                f"identity fields: {'+'.join(counts.get('identity') or [])}. More than {MAX_SHARE:.0%} differs: "
                "the task's data changed since the run; re-run the evaluation instead (what this command wrote is "
                "removed)"
            )
    return None


def _mirror_layout(source: Source, target: Path, written: Path, present: set[Path]) -> Path:
    """Move the re-score's results file and its samples files where the source run's layout puts them: directly
    into ``target`` for a run written directly into its ``--output_path``, into ``target/<its model folder>/``
    for a run in ``<output_path>/<model folder>/`` (lmms-eval names its folder after the replay's ``model_name``,
    which may differ); the new results file."""
    folder = target / source.results.resolve().parent.relative_to(output_root(source))
    if written.parent.resolve() == folder.resolve():
        return written
    moved = [written, *written.parent.glob(written.name.removesuffix("_results.json") + "_samples_*.jsonl")]
    clash = [folder / path.name for path in moved if (folder / path.name).exists()]
    if clash:
        raise RescoreError(f"{clash[0]} already exists; name another folder with -o")
    folder.mkdir(parents=True, exist_ok=True)
    for path in moved:
        path.rename(folder / path.name)
    if written.parent not in present and not any(written.parent.iterdir()):
        written.parent.rmdir()  # the folder lmms-eval made for the replay model, now empty
    return folder / written.name


def _created_by_mkdir(target: Path) -> list[Path]:
    """Make ``target`` (and its missing parents); the folders this made, deepest first."""
    missing = [p for p in (target, *target.parents) if not p.exists()]
    target.mkdir(parents=True, exist_ok=True)
    return missing


def _remove_new(target: Path, kept: set[Path], created: Sequence[Path]) -> None:
    """After a failed re-score: remove what appeared under ``target`` that is not in ``kept`` (files first, then
    emptied folders), then the folders :func:`_created_by_mkdir` made, where empty; nothing else."""
    for path in sorted(set(target.rglob("*")) - kept, key=lambda p: len(p.parts), reverse=True):
        if path.is_dir() and not path.is_symlink():
            if not any(path.iterdir()):
                path.rmdir()
        else:
            path.unlink(missing_ok=True)
    for folder in created:
        if folder.is_dir() and not any(folder.iterdir()):
            folder.rmdir()


def summary(written: Path, source_results: Path | Source) -> str:
    """What the command prints after the run: the files, the documents not matched, the variants missing
    (``source_results``: the source run's results file, or its :class:`Source` as :func:`rescore` left it: then no
    file is read again)."""
    source = source_results if isinstance(source_results, Source) else read_source(source_results)
    found = source.written if isinstance(source_results, Source) else None
    data = found if found is not None else runfiles.read_results(written)
    info = data.get(PROVENANCE) or {}
    lines = [
        f"food-tasks rescore: {written}",
        f"  a re-score of {source.results}",
        f"  model: {info.get('source_model')}",
    ]
    for task, counts in sorted((info.get("documents") or {}).items()):
        if counts.get("new") or counts.get("gone") or counts.get("twice"):
            twice = counts.get("twice") or []
            lines.append(
                f"  {task}: {len(counts.get('new') or [])} document(s) without a recorded answer, left out (not "
                f"scored){_listed(counts.get('new'))}; {len(counts.get('gone') or [])} recorded answer(s) of "
                f"documents no longer in the task{_listed(counts.get('gone'))}"
                + (
                    f"; {len(twice)} document(s) recorded twice, the extra answer unused{_listed(twice)}"
                    if twice
                    else ""
                )
            )
        elif counts.get("identity") == ["doc_id"]:
            lines.append(f"  {task}: matched by position (the task declares no document key: add an id column)")
        if counts.get("changed"):
            lines.append(
                f"  {task}: {len(counts['changed'])} document(s) changed their gold answer since the run"
                f"{_listed(counts['changed'])}: their scores use the new one"
            )
    extra = more_runs(source, list(data.get("results") or {}))
    if extra:
        lines.append("  measures that need one more run (generation):")
        lines += extra
    return "\n".join(lines)


def _listed(identities: Sequence[str] | None, shown: int = 5) -> str:
    """`` (a, b, ... and N more)``: a few identities of a list, for the printed note; '' for none."""
    if not identities:
        return ""
    more = f" and {len(identities) - shown} more" if len(identities) > shown else ""
    return f" ({', '.join(identities[:shown])}{more})"


def main(args: Any) -> int:
    """``food-tasks rescore``: re-score ``args.run`` into ``args.output``; prints :func:`summary`; 0."""
    source = read_source(args.run)
    written = rescore(source, args.output, force=args.force)
    print(summary(written, source), flush=True)
    return 0
