"""Times `food-tasks validate` on a large regional task and `food-tasks report` on many runs; prints figures.

    python bench/bench_regional_report.py [--rows 20000] [--runs 6]

Data is synthetic (generated PNGs, made-up questions); only the times matter.
"""

from __future__ import annotations

import argparse
import json
import platform
import random
import sys
import tempfile
import time
from pathlib import Path

from food_tasks import report
from food_tasks.data.mirror import png_bytes
from food_tasks.regional_tasks import check as regional_check
from food_tasks.regional_tasks import scoring as regional_scoring

LANGS = [f"l{i:02d}" for i in range(30)]


def write_task(root: Path, rows: int, images: int) -> Path:
    (root / "images").mkdir(parents=True)
    for i in range(images):
        (root / "images" / f"{i}.png").write_bytes(png_bytes((i % 255, 80, 160), 224))
    rng = random.Random(0)
    with (root / "data.jsonl").open("w", encoding="utf-8") as fh:
        for i in range(rows):
            fh.write(
                json.dumps(
                    {
                        "id": f"q{i}",
                        "image": f"images/{rng.randrange(images)}.png",
                        "question": "Which dish?",
                        "options": ["a", "b", "c", "d"],
                        "answer": "ABCD"[i % 4],
                        "region": f"r{i % 12}",
                        "language": LANGS[i % 30],
                    }
                )
                + "\n"
            )
    (root / "task.yaml").write_text(
        "task: bench_regional\nclass: !function food_tasks.regional.RegionalTask\ndataset_path: json\n"
        "dataset_kwargs:\n  data_files:\n    test: data.jsonl\nmetadata:\n  version: 1.0\n  regional:\n"
        "    {format: mcq, id: id, image: image, question: question, options: options, answer: answer, slices: "
        "[region, language]}\n"
    )
    return root / "task.yaml"


def write_runs(root: Path, runs: int) -> None:
    rng = random.Random(1)
    subs = ("1a_nocontext", "1b_contextualized", "1c_adversarial", "2_location")
    for r in range(runs):
        results, configs = {}, {}
        for kind, metric in (("mcq", "acc"), ("oeq", "acc_multi")):
            for sub in subs:
                task = f"worldcuisines_{kind}_{sub}"
                per_lang = {
                    lang: {"n": 500, metric: rng.uniform(0, 100), "invalid_rate": rng.uniform(0, 5)} for lang in LANGS
                }
                results[task] = {
                    f"{metric},none": rng.uniform(0, 100),
                    f"{metric}_official,none": rng.uniform(0, 100),
                    "per_language,none": per_lang,
                }
                configs[task] = {"metadata": {"version": 1.0}}
        for mode in ("", "_cot", "_ki", "_cot_ki"):
            task = f"fambench_task1{mode}"
            results[task] = {
                "decision_acc,none": rng.uniform(50, 90),
                "per_condition,none": {
                    f"condition {c}": {"n": 115, "decision_acc": rng.uniform(40, 95)} for c in range(13)
                },
            }
            configs[task] = {"metadata": {"version": 1.0}}
        data = {
            "results": results,
            "groups": {},
            "configs": configs,
            "versions": {t: 1.0 for t in results},
            "config": {"model": "vllm", "model_args": f"model=org/model-{r}"},
        }
        (root / f"run{r}").mkdir(parents=True)
        (root / f"run{r}" / "x_results.json").write_text(json.dumps(data))


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--rows", type=int, default=20000)
    parser.add_argument("--images", type=int, default=500)
    parser.add_argument("--runs", type=int, default=6)
    args = parser.parse_args()
    print(f"python {platform.python_version()} on {platform.machine()}, {platform.platform()}")
    with tempfile.TemporaryDirectory() as tmp:
        yaml_path = write_task(Path(tmp) / "task", args.rows, args.images)
        # The first call converts the JSONL into the datasets cache (cold); later calls read the cache (warm).
        for images, state in ((False, "cold"), (False, "warm"), (True, "warm")):
            start = time.perf_counter()
            problems = regional_check.validate(yaml_path, check_images=images)
            took = time.perf_counter() - start
            print(
                f"validate {args.rows} rows ({args.images} distinct 224x224 PNGs), images "
                f"{'opened' if images else 'skipped'}, "
                f"{state} datasets cache: {took:.2f} s ({1e6 * took / args.rows:.0f} us/row), {len(problems)} problems"
            )
        settings = regional_scoring.Settings.from_metadata(
            {"regional": {"format": "mcq", "question": "q", "options": "o", "answer": "a"}}
        )
        doc = {"q": "Which dish?", "o": ["Rendang", "Pho", "Laksa", "Adobo"], "a": "B"}
        for name, output in (
            ("short answer", "The answer is B."),
            ("16 KB runaway repetition", "B is tasty and " * 1100),
        ):
            start = time.perf_counter()
            for _ in range(200):
                regional_scoring.score(settings, doc, output)
            print(
                f"score one MCQ output ({name}, {len(output)} chars): "
                f"{1e6 * (time.perf_counter() - start) / 200:.0f} us"
            )
        runs_dir = Path(tmp) / "runs"
        write_runs(runs_dir, args.runs)
        start = time.perf_counter()
        made = report.build_report([runs_dir], Path(tmp) / "rep")
        print(
            f"report: {args.runs} runs x (8 WorldCuisines tasks x 30 languages + 4 FAM-Bench tasks x 13 conditions): "
            f"{time.perf_counter() - start:.2f} s, {len(made['charts'])} charts"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
