#!/usr/bin/env python
"""Benchmark of the FoodieQA task pack's own overhead (a script, not a test; nothing is asserted).

On a synthetic distribution of the published size (403 mivqa, 256 sivqa, 705 textqa questions, 389
generated 512x384 JPEG images, in ``FoodieQA.zip``), offline, in a temporary directory:

1. one-time zip extraction into the cache (cold) and the cached lookup (warm), and ``process_docs`` per
   task (documents with the variant fields, as lmms-eval calls it);
2. per-document hook cost (median / p95, microseconds): ``doc_to_text``, ``doc_to_messages`` (with image
   decode), ``process_results`` on a mix of model outputs;
3. parser time on runaway outputs (16 KB, 256 KB and 1 MB of repetition) to show linear scaling;
4. aggregation of all metrics over 10,000 records.

Usage::

    python bench/bench_foodieqa.py [--size 512x384] [--json PATH]

``--size 4032x3024`` gives the images the weight of the real phone photos (photo-like content, about 3 MB
each; bench/bench_image_path.py measures the whole image path at that size, lmms-eval's part included).
"""

from __future__ import annotations

import argparse
import functools
import io
import json
import os
import random
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

OUTPUTS = [
    "B",
    "(C)",
    "Answer: B",
    "答案是 C",
    "图B",
    "第二张",
    "我选择（D）",
    "<think>A or B?</think> C",
    "<think>unterminated",
    "新疆菜",
    "The dish in option (A) is baked in a tandoor, so A.",
    "I cannot tell.",
    "",
]


def _jpeg(rng: random.Random, size: tuple[int, int] = (512, 384)) -> bytes:
    from PIL import Image

    if size != (512, 384):  # realistic photos: generated once per size, told apart by a JPEG comment
        return _photo_pool(size).take()
    image = Image.new("RGB", size, tuple(rng.randrange(256) for _ in range(3)))
    buf = io.BytesIO()
    image.save(buf, format="JPEG", quality=85)
    return buf.getvalue()


@functools.lru_cache(maxsize=2)
def _photo_pool(size: tuple[int, int]):  # type: ignore[no-untyped-def]
    from bench_image_path import PhotoPool

    return PhotoPool(Path(tempfile.gettempdir()) / "food_tasks_bench_photos", size, 92, 6)


def build(root: Path, size: tuple[int, int] = (512, 384)) -> None:
    from food_tasks.benchmarks.foodieqa import layout

    rng = random.Random(0)
    images = {f"images/{i // 20}_upload/{i}_IMG.jpeg": _jpeg(rng, size) for i in range(389)}
    paths = sorted(images)
    opts = ["京菜", "徽菜", "新疆菜", "桂菜"]
    tables = {
        "mivqa": [
            layout.mivqa_row(
                f"q{i}",
                "以下哪道菜需要放入馕坑烤制？" * 2,
                "Which of the following dishes is baked in a tandoor?",
                rng.sample(paths, 4),
                rng.randrange(4),
                "cooking-skills",
                "新疆",
            )
            for i in range(403)
        ],
        "sivqa": [
            layout.sivqa_row(
                f"vqa-{i}",
                "图片中的食物通常属于哪个菜系?",
                opts,
                "The food in the picture usually belongs to which cuisine?",
                ["Beijing", "Anhui", "Xinjiang", "Guizhou"],
                rng.randrange(4),
                "cuisine_type",
                "烤羊肉串",
                "新疆菜",
                rng.choice(paths),
            )
            for i in range(256)
        ],
        "textqa": [
            layout.textqa_row(f"t{i}", "北京烤鸭通常属于哪个菜系?", opts, rng.randrange(4), "cuisine_type")
            for i in range(705)
        ],
    }
    layout.write_zip(root, tables, images)


def timed(fn, *args):  # type: ignore[no-untyped-def]
    start = time.perf_counter()
    out = fn(*args)
    return time.perf_counter() - start, out


def per_call(fn, items, repeat: int = 3) -> tuple[float, float]:  # type: ignore[no-untyped-def]
    times = []
    for _ in range(repeat):
        for item in items:
            t0 = time.perf_counter_ns()
            fn(item)
            times.append((time.perf_counter_ns() - t0) / 1000)
    times.sort()
    return statistics.median(times), times[int(0.95 * (len(times) - 1))]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--json", type=Path)
    parser.add_argument("--size", default="512x384", help="image size WxH (4032x3024: phone photos)")
    args = parser.parse_args(argv)
    size = tuple(int(x) for x in args.size.lower().split("x"))
    figures: dict[str, object] = {}
    with tempfile.TemporaryDirectory() as tmp:
        os.environ["HF_HOME"] = str(Path(tmp) / "hf_home")
        os.environ["HF_HUB_OFFLINE"] = "1"
        root = Path(tmp) / "mirror"
        build(root, size)
        figures["zip_mib"] = round((root / "lyan62/FoodieQA/FoodieQA.zip").stat().st_size / 2**20, 1)

        import food_tasks.utils.foodieqa as hooks
        from food_tasks.benchmarks.foodieqa import data as fq_data
        from food_tasks.benchmarks.foodieqa import parsing as fq_parsing
        from food_tasks.benchmarks.foodieqa import scoring as fq_scoring

        figures["extract_cold_s"], _ = timed(fq_data.data_folder, root)
        fq_data._data_folder.cache_clear()
        figures["extract_warm_s"], _ = timed(fq_data.data_folder, root)
        docs = {}
        for spec in ("mivqa_zh_p1", "sivqa_en_p0", "textqa_zh_p2"):
            figures[f"process_docs_{spec}_s"], docs[spec] = timed(hooks._docs, spec, None, root)
        rng = random.Random(1)
        for spec, ds in docs.items():
            sample = [ds[i] for i in range(min(100, len(ds)))]
            figures[f"doc_to_text_{spec}_us"] = per_call(hooks.doc_to_text, sample)
            figures[f"doc_to_messages_{spec}_us (incl. image decode)"] = per_call(
                hooks.doc_to_messages, sample, repeat=1
            )
            figures[f"process_results_{spec}_us"] = per_call(
                lambda d: hooks.process_results(d, [rng.choice(OUTPUTS)]), sample
            )

        for unit in ("Answer: B ", "图A图B", "(((((", "A" * 7 + " "):
            for size in (16 * 1024, 256 * 1024, 1024 * 1024):
                text = unit * (size // len(unit))
                t_robust, _ = timed(fq_parsing.parse_robust, text, "(", ["a", "b", "c", "d"])
                t_paper, _ = timed(fq_parsing.parse_paper, text, "sivqa", 0)
                figures[f"parse {unit[:10]!r} x {size // 1024} KB: robust / paper ms"] = (
                    round(t_robust * 1e3, 2),
                    round(t_paper * 1e3, 3),
                )

        doc = docs["sivqa_en_p0"][0]
        records = [
            fq_scoring.score(doc | {"index": i}, rng.choice(OUTPUTS), "sivqa", "en", 0, "(") for i in range(10000)
        ]
        agg = {}
        for name, metric in hooks.TABLES["p0"].items():
            agg[name], _ = timed(metric, records)
        figures["aggregation_10k_records_ms"] = {k: round(v * 1e3, 2) for k, v in agg.items()}

    for key, value in figures.items():
        if isinstance(value, tuple) and len(value) == 2 and key.endswith("_us") or "_us (" in key:
            value = f"median {value[0]:.1f} µs, p95 {value[1]:.1f} µs"
        elif isinstance(value, float):
            value = f"{value:.3f}"
        print(f"{key}: {value}")
    if args.json:
        args.json.write_text(json.dumps(figures, indent=1, default=str))
    return 0


if __name__ == "__main__":
    sys.exit(main())
