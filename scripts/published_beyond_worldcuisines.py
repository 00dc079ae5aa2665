#!/usr/bin/env python
"""The published WorldCuisines models on the beyond-accuracy measures: the pack's report_data/worldcuisines_beyond.json.

The official repository (github.com/worldcuisines/worldcuisines, Apache-2.0) released the MCQ predictions of its
models on the "Test Small" items (``evaluation/result/small/task{1,2}_mc_<model>_pred_small.jsonl``: the 400
test_large items of our ``worldcuisines_mcq_smallref`` tasks, 30 languages). Qwen2-VL-72B and NVLM-D-72B have no
small files; their test_large files (``evaluation/result/task{1,2}_mc_<model>_pred.jsonl``) hold the smallref rows,
and the script keeps exactly those (:func:`food_tasks.benchmarks.worldcuisines.official.restrict`: the rows whose
``(qa_id, lang)`` is a smallref document's). For every other model it prints whether that restriction of its
test_large files equals its small files (at d4d1c44 it does for all 31 pairs of files: Aria has no test_large
task 1 file). For every model of
:data:`food_tasks.benchmarks.worldcuisines.official.PUBLISHED_MODELS` this script scores them as a
``worldcuisines_mcq_smallref`` run with the ``food_tasks_replay`` model would: documents built by the tasks'
``process_docs`` from a mirror of the repository's prompts, each answer as the replay model returns it through the
task's ``process_results``, each metric and standard error by the task's own reducer and estimator, seeded by the
task, and ``misled_rate``, its control (``context_loss_rate``, ``misled_excess``) and ``hint_gain`` over the group
(:mod:`food_tasks.benchmarks.worldcuisines.official`).
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


def _same_as_small(repo: Any, name: str, keys: set[tuple[str, str]]) -> str:
    """Whether the model's test_large MCQ files restricted to the smallref documents are its small files, row for
    row (``qa_id``, ``lang``, ``prediction``, in any order): the check that makes the restriction of the
    :data:`~food_tasks.benchmarks.worldcuisines.official.FROM_LARGE` models the same data as the others' files."""
    from food_tasks.benchmarks.worldcuisines import official

    cells = []
    for config in ("task1", "task2"):
        large = repo.read(official.pred_path("large", config, "mcq", name))
        small = repo.read(official.pred_path("small", config, "mcq", name))
        if large is None or small is None:
            cells.append(f"{config}: no test_large file")
            continue
        mine = sorted(_row_key(r) for r in official.restrict(official.parse_jsonl(large), keys))
        theirs = sorted(_row_key(r) for r in official.parse_jsonl(small))
        cells.append(f"{config}: {'=' if mine == theirs else '!='} small file ({len(mine)} rows)")
    return "test_large restricted " + ", ".join(cells)


def _row_key(row: dict) -> tuple[str, str, str]:
    from food_tasks.benchmarks.worldcuisines.official import official_lang

    return str(row["qa_id"]), official_lang(row.get("lang")), repr(row.get("prediction"))


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
    keys = {(str(d["qa_id"]), str(d["lang"])) for docs in documents.values() for d in docs}  # the smallref documents
    out_models = []
    for name in models:
        start = time.perf_counter()
        replay = workdir / f"replay_{name}.jsonl"
        restricted = name in official.FROM_LARGE
        available, _, notes = official.write_replay_file(
            repo, name, "small", prompt_types, replay, kinds=("mcq",), restrict_to=keys if restricted else None
        )
        if sorted(available) != sorted(documents):
            raise DataAccessError(f"{name}: MCQ predictions of the smallref subset incomplete in {repo.path}: {notes}")
        measures = official.published_measures(official.score_replay(replay, documents), iters)
        files = [official.source_path(name, config) for config in ("task1", "task2")]
        rows = {"rows": "the smallref rows (restricted)"} if restricted else {}
        out_models.append(
            {
                "model": official.PUBLISHED_MODELS.get(name, name),
                "name": name,
                "files": [{"path": p, "commit": repo.commit, "url": repo.url(p), **rows} for p in files],
                **measures,
            }
        )
        same = "" if restricted else f"; {_same_as_small(repo, name, keys)}"
        took = time.perf_counter() - start
        print(f"{name}: {_check(repo, name, measures['tasks'])}{same} ({took:.1f}s)", flush=True)
    return {
        "benchmark": "worldcuisines",
        "title": "paper predictions on the smallref subset",
        "comparable_with": group,
        # The groups giving the same measures on other documents (test_large, HF test_small): the report says that a
        # run of one of them (or of a variant it declares: a packaged sample, an image-free twin) is not placed here.
        "same_measure": [official.task_name("mcq", "large"), "worldcuisines_mcq_small"],
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
    parser.add_argument("--models", help="comma-separated official model names (default: the paper's 18)")
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
