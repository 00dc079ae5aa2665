"""What re-scoring costs beside the run it re-scores: ``food-tasks rescore`` against the replay run of every packaged
sample task (the run that ``bench/bench_samples.py`` makes), as whole processes, and whether every number came back.

Usage: ``python bench/bench_rescore.py [--out DIR] [--repeat N]``. Prints, per repeat, the wall time of the source
run (lmms-eval with the replay model, ``--log_samples``) and of its re-score (the same tasks, no model, no image,
answers from the samples files), their ratio, and how many results values and standard errors differ (0 expected).
A model's generation is what a re-score saves; the replay model generates nothing, so this ratio is the re-score's
own overhead against the cheapest possible run. Figures only; nothing is asserted.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_samples import run as replay_run  # noqa: E402  (the source run: bench/bench_samples.py)


def numbers(results: Path) -> dict[tuple[str, str], object]:
    """Every (task or group, metric) value of a results file."""
    data = json.loads(results.read_text(encoding="utf-8"))
    return {
        (t, k): v for part in ("results", "groups") for t, row in data.get(part, {}).items() for k, v in row.items()
    }


def once(out: Path) -> tuple[float, float, int, int]:
    """(source seconds, re-score seconds, values compared, values that differ) for one fresh source run."""
    source = out / "source"
    source.mkdir(parents=True)
    start = time.perf_counter()
    replay_run(source)
    ran = time.perf_counter() - start
    (results,) = source.rglob("*_results.json")
    target = out / "rescored"
    env = dict(os.environ, HF_HUB_OFFLINE="1", HF_DATASETS_OFFLINE="1", FOOD_TASKS_JUDGE_MODEL="none")
    command = [str(Path(sys.executable).with_name("food-tasks")), "rescore", str(results), "-o", str(target)]
    start = time.perf_counter()
    subprocess.run(command, env=env, check=True, capture_output=True, text=True, cwd=out)
    rescored = time.perf_counter() - start
    (again,) = target.rglob("*_results.json")
    before, after = numbers(results), numbers(again)
    differ = sum(1 for key, value in before.items() if key[1] != "alias" and after.get(key) != value)
    return ran, rescored, len(before), differ


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--out", type=Path, help="where the runs are written (default: a temporary folder)")
    parser.add_argument("--repeat", type=int, default=3, help="source run + re-score pairs (default 3)")
    args = parser.parse_args()
    out = args.out or Path(tempfile.mkdtemp(prefix="bench-rescore-"))
    print(f"{'repeat':>6s} {'source run s':>12s} {'rescore s':>10s} {'ratio':>6s} {'values':>7s} {'differ':>6s}")
    for i in range(args.repeat):
        ran, rescored, compared, differ = once(out / str(i))
        print(f"{i + 1:6d} {ran:12.1f} {rescored:10.1f} {rescored / ran:6.2f} {compared:7d} {differ:6d}")


if __name__ == "__main__":
    main()
