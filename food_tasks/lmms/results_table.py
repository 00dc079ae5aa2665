"""A results table that fits a terminal and names every row.

lmms-eval 0.7.x prints every metric a task returns in its Markdown table, a
dict-valued breakdown (``per_language`` with 30 languages, ``acc_by_region``
...) as one inline cell, and each row under the task's alias: each row of the
table is then padded to hundreds of characters and the headline scalars sit
far to the right.

:func:`food_tasks.lmms.harness.install_table` wraps ``lmms_eval.utils.make_table``
(the function ``lmms_eval.evaluator`` binds when it is imported, after our entry
point ran) so that, in the rows of *our* tasks and groups only (:func:`ours_in`:
the names we ship, regional tasks, and groups made of them), :func:`compact`
prints

* a metric that is not a scalar as a short note (:func:`note`);
* the row's name as its alias when the alias is short enough, else as its task
  or group name (:func:`label`), after lmms-eval's tree marks (``" - "``);
* a task's declared headline first (:class:`Lead`), where lmms-eval sorts a row's
  metrics alphabetically.

The table is rendered after the results JSON was written, and from a copy: the
breakdowns and aliases stay in the results JSON, unchanged. Tasks that are not
ours are printed as lmms-eval prints them. An undefined metric (``null`` in the
results JSON, :func:`food_tasks.lmms.harness.strict_json`) reads ``[undefined]``, a
metric absent with its reason ``[absent]``: the words of the report and of
``food-tasks compare``. :data:`RUN_NOTES` (the replay model's count of
documents answered with its ``default=``) are printed once, under the last table, and so are
:func:`judge_notes`: what judging cost over the run, and a judge from the evaluated model's own family.
"""

from __future__ import annotations

import math
import os
import re
from collections.abc import Callable, Collection, Mapping
from typing import Any

from food_tasks.hooks.convention import TRUNCATED_RATE, Metric
from food_tasks.stats.consistency import HIGHER_IS_BETTER

# The longest alias the Tasks column shows: with the other columns (filter, n-shot, the longest metric
# name, a value or note, stderr) a row stays within 120 characters. A longer alias gives way to the
# task or group name, which is short, unique, and what --tasks and the results JSON use.
LABEL_WIDTH = 40  # food_tasks.tasks.taskgen.ALIAS_WIDTH: every alias we ship fits; the rule is for regional tasks
NOTE_WIDTH = 24  # a string metric value longer than this is a note too ("absent: <reason>")
LEGEND = (
    "[N keys]: a breakdown (per language, per slice ...), [undefined]: no value on this run (null),\n"
    "[absent]: a metric that could not be computed, [text]: a long value; each is in the results JSON.\n"
    "A breakdown's values: <output_path>/<model>/<time>_results.json, under results.<task>.<metric>,none;\n"
    "`food-tasks report <output_path>` tables and charts them, one row per value (per slice, per language ...)."
)
HEADLINE_NOTE = (
    "FOOD_TASKS_TABLE=headline: groups and each task's headline metric only; every task and metric is in "
    "the results JSON."
)
_TREE = re.compile(r"^ *- ")  # lmms-eval's mark for a task inside a group (" - ", "  - " ...)
UNDEFINED = "[undefined]"  # null in the results JSON; "undefined" in the report and in food-tasks compare
# Notes of the run, printed once under the last table: source -> text (the replay model's count of documents it
# answered with its default). A model sets its note when it is built (none) and when it answers.
RUN_NOTES: dict[str, str] = {}


def note(value: Any) -> Any:
    """What the table shows for a metric value: scalars unchanged; a breakdown, an undefined metric (``None`` or
    NaN), an ``"absent: <reason>"`` text or a long text as a short bracketed note (the table ends with :data:`LEGEND`;
    the values are in the results JSON)."""
    if value is None or (isinstance(value, float) and math.isnan(value)):  # undefined: null in the results JSON
        return UNDEFINED
    if isinstance(value, Mapping):
        return f"[{len(value)} keys]"
    if isinstance(value, (list, tuple)):
        return f"[{len(value)} items]"
    if isinstance(value, str) and len(value) > NOTE_WIDTH:  # "absent: <reason>" metrics: the reason is in the JSON
        return f"[{value.split(':', 1)[0]}]" if ":" in value[:NOTE_WIDTH] else "[text]"
    return value


def label(name: str, alias: Any) -> str:
    """The Tasks/Groups cell of a row: lmms-eval's tree marks, then the alias when it has at most
    :data:`LABEL_WIDTH` characters, else the task or group ``name`` (never shortened)."""
    if not isinstance(alias, str) or not alias.strip():
        return name
    tree = _TREE.match(alias)
    prefix = tree.group(0) if tree else ""
    shown = alias[len(prefix) :].strip()
    return prefix + (shown if shown and len(shown) <= LABEL_WIDTH else name)


def ours_in(result_dict: Mapping, names: Collection[str]) -> set[str]:
    """The rows that are ours: ``names`` (the tasks and groups we ship), regional tasks (their config has a
    ``metadata.regional`` block; they live in the user's own folders) and groups whose tasks are all ours."""
    ours = set(names)
    for task, config in (result_dict.get("configs") or {}).items():
        metadata = config.get("metadata") if isinstance(config, Mapping) else None
        if isinstance(metadata, Mapping) and isinstance(metadata.get("regional"), Mapping):
            ours.add(task)
    groups = {
        g: list(m) for g, m in (result_dict.get("group_subtasks") or {}).items() if isinstance(m, (list, tuple)) and m
    }
    grown = True
    while grown:  # nested groups: a group joins once all its members (tasks or groups) are ours
        grown = False
        for group, members in groups.items():
            if group not in ours and all(m in ours for m in members):
                ours.add(group)
                grown = True
    return ours


# FOOD_TASKS_TABLE=headline: our rows print groups and each task's headline metric only (`food-tasks demo`
# passes it; every metric stays in the results JSON). Unset or "full": every metric.
TABLE_ENV = "FOOD_TASKS_TABLE"


def headline_only(environ: Mapping[str, str] | None = None) -> bool:
    """Whether :data:`TABLE_ENV` in ``environ`` (default: this process's) asks for groups and headline metrics
    only (any other value than ``headline``: the full table)."""
    return (os.environ if environ is None else environ).get(TABLE_ENV, "").strip().lower() == "headline"


def _metrics(task: str, config: Any) -> dict[str, Metric]:
    """``name -> Metric`` of one of our tasks (its tables' declarations, the first table's where two share a name);
    ``{}`` when unknown (a task that is not ours, or a table that cannot be imported)."""
    from food_tasks.lmms.facts import tables_for

    try:
        tables = tables_for(task, config if isinstance(config, Mapping) else None)
    except Exception:  # noqa: BLE001 - the table must print even if a hook module cannot be imported
        return {}
    found: dict[str, Metric] = {}
    for table in tables:
        for name, metric in table.items():
            found.setdefault(name, metric)
    return found


def directions(result_dict: Mapping, names: Collection[str]) -> dict:
    """A copy of the results' ``higher_is_better`` in which each of our rows (:func:`ours_in`) says the truth for
    every metric it reports: True (higher is better) or False for a score, None (``null``: no arrow) for a count, a
    breakdown or a diagnostic such as a p-value (:attr:`food_tasks.hooks.convention.Metric.direction`).

    A task's metrics take their direction from its tables; the measures computed across tasks, which no
    ``metric_list`` declares, from :data:`food_tasks.stats.consistency.HIGHER_IS_BETTER` where lmms-eval has none
    (``image_gain``: the direction of the task's headline metric). A group's metric has its member rows' direction
    where they agree, None where they do not (lmms-eval's rule); lmms-eval 0.7.x gives every group one shared dict
    with the metrics of all groups' tasks, so a group lists the metrics of its own row only. Rows that are not ours
    are as lmms-eval wrote them."""
    given = result_dict.get("higher_is_better")
    out = {k: dict(v) if isinstance(v, Mapping) else v for k, v in given.items()} if isinstance(given, Mapping) else {}
    rows = {
        name: row
        for column in ("results", "groups")
        if isinstance(result_dict.get(column), Mapping)
        for name, row in result_dict[column].items()
        if isinstance(row, Mapping)
    }
    configs = result_dict.get("configs") or {}
    subtasks = {
        g: [m for m in members if m in rows]
        for g, members in (result_dict.get("group_subtasks") or {}).items()
        if isinstance(members, (list, tuple)) and members
    }
    done: dict[str, dict] = {}

    def of(name: str) -> dict:
        if name in done:
            return done[name]
        done[name] = {}  # a group that names itself among its members ends here
        present = {str(k).partition(",")[0] for k in rows[name] if "," in str(k)}
        declared = dict(out[name]) if isinstance(out.get(name), Mapping) else {}
        found = {}
        if name in subtasks:  # a group: its own row's metrics, in the direction its members agree on
            members = [of(m) for m in subtasks[name]]
            for m in sorted(present):
                if any(m in d for d in members):
                    agreed = {d[m] for d in members if m in d}
                    found[m] = agreed.pop() if len(agreed) == 1 else None
                elif declared.get(m) is None and m in HIGHER_IS_BETTER:
                    found[m] = HIGHER_IS_BETTER[m]
                elif m in declared:
                    found[m] = declared[m]
        else:
            metrics = _metrics(name, configs.get(name)) if name in configs else {}
            lead = headline(name, configs[name]) if "image_gain" in present and name in configs else None
            for m in [*declared, *sorted(present - set(declared))]:
                if m in metrics:
                    found[m] = metrics[m].direction
                elif m == "image_gain" and lead in metrics:
                    found[m] = metrics[lead].direction  # with minus without the image, on the headline metric
                elif declared.get(m) is None and m in HIGHER_IS_BETTER:
                    found[m] = HIGHER_IS_BETTER[m]
                elif m in declared:
                    found[m] = declared[m]
        done[name] = found
        return found

    for name in ours_in(result_dict, names) & set(rows):
        out[name] = of(name)
    return out


def headline(task: str, config: Any) -> str | None:
    """A task's headline metric: the first metric of its table with a standard error that repeats no other
    (what ``food-tasks compare`` compares by default); None when unknown."""
    from food_tasks.lmms.facts import tables_for

    try:
        tables = tables_for(task, config if isinstance(config, Mapping) else None)
    except Exception:  # noqa: BLE001
        return None
    return next(
        (m.name for t in tables[:1] for m in t.values() if m.estimator is not None and m.alias_of is None), None
    )


def group_headline(group: str, result_dict: Mapping) -> str | None:
    """A group's headline metric: the first of its YAML's ``aggregate_metric_list`` (what ``food-tasks compare``
    compares by default), else the headline of its first member task that has one; None when unknown.
    Never the row's first key: lmms-eval's order of a group's metrics is not the declared one."""
    from food_tasks.tasks import catalogue

    path = catalogue.index().get(group)  # the YAML food_tasks.lmms.errorbars.group_entries reads, functions unresolved
    entries = catalogue.yaml_key(path, "aggregate_metric_list") if path is not None else None
    if entries and isinstance(entries[0], Mapping) and entries[0].get("metric"):
        return str(entries[0]["metric"])
    configs = result_dict.get("configs") or {}
    members = (result_dict.get("group_subtasks") or {}).get(group) or []
    found = (headline(m, configs[m]) for m in members if m in configs)
    return next((m for m in found if m is not None), None)


def compact(result_dict: Mapping, column: str, names: Collection[str], only_headline: bool = False) -> dict:
    """A copy of ``result_dict`` in which our rows of ``column`` (:func:`ours_in`) have their breakdowns
    replaced by :func:`note`, their alias by :func:`label` and their arrows by :func:`directions` (none on
    counts, breakdowns and diagnostics). ``only_headline``: of our rows, groups (in the Groups table only, when
    there is one) and tasks outside any group, each with its headline metric (:func:`headline`; a group:
    :func:`group_headline`).
    The input is not modified (``make_table`` pops ``alias`` from the rows it prints)."""
    rows = result_dict.get(column)
    if not isinstance(rows, Mapping):
        return dict(result_dict)
    ours = ours_in(result_dict, names)
    configs = result_dict.get("configs") or {}
    subtasks = result_dict.get("group_subtasks") or {}
    out = dict(result_dict)
    out[column] = {
        name: _row(name, row, declared_headline(name, configs.get(name)))
        if name in ours and isinstance(row, Mapping)
        else dict(row)
        if isinstance(row, Mapping)
        else row
        for name, row in rows.items()
    }
    out["higher_is_better"] = directions(result_dict, names)
    if only_headline:
        members = {
            m
            for group, children in subtasks.items()
            if group in ours and isinstance(children, (list, tuple))
            for m in children
        }
        # lmms-eval prints a group in both tables when it prints a Groups table; of ours, the Groups table only.
        elsewhere = set(result_dict.get("groups") or ()) if column == "results" else set()
        kept = {}
        for name, row in out[column].items():
            if name not in ours or not isinstance(row, Mapping):
                kept[name] = row
            elif name in elsewhere:
                continue
            elif name not in members or name in subtasks:
                metric = headline(name, configs[name]) if name in configs else group_headline(name, result_dict)
                kept[name] = _headline_row(row, metric)
        out[column] = kept
    return out


def _headline_row(row: Mapping, metric: str | None) -> dict:
    """``row`` with one metric (``metric``, else the row's first), its standard error and the row's other keys."""
    names = [
        str(k).partition(",")[0] for k in row if "," in str(k) and not str(k).partition(",")[0].endswith("_stderr")
    ]
    keep = metric if metric in names else (names[0] if names else None)
    return {k: v for k, v in row.items() if "," not in str(k) or str(k).partition(",")[0] in (keep, f"{keep}_stderr")}


# food_tasks.lmms.errorbars: documents and clusters behind a metric, the two variants of its standard error
# (``_stderr`` is the one we report: clustered where documents share a context) and how it was computed
# (``_stderr_method``), in the results JSON only. Without them in our rows, lmms-eval drops its Stderr_CLT and
# Stderr_Clustered columns (all N/A), and a table with long task and metric names still fits 120 characters.
COUNTS = ("_n", "_clusters", "_stderr_clt", "_stderr_clustered", "_stderr_method", "_stderr_ci")


def _row(name: str, row: Mapping, lead: str | None = None) -> dict:
    """One of our rows: metric values (``metric,filter`` keys) as notes, the alias as the row's label, any
    other key as it is; the documents and clusters behind each metric (``<metric>_n``), the CLT and
    clustered variants of its standard error and how it was computed stay in the JSON, and so does a
    ``truncated_rate`` of 0 (:func:`_quiet`). ``lead``: the task's declared headline, printed first (:class:`Lead`)."""
    return {
        (Lead(key) if lead and str(key).partition(",")[0] == lead else key): label(name, value)
        if key == "alias"
        else note(value)
        if "," in str(key)
        else value
        for key, value in row.items()
        if not str(key).partition(",")[0].endswith(COUNTS) and not _quiet(row, str(key))
    }


class Lead(str):
    """A metric key that sorts before every other key, equal and hashed as the plain key: lmms-eval's ``make_table``
    prints a row's metrics in ``sorted(row.items())`` order (alphabetical), so the row of a task whose table declares
    its headline (:attr:`food_tasks.hooks.convention.MetricTable.headline`: a regional task's
    ``judge: {headline: true}``) starts with it, in the printed copy only; the results JSON keeps its own keys."""

    __slots__ = ()

    def _order(self, other: object) -> tuple[tuple[int, str], tuple[int, str]] | None:
        if not isinstance(other, str):
            return None
        return (0, str(self)), (0 if isinstance(other, Lead) else 1, str(other))

    def __lt__(self, other: object) -> bool:
        pair = self._order(other)
        return NotImplemented if pair is None else pair[0] < pair[1]

    def __le__(self, other: object) -> bool:
        pair = self._order(other)
        return NotImplemented if pair is None else pair[0] <= pair[1]

    def __gt__(self, other: object) -> bool:
        pair = self._order(other)
        return NotImplemented if pair is None else pair[0] > pair[1]

    def __ge__(self, other: object) -> bool:
        pair = self._order(other)
        return NotImplemented if pair is None else pair[0] >= pair[1]

    __hash__ = str.__hash__
    __eq__ = str.__eq__


def declared_headline(task: str, config: Any) -> str | None:
    """The headline a task's first table declares (:attr:`food_tasks.hooks.convention.MetricTable.headline`), else
    None (its first metric leads anyway, or the task is not ours)."""
    from food_tasks.lmms.facts import tables_for

    try:
        tables = tables_for(task, config if isinstance(config, Mapping) else None) if config is not None else []
    except Exception:  # noqa: BLE001 - the table must print even if a hook module cannot be imported
        return None
    return next((t.headline for t in tables[:1] if t.headline), None)


def _quiet(row: Mapping, key: str) -> bool:
    """Whether ``key`` is ``truncated_rate`` (or its standard error) in a row where it is 0: no output ran out of
    tokens, a line that says nothing (the table shows the rate where it is above 0)."""
    metric, _, filter_name = key.partition(",")
    if metric not in (TRUNCATED_RATE.name, f"{TRUNCATED_RATE.name}_stderr"):
        return False
    return row.get(f"{TRUNCATED_RATE.name},{filter_name}") == 0


def render(
    make_table: Callable[..., str], result_dict: Any, column: str, sort_results: bool, names: Collection[str]
) -> str:
    """``make_table`` (lmms-eval's) on :func:`compact`'s copy; under the last table (Groups where there is one),
    :data:`LEGEND` once when a note was printed in any table."""
    if not isinstance(result_dict, Mapping):
        return make_table(result_dict, column, sort_results)
    shown = compact(result_dict, column, names, only_headline=headline_only())
    table = make_table(shown, column, sort_results)
    # The notes once, under the last table lmms-eval prints (Groups when there is one: lmms-eval's __main__).
    last = "groups" if "groups" in result_dict else "results"
    if column != last:
        return table
    noted = any(  # the legend of the notes of every table, right under the last one
        _noted(compact(result_dict, c, names, only_headline=headline_only()) if c != column else shown, result_dict, c)
        for c in ("results", "groups")
        if isinstance(result_dict.get(c), Mapping)
    )
    if noted:
        table += f"\n{LEGEND}"
    rows = {n for c in ("results", "groups") if isinstance(result_dict.get(c), Mapping) for n in result_dict[c]}
    if headline_only() and ours_in(result_dict, names) & rows:
        table += f"\n{HEADLINE_NOTE}"
    if RUN_NOTES:
        table += "".join(f"\n{text}" for _, text in sorted(RUN_NOTES.items()))
    return table + "".join(f"\n{text}" for text in judge_notes(result_dict))


def _noted(shown: Mapping, result_dict: Mapping, column: str) -> bool:
    """Whether the table of ``column`` (``shown``: :func:`compact`'s copy) prints a note of its own (a value that was
    not already bracketed in the results)."""
    return any(
        _is_note(v) and not _is_note(result_dict[column][name].get(k))
        for name, row in (shown.get(column) or {}).items()
        if isinstance(row, Mapping)
        for k, v in row.items()
        if k != "alias"
    )


MODEL_KEYS = ("pretrained", "model", "model_version", "model_name")  # model_args that name the evaluated model


def _judge_infos(result_dict: Mapping) -> list[Any]:
    """The ``judge_info`` values of every row of the results."""
    return [
        value
        for column in ("results", "groups")
        if isinstance(result_dict.get(column), Mapping)
        for row in result_dict[column].values()
        if isinstance(row, Mapping)
        for key, value in row.items()
        if str(key).partition(",")[0] == "judge_info"
    ]


def judge_notes(result_dict: Mapping) -> list[str]:
    """The lines printed under the last table about the run's judges: their tokens, requests and cost summed over the
    tasks (:func:`food_tasks.judge.panel.usage_line` of each task's ``judge_info`` ``usage``), each judge's probe
    figures (:func:`food_tasks.judge.probes.notes`, each distinct line once), and :func:`judge_family_note`."""
    from food_tasks.judge.panel import total_usage, usage_line
    from food_tasks.judge.probes import notes as probe_notes

    infos = _judge_infos(result_dict)
    usage = usage_line(total_usage(info.get("usage") for info in infos if isinstance(info, Mapping)))
    probes = [line for info in infos if isinstance(info, Mapping) for line in probe_notes(info.get("probes"))]
    return [line for line in (usage, *dict.fromkeys(probes), judge_family_note(result_dict)) if line]


def judge_family_note(result_dict: Mapping) -> str | None:
    """One line when a judge of the run (the ``judge_info`` of any row) shares a family with the evaluated model (the
    first of its ``model_args`` names, the results' ``model_name``, the config's ``model``), else None
    (:func:`food_tasks.judge.family.family_note`)."""
    from food_tasks.judge.family import family_note, judge_names
    from food_tasks.lmms.serving import parse_model_args

    judges = [name for info in _judge_infos(result_dict) for name in judge_names(info)]
    if not judges:
        return None
    config = result_dict.get("config") if isinstance(result_dict.get("config"), Mapping) else {}
    args = config.get("model_args")
    named = dict(args) if isinstance(args, Mapping) else parse_model_args(args if isinstance(args, str) else "")
    models = [named.get(k) for k in MODEL_KEYS] + [result_dict.get("model_name"), config.get("model")]
    model = next((m for m in models if isinstance(m, str) and m.strip()), None)
    return family_note(dict.fromkeys(judges), [model]) if model else None


def _is_note(value: Any) -> bool:
    return isinstance(value, str) and value.startswith("[") and value.endswith("]")
