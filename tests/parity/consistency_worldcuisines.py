#!/usr/bin/env python
"""Cross-lingual consistency and context sensitivity of the official WorldCuisines MCQ predictions.

A script, not a test: it needs a copy of the official repository (github.com/worldcuisines/worldcuisines,
Apache-2.0) and embeds none of its data. It reads the released prompts
(``generate_vqa/generated_data/hf_prompt/large_eval_task{1,2}/*.jsonl``) and one model's MCQ predictions
(``evaluation/result/[small/]task{1,2}_mc_<model>_pred[_small].jsonl``), scores every row with our scorer
(:func:`food_tasks.benchmarks.worldcuisines.scoring.score_mcq`, robust parser) and prints, per subtask, the
accuracy, ``xling_all_correct``, ``xling_agreement``, the largest gaps to English and the summary by
``lang_status``, then ``misled_rate`` and ``hint_gain`` over 1a/1b/1c (README "Beyond accuracy"), each with
its clustered standard error. The same numbers appear in the results JSON of a run (``parity_worldcuisines.py``
beside this script replays these files through lmms-eval). Not collected by pytest: it prints, asserts nothing.

Usage (offline)::

    python tests/parity/consistency_worldcuisines.py /path/to/worldcuisines [--model gpt-4o-2024-08-06] [--subset small]
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from food_tasks.benchmarks.worldcuisines import data, parsing, scoring
from food_tasks.stats import consistency

RENAMED = {"su": "su_loma", "si": "si_formal_spoken"}  # the official scorer's output names
NAMES = {"1": "1a", "3": "1b", "4": "1c", "2": "2"}


def _rows(repo: Path) -> dict[tuple[str, str], dict]:
    rows = {}
    for task in ("task1", "task2"):
        for path in sorted((repo / "generate_vqa/generated_data/hf_prompt" / f"large_eval_{task}").glob("*.jsonl")):
            for line in path.read_text(encoding="utf-8").splitlines():
                if line.strip():
                    row = json.loads(line)
                    rows[(str(row["qa_id"]), str(row["lang"]))] = row
    return rows


def _records(repo: Path, model: str, subset: str, rows: dict[tuple[str, str], dict]) -> list[dict]:
    english = {q: parsing.parse_mcq_options(r["multi_choice_prompt"]) for (q, lang), r in rows.items() if lang == "en"}
    folder, suffix = ("evaluation/result/small", "_pred_small") if subset == "small" else ("evaluation/result", "_pred")
    out = []
    for task in ("task1", "task2"):
        path = repo / folder / f"{task}_mc_{model}{suffix}.jsonl"
        if not path.is_file():
            print(f"missing: {path}", file=sys.stderr)
            continue
        for line in path.read_text(encoding="utf-8").splitlines():
            if not line.strip():
                continue
            pred = json.loads(line)
            raw = pred["lang"]
            lang = "nan" if not isinstance(raw, str) else RENAMED.get(raw, raw)  # pandas wrote Hokkien as NaN
            row = rows[(str(pred["qa_id"]), lang)]
            options = parsing.parse_mcq_options(row["multi_choice_prompt"])
            status = data.options_status(options, english.get(row["qa_id"]), lang)
            doc = {**row, "options": options, "options_status": status}
            out.append(scoring.score_mcq(doc, pred["prediction"]))
    return out


def _fmt(stat: consistency.Stat) -> str:
    se = f"{stat.se:.1f}" if stat.se is not None else "n/a"
    return f"{stat.value:6.2f} (SE {se}; n {stat.n}, {stat.clusters} dishes)"


def main(argv: list[str] | None = None) -> int:
    """Print the figures; 2 when no prediction was read."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("repo", type=Path, help="a copy of github.com/worldcuisines/worldcuisines")
    parser.add_argument("--model", default="gpt-4o-2024-08-06")
    parser.add_argument("--subset", choices=("small", "large"), default="small")
    args = parser.parse_args(argv)
    records = _records(args.repo, args.model, args.subset, _rows(args.repo))
    if not records:
        return 2
    view = scoring.view("correct", multiple_choice=True)
    by_type: dict[str, list[dict]] = {}
    for record in records:
        by_type.setdefault(str(record["prompt_type"]), []).append(record)
    for prompt_type in ("1", "3", "4", "2"):
        subtask = by_type.get(prompt_type)
        if not subtask:
            continue
        found = consistency.family_measures(subtask, view)
        gaps = sorted(found["xling_gap_to_en"].items(), key=lambda kv: kv[1]["value"])[:3]
        print(
            f"{NAMES[prompt_type]}: acc {scoring.macro('correct', subtask):.2f}  "
            f"xling_all_correct {_fmt(found['xling_all_correct'])}  xling_agreement {_fmt(found['xling_agreement'])}"
        )
        print("    largest gaps to en: " + ", ".join(f"{k} {g['value']:+.1f} (SE {g['se']:.1f})" for k, g in gaps))
        for status, g in consistency.gap_by_status(subtask, view).items():
            print(f"    {status}: {g['value']:+.1f} (SE {g['se']:.1f}; {g['n']} pairs)")
    context = [r for t in ("1", "3", "4") for r in by_type.get(t, [])]
    for name, stat in consistency.context_sensitivity(context, view).items():
        print(f"{name}: {_fmt(stat)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
