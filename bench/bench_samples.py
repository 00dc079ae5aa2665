"""Bytes per document in lmms-eval's samples files (``--log_samples``), per task: metric payloads vs one record.

Usage: ``python bench/bench_samples.py [--out DIR] [--samples DIR]``. Runs the packaged sample tasks of every
benchmark with the replay model (answers: each document's gold target) and ``--log_samples``, then prints,
per task, the bytes of one logged document, how many of them are metric payloads, and the ratio of payload
bytes to the size of one full per-document record. ``--samples DIR`` measures an existing run instead (for
example one made with an earlier version, to compare before and after). Figures only; nothing is asserted.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

NOT_METRICS = {
    "doc_id",
    "doc",
    "target",
    "arguments",
    "resps",
    "filtered_resps",
    "token_counts",
    "doc_hash",
    "prompt_hash",
    "target_hash",
    "input_media",
    "input",
}


def run(out: Path) -> None:
    from food_tasks.benchmarks import BENCHMARKS

    tasks = ",".join(t for b in BENCHMARKS for t in b.sample_tasks)
    responses = out / "responses.jsonl"
    responses.write_text('{"doc_id": 0, "response": "1"}\n', encoding="utf-8")
    env = dict(os.environ, HF_HUB_OFFLINE="1", HF_DATASETS_OFFLINE="1", FOOD_TASKS_JUDGE_MODEL="none")
    cmd = [
        sys.executable,
        "-m",
        "lmms_eval",
        "--model",
        "food_tasks_replay",
        "--model_args",
        f"responses={responses},model_name=samples,default=A",
        "--tasks",
        tasks,
        "--output_path",
        str(out),
        "--log_samples",
    ]
    proc = subprocess.run(cmd, env=env, check=True, capture_output=True, text=True, cwd=out)
    if not any(out.rglob("*_results.json")):  # lmms-eval exits 0 even when every task failed
        raise SystemExit(f"lmms-eval wrote no results under {out}:\n{(proc.stdout + proc.stderr)[-4000:]}")


def measure(folder: Path) -> None:
    print(f"{'task':45s} {'doc bytes':>9s} {'payloads':>9s} {'record':>7s} {'payloads/record':>15s}")
    for path in sorted(folder.rglob("*_samples_*.jsonl")):
        task = path.name.split("_samples_")[1].removesuffix(".jsonl")
        docs, payloads, records = [], [], []
        for line in path.read_text(encoding="utf-8").splitlines():
            sample = json.loads(line)
            metrics = {k: v for k, v in sample.items() if k not in NOT_METRICS}
            sizes = {k: len(json.dumps(v, ensure_ascii=False)) for k, v in metrics.items()}
            docs.append(len(line))
            payloads.append(sum(sizes.values()))
            records.append(max(sizes.values()) if sizes else 0)  # the largest payload holds the whole record
        if docs:
            ratio = statistics.mean(p / r for p, r in zip(payloads, records) if r)
            print(
                f"{task:45s} {statistics.mean(docs):9.0f} {statistics.mean(payloads):9.0f} "
                f"{statistics.mean(records):7.0f} {ratio:15.2f}"
            )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--samples", type=Path, help="measure this run's samples files instead of making a run")
    parser.add_argument("--out", type=Path, help="where the run is written (default: a temporary folder)")
    args = parser.parse_args()
    if args.samples:
        measure(args.samples)
        return
    out = args.out or Path(tempfile.mkdtemp(prefix="bench-samples-"))
    out.mkdir(parents=True, exist_ok=True)
    run(out)
    measure(out)


if __name__ == "__main__":
    main()
