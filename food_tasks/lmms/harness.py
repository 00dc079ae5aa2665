"""Every place food-tasks touches lmms-eval: the names we rely on, and the few wraps we install.

lmms-eval 0.7.x reads no task entry points; it does load the ``lmms_eval.models`` entry-point group before it indexes
tasks (``food_tasks.registration.lmms_eval_plugin`` is ours). From there we install, on public lmms-eval names only:

* the task index: ``TaskManager.initialize_tasks`` gets our task directory appended to its include path, after
  lmms-eval's own (built-in tasks win a name clash; no ``--include_path`` needed); a regional task name defined by
  several YAMLs under the user's include path, or taken by another task, is a warning naming the files
  (:func:`regional_clashes`); while lmms-eval indexes, the YAML files of our directory are parsed by libyaml
  (:func:`fast_index`: 0.2 s instead of 2 s per start-up, the same index); a user's YAML that does not parse stops the
  run naming it (exit status 1); a regional task's ``tag`` is indexed (:mod:`food_tasks.lmms.names`);
* the names asked for: ``TaskManager.match_tasks`` and ``load_task_or_group`` stop the run (exit status 1) when a
  task, group or tag resolves to no task, and ``--tasks <folder>`` with no YAML in it (lmms-eval exits 0); groups
  consolidate without our tasks' breakdowns;
* the task kind: ``TaskManager.load_task_or_group(task_list, task_type)`` runs inside a context (:data:`TASK_TYPE`,
  :data:`TASK_MANAGER`) that tells a regional task's class which kind lmms-eval is building and which YAML it reads
  (lmms-eval gives ``class:`` tasks only their config);
* the printed table: ``lmms_eval.utils.make_table`` names each of our rows (tasks, groups, regional tasks) and prints
  its breakdowns as short notes (:mod:`food_tasks.lmms.results_table`); the results JSON is untouched;
* the results files: ``EvaluationTracker.save_results_aggregated`` and ``save_results_samples`` get every non-finite
  number (an undefined metric is NaN while lmms-eval aggregates) as ``None`` first, so the files are strict JSON with an
  undefined value as ``null``, and the table printed afterwards shows ``[undefined]``; the results' ``higher_is_better``
  gets the direction of every metric of our rows (lmms-eval's lacks the measures computed across tasks, marks counts,
  breakdowns and p-values as scores, and gives every group the metrics of all groups:
  :func:`food_tasks.lmms.results_table.directions`), so the file and the table say the same;
* ``--repeats K``: ``construct_requests`` of our tasks asks K separate requests per document (lmms-eval asks one request
  answered K times, keeps the first answer, and so never computes its stability metrics for a generation task);
  ``process_results`` scores the first answer, each answer's own scores feed lmms-eval's expected/consensus accuracy,
  internal variance and consistency rate;
* error bars (:mod:`food_tasks.lmms.errorbars`): after ``TaskOutput.calculate_aggregate_metric`` and
  ``calculate_clt_aggregate_metric`` (lmms-eval's own standard errors, which know nothing of our aggregations) our
  tasks' metrics get their clustered or bootstrap standard errors; after ``consolidate_group_results`` our groups get
  theirs, every metric its ``n``, and ``--baseline`` a paired comparison matched by document identity;
* the token budget: after ``ConfigurableTask.apply_filters`` the answer of each request of our tasks that used its whole
  ``max_new_tokens`` (the token counts the backend reported, which lmms-eval writes only to the samples file) is marked
  (:class:`food_tasks.hooks.truncation.Spent`, kept through lmms-eval's ``.strip()``), so ``truncated_rate`` counts it;
  ``food-tasks rescore``'s replay reports the run's recorded counts (``GenerationResult``) for the same;
* ``food-tasks rescore`` leaves out a document the run did not answer (requests with ``doc_id`` ``NOT_SCORED``):
  lmms-eval's ``evaluate`` skips a document without requests (its "partial rerun" path), never scores it;
* process exit: a gloo group (``accelerate launch --multi_gpu`` on CPU) that lmms-eval leaves to interpreter shutdown
  now and then aborts a rank (SIGABRT, pytorch/pytorch#190489) after the results: :func:`install_exit` destroys it.

``FOOD_TASKS_AUTOREGISTER=0`` is the one opt-out: none of these wraps is installed (pass ``--include_path
"$(food-tasks path)"`` yourself; regional tasks then build for chat models, tables print breakdowns inline, an
undefined metric is a bare ``NaN`` in the results file, our metrics have no standard errors). :data:`HARNESS_API` lists
every lmms-eval attribute and behaviour ("relied on (behaviour)") the package relies on; tests/core/test_harness_api.py
checks them all, so an lmms-eval upgrade fails in one place.
"""

from __future__ import annotations

import atexit
import contextlib
import contextvars
import functools
import importlib
import math
import os
import sys
import weakref
from collections.abc import Callable, Collection, Iterator
from typing import Any

from food_tasks import __version__
from food_tasks.lmms import facts, names
from food_tasks.lmms.names import regional_clashes
from food_tasks.tasks.catalogue import unreadable_yaml

OPT_OUT_ENV = "FOOD_TASKS_AUTOREGISTER"
_MARKER = "_food_tasks_wrapped"

# Which kind of task object lmms-eval is building right now ("chat" unless told otherwise).
TASK_TYPE: contextvars.ContextVar[str] = contextvars.ContextVar("food_tasks_task_type", default="chat")
# The TaskManager building tasks right now: its task index names a regional task's YAML (None outside).
TASK_MANAGER: contextvars.ContextVar[Any] = contextvars.ContextVar("food_tasks_task_manager", default=None)
# Per TaskManager: regional task name -> each YAML of the --include_path naming it, when several do (lmms-eval: one).
_CLASHES: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()
# Our YAML files as libyaml parsed them while lmms-eval indexed (fast_index): (path, size, mtime) -> tree.
_PARSED: dict[tuple[str, int, int], Any] = {}
# Whether destroy_gloo_group is registered with atexit in this process.
_EXIT_INSTALLED = False

# (module, attribute path, what we use it for). Each must exist; test_harness_api.py checks every one, and runs
# lmms-eval once to check each "relied on (behaviour)".
HARNESS_API: tuple[tuple[str, str, str], ...] = (
    ("lmms_eval.tasks", "TaskManager.initialize_tasks", "wrapped: our task directory joins the index"),
    ("lmms_eval.tasks", "TaskManager.load_task_or_group", "wrapped: TASK_TYPE for regional task classes"),
    ("lmms_eval.tasks", "TaskManager.match_tasks", "wrapped: a name that resolves to no task stops the run"),
    ("lmms_eval.tasks", "TaskManager.task_index", "the YAML of a regional task (named in its messages)"),
    ("lmms_eval.utils", "make_table", "wrapped: our rows named, breakdowns as short notes"),
    ("lmms_eval.utils", "load_yaml_config", "swapped while lmms-eval indexes: our YAMLs parsed by libyaml"),
    ("lmms_eval.utils", "ignore_constructor", "what lmms-eval's index reads a !function tag as"),
    (
        "lmms_eval.loggers",
        "EvaluationTracker.save_results_aggregated",
        "wrapped: NaN written as null, our metrics' higher_is_better told",
    ),
    ("lmms_eval.loggers", "EvaluationTracker.save_results_samples", "wrapped: NaN written as null"),
    ("lmms_eval.evaluator_utils", "TaskOutput.calculate_aggregate_metric", "wrapped: our standard errors"),
    (
        "lmms_eval.evaluator_utils",
        "TaskOutput.calculate_clt_aggregate_metric",
        "wrapped: our clustered standard errors",
    ),
    ("lmms_eval.evaluator_utils", "consolidate_group_results", "wrapped: group standard errors, n, --baseline"),
    ("lmms_eval.api.group", "ConfigurableGroup", "reads a group's aggregate_metric_list"),
    ("lmms_eval.api.task", "ConfigurableTask.construct_requests", "wrapped: --repeats K asks K separate requests"),
    ("lmms_eval.api.task", "ConfigurableMessagesTask.construct_requests", "wrapped: the same for chat models"),
    ("lmms_eval.api.instance", "Instance", "one request (copied per repeat)"),
    ("lmms_eval.api.task", "ConfigurableTask.apply_filters", "wrapped: answers that used the whole budget marked"),
    ("lmms_eval.api.task", "ConfigurableTask.process_results", "relied on (behaviour): strips, Spent kept"),
    ("lmms_eval.api.task", "ConfigurableTask", "base class of regional tasks (simple models)"),
    ("lmms_eval.api.task", "ConfigurableMessagesTask", "base class of regional tasks (chat models)"),
    ("lmms_eval.api.model", "lmms", "base class of the food_tasks_replay model"),
    ("lmms_eval.api.instance", "GenerationResult", "rescore: a replayed answer with its recorded token counts"),
    ("lmms_eval.api.instance", "TokenCounts", "rescore: the token counts a samples file recorded, reported again"),
    ("lmms_eval.evaluator", "evaluate", "relied on (behaviour): a document without requests (NOT_SCORED) not scored"),
    ("lmms_eval.models.registry_v2", "ModelManifest", "registers food_tasks_replay"),
    ("lmms_eval.llm_judge", "get_server", "judge providers other than our OpenAI-compatible client"),
    ("lmms_eval.llm_judge", "ServerConfig", "judge provider settings"),
    ("lmms_eval.llm_judge", "Request", "one judge request through a provider"),
)

# The aggregate_metric_list of each group of this run that the pack's catalogue does not hold (a regional group
# under --include_path), written into the results file (facts.GROUPS_KEY) so that compare and the report read it back.
GROUP_ENTRIES: dict[str, list[dict[str, Any]]] = {}


def enabled() -> bool:
    """False when the user opted out of every wrap (``FOOD_TASKS_AUTOREGISTER=0``)."""
    return os.environ.get(OPT_OUT_ENV, "1").strip().lower() not in {"0", "false", "no", "off"}


def resolve(module: str, path: str) -> Any:
    """The lmms-eval object ``module.path`` (``path`` may be dotted: ``Class.method``).

    Raises:
        RuntimeError: naming the missing attribute and the fallback, when this lmms-eval lacks it.
    """
    obj: Any = importlib.import_module(module)
    for part in path.split("."):
        if not hasattr(obj, part):
            raise RuntimeError(
                f"food-tasks: this lmms-eval has no {module}.{path}; it is not supported "
                f'(lmms-eval>=0.7.3,<0.8 is). Set {OPT_OUT_ENV}=0 and pass --include_path "$(food-tasks path)".'
            )
        obj = getattr(obj, part)
    return obj


def _wrap(owner: Any, name: str, make: Callable[[Callable], Callable]) -> bool:
    """Replace ``owner.name`` by ``make(original)`` once (idempotent)."""
    original = getattr(owner, name)
    if getattr(original, _MARKER, False):
        return True
    wrapped = functools.wraps(original)(make(original))
    setattr(wrapped, _MARKER, True)
    setattr(owner, name, wrapped)
    return True


def install_task_index(task_dir: str) -> bool:
    """Append ``task_dir`` to every ``TaskManager.initialize_tasks`` include path (after lmms-eval's own)."""
    manager = resolve("lmms_eval.tasks", "TaskManager")
    resolve("lmms_eval.tasks", "TaskManager.initialize_tasks")

    def make(original: Callable) -> Callable:
        def initialize_tasks(
            self: Any, include_path: str | list[str] | None = None, include_defaults: bool = True
        ) -> Any:
            paths = with_dir(include_path, task_dir)
            names.stop_if_empty_folder(sys.argv)  # lmms-eval's CLI loads --tasks <folder> itself: nothing to run
            try:
                with fast_index(task_dir):
                    index = original(self, include_path=paths, include_defaults=include_defaults)
            except Exception as err:  # a user's YAML that does not parse: exit 1 naming it, not lmms-eval's exit 0
                if (stop := unreadable_yaml(err)) is None:
                    raise
                raise stop from None
            try:
                ours = os.path.realpath(task_dir)
                user = [p for p in paths if os.path.realpath(p) != ours]
                _CLASHES[self] = regional_clashes(user, index, task_dir)
                names.add_tags(index, user)  # lmms-eval indexes no tag of a `class:` task
            except Exception as err:  # noqa: BLE001 - the check must never cost a run its task index
                from loguru import logger

                logger.warning(f"food-tasks: regional task names not checked ({type(err).__name__}: {err})")
            return index

        return initialize_tasks

    return _wrap(manager, "initialize_tasks", make)


@contextlib.contextmanager
def fast_index(task_dir: str) -> Iterator[None]:
    """While lmms-eval indexes its include path: each YAML file under ``task_dir`` (ours, shipped with the package)
    is parsed by libyaml, not by PyYAML's pure-Python loader, into what lmms-eval's own ``simple`` mode reads (a
    ``!function`` tag as its node, :func:`lmms_eval.utils.ignore_constructor`); lmms-eval then follows its
    ``include`` and builds the index itself. Every other file, and the ``full`` loading of the tasks a run asks
    for, stay lmms-eval's. Our 276 YAMLs cost 0.2 s instead of 2 s at each start-up, and a file already parsed in
    this process is not parsed again (:func:`_parsed`); the index is the same (tests/core/test_registration.py).
    Without libyaml nothing changes."""

    utils = importlib.import_module("lmms_eval.utils")
    loader = _simple_loader(utils.ignore_constructor)
    original = utils.load_yaml_config
    if loader is None or getattr(original, _MARKER, False):
        yield
        return
    ours = os.path.realpath(task_dir) + os.sep

    def load_yaml_config(
        yaml_path: str | None = None, yaml_config: Any = None, yaml_dir: str | None = None, mode: str = "full"
    ) -> Any:
        if yaml_config is None and mode == "simple" and yaml_path and os.path.realpath(yaml_path).startswith(ours):
            yaml_config = _parsed(yaml_path, loader)
        return original(yaml_path=yaml_path, yaml_config=yaml_config, yaml_dir=yaml_dir, mode=mode)

    setattr(load_yaml_config, _MARKER, True)
    utils.load_yaml_config = load_yaml_config
    try:
        yield
    finally:
        utils.load_yaml_config = original


def _parsed(path: str, loader: type) -> Any:
    """The file parsed by ``loader``, as a fresh tree of dicts and lists (lmms-eval edits what it is given).

    Kept per process, keyed by the file's path, size and modification time: a template included by many task
    files, and every file when a process builds several TaskManagers (a notebook, a test session), is parsed
    once. Our folder only: a few hundred small files."""
    import yaml

    stat = os.stat(path)
    key = (os.path.realpath(path), stat.st_size, stat.st_mtime_ns)
    tree = _PARSED.get(key)
    if tree is None:
        with open(path, "rb") as file:
            tree = _PARSED[key] = yaml.load(file, Loader=loader)
    return _fresh(tree)


def _fresh(tree: Any) -> Any:
    """A copy of the dicts and lists of a parsed YAML tree (its scalars and nodes are shared: never edited)."""
    if isinstance(tree, dict):
        return {key: _fresh(value) for key, value in tree.items()}
    if isinstance(tree, list):
        return [_fresh(value) for value in tree]
    return tree


@functools.lru_cache(maxsize=1)
def _simple_loader(ignore: Callable) -> type | None:
    """libyaml's safe loader reading ``!function`` as lmms-eval's index does (None without libyaml)."""
    import yaml

    base = getattr(yaml, "CSafeLoader", None)
    if base is None:
        return None

    class _Loader(base):  # type: ignore[misc, valid-type]
        pass

    _Loader.add_constructor("!function", ignore)
    return _Loader


def task_yaml(name: str) -> tuple[str | None, list[str]]:
    """The YAML lmms-eval is building task ``name`` from (None outside a ``load_task_or_group`` of ours), and every
    YAML under the user's ``--include_path`` defining that name when more than one does."""
    manager = TASK_MANAGER.get()
    if manager is None:
        return None, []
    entry = manager.task_index.get(name) or {}
    path = entry.get("yaml_path") if isinstance(entry, dict) else None
    return (path if isinstance(path, str) else None), list(_CLASHES.get(manager, {}).get(name, []))


def with_dir(include_path: Any, task_dir: str) -> list[str]:
    """``include_path`` as a list, with ``task_dir`` appended once."""
    if include_path is None:
        paths: list[str] = []
    elif isinstance(include_path, (str, os.PathLike)):
        paths = [os.fspath(include_path)]
    else:
        paths = [os.fspath(p) for p in include_path]
    if not any(os.path.realpath(p) == os.path.realpath(task_dir) for p in paths):
        paths.append(task_dir)
    return paths


def install_task_type() -> bool:
    """Run ``TaskManager.load_task_or_group`` inside :data:`TASK_TYPE` set to its ``task_type`` argument, once every
    name it is given resolves to a task (:func:`food_tasks.lmms.names.stop_if_unresolved`, as ``match_tasks``)."""
    manager = resolve("lmms_eval.tasks", "TaskManager")
    resolve("lmms_eval.tasks", "TaskManager.load_task_or_group")
    resolve("lmms_eval.tasks", "TaskManager.match_tasks")

    def make_match(original: Callable) -> Callable:
        def match_tasks(self: Any, task_list: Any) -> Any:
            names.stop_if_unresolved(self.task_index, task_list if isinstance(task_list, list) else [task_list])
            return original(self, task_list)

        return match_tasks

    _wrap(manager, "match_tasks", make_match)

    def make(original: Callable) -> Callable:
        def load_task_or_group(self: Any, task_list: Any = None, task_type: str = "simple") -> Any:
            listed = task_list if isinstance(task_list, list) else [task_list]
            names.stop_if_unresolved(self.task_index, listed, files_ok=False)
            token, manager = TASK_TYPE.set(str(task_type)), TASK_MANAGER.set(self)
            try:
                return original(self, task_list, task_type)
            finally:
                TASK_TYPE.reset(token)
                TASK_MANAGER.reset(manager)

        return load_task_or_group

    return _wrap(manager, "load_task_or_group", make)


def install_table(ours: Callable[[], Collection[str]]) -> bool:
    """Print our tasks' breakdowns as short notes in lmms-eval's table (see :mod:`food_tasks.lmms.results_table`)."""
    import lmms_eval.utils

    from food_tasks.lmms.results_table import render

    resolve("lmms_eval.utils", "make_table")
    names = functools.lru_cache(maxsize=1)(lambda: frozenset(ours()))

    def make(original: Callable) -> Callable:
        def make_table(result_dict: dict[str, Any], column: str = "results", sort_results: bool = False) -> str:
            return render(original, result_dict, column, sort_results, names())

        return make_table

    return _wrap(lmms_eval.utils, "make_table", make)


def strict_json(value: Any) -> Any:
    """``value`` with every non-finite float (NaN, the infinities) replaced by ``None``, dicts and lists changed in
    place: what ``json.dumps`` then writes is strict JSON (``NaN`` is not JSON; ``JSON.parse`` and jq refuse it)."""
    if isinstance(value, dict):
        for key, item in value.items():
            value[key] = strict_json(item)
    elif isinstance(value, list):
        value[:] = [strict_json(item) for item in value]
    elif type(value) is tuple:
        return tuple(strict_json(item) for item in value)
    elif isinstance(value, float) or type(value).__module__ == "numpy" and hasattr(value, "dtype"):
        try:
            return value if math.isfinite(value) else None
        except (TypeError, ValueError):  # a numpy value that is not one number
            return value
    return value


def install_strict_json(ours: Callable[[], Collection[str]] | None = None) -> bool:
    """lmms-eval's results and samples files as strict JSON (see :func:`strict_json`); with ``ours`` (the names of
    our tasks and groups), the results' ``higher_is_better`` told the truth for our rows first
    (:func:`food_tasks.lmms.results_table.directions`), in the dict the table is then printed from too."""
    from food_tasks.lmms.results_table import directions

    tracker = resolve("lmms_eval.loggers", "EvaluationTracker")
    resolve("lmms_eval.loggers", "EvaluationTracker.save_results_aggregated")
    resolve("lmms_eval.loggers", "EvaluationTracker.save_results_samples")

    def make_results(original: Callable) -> Callable:
        def save_results_aggregated(self: Any, results: dict, *args: Any, **kwargs: Any) -> Any:
            if ours is not None and isinstance(results, dict) and isinstance(results.get("higher_is_better"), dict):
                results.setdefault("food_tasks_version", __version__)  # what a later re-score reads
                if GROUP_ENTRIES:  # the aggregate_metric_list of groups the pack's catalogue does not hold
                    results.setdefault(facts.GROUPS_KEY, dict(sorted(GROUP_ENTRIES.items())))
                    GROUP_ENTRIES.clear()
                try:
                    results["higher_is_better"] = directions(results, frozenset(ours()))
                except Exception as err:  # noqa: BLE001 - a direction must never cost a run its results file
                    from loguru import logger

                    logger.warning(
                        f"food-tasks: higher_is_better left as lmms-eval wrote it ({type(err).__name__}: {err})"
                    )
            return original(self, strict_json(results), *args, **kwargs)

        return save_results_aggregated

    def make_samples(original: Callable) -> Callable:
        def save_results_samples(self: Any, task_name: str, samples: Any, *args: Any, **kwargs: Any) -> Any:
            for sample in samples if isinstance(samples, list) else ():
                if isinstance(sample, dict):  # not the document (the writer drops it) nor the request's arguments
                    for key in sample.keys() - {"doc", "arguments"}:
                        sample[key] = strict_json(sample[key])
            return original(self, task_name, samples, *args, **kwargs)

        return save_results_samples

    _wrap(tracker, "save_results_aggregated", make_results)
    return _wrap(tracker, "save_results_samples", make_samples)


def install_error_bars() -> bool:
    """Our standard errors, ``n``, group errors and ``--baseline`` comparisons (:mod:`food_tasks.lmms.errorbars`).

    lmms-eval's evaluator binds ``consolidate_group_results`` when it is imported, after our entry point ran
    (it imports ``lmms_eval.models`` first), so the wrap is in place before that binding.
    """
    import lmms_eval.evaluator_utils as evaluator_utils

    from food_tasks.lmms import errorbars

    output = resolve("lmms_eval.evaluator_utils", "TaskOutput")
    resolve("lmms_eval.evaluator_utils", "TaskOutput.calculate_aggregate_metric")
    resolve("lmms_eval.evaluator_utils", "TaskOutput.calculate_clt_aggregate_metric")
    resolve("lmms_eval.evaluator_utils", "consolidate_group_results")
    group_class = resolve("lmms_eval.api.group", "ConfigurableGroup")

    def make_aggregate(original: Callable) -> Callable:
        def calculate_aggregate_metric(
            self: Any, bootstrap_iters: int | None = errorbars.LMMS_EVAL_DEFAULT_ITERS
        ) -> None:
            original(self, bootstrap_iters=bootstrap_iters)
            errorbars.task_statistics(
                self.task_name,
                self.sample_metrics,
                self.agg_metrics,
                errorbars.bootstrap_iters(bootstrap_iters),
                metadata=(getattr(self, "task_config", None) or {}).get("metadata"),
            )

        return calculate_aggregate_metric

    def make_clt(original: Callable) -> Callable:
        def calculate_clt_aggregate_metric(self: Any) -> None:
            original(self)
            errorbars.clustered_errors(self.task_name, self.agg_metrics)

        return calculate_clt_aggregate_metric

    def make_groups(original: Callable) -> Callable:
        def consolidate_group_results(
            results: dict[str, Any],
            versions: dict[str, Any],
            task_dict: dict[Any, Any],
            task_root: str | None = None,
            show_group_table: bool = False,
            task_aggregation_list: dict[str, Any] | None = None,
        ) -> Any:
            stability = errorbars.set_aside_stability(results) if task_root is None else {}
            breakdowns = names.set_aside_breakdowns(results) if task_root is None else {}
            try:
                out = original(results, versions, task_dict, task_root, show_group_table, task_aggregation_list)
            finally:
                errorbars.restore(results, stability)
                errorbars.restore(results, breakdowns)  # each key back in its row, as the stability values
            if task_root is None:  # the top-level call (lmms-eval recurses through the same name)
                try:
                    groups, baseline = _groups_and_baseline(task_dict, out[3] or {}, group_class)
                    GROUP_ENTRIES.clear()  # this run's groups only
                    GROUP_ENTRIES.update(facts.written_entries(groups))  # read back by compare and the report
                    errorbars.finish(out[0], groups, baseline, errorbars.current_iters())
                except Exception as err:  # noqa: BLE001 - error bars must never cost a run its results
                    from loguru import logger

                    logger.warning(f"food-tasks: group standard errors skipped ({type(err).__name__}: {err})")
            return out

        return consolidate_group_results

    _wrap(output, "calculate_aggregate_metric", make_aggregate)
    _wrap(output, "calculate_clt_aggregate_metric", make_clt)
    return _wrap(evaluator_utils, "consolidate_group_results", make_groups)


def _groups_and_baseline(task_dict: Any, aggregation_list: Any, group_class: type) -> tuple[dict, str | None]:
    """Groups that aggregate metrics (name -> (config, leaf tasks)) and lmms-eval's ``--baseline`` argument."""
    groups: dict[str, tuple[Any, list[str]]] = {}
    baseline = None

    def walk(node: Any) -> None:
        nonlocal baseline
        for key, value in node.items():
            if isinstance(key, group_class) and key.config.get("aggregate_metric_list"):
                groups[key.group_name] = (key.config, list(aggregation_list.get(key.group_name, [])))
            if isinstance(value, dict):
                walk(value)
            elif baseline is None:
                baseline = getattr(getattr(value, "args", None), "baseline", None)

    walk(task_dict)
    return groups, baseline


def install_repeats() -> bool:
    """``--repeats K`` on our tasks: K requests per document, each answered once (see the module docstring)."""
    import dataclasses

    resolve("lmms_eval.api.instance", "Instance")
    classes = [resolve("lmms_eval.api.task", name) for name in ("ConfigurableTask", "ConfigurableMessagesTask")]

    def make(original: Callable) -> Callable:
        def construct_requests(self: Any, doc_id: int, ctx: Any, **kwargs: Any) -> Any:
            out = original(self, doc_id, ctx, **kwargs)
            repeats = int(getattr(self.config, "repeats", 1) or 1)
            ours = getattr(getattr(self.config, "process_results", None), "tables", None) is not None
            if repeats <= 1 or not ours or isinstance(out, list):
                return out
            return [dataclasses.replace(out, idx=i, metadata={**out.metadata, "repeats": 1}) for i in range(repeats)]

        return construct_requests

    for cls in classes:
        if "construct_requests" in vars(cls):
            _wrap(cls, "construct_requests", make)
    return True


def install_budget() -> bool:
    """After ``ConfigurableTask.apply_filters`` of our tasks, each request's filtered answer that used its whole
    ``max_new_tokens`` is marked :class:`food_tasks.hooks.truncation.Spent` (the module docstring)."""
    from food_tasks.hooks import truncation

    cls = resolve("lmms_eval.api.task", "ConfigurableTask")

    def make(original: Callable) -> Callable:
        def apply_filters(self: Any, *args: Any, **kwargs: Any) -> Any:
            out = original(self, *args, **kwargs)
            if getattr(getattr(self.config, "process_results", None), "tables", None) is None:
                return out  # not ours
            for instance in self.instances or ():
                counts = getattr(instance, "token_counts", None)
                if counts and truncation.spent_in(instance.args, counts[0]):
                    instance.filtered_resps = {k: truncation.mark(v, True) for k, v in instance.filtered_resps.items()}
            return out

        return apply_filters

    return _wrap(cls, "apply_filters", make)


def destroy_gloo_group() -> bool:
    """Destroy the default process group if one is initialized and is gloo's; whether one was destroyed.

    lmms-eval 0.7.x ends its ranks with a barrier and returns, never calling ``destroy_process_group``. Gloo's
    worker threads then meet interpreter finalization, which aborts the process now and then. NCCL groups
    (GPU runs) are left as lmms-eval leaves them. Never raises: it runs at exit.
    """
    dist = sys.modules.get("torch.distributed")
    try:
        if dist is None or not dist.is_available() or not dist.is_initialized():
            return False
        # Accelerate on CPU initializes with no backend named: get_backend() then says "undefined" and the
        # configuration "cpu:gloo"; a GPU run's says "cuda:nccl" (with or without "cpu:gloo").
        config = getattr(dist, "get_backend_config", dist.get_backend)()
        if {part.rsplit(":", 1)[-1].strip() for part in str(config).lower().split(",")} != {"gloo"}:
            return False
        dist.destroy_process_group()
        return True
    except Exception:  # noqa: BLE001 - at exit there is no one to report to; the group is left as it was
        return False


def install_exit() -> bool:
    """Register :func:`destroy_gloo_group` to run at exit (once per process)."""
    global _EXIT_INSTALLED
    if not _EXIT_INSTALLED:
        atexit.register(destroy_gloo_group)
        _EXIT_INSTALLED = True
    return True


def install(task_dir: str, ours: Callable[[], Collection[str]]) -> bool:
    """Install every wrap (nothing when :func:`enabled` is False). Returns whether they are installed."""
    if not enabled():
        return False
    install_task_index(task_dir)
    install_task_type()
    install_table(ours)
    install_strict_json(ours)
    install_error_bars()
    install_repeats()
    install_budget()
    install_exit()
    return True
