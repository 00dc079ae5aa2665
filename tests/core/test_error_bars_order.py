"""Same documents, same numbers: every reported key (values, standard errors, n, clusters, methods) and every
paired comparison is a function of the set of documents, never of the order the records arrive in (issue 27).

Each benchmark's packaged sample goes through the hooks a run uses (food_tasks.hooks.convention.aggregate for the
values, food_tasks.lmms.errorbars for the errors, the groups and the JSON keys), then again with its records shuffled:
every key must be equal (``==``, not approximately).
"""

from __future__ import annotations

import json
import math
import random

import numpy as np
import pytest
from sample_records import SAMPLE_TASKS, leaf_tasks, scored

from food_tasks.hooks import convention as hooks
from food_tasks.lmms import errorbars
from food_tasks.runs import load_run
from food_tasks.runs import paired as compare
from food_tasks.runs.paired import group_entries
from food_tasks.stats import uncertainty as stats

ITERS = 200
SEEDS = (1, 2, 3)


def _reported(tasks: dict[str, list], groups: dict[str, list[str]] = {}) -> dict:  # noqa: B006
    """What a run writes for these tasks' records (per task, in the given order) and groups: lmms-eval's
    aggregation step through our hooks, then our group errors and JSON keys."""
    results: dict[str, dict] = {}
    for task, records in tasks.items():
        table = scored(task)[0]
        per_doc = [table.payloads(r) for r in records]
        sample_metrics = {(name, "none"): [p[name] for p in per_doc] for name in table}
        row = {f"{name},none": hooks.aggregate(items) for (name, _), items in sample_metrics.items()}
        errorbars.task_statistics(task, sample_metrics, row, ITERS)
        row.update({f"{name}_stderr_{kind},none": "N/A" for name in table for kind in ("clt", "clustered")})
        errorbars.clustered_errors(task, row)
        results[task] = row
    configs = {}
    for group, members in groups.items():
        entries = group_entries(group)
        configs[group] = ({"aggregate_metric_list": entries}, members)
        names = {str(e["metric"]) for e in entries}
        results[group] = {f"{n},none": float(np.mean([results[t][f"{n},none"] for t in members])) for n in names}
    errorbars.finish(results, configs, None, ITERS)
    return json.loads(json.dumps(results, sort_keys=True, default=repr))  # NaN == NaN as "NaN"


def _shuffled(records: list, seed: int) -> list:
    out = list(records)
    random.Random(seed).shuffle(out)
    return out


# Food-500 Cap's caption metrics start Java tools (the tokenizer and METEOR's jar): slow, out of the inner loop.
@pytest.mark.parametrize(
    "task", [pytest.param(t, marks=pytest.mark.slow) if t.startswith("food500cap") else t for t in SAMPLE_TASKS]
)
def test_every_key_of_every_packaged_sample_is_independent_of_record_order(task, monkeypatch):
    monkeypatch.setenv("FOOD_TASKS_JUDGE_MODEL", "none")
    records = scored(task)[1]
    reference = _reported({task: records})
    assert any(k.endswith("_stderr_method,none") for k in reference[task]), "no metric with an estimator"
    for seed in SEEDS:
        assert _reported({task: _shuffled(records, seed)}) == reference, seed


def test_a_group_is_independent_of_record_order(monkeypatch):
    group = "worldcuisines_mcq_sample"
    members = leaf_tasks(group)
    reference = _reported({t: scored(t)[1] for t in members}, {group: members})
    assert isinstance(reference[group]["acc_stderr,none"], float)
    assert reference[group]["acc_stderr_method,none"].endswith("joint over the group's 4 tasks")
    for seed in SEEDS:
        shuffled = {t: _shuffled(scored(t)[1], seed + i) for i, t in enumerate(reversed(members))}
        assert _reported(shuffled, {group: members}) == reference, seed


def _synthetic(seed: int = 0) -> tuple[list[dict], list]:
    """A clustered run: 60 clusters whose ids mix types, 2-6 documents each, a cluster effect, two languages."""
    rng = np.random.default_rng(seed)
    ids = [None, *range(20), *(f"dish{i}" for i in range(20)), *((i, "x") for i in range(18)), 2.5]
    records = []
    for cluster in ids:
        p = rng.random()
        for j in range(int(rng.integers(2, 7))):
            records.append(
                {
                    "cluster": cluster,
                    "doc": (str(cluster), j),
                    "x": float(rng.random() < p),
                    "y": float(rng.random()),
                    "lang": ("en", "fr")[j % 2],
                }
            )
    return records, [r["cluster"] for r in records]


def test_a_clustered_synthetic_run_is_independent_of_record_order():
    records, _ = _synthetic()
    estimators = [
        stats.mean(stats.field("x"), 100.0),
        stats.Macro(stats.field("x"), stats.column("lang"), 100.0),
        stats.Custom(lambda rs: [[r["y"] * r["x"], r["y"]] for r in rs], stats.ratio_combine()),
    ]
    reference = stats.estimate_many(estimators, records, [r["cluster"] for r in records], ITERS)
    paired = [stats.compare(e, records, records[::-1], [r["cluster"] for r in records], ITERS) for e in estimators]
    assert reference[0].clustered and reference[1].method == "bootstrap" and reference[2].clt is not None
    for seed in SEEDS:
        shuffled = _shuffled(records, seed)
        clusters = [r["cluster"] for r in shuffled]
        assert stats.estimate_many(estimators, shuffled, clusters, ITERS) == reference
        # the same pairs of documents in another order give the same comparison
        pairs = _shuffled(list(zip(records, records[::-1])), seed)
        again = [
            stats.compare(e, [a for a, _ in pairs], [b for _, b in pairs], [a["cluster"] for a, _ in pairs], ITERS)
            for e in estimators
        ]
        assert again == paired


def test_canonical_order_is_total_over_mixed_types():
    values = ["b", 3, None, (1, "a"), 2.5, True, float("nan"), b"z", (1, None), frozenset({2, 1}), "a"]
    ordered = sorted(values, key=stats.canonical)
    for seed in SEEDS:
        assert [repr(v) for v in sorted(_shuffled(values, seed), key=stats.canonical)] == [repr(v) for v in ordered]
    assert stats.canonical(1) == stats.canonical(1.0) == stats.canonical(True)  # equal as dict keys: equal keys
    inverse, count = stats.cluster_index(["b", 3, "b", None])
    assert list(inverse) == [2, 1, 2, 0] and count == 3
    assert math.isnan(ordered[ordered.index(3) + 1])  # NaN after every other number


# --------------------------------------------------------------------------- food-tasks compare


def _write_run(folder, tasks: dict[str, list], group: str, members: list[str]):  # type: ignore[no-untyped-def]
    folder.mkdir(parents=True)
    results = {}
    for task, records in tasks.items():
        table = scored(task)[0]
        first = next(iter(table))
        lines = [json.dumps({first: r}, default=repr) for r in records]
        (folder / f"run_samples_{task}.jsonl").write_text("\n".join(lines) + "\n", encoding="utf-8")
        results[task] = {
            f"{name},none": hooks.aggregate([p[name] for p in map(table.payloads, records)]) for name in table
        }
    results[group] = {"acc,none": float(np.mean([results[t]["acc,none"] for t in members]))}
    data = {
        "results": results,
        "configs": {t: {} for t in tasks},
        "group_subtasks": {group: members},
        "model_name": folder.name,
    }
    (folder / "run_results.json").write_text(json.dumps(data, default=repr), encoding="utf-8")
    return folder / "run_results.json"


def test_compare_runs_is_independent_of_either_runs_record_order(tmp_path):
    group = "worldcuisines_mcq_sample"
    members = leaf_tasks(group)
    # A: every document's first output (its own target); B: its third (another document's target, mostly wrong);
    # each document once (the first six records are one document's six outputs).
    a = {t: scored(t)[1][0::6] for t in members}
    b = {t: scored(t)[1][2::6] for t in members}
    runs = []  # kept alive: errorbars caches a run's tasks by id()

    def compared(a_tasks: dict, b_tasks: dict, name: str) -> list:
        run_a = load_run(_write_run(tmp_path / f"{name}_a", a_tasks, group, members))
        run_b = load_run(_write_run(tmp_path / f"{name}_b", b_tasks, group, members))
        runs.extend((run_a, run_b))
        rows = compare.compare_runs(run_a, run_b, "all", ITERS)
        return [(row.name, row.metric, row.comparison) for row in rows]

    reference = compared(a, b, "ref")
    assert any(name == group and c is not None and c.se is not None for name, _, c in reference)
    for seed in SEEDS:
        shuffled_a = {t: _shuffled(rs, seed) for t, rs in a.items()}
        shuffled_b = {t: _shuffled(rs, seed + 10) for t, rs in b.items()}
        assert compared(shuffled_a, shuffled_b, f"s{seed}") == reference, seed
