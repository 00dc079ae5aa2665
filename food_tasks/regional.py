"""The lmms-eval task class of regional food tasks: ``class: !function food_tasks.regional.RegionalTask``.

A contributor's YAML is an ordinary lmms-eval task file whose ``class`` is :class:`RegionalTask` and
whose ``metadata.regional`` block says what the columns mean (CONTRIBUTING.md; :mod:`food_tasks.regional_tasks.scoring`
holds the settings, documents and scoring, :mod:`food_tasks.regional_tasks.check` the ``food-tasks validate`` checker).
lmms-eval hooks receive no task configuration, so the settings are bound to the hooks here, from the YAML's own
config. This module imports lmms-eval: only lmms-eval imports it (to build the task).
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import replace
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Any

from lmms_eval.api.task import ConfigurableMessagesTask, ConfigurableTask

from food_tasks.hooks.convention import aggregate, results_hook
from food_tasks.hooks.messages import build_messages
from food_tasks.judge.client import JudgeNotConfigured
from food_tasks.lmms.harness import task_yaml
from food_tasks.regional_tasks.config import fit, key_problems, labelled, shown
from food_tasks.regional_tasks.files import (
    LOCAL_BUILDERS,
    capped,
    data_file_problems,
    data_problems,
    innermost,
    local_files,
    root_cause,
)
from food_tasks.regional_tasks.groups import name_problem
from food_tasks.regional_tasks.judged import judge_from_env
from food_tasks.regional_tasks.scoring import (
    DEFAULT_GENERATION,
    IMAGE_KEYS,
    RegionalConfigError,
    RegionalDataError,
    Settings,
    data_base_dir,
    doc_images,
    doc_text,
    metric_table,
    score,
    settings_problems,
    undecoded_images,
)

if TYPE_CHECKING:
    import datasets

    from food_tasks.data.hub import RunStopped

TASK_CLASS = "food_tasks.regional.RegionalTask"  # the same as food_tasks.regional_tasks.config.TASK_CLASS


def requested_task_type() -> str:
    """``"chat"`` or ``"simple"``: the kind of task object lmms-eval is loading right now.

    lmms-eval builds a ``class:`` task with ``cls(config=...)`` and does not pass the kind it chose for the
    model (chat models need ``ConfigurableMessagesTask`` requests); it passes it to the public
    ``TaskManager.load_task_or_group(task_list, task_type)``, around which :mod:`food_tasks.lmms.harness` sets
    :data:`food_tasks.lmms.harness.TASK_TYPE`. Outside such a call (or with the harness hooks off): ``"chat"``.
    """
    from food_tasks.lmms.harness import TASK_TYPE

    return TASK_TYPE.get()


def _bind(config: dict, where: str | None = None) -> dict:
    """The task config with our hooks, metric list and defaults filled in from ``metadata.regional``.

    A key the task would replace or lmms-eval reject is a :class:`RegionalConfigError`; a key without effect is
    logged as a warning naming ``where`` (the YAML) (:mod:`food_tasks.regional_tasks.config`)."""
    task = config.get("task", "?")
    errors, warnings = key_problems(config)
    if warnings:
        from loguru import logger

        for line in warnings:  # the loguru prefix takes ~75 columns: the key's line under the task's
            logger.warning(fit(f"food-tasks: regional task {task}:\n  {line}\n  YAML: {where or '?'}", 100))
    if problem := name_problem("task", task):  # validate refuses the name: so does the run (CONTRIBUTING, 1.)
        errors.insert(0, problem)
    errors += settings_problems(config.get("metadata"))  # every problem at once, as `food-tasks validate` lists them
    if errors:
        raise RegionalConfigError("\n".join(errors))
    config = {k: v for k, v in config.items() if k != "class"}
    # every settings problem was raised above: the run's error (_stop) names the task, its YAML and the command
    settings = Settings.from_metadata(config.get("metadata"), data_base_dir(config.get("dataset_kwargs")))
    if settings.judge is not None:  # no judge configured: JudgeNotConfigured stops the run before generation
        settings = replace(settings, judge=replace(settings.judge, task=str(task)))  # its warnings name the task
        judge_from_env(settings.judge.label)

    def visual(doc: Mapping[str, Any]) -> list:
        return doc_images(
            settings, doc, task
        )  # an image that cannot be loaded is left out, the row counted in image_missing

    def text(doc: Mapping[str, Any], lmms_eval_specific_kwargs: dict | None = None) -> str:
        return doc_text(settings, doc)

    def messages(doc: Mapping[str, Any], lmms_eval_specific_kwargs: dict | None = None) -> list[dict]:
        return build_messages(visual(doc), doc_text(settings, doc), system=settings.system)

    split = str(config.get("test_split") or "test")
    data_name = str(config.get("dataset_path"))
    if data_name in LOCAL_BUILDERS:
        files = local_files(config, Path(".")).get(split, [])  # lmms-eval anchored them at the YAML's folder
        problems = data_file_problems(data_name, files)
        if problems:
            raise RegionalDataError("\n".join(problems))
        data_name = ", ".join(shown(p) for p in files)

    def checked_docs(dataset: datasets.Dataset) -> datasets.Dataset:
        # Every problem validate reports in the data, but unreadable images (counted in image_missing as the model
        # asks for them): refused here, before generation, with validate's lines. Reads only the columns needed.
        columns = [c for c in dataset.column_names if c != IMAGE_KEYS]
        kind, problems = data_problems(settings, dataset, columns, data_name, split)
        if problems:
            raise _stop(config, kind, "\n".join(capped(problems, data_name)), where)
        return dataset

    theirs = config.get("process_docs")  # the YAML's own, applied first: our checks see the rows it gives

    def process_docs(dataset: datasets.Dataset) -> datasets.Dataset:
        dataset = theirs(dataset) if theirs else dataset
        # hub Image columns stay undecoded until the model asks (undecoded_images): the checks decode no image
        return checked_docs(undecoded_images(settings.image, dataset) if settings.image else dataset)

    config["process_docs"] = process_docs
    table = metric_table(settings)
    process_results = results_hook(partial(score, settings, label=task), table)

    config.setdefault("output_type", "generate_until")
    config.setdefault("test_split", "test")
    config.setdefault("generation_kwargs", dict(DEFAULT_GENERATION))
    config.setdefault("reasoning_tags", "none")  # extract_choice strips reasoning itself (unterminated = unparsed)
    config.update(
        doc_to_visual=visual,
        doc_to_text=text,
        doc_to_messages=messages,
        process_results=process_results,
        doc_to_target=settings.answer,
        metric_list=[
            {"metric": m.name, "aggregation": aggregate, "higher_is_better": m.higher_is_better} for m in table.values()
        ],
    )
    return config


def _stop(
    config: Mapping[str, Any], what: str, detail: str, where: str | None = None, *, validate: bool = True
) -> RunStopped:
    """The error that ends the run, naming the task, its YAML (``where``, when lmms-eval's index says), what to do
    (``validate``: the ``food-tasks validate`` command); every line wrapped to 120 columns (the YAML's path on a
    line of its own)."""
    from food_tasks.data.hub import RunStopped

    task = config.get("task", "?")
    command = f"food-tasks validate {where or '<the task YAML>'}"
    hint = "" if "food-tasks validate" in detail or not validate else f"\nCheck the task with:\n  {command}"
    head = f"food-tasks: regional task {task}: {what}, the run stops before generation:"
    yaml_line = f"\n  YAML: {where}" if where else ""
    return RunStopped(fit(f"{head}{yaml_line}\n{detail}{hint}"))


class RegionalTask(ConfigurableTask):
    """lmms-eval task class of a regional YAML (``class: !function food_tasks.regional.RegionalTask``)."""

    def __new__(cls, config: Mapping[str, Any] | None = None, **kwargs: Any) -> RegionalTask:
        chosen = RegionalChatTask if cls is RegionalTask and requested_task_type() == "chat" else cls
        return super().__new__(chosen)

    def __init__(self, config: Mapping[str, Any] | None = None, **kwargs: Any) -> None:
        # lmms-eval catches every Exception of task loading (retrying the data download 5 times first),
        # prints it and exits 0: a regional task that cannot be built stops the run (exit status 1).
        config = dict(config or {})
        path, clashes = task_yaml(str(config.get("task")))
        where = shown(path) if path else None
        stop = partial(_stop, config, where=where)
        if len(clashes) > 1:  # lmms-eval indexed one of them without a word
            took = os.path.realpath(path) if path else None
            files = [f"  {labelled(p, took)}" for p in clashes]
            raise stop(
                "configuration error",
                f"task: {config.get('task')!r} is defined by {len(clashes)} files; rename all but one:\n"
                + "\n".join(files),
            )
        try:
            bound = _bind(config, where)
        except RegionalConfigError as err:
            what = "data error" if isinstance(err, RegionalDataError) else "configuration error"
            raise stop(what, str(err)) from None
        except JudgeNotConfigured as err:  # a judged task without a judge: the message every judged task gives
            raise stop(err.label, str(err), validate=False) from None
        try:
            super().__init__(config=bound, **kwargs)
        except Exception as err:  # noqa: BLE001  (the data could not be loaded: our message, exit status 1)
            cause = innermost(err)
            if isinstance(cause, RegionalConfigError):  # raised by our hooks (the prompt names no column ...)
                raise stop("configuration error", str(cause)) from err
            raise stop("data error", root_cause(err)) from err


class RegionalChatTask(RegionalTask, ConfigurableMessagesTask):
    """The same task for chat models (requests carry ``doc_to_messages``)."""
