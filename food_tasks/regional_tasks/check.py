"""``food-tasks validate``: check a regional task (its YAML and its data file) before running a model.

Reads the YAML with the one catalogue loader (:mod:`food_tasks.tasks.catalogue`) and the data with ``datasets``, checks
the settings, every row (question, options, answer, images) and says in one line per problem what to fix: every
problem of the YAML and of the data in one run, the YAML's first, then the data's (a problem of the settings does not
hide the data's; only a data file that cannot be read hides its rows). A group YAML is checked as a group
(:mod:`food_tasks.regional_tasks.groups`), and its tasks after it.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path

from food_tasks.regional_tasks import groups
from food_tasks.regional_tasks.config import TASK_CLASS, key_problems, shown, task_files
from food_tasks.regional_tasks.files import LOCAL_BUILDERS, data_file_problems, data_problems, local_files, root_cause
from food_tasks.regional_tasks.judged import JUDGE_PROMPT
from food_tasks.regional_tasks.scoring import (
    RegionalConfigError,
    Settings,
    load_image,
    settings_problems,
    url_store,
)
from food_tasks.regional_tasks.settings import UNNAMED, checkable
from food_tasks.regional_tasks.slices import slice_values
from food_tasks.tasks import catalogue


def read_yaml(path: Path) -> dict:
    """The YAML's mapping, its ``include:`` files merged under it as lmms-eval merges them (relative to its folder)."""
    config = catalogue.load_yaml(path)
    if not isinstance(config, dict):
        raise RegionalConfigError("not a YAML mapping")
    included = config.pop("include", None)
    merged: dict = {}
    for name in reversed([included] if isinstance(included, str) else list(included or [])):
        other = Path(name) if Path(name).is_file() else path.parent / name
        merged.update(read_yaml(other))
    return {**merged, **config}


@dataclass
class Validation:
    """What :func:`check` found: the problems (one line each), and what it checked (:meth:`summary`)."""

    problems: list[str]
    warnings: list[str] = field(default_factory=list)  # keys without effect, answers not checked: exit status 0
    task: str = ""
    data: str = ""  # the data file name(s), or the hub dataset id
    split: str = ""
    rows: int = 0
    format: str = ""
    images: int | None = None  # images opened (None: not opened, --no-images)
    slices: dict[str, int] = field(default_factory=dict)  # slice column -> distinct values
    judge: str = ""  # "default" or "custom": the judge prompt of a judged open-answer task
    group: str = ""  # a group YAML: what it names and aggregates (its summary)
    members: list[str] = field(default_factory=list)  # a group YAML: its tasks' YAML files, validated after it

    def summary(self) -> str:
        """One line: the rows, images and slices checked (for a task without problems)."""
        if self.group:
            return self.group
        images = "images not opened (--no-images)" if self.images is None else f"{self.images} image(s) opened"
        slices = ", ".join(f"{c} ({n} value{'s' if n != 1 else ''})" for c, n in self.slices.items()) or "none"
        fields = "question, options and answer" if self.format in ("mcq", "multi") else "question and answer"
        return (
            f"task {self.task}: {self.rows} row(s) of {self.data} (split {self.split!r}), format {self.format}, every "
            f"row has its {fields}; {images}; slices: {slices}"
            + (
                f"; answers judged by an LLM judge ({self.judge} prompt, judge from FOOD_TASKS_JUDGE_MODEL)"
                if self.judge
                else ""
            )
        )


def report(yaml_path: str | os.PathLike, result: Validation, width: int = 120) -> list[str]:
    """What ``food-tasks validate`` prints for one YAML: a line naming it and its verdict, then one entry per
    problem and warning, indented by two spaces, each wrapped to ``width`` columns (continuation lines by four)."""
    import textwrap

    where = shown(yaml_path)
    counts = [f"{len(result.problems)} problem(s)"] if result.problems else []
    counts += [f"{len(result.warnings)} warning(s)"] if result.warnings else []
    verdict = ", ".join(counts) if result.problems else f"OK{f' ({counts[0]})' if counts else ''}: {result.summary()}"
    head = f"{where}: {verdict}"
    wrap = partial(textwrap.wrap, width=width, break_long_words=False, break_on_hyphens=False)
    lines = wrap(head, subsequent_indent="    ")
    for text in [*result.problems, *(f"warning: {w}" for w in result.warnings)]:
        lines += wrap(text, initial_indent="  ", subsequent_indent="    ")
    return lines


def validate(yaml_path: str | os.PathLike, *, check_images: bool = True) -> list[str]:
    """Checks a regional task YAML and its data before any model runs.

    Returns:
        One line per problem (``<file>: row <n> (id <id>), column '<c>': <what is wrong>``, or
        ``<file>: line <n>: <what is wrong>`` for a malformed JSON Lines file); empty when valid.
    """
    return check(yaml_path, check_images=check_images).problems


def check(yaml_path: str | os.PathLike, *, check_images: bool = True) -> Validation:
    """:func:`validate`, with what was checked (rows, images, slices) for the success message."""
    path = Path(yaml_path)
    where = shown(path)
    if path.is_dir():
        return Validation([f"{where}: is a folder; name the task's YAML file (e.g. {where.rstrip('/')}/<task>.yaml)"])
    if not path.is_file():
        return Validation([f"{where}: no such file"])
    try:
        config = read_yaml(path)
    except Exception as err:  # noqa: BLE001  (any YAML error is reported, not raised)
        return Validation([f"{where}: cannot read YAML: {err}"])
    if groups.is_group(config):
        errors, warnings, members, summary = groups.group_problems(
            config, path, lambda member: groups.regional_metrics(member, read_yaml)
        )
        return Validation(
            [f"{where}: {p}" for p in errors], [f"{where}: {w}" for w in warnings], group=summary, members=members
        )
    errors, warnings = key_problems(config)
    problems = [f"{where}: {p}" for p in errors]
    warnings = [f"{where}: {w}" for w in warnings]
    if problem := groups.name_problem("task", config.get("task")):
        problems.append(f"{where}: {problem}")
    else:
        others = [
            p
            for p in task_files([path.parent], [config["task"]]).get(config["task"], [])
            if not os.path.samefile(p, path)
        ]
        if others:
            problems.append(
                f"{where}: task: {config['task']!r} is also the name of {', '.join(map(shown, others))}: "
                f"a run with --include_path {shown(path.parent)} warns naming both files and stops with "
                f"exit status 1; rename one"
            )
    problems += [f"{where}: {p}" for p in groups.tag_problems(config, path)]
    if config.get("class") != f"!function {TASK_CLASS}":
        problems.append(f"{where}: class: must be `!function {TASK_CLASS}`")
    if not config.get("dataset_path"):
        problems.append(f"{where}: dataset_path: json, csv, parquet or a Hugging Face dataset id")
    unread = settings_problems(config.get("metadata"))
    problems += [f"{where}: {p}" for p in unread]
    if "process_docs" in config:
        warnings.append(
            f"{where}: process_docs: lmms-eval applies it when it runs the task; validate checks the rows "
            "as the data file holds them"
        )
    if not config.get("dataset_path"):
        return Validation(problems, warnings)
    # The data, in the same pass: a problem of the settings above does not hide the data's.
    split = str(config.get("test_split") or "test")
    builder = str(config["dataset_path"])
    files = local_files(config, path.parent)
    base_dir = path.parent
    if builder in LOCAL_BUILDERS:
        if split not in files:
            problems.append(f"{where}: dataset_kwargs.data_files: no file for the test split {split!r}")
            return Validation(problems, warnings)
        missing = [p for p in files[split] if not p.is_file()]
        if missing:
            what = "does not exist (paths are relative to the YAML)"
            problems += [f"{where}: dataset_kwargs.data_files: {shown(p)} {what}" for p in missing]
            return Validation(problems, warnings)
        malformed = data_file_problems(builder, files[split])
        if malformed:
            return Validation(problems + malformed, warnings)
        base_dir = files[split][0].parent
        data_name = ", ".join(shown(p) for p in files[split])
    else:
        data_name = builder
    try:
        rows = _load_rows(builder, config, files, split)
    except Exception as err:  # noqa: BLE001
        problems.append(f"{where}: data unreachable ({data_name}, split {split!r}): {root_cause(err)}")
        return Validation(problems, warnings)
    unchecked: set[str] = set()
    if unread:  # the settings do not read: the data is checked with what can be checked (settings.checkable)
        lenient = checkable(config.get("metadata"))
        if lenient is None:
            return Validation(problems + _absent_columns(config.get("metadata"), rows, data_name), warnings)
        block, unchecked, note = lenient
        warnings += [f"{data_name}: {note}"] if note else []
        settings = Settings.from_metadata({"regional": block}, base_dir)
    else:
        settings = Settings.from_metadata(config["metadata"], base_dir)
    opened = 0  # images opened: each distinct file or URL once, each image embedded in the data (hub Image cells)
    store = None

    def open_image(ref: object) -> str | None:
        nonlocal opened, store
        opened += 1
        try:
            if isinstance(ref, str) and ref.startswith(("http://", "https://")):
                store = store or url_store()
            load_image(ref, settings.base_dir, store)
        except Exception as err:  # noqa: BLE001  (any unreadable image is one problem line)
            return str(err)
        return None

    # The checks a run makes before generation (regional_files.data_problems), opening every image here.
    _, found = data_problems(
        settings,
        rows,
        set(rows[0]) if rows else set(),
        data_name,
        split,
        settings_at=f"{where}: ",
        image_problem=open_image if check_images else None,
        unchecked=unchecked,
    )
    if unread:  # a column named by no valid key is no absent column
        found = [line for line in found if UNNAMED not in line]
    return Validation(
        problems + found,
        warnings,
        task=str(config["task"]),
        data=data_name,
        split=split,
        rows=len(rows),
        format=settings.format,
        images=opened if check_images else None,
        slices={
            c: len({v for r in rows for v in slice_values(r.get(c), settings.slice_fill)}) for c in settings.slices
        },
        judge="" if settings.judge is None else "default" if settings.judge.prompt == JUDGE_PROMPT else "custom",
    )


def _absent_columns(metadata: object, rows: list[dict], data_name: str) -> list[str]:
    """The columns ``metadata.regional`` names (id, image, question, options, answer, slices, cluster) that the data
    lacks, read without the settings (which have a problem of their own): one line each."""
    regional = metadata.get("regional") if isinstance(metadata, dict) else None
    if not isinstance(regional, dict) or not rows:
        return []
    named: dict[str, str] = {}
    for key in ("id", "image", "question", "options", "answer", "slices", "cluster"):
        value = regional.get(key)
        for column in value if isinstance(value, list) else [value]:
            if isinstance(column, str) and column:
                named.setdefault(column, f"metadata.regional.{key}")
    columns = set(rows[0])
    listed = ", ".join(sorted(columns))
    return [
        f"{data_name}: column '{c}' named by {key} is not in the data (columns: {listed})"
        for c, key in named.items()
        if c not in columns
    ]


def _load_rows(builder: str, config: dict, files: dict[str, list[Path]], split: str) -> list[dict]:
    import datasets

    kwargs = {k: v for k, v in (config.get("dataset_kwargs") or {}).items() if k != "data_files"}
    if builder in LOCAL_BUILDERS:
        kwargs["data_files"] = {split: [str(p) for p in files[split]]}
    shown = datasets.is_progress_bar_enabled()
    datasets.disable_progress_bars()  # validate prints one line per problem, nothing else
    try:
        ds = datasets.load_dataset(builder, config.get("dataset_name"), split=split, **kwargs)
    finally:
        if shown:
            datasets.enable_progress_bars()
    return [dict(row) for row in ds]
