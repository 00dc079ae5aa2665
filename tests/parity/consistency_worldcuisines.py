#!/usr/bin/env python
"""Cross-lingual consistency and context sensitivity of the official WorldCuisines MCQ predictions.

A script, not a test: it needs a copy of the official repository (github.com/worldcuisines/worldcuisines,
Apache-2.0) and embeds none of its data. It scores one model's released MCQ predictions
(``evaluation/result/[small/]task{1,2}_mc_<model>_pred[_small].jsonl``) as a replay run of our
``worldcuisines_mcq_smallref`` (``--subset small``) or ``worldcuisines_mcq`` tasks would
(:mod:`food_tasks.benchmarks.worldcuisines.official`: a mirror of the released prompts, the tasks' documents and
``process_results``), and prints, per subtask, the accuracy, ``xling_all_correct``, ``xling_agreement``, the largest
gaps to English and the summary by ``lang_status``, then ``misled_rate`` and ``hint_gain`` over 1a/1b/1c (README
"Beyond accuracy"), each with its clustered standard error. For the 16 paper models on the small subset these
figures are shipped: ``scripts/published_beyond_worldcuisines.py`` writes them into the pack's reference data.
Not collected by pytest: it prints, asserts nothing.

Usage (offline)::

    python tests/parity/consistency_worldcuisines.py /path/to/worldcuisines [--model gpt-4o-2024-08-06] [--subset small]
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
from pathlib import Path

from food_tasks.benchmarks.worldcuisines import official, scoring
from food_tasks.stats import consistency


def _fmt(stat: consistency.Stat) -> str:
    se = f"{stat.se:.1f}" if stat.se is not None else "n/a"
    return f"{stat.value:6.2f} (SE {se}; n {stat.n}, {stat.clusters} dishes)"


def main(argv: list[str] | None = None) -> int:
    """Print the figures; 2 when no prediction was read."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("repo", type=Path, help="a checkout or git directory of github.com/worldcuisines/worldcuisines")
    parser.add_argument("--model", default="gpt-4o-2024-08-06")
    parser.add_argument("--subset", choices=("small", "large"), default="small")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="wc_consistency_") as tmp:
        work = Path(tmp)
        os.environ.update(HF_HUB_OFFLINE="1", HF_DATASETS_OFFLINE="1", HF_DATASETS_CACHE=str(work / "cache"))
        repo = official.OfficialRepo(args.repo.resolve())
        prompt_types = official.build_mirror(repo, work / "mirror")
        replay = work / "replay.jsonl"
        available, _, notes = official.write_replay_file(
            repo, args.model, args.subset, prompt_types, replay, kinds=("mcq",)
        )
        for note in notes:
            print(f"missing: {note}", file=sys.stderr)
        documents = {t: d for t, d in official.mcq_documents(work / "mirror", args.subset).items() if t in available}
        if not documents:
            return 2
        scored = official.score_replay(replay, documents)
    view = scoring.view("correct", multiple_choice=True)
    for sub, (_, _, short) in official.SUBTASKS.items():
        data = scored.get(official.task_name("mcq", args.subset, sub))
        if data is None:
            continue
        found = consistency.family_measures(data.records, view)
        gaps = sorted(found["xling_gap_to_en"].items(), key=lambda kv: kv[1]["value"])[:3]
        print(
            f"{short}: acc {scoring.macro('correct', data.records):.2f}  "
            f"xling_all_correct {_fmt(found['xling_all_correct'])}  xling_agreement {_fmt(found['xling_agreement'])}"
        )
        print("    largest gaps to en: " + ", ".join(f"{k} {g['value']:+.1f} (SE {g['se']:.1f})" for k, g in gaps))
        for status, g in consistency.gap_by_status(data.records, view).items():
            print(f"    {status}: {g['value']:+.1f} (SE {g['se']:.1f}; {g['n']} pairs)")
    context = [r for data in scored.values() for r in data.records]
    for name, stat in consistency.context_sensitivity(context, view).items():
        print(f"{name}: {_fmt(stat)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
