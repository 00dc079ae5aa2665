"""Time of a two-model ``food-tasks report`` over all five benchmarks (the packaged samples).

Usage: ``python bench/bench_report.py [--repeat 3] [--keep DIR]``. Runs every benchmark's packaged sample
tasks twice with the replay model (``--log_samples``; model A answers "A"/"1", model B each document's
answer where it has one), then times ``food_tasks.report.build_report`` on the two runs: tables, intervals,
the uncertainty and paired-difference sections (which read the samples files and bootstrap), charts when
matplotlib is installed. Figures only (docs/performance.md); nothing is asserted. The samples are small:
this measures the report's fixed cost; the per-document cost of the paired bootstrap at 60,000 documents
is in bench/bench_errorbars.py.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path


def lmms_eval_run(out: Path, name: str, default: str) -> None:
    from food_tasks.benchmarks import BENCHMARKS

    tasks = ",".join(t for b in BENCHMARKS for t in b.sample_tasks)
    responses = out / f"{name}.jsonl"
    responses.write_text('{"doc_id": -1, "response": ""}\n', encoding="utf-8")
    env = dict(os.environ, HF_HUB_OFFLINE="1", HF_DATASETS_OFFLINE="1", FOOD_TASKS_JUDGE_MODEL="none")
    cmd = [
        sys.executable,
        "-m",
        "lmms_eval",
        "--model",
        "food_tasks_replay",
        "--model_args",
        f"responses={responses},model_name=bench-report/{name},default={default}",
        "--tasks",
        tasks,
        "--output_path",
        str(out / name),
        "--log_samples",
    ]
    proc = subprocess.run(cmd, env=env, check=True, capture_output=True, text=True, cwd=out)
    if not any((out / name).rglob("*_results.json")):  # lmms-eval exits 0 even when every task failed
        raise SystemExit(f"lmms-eval wrote no results under {out / name}:\n{(proc.stdout + proc.stderr)[-4000:]}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--keep", type=Path, help="keep the runs and reports here")
    args = parser.parse_args()
    from food_tasks import report

    work = args.keep or Path(tempfile.mkdtemp(prefix="bench_report_"))
    work.mkdir(parents=True, exist_ok=True)
    for name, default in (("a", "A"), ("b", "B")):
        if not (work / name).exists():
            lmms_eval_run(work, name, default)
    times = []
    for i in range(args.repeat):
        start = time.perf_counter()
        made = report.build_report([work / "a", work / "b"], work / f"report{i}")
        times.append(time.perf_counter() - start)
    md = made["markdown"].read_text(encoding="utf-8")
    print(
        f"two-model report, five benchmarks (packaged samples): median {statistics.median(times):.2f} s "
        f"(min {min(times):.2f}, max {max(times):.2f}) over {args.repeat}; {len(made['charts'])} charts, "
        f"{md.count('### Paired differences')} paired-difference sections, {md.count(' ± ')} intervals"
    )


if __name__ == "__main__":
    main()
