"""What a task's results mean: one :class:`TaskFacts` per task or group of a run, resolved once, when the run is
loaded (:func:`facts_of_results`, which :func:`food_tasks.lmms.runfiles.read_run` calls), from the task's
declarations alone.

A task's facts are its metric tables (a regional task's from the ``metadata.regional`` block its results file's
config holds, read without checking it again: the run checked it; one of ours from the tables its benchmark's record
declares for the ``process_results`` hook its YAML names: no hook module is imported), its headline metric and
that metric's direction (:func:`food_tasks.stats.paired.headline_of`), the decimals of each metric (:attr:`Metric.places
<food_tasks.hooks.convention.Metric.places>`, declared on the metric), the variant its config declares (image-free
twin, rotation, packaged sample; :func:`food_tasks.tasks.registry.declared_variant`: older results files through
the one mapping of older files) and its base task, its document key and cluster columns, and the
judges its ``judge_info`` names. A group's facts are its ``aggregate_metric_list``. ``food-tasks compare``, the
report and ``food-tasks rescore`` take these from here, and from nowhere else.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from food_tasks.hooks.convention import Metric, MetricTable
from food_tasks.judge.family import judges_of
from food_tasks.regional_tasks import scoring as regional_scoring
from food_tasks.regional_tasks.scoring import RegionalConfigError
from food_tasks.stats.paired import headline_of
from food_tasks.tasks import catalogue, registry

HOOKS = f"{catalogue.FUNCTION_TAG} food_tasks.utils."  # how a task YAML names one of our hooks


@dataclass(frozen=True)
class TaskFacts:
    """One task's (or group's) facts: what its results mean (see the module's docstring)."""

    name: str
    tables: tuple[MetricTable, ...] = ()  # the first is the task's own; others: tables a metric may come from
    variant: tuple[str, str] | None = None  # (kind, base task): ("noimage", image twin), ("circular", task rotated)
    judges: tuple[str, ...] = ()  # the judges its judge_info names, headline first
    entries: tuple[Mapping[str, Any], ...] = ()  # a group's aggregate_metric_list (aggregations resolved)

    @property
    def table(self) -> MetricTable | None:
        """The task's own metric table (None: not one of ours, nor a regional task)."""
        return self.tables[0] if self.tables else None

    @property
    def headline(self) -> str | None:
        """The headline metric (:func:`food_tasks.stats.paired.headline_of`), None without a table."""
        return headline_of(self) if self.table is not None else None

    @property
    def higher_is_better(self) -> bool:
        """The headline metric's direction (True without one)."""
        found = self.metric(self.headline) if self.headline else None
        return found[1].higher_is_better if found is not None else True

    @property
    def base(self) -> str:
        """The task a variant is a variant of (the image twin, the task rotated); the task itself otherwise."""
        return self.variant[1] if self.variant is not None else self.name

    @property
    def key(self) -> tuple[str, ...]:
        """The record fields of the document key (() without one)."""
        return tuple(getattr(self.table.key, "names", ()) or ()) if self.table is not None else ()

    @property
    def cluster(self) -> tuple[str, ...]:
        """The record fields of the cluster (the independent unit; () without one)."""
        return tuple(getattr(self.table.cluster, "names", ()) or ()) if self.table is not None else ()

    def metric(self, name: str) -> tuple[MetricTable, Metric] | None:
        """The first of the tables holding metric ``name``, and the metric."""
        for table in self.tables:
            if name in table:
                return table, table[name]
        return None

    def decimals(self, name: str) -> int:
        """The decimals metric ``name`` is shown with (its declaration's :attr:`~Metric.places`; 2 when undeclared)."""
        found = self.metric(name)
        return found[1].places if found is not None else 2


def tables_for(task: str, config: Mapping[str, Any] | None = None) -> tuple[MetricTable, ...]:
    """The metric tables a task's records are reduced with: a regional task's from its ``metadata.regional``
    (in the results JSON config, as the run read it: not checked again), one of ours from the tables its benchmark's
    record declares for the ``process_results`` hook its YAML names (:attr:`food_tasks.tasks.registry.Benchmark.tables`:
    no hook module is imported); ``()`` for other tasks."""
    metadata = (config or {}).get("metadata")
    if isinstance(metadata, Mapping) and isinstance(metadata.get("regional"), Mapping):
        try:  # the run checked the block: it is read as the run read it, not checked again
            settings = regional_scoring.Settings.read(metadata)
        except (KeyError, TypeError, ValueError) as err:
            raise RegionalConfigError(
                f"{task}: the metadata.regional block of its results file's config cannot be read "
                f"({type(err).__name__}: {err}); the file was edited after the run: run the task again"
            ) from None
        return (regional_scoring.metric_table(settings),)
    path = catalogue.index().get(task)
    ref = catalogue.yaml_key(path, "process_results") if path is not None else None
    if not isinstance(ref, str) or not ref.startswith(HOOKS):
        return ()
    bench, _, hook = ref.removeprefix(HOOKS).rpartition(".")
    found = registry.record(bench)
    return tuple((found.tables.load() if found is not None and found.tables is not None else {}).get(hook, ()))


def group_entries(group: str) -> tuple[Mapping[str, Any], ...]:
    """The ``aggregate_metric_list`` of one of our groups (aggregation callables resolved), or ()."""
    path = catalogue.index().get(group)
    if path is None:
        return ()
    entries = catalogue.yaml_key(path, "aggregate_metric_list") or []
    return tuple(
        {**e, "aggregation": catalogue.function(e.get("aggregation", "mean")) or e.get("aggregation", "mean")}
        for e in entries
    )


# The results-file key holding the aggregate_metric_list of the run's groups that our catalogue does not hold (a
# regional group under --include_path): {group: [{"metric", "aggregation", "weight_by_size"}, ...]}.
GROUPS_KEY = "food_tasks_groups"


def written_entries(groups: Mapping[str, Any]) -> dict[str, list[dict[str, Any]]]:
    """What a run writes under :data:`GROUPS_KEY`: of each group (name -> (config, leaves), as lmms-eval's index holds
    it) that our catalogue does not hold, its ``aggregate_metric_list`` as plain JSON (an aggregation function by
    its name)."""
    index = catalogue.index()
    return {
        name: [
            {
                "metric": str(e.get("metric")),
                "aggregation": a
                if isinstance(a := e.get("aggregation", "mean"), str)
                else getattr(a, "__name__", "mean"),
                "weight_by_size": bool(e.get("weight_by_size", False)),
            }
            for e in config.get("aggregate_metric_list") or []
            if isinstance(e, Mapping)
        ]
        for name, (config, _) in groups.items()
        if name not in index and isinstance(config, Mapping)
    }


def facts_of(
    name: str, config: Any, row: Mapping[str, Any] | None = None, group: bool = False, written: Any = None
) -> TaskFacts:
    """The facts of task ``name`` (``config``: its results file's ``configs.<name>``; ``row``: its results row,
    where its ``judge_info`` is), or of a group (``group``: its ``aggregate_metric_list``: our catalogue's, else the
    one the run wrote, ``written``, from :data:`GROUPS_KEY`)."""
    if group:
        entries = group_entries(name)
        if not entries and isinstance(written, list):
            entries = tuple(e for e in written if isinstance(e, Mapping) and e.get("metric"))
        return TaskFacts(name, variant=registry.variant(name), entries=entries)  # lmms-eval writes no group config
    config = config if isinstance(config, Mapping) else {}
    info = next((v for k, v in (row or {}).items() if str(k).partition(",")[0] == "judge_info"), None)
    return TaskFacts(
        name,
        tables_for(name, config),
        registry.declared_variant(name, config),
        tuple(judges_of(info)),
    )


def facts_of_results(data: Mapping[str, Any]) -> dict[str, TaskFacts]:
    """The facts of every task and group of a results file's JSON ``data``, by name (a group's from our catalogue,
    else from what the run wrote under :data:`GROUPS_KEY`; a group is one lmms-eval lists under ``group_subtasks``
    or reports under ``groups``; a name that is a task is a task)."""
    configs = data.get("configs") or {}
    results = data.get("results") or {}
    tasks = sorted({*results, *(data.get("groups") or {})} & set(configs))
    written = data.get(GROUPS_KEY) if isinstance(data.get(GROUPS_KEY), dict) else {}
    groups = {
        g: facts_of(g, None, group=True, written=written.get(g))
        for g in {**(data.get("group_subtasks") or {}), **(data.get("groups") or {})}
        if g not in tasks
    }
    return {**{t: facts_of(t, configs[t], results.get(t)) for t in tasks}, **groups}


def metric_in(tables: Sequence[MetricTable], name: str) -> tuple[MetricTable, Metric] | None:
    """The first of ``tables`` holding metric ``name``, and the metric."""
    return TaskFacts("", tuple(tables)).metric(name)


# --------------------------------------------------------------------------- a document's identity (food-tasks rescore)

NO_FIELD = "<no such field>"  # a key field a document lacks: its identity then matches no recorded answer


def key_names(task: str, config: Mapping[str, Any] | None = None) -> tuple[str, ...]:
    """The record fields of the task's document key (its facts' :attr:`~food_tasks.lmms.facts.TaskFacts.key`: its
    metric table's ``key`` columns); () when it has none."""
    return facts_of(task, config).key


def doc_fields(
    task: str, config: Mapping[str, Any] | None = None, names: Sequence[str] | None = None
) -> dict[str, str]:
    """The task's document key: each record field of :func:`key_names` (or ``names``) -> the document column that
    holds it (the same name, but for a regional task's ``id``: its ``metadata.regional`` id column)."""
    names = key_names(task, config) if names is None else tuple(names)
    metadata = (config or {}).get("metadata")
    if isinstance(metadata, Mapping) and isinstance(metadata.get("regional"), Mapping):
        column = metadata["regional"].get("id")
        return {n: column if n == "id" and column else n for n in names}
    return {n: n for n in names}


def doc_identity(fields: Sequence[str], row: Mapping[str, Any]) -> tuple[str, ...]:
    """A document's identity: the values of its key ``fields`` (document columns), as text (``NO_FIELD`` for one
    it lacks); for a task without key fields, ``("doc_id", <position>)``: its position (lmms-eval 0.7.3's
    ``doc_hash`` is the same for every document, so it identifies none)."""
    if fields:
        return tuple(str(row[n]) if n in row else NO_FIELD for n in fields)
    return ("doc_id", str(row.get("doc_id")))
