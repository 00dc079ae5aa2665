"""Golden files of what users see: every results-JSON value, every samples record, the report and the comparison
of the packaged sample tasks, scored from fixed predictions by the replay model.

Regenerate the golden files (after a change of numbers made on purpose, in the same commit), from the clone root:

    python tests/pins/make_pins.py

It runs lmms-eval's CLI twice in its own process (two runs: A on every packaged sample task, B on four of them), then
``food-tasks report`` on both runs and ``food-tasks compare`` (headline and ``--all``), and writes
``tests/pins/golden/``. ``tests/pins/test_pins.py`` produces the same files in a temporary folder and compares.

Normalised before comparing: absolute paths (the run folder, the cache, the clone), dates, times, durations,
the environment's versions and git state, object addresses, the keys of extraction folders in the cache, the bytes
of the charts the HTML embeds; floats are written with 12 significant digits.
"""

from __future__ import annotations

import contextlib
import io
import json
import math
import os
import re
import sys
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
GOLDEN = HERE / "golden"
ROOT = HERE.parent.parent

# The replay model's answers, by document position (every task): option numbers and letters, a sentence, JSON,
# a dish name, an empty answer, an unterminated reasoning block, a caption. Run B answers one step later.
ANSWERS = (
    "1",
    "2",
    "The answer is 3.",
    "B",
    '{"calories": 300, "protein": 20, "carbohydrates": 30, "fat": 10}',
    "Serabi",
    "",
    "<think>x</think> 4",
    "a plate of noodles with soup",
    "A",
    "3",
    "C",
)
B_TASKS = ("worldcuisines_mcq_sample", "fambench_task1_sample", "diningbench_cls_sample", "foodieqa_sample")
# Keys of the results JSON that describe the machine, the clock or the checkout, not the evaluation.
VOLATILE = (
    "git_hash",
    "git_branch",
    "lmms_eval_version",
    "date",
    "start_time",
    "end_time",
    "total_evaluation_time_seconds",
    "transformers_version",
    "pretty_env_info",
    "upper_git_hash",
)


def predictions(path: Path, shift: int) -> Path:
    """A predictions file keyed by document position (``doc_id``), the same for every task."""
    lines = [json.dumps({"doc_id": i, "response": ANSWERS[(i + shift) % len(ANSWERS)]}) for i in range(400)]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def run_lmms_eval(work: Path) -> tuple[Path, Path]:
    """Runs A and B with lmms-eval's CLI in this process (tests/inprocess.py), one after the other, as one
    lmms-eval process would; returns their output folders."""
    from food_tasks.cli import demo_tasks

    runs = []
    for name, shift, tasks in (("A", 0, demo_tasks()), ("B", 1, ",".join(B_TASKS))):
        responses = predictions(work / f"{name}.jsonl", shift)
        runs.append(
            [
                "--model",
                "food_tasks_replay",
                "--model_args",
                f"responses={responses},model_name=pins_{name}",
                "--tasks",
                tasks,
                "--batch_size",
                "1",
                "--output_path",
                str(work / name),
                "--log_samples",
            ]
        )
    import inprocess  # tests/ is on sys.path (pytest's rootdir conftest, or __main__ below)

    env = dict(os.environ, HF_HUB_OFFLINE="1", HF_DATASETS_OFFLINE="1", TOKENIZERS_PARALLELISM="false")
    for name, argv in zip(("A", "B"), runs):
        proc = inprocess.run(argv, env, work)
        if not list((work / name).rglob("*_results.json")):
            raise RuntimeError(
                f"lmms-eval wrote no results for run {name}:\n{proc.stdout[-4000:]}\n{proc.stderr[-4000:]}"
            )
    return work / "A", work / "B"


def _round(value: Any) -> Any:
    if isinstance(value, float):
        return value if not math.isfinite(value) or value == 0 else float(f"{value:.12g}")
    if isinstance(value, dict):
        return {k: _round(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_round(v) for v in value]
    return value


class Normaliser:
    """Replaces what depends on the machine and the moment by placeholders."""

    def __init__(self, work: Path) -> None:
        from food_tasks.data.remote import cache_root
        from food_tasks.registration import task_dir

        # The task directory: the clone's yaml_tasks/, or an editable install's (another checkout) before it.
        places = {work: "<WORK>", cache_root(): "<CACHE>", task_dir(): "<ROOT>/yaml_tasks", ROOT: "<ROOT>"}
        pairs = {(str(p), mark) for p, mark in places.items()} | {
            (str(p.resolve()), mark) for p, mark in places.items()
        }
        self.paths = sorted(pairs, key=lambda p: -len(p[0]))

    def text(self, text: str) -> str:
        for path, mark in self.paths:
            text = text.replace(path, mark)
        text = re.sub(r"(?<!\d)\d{8}_\d{6}(?!\d)", "<DATE>", text)  # lmms-eval's file-name timestamps
        text = re.sub(
            r"(<CACHE>/[^\"\s]*?-)[0-9a-f]{16}(?=/)", r"\1<KEY>", text
        )  # extraction folders keyed by the source's place
        return re.sub(r" at 0x[0-9a-f]+", " at 0x<ADDR>", text)

    def json(self, data: Any) -> str:
        return self.text(json.dumps(_round(data), indent=1, sort_keys=True, ensure_ascii=False, default=str)) + "\n"


def strict(text: str) -> Any:
    """``json.loads`` that refuses ``NaN`` and the infinities (not JSON: jq and ``JSON.parse`` fail on them)."""

    def refuse(constant: str) -> Any:
        raise ValueError(f"not strict JSON: {constant}")

    return json.loads(text, parse_constant=refuse)


def results_pins(run: Path, norm: Normaliser) -> dict[str, str]:
    """The results JSON (volatile keys removed) and every samples record of a run, as golden texts; each file
    read as strict JSON."""
    (results,) = run.rglob("*_results.json")
    data = strict(results.read_text(encoding="utf-8"))
    for key in VOLATILE:
        data.pop(key, None)
    out = {f"{run.name}_results.json": norm.json(data)}
    samples = {}
    for path in sorted(run.rglob("*_samples_*.jsonl")):
        task = path.name.split("_samples_", 1)[1].removesuffix(".jsonl")
        samples[task] = [strict(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
    out[f"{run.name}_samples.json"] = norm.json(samples)
    return out


def _cli(argv: list[str]) -> str:
    from food_tasks.cli import main

    buffer = io.StringIO()
    with contextlib.redirect_stdout(buffer):
        code = main(argv)
    return f"exit status {code}\n{buffer.getvalue()}"


def produce(work: Path) -> dict[str, str]:
    """Every golden file's text, from runs made now in ``work``."""
    a, b = run_lmms_eval(work)
    norm = Normaliser(work)
    out = {**results_pins(a, norm), **results_pins(b, norm)}
    report = work / "report"
    out["report_cli.txt"] = norm.text(_cli(["report", str(a), str(b), "-o", str(report)]))
    out["report.md"] = norm.text((report / "report.md").read_text(encoding="utf-8"))
    # The embedded charts' bytes depend on matplotlib and its fonts: pinned as a mark (their names are pinned below).
    page = re.sub(
        r"data:image/png;base64,[A-Za-z0-9+/=]+",
        "data:image/png;base64,<PNG>",
        (report / "report.html").read_text(encoding="utf-8"),
    )
    out["report.html"] = norm.text(page)
    out["report_charts.txt"] = "\n".join(sorted(p.name for p in (report / "charts").glob("*.png"))) + "\n"
    out["compare.txt"] = norm.text(_cli(["compare", str(a), str(b)]))
    out["compare_all.txt"] = norm.text(_cli(["compare", str(a), str(b), "--all"]))
    return out


def main() -> int:
    import tempfile

    with tempfile.TemporaryDirectory(prefix="food_tasks_pins_") as tmp:
        made = produce(Path(tmp))
    GOLDEN.mkdir(exist_ok=True)
    for old in GOLDEN.iterdir():
        old.unlink()
    for name, text in made.items():
        (GOLDEN / name).write_text(text, encoding="utf-8")
    print(f"wrote {len(made)} golden files into {GOLDEN}")
    return 0


if __name__ == "__main__":
    sys.path[:0] = [str(ROOT), str(HERE.parent)]
    import sandbox  # the caches of this run in a temporary folder, as in a test session

    try:
        sys.exit(main())
    finally:
        sandbox.remove()
