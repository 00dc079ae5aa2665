"""Cost of the error bars: standard errors of a 60,000-document WorldCuisines run, and food-tasks compare.

Usage: ``python bench/bench_errorbars.py [--iters 1000] [--repeat 3]``. Builds the per-document records a
WorldCuisines test_large run produces (4 subtasks x 30 languages x 500 questions, ~2,400 dishes as clusters,
MCQ and OEQ, random outcomes), then times what the harness adds to lmms-eval's aggregation: every task's
standard errors (food_tasks.lmms.errorbars.task_statistics) and the groups' (finish), against the aggregation
itself (the metrics' reducers); then the paired comparison of every metric with a second model's records on
the same documents (what food-tasks compare and the report's paired section compute per task). Figures only
(docs/performance.md); nothing is asserted.
"""

from __future__ import annotations

import argparse
import random
import statistics
import time

from food_tasks.benchmarks.worldcuisines import tables as wc_tables
from food_tasks.hooks import convention as hooks
from food_tasks.lmms import errorbars
from food_tasks.stats import paired

SUBTASKS = ("1a_nocontext", "1b_contextualized", "1c_adversarial", "2_location")
LANGS = [f"lang{i:02d}" for i in range(30)]


def records(kind: str, subtask: int, rng: random.Random) -> list[dict]:
    out = []
    for q in range(500):
        food = f"f{(q * 7 + subtask * 131) % 2400}"
        skill = rng.random()
        for lang in LANGS:
            if kind == "mcq":
                parsed = rng.choice([1, 2, 3, 4, 5, None]) if rng.random() > skill else 1
                out.append(
                    {
                        "qa_id": str(subtask * 1000 + q),
                        "lang": lang,
                        "food_id": food,
                        "parsed": parsed,
                        "gold": 1,
                        "correct": parsed == 1,
                        "invalid": parsed is None,
                        "correct_official": parsed == 1 and rng.random() > 0.05,
                        "image_missing": False,
                    }
                )
            else:
                hit = rng.random() < skill
                out.append(
                    {
                        "qa_id": str(subtask * 1000 + q),
                        "lang": lang,
                        "food_id": food,
                        "prediction": "x",
                        "reference": "y",
                        **{
                            m: hit and rng.random() > 0.1
                            for m in (
                                "multi",
                                "single",
                                "dual",
                                "multi_strict",
                                "multi_official",
                                "single_official",
                                "dual_official",
                            )
                        },
                        "image_missing": False,
                    }
                )
    return out


def run(kind: str, iters: int, rng: random.Random) -> dict[str, float]:
    table = wc_tables.TABLES[kind if kind == "mcq" else "oeq_sample"]
    outputs = {}
    sample_metrics_by_task = {}
    for i, subtask in enumerate(SUBTASKS):
        recs = records(kind, i, rng)
        payloads = [table.payloads(r) for r in recs]
        sample_metrics_by_task[f"wc_{kind}_{subtask}"] = {(name, "none"): [p[name] for p in payloads] for name in table}
    start = time.perf_counter()
    for sample_metrics in sample_metrics_by_task.values():
        for (name, _), items in sample_metrics.items():
            table[name].reduce([p.record for p in items])
    outputs["aggregation (reducers) s"] = time.perf_counter() - start
    # What lmms-eval calls: the aggregation hook of every metric, each putting its task's records in canonical order.
    start = time.perf_counter()
    for sample_metrics in sample_metrics_by_task.values():
        for items in sample_metrics.values():
            hooks.aggregate(items)
    outputs["aggregation (hooks.aggregate) s"] = time.perf_counter() - start
    start = time.perf_counter()
    agg: dict = {}
    for task, sample_metrics in sample_metrics_by_task.items():
        errorbars.task_statistics(task, sample_metrics, agg, iters)
    outputs["task standard errors s"] = time.perf_counter() - start
    results = {task: {f"{name},none": 1.0 for name in table} for task in sample_metrics_by_task}
    results[f"wc_{kind}"] = {f"{m},none": 1.0 for m, _ in [("acc", 0)]} if kind == "mcq" else {"acc_multi,none": 1.0}
    entries = [{"metric": "acc" if kind == "mcq" else "acc_multi", "aggregation": "mean", "weight_by_size": False}]
    start = time.perf_counter()
    errorbars.finish(
        results, {f"wc_{kind}": ({"aggregate_metric_list": entries}, list(sample_metrics_by_task))}, None, iters
    )
    outputs["group standard errors s"] = time.perf_counter() - start
    # A second model on the same documents: the paired comparison (food-tasks compare, the report's paired
    # section, --baseline) of every metric with an estimator, task by task.
    other = {task: [dict(p.record) for p in next(iter(m.values()))] for task, m in sample_metrics_by_task.items()}
    for recs in other.values():
        for r in recs:
            if "correct" in r and rng.random() < 0.1:
                r["correct"] = not r["correct"]
    names = [m.name for m in table.values() if m.estimator is not None and m.alias_of is None]
    start = time.perf_counter()
    for task, sample_metrics in sample_metrics_by_task.items():
        mine = [p.record for p in next(iter(sample_metrics.values()))]
        paired.compare_tasks(paired.RunTask(table, mine), paired.RunTask(table, other[task]), names, iters, task)
    outputs["paired comparisons s"] = time.perf_counter() - start
    return outputs


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--iters", type=int, default=1000)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    for kind in ("mcq", "oeq"):
        figures: dict[str, list[float]] = {}
        for r in range(args.repeat):
            for key, value in run(kind, args.iters, random.Random(r)).items():
                figures.setdefault(key, []).append(value)
        print(
            f"WorldCuisines {kind.upper()}, 4 x 15,000 documents, {args.iters} resamples (median of {args.repeat}; "
            "min-max):"
        )
        for key, values in figures.items():
            print(f"  {key:28s} {statistics.median(values):6.2f}  ({min(values):.2f}-{max(values):.2f})")


if __name__ == "__main__":
    main()
