"""food-tasks: food-domain vision-language benchmarks for lmms-eval.

    food-tasks path     print the installed task directory (for --include_path)
    food-tasks list     our tasks and groups: benchmark, size, data source
    food-tasks demo     run the packaged sample tasks on a tiny local model, offline
    food-tasks prefetch BENCH      fetch a benchmark's remote files once into the cache (fambench: repository
                                   files and third-party images; foodieqa: the gated zip, extracted;
                                   diningbench: JSONL files and the image archive, extracted)
    food-tasks validate TASK.yaml  check a regional task (YAML + data file) before running a model
    food-tasks report DIR|FILE...  Markdown + HTML report (tables beside the papers' numbers, charts)
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

from food_tasks.registration import task_dir

# Benchmark -> (documents per task on the full data, data source) for `list`.
SOURCES = {
    "worldcuisines": "hf.co/datasets/worldcuisines/vqa + worldcuisines/food-kb (images)",
    "fambench": "github.com/anonymous-research-artifact123/Food-as-medicine@abfaf02 + recipe-site image URLs",
    "foodieqa": "hf.co/datasets/lyan62/FoodieQA (gated: FoodieQA.zip)",
    "diningbench": "hf.co/datasets/meituan/DiningBench (JSONL + images.tar.gz)",
    "food500cap": "github.com/aaronma2020/Food500-Cap@a32dfe9 + local ISIA Food-500 images",
}
SIZES = {"worldcuisines_": 15000, "worldcuisines_small": 3000, "worldcuisines_smallref": 3000, "worldcuisines_sample": 9,
         "fambench_task1": 1500, "fambench_task2": 1000, "fambench_task2_ctc": 2000, "fambench_task2_ctc_all": 8000,
         "fambench_task1_sample": 4, "fambench_task2_ctc_sample": 4}  # fmt: skip
FOODIEQA_SIZES = {"mivqa": 403, "sivqa": 256, "textqa": 705}
SIZES.update({"diningbench_cls": 2884, "diningbench_nutrition": 1650, "diningbench_vqa": 804,
              "diningbench_cls_sample": 2, "diningbench_nutrition_sample": 2})  # paper Table 1 (each language)
SIZES.update({"food500cap_caption": 4940, "food500cap_caption_food": 4940, "food500cap_caption_all": 24732,
              "food500cap_caption_sample": 5})  # fmt: skip
DEMO_TASKS = "food_tasks_sample"


def _yaml_names() -> list[tuple[str, str, str]]:
    """``(name, kind, benchmark)`` for every task and group YAML we ship (read without executing hooks)."""
    import yaml

    class _Loader(yaml.SafeLoader):
        pass

    _Loader.add_constructor("!function", lambda loader, node: None)
    out = []
    for path in sorted(task_dir().rglob("*.yaml")):
        config = yaml.load(path.read_text(encoding="utf-8"), Loader=_Loader) or {}
        bench = path.parent.name if path.parent != task_dir() else "all"
        if "group" in config:
            out.append((config["group"], "group", bench))
        elif "task" in config:
            out.append((config["task"], "task", bench))
    return out


def _size(name: str, kind: str) -> str:
    if kind == "group":
        return ""
    if name in SIZES:
        return str(SIZES[name])
    if name.startswith("foodieqa_"):
        return "2" if "_sample_" in name else str(FOODIEQA_SIZES[name.split("_")[1]])
    if name.startswith("diningbench"):
        return str(SIZES.get(name) or SIZES["_".join(name.split("_")[:2])])
    if name.startswith("fambench"):
        stem = "fambench_task2_ctc_all" if name.endswith("ctc_all") else next(
            s for s in ("fambench_task2_ctc", "fambench_task2", "fambench_task1") if name.startswith(s))
        return str(SIZES[stem])
    for variant in ("smallref", "small", "sample"):
        if f"_{variant}_" in name:
            return str(SIZES[f"worldcuisines_{variant}"])
    return str(SIZES["worldcuisines_"])


def cmd_list(_: argparse.Namespace) -> int:
    rows = _yaml_names()
    width = max(len(n) for n, _, _ in rows)
    print(f"{'name':<{width}}  {'kind':<5}  {'benchmark':<13}  {'docs':>6}  source")
    for name, kind, bench in rows:
        print(f"{name:<{width}}  {kind:<5}  {bench:<13}  {_size(name, kind):>6}  {SOURCES.get(bench, '')}")
    return 0


def cmd_path(_: argparse.Namespace) -> int:
    print(task_dir())
    return 0


def cmd_prefetch(args: argparse.Namespace) -> int:
    """Fetch a benchmark's files and images once (parallel), so evaluation runs read only the cache."""
    from food_tasks import remote

    if args.benchmark == "foodieqa":
        return _prefetch_foodieqa()
    if args.benchmark == "diningbench":
        from food_tasks.benchmarks.diningbench import data as db_data

        for name, path in db_data.prefetch().items():
            print(f"{name}: {path}")
        return 0
    if args.benchmark != "fambench":
        print(f"prefetch: nothing to fetch for {args.benchmark!r} (hub datasets are cached by `datasets`)", file=sys.stderr)
        return 2
    from food_tasks.benchmarks.fambench import data as fb_data

    urls = [r.get("image_url") or "" for r in fb_data.load_task1()]
    urls += [o.get("image_url") or "" for q in fb_data.load_task2() for o in q["options"]]
    fb_data.task1_kb(), fb_data.task2_rules()
    store = remote.default_image_store()
    summary = store.prefetch([u for u in urls if u], workers=args.workers)
    print(f"images: {summary['available']}/{summary['total']} available in {store.cache_dir} (mirror: {store.mirror})")
    for url, reason in sorted(summary["missing"].items()):
        print(f"  missing {url}: {reason}")
    if args.report:
        Path(args.report).write_text(json.dumps(summary, indent=2, sort_keys=True))
    return 0


def _prefetch_foodieqa() -> int:
    """Download (gated: needs a token) and extract FoodieQA.zip once, before ranks start."""
    from food_tasks.benchmarks.foodieqa import data as fq_data
    from food_tasks.data import DataAccessError

    try:
        counts = {task: len(fq_data.load_docs(task)) for task in fq_data.FILES}
    except DataAccessError as err:
        print(f"prefetch: {err}", file=sys.stderr)
        return 1
    print(f"FoodieQA: {counts} questions, data folder {fq_data.data_folder()}")
    return 0


def _find_results(out_dir: Path) -> Path | None:
    found = sorted(out_dir.rglob("*_results.json"), key=lambda p: p.stat().st_mtime)
    return found[-1] if found else None


def cmd_demo(args: argparse.Namespace) -> int:
    from food_tasks.tiny_model import build_tiny_qwen2_vl

    cache = Path(os.environ.get("XDG_CACHE_HOME", Path.home() / ".cache")) / "food_tasks" / "tiny-qwen2-vl"
    model = build_tiny_qwen2_vl(cache)
    out_dir = Path(args.output_path or tempfile.mkdtemp(prefix="food-tasks-demo-"))
    env = dict(os.environ, HF_HUB_OFFLINE="1", HF_DATASETS_OFFLINE="1", TOKENIZERS_PARALLELISM="false")
    command = [
        sys.executable, "-m", "lmms_eval", "--model", "qwen2_vl",
        "--model_args", f"pretrained={model},device=cpu,device_map=cpu,max_pixels=12544,min_pixels=3136",
        "--tasks", args.tasks, "--batch_size", "1", "--output_path", str(out_dir), "--log_samples",
    ]  # fmt: skip
    print("$ " + " ".join(command), flush=True)
    code = subprocess.call(command, env=env)
    results = _find_results(out_dir)
    # lmms-eval exits 0 even when a task crashed: the results file is the verdict.
    if code != 0 or results is None:
        print(f"food-tasks demo: lmms-eval wrote no results under {out_dir} (exit code {code}); see the log above.", file=sys.stderr)
        return 1
    data = json.loads(results.read_text(encoding="utf-8"))
    missing = [t for t in ("worldcuisines_mcq_sample", "worldcuisines_oeq_sample") if t not in data.get("groups", {})]
    missing += [t for t in ("fambench_task1_sample", "fambench_task2_ctc_sample") if t not in data.get("results", {})]
    missing += [t for t in ("foodieqa_sample",) if t not in data.get("groups", {})]
    missing += [t for t in ("diningbench_cls_sample", "diningbench_nutrition_sample") if t not in data.get("results", {})]
    missing += [t for t in ("food500cap_caption_sample",) if t not in data.get("results", {})]
    if missing:
        print(f"food-tasks demo: results {results} lack {missing}; see the log above.", file=sys.stderr)
        return 1
    print(f"\nfood-tasks demo: OK. The model is a tiny randomly initialised Qwen2-VL: its scores are meaningless (mostly unparseable outputs, so accuracies near 0).\nResults: {results}")
    return 0


def cmd_validate(args: argparse.Namespace) -> int:
    """One line per problem of each regional task YAML; exit status 1 when any."""
    from food_tasks.regional import validate

    failed = 0
    for path in args.yaml:
        problems = validate(path, check_images=not args.no_images)
        for line in problems:
            print(line)
        print(f"{path}: {'OK' if not problems else f'{len(problems)} problem(s)'}", file=sys.stderr)
        failed += bool(problems)
    return 1 if failed else 0


def cmd_report(args: argparse.Namespace) -> int:
    """Render lmms-eval results (directories or results files) into ``-o`` as report.md/report.html."""
    from food_tasks.report import ReportInputError, build_report

    try:
        made = build_report(args.results, args.output)
    except ReportInputError as err:
        print(f"food-tasks report: {err}", file=sys.stderr)
        return 2
    print(f"runs: {', '.join(made['runs'])}\nwrote {made['markdown']}, {made['html']} and {len(made['charts'])} chart(s)")
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="food-tasks", description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = parser.add_subparsers(dest="command", required=True)
    sub.add_parser("path", help="print the installed task directory").set_defaults(func=cmd_path)
    sub.add_parser("list", help="list our tasks and groups").set_defaults(func=cmd_list)
    demo = sub.add_parser("demo", help="run the packaged sample tasks on a tiny local model (offline, CPU)")
    demo.add_argument("--tasks", default=DEMO_TASKS, help=f"tasks to run (default: {DEMO_TASKS})")
    demo.add_argument("--output_path", default=None, help="where lmms-eval writes results (default: a temp dir)")
    demo.set_defaults(func=cmd_demo)
    prefetch = sub.add_parser("prefetch", help="download a benchmark's files and third-party images into the cache")
    prefetch.add_argument("benchmark", choices=["fambench", "foodieqa", "diningbench"])
    prefetch.add_argument("--workers", type=int, default=16)
    prefetch.add_argument("--report", help="write the coverage summary (JSON) to this file")
    prefetch.set_defaults(func=cmd_prefetch)
    validate = sub.add_parser("validate", help="check regional task YAMLs and their data (see CONTRIBUTING.md)")
    validate.add_argument("yaml", nargs="+", help="regional task YAML file(s)")
    validate.add_argument("--no-images", action="store_true", help="skip opening every image")
    validate.set_defaults(func=cmd_validate)
    report = sub.add_parser("report", help="Markdown + HTML report of lmms-eval results, beside the papers' numbers")
    report.add_argument("results", nargs="+", help="lmms-eval --output_path directories or *_results.json files")
    report.add_argument("-o", "--output", default="food_tasks_report", help="report directory (default: ./food_tasks_report)")
    report.set_defaults(func=cmd_report)
    args = parser.parse_args(argv)
    from food_tasks.data import DataAccessError

    try:
        return args.func(args)
    except DataAccessError as err:  # our message last, non-zero exit status, no traceback
        print(f"food-tasks {args.command}: {err}", file=sys.stderr)
        return 1


if __name__ == "__main__":
    sys.exit(main())
