#!/usr/bin/env python
"""Benchmark of the DiningBench task pack's own overhead (a script, not a test; prints figures).

On a synthetic mirror in the published layout (``classification.jsonl`` with ``--rows`` rows, the size of
the largest split, 2,884; one reference photo and four user photos per row, JPEG ``--size`` pixels, all
in a real ``images.tar.gz``) it measures:

1. preparation of the largest split: archive extraction (once), document building (cold, then warm with
   the tree extracted, then the in-process cache), for 1 and 4 views;
2. per-document hook cost (median / p95): ``doc_to_messages`` with 1 and 4 views (decode included),
   ``process_results`` for classification, nutrition and VQA on a mix of outputs, including 16 KB
   runaway repetitions;
3. aggregation of every classification and nutrition metric over all documents;
4. the judge step against a local OpenAI-compatible server (``tests/judge_server.py``): 804 VQA records
   (the size of the split), cold (HTTP, bounded pool) and re-run (disk cache);
5. worst-case parser inputs: our linear official re-implementations vs the official regular expressions.

    python bench/bench_diningbench.py [--rows 2884] [--size 512x384] [--json out.json]

Nothing is asserted; the metric values mean nothing (random outputs), only times matter.
"""

from __future__ import annotations

import argparse
import io
import json
import os
import random
import re
import statistics
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]


def jpeg(rng: random.Random, size: tuple[int, int]) -> bytes:
    from PIL import Image, ImageDraw

    img = Image.new("RGB", size, tuple(rng.randrange(256) for _ in range(3)))
    draw = ImageDraw.Draw(img)
    for _ in range(6):
        x, y = rng.randrange(size[0]), rng.randrange(size[1])
        draw.ellipse([x, y, x + 60, y + 40], fill=tuple(rng.randrange(256) for _ in range(3)))
    buf = io.BytesIO()
    img.save(buf, "JPEG", quality=85)
    return buf.getvalue()


def timed(fn, *args, **kwargs):  # type: ignore[no-untyped-def]
    start = time.perf_counter()
    value = fn(*args, **kwargs)
    return value, time.perf_counter() - start


def per_call(fn, items, repeat=1):  # type: ignore[no-untyped-def]
    times = []
    for item in items:
        for _ in range(repeat):
            start = time.perf_counter()
            fn(item)
            times.append(time.perf_counter() - start)
    times.sort()
    return statistics.median(times) * 1e6, times[int(0.95 * (len(times) - 1))] * 1e6


def outputs(rng: random.Random, kind: str) -> list[str]:
    runaway = ("我认为答案是 " * 1400)[:16000]
    if kind == "cls":
        base = [
            "C",
            "Answer: C",
            "答案：F",
            "<think>" + "pumpkin " * 300 + "</think>\n\nF",
            "\\boxed{B}",
            "Roasted Pumpkin Chicken Salad",
            "(H)",
        ]
    elif kind == "nutrition":
        base = [
            '{"calories": 580, "protein": 24, "carbohydrates": 80, "fat": 18}',
            '```json\n{"卡路里": 580, "蛋白质": 24, "碳水化合物": 80, "脂肪": 18}\n```',
            'Estimate: {"calories": "580 kcal", "protein": "24g", "carbohydrates": "70-90", "fat": 18}',
            "{" * 16000,
        ]
    else:
        base = ["经历了油炸", "不符合，含有奶酪制品。", "<think>" + "嗯" * 2000 + "</think>是", "Yes, it is fried."]
    return [rng.choice(base) if rng.random() > 0.03 else runaway for _ in range(400)]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--rows", type=int, default=2884)
    parser.add_argument("--size", default="512x384")
    parser.add_argument("--json")
    args = parser.parse_args()
    size = tuple(int(x) for x in args.size.split("x"))
    rng = random.Random(0)
    figures: dict[str, object] = {}
    tmp = Path(tempfile.mkdtemp(prefix="bench_db_"))
    os.environ["FOOD_TASKS_DATA_DIR"] = str(tmp / "mirror")
    os.environ["FOOD_TASKS_CACHE_DIR"] = str(tmp / "cache")
    os.environ["FOOD_TASKS_JUDGE_MODEL"] = "bench-judge"
    sys.path.insert(0, str(REPO / "tests"))
    sys.path.insert(0, str(REPO / "tests" / "diningbench"))

    import diningbench_fixture as F
    from judge_server import JudgeServer

    from food_tasks.benchmarks.diningbench import data as D
    from food_tasks.benchmarks.diningbench import layout
    from food_tasks.benchmarks.diningbench import parsing as P
    from food_tasks.benchmarks.diningbench import scoring as S
    from food_tasks.judge import client as judge
    from food_tasks.utils import diningbench as hooks

    # ---------------------------------------------------------------- mirror
    start = time.perf_counter()
    pool = [jpeg(rng, size) for _ in range(64)]  # distinct JPEGs reused under distinct names
    images, rows = {}, []
    prompt = F.cls_prompt(F.OPTIONS_EN, "en")
    for i in range(args.rows):
        views = [f"images/{i:05d}/{k}.jpg" for k in range(5)]
        for v in views:
            images[v] = rng.choice(pool)
        rows.append(
            {
                "id": i,
                "prompt": prompt,
                "ground_truth": rng.choice("ABCDEFGH"),
                "standard_image": views[0],
                "user_images": views[1:],
            }
        )
    layout.write_mirror(tmp / "mirror", {"classification_en.jsonl": rows}, images)
    archive = tmp / "mirror" / D.REPO_ID / D.ARCHIVE
    figures["mirror"] = {
        "rows": args.rows,
        "images": len(images),
        "archive_MiB": round(archive.stat().st_size / 2**20, 1),
        "jpeg_KiB_mean": round(sum(map(len, pool)) / len(pool) / 1024, 1),
        "write_s": round(time.perf_counter() - start, 1),
    }

    # ---------------------------------------------------------------- 1. preparation
    prep = {}
    _, prep["cold: extract archive + build docs (1 view)"] = timed(D.build_docs, "cls", "en", (0,))
    _, prep["warm: tree extracted, build docs (1 view)"] = timed(D.build_docs, "cls", "en", (0,))
    _, prep["warm: build docs (4 views, every image checked)"] = timed(D.build_docs, "cls", "en", (0, 1, 2, 3))
    _, prep["prepare_docs as datasets.Dataset (4 views), first"] = timed(D.prepare_docs, "cls", "en", (0, 1, 2, 3))
    _, prep["prepare_docs again (in-process cache)"] = timed(D.prepare_docs, "cls", "en", (0, 1, 2, 3))
    figures["preparation_s"] = {k: round(v, 3) for k, v in prep.items()}

    # ---------------------------------------------------------------- 2. hooks
    docs1 = D.build_docs("cls", "en", (0,))[:200]
    docs4 = D.build_docs("cls", "en", (0, 1, 2, 3))[:200]
    nut_doc = {
        "idx": 0,
        "prompt": F.NUT_PROMPT_EN,
        "gold_json": json.dumps(F.NUT_EN[0]),
        "model_name": "",
        "cot": False,
        "images": docs1[0]["images"],  # the scorer probes the document's images (image_missing)
    }
    vqa_doc = {
        "idx": 0,
        "prompt": "这道菜是否经过油炸？" + P.VQA_ENDING_ZH,
        "gold_json": json.dumps("是"),
        "model_name": "",
        "cot": False,
        "images": docs1[0]["images"],  # the scorer probes the document's images (image_missing)
    }
    hook = {
        "doc_to_messages, 1 view (decode)": per_call(hooks.doc_to_messages, docs1),
        "doc_to_messages, 4 views (decode)": per_call(hooks.doc_to_messages, docs4[:100]),
        "process_results_cls": per_call(lambda o: hooks.process_results_cls(docs1[0], [o]), outputs(rng, "cls")),
        "process_results_nutrition": per_call(
            lambda o: hooks.process_results_nutrition(nut_doc, [o]), outputs(rng, "nutrition")
        ),
        "process_results_vqa (ROUGE included)": per_call(
            lambda o: hooks.process_results_vqa(vqa_doc, [o]), outputs(rng, "vqa")[:200]
        ),
    }
    figures["hooks_us"] = {k: {"median": round(m, 1), "p95": round(p, 1)} for k, (m, p) in hook.items()}

    # ---------------------------------------------------------------- 3. aggregation
    all_docs = D.build_docs("cls", "en", (0,))
    cls_records = [S.score_cls(d, o) for d, o in zip(all_docs, outputs(rng, "cls") * 8)]
    nut_records = [
        S.score_nutrition({**nut_doc, "idx": i}, o) for i, o in enumerate((outputs(rng, "nutrition") * 5)[:1650])
    ]
    agg = {}
    start = time.perf_counter()
    for fn in hooks.TABLES["cls"].values():
        fn(cls_records)
    agg[f"all {len(hooks.TABLES['cls'])} classification metrics, {len(cls_records)} records"] = (
        time.perf_counter() - start
    )
    start = time.perf_counter()
    for fn in hooks.TABLES["nutrition"].values():
        fn(nut_records)
    agg[f"all {len(hooks.TABLES['nutrition'])} nutrition metrics, {len(nut_records)} records"] = (
        time.perf_counter() - start
    )
    figures["aggregation_ms"] = {k: round(v * 1000, 1) for k, v in agg.items()}

    # ---------------------------------------------------------------- 4. judge
    vqa_records = [
        S.score_vqa({**vqa_doc, "idx": i, "gold_json": json.dumps(f"答案{i % 97}")}, f"预测{i}") for i in range(804)
    ]
    judge_fig = {}
    for delay in (0.0, 0.05):
        with JudgeServer(lambda p: "是", delay=delay) as server:
            os.environ["OPENAI_API_URL"] = server.url
            os.environ["FOOD_TASKS_JUDGE_CACHE"] = str(tmp / f"judge-{delay}")
            config = judge.JudgeConfig.from_env()
            _, cold = timed(S.judge_outcomes, vqa_records, judge.JudgeClient(config))
            sent = len(server.requests)
            _, cached = timed(S.judge_outcomes, vqa_records, judge.JudgeClient(config))
            judge_fig[f"server latency {int(delay * 1000)} ms, {config.workers} workers"] = {
                "requests": sent,
                "cold_s": round(cold, 2),
                "requests_per_s": round(sent / cold, 1),
                "rerun_from_disk_cache_s": round(cached, 3),
                "rerun_requests": len(server.requests) - sent,
            }
    figures["judge"] = judge_fig

    # ---------------------------------------------------------------- 5. worst cases
    worst = {}
    for label, text in (
        ("16 KB without </think>, qwen thinking branch", "x" * 16000),
        ("16 KB of '{' (nutrition, fenced)", "```" + "{" * 16000),
        ("8 KB of '{' (greedy \\{.*\\})", "```" + "{" * 8000),
    ):
        _, ours = timed(lambda t: P.nutrition_official(P.official_prediction(t, "qwen-3-vl-8b-thinking")), text)
        if "think" in label:
            _, theirs = timed(re.sub, r".*?</think>\n\n", "", text, flags=re.DOTALL | re.IGNORECASE)
        elif "fenced" in label:
            _, theirs = timed(re.search, r"```(?:json)?\s*(\{.*?\})\s*```", text, re.DOTALL)
        else:
            _, theirs = timed(re.search, r"\{.*\}", text, re.DOTALL)
        worst[label] = {"ours_ms": round(ours * 1000, 2), "official_regex_ms": round(theirs * 1000, 1)}
    figures["worst_case"] = worst

    print(json.dumps(figures, indent=1, ensure_ascii=False))
    if args.json:
        Path(args.json).write_text(json.dumps(figures, indent=1, ensure_ascii=False))
    return 0


if __name__ == "__main__":
    sys.exit(main())
