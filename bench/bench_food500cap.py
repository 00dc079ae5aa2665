#!/usr/bin/env python
"""Benchmark of the Food-500 Cap task pack (a script, not a test; prints figures).

On the real caption files (a ``FOOD_TASKS_DATA_DIR``-style mirror given with ``--data-dir``, else
downloaded at the pinned commit) with one tiny generated JPEG hard-linked at every image path, it measures:

1. document preparation for the test split (4,940) and the union (24,732): first build and cached repeat;
2. per-document ``process_results`` cost (median / p95 microseconds) on a mix of outputs: plain captions,
   ``<think>`` blocks, ``Caption:`` prefixes and quotes, empty outputs, and 1% runaway 16 KB repetitions;
3. aggregation of every metric over the whole split (the COCO toolkit runs once), and the toolkit's
   parts separately (PTB tokenizer, BLEU, METEOR, ROUGE-L, CIDEr-D, pure-Python tokenizer);
4. side by side, on the same predictions (the mix above without the runaway repetitions, so that no
   caption reaches the length cut and both give the same numbers, which is checked): the COCO toolkit's
   standard pipeline (``COCOEvalCap.evaluate`` without SPICE: ``PTBTokenizer().tokenize`` on references
   and on hypotheses, then ``Bleu(4)``, ``Meteor()``, ``Rouge()``, ``Cider()``) against the aggregation of
   every metric of the task, alternating, ``--repeat`` times each. Ours is timed cold (no METEOR process
   running, as a run's first caption task) and warm (the METEOR process of the previous task kept, as
   the run's next caption task);
5. with ``--stress``: every caption of the test split a 16 KB runaway repetition (4,940 x 16 KB);
6. with ``--tokenizers``: the distance of the pure-Python tokenizer to the toolkit's on every reference
   caption of both files, and on the test split's metrics.

Hypotheses are another caption of the same category (fluent, on topic, wrong image), so metric values
are plausible but mean nothing. Nothing is asserted.

    python bench/bench_food500cap.py [--data-dir DIR] [--splits test,all] [--repeat 2] [--stress] [--tokenizers]
                                       [--json out.json]
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


def outputs(docs: list[dict], rng: random.Random, runaway: float = 0.01) -> list[str]:
    by_cat: dict[str, list[str]] = {}
    for d in docs:
        by_cat.setdefault(d["cat"], []).append(d["caption"])
    out = []
    for d in docs:
        pool = [c for c in by_cat[d["cat"]] if c != d["caption"]] or [d["caption"]]
        caption = rng.choice(pool)
        roll = rng.random()
        if roll < runaway:
            out.append(runaway_caption(caption))
        elif roll < 0.01:
            out.append(caption)
        elif roll < 0.03:
            out.append("")
        elif roll < 0.20:
            out.append(f"<think>{' '.join(caption.split()[::-1]) * 5}</think>\n{caption}")
        elif roll < 0.35:
            out.append(f'Caption: "{caption}"')
        else:
            out.append(caption)
    return out


def runaway_caption(caption: str) -> str:
    return ("A plate of " + caption + " ") * (16384 // (len(caption) + 11) + 1)


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
    parser.add_argument("--repeat", type=int, default=2, help="side-by-side timings per pipeline and split")
    parser.add_argument("--stress", action="store_true", help="4,940 captions of 16 KB")
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
        from food_tasks.hooks import cocoeval
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
            print(
                f"1. [{split}] document preparation: {len(dataset)} docs  first {first:6.2f} s  repeat {again:6.4f} s"
            )
            docs = [dataset[i] for i in range(len(dataset))]
            state = rng.getstate()
            outs = outputs(docs, rng)
            times, records = [], []
            for doc, out in zip(docs, outs):
                t0 = time.perf_counter_ns()
                records.append(hooks.process_results(doc, [out])["bleu4"].record)
                times.append((time.perf_counter_ns() - t0) / 1000)
            print(f"2. [{split}] process_results: {summary(times)}")
            reset_caches(cold=True)
            t = time.perf_counter()
            values = {name: fn(records) for name, fn in hooks.TABLES["caption"].items()}
            total = time.perf_counter() - t
            print(
                f"3. [{split}] aggregation of {len(hooks.TABLES['caption'])} metrics over {len(records)} records: "
                f"{total:6.1f} s"
            )
            for name in (
                "bleu4",
                "meteor",
                "rouge_l",
                "cider",
                "sla_accurate",
                "sla_relaxed",
                "mean_caption_words",
                "bleu4_pytok",
                "cider_pytok",
                "captions_cut",
            ):
                v = values.get(name, "(no such metric)")
                print(f"      {name:<20} {v:8.2f}" if isinstance(v, float) else f"      {name:<20} {v}")
            parts = time_parts(records) if cocoeval.java_problem() is None else {}
            for name, took in parts.items():
                print(f"      part {name:<22} {took:6.2f} s")
            figures[split] = {
                "docs": len(docs),
                "prepare_first_s": first,
                "prepare_repeat_s": again,
                "process_results_median_us": statistics.median(times),
                "aggregate_s": total,
                "parts_s": parts,
            }
            if cocoeval.java_problem() is None:
                rng.setstate(state)  # the same rolls, the runaway repetitions replaced by plain captions
                plain = [
                    hooks.process_results(d, [o])["bleu4"].record for d, o in zip(docs, outputs(docs, rng, runaway=0.0))
                ]
                figures[split]["side_by_side"] = side_by_side(split, plain, args.repeat)
        if args.stress:
            figures["stress"] = stress(hooks)
        if args.tokenizers:
            figures["tokenizers"] = tokenizer_distance(root)
    if args.json:
        Path(args.json).write_text(json.dumps(figures, indent=2))
    return 0


def reset_caches(cold: bool) -> None:
    """Forget the cached toolkit results; ``cold``: also stop the METEOR process kept for the next task."""
    from food_tasks.benchmarks.food500cap import scoring as fc_scoring
    from food_tasks.hooks import cocoeval

    fc_scoring._coco.cache_clear()
    if cold and hasattr(cocoeval, "METEOR"):
        cocoeval.METEOR.close()


def toolkit_pipeline(records: list) -> dict[str, float]:
    """The COCO toolkit's standard pipeline (``COCOEvalCap.evaluate`` without SPICE) on the scored records."""
    from pycocoevalcap.bleu.bleu import Bleu
    from pycocoevalcap.cider.cider import Cider
    from pycocoevalcap.meteor.meteor import Meteor
    from pycocoevalcap.rouge.rouge import Rouge
    from pycocoevalcap.tokenizer.ptbtokenizer import PTBTokenizer

    rows = [r for r in records if not r["image_missing"]]
    tokenizer = PTBTokenizer()
    gts = tokenizer.tokenize({r["key"]: [{"caption": r["ref"]}] for r in rows})
    res = tokenizer.tokenize({r["key"]: [{"caption": r["pred"]}] for r in rows})
    out: dict[str, float] = {}
    for scorer, names in (
        (Bleu(4), ["Bleu_1", "Bleu_2", "Bleu_3", "Bleu_4"]),
        (Meteor(), ["METEOR"]),
        (Rouge(), ["ROUGE_L"]),
        (Cider(), ["CIDEr"]),
    ):
        score, _ = scorer.compute_score(gts, res)
        out.update(zip(names, score if isinstance(score, list) else [score]))
    return out


def side_by_side(split: str, records: list, repeat: int) -> dict[str, object]:
    from food_tasks.benchmarks.food500cap import scoring as fc_scoring
    from food_tasks.utils import food500cap as hooks

    table = hooks.TABLES["caption"]
    took: dict[str, list[float]] = {"toolkit": [], "ours_cold": [], "ours_warm": []}
    for _ in range(repeat):
        t = time.perf_counter()
        theirs = toolkit_pipeline(records)
        took["toolkit"].append(time.perf_counter() - t)
        for kind in ("ours_cold", "ours_warm"):
            reset_caches(cold=kind == "ours_cold")
            t = time.perf_counter()
            values = {name: fn(records) for name, fn in table.items()}
            took[kind].append(time.perf_counter() - t)
    for ours, toolkit in fc_scoring.COCO.items():
        if toolkit in theirs and abs(values[ours] - 100 * theirs[toolkit]) > 1e-9:
            raise SystemExit(f"side by side: {ours} {values[ours]} differs from the toolkit's {100 * theirs[toolkit]}")
    med = {k: statistics.median(v) for k, v in took.items()}
    print(f"4. [{split}] side by side, {len(records)} records, median of {repeat} (same numbers, checked):")
    print(
        f"      toolkit standard pipeline   {med['toolkit']:6.1f} s   {' '.join(f'{x:.1f}' for x in took['toolkit'])}"
    )
    for kind in ("ours_cold", "ours_warm"):
        print(
            f"      ours, {kind[5:]:<4} ({len(table)} metrics)  {med[kind]:6.1f} s   "
            f"{' '.join(f'{x:.1f}' for x in took[kind])}"
            f"   ratio {med[kind] / med['toolkit']:.2f}x"
        )
    return {
        "records": len(records),
        "times_s": took,
        "ratio_cold": med["ours_cold"] / med["toolkit"],
        "ratio_warm": med["ours_warm"] / med["toolkit"],
    }


def stress(hooks) -> dict[str, object]:  # type: ignore[no-untyped-def]
    docs = list(hooks.docs_test(None))
    records = [hooks.process_results(d, [runaway_caption(d["caption"])])["bleu4"].record for d in docs]
    reset_caches(cold=True)
    t = time.perf_counter()
    values = {name: fn(records) for name, fn in hooks.TABLES["caption"].items()}
    took = time.perf_counter() - t
    size = statistics.mean(len(r["pred"].encode()) for r in records)
    print(
        f"5. stress: {len(records)} captions of {size / 1024:.1f} KB: aggregation of every metric {took:6.1f} s; "
        f"meteor {values['meteor']}, captions_cut {values.get('captions_cut')}"
    )
    return {
        "records": len(records),
        "caption_bytes": size,
        "aggregate_s": took,
        "captions_cut": values.get("captions_cut"),
    }


def time_parts(records: list) -> dict[str, float]:
    from pycocoevalcap.bleu.bleu import Bleu
    from pycocoevalcap.cider.cider import Cider
    from pycocoevalcap.meteor.meteor import Meteor
    from pycocoevalcap.rouge.rouge import Rouge

    from food_tasks.hooks import cocoeval

    rows = [r for r in records if not r["image_missing"]]
    parts: dict[str, float] = {}
    t = time.perf_counter()
    tokens = cocoeval.ptb_tokenize([r["ref"] for r in rows] + [r["pred"] for r in rows])
    parts["ptb tokenizer (java)"] = time.perf_counter() - t
    gts = {r["key"]: [tokens[i]] for i, r in enumerate(rows)}
    res = {r["key"]: [tokens[len(rows) + i]] for i, r in enumerate(rows)}
    for name, scorer in (
        ("bleu", lambda: Bleu(4).compute_score(gts, res, verbose=0)),
        ("meteor (java)", lambda: Meteor().compute_score(gts, res)),
        ("rouge_l", lambda: Rouge().compute_score(gts, res)),
        ("cider-d", lambda: Cider().compute_score(gts, res)),
    ):
        t = time.perf_counter()
        scorer()
        parts[name] = time.perf_counter() - t
    t = time.perf_counter()
    [cocoeval.py_tokenize(r["ref"]) for r in rows] + [cocoeval.py_tokenize(r["pred"]) for r in rows]
    parts["py tokenizer"] = time.perf_counter() - t
    return parts


def tokenizer_distance(root: Path) -> dict[str, object]:
    from food_tasks.benchmarks.food500cap import data as fc_data
    from food_tasks.hooks import cocoeval

    captions = [r["caption"] for name in (fc_data.TEST_FILE, fc_data.TRAIN_FILE) for r in fc_data.load_file(name)]
    java = cocoeval.ptb_tokenize(captions)
    py = [cocoeval.py_tokenize(c) for c in captions]
    differ = [(c, a, b) for c, a, b in zip(captions, java, py) if a != b]
    print(
        f"4. pure-Python tokenizer: {len(captions) - len(differ)} / {len(captions)} reference captions tokenised "
        "identically"
    )
    for c, a, b in differ[:10]:
        print(f"      {c!r}\n        toolkit: {a}\n        ours:    {b}")
    return {"captions": len(captions), "identical": len(captions) - len(differ)}


if __name__ == "__main__":
    sys.exit(main())
