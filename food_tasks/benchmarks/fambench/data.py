"""FAM-Bench data: repository files, record validation, documents and images.

Data: the official GitHub repository at a pinned commit (raw files over HTTPS, cached), or the
``$FOOD_TASKS_DATA_DIR/github/<owner>/<repo>/`` mirror with the repository's own relative paths
(:func:`food_tasks.data.remote.github_file`). Nothing is vendored. The schema is the one the official v1.0 code
reads (``code/task1/run_q2.py::_load_dataset`` and ``_build_prompt_payload``, ``code/task2/evaluate.py``); the
instance files themselves could not be inspected when this loader was written, so every record is
validated and errors name the file, record and field.

Images are third-party URLs fetched at evaluation time (:class:`food_tasks.data.remote.UrlImageStore`:
timeouts, retries, disk cache, cross-process locks). As in the official Task 1 scorer, a document
whose image cannot be fetched is excluded from every denominator and counted in ``image_missing``;
we apply the same rule to Task 2 (its official code would count the question as a failed request).
"""

from __future__ import annotations

import functools
import json
import os
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from food_tasks.benchmarks.fambench import parsing, prompts
from food_tasks.data import remote
from food_tasks.data.hub import DataAccessError

CACHES = ("_read_json", "_prepared", "_mirror_store")  # what food_tasks.reset() clears in this module

if TYPE_CHECKING:  # pragma: no cover
    import datasets

REPO = "anonymous-research-artifact123/Food-as-medicine"  # anonymous review repository (v1.0)
COMMIT = "abfaf02a2099c43951aef4ab3d5575cd7fd95ddc"
REPO_ENV, COMMIT_ENV = "FOOD_TASKS_FAMBENCH_REPO", "FOOD_TASKS_FAMBENCH_COMMIT"
TASK1_FILE = "dataset/task1_dish_suitability.json"
TASK2_FILE = "dataset/task2_comparative_analysis.json"
KB_FILE = "knowledge_base/disease_food_kb.json"
RULES_FILE = "code/task2/ki_data/condition_rules.json"
GUIDELINES_FILE = "code/task2/ki_data/nutrition_guidelines.json"

# The paper's 13 conditions and the phrasings that name them (for per-condition reporting only;
# rationale matching itself stays exact, as officially).
CONDITIONS: dict[str, tuple[str, ...]] = {
    "hypertension": ("hypertension", "high blood pressure", "blood pressure"),
    "type 2 diabetes": ("type 2 diabetes", "type two diabetes", "diabetes", "t2d", "t2dm"),
    "obesity": ("obesity", "weight management", "overweight", "weight loss"),
    "metabolic syndrome": ("metabolic syndrome", "metabolic health"),
    "ibs": ("ibs", "irritable bowel syndrome", "irritable bowel"),
    "nafld": ("nafld", "fatty liver", "non alcoholic fatty liver disease"),
    "heart failure": ("heart failure", "congestive heart"),
    "gerd": ("gerd", "acid reflux", "gastroesophageal reflux", "reflux", "heartburn"),
    "cardiovascular disease": ("cardiovascular", "heart disease", "heart health", "cvd", "coronary"),
    "hyperlipidemia": ("hyperlipidemia", "hyperlipidaemia", "dyslipidemia", "cholesterol", "triglycerides"),
    "stroke": ("stroke",),
    "chronic kidney disease": ("chronic kidney disease", "kidney disease", "ckd", "renal", "kidney"),
    "osteoporosis": ("osteoporosis", "bone health", "bone density"),
}
_CONDITION_PATTERNS = [(name, [f" {alias} " for alias in aliases]) for name, aliases in CONDITIONS.items()]


def map_conditions(text: str) -> list[str]:
    """Paper conditions named in ``text`` (word-bounded phrase match after official normalisation)."""
    padded = f" {parsing.norm_ingredient(text)} "
    return [name for name, aliases in _CONDITION_PATTERNS if any(a in padded for a in aliases)]


# --------------------------------------------------------------------------- files


def repo_and_commit() -> tuple[str, str]:
    """The official repository and commit the files are read from (``$FOOD_TASKS_FAMBENCH_*`` override them)."""
    return os.environ.get(REPO_ENV, "").strip() or REPO, os.environ.get(COMMIT_ENV, "").strip() or COMMIT


def repo_file(path: str, root: Path | None = None) -> Path:
    """Local copy of one file of the official repository (mirror ``root`` or $FOOD_TASKS_DATA_DIR, cache, download)."""
    repo, commit = repo_and_commit()
    return remote.github_file(repo, commit, path, root=root)


@functools.lru_cache(maxsize=16)
def _read_json(local: str, stamp: float) -> Any:
    try:
        with open(local, encoding="utf-8") as fh:
            return json.load(fh)
    except (ValueError, UnicodeDecodeError) as err:
        if Path(local).read_bytes().startswith(remote.LFS_POINTER):
            raise DataAccessError(
                f"FAM-Bench: {local} is a Git LFS pointer, not the data: run `git lfs pull` in the mirror "
                f"(or delete the file so it is downloaded again)."
            ) from err
        raise DataAccessError(
            f"FAM-Bench: {local} is not valid JSON ({err}). Delete it so it is downloaded again, "
            f"or replace it with the file from https://github.com/{repo_and_commit()[0]}."
        ) from err


def read_json(path: str, root: Path | None = None) -> tuple[Any, Path]:
    """One JSON file of the official repository, parsed (cached per file version), and its local path."""
    local = repo_file(path, root)
    return _read_json(str(local), local.stat().st_mtime), local


def _fail(local: Path, where: str, problem: str) -> DataAccessError:
    return DataAccessError(
        f"FAM-Bench {local}: {where}: {problem}. The loader expects the schema the official v1.0 code reads "
        f"(commit {COMMIT[:7]}); if the official files changed, pin {COMMIT_ENV} to the commit you have."
    )


def _need(record: Mapping, field: str, kind: type | tuple, local: Path, where: str, *, empty_ok: bool = False) -> Any:
    if field not in record or record[field] is None:
        raise _fail(local, where, f"missing field {field!r}")
    value = record[field]
    if not isinstance(value, kind) or (not empty_ok and not value):
        raise _fail(
            local, where, f"field {field!r} must be a non-empty {getattr(kind, '__name__', kind)}, got {value!r:.80}"
        )
    return value


def load_task1(root: Path | None = None) -> list[dict[str, Any]]:
    """Task 1 rows (official order, non-dict entries dropped as officially), validated, with ``index`` (1-based)."""
    data, local = read_json(TASK1_FILE, root)
    if not isinstance(data, list):
        raise _fail(local, "top level", f"expected a JSON array of records, got {type(data).__name__}")
    rows = []
    for index, row in enumerate((r for r in data if isinstance(r, dict)), start=1):
        where = f"record {index} ({str(row.get('title', ''))[:60]!r})"
        _need(row, "title", str, local, where, empty_ok=True)  # officially sent as is, even empty
        _need(row, "question", str, local, where, empty_ok=True)
        gold = row.get("standard answer", row.get("standard_answer"))
        if not isinstance(gold, dict):
            raise _fail(
                local, where, "missing field 'standard answer' (a dict with 'decision' and 'rationale_ingredients')"
            )
        if parsing.decision_robust(gold.get("decision")) is None:
            raise _fail(
                local, where, f"'standard answer'.decision {gold.get('decision')!r} is not recommend / not recommend"
            )
        if not isinstance(gold.get("rationale_ingredients", []), list):
            raise _fail(local, where, "'standard answer'.rationale_ingredients must be a list")
        rows.append({**row, "index": index, "standard answer": gold})
    if not rows:
        raise _fail(local, "top level", "no records")
    return rows


def load_task2(root: Path | None = None) -> list[dict[str, Any]]:
    """Task 2 questions (``{"questions": [...]}`` or a bare array), validated."""
    data, local = read_json(TASK2_FILE, root)
    questions = data.get("questions") if isinstance(data, dict) else data
    if not isinstance(questions, list) or not questions:
        raise _fail(local, "top level", "expected an object with a non-empty 'questions' array")
    seen: set[str] = set()
    for number, q in enumerate(questions, start=1):
        if not isinstance(q, dict):
            raise _fail(local, f"question {number}", "not an object")
        qid = parsing.clean(_need(q, "question_id", (str, int), local, f"question {number}")).upper()
        where = f"question {number} ({qid})"
        if qid in seen:
            raise _fail(local, where, "duplicate question_id")
        seen.add(qid)
        _need(q, "prompt", dict, local, where)
        options = [
            o for o in _need(q, "options", list, local, where) if isinstance(o, dict) and not o.get("is_abstention")
        ]
        letters = [parsing.clean(o.get("letter")).upper() for o in options]
        if sorted(letters) != list(parsing.LETTERS):
            raise _fail(local, where, f"options must be lettered A-D once each, got {letters}")
        for option, letter in zip(options, letters):
            _need(option, "image_url", str, local, f"{where} option {letter}")
        gold = parsing.clean((q.get("answer") or {}).get("letter")).upper() if isinstance(q.get("answer"), dict) else ""
        if gold not in parsing.LETTERS:
            raise _fail(local, where, f"answer.letter must be one of A-D, got {q.get('answer')!r:.60}")
    return questions


def _kb_conditions(data: Any, local: Path) -> dict[str, dict[str, list[str]]]:
    raw = data.get("conditions") if isinstance(data, dict) else None
    if not isinstance(raw, dict):
        raise _fail(local, "top level", "missing 'conditions' object")
    out = {}
    for name, entry in raw.items():
        if isinstance(entry, dict):
            out[str(name)] = {
                k: [str(i) for i in entry.get(k) or [] if str(i).strip()] if isinstance(entry.get(k), list) else []
                for k in ("recommend", "not_recommend")
            }
    return out


def task1_kb(root: Path | None = None) -> dict[str, dict[str, list[str]]]:
    """The Task 1 knowledge base: per condition, its ``recommend`` and ``not_recommend`` ingredients."""
    data, local = read_json(KB_FILE, root)
    return _kb_conditions(data, local)


def task2_rules(root: Path | None = None) -> dict[str, Any]:
    """The Task 2 rule index (conditions and guidelines files, validated) for the knowledge-injected modes."""
    rules, local_rules = read_json(RULES_FILE, root)
    guidelines, local_guidelines = read_json(GUIDELINES_FILE, root)
    if not isinstance(rules, dict) or not isinstance(rules.get("conditions"), list):
        raise _fail(local_rules, "top level", "missing 'conditions' array")
    if not isinstance(guidelines, dict) or not isinstance(guidelines.get("rules"), list):
        raise _fail(local_guidelines, "top level", "missing 'rules' array")
    return prompts.task2_rule_index(rules, guidelines)


# --------------------------------------------------------------------------- documents


def _dataset(rows: list[dict]) -> datasets.Dataset:
    import datasets

    return datasets.Dataset.from_list(rows)


def dish_identity(row: Mapping[str, Any]) -> str:
    """The dish a Task 1 row rates (the same dish is asked about under several conditions): its title
    (case and spacing folded), else its image URL, else the row number. The unit of resampling of Task 1's
    standard errors."""
    title = " ".join(str(row.get("title") or "").split()).casefold()
    if title:
        return f"title:{title}"
    url = str(row.get("image_url") or "").strip()
    return f"url:{url}" if url else f"row:{row['index']}"


def task1_docs(mode: str, input_name: str, root: Path | None = None) -> list[dict[str, Any]]:
    """One document per Task 1 row for a prompting mode and input (``textimage``/``textonly``/``imageonly``).

    ``root``: read the files (and images) from this mirror instead of the default sources."""
    kb = task1_kb(root) if mode.endswith("ki") else None
    system = prompts.task1_system_prompt(mode, input_name)
    docs = []
    for row in load_task1(root):
        gold = row["standard answer"]
        rationale = parsing.norm_rationale(gold.get("rationale_ingredients", []))
        focal = sorted({c for e in rationale for c in map_conditions(e["condition"])}) or map_conditions(
            row["question"]
        )
        docs.append(
            {
                "replay_key": str(row["index"]),
                "index": row["index"],
                "title": row["title"],
                "dish": dish_identity(row),
                "question": row["question"],
                "mode": mode,
                "input": input_name,
                "system": system,
                "user": prompts.task1_user_payload(row, mode, input_name, kb),
                "image_urls": [] if input_name == "textonly" else [str(row.get("image_url") or "")],
                "image_root": str(root or ""),
                "gold_decision": parsing.decision_robust(gold.get("decision")),
                "gold_decision_official": parsing.decision_official(gold.get("decision", "")) or "",
                "gold_rationale": json.dumps(rationale, ensure_ascii=False),
                "focal": focal,
            }
        )
    return docs


def task2_docs(
    kinds: Sequence[str], modes: Sequence[str], input_name: str, root: Path | None = None
) -> list[dict[str, Any]]:
    """Task 2 documents: for every question, one per (mode, kind) in that order (CTC tasks use both kinds)."""
    rules = task2_rules(root) if any(m.endswith("ki") for m in modes) else None
    docs = []
    for q in load_task2(root):
        options = [o for o in q["options"] if not o.get("is_abstention")]
        gold = q.get("gold") if isinstance(q.get("gold"), dict) else {}
        ranking = [parsing.clean(x).upper() for x in gold.get("ranking") or []]
        labels = {
            parsing.clean(k).upper(): parsing.clean(v).lower() for k, v in (gold.get("decision_labels") or {}).items()
        }
        base = {
            "question_id": parsing.clean(q["question_id"]).upper(),
            "input": input_name,
            "option_letters": [parsing.clean(o.get("letter")).upper() for o in options],
            "image_urls": [] if input_name == "textonly" else [parsing.clean(o.get("image_url")) for o in options],
            "image_root": str(root or ""),
            "gold_letter": parsing.clean(q["answer"]["letter"]).upper(),
            "gold_ranking": [x for x in ranking if x in parsing.LETTERS],
            "gold_labels": json.dumps(labels, sort_keys=True),
            "condition_prompt": " + ".join(
                parsing.clean(c) for c in (q["prompt"].get("condition_labels") or []) if parsing.clean(c)
            ),
        }
        for mode in modes:
            for kind in kinds:
                docs.append(
                    {
                        **base,
                        "kind": kind,
                        "mode": mode,
                        "replay_key": f"{base['question_id']}:{kind}:{mode}",
                        "prompt": prompts.task2_prompt(q, kind, mode, input_name, rules),
                    }
                )
    return docs


@functools.lru_cache(maxsize=64)
def _prepared(
    task: str, modes: tuple, input_name: str, kinds: tuple, root: Path | None, stamp: tuple
) -> datasets.Dataset:
    if task == "task1":
        return _dataset(task1_docs(modes[0], input_name, root))
    return _dataset(task2_docs(kinds, modes, input_name, root))


def _stamp() -> tuple:
    return repo_and_commit() + (os.environ.get("FOOD_TASKS_DATA_DIR", ""), os.environ.get("FOOD_TASKS_CACHE_DIR", ""))


def prepare_docs(
    task: str, modes: Sequence[str], input_name: str, kinds: Sequence[str] = ("rank",), root: Path | None = None
) -> datasets.Dataset:
    """Documents of one task variant as a ``datasets.Dataset`` (built once per process and data source)."""
    return _prepared(task, tuple(modes), input_name, tuple(kinds), root, _stamp())


# --------------------------------------------------------------------------- images


@functools.lru_cache(maxsize=8)
def _mirror_store(root: str) -> remote.UrlImageStore:
    return remote.UrlImageStore(mirror=Path(root) / "urls", allow_network=False)


def image_store(doc: Mapping[str, Any]) -> remote.UrlImageStore:
    """The default store, or a network-free store over the mirror the document was read from (samples)."""
    return _mirror_store(doc["image_root"]) if doc.get("image_root") else remote.default_image_store()


def doc_images_aligned(doc: Mapping[str, Any]) -> list:
    """One entry per image URL of the document: the image, or None when it cannot be fetched."""
    store = image_store(doc)
    return [store.get(url) if url else None for url in doc.get("image_urls") or []]


def doc_images(doc: Mapping[str, Any]) -> list:
    """The document's images that could be fetched (missing ones are counted at scoring time)."""
    return [img for img in doc_images_aligned(doc) if img is not None]


def images_missing(doc: Mapping[str, Any]) -> bool:
    """True when one of the document's image URLs is empty or cannot be fetched."""
    store = image_store(doc)
    return any(not url or not store.available(url) for url in doc.get("image_urls") or [])
