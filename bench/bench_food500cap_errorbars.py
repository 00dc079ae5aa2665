"""Cost of Food-500 Cap's error bars at a realistic size: what they add to the caption task's aggregation.

Usage: ``python bench/bench_food500cap_errorbars.py [--n 5000] [--iters 1000] [--repeat 3] [--data-dir DIR] [--pytok]``.
Builds ``n`` per-image records (with ``--data-dir``, a FOOD_TASKS_DATA_DIR mirror holding
github/aaronma2020/Food500-Cap/evaluation_data.json: its captions, each hypothesis another caption of the same
category; otherwise generated captions), 1 % of them ``image_missing``. Times the aggregation as a run does it
(every metric's reducer; the COCO toolkit runs once and is cached), then what the harness adds for the error
bars: every metric's standard error (food_tasks.lmms.errorbars.task_statistics: per-image statistics from the
cached toolkit results, BLEU's n-gram statistics, one cluster bootstrap shared by the BLEU metrics).
``--pytok``: the ``*_pytok`` metrics too (FOOD_TASKS_FOOD500CAP_PYTOK=1). Figures only; nothing is asserted.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import statistics
import time
from pathlib import Path

WORDS = (
    "a plate of bowl with fried grilled steamed rice noodles beef pork chicken soup sauce green onions sliced "
    "fresh white black red spicy sweet served on wooden table topped sesame seeds garnished herbs"
).split()


def captions(n: int, data_dir: str | None, rng: random.Random) -> list[tuple[str, str, str]]:
    """``n`` (category, reference, hypothesis)."""
    if data_dir:
        rows = json.loads((Path(data_dir) / "github/aaronma2020/Food500-Cap/evaluation_data.json").read_text("utf-8"))
        by_cat: dict[str, list[str]] = {}
        for row in rows:
            by_cat.setdefault(row["cat"], []).append(row["caption"])
        out = []
        for i in range(n):
            row = rows[i % len(rows)]
            pool = [c for c in by_cat[row["cat"]] if c != row["caption"]] or [row["caption"]]
            out.append((row["cat"], row["caption"], rng.choice(pool)))
        return out

    def sentence(k: int) -> str:
        return " ".join(rng.choice(WORDS) for _ in range(k)).capitalize() + "."

    return [(f"Dish{i % 500}", sentence(rng.randint(8, 20)), sentence(rng.randint(0, 18))) for i in range(n)]


def records(n: int, data_dir: str | None, rng: random.Random) -> list[dict]:
    from food_tasks.benchmarks.food500cap import scoring as fc_scoring

    out = []
    for i, (cat, ref, hyp) in enumerate(captions(n, data_dir, rng)):
        out.append(
            {
                "key": f"{cat}/{cat}_{i:05d}.jpg",
                "cat": cat,
                "region": "",
                "ref": ref,
                "pred": hyp,
                "parse_fail": False,
                "image_missing": rng.random() < 0.01,
                "image_path": "",
                "words": len(hyp.split()),
                **{f"sla_{f}": rng.random() < 0.8 for f in fc_scoring.SLA_FIELDS},
            }
        )
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--n", type=int, default=5000)
    parser.add_argument("--iters", type=int, default=1000)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--data-dir")
    parser.add_argument("--pytok", action="store_true")
    args = parser.parse_args()
    if args.pytok:
        os.environ["FOOD_TASKS_FOOD500CAP_PYTOK"] = "1"
    from food_tasks.benchmarks.food500cap import scoring as fc_scoring
    from food_tasks.hooks import cocoeval
    from food_tasks.lmms import errorbars
    from food_tasks.utils import food500cap as hooks

    table = hooks.TABLES["caption"]
    print(f"java: {cocoeval.java_problem() or 'available'}; {args.n} captions; {args.iters} resamples")
    figures: dict[str, list[float]] = {}
    for r in range(args.repeat):
        payloads = [table.payloads(rec) for rec in records(args.n, args.data_dir, random.Random(r))]
        sample_metrics = {(name, "none"): [p[name] for p in payloads] for name in table}
        fc_scoring._coco.cache_clear()
        start = time.perf_counter()
        values = {name: table[name].reduce([p.record for p in items]) for (name, _), items in sample_metrics.items()}
        figures.setdefault("aggregation (reducers, toolkit once) s", []).append(time.perf_counter() - start)
        agg: dict = {}
        start = time.perf_counter()
        errorbars.task_statistics("food500cap_caption_bench", sample_metrics, agg, args.iters)
        figures.setdefault("standard errors of every metric s", []).append(time.perf_counter() - start)
        errorbars.finish({}, {}, None, args.iters)  # forget the task
    for name in ("bleu4", "meteor", "rouge_l", "cider", "sla_accurate", "bleu4_pytok", "cider_pytok"):
        se = agg.get(f"{name}_stderr,none")
        shown = f"{values[name]:.3f}" if isinstance(values[name], float) else str(values[name])[:60]
        print(f"  {name:14s} {shown:>10s}  SE {se if isinstance(se, str) else f'{se:.3f}'}")
    print(f"median of {args.repeat} (min-max):")
    for key, took in figures.items():
        print(f"  {key:40s} {statistics.median(took):6.2f}  ({min(took):.2f}-{max(took):.2f})")


if __name__ == "__main__":
    main()
