#!/usr/bin/env python
"""The published WorldCuisines models on the beyond-accuracy measures: the pack's report_data/worldcuisines_beyond.json.

The official repository (github.com/worldcuisines/worldcuisines, Apache-2.0) released the MCQ predictions of its
models on the "Test Small" items (``evaluation/result/small/task{1,2}_mc_<model>_pred_small.jsonl``: the 400
test_large items of our ``worldcuisines_mcq_smallref`` tasks, 30 languages). For every model of
:data:`food_tasks.benchmarks.worldcuisines.official.PUBLISHED_MODELS` this script scores them as a
``worldcuisines_mcq_smallref`` run with the ``food_tasks_replay`` model would: documents built by the tasks'
``process_docs`` from a mirror of the repository's prompts, each answer as the replay model returns it through the
task's ``process_results``, each metric and standard error by the task's own reducer and estimator, seeded by the
task, and ``misled_rate`` / ``hint_gain`` over the group (:mod:`food_tasks.benchmarks.worldcuisines.official`).
It writes the derived measures only (no prediction), each with its interval and its source files at the commit.

Usage (offline; a checkout, or a git directory read at ``--rev``; about a minute per model on two cores)::

    python scripts/published_beyond_worldcuisines.py /path/to/worldcuisines [-o OUT.json] [--models a,b]

Exit status: 0 written; 1 a model's files are missing or do not cover the subset (nothing written).
"""

from __future__ import annotations

import argparse
import json
import math
import os
import shutil
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

OFFLINE_ENV = {"HF_HUB_OFFLINE": "1", "HF_DATASETS_OFFLINE": "1", "HF_DATASETS_DISABLE_PROGRESS_BARS": "1"}
COMMAND = "python scripts/published_beyond_worldcuisines.py /path/to/worldcuisines"


def strict(value: Any) -> Any:
    """The value with every non-finite float as null (strict JSON: NaN is an undefined measure)."""
    if isinstance(value, float) and not math.isfinite(value):
        return None
    if isinstance(value, dict):
        return {k: strict(v) for k, v in value.items()}
    if isinstance(value, list):
        return [strict(v) for v in value]
    return value


def _check(repo: Any, name: str, tasks: dict[str, Any]) -> str:
    """Our ``acc_official`` of each subtask beside the official score file's (``json/small/<model>_accuracy_mc.json``):
    the same predictions, so they must agree (a line of the script's output, not of the reference data)."""
    from food_tasks.benchmarks.worldcuisines import official

    raw = repo.read(f"{official.SCORE_DIR}/small/{name}_accuracy_mc.json")
    scores = json.loads(raw) if raw is not None else {}
    cells = []
    for sub, (_, key, short) in official.SUBTASKS.items():
        ours, theirs = (
            tasks[official.task_name("mcq", "small", sub)]["acc_official"],
            scores.get(key, {}).get("avg_score"),
        )
        same = theirs is not None and abs(ours - theirs) < 0.005
        cells.append(f"{short} {ours:.2f}" + ("" if same else f" (official file: {theirs})"))
    return "acc_official " + ", ".join(cells)


def build(repo_path: Path, models: list[str], workdir: Path, rev: str = "HEAD") -> dict[str, Any]:
    """The reference data of ``models`` from the repository at ``repo_path`` (work files under ``workdir``).

    Raises:
        DataAccessError: the prompts or a model's MCQ prediction files are missing, or do not cover the subset.
    """
    import food_tasks
    from food_tasks.benchmarks.worldcuisines import official
    from food_tasks.benchmarks.worldcuisines.tables import TABLES
    from food_tasks.errors import DataAccessError
    from food_tasks.lmms.errorbars import LMMS_EVAL_DEFAULT_ITERS, bootstrap_iters

    repo = official.OfficialRepo(repo_path.resolve(), rev)
    iters = bootstrap_iters(LMMS_EVAL_DEFAULT_ITERS)  # what a run with lmms-eval's default asks
    mirror = workdir / "mirror"
    prompt_types = official.build_mirror(repo, mirror)
    documents = official.mcq_documents(mirror)
    group = official.task_name("mcq", "small")
    out_models = []
    for name in models:
        start = time.perf_counter()
        replay = workdir / f"replay_{name}.jsonl"
        available, _, notes = official.write_replay_file(repo, name, "small", prompt_types, replay, kinds=("mcq",))
        if sorted(available) != sorted(documents):
            raise DataAccessError(f"{name}: MCQ predictions of the smallref subset incomplete in {repo.path}: {notes}")
        measures = official.published_measures(official.score_replay(replay, documents), iters)
        files = [official.pred_path("small", config, "mcq", name) for config in ("task1", "task2")]
        out_models.append(
            {
                "model": official.PUBLISHED_MODELS.get(name, name),
                "name": name,
                "files": [{"path": p, "commit": repo.commit, "url": repo.url(p)} for p in files],
                **measures,
            }
        )
        print(f"{name}: {_check(repo, name, measures['tasks'])} ({time.perf_counter() - start:.1f}s)", flush=True)
    return {
        "benchmark": "worldcuisines",
        "title": "paper predictions on the smallref subset",
        "comparable_with": group,
        "note": (
            "The predictions the WorldCuisines repository released for its 'Test Small' leaderboard: the test_large "
            f"rows of the 400 smallref items (12,000 documents), scored as a `{group}` run scores them (robust "
            "parser). Comparable only with runs of that group."
        ),
        "generated_by": COMMAND,
        "source": {"repository": official.REPOSITORY, "commit": repo.commit, "prompts": official.PROMPT_DIR},
        "pack": {"version": food_tasks.__version__, "task_version": TABLES["mcq"].version, "bootstrap_iters": iters},
        "columns": [
            *(
                {"label": short, "task": official.task_name("mcq", "small", sub)}
                for sub, (_, _, short) in official.SUBTASKS.items()
            ),
            {"label": "group", "task": group},
        ],
        "models": out_models,
    }


def main(argv: list[str] | None = None) -> int:
    """Write the reference data; 1 when a model's predictions are missing or incomplete."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("repo", type=Path, help="a checkout or git directory of github.com/worldcuisines/worldcuisines")
    parser.add_argument("--rev", default="HEAD", help="revision to read from a git directory (default HEAD)")
    parser.add_argument("-o", "--output", type=Path, help="default: the pack's report_data/worldcuisines_beyond.json")
    parser.add_argument("--models", help="comma-separated official model names (default: the paper's 16)")
    parser.add_argument("--workdir", type=Path, help="keep the mirror and replay files here (default: a temp dir)")
    args = parser.parse_args(argv)
    workdir = args.workdir.resolve() if args.workdir else Path(tempfile.mkdtemp(prefix="wc_beyond_"))
    workdir.mkdir(parents=True, exist_ok=True)
    # Offline, and a private datasets cache: nothing leaks into (or is read from) the user's cache.
    os.environ.update(OFFLINE_ENV, HF_DATASETS_CACHE=str(workdir / "hf_datasets_cache"))
    os.environ.pop("FOOD_TASKS_WORLDCUISINES_LANGS", None)
    from food_tasks.benchmarks.worldcuisines.official import PUBLISHED_MODELS
    from food_tasks.errors import DataAccessError
    from food_tasks.tasks.registry import PUBLISHED_DIR

    models = [m.strip() for m in args.models.split(",") if m.strip()] if args.models else list(PUBLISHED_MODELS)
    output = args.output or PUBLISHED_DIR / "worldcuisines_beyond.json"
    try:
        data = build(args.repo, models, workdir, args.rev)
    except DataAccessError as err:
        print(f"error: {err}", file=sys.stderr)
        return 1
    finally:
        if not args.workdir:
            shutil.rmtree(workdir, ignore_errors=True)
    output.write_text(json.dumps(strict(data), indent=1, ensure_ascii=False, allow_nan=False) + "\n", encoding="utf-8")
    print(f"wrote {output} ({len(data['models'])} models)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
