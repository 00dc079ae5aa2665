"""WorldCuisines (WC-VQA): data preparation, per-document scoring and aggregation.

Paper: Winata et al., "WorldCuisines: A Massive-Scale Benchmark for Multilingual
and Multicultural Visual Question Answering on Global Cuisines", NAACL 2025
(arXiv:2410.12705). Code: github.com/worldcuisines/worldcuisines (Apache-2.0).
Data: hf.co/datasets/worldcuisines/vqa (questions), hf.co/datasets/worldcuisines/food-kb
(images), CC BY-SA 4.0.

What this module implements (see yaml_tasks/worldcuisines/README.md):

* documents: config ``task1``/``task2`` of ``worldcuisines/vqa``, split
  ``test_large`` / ``test_small``, or the "smallref" selection of test_large rows
  that the published "Test Small" leaderboard was computed on; each doc gets the
  parsed MCQ options and the OEQ reference set of its ``qa_id`` (all 30
  languages, taken from the whole split before any language filter);
* images: joined from the food-kb dataset by exact ``image_url``;
* scoring: robust and official MCQ parsing, OEQ substring matching in the
  multi / single / dual reference modes, BERTScore;
* aggregation: per language first, then the unweighted mean over languages
  (the official macro average), official rounding for ``_official`` metrics.
"""

from __future__ import annotations

import functools
import os
from pathlib import Path
from typing import TYPE_CHECKING, Any, Sequence

from food_tasks import bertscore, data, metrics, parsing

if TYPE_CHECKING:  # pragma: no cover
    import datasets
    from PIL import Image

VQA_REPO = "worldcuisines/vqa"
KB_REPO = "worldcuisines/food-kb"
KB_SPLIT = "main"
KB_IMAGE_COLUMNS = tuple((f"image{i}_url", f"image{i}") for i in range(1, 9))
REVISION_ENV = "FOOD_TASKS_WORLDCUISINES_REVISION"
LANGS_ENV = "FOOD_TASKS_WORLDCUISINES_LANGS"

# The 30 language varieties, in the order of the dataset files (spec §2.1).
# "nan" is Hokkien (written), not a missing value.
LANGUAGES = (
    "en", "id_formal", "id_casual", "zh_cn", "ko_formal", "ko_casual", "ja_formal", "ja_casual", "su_loma",
    "jv_krama", "jv_ngoko", "cs", "es", "fr", "ar", "hi", "bn", "mr", "si_formal_spoken", "yo", "yue", "nan",
    "nan_spoken", "tl", "th", "az", "ru_formal", "ru_casual", "it", "sc",
)  # fmt: skip

# subtask name -> (dataset config, prompt_type)
SUBTASKS = {
    "1a_nocontext": ("task1", "1"),
    "1b_contextualized": ("task1", "3"),
    "1c_adversarial": ("task1", "4"),
    "2_location": ("task2", "2"),
}
SPLITS = {"large": "test_large", "small": "test_small"}
# Fallback when the dataset card declares no configs: the per-language files.
SPLIT_FILES = {
    ("task1", "test_large"): "hf_prompt/large_eval_task1/*.jsonl",
    ("task2", "test_large"): "hf_prompt/large_eval_task2/*.jsonl",
    ("task1", "test_small"): "hf_prompt/small_eval_task1/*.jsonl",
    ("task2", "test_small"): "hf_prompt/small_eval_task2/*.jsonl",
}
STRING_FIELDS = ("qa_id", "lang", "food_id", "prompt_id", "prompt_type")


def revision() -> str:
    """Hub revision of both datasets (``$FOOD_TASKS_WORLDCUISINES_REVISION``, default ``main``)."""
    return os.environ.get(REVISION_ENV, "").strip() or "main"


def selected_languages() -> tuple[str, ...] | None:
    """Languages chosen with ``$FOOD_TASKS_WORLDCUISINES_LANGS`` (comma-separated), or None for all 30."""
    value = os.environ.get(LANGS_ENV, "").strip()
    if not value:
        return None
    langs = tuple(x.strip() for x in value.split(",") if x.strip())
    unknown = sorted(set(langs) - set(LANGUAGES))
    if unknown:
        raise ValueError(f"{LANGS_ENV}: unknown language code(s) {unknown}; valid codes: {', '.join(LANGUAGES)}")
    return langs


@functools.lru_cache(maxsize=8)
def load_split(config: str, split: str, root: Path | None = None) -> "datasets.Dataset":
    """Load one config/split of ``worldcuisines/vqa`` (hub or mirror), checked and cached per process."""
    ds = data.load_hub_split(VQA_REPO, config, split, revision=revision(), data_files=SPLIT_FILES[(config, split)], root=root)
    required = {"qa_id", "lang", "food_id", "prompt_id", "prompt_type", "multi_choice_prompt", "open_ended_prompt",
                "image_url", "answer", "multi_choice_answer"}  # fmt: skip
    missing = sorted(required - set(ds.column_names))
    if missing:
        raise data.DataAccessError(f"{VQA_REPO} {config}/{split}: missing column(s) {missing}; found {ds.column_names}")
    # Ids must be strings: a reader that inferred numbers (or NaN for Hokkien "nan") would break joins.
    wrong = [c for c in STRING_FIELDS if ds.features[c].dtype != "string"]
    if wrong:
        import datasets

        ds = ds.cast(ds.features.copy() | {c: datasets.Value("string") for c in wrong})
    return ds


def _col(ds: "datasets.Dataset", name: str) -> list:
    """One column as a Python list, read through Arrow (datasets 5.x row-wise column reads are ~100x slower)."""
    return ds.with_format("arrow")[name].to_pylist()


def _select(ds: "datasets.Dataset", column: str, keep: Any) -> "datasets.Dataset":
    return ds.select([i for i, v in enumerate(_col(ds, column)) if keep(v)])


def prepare_docs(split_kind: str, subtask: str, root: Path | None = None, languages: Sequence[str] | None = None) -> "datasets.Dataset":
    """Documents of one subtask (see :func:`_prepare_docs`), built once per process: the MCQ and
    OEQ tasks of a subtask share them. ``root`` defaults to ``$FOOD_TASKS_DATA_DIR``, ``languages``
    to ``$FOOD_TASKS_WORLDCUISINES_LANGS`` (all 30 when unset)."""
    root = root if root is not None else data.mirror_root()
    languages = tuple(languages) if languages is not None else selected_languages()
    return _prepare_docs(split_kind, subtask, root, languages)


@functools.lru_cache(maxsize=16)
def _prepare_docs(split_kind: str, subtask: str, root: Path | None, languages: tuple[str, ...] | None) -> "datasets.Dataset":
    """Build the documents of one subtask.

    Args:
        split_kind: ``large`` (test_large), ``small`` (HF test_small) or ``smallref``
            (the test_large rows matching test_small by food_id, prompt_id and image_url,
            on which the published "Test Small" numbers were computed).
        subtask: a key of :data:`SUBTASKS`.
        root: mirror root, or None for the hub; sample tasks pass theirs.
        languages: keep only these languages, or None for all.

    Returns:
        The rows as published plus ``options`` (MCQ option texts), ``answers_all``
        (the qa_id's distinct answers over all languages of the split) and
        ``answer_en`` (its English answer, "" if none).
    """
    config, prompt_type = SUBTASKS[subtask]
    if split_kind == "smallref":
        ds = load_split(config, "test_large", root)
        small = load_split(config, "test_small", root)
        small_keys = zip(_col(small, "food_id"), _col(small, "prompt_id"), _col(small, "image_url"))
        keys = {k for k, p in zip(small_keys, _col(small, "prompt_type")) if p == prompt_type}
        triples = zip(_col(ds, "food_id"), _col(ds, "prompt_id"), _col(ds, "image_url"))
        ds = ds.select([i for i, (k, p) in enumerate(zip(triples, _col(ds, "prompt_type"))) if p == prompt_type and k in keys])
    else:
        ds = _select(load_split(config, SPLITS[split_kind], root), "prompt_type", prompt_type.__eq__)

    answers: dict[str, list[str]] = {}
    english: dict[str, str] = {}
    for qa_id, lang, answer in zip(_col(ds, "qa_id"), _col(ds, "lang"), _col(ds, "answer")):
        refs = answers.setdefault(qa_id, [])
        if answer is not None and answer not in refs:
            refs.append(answer)
        if lang == "en" and answer is not None:
            english.setdefault(qa_id, answer)

    if languages is not None:
        wanted = set(languages)
        ds = _select(ds, "lang", wanted.__contains__)
    qa_ids = _col(ds, "qa_id")
    ds = ds.add_column("options", [parsing.parse_mcq_options(p) for p in _col(ds, "multi_choice_prompt")])
    ds = ds.add_column("answers_all", [answers[q] for q in qa_ids])
    return ds.add_column("answer_en", [english.get(q, "") for q in qa_ids])


def kb_image(url: str, root: Path | None = None) -> "Image.Image":
    """The food-kb image stored for ``url`` (exact match, including ``?download``), as RGB."""
    root = root if root is not None else data.mirror_root()
    store = data.hub_image_store(KB_REPO, KB_SPLIT, KB_IMAGE_COLUMNS, revision(), root)
    return store.get(url)


# ---------------------------------------------------------------- per-document scoring


def score_mcq(doc: dict, response: str) -> dict[str, Any]:
    """One record per MCQ document: robust and official correctness, parse outcome."""
    parsed = parsing.extract_mcq_choice(response, doc["options"])
    gold = int(doc["multi_choice_answer"])
    return {
        "qa_id": doc["qa_id"],
        "lang": doc["lang"],
        "parsed": parsed,
        "gold": gold,
        "correct": parsed == gold,
        "invalid": parsed is None,
        "correct_official": parsing.official_mcq_correct(response, doc["multi_choice_prompt"], gold),
    }


def score_oeq(doc: dict, response: str) -> dict[str, Any]:
    """One record per OEQ document: the three reference modes, robust, official and strict."""
    own = [doc["answer"]]
    dual = own + ([doc["answer_en"]] if doc["answer_en"] else [])
    refs = doc["answers_all"]
    return {
        "qa_id": doc["qa_id"],
        "lang": doc["lang"],
        "prediction": response,
        "reference": doc["answer"],
        "multi": parsing.oeq_match(response, refs),
        "single": parsing.oeq_match(response, own),
        "dual": parsing.oeq_match(response, dual),
        "multi_strict": parsing.oeq_match_strict(response, refs),
        "multi_official": parsing.oeq_match_official(response, refs),
        "single_official": parsing.oeq_match_official(response, own),
        "dual_official": parsing.oeq_match_official(response, dual),
    }


# ---------------------------------------------------------------- aggregation


def macro(field: str, items: Sequence[dict]) -> float:
    """Percent of ``field`` per language, then the unweighted mean over languages."""
    return metrics.macro_percent(items, field, "lang")[0]


def macro_official(field: str, items: Sequence[dict]) -> float:
    """The official MCQ value: per-language percent rounded to 2, mean rounded to 2 (Python ``round``:
    ``score_mc`` computes with Python ints and floats)."""
    return metrics.macro_percent_official(items, field, "lang")[0]


def macro_official_oeq(field: str, items: Sequence[dict]) -> float:
    """The official OEQ value: as :func:`macro_official` with ``numpy.round`` semantics (``score_oe``
    rounds the ``numpy.float64`` of a pandas sum; ties such as 17.575 go to even on the scaled value)."""
    return metrics.macro_percent_official(items, field, "lang", rounding=metrics.round_numpy)[0]


def invalid_rate(items: Sequence[dict]) -> float:
    """Percent of documents whose answer the robust parser could not read (micro)."""
    return metrics.percent_true(items, "invalid")


def per_language_mcq(items: Sequence[dict]) -> dict[str, dict[str, float]]:
    return metrics.per_group_table(items, "lang", {
        "acc": lambda rs: metrics.percent_true(rs, "correct"),
        "acc_official": lambda rs: round(metrics.percent_true(rs, "correct_official"), 2),
        "invalid_rate": lambda rs: metrics.percent_true(rs, "invalid"),
    })  # fmt: skip


def per_language_oeq(items: Sequence[dict]) -> dict[str, dict[str, float]]:
    columns = {f"acc_{m}": functools.partial(metrics.percent_true, field=m) for m in ("multi", "single", "dual", "multi_strict")}
    columns |= {
        f"acc_{m}_official": (lambda rs, f=f"{m}_official": metrics.round_numpy(metrics.percent_true(rs, f), 2)) for m in ("multi", "single", "dual")
    }
    return metrics.per_group_table(items, "lang", columns)


def _bertscore_cells(items: Sequence[dict]) -> dict[str, float] | None:
    f1 = bertscore.f1_scores([str(r["prediction"]) for r in items], [str(r["reference"]) for r in items])
    if f1 is None:
        return None
    scored = [{"lang": r["lang"], "f1": 100.0 * f} for r, f in zip(items, f1)]
    return metrics.macro_mean(scored, "f1", "lang")[1]


def bertscore_f1(items: Sequence[dict]) -> float:
    """BERTScore F1 x100: mean per language (own-language reference), then mean over languages; NaN if unavailable."""
    cells = _bertscore_cells(items)
    return metrics.mean(list(cells.values())) if cells is not None else float("nan")


def per_language_bertscore(items: Sequence[dict]) -> dict[str, float]:
    cells = _bertscore_cells(items)
    return {str(k): v for k, v in sorted(cells.items())} if cells is not None else {}
