"""The task a declared variant stands for (:func:`declared_base`), and the tasks whose base gives a published
measure (:func:`measured_by`). (A benchmark's :class:`~food_tasks.report.spec.Variant` placed in the runs is
:class:`food_tasks.report.cells.Placed`.)

A spec's templates name full-data tasks only. A section of a declared variant kind (the packaged sample) shows, for
each full-data task, the run's task that declares itself that kind of it: ``sample_of: <full-data task>`` in its
config's metadata, as the run's facts hold it (:attr:`food_tasks.lmms.facts.TaskFacts.variant`). Where the run's
results hold no such declaration, for a group (lmms-eval writes no group config) or a results file written before
the samples declared theirs, the facts take the declaration of the YAML we ship under that name
(:func:`food_tasks.tasks.registry.declared_variant`); :func:`declared_base` follows a chain beyond the run's tasks
through the shipped YAMLs. No variant is ever read from a task's name.
"""

from __future__ import annotations

from food_tasks.runs import Run
from food_tasks.tasks import catalogue, registry


def declared(run: Run, task: str) -> tuple[str, str] | None:
    """``(kind, base task)`` that ``task`` of ``run`` declares (the run's facts: its results file's config, else, for
    a group or an older results file, the YAML we ship under that name); None for a base task."""
    found = run.facts.get(task)
    return found.variant if found is not None else registry.variant(task)


def declared_base(run: Run, task: str) -> str:
    """The task that ``task`` of ``run`` is, through the variants it declares (a sample's image-free twin: the
    full-data task sampled); ``task`` itself when it declares none."""
    seen = {task}
    found = declared(run, task)
    while found is not None and found[1] not in seen:
        task = found[1]
        seen.add(task)
        found = declared(run, task)
    return task


def measured_by(names: list[str]) -> set[str]:
    """``names`` (tasks and groups we ship) and the tasks under those groups: the tasks whose base, through their
    declared variants (:func:`declared_base`), gives one of their measures."""
    out, todo = set(), list(names)
    while todo:
        name = todo.pop()
        if name in out:
            continue
        out.add(name)
        path = catalogue.index().get(name)
        config = catalogue.load_yaml(path) or {} if path is not None else {}
        members = config.get("task") if "group" in config else None
        todo += [m for m in members if isinstance(m, str)] if isinstance(members, list) else []
    return out
