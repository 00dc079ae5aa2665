"""FAM-Bench (food-as-medicine): data loading, documents, per-document scoring and aggregation.

Data: the official GitHub repository at a pinned commit (raw files over HTTPS, cached), or the
``$FOOD_TASKS_DATA_DIR/github/<owner>/<repo>/`` mirror with the repository's own relative paths
(:func:`food_tasks.remote.github_file`). Nothing is vendored. The instance files could not be inspected
when the spec was written, so every record is validated and errors name the file, record and field.

Images are third-party URLs fetched at evaluation time (:class:`food_tasks.remote.UrlImageStore`:
timeouts, retries, disk cache, cross-process locks). As in the official Task 1 scorer, a document
whose image cannot be fetched is excluded from every denominator and counted in ``image_missing``;
we apply the same rule to Task 2 (its official code would count the question as a failed request).
"""

from __future__ import annotations

import functools
import json
import os
from pathlib import Path
from typing import Any, Iterable, Mapping, Sequence

from food_tasks import metrics, remote
from food_tasks.benchmarks import fambench_prompts as prompts
from food_tasks.benchmarks import fambench_scoring as sc
from food_tasks.data import DataAccessError

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
    padded = f" {sc.norm_ingredient(text)} "
    return [name for name, aliases in _CONDITION_PATTERNS if any(a in padded for a in aliases)]


# --------------------------------------------------------------------------- files


def repo_and_commit() -> tuple[str, str]:
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
    local = repo_file(path, root)
    return _read_json(str(local), local.stat().st_mtime), local


def _fail(local: Path, where: str, problem: str) -> DataAccessError:
    return DataAccessError(
        f"FAM-Bench {local}: {where}: {problem}. The loader expects the schema of shared spec section 2 "
        f"(v1.0, commit {COMMIT[:7]}); if the official files changed, pin {COMMIT_ENV} to the commit you have."
    )


def _need(record: Mapping, field: str, kind: type | tuple, local: Path, where: str, *, empty_ok: bool = False) -> Any:
    if field not in record or record[field] is None:
        raise _fail(local, where, f"missing field {field!r}")
    value = record[field]
    if not isinstance(value, kind) or (not empty_ok and not value):
        raise _fail(local, where, f"field {field!r} must be a non-empty {getattr(kind, '__name__', kind)}, got {value!r:.80}")
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
            raise _fail(local, where, "missing field 'standard answer' (a dict with 'decision' and 'rationale_ingredients')")
        if sc.decision_robust(gold.get("decision")) is None:
            raise _fail(local, where, f"'standard answer'.decision {gold.get('decision')!r} is not recommend / not recommend")
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
        qid = sc.clean(_need(q, "question_id", (str, int), local, f"question {number}")).upper()
        where = f"question {number} ({qid})"
        if qid in seen:
            raise _fail(local, where, "duplicate question_id")
        seen.add(qid)
        _need(q, "prompt", dict, local, where)
        options = [o for o in _need(q, "options", list, local, where) if isinstance(o, dict) and not o.get("is_abstention")]
        letters = [sc.clean(o.get("letter")).upper() for o in options]
        if sorted(letters) != list(sc.LETTERS):
            raise _fail(local, where, f"options must be lettered A-D once each, got {letters}")
        for option, letter in zip(options, letters):
            _need(option, "image_url", str, local, f"{where} option {letter}")
        gold = sc.clean((q.get("answer") or {}).get("letter")).upper() if isinstance(q.get("answer"), dict) else ""
        if gold not in sc.LETTERS:
            raise _fail(local, where, f"answer.letter must be one of A-D, got {q.get('answer')!r:.60}")
    return questions


def _kb_conditions(data: Any, local: Path) -> dict[str, dict[str, list[str]]]:
    raw = data.get("conditions") if isinstance(data, dict) else None
    if not isinstance(raw, dict):
        raise _fail(local, "top level", "missing 'conditions' object")
    out = {}
    for name, entry in raw.items():
        if isinstance(entry, dict):
            out[str(name)] = {k: [str(i) for i in entry.get(k) or [] if str(i).strip()] if isinstance(entry.get(k), list) else []
                              for k in ("recommend", "not_recommend")}  # fmt: skip
    return out


def task1_kb(root: Path | None = None) -> dict[str, dict[str, list[str]]]:
    data, local = read_json(KB_FILE, root)
    return _kb_conditions(data, local)


def task2_rules(root: Path | None = None) -> dict[str, Any]:
    rules, local_rules = read_json(RULES_FILE, root)
    guidelines, local_guidelines = read_json(GUIDELINES_FILE, root)
    if not isinstance(rules, dict) or not isinstance(rules.get("conditions"), list):
        raise _fail(local_rules, "top level", "missing 'conditions' array")
    if not isinstance(guidelines, dict) or not isinstance(guidelines.get("rules"), list):
        raise _fail(local_guidelines, "top level", "missing 'rules' array")
    return prompts.task2_rule_index(rules, guidelines)


# --------------------------------------------------------------------------- documents


def _dataset(rows: list[dict]):  # type: ignore[no-untyped-def]
    import datasets

    return datasets.Dataset.from_list(rows)


def task1_docs(mode: str, input_name: str, root: Path | None = None) -> list[dict[str, Any]]:
    """One document per Task 1 row for a prompting mode and input (``textimage``/``textonly``/``imageonly``).

    ``root``: read the files (and images) from this mirror instead of the default sources."""
    kb = task1_kb(root) if mode.endswith("ki") else None
    system = prompts.task1_system_prompt(mode, input_name)
    docs = []
    for row in load_task1(root):
        gold = row["standard answer"]
        rationale = sc.norm_rationale(gold.get("rationale_ingredients", []))
        focal = sorted({c for e in rationale for c in map_conditions(e["condition"])}) or map_conditions(row["question"])
        docs.append({
            "replay_key": str(row["index"]),
            "index": row["index"],
            "title": row["title"],
            "question": row["question"],
            "mode": mode,
            "input": input_name,
            "system": system,
            "user": prompts.task1_user_payload(row, mode, input_name, kb),
            "image_urls": [] if input_name == "textonly" else [str(row.get("image_url") or "")],
            "image_root": str(root or ""),
            "gold_decision": sc.decision_robust(gold.get("decision")),
            "gold_decision_official": sc.decision_official(gold.get("decision", "")) or "",
            "gold_rationale": json.dumps(rationale, ensure_ascii=False),
            "focal": focal,
        })  # fmt: skip
    return docs


def task2_docs(kinds: Sequence[str], modes: Sequence[str], input_name: str, root: Path | None = None) -> list[dict[str, Any]]:
    """Task 2 documents: for every question, one per (mode, kind) in that order (CTC tasks use both kinds)."""
    rules = task2_rules(root) if any(m.endswith("ki") for m in modes) else None
    docs = []
    for q in load_task2(root):
        options = [o for o in q["options"] if not o.get("is_abstention")]
        gold = q.get("gold") if isinstance(q.get("gold"), dict) else {}
        ranking = [sc.clean(x).upper() for x in gold.get("ranking") or []]
        labels = {sc.clean(k).upper(): sc.clean(v).lower() for k, v in (gold.get("decision_labels") or {}).items()}
        base = {
            "question_id": sc.clean(q["question_id"]).upper(),
            "input": input_name,
            "option_letters": [sc.clean(o.get("letter")).upper() for o in options],
            "image_urls": [] if input_name == "textonly" else [sc.clean(o.get("image_url")) for o in options],
            "image_root": str(root or ""),
            "gold_letter": sc.clean(q["answer"]["letter"]).upper(),
            "gold_ranking": [x for x in ranking if x in sc.LETTERS],
            "gold_labels": json.dumps(labels, sort_keys=True),
            "condition_prompt": " + ".join(sc.clean(c) for c in (q["prompt"].get("condition_labels") or []) if sc.clean(c)),
        }  # fmt: skip
        for mode in modes:
            for kind in kinds:
                docs.append({**base, "kind": kind, "mode": mode, "replay_key": f"{base['question_id']}:{kind}:{mode}",
                             "prompt": prompts.task2_prompt(q, kind, mode, input_name, rules)})  # fmt: skip
    return docs


@functools.lru_cache(maxsize=64)
def _prepared(task: str, modes: tuple, input_name: str, kinds: tuple, root: Path | None, stamp: tuple):  # type: ignore[no-untyped-def]
    if task == "task1":
        return _dataset(task1_docs(modes[0], input_name, root))
    return _dataset(task2_docs(kinds, modes, input_name, root))


def _stamp() -> tuple:
    return repo_and_commit() + (os.environ.get("FOOD_TASKS_DATA_DIR", ""), os.environ.get("FOOD_TASKS_CACHE_DIR", ""))


def prepare_docs(task: str, modes: Sequence[str], input_name: str, kinds: Sequence[str] = ("rank",),
                 root: Path | None = None):  # type: ignore[no-untyped-def]
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
    store = image_store(doc)
    return any(not url or not store.available(url) for url in doc.get("image_urls") or [])


# --------------------------------------------------------------------------- per-document records


def score_task1(doc: Mapping[str, Any], output: str) -> dict[str, Any]:
    gold = json.loads(doc["gold_rationale"])
    robust, official = sc.parse_task1(output), sc.parse_task1_official(output)
    counts, counts_off = sc.rationale_counts(robust["rationale"], gold), sc.rationale_counts(official["rationale"], gold)
    return {
        "index": doc["index"],
        "image_missing": images_missing(doc),
        "decision": robust["decision"],
        "correct": robust["decision"] == doc["gold_decision"],
        "correct_official": bool(official["decision"]) and official["decision"] == doc["gold_decision_official"],
        "json": robust["json"],
        "strict_json": official["strict_json"],
        "empty_rationale": not robust["rationale"],
        "empty_rationale_official": not official["rationale"],
        "focal": list(doc["focal"]),
        **counts,
        **{f"{k}_official": v for k, v in counts_off.items()},
    }


def score_task2(doc: Mapping[str, Any], output: str) -> dict[str, Any]:
    record = {"question_id": doc["question_id"], "kind": doc["kind"], "mode": doc["mode"],
              "image_missing": images_missing(doc), "gold_letter": doc["gold_letter"],
              "gold_ranking": list(doc["gold_ranking"]), "condition": doc["condition_prompt"]}  # fmt: skip
    if doc["kind"] == "rank":
        record["ranking"] = sc.parse_ranking(output)
        record["ranking_official"] = sc.parse_ranking_official(output)
        record["parsed_official"] = sc.rank_parsed_official(output)
    else:
        record["decisions"] = sc.parse_decisions(output)
        record["decisions_official"] = sc.parse_decisions_official(output)
        record["gold_labels"] = json.loads(doc["gold_labels"])
    return record


# --------------------------------------------------------------------------- aggregation


def evaluated(records: Iterable[Mapping[str, Any]], kind: str | None = None) -> list[Mapping[str, Any]]:
    """Records that count: images available (and of ``kind`` when given)."""
    return [r for r in records if not r["image_missing"] and (kind is None or r.get("kind", kind) == kind)]


def image_missing(records: Sequence[Mapping[str, Any]]) -> int:
    """Documents excluded because an image could not be fetched (Task 2 CTC: per question)."""
    if records and "kind" in records[0]:
        return len({r["question_id"] for r in records if r["image_missing"]})
    return sum(bool(r["image_missing"]) for r in records)


def pct(num: float, den: float) -> float:
    return (num / den) * 100.0 if den else 0.0


def pct_official(num: float, den: float) -> float:
    """The official Task 2 percentage: ``round((num / den) * 100.0, 2)`` (operation order matters at ties)."""
    return round((num / den) * 100.0, 2) if den > 0 else 0.0


def t1_acc(records, official: bool = False) -> float:  # type: ignore[no-untyped-def]
    rows = evaluated(records)
    return pct(sum(r["correct_official" if official else "correct"] for r in rows), len(rows))


def t1_rate(records, field: str) -> float:  # type: ignore[no-untyped-def]
    rows = evaluated(records)
    return metrics.safe_div(sum(bool(r[field]) for r in rows), len(rows))


def t1_invalid_rate(records) -> float:  # type: ignore[no-untyped-def]
    rows = evaluated(records)
    return metrics.safe_div(sum(r["decision"] is None for r in rows), len(rows))


def _counts(records, official: bool) -> list[dict]:  # type: ignore[no-untyped-def]
    suffix = "_official" if official else ""
    return [{k: r[k + suffix] for k in ("tp", "fp", "fn", "precision", "recall", "f1")} | {"focal": r["focal"]}
            for r in evaluated(records)]  # fmt: skip


def t1_macro(records, field: str = "f1", official: bool = False) -> float:  # type: ignore[no-untyped-def]
    """Official 'macro' rationale score: the mean of per-instance values over evaluated instances."""
    rows = _counts(records, official)
    return metrics.safe_div(sum(r[field] for r in rows), len(rows))


def t1_micro(records, which: int = 2, official: bool = False) -> float:  # type: ignore[no-untyped-def]
    return metrics.micro_prf(_counts(records, official))[which]


def t1_macro_by_condition(records, official: bool = False) -> float:  # type: ignore[no-untyped-def]
    return sc.macro_f1_by_condition(_counts(records, official), list(CONDITIONS))[0]


def t1_per_condition(records) -> dict[str, dict[str, float]]:  # type: ignore[no-untyped-def]
    rows = evaluated(records)
    table = {}
    for condition in list(CONDITIONS) + ["unmapped"]:
        group = [r for r in rows if condition in r["focal"] or (condition == "unmapped" and not r["focal"])]
        if group:
            table[condition] = {"n": len(group), "decision_acc": pct(sum(r["correct"] for r in group), len(group)),
                                "rationale_micro_f1": metrics.micro_prf(group)[2]}  # fmt: skip
    return table


def _rank_rows(records, mode: str | None = None):  # type: ignore[no-untyped-def]
    return [r for r in evaluated(records, "rank") if mode is None or r["mode"] == mode]


def t2_topk(records, k: int = 1, official: bool = False, mode: str | None = None) -> float:  # type: ignore[no-untyped-def]
    rows = _rank_rows(records, mode)
    key = "ranking_official" if official else "ranking"
    hits = sum(bool(r[key]) and r["gold_letter"] in r[key][:k] for r in rows)
    return pct_official(hits, len(rows)) if official else pct(hits, len(rows))


def t2_mrr(records, parsed_only: bool = False, mode: str | None = None) -> float:  # type: ignore[no-untyped-def]
    """Paper MRR over all questions (no valid ranking = 0), or the official parsed-only denominator."""
    rows = _rank_rows(records, mode)
    if parsed_only:
        rows = [r for r in rows if r["ranking"]]
    return metrics.safe_div(sum(metrics.reciprocal_rank(r["ranking"], r["gold_letter"]) for r in rows), len(rows))


def t2_mrr_official(records) -> float:  # type: ignore[no-untyped-def]
    """Official: per-row 1/rank rounded to 6 places, summed over ``parsed`` rows, / #parsed rows, rounded to 6.

    Officially a row is ``parsed`` with a valid ranking *or* any answer letter (then its 1/rank is 0)."""
    rows = [r for r in _rank_rows(records) if r["parsed_official"]]
    total = sum(round(metrics.reciprocal_rank(r["ranking_official"], r["gold_letter"]), 6) for r in rows)
    return round(total / len(rows), 6) if rows else 0.0


def t2_kendall(records) -> float:  # type: ignore[no-untyped-def]
    rows = [r for r in _rank_rows(records) if r["ranking"] and len(r["gold_ranking"]) == 4]
    return metrics.safe_div(sum(metrics.kendall_tau(r["ranking"], r["gold_ranking"]) for r in rows), len(rows))


def t2_valid_rate(records, kind: str = "rank", official: bool = False) -> float:  # type: ignore[no-untyped-def]
    rows = evaluated(records, kind)
    if kind == "rank":
        ok = [bool(r["parsed_official" if official else "ranking"]) for r in rows]
    elif official:
        ok = [r["decisions_official"] is not None for r in rows]
    else:
        ok = [all(v is not None for v in r["decisions"].values()) for r in rows]
    return metrics.safe_div(sum(ok), len(rows))


def t2_per_condition(records) -> dict[str, dict[str, float]]:  # type: ignore[no-untyped-def]
    rows = _rank_rows(records)
    table = {}
    for condition in sorted({r["condition"] for r in rows}):
        group = [r for r in rows if r["condition"] == condition]
        table[condition] = {"n": len(group), "top1_acc": t2_topk(group)}
    return table


def _option_rows(records, official: bool):  # type: ignore[no-untyped-def]
    """(predicted, gold) per option with a gold label; an unparsed official payload predicts nothing."""
    for r in evaluated(records, "decision"):
        decisions = (r["decisions_official"] or {}) if official else r["decisions"]
        yield r, [(decisions.get(x), r["gold_labels"][x]) for x in sc.LETTERS if r["gold_labels"].get(x)]


def t2_option_acc(records, official: bool = False) -> float:  # type: ignore[no-untyped-def]
    pairs = [p for _, options in _option_rows(records, official) for p in options]
    return (pct_official if official else pct)(sum(pred == gold for pred, gold in pairs), len(pairs))


def t2_exact_match(records, official: bool = False) -> float:  # type: ignore[no-untyped-def]
    rows = list(_option_rows(records, official))
    hits = sum(bool(options) and all(pred == gold for pred, gold in options) for _, options in rows)
    return (pct_official if official else pct)(hits, len(rows))


def t2_false_recommend(records, official: bool = False) -> float:  # type: ignore[no-untyped-def]
    pairs = [p for _, options in _option_rows(records, official) for p in options]
    return (pct_official if official else pct)(sum(p == "recommend" and g == "not_recommend" for p, g in pairs), len(pairs))


def ctc_table(records, modes: Sequence[str], official: bool = False) -> tuple[dict[str, float], int, dict[str, int]]:  # type: ignore[no-untyped-def]
    """CTC per mode over the pool of questions with a valid ranking and four valid decisions in *every*
    mode of ``modes`` (one mode: the paper's rule restricted to that mode). Returns (ctc by mode, pool
    size, discriminating pairs by mode)."""
    by_q: dict[str, dict[tuple[str, str], Mapping]] = {}
    for r in records:
        if not r["image_missing"]:
            by_q.setdefault(r["question_id"], {})[(r["mode"], r["kind"])] = r

    def valid(q: Mapping, mode: str) -> tuple[list[str], dict[str, str]] | None:
        rank, dec = q.get((mode, "rank")), q.get((mode, "decision"))
        if rank is None or dec is None:
            return None
        ranking = rank["ranking_official"] if official else rank["ranking"]
        decisions = dec["decisions_official"] if official else dec["decisions"]
        if not ranking or not decisions or any(decisions.get(x) is None for x in sc.LETTERS):
            return None
        return ranking, decisions

    pool = {qid: [valid(q, m) for m in modes] for qid, q in by_q.items()}
    pool = {qid: v for qid, v in pool.items() if all(x is not None for x in v)}
    values, pairs = {}, {}
    for i, mode in enumerate(modes):
        counted = [sc.consistency_pairs(*v[i]) for v in pool.values()]  # type: ignore[misc]
        values[mode], pairs[mode] = sc.ctc(counted), sum(p for _, p in counted)
    return values, len(pool), pairs


def ctc_value(records, modes: Sequence[str] | None = None, mode: str | None = None, field: str = "ctc",
              official: bool = False) -> float:  # type: ignore[no-untyped-def]
    """One number of :func:`ctc_table`: ``ctc`` of ``mode``, the ``pool`` size or the ``pairs`` count.

    ``modes=None``: the modes present in the records (a single-mode CTC task)."""
    modes = tuple(modes) if modes else tuple(sorted({r["mode"] for r in records}))
    mode = mode or modes[0]
    values, pool, pairs = ctc_table(records, modes, official)
    return {"ctc": values[mode], "pool": pool, "pairs": pairs[mode]}[field]
