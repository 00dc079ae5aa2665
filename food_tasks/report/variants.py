"""Which of a run's tasks fill a section of the report: a benchmark's :class:`~food_tasks.report.spec.Variant` placed
in the runs (:class:`Placed`), and the task a declared variant stands for (:func:`declared_base`).

A spec's templates name full-data tasks only. A section of a declared variant kind (the packaged sample) shows, for
each full-data task, the run's task that declares itself that kind of it: ``sample_of: <full-data task>`` in its
config's metadata (the run's facts, :meth:`food_tasks.runs.run.Run.variant`). Where the run's results hold no such
declaration, for a group (lmms-eval writes no group config) or a results file written before the samples declared
theirs, the task's shipped YAML is read instead (:func:`food_tasks.tasks.registry.variant`: the declaration the
packaged task carries today, under the same name). No variant is ever read from a task's name.
"""

from __future__ import annotations

from typing import Any

from food_tasks.report.spec import Variant
from food_tasks.runs import Run
from food_tasks.tasks import catalogue, registry


def declared(run: Run, task: str) -> tuple[str, str] | None:
    """``(kind, base task)`` that ``task`` of ``run`` declares: its results file's config (the run's facts), else the
    YAML we ship under that name (a group, an older results file); None for a base task."""
    return run.variant(task) or registry.variant(task)


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


class Placed:
    """A :class:`~food_tasks.report.spec.Variant` placed in runs: the run's task for each full-data task name its
    templates make (the name itself, or for a declared kind the run's task declaring it)."""

    def __init__(self, variant: Variant) -> None:
        self.variant = variant
        self._found: dict[int, dict[str, str]] = {}  # id(run) -> {full-data task: the run's task of this kind}

    @property
    def suffix(self) -> str:
        """``_<tag>`` (empty for the main section): the section's part of a chart's file name, a label only."""
        return f"_{self.variant.tag}" if self.variant.tag else ""

    def name(self, template: str, **more: str) -> str:
        """The full-data task a template names in this section (``more``: the mode's parts, ``{m}``, ``{mode}``)."""
        return template.format(**dict(self.variant.fill), **more)

    def task(self, run: Run, name: str) -> str | None:
        """The run's task that stands for full-data task ``name`` in this section, None when the run has none."""
        kind = self.variant.kind
        if kind is None:
            return name if name in run.metrics else None
        if id(run) not in self._found:
            found: dict[str, str] = {}
            for task in sorted(run.metrics):
                variant = declared(run, task)
                if variant is not None and variant[0] == kind:
                    found.setdefault(variant[1], task)
            self._found[id(run)] = found
        return self._found[id(run)].get(name)

    def value(self, run: Run, name: str, metric: str) -> Any:
        """``metric`` of the run's task for full-data task ``name`` (None when the run has none)."""
        task = self.task(run, name)
        return run.value(task, metric) if task is not None else None

    def shown(self, runs: list[Run] | tuple[Run, ...], name: str) -> str:
        """The name a chart of full-data task ``name`` is filed under: the first run's task for it (``name`` when
        no run has one)."""
        return next((t for r in runs if (t := self.task(r, name)) is not None), name)
