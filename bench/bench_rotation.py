#!/usr/bin/env python
"""Cost of option rotation (a script, not a test; nothing is asserted, figures are printed).

On 15,000 synthetic WorldCuisines-shaped MCQ documents (one subtask of test_large: 500 items x 30 languages, 5
options each, the published columns plus the 30-language OEQ reference list) it times:

1. ``process_docs`` of a ``_circular`` task: the expansion to 75,000 rotated documents (prompt rewrite included);
2. the circular and position-bias reducers, and the standard errors of ``circular_acc`` / ``rotation_mean_acc``,
   over the 75,000 records; and the position-bias reducers over 15,000 records of an ordinary run (what every
   multiple-choice run now pays at aggregation).

    python bench/bench_rotation.py [--items 500]
"""

from __future__ import annotations

import argparse
import random
import time

import datasets

from food_tasks.benchmarks.worldcuisines import circular
from food_tasks.hooks import rotation
from food_tasks.stats import uncertainty as stats

PROMPT = "What is this culinary dish called?\n{}\n\nPrint only the answer with a single answer id (1,2,3,4,5)."


def docs(items: int) -> datasets.Dataset:
    rows = []
    for q in range(items):
        options = [f"Dish {q}-{i}" for i in range(5)]
        for lang in range(30):
            rows.append(
                {
                    "qa_id": str(q),
                    "lang": f"l{lang}",
                    "food_id": str(q // 3),
                    "multi_choice_answer": 1 + q % 5,
                    "multi_choice_prompt": PROMPT.format("\n".join(f"{i + 1}. {o}" for i, o in enumerate(options))),
                    "options": options,
                    "answers_all": [f"ref {k}" for k in range(30)],
                    "image_url": f"u{q}",
                    "kb_root": "",
                }
            )
    return datasets.Dataset.from_list(rows)


def timed(label: str, fn):  # type: ignore[no-untyped-def]
    start = time.perf_counter()
    out = fn()
    print(f"{label}: {time.perf_counter() - start:.2f} s")
    return out


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--items", type=int, default=500)
    args = parser.parse_args()
    ds = docs(args.items)
    rotated = timed(f"expand {len(ds):,} documents", lambda: circular.expand(ds))
    print(f"  -> {len(rotated):,} rotated documents")
    rng = random.Random(0)
    records = []
    for d in rotated.select_columns(
        ["qa_id", "lang", "food_id", "multi_choice_answer", "item", "rotation", "rotations"]
    ).to_list():
        parsed = rng.choice([1, 1, 2, 3, 4, 5, None])
        records.append(
            {**d, "parsed": parsed, "gold": d["multi_choice_answer"], "correct": parsed == d["multi_choice_answer"]}
        )
    correct = stats.field("correct", unless="image_missing")
    circ, mean = rotation.circular_metrics(correct)
    bias, p = rotation.position_metrics(rotation.position("parsed", base=1), rotation.position("gold", base=1), "12345")
    timed("import scipy.stats (once per process)", lambda: __import__("scipy.stats"))
    timed(f"circular_acc + rotation_mean_acc over {len(records):,} records", lambda: (circ(records), mean(records)))
    timed(f"position_bias + position_bias_p over {len(records):,} records", lambda: (bias(records), p(records)))
    clusters = [r["food_id"] for r in records]
    timed(
        "standard errors of both (clustered analytic)",
        lambda: stats.estimate_many([circ.estimator, mean.estimator], records, clusters),
    )
    plain = [r for r in records if r["rotation"] == 0]
    timed(
        f"position_bias + position_bias_p over {len(plain):,} records (an ordinary run)",
        lambda: (bias(plain), p(plain)),
    )


if __name__ == "__main__":
    main()
