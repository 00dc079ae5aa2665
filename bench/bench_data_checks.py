#!/usr/bin/env python
"""Cost of the damaged-data checks (a script, not a test; nothing is asserted, figures are printed).

On a synthetic WorldCuisines test_large-shaped mirror (30 languages x 500 items x 4 subtasks = 60,000
rows, official layout, one generated 1600x1200 JPEG per dish in food-kb) it times:

1. ``check_mirror_files`` (stat of the 30 language files of a split) and ``check_documents`` (qa_id sets
   per language) on one 15,000-document subtask: the checks every run pays before generation;
2. ``prepare_docs`` per subtask with a warm ``datasets`` cache (checks and food-kb index included);
3. ``find_damaged_file`` over the 30 task-1 files (45,000 lines), paid only after a load failed;
4. ``ImageStore.probe`` (header) against ``ImageStore.get`` (full decode) per image.

    HF_HUB_OFFLINE=1 HF_DATASETS_OFFLINE=1 python bench/bench_data_checks.py [--items 500] [--images 40]
"""

from __future__ import annotations

import argparse
import io
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

os.environ.update({"HF_HUB_OFFLINE": "1", "HF_DATASETS_OFFLINE": "1", "HF_DATASETS_DISABLE_PROGRESS_BARS": "1"})


def jpeg(seed: int) -> bytes:
    import numpy as np
    from PIL import Image

    rng = np.random.default_rng(seed)
    arr = (rng.random((1200, 1600, 3)) * 40 + np.linspace(0, 200, 1600)[None, :, None]).astype("uint8")
    buf = io.BytesIO()
    Image.fromarray(arr).save(buf, "JPEG", quality=90)
    return buf.getvalue()


def build(root: Path, items: int, n_images: int) -> None:
    from food_tasks.benchmarks.worldcuisines import layout as wc_layout
    from food_tasks.benchmarks.worldcuisines.data import LANGUAGES

    url = "https://upload.wikimedia.org/wikipedia/commons/x/{}.jpg?download"
    rows = []
    for k, prompt_type in enumerate(("1", "3", "4", "2")):
        task = "large_task2" if prompt_type == "2" else "large_task1"
        for i in range(items):
            qa = str(1900 + i if prompt_type == "2" else 400 + k * items + i)
            food = str(i % n_images)
            for lang in LANGUAGES:
                rows.append(
                    wc_layout.wc_row(
                        qa_id=qa,
                        lang=lang,
                        food_id=food,
                        prompt_id="1",
                        prompt_type=prompt_type,
                        question=f"What is this culinary dish called? ({lang})",
                        options=[f"Dish {j}" for j in range(5)],
                        answer_id=1 + i % 5,
                        image_url=url.format(food),
                        task=task,
                    )
                )
    wc_layout.write_wc_vqa(root, rows)
    image = jpeg(0)
    wc_layout.write_wc_kb(
        root, [{"food_id": str(f), "name": f"Dish {f}", "images": [(url.format(f), image)]} for f in range(n_images)]
    )


def timed(fn, repeat: int = 5) -> float:  # type: ignore[no-untyped-def]
    runs = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        runs.append(time.perf_counter() - t0)
    return statistics.median(runs)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--items", type=int, default=500, help="items per subtask and language (published: 500)")
    parser.add_argument("--images", type=int, default=40, help="distinct food-kb images")
    args = parser.parse_args()

    from food_tasks.benchmarks.worldcuisines import data as wc_data
    from food_tasks.benchmarks.worldcuisines.data import LANGUAGES
    from food_tasks.data import hub as data

    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp) / "mirror"
        os.environ["HF_DATASETS_CACHE"] = str(Path(tmp) / "hf")
        t0 = time.perf_counter()
        build(root, args.items, args.images)
        print(
            f"synthetic mirror: {args.items * 4 * len(LANGUAGES)} rows, {args.images} JPEGs 1600x1200, built in "
            f"{time.perf_counter() - t0:.1f} s"
        )

        t0 = time.perf_counter()
        wc_data.prepare_docs("large", "1a_nocontext", root=root, languages=LANGUAGES)
        print(f"prepare_docs 1a, cold datasets cache (JSON -> Arrow, food-kb index): {time.perf_counter() - t0:.2f} s")
        for subtask in ("1b_contextualized", "1c_adversarial", "2_location"):
            wc_data._prepare_docs.cache_clear()
            t = timed(
                lambda subtask=subtask: (
                    wc_data._prepare_docs.cache_clear(),
                    wc_data.prepare_docs("large", subtask, root=root, languages=LANGUAGES),
                ),
                3,
            )
            print(f"prepare_docs {subtask}, warm (median of 3, checks and index included): {t:.3f} s")

        ds = wc_data.load_split("task1", "test_large", root)
        sub = wc_data._select(ds, "prompt_type", "1".__eq__)
        t_files = timed(lambda: wc_data.check_mirror_files("task1", "test_large", root, LANGUAGES), 20)
        t_docs = timed(lambda: wc_data.check_documents(sub, "large", "1a_nocontext", LANGUAGES, from_hub=False), 5)
        print(
            f"check_mirror_files (30 files): {t_files * 1e3:.2f} ms; check_documents ({len(sub)} documents): "
            f"{t_docs * 1e3:.1f} ms"
        )

        files = sorted((root / "worldcuisines/vqa/hf_prompt/large_eval_task1").glob("*.jsonl"))
        lines = sum(1 for f in files for _ in open(f, "rb"))
        t_scan = timed(lambda: data.find_damaged_file(files), 3)
        print(f"find_damaged_file over {len(files)} files / {lines} lines (failure path only): {t_scan:.2f} s")

        store = wc_data.kb_store(root)
        urls = sorted({u for u in sub["image_url"]})[: args.images]
        t_probe = timed(lambda: [store.probe(u) for u in urls], 3) / len(urls)
        t_get = timed(lambda: [store.get(u) for u in urls], 3) / len(urls)
        print(f"per image: probe (header) {t_probe * 1e3:.2f} ms, get (full decode, RGB) {t_get * 1e3:.1f} ms")
    print(f"python {sys.version.split()[0]}, {os.cpu_count()} CPUs visible")


if __name__ == "__main__":
    main()
