"""What the rest of the package needs to know about one benchmark: its :class:`Benchmark` record.

Each benchmark package declares one record as ``BENCHMARK`` in its ``__init__.py``; ``food_tasks.benchmarks.PACKAGES``
lists the packages and :func:`records` reads their records, by name, as it reads a :class:`Lazy` reference: the
report takes them from here, beneath the benchmarks' own report modules (which import :mod:`food_tasks.report`), so
no core module imports :mod:`food_tasks.benchmarks`. The CLI (``list``, ``prefetch``, ``demo``), the report, the
sample-data builder and the registration tests read the records, so the core never names a benchmark.
(Not to be confused with :mod:`food_tasks.registration`, which tells lmms-eval where our task YAMLs are.)

Records are cheap to import: everything that needs the benchmark's heavier modules (datasets, images,
report tables) is a :class:`Lazy` reference or a function that imports inside its body.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from food_tasks.tasks import catalogue, noimage

PUBLISHED_DIR = Path(__file__).resolve().parents[1] / "report_data"
BENCHMARKS_PACKAGE = "food_tasks.benchmarks"
# A variant task names its base task in its YAML metadata (lmms-eval copies it into the results JSON's "configs"):
# metadata key -> the variant's kind. Written by food_tasks.tasks.taskgen (noimage_task, circular_task, sampled).
ROTATION_OF = "rotation_of"
# A packaged-sample task or group names the full-data task or group it samples (the same scoring on a few documents).
SAMPLE_OF = "sample_of"
SAMPLE = "sample"
VARIANT_KEYS = {noimage.METADATA_KEY: "noimage", ROTATION_OF: "circular", SAMPLE_OF: SAMPLE}


def variant_in(metadata: object) -> tuple[str, str] | None:
    """``(kind, base task)`` that a task's ``metadata`` declares (its config's, or the results JSON's
    ``configs.<task>.metadata``): ``("noimage", <image twin>)``, ``("circular", <task rotated>)``, ``("sample",
    <full-data task sampled>)``; None for a base task."""
    if not isinstance(metadata, dict):
        return None
    return next(((kind, str(metadata[key])) for key, kind in VARIANT_KEYS.items() if metadata.get(key)), None)


def declared_variant(task: str, config: object) -> tuple[str, str] | None:
    """``(kind, base task)`` of a task in a results file, from its ``config`` (``configs.<task>``): the variant its
    metadata declares (:func:`variant_in`); for a results file written before the variant was declared (a rotation
    before ``rotation_of``, a packaged sample before ``sample_of``), the one mapping of older files: the declaration
    the task we ship under that name carries today (:func:`variant`). A task we do not ship that declares nothing is
    a base task, whatever its name (``my_task_circular`` is no rotation). None for a base task."""
    metadata = config.get("metadata") if isinstance(config, dict) else None
    return variant_in(metadata) or variant(task)


def variant(task: str) -> tuple[str, str] | None:
    """:func:`variant_in` of a task we ship, read from its YAML (None for a base task or a name we do not ship)."""
    path = catalogue.index().get(task)
    return variant_in(catalogue.yaml_key(path, "metadata")) if path is not None else None


def in_sample(task: str, sample_tasks: tuple[str, ...]) -> bool:
    """Whether a task we ship runs on its benchmark's packaged sample: one of ``sample_tasks`` (its record's), a
    member of one of those groups, or a variant declared on such a task (:func:`variant`); never read from its name."""
    declared = variant(task)
    if declared is not None and declared[0] != SAMPLE:  # a sample's base is the full-data task: not in the sample
        return in_sample(declared[1], sample_tasks)
    todo, seen = list(sample_tasks), set()
    while todo:
        name = todo.pop()
        if name == task:
            return True
        path = catalogue.index().get(name)
        if name in seen or path is None:
            continue
        seen.add(name)
        config = catalogue.load_yaml(path) or {}
        members = config.get("task") if "group" in config else None
        todo += [m for m in members if isinstance(m, str)] if isinstance(members, list) else []
    return False


@dataclass(frozen=True)
class Lazy:
    """``"module:attribute"``, imported on first use; calling it calls the attribute."""

    target: str

    def load(self) -> Any:
        """The object ``module:attribute`` names (importing its module)."""
        module, _, attribute = self.target.partition(":")
        return getattr(importlib.import_module(module), attribute)

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        return self.load()(*args, **kwargs)


@dataclass(frozen=True)
class Benchmark:
    """One benchmark, as the core sees it.

    Attributes:
        name: the package ``food_tasks/benchmarks/<name>/``, hook module ``utils/<name>.py``, YAML folder
            ``yaml_tasks/<name>/`` and the prefix of every task and group name.
        title: the benchmark's name as its paper writes it.
        paper: citation (authors, title, venue, arXiv id).
        source: where the data comes from, as ``food-tasks list`` prints it.
        licence: the data's licence and what it allows us to do (ship, convert, cache).
        units: one sentence: the scale of the metrics (every accuracy and rate in percent; text overlap x 100;
            F1, MRR and the like in [0, 1]; errors in their units), and where it differs from the paper's.
        documents: task name -> its number of documents on the full data (``None`` when unknown); groups
            are never asked.
        sample_tasks: the packaged sample tasks and groups (offline, seconds); ``food-tasks demo`` runs
            every record's.
        judged_samples: packaged sample tasks that need an LLM judge (a user's own, ``FOOD_TASKS_JUDGE_*``):
            ``food-tasks list`` shows them as samples; the demo, which has no judge, does not run them.
        write_sample: ``write(root)`` writes the packaged sample data under ``root`` in the published layout
            (``python -m food_tasks.sample_data.build``); ``None`` when the benchmark has no sample.
        prefetch: ``prefetch(workers=..., report=...) -> exit status`` fetches the remote files once into the
            cache (``food-tasks prefetch <name>``); the first line of its docstring says what it fetches.
            ``None`` when the Hub cache of ``datasets`` is all there is.
        report: :class:`Lazy` reference to the benchmark's :class:`food_tasks.report.BenchmarkSpec`
            (tables laid out like the paper's, breakdowns); ``None``: its tasks get the generic section.
        published: the published-numbers file beside the report tables, a name in ``food_tasks/report_data/``.
        tables: :class:`Lazy` reference to ``{process_results hook name: its metric tables}`` (the hooks that the
            task YAMLs name in ``utils/<name>.py``): a run read back finds a task's tables there, without importing
            the hook module (:func:`food_tasks.lmms.facts.tables_for`).
    """

    name: str
    title: str
    paper: str
    source: str
    licence: str
    units: str
    documents: Callable[[str], int | None]
    sample_tasks: tuple[str, ...] = ()
    judged_samples: tuple[str, ...] = ()
    write_sample: Callable[[Path], None] | None = None
    prefetch: Callable[..., int] | None = None
    report: Lazy | None = None
    published: str | None = None
    tables: Lazy | None = None

    @property
    def published_path(self) -> Path | None:
        """The benchmark's published reference numbers file (``report_data/``), or None without one."""
        return PUBLISHED_DIR / self.published if self.published else None

    def prefetch_summary(self) -> str:
        """What ``food-tasks prefetch`` fetches for this benchmark (its prefetch function's first doc line)."""
        doc = (self.prefetch.__doc__ or "").strip() if self.prefetch else ""
        first = doc.splitlines()[0].rstrip(".") if doc else ""
        return first[:1].lower() + first[1:] if first[1:2].islower() else first  # mid-sentence; "JSONL" stays


def records() -> tuple[Benchmark, ...]:
    """Each benchmark's record (``BENCHMARK`` of ``food_tasks.benchmarks.<name>``), in the order of
    ``food_tasks.benchmarks.PACKAGES`` (the order of the report's sections). Read by name, like a :class:`Lazy`
    target: the benchmark packages are plugins of the core, and their ``__init__.py`` files import nothing of ours
    but this module."""
    packages = Lazy(f"{BENCHMARKS_PACKAGE}:PACKAGES").load()
    return tuple(Lazy(f"{BENCHMARKS_PACKAGE}.{package}:BENCHMARK").load() for package in packages)


def record(name: str) -> Benchmark | None:
    """The record named ``name``, or None."""
    return next((b for b in records() if b.name == name), None)
