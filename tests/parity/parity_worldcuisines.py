#!/usr/bin/env python
"""Parity check of our WorldCuisines tasks against the official scorer's published JSON files.

Opt-in: run by tests/parity/test_parity_worldcuisines.py when ``FOOD_TASKS_PARITY_WORLDCUISINES``
names a copy, or as a script (usage below). It needs a copy of the official repository
(github.com/worldcuisines/worldcuisines, Apache-2.0) and embeds none of its data.
From that repository it reads, into a temporary directory only:

* the released prompts ``generate_vqa/generated_data/hf_prompt/{large,small}_eval_task{1,2}/*.jsonl``,
  from which it builds a ``FOOD_TASKS_DATA_DIR`` mirror of ``worldcuisines/vqa``
  (same relative paths plus a dataset card declaring configs ``task1``/``task2`` and
  splits ``test_large``/``test_small``), and a ``worldcuisines/food-kb`` mirror holding one generated
  placeholder image per ``image_url`` (the tasks build the image index before generation and count
  documents whose image is absent as ``image_missing``; replay never shows images);
* the official model outputs ``evaluation/result/[small/]task{1,2}_{mc,oe}_<model>_pred[_small].jsonl``;
* the official scores ``evaluation/score/json/[small/]<model>_accuracy_{mc,oe,oe_multi,oe_dual}.json``.

For every model it merges the prediction files into one JSON Lines file for the
``food_tasks_replay`` model (one line per row: ``qa_id``, ``lang``, ``prediction``
and the ``task`` it answers, derived from the row's ``prompt_type`` in test_large),
runs the real ``lmms-eval`` CLI on the MCQ and OEQ groups (``--subset small``: the
``*_smallref`` groups, i.e. the test_large rows on which the published "Test Small"
numbers were computed; ``--subset large``: the full test_large groups), and compares
our ``acc_official`` (MCQ) and ``acc_{multi,single,dual}_official`` (OEQ) subtask,
group and per-language values with the official ones.

It also checks that the documents of every subtask are exactly the (qa_id, lang)
rows of the official prediction file, and that the replay model found a response
for every document. Prediction files missing from the copy (e.g. large files left
out of a partial snapshot) make their subtasks SKIP, never pass; a model with no
prediction file at all is a failure (most likely a misspelt name).

Known at commit d4d1c44 of the official repository: the scorer rounds MCQ values
with Python's ``round`` but OEQ values are ``numpy.float64`` and follow
``numpy.round`` (ties such as 17.575 differ); and ``json/small/pangea-7b_accuracy_oe*.json``
were not computed from the released pangea-7b small predictions (those files are
byte-identical to old_pangea-7b's, whose JSON they reproduce).

Exit status: 0 when every compared value matches within ``--tolerance`` (default
0.005, i.e. exact at two decimals), 1 on any mismatch or failed check, 2 when
nothing could be compared. Usage (offline)::

    python tests/parity/parity_worldcuisines.py --official-repo /path/to/worldcuisines \\
        --models qwen-vl-2b,llava-1.6-7b --subset small

``--official-repo`` is a checkout (files read from the work tree) or a git
directory, bare or not (files read with ``git cat-file`` at ``--rev``).
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from food_tasks.benchmarks.worldcuisines.official import (
    SCORE_DIR,
    SUBTASKS,
    OfficialRepo,
    build_mirror,
    task_name,
    write_replay_file,
)

OFFLINE_ENV = {
    "HF_HUB_OFFLINE": "1",
    "HF_DATASETS_OFFLINE": "1",
    "HF_DATASETS_DISABLE_PROGRESS_BARS": "1",
    "FOOD_TASKS_BERTSCORE": "0",
    "TOKENIZERS_PARALLELISM": "false",
}
DEFAULT_MODELS = "qwen-vl-2b,llava-1.6-7b,gpt-4o-2024-08-06,llama-3.2-11b,molmoe-1b"

OFFICIAL_LANG_NAMES = {"su_loma": "su", "si_formal_spoken": "si"}  # renamed in the official JSON output

# (kind, our metric, official JSON suffix, label)
METRICS = (
    ("mcq", "acc_official", "accuracy_mc", "MCQ"),
    ("oeq", "acc_multi_official", "accuracy_oe_multi", "OEQ multi"),
    ("oeq", "acc_single_official", "accuracy_oe", "OEQ single"),
    ("oeq", "acc_dual_official", "accuracy_oe_dual", "OEQ dual"),
)
MISSING_RESPONSES_RE = re.compile(r"food_tasks_replay: (\d+) document\(s\) had no recorded response")


def document_keys(mirror: Path, subset: str) -> dict[str, set[tuple[str, str]]]:
    """(qa_id, lang) of the documents of every subtask, as our tasks build them."""
    from food_tasks.benchmarks.worldcuisines import data as wc_data

    split_kind = "smallref" if subset == "small" else "large"
    out = {}
    for subtask in SUBTASKS:
        ds = wc_data.prepare_docs(split_kind, subtask, root=mirror, languages=wc_data.LANGUAGES)
        keys = set(zip(ds["qa_id"], ds["lang"]))
        for kind in ("mcq", "oeq"):
            out[task_name(kind, subset, subtask)] = keys
    return out


# ---------------------------------------------------------------- running lmms-eval


def run_replay(lmms_eval: str, replay: Path, tasks: list[str], out_dir: Path, env: dict[str, str], log: Path):
    """Run the lmms-eval CLI; return (results dict, seconds, missing-response count)."""
    cmd = [
        lmms_eval,
        "--model",
        "food_tasks_replay",
        "--model_args",
        f"responses={replay},keys=qa_id+lang",
        "--tasks",
        ",".join(tasks),
        "--output_path",
        str(out_dir),
    ]
    start = time.perf_counter()
    with log.open("w", encoding="utf-8") as fh:
        proc = subprocess.run(cmd, check=False, env=env, stdout=fh, stderr=subprocess.STDOUT)
    seconds = time.perf_counter() - start
    text = log.read_text(encoding="utf-8", errors="replace")
    if proc.returncode != 0:
        raise RuntimeError(f"lmms-eval exited with {proc.returncode}; log: {log}\n{text[-3000:]}")
    found = sorted(out_dir.rglob("*_results.json"), key=lambda p: p.stat().st_mtime)
    if not found:
        raise RuntimeError(f"lmms-eval wrote no *_results.json under {out_dir}; log: {log}")
    missing = max((int(n) for n in MISSING_RESPONSES_RE.findall(text)), default=0)
    return json.loads(found[-1].read_text(encoding="utf-8")), seconds, missing


# ---------------------------------------------------------------- comparison


class Comparison:
    def __init__(self, tolerance: float) -> None:
        self.tolerance = tolerance
        self.compared = 0
        self.failures: list[str] = []
        self.rows: list[tuple[str, str, list[str], str]] = []  # model, metric label, cells, per-language summary

    def check(self, what: str, ours: float | None, official: float | None) -> bool:
        self.compared += 1
        if ours is None or official is None or abs(float(ours) - float(official)) > self.tolerance:
            self.failures.append(f"{what}: ours {fmt(ours)} vs official {fmt(official)}")
            return False
        return True


def fmt(value: float | None) -> str:
    return "-" if value is None else f"{float(value):.2f}"


def compare_model(
    cmp: Comparison,
    model: str,
    subset: str,
    results: dict,
    n_samples: dict,
    available: list[str],
    official: dict[str, dict | None],
) -> None:
    for kind, metric, suffix, label in METRICS:
        table = official.get(suffix)
        cells, lang_ok, lang_total = [], 0, 0
        subtasks_done = 0
        for subtask, (_, key, _) in SUBTASKS.items():
            task = task_name(kind, subset, subtask)
            if task not in available:
                cells.append("SKIP")
                continue
            if table is None:
                cells.append("no-ref")
                continue
            ours_task = results.get(task, {})
            ours = ours_task.get(f"{metric},none")
            theirs = table.get(key, {}).get("avg_score")
            ok = cmp.check(f"{model} {label} {key}", ours, theirs)
            cells.append(f"{fmt(ours)}{'=' if ok else '≠'}{fmt(theirs)}")
            subtasks_done += 1
            ours_langs = ours_task.get("per_language,none") or {}
            official_langs = {k: v for k, v in table.get(key, {}).items() if k != "avg_score"}
            ours_by_official_name = {OFFICIAL_LANG_NAMES.get(code, code): row for code, row in ours_langs.items()}
            for lang in sorted(set(official_langs) | set(ours_by_official_name)):
                lang_total += 1
                mine = ours_by_official_name.get(lang, {}).get(metric)
                if cmp.check(f"{model} {label} {key} [{lang}]", mine, official_langs.get(lang)):
                    lang_ok += 1
        group = task_name(kind, subset)
        if subtasks_done == len(SUBTASKS) and group in results:
            ours = results[group].get(f"{metric},none")
            theirs = table.get("avg_score_all")
            ok = cmp.check(f"{model} {label} average", ours, theirs)
            cells.append(f"{fmt(ours)}{'=' if ok else '≠'}{fmt(theirs)}")
            if metric in ("acc_official", "acc_multi_official"):  # num_samples: all rows of the kind
                total = sum(n_samples.get(task_name(kind, subset, s), {}).get("effective", 0) for s in SUBTASKS)
                if table.get("num_samples") is not None and total != table["num_samples"]:
                    cmp.failures.append(
                        f"{model} {label}: {total} documents vs official num_samples {table['num_samples']}"
                    )
        else:
            cells.append("SKIP" if table is not None else "no-ref")
        cmp.rows.append((model, label, cells, f"{lang_ok}/{lang_total}" if lang_total else "-"))


def print_table(cmp: Comparison) -> None:
    headers = ["model", "metric", *(short for _, _, short in SUBTASKS.values()), "avg", "lang cells ok"]
    body = [[model, label, *cells, langs] for model, label, cells, langs in cmp.rows]
    widths = [max(len(str(r[i])) for r in [headers, *body]) for i in range(len(headers))]
    print(
        "cells: ours=official (match) or ours≠official (mismatch); SKIP: no official predictions in the copy; "
        "no-ref: no official score file"
    )
    for r in [headers, ["-" * w for w in widths], *body]:
        print("  ".join(str(c).ljust(w) for c, w in zip(r, widths)))


# ---------------------------------------------------------------- main


def default_lmms_eval() -> str:
    sibling = Path(sys.executable).with_name("lmms-eval")
    return str(sibling) if sibling.exists() else (shutil.which("lmms-eval") or "lmms-eval")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--official-repo", type=Path, required=True, help="checkout or git directory of worldcuisines/worldcuisines"
    )
    parser.add_argument("--rev", default="HEAD", help="revision to read from a git directory (default HEAD)")
    parser.add_argument(
        "--models", default=DEFAULT_MODELS, help=f"comma-separated official model names (default {DEFAULT_MODELS})"
    )
    parser.add_argument(
        "--subset",
        choices=("small", "large"),
        default="small",
        help="small: *_smallref groups vs json/small/; large: test_large groups vs json/",
    )
    parser.add_argument("--tolerance", type=float, default=0.005)
    parser.add_argument("--lmms-eval", default=default_lmms_eval(), help="lmms-eval executable")
    parser.add_argument(
        "--workdir",
        type=Path,
        help="keep the mirror, replay files, logs and results here (default: a temp dir, removed)",
    )
    parser.add_argument("--show", type=int, default=40, help="print at most this many mismatches")
    args = parser.parse_args(argv)

    repo = OfficialRepo(args.official_repo.resolve(), args.rev)
    models = [m.strip() for m in args.models.split(",") if m.strip()]
    workdir = args.workdir.resolve() if args.workdir else Path(tempfile.mkdtemp(prefix="wc_parity_"))
    workdir.mkdir(parents=True, exist_ok=True)
    mirror = workdir / "mirror"
    # A private datasets cache: nothing of this run leaks into (or is read from) the user's cache.
    env = {k: v for k, v in os.environ.items() if k != "FOOD_TASKS_WORLDCUISINES_LANGS"}
    env.update(OFFLINE_ENV, FOOD_TASKS_DATA_DIR=str(mirror), HF_DATASETS_CACHE=str(workdir / "hf_datasets_cache"))
    os.environ.clear()
    os.environ.update(env)

    try:
        print(f"official repository: {repo.path} ({repo.commit}); subset: {args.subset}; workdir: {workdir}")
        start = time.perf_counter()
        prompt_types = build_mirror(repo, mirror)
        docs = document_keys(mirror, args.subset)
        print(
            f"mirror built and documents prepared in {time.perf_counter() - start:.1f}s "
            f"({sum(len(v) for k, v in docs.items() if '_mcq' in k)} documents per kind)"
        )

        cmp = Comparison(args.tolerance)
        timings = []
        for model in models:
            replay = workdir / f"replay_{model}.jsonl"
            available, keys, notes = write_replay_file(repo, model, args.subset, prompt_types, replay)
            for note in notes:
                print(f"[{model}] {note}")
            if not available:  # most likely a misspelt model name: never a silent pass
                cmp.failures.append(f"{model}: no official prediction files at all in {repo.path}")
                continue
            same = 0
            for task in available:
                if keys.get(task, set()) != docs[task]:
                    extra, lacking = keys.get(task, set()) - docs[task], docs[task] - keys.get(task, set())
                    cmp.failures.append(
                        f"{model} {task}: documents != official prediction rows "
                        f"({len(lacking)} documents without a row, {len(extra)} rows without a document)"
                    )
                else:
                    same += 1
            qa_ids = {q for task in available for q, _ in keys.get(task, set())}
            print(
                f"[{model}] documents == official prediction rows (qa_id, lang) in {same}/{len(available)} subtasks "
                f"({len(qa_ids)} qa_ids)"
            )
            official = {}
            for _, _, suffix, _ in METRICS:
                raw = repo.read(f"{SCORE_DIR}/{'small/' if args.subset == 'small' else ''}{model}_{suffix}.json")
                official[suffix] = json.loads(raw) if raw is not None else None
            tasks = []
            for kind in ("mcq", "oeq"):
                mine = [task_name(kind, args.subset, s) for s in SUBTASKS]
                tasks += (
                    [task_name(kind, args.subset)]
                    if all(t in available for t in mine)
                    else [t for t in mine if t in available]
                )
            try:
                results, seconds, missing = run_replay(
                    args.lmms_eval, replay, tasks, workdir / "out" / model, env, workdir / f"lmms_eval_{model}.log"
                )
            except RuntimeError as err:
                print(f"[{model}] {err}")
                cmp.failures.append(f"{model}: lmms-eval failed (see above)")
                continue
            docs_run = sum(v.get("effective", 0) for v in results.get("n-samples", {}).values())
            timings.append((model, seconds, docs_run))
            print(
                f"[{model}] lmms-eval: {docs_run} documents in {seconds:.1f}s; documents without a response: {missing}"
            )
            if missing:
                cmp.failures.append(f"{model}: the replay model had no response for {missing} document(s)")
            compare_model(
                cmp, model, args.subset, results["results"], results.get("n-samples", {}), available, official
            )

        print()
        print_table(cmp)
        print()
        for model, seconds, n in timings:
            print(f"time {model}: {seconds:.1f}s for {n} documents")
        if cmp.failures:
            print(f"\n{len(cmp.failures)} mismatch(es) / failed check(s) (tolerance {args.tolerance}):")
            for line in cmp.failures[: args.show]:
                print(f"  {line}")
            if len(cmp.failures) > args.show:
                print(f"  ... {len(cmp.failures) - args.show} more")
            return 1
        if cmp.compared == 0:
            print("nothing was compared")
            return 2
        print(f"\nPARITY OK: {cmp.compared} values compared, all within {args.tolerance}")
        return 0
    finally:
        if not args.workdir:
            shutil.rmtree(workdir, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
