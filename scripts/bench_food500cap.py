#!/usr/bin/env python
"""Benchmark of the Food-500 Cap task pack (a script, not a test; prints figures).

On the real caption files (a ``FOOD_TASKS_DATA_DIR``-style mirror given with ``--data-dir``, else
downloaded at the pinned commit) with one tiny generated JPEG hard-linked at every image path, it measures:

1. document preparation for the test split (4,940) and the union (24,732): first build and cached repeat;
2. per-document ``process_results`` cost (median / p95 microseconds) on a mix of outputs: plain captions,
   ``<think>`` blocks, ``Caption:`` prefixes and quotes, empty outputs, and 1% runaway 16 KB repetitions;
3. aggregation of every metric over the whole split (the COCO toolkit runs once), and the toolkit's
   parts separately (PTB tokenizer, BLEU, METEOR, ROUGE-L, CIDEr-D, pure-Python tokenizer);
4. with ``--tokenizers``: the distance of the pure-Python tokenizer to the toolkit's on every reference
   caption of both files, and on the test split's metrics.

Hypotheses are another caption of the same category (fluent, on topic, wrong image), so metric values
are plausible but mean nothing. Nothing is asserted.

    python scripts/bench_food500cap.py [--data-dir DIR] [--splits test,all] [--tokenizers] [--json out.json]
"""

from __future__ import annotations

import argparse
import json
import os
import random
import statistics
import sys
import tempfile
import time
import unicodedata
from pathlib import Path


def outputs(docs: list[dict], rng: random.Random) -> list[str]:
    by_cat: dict[str, list[str]] = {}
    for d in docs:
        by_cat.setdefault(d["cat"], []).append(d["caption"])
    out = []
    for d in docs:
        pool = [c for c in by_cat[d["cat"]] if c != d["caption"]] or [d["caption"]]
        caption = rng.choice(pool)
        roll = rng.random()
        if roll < 0.01:
            out.append(("A plate of " + caption + " ") * (16384 // (len(caption) + 11) + 1))
        elif roll < 0.03:
            out.append("")
        elif roll < 0.20:
            out.append(f"<think>{' '.join(caption.split()[::-1]) * 5}</think>\n{caption}")
        elif roll < 0.35:
            out.append(f'Caption: "{caption}"')
        else:
            out.append(caption)
    return out


def summary(us: list[float]) -> str:
    us = sorted(us)
    return f"median {statistics.median(us):8.1f} us   p95 {us[int(0.95 * (len(us) - 1))]:8.1f} us"


def build_images(root: Path, data_dir: Path) -> None:
    from food_tasks.benchmarks.food500cap import data as fc_data
    from food_tasks.benchmarks.food500cap import layout as fc_layout

    image = root / "_one.jpg"
    image.parent.mkdir(parents=True, exist_ok=True)
    image.write_bytes(fc_layout.jpeg_bytes((200, 120, 60), 32))
    base = root.joinpath(*fc_data.MIRROR_IMAGES)
    for name in (fc_data.TEST_FILE, fc_data.TRAIN_FILE):
        for row in json.loads((data_dir / "github" / fc_data.REPO / name).read_text(encoding="utf-8")):
            path = base / unicodedata.normalize("NFC", row["filename"])
            if not path.exists():
                path.parent.mkdir(parents=True, exist_ok=True)
                os.link(image, path)


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--data-dir", help="a FOOD_TASKS_DATA_DIR mirror holding github/aaronma2020/Food500-Cap/*.json")
    parser.add_argument("--splits", default="test,all")
    parser.add_argument("--tokenizers", action="store_true")
    parser.add_argument("--json", help="write figures to this file")
    args = parser.parse_args()
    rng = random.Random(0)
    figures: dict[str, object] = {}
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp) / "mirror"
        from food_tasks.benchmarks.food500cap import data as fc_data

        if args.data_dir:
            src = Path(args.data_dir) / "github" / fc_data.REPO
        else:
            src = fc_data.remote.github_file(fc_data.REPO, fc_data.COMMIT, fc_data.TEST_FILE).parent
            fc_data.remote.github_file(fc_data.REPO, fc_data.COMMIT, fc_data.TRAIN_FILE)
        dest = root / "github" / fc_data.REPO
        dest.mkdir(parents=True)
        for name in (fc_data.TEST_FILE, fc_data.TRAIN_FILE):
            (dest / name).write_bytes((src / name).read_bytes())
        build_images(root, root)
        os.environ.update(FOOD_TASKS_DATA_DIR=str(root), FOOD_TASKS_OFFLINE="1")
        from food_tasks import cocoeval
        from food_tasks.benchmarks.food500cap import scoring as fc_scoring
        from food_tasks.utils import food500cap as hooks

        print(f"java: {cocoeval.java_problem() or 'available'}")
        for split in args.splits.split(","):
            fn = {"test": hooks.docs_test, "all": hooks.docs_all}[split]
            t = time.perf_counter()
            dataset = fn(None)
            first = time.perf_counter() - t
            t = time.perf_counter()
            fn(None)
            again = time.perf_counter() - t
            print(f"1. [{split}] document preparation: {len(dataset)} docs  first {first:6.2f} s  repeat {again:6.4f} s")
            docs = [dataset[i] for i in range(len(dataset))]
            outs = outputs(docs, rng)
            times, records = [], []
            for doc, out in zip(docs, outs):
                t0 = time.perf_counter_ns()
                records.append(hooks.process_results(doc, [out])["bleu4"].record)
                times.append((time.perf_counter_ns() - t0) / 1000)
            print(f"2. [{split}] process_results: {summary(times)}")
            fc_scoring._coco.cache_clear()
            t = time.perf_counter()
            values = {name: fn(records) for name, fn in hooks.TABLES["caption"].items()}
            total = time.perf_counter() - t
            print(f"3. [{split}] aggregation of {len(hooks.TABLES['caption'])} metrics over {len(records)} records: {total:6.1f} s")
            for name in ("bleu4", "meteor", "rouge_l", "cider", "sla_accurate", "sla_relaxed", "mean_caption_words", "bleu4_pytok", "cider_pytok"):
                v = values[name]
                print(f"      {name:<20} {v:8.2f}" if isinstance(v, float) else f"      {name:<20} {v}")
            parts = time_parts(records) if cocoeval.java_problem() is None else {}
            for name, took in parts.items():
                print(f"      part {name:<22} {took:6.2f} s")
            figures[split] = {"docs": len(docs), "prepare_first_s": first, "prepare_repeat_s": again,
                              "process_results_median_us": statistics.median(times), "aggregate_s": total, "parts_s": parts}  # fmt: skip
        if args.tokenizers:
            figures["tokenizers"] = tokenizer_distance(root)
    if args.json:
        Path(args.json).write_text(json.dumps(figures, indent=2))
    return 0


def time_parts(records: list) -> dict[str, float]:
    from pycocoevalcap.bleu.bleu import Bleu
    from pycocoevalcap.cider.cider import Cider
    from pycocoevalcap.meteor.meteor import Meteor
    from pycocoevalcap.rouge.rouge import Rouge

    from food_tasks import cocoeval

    rows = [r for r in records if not r["image_missing"]]
    parts: dict[str, float] = {}
    t = time.perf_counter()
    tokens = cocoeval.ptb_tokenize([r["ref"] for r in rows] + [r["pred"] for r in rows])
    parts["ptb tokenizer (java)"] = time.perf_counter() - t
    gts = {r["key"]: [tokens[i]] for i, r in enumerate(rows)}
    res = {r["key"]: [tokens[len(rows) + i]] for i, r in enumerate(rows)}
    for name, scorer in (("bleu", lambda: Bleu(4).compute_score(gts, res, verbose=0)),
                         ("meteor (java)", lambda: Meteor().compute_score(gts, res)),
                         ("rouge_l", lambda: Rouge().compute_score(gts, res)), ("cider-d", lambda: Cider().compute_score(gts, res))):  # fmt: skip
        t = time.perf_counter()
        scorer()
        parts[name] = time.perf_counter() - t
    t = time.perf_counter()
    [cocoeval.py_tokenize(r["ref"]) for r in rows] + [cocoeval.py_tokenize(r["pred"]) for r in rows]
    parts["py tokenizer"] = time.perf_counter() - t
    return parts


def tokenizer_distance(root: Path) -> dict[str, object]:
    from food_tasks import cocoeval
    from food_tasks.benchmarks.food500cap import data as fc_data

    captions = [r["caption"] for name in (fc_data.TEST_FILE, fc_data.TRAIN_FILE) for r in fc_data.load_file(name)]
    java = cocoeval.ptb_tokenize(captions)
    py = [cocoeval.py_tokenize(c) for c in captions]
    differ = [(c, a, b) for c, a, b in zip(captions, java, py) if a != b]
    print(f"4. pure-Python tokenizer: {len(captions) - len(differ)} / {len(captions)} reference captions tokenised identically")
    for c, a, b in differ[:10]:
        print(f"      {c!r}\n        toolkit: {a}\n        ours:    {b}")
    return {"captions": len(captions), "identical": len(captions) - len(differ)}


if __name__ == "__main__":
    sys.exit(main())
