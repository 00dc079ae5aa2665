#!/usr/bin/env python
"""Benchmark of the FAM-Bench task pack's own overhead (a script, not a test; prints figures).

On a synthetic mirror of the official repository's shape (1,500 Task 1 rows, 1,000 Task 2 questions
with four options each, recipe-length ingredient lists, KB and rule files, one 512x384 JPEG per image
URL in the ``$FOOD_TASKS_DATA_DIR/urls`` mirror) it measures:

1. document preparation per task variant (first build in the process, and the cached repeat);
2. per-document hook cost (median / p95 microseconds): ``doc_to_messages`` with image fetch from the
   local mirror and decode, ``process_results`` on a realistic mix of outputs (JSON, fenced JSON,
   ``<think>`` blocks, prose, CoT-length outputs of ~2-4 KB);
3. aggregation of all metrics over all documents.

    python bench/bench_fambench.py [--json out.json]

Nothing is asserted. The metric values mean nothing (random outputs); only times matter.
"""

from __future__ import annotations

import argparse
import io
import json
import os
import random
import statistics
import sys
import tempfile
import time
from pathlib import Path

CONDITIONS = [
    "hypertension",
    "type 2 diabetes",
    "obesity",
    "metabolic syndrome",
    "IBS",
    "NAFLD",
    "heart failure",
    "GERD",
    "cardiovascular disease",
    "hyperlipidemia",
    "stroke",
    "chronic kidney disease",
    "osteoporosis",
]
WORDS = (
    "olive oil onion garlic cumin paprika sweet potato pepper squash tomato wine stock bulgur yogurt cheese rice soy "
    "sauce salt butter cream chicken beans"
).split()


def jpeg(rng: random.Random) -> bytes:
    from PIL import Image

    img = Image.new("RGB", (512, 384), tuple(rng.randrange(256) for _ in range(3)))
    buf = io.BytesIO()
    img.save(buf, "JPEG", quality=85)
    return buf.getvalue()


def ingredient_lines(rng: random.Random, n: int) -> list[str]:
    return [f"{rng.randint(1, 400)} g {' '.join(rng.sample(WORDS, 3))}, chopped" for _ in range(n)]


def build_mirror(root: Path, rng: random.Random) -> None:
    from food_tasks.benchmarks.fambench import data as fb_data
    from food_tasks.benchmarks.fambench import sample as fb_sample
    from food_tasks.data import mirror

    urls = []
    t1 = []
    for i in range(1500):
        cond = rng.choice(CONDITIONS)
        url = f"https://img.example.org/t1/{i}.jpg"
        urls.append(url)
        t1.append(
            {
                "title": f"Dish {i}",
                "question": f"Is this dish suitable for someone managing {cond}?",
                "ingredients": ingredient_lines(rng, rng.randint(6, 18)),
                "nutrition": {"calories": "313 kcal", "total_fat": "9 g", "sodium": "185 mg"},
                "dietary_tags": ["vegetarian"],
                "meal_type": ["dinner"],
                "notes": None,
                "image_url": url,
                "standard answer": {
                    "decision": rng.choice(["recommend", "not recommend"]),
                    "rationale_ingredients": [{"condition": cond.lower(), "ingredients": rng.sample(WORDS, 3)}],
                },
            }
        )
    questions = []
    for q in range(1000):
        options = []
        for letter in "ABCD":
            url = f"https://img.example.org/t2/{q}{letter}.jpg"
            urls.append(url)
            options.append(
                {
                    "letter": letter,
                    "title": f"Option dish {q}{letter}",
                    "image_url": url,
                    "full_ingredients": ingredient_lines(rng, rng.randint(6, 15)),
                }
            )
        conds = rng.sample(["obesity weight management", "hypertension", "type 2 diabetes", "gerd"], rng.randint(1, 3))
        questions.append(
            {
                "question_id": f"CRMCQ_{q:04d}",
                "prompt": {
                    "conditions": conds,
                    "condition_labels": conds,
                    "available_ingredients": ["mushroom", "corn"],
                },
                "options": options,
                "answer": {"letter": rng.choice("ABCD")},
                "gold": {
                    "ranking": rng.sample("ABCD", 4),
                    "decision_labels": {x: rng.choice(["recommend", "not_recommend"]) for x in "ABCD"},
                },
            }
        )
    kb = {
        "conditions": {
            c: {"recommend": [f"food {i}" for i in range(40)], "not_recommend": [f"bad {i}" for i in range(40)]}
            for c in ["type 2 diabetes", "hypertension", "obesity weight management", "stroke"]
        }
    }
    rules = {
        "conditions": [
            {
                "value": c,
                "label": c.title(),
                "beneficial_raw": WORDS[:12],
                "limit_raw": WORDS[:5],
                "avoid_raw": WORDS[5:9],
            }
            for c in ["obesity weight management", "hypertension", "type 2 diabetes"]
        ],
        "alias_map": {"gerd": "gastrointestinal health"},
    }
    mirror.write_github_repo(
        root,
        fb_data.REPO,
        {
            fb_data.TASK1_FILE: t1,
            fb_data.TASK2_FILE: {"questions": questions},
            fb_data.KB_FILE: kb,
            fb_data.RULES_FILE: rules,
            fb_data.GUIDELINES_FILE: fb_sample.GUIDELINES,
        },
    )
    pool = [jpeg(rng) for _ in range(50)]
    mirror.write_url_images(root, {url: rng.choice(pool) for url in urls})


def t1_output(rng: random.Random) -> str:
    payload = {
        "decision": rng.choice(["recommend", "not recommend", "Not Recommended"]),
        "rationale_ingredients": [{"condition": rng.choice(CONDITIONS), "ingredients": rng.sample(WORDS, 4)}],
    }
    steps = {"reasoning_steps": [" ".join(rng.choices(WORDS, k=40)) for _ in range(6)], **payload}
    return rng.choice(
        [
            json.dumps(payload),
            f"```json\n{json.dumps(payload, indent=2)}\n```",
            json.dumps(steps),
            f"<think>{' '.join(rng.choices(WORDS, k=500))}</think>\n{json.dumps(payload)}",
            "Decision: not recommended. " + " ".join(rng.choices(WORDS, k=80)),
        ]
    )


def t2_output(rng: random.Random, kind: str) -> str:
    if kind == "rank":
        ranking = rng.sample("ABCD", 4)
        body = {
            "ranking": ranking,
            "best_option": ranking[0],
            "ranking_basis": {x: " ".join(rng.choices(WORDS, k=20)) for x in "ABCD"},
        }
        return rng.choice([json.dumps(body), f"Ranking: {' > '.join(ranking)}", f"```json\n{json.dumps(body)}\n```"])
    body = {
        "option_decisions": {
            x: {
                "decision": rng.choice(["recommend", "not_recommend"]),
                "risk_level": "low",
                "rationale_ingredients": [
                    {
                        "condition": "x",
                        "supporting_ingredients": rng.sample(WORDS, 3),
                        "concerning_ingredients": rng.sample(WORDS, 2),
                    }
                ],
                "evidence_checks": {"condition_fit": " ".join(rng.choices(WORDS, k=30))},
            }
            for x in "ABCD"
        }
    }
    return json.dumps(body)


def timed(fn, items) -> list[float]:  # type: ignore[no-untyped-def]
    out = []
    for item in items:
        t = time.perf_counter_ns()
        fn(item)
        out.append((time.perf_counter_ns() - t) / 1000)
    return out


def summary(us: list[float]) -> str:
    us = sorted(us)
    return f"median {statistics.median(us):8.1f} us   p95 {us[int(0.95 * (len(us) - 1))]:8.1f} us"


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--json", help="write figures to this file")
    args = parser.parse_args()
    rng = random.Random(0)
    figures: dict[str, object] = {}
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp) / "mirror"
        build_mirror(root, rng)
        os.environ.update(
            FOOD_TASKS_DATA_DIR=str(root), FOOD_TASKS_CACHE_DIR=str(Path(tmp) / "cache"), FOOD_TASKS_OFFLINE="1"
        )
        from food_tasks.utils import fambench as hooks

        print("1. document preparation (s)")
        for name, fn in [
            ("task1 baseline T+I", hooks.docs_task1_baseline_textimage),
            ("task1 cot_ki T+I", hooks.docs_task1_cot_ki_textimage),
            ("task2 rank ki T+I", hooks.docs_task2_ki_textimage),
            ("task2 ctc_all (8k docs)", hooks.docs_ctc_all_textimage),
        ]:
            t = time.perf_counter()
            docs = fn(None)
            first = time.perf_counter() - t
            t = time.perf_counter()
            fn(None)
            again = time.perf_counter() - t
            print(f"   {name:<26} {len(docs):>5} docs  first {first:6.3f}  repeat {again:6.4f}")
            figures[f"prepare {name}"] = {"docs": len(docs), "first_s": first, "repeat_s": again}

        t1 = hooks.docs_task1_cot_ki_textimage(None)
        ctc = hooks.docs_ctc_all_textimage(None)
        t1_docs = [t1[i] for i in range(len(t1))]
        ctc_docs = [ctc[i] for i in rng.sample(range(len(ctc)), 1000)]
        print("2. per-document hooks")
        from food_tasks.data import remote

        store = remote.default_image_store()
        for d in t1_docs + ctc_docs[250:]:  # process_results runs after the model saw the images: already verified
            for url in d["image_urls"]:
                store.available(url)
        rows = {
            "task1 doc_to_messages (1 image)": timed(hooks.doc_to_messages_task1, t1_docs[:500]),
            "task2 doc_to_messages (4 images)": timed(hooks.doc_to_messages_task2, ctc_docs[:250]),
            "task1 process_results": timed(
                lambda p: hooks.process_results_task1(p[0], [p[1]]), [(d, t1_output(rng)) for d in t1_docs]
            ),
            "task2 process_results": timed(
                lambda p: hooks.process_results_ctc_all(p[0], [p[1]]),
                [(d, t2_output(rng, d["kind"])) for d in ctc_docs],
            ),
        }
        for name, us in rows.items():
            print(f"   {name:<34} {summary(us)}")
            figures[name] = {"median_us": statistics.median(us), "p95_us": sorted(us)[int(0.95 * (len(us) - 1))]}

        print("3. aggregation over all documents (s)")
        t1_records = [hooks.process_results_task1(d, [t1_output(rng)])["decision_acc"].record for d in t1_docs]
        ctc_records = [
            hooks.process_results_ctc_all(ctc[i], [t2_output(rng, ctc[i]["kind"])])["ctc_pool"].record
            for i in range(len(ctc))
        ]
        for name, table, records in [
            ("task1", hooks.TABLES["task1"], t1_records),
            ("ctc_all", hooks.TABLES["ctc_all"], ctc_records),
        ]:
            t = time.perf_counter()
            for fn in table.values():
                fn(records)
            took = time.perf_counter() - t
            print(f"   {name:<8} {len(table)} metrics over {len(records)} records: {took:.3f}")
            figures[f"aggregate {name}"] = {"metrics": len(table), "records": len(records), "s": took}
    if args.json:
        Path(args.json).write_text(json.dumps(figures, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
