"""The official WorldCuisines repository (github.com/worldcuisines/worldcuisines, Apache-2.0) as input: its released
prompts and model predictions, read from a checkout or a git directory, turned into a ``FOOD_TASKS_DATA_DIR`` mirror
and ``food_tasks_replay`` files; and the released MCQ predictions of the smallref subset scored as a
``worldcuisines_mcq_smallref`` run scores them (:func:`published_measures`, the pack's reference data
``report_data/worldcuisines_beyond.json``, written by ``scripts/published_beyond_worldcuisines.py``).

Used by that script and by ``tests/parity/parity_worldcuisines.py`` (the accuracy parity); nothing here downloads.
"""

from __future__ import annotations

import ast
import json
import math
import subprocess
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from food_tasks.errors import DataAccessError

REPOSITORY = "https://github.com/worldcuisines/worldcuisines"
PROMPT_DIR = "generate_vqa/generated_data/hf_prompt"
PROMPT_FOLDERS = ("large_eval_task1", "large_eval_task2", "small_eval_task1", "small_eval_task2")
RESULT_DIR = "evaluation/result"
SCORE_DIR = "evaluation/score/json"
PRED_KIND = {"mcq": "mc", "oeq": "oe"}
VARIANT_INFIX = {"small": "_smallref", "large": ""}
# Our subtask suffix -> (official prompt_type, official JSON key, short column name).
SUBTASKS = {
    "1a_nocontext": ("1", "1a. Dish Name (No-Context)", "1a"),
    "1b_contextualized": ("3", "1b. Dish Name (Contextualized)", "1b"),
    "1c_adversarial": ("4", "1c. Dish Name (Adversarial)", "1c"),
    "2_location": ("2", "2. Regional Cuisine", "2"),
}
SUBTASK_BY_PROMPT_TYPE = {pt: name for name, (pt, _, _) in SUBTASKS.items()}

# The paper's models (Table 7) whose smallref ("Test Small") predictions the repository released, by file name, with
# the name the report shows (the names of report_data/worldcuisines.json where it has the model). Left out: the
# float32 reruns of Molmo (``molmo-7b-d-fp32``, ``molmo-7b-o-fp32``) and an earlier Pangea run (``old_pangea-7b``),
# which score.yml does not list. Qwen2-VL-72B and NVLM-D-72B (:data:`FROM_LARGE`) have no small prediction files
# (evaluation/result/small/ at d4d1c44), but their test_large files hold the smallref rows: :func:`restrict` keeps them.
PUBLISHED_MODELS = {
    "gpt-4o-2024-08-06": "GPT-4o (2024-08-06)",
    "gpt-4o-mini-2024-07-18": "GPT-4o-mini (2024-07-18)",
    "gemini-1.5-flash": "Gemini 1.5 Flash",
    "llama-3.2-90b": "Llama-3.2-90B-Vision-Instruct",
    "llama-3.2-11b": "Llama-3.2-11B-Vision-Instruct",
    "qwen2-vl-7b-instruct": "Qwen2-VL-7B-Instruct",
    "qwen-vl-2b": "Qwen2-VL-2B-Instruct",
    "pixtral-12b": "Pixtral-12B",
    "aria-25B-moe-4B": "Aria (25B MoE, 4B active)",
    "Phi-3.5-vision-instruct": "Phi-3.5-Vision-Instruct",
    "pangea-7b": "Pangea-7B",
    "molmo-7b-d": "Molmo-7B-D",
    "molmo-7b-o": "Molmo-7B-O",
    "molmoe-1b": "MolmoE-1B",
    "llava-1.6-13b": "LLaVA-1.6-Vicuna-13B",
    "llava-1.6-7b": "LLaVA-1.6-Vicuna-7B",
    "qwen2-vl-72b": "Qwen2-VL-72B-Instruct",
    "nvlm": "NVLM-D-72B",
}
# Models whose smallref predictions are read from their test_large prediction files
# (``task{1,2}_mc_<model>_pred.jsonl``) restricted to the smallref documents (:func:`restrict`). For every model
# with both files, the restriction of the test_large file is exactly its small file (the script checks it; a test
# checks it on rows cut from the real files), and the restricted files reproduce these two models' official small
# scores (``json/small/<model>_accuracy_mc.json``).
FROM_LARGE = frozenset({"qwen2-vl-72b", "nvlm"})


class OfficialRepo:
    """Read-only access to a checkout (work tree) or a git directory of worldcuisines/worldcuisines."""

    def __init__(self, path: Path, rev: str = "HEAD") -> None:
        self.path = path
        self.rev = rev
        self.worktree = (path / "evaluation").is_dir() and (path / "generate_vqa").is_dir()
        if self.worktree:
            probe = subprocess.run(
                ["git", "-C", str(path), "rev-parse", "--verify", "HEAD^{commit}"],
                check=False,
                capture_output=True,
                text=True,
            )
            # a checkout's commit when it is a git checkout; files are read from the work tree either way
            self.commit = probe.stdout.strip() if probe.returncode == 0 else "work tree"
            return
        probe = subprocess.run(
            ["git", "-C", str(path), "rev-parse", "--verify", f"{rev}^{{commit}}"],
            check=False,
            capture_output=True,
            text=True,
        )
        if probe.returncode != 0:
            raise DataAccessError(
                f"{path}: neither a checkout of {REPOSITORY} nor a git directory with revision {rev!r}: "
                f"{probe.stderr.strip()}"
            )
        self.commit = probe.stdout.strip()

    def list(self, folder: str) -> list[str]:
        """Repository-relative paths of the files directly inside ``folder``."""
        if self.worktree:
            base = self.path / folder
            return sorted(f"{folder}/{p.name}" for p in base.iterdir() if p.is_file()) if base.is_dir() else []
        out = subprocess.run(
            ["git", "-C", str(self.path), "ls-tree", "--name-only", f"{self.rev}:{folder}"],
            check=False,
            capture_output=True,
            text=True,
        )
        return sorted(f"{folder}/{name}" for name in out.stdout.split("\n") if name) if out.returncode == 0 else []

    def read(self, path: str) -> bytes | None:
        """The file's bytes, or None when it is absent (or its blob is missing from a partial snapshot)."""
        if self.worktree:
            file = self.path / path
            return file.read_bytes() if file.is_file() else None
        out = subprocess.run(
            ["git", "-C", str(self.path), "cat-file", "blob", f"{self.rev}:{path}"], check=False, capture_output=True
        )
        return out.stdout if out.returncode == 0 else None

    def url(self, path: str) -> str:
        """The file on GitHub at this commit (the repository's address where the commit is unknown)."""
        return f"{REPOSITORY}/blob/{self.commit}/{path}" if len(self.commit) == 40 else f"{REPOSITORY} ({path})"


def parse_jsonl(raw: bytes) -> list[dict]:
    """Rows of a prediction file: JSON lines, or Python dict literals (some official files use them)."""
    rows = []
    for line in raw.decode("utf-8").splitlines():
        if not line.strip():
            continue
        try:
            rows.append(json.loads(line))
        except ValueError:
            rows.append(ast.literal_eval(line))
    return rows


def official_lang(value: object) -> str:
    """The official scorer's ``fillna("nan")``: a Hokkien code read as a missing value becomes "nan" again."""
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return "nan"
    return str(value)


def build_mirror(repo: OfficialRepo, root: Path) -> dict[str, str]:
    """Write the hf_prompt files to ``root/worldcuisines/vqa`` with a card, and a ``worldcuisines/food-kb`` holding
    one placeholder image per ``image_url`` (replay shows no image; every document counts); return the test_large
    qa_id -> prompt_type map.

    Raises:
        DataAccessError: a prompt folder lacks some of its 30 language files, or one cannot be read.
    """
    from food_tasks.benchmarks.worldcuisines.layout import wc_vqa_card, write_wc_kb
    from food_tasks.data.mirror import png_bytes

    vqa = root / "worldcuisines" / "vqa"
    prompt_types: dict[str, str] = {}
    image_urls: set[str] = set()
    for folder in PROMPT_FOLDERS:
        files = [f for f in repo.list(f"{PROMPT_DIR}/{folder}") if f.endswith(".jsonl")]
        if len(files) != 30:
            raise DataAccessError(
                f"{PROMPT_DIR}/{folder}: expected 30 language files in the official repository {repo.path}, "
                f"found {len(files)}"
            )
        for path in files:
            raw = repo.read(path)
            if raw is None:
                raise DataAccessError(f"{path}: listed but not readable in {repo.path}")
            target = vqa / "hf_prompt" / folder / Path(path).name
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(raw)
            for row in parse_jsonl(raw):
                image_urls.add(str(row["image_url"]))
                if folder.startswith("large_"):
                    prompt_types[str(row["qa_id"])] = str(row["prompt_type"])
    splits = [(config, split) for config in ("task1", "task2") for split in ("test_large", "test_small")]
    (vqa / "README.md").write_text(wc_vqa_card(splits), encoding="utf-8")
    placeholder = png_bytes((128, 128, 128), 8)
    write_wc_kb(
        root,
        [{"food_id": str(i), "name": "", "images": [(url, placeholder)]} for i, url in enumerate(sorted(image_urls))],
    )
    return prompt_types


def restrict(rows: Sequence[Mapping[str, Any]], keys: Collection[tuple[str, str]]) -> list[Mapping[str, Any]]:
    """The rows of a test_large prediction file whose document, ``(qa_id, lang)`` (the language as the official
    scorer reads it, :func:`official_lang`), is in ``keys`` (the smallref documents' keys), in file order: the
    rows the official "Test Small" scores were computed on."""
    return [row for row in rows if (str(row["qa_id"]), official_lang(row.get("lang"))) in keys]


def source_path(model: str, task: str, kind: str = "mcq") -> str:
    """The prediction file a smallref run of ``model`` reads: its small file, or its test_large file for a model of
    :data:`FROM_LARGE` (restricted to the smallref rows)."""
    return pred_path("large" if model in FROM_LARGE else "small", task, kind, model)


def pred_path(subset: str, task: str, kind: str, model: str) -> str:
    """The repository path of one prediction file (``task``: task1 or task2; ``kind``: mcq or oeq)."""
    if subset == "small":
        return f"{RESULT_DIR}/small/{task}_{PRED_KIND[kind]}_{model}_pred_small.jsonl"
    return f"{RESULT_DIR}/{task}_{PRED_KIND[kind]}_{model}_pred.jsonl"


def task_name(kind: str, subset: str, subtask: str | None = None) -> str:
    """Our task (or, without ``subtask``, group) that scores the official ``subset`` (small: the smallref tasks)."""
    group = f"worldcuisines_{kind}{VARIANT_INFIX[subset]}"
    return f"{group}_{subtask}" if subtask else group


def write_replay_file(
    repo: OfficialRepo,
    model: str,
    subset: str,
    prompt_types: dict[str, str],
    out: Path,
    kinds: Sequence[str] = ("mcq", "oeq"),
    restrict_to: Collection[tuple[str, str]] | None = None,
) -> tuple[list[str], dict[str, set[tuple[str, str]]], list[str]]:
    """Merge the model's official prediction files into one ``food_tasks_replay`` file (one line per row:
    ``task``, ``qa_id``, ``lang``, ``prediction`` as stored, NaN included).

    ``restrict_to``: read the test_large files instead, keeping the rows of these ``(qa_id, lang)`` documents
    (:func:`restrict`: the smallref rows of a model of :data:`FROM_LARGE`); the rows are written as ``subset``'s.

    Returns ``(available, keys, notes)``: the subtask task names that have predictions, the (qa_id, lang) keys per
    task name, and notes about absent files.

    Raises:
        DataAccessError: a row's qa_id is not a test_large item (naming the file).
    """
    available: list[str] = []
    keys: dict[str, set[tuple[str, str]]] = {}
    notes: list[str] = []
    with out.open("w", encoding="utf-8") as fh:
        for kind in kinds:
            for config in ("task1", "task2"):
                path = pred_path(subset if restrict_to is None else "large", config, kind, model)
                raw = repo.read(path)
                subtasks = [s for s, (pt, _, _) in SUBTASKS.items() if (pt == "2") == (config == "task2")]
                if raw is None:
                    notes.append(f"{path} absent: {kind.upper()} {', '.join(SUBTASKS[s][2] for s in subtasks)} skipped")
                    continue
                rows = parse_jsonl(raw)
                for row in rows if restrict_to is None else restrict(rows, restrict_to):
                    qa_id, lang = str(row["qa_id"]), official_lang(row.get("lang"))
                    prompt_type = prompt_types.get(qa_id)
                    if prompt_type is None:
                        raise DataAccessError(f"{path}: qa_id {qa_id} is not a test_large item")
                    task = task_name(kind, subset, SUBTASK_BY_PROMPT_TYPE[prompt_type])
                    keys.setdefault(task, set()).add((qa_id, lang))
                    line = {"task": task, "qa_id": qa_id, "lang": lang, "prediction": row.get("prediction")}
                    fh.write(json.dumps(line, ensure_ascii=False) + "\n")
                available += [task_name(kind, subset, s) for s in subtasks]
    return available, keys, notes


# ---------------------------------------------------------------- the published models on the beyond measures

# The measures of report_data/worldcuisines_beyond.json, per task (metric, shown as).
TASK_MEASURES = ("acc", "xling_all_correct", "xling_agreement", "position_rstd")
GROUP_MEASURES = ("misled_rate", "context_loss_rate", "misled_excess", "hint_gain")
LARGEST_GAPS = 3


@dataclass
class Scored:
    """One task's records, scored as a run scores them (what :func:`food_tasks.stats.consistency.measures` reads)."""

    table: Any
    records: list[Mapping[str, Any]]


def mcq_documents(mirror: Path, subset: str = "small") -> dict[str, list[dict]]:
    """The documents of the four MCQ subtasks that score the official ``subset`` (small: the
    ``worldcuisines_mcq_smallref`` tasks; large: ``worldcuisines_mcq``), by task name, built by the tasks' own
    ``process_docs`` (:func:`food_tasks.benchmarks.worldcuisines.data.prepare_docs`) from a mirror, every language."""
    from food_tasks.benchmarks.worldcuisines import data as wc_data

    split_kind = "smallref" if subset == "small" else "large"
    return {
        task_name("mcq", subset, sub): wc_data.prepare_docs(split_kind, sub, root=mirror, languages=wc_data.LANGUAGES)
        .with_format(None)
        .to_list()
        for sub in SUBTASKS
    }


def score_replay(replay: Path, documents: Mapping[str, Sequence[dict]]) -> dict[str, Scored]:
    """Every document answered from a ``food_tasks_replay`` file, as a run scores it: the answer the replay model
    returns (:func:`food_tasks.lmms.predictions.load_responses`, keys qa_id+lang) through the task's
    ``process_results``.

    Raises:
        DataAccessError: a document has no answer in the file (naming the task and the first documents).
    """
    from food_tasks.benchmarks.worldcuisines.tables import TABLES, process_results_mcq
    from food_tasks.lmms.predictions import load_responses

    answers = load_responses(replay, ("qa_id", "lang"))
    out = {}
    for task, docs in sorted(documents.items()):
        lacking = [(d["qa_id"], d["lang"]) for d in docs if (task, (str(d["qa_id"]), str(d["lang"]))) not in answers]
        if lacking:
            raise DataAccessError(
                f"{replay}: {len(lacking)} of the {len(docs)} documents of {task} have no prediction "
                f"(first: {lacking[:3]}); the prediction files do not cover the task's documents"
            )
        records = [
            process_results_mcq(doc, [answers[(task, (str(doc["qa_id"]), str(doc["lang"])))]])["acc"].record
            for doc in docs
        ]
        out[task] = Scored(TABLES["mcq"], TABLES["mcq"].in_order(records))
    return out


def _stat(value: Any, se: float | None, n: int, clusters: int, interval: Any = None) -> dict[str, Any]:
    """A measure as the reference file stores it (:meth:`food_tasks.stats.consistency.Stat.as_dict`), with its 95 %
    interval within the measure's range (``interval``: the estimate's, :mod:`food_tasks.stats.intervals`)."""
    from food_tasks.stats.consistency import Stat

    return Stat(float(value), se, n, clusters, interval).as_dict()


def task_measures(task: str, scored: Scored, iters: int) -> dict[str, Any]:
    """One task's measures with their standard errors, as a run computes them: each metric's reducer over the
    records in canonical order, the standard errors of every metric with an estimator at once, seeded by the task
    (:func:`food_tasks.lmms.errorbars.task_statistics`); the three most negative gaps to English; the position
    breakdown and its p-value."""
    from food_tasks.stats import uncertainty as stats

    table, records = scored.table, scored.records
    wanted = [m for m in table.values() if m.estimator is not None]
    estimates = stats.estimate_many(
        [m.estimator for m in wanted], records, [table.cluster_of(r) for r in records], iters, stats.seed_for(task)
    )
    errors = {m.name: e for m, e in zip(wanted, estimates)}
    out: dict[str, Any] = {}
    for name in TASK_MEASURES:
        est = errors[name]
        out[name] = _stat(table[name](records), est.se, est.n, est.clusters, est.interval)
    out["acc_official"] = table["acc_official"](records)
    gaps = table["xling_gap_to_en"](records)
    out["xling_gap_to_en_largest"] = [
        {"lang": lang, **gap}
        for lang, gap in sorted(gaps.items(), key=lambda kv: (kv[1]["value"], kv[0]))[:LARGEST_GAPS]
    ]
    out["position_bias_p"] = table["position_bias_p"](records)
    out["position_bias"] = table["position_bias"](records)
    return out


def group_measures(scored: Mapping[str, Scored]) -> dict[str, Any]:
    """``misled_rate``, its control (``context_loss_rate``, ``misled_excess``) and ``hint_gain`` of the smallref
    group, as a run computes them at the end (:func:`food_tasks.stats.consistency.measures` over the group's four
    tasks)."""
    from food_tasks.stats import consistency

    group = task_name("mcq", "small")
    found = consistency.measures(scored, {group: [task_name("mcq", "small", s) for s in SUBTASKS]}).get(group, {})
    return {name: found[name].as_dict() for name in GROUP_MEASURES if name in found}


def published_measures(scored: Mapping[str, Scored], iters: int) -> dict[str, Any]:
    """Every beyond-accuracy measure of one model's smallref run: ``{"tasks": {task: ...}, "group": {...}}``."""
    return {
        "tasks": {task: task_measures(task, data, iters) for task, data in sorted(scored.items())},
        "group": {task_name("mcq", "small"): group_measures(scored)},
    }
