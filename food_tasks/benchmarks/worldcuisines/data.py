"""WorldCuisines data: the ``worldcuisines/vqa`` splits, the document preparation and the food-kb images.

Documents: config ``task1``/``task2`` of ``worldcuisines/vqa``, split ``test_large`` / ``test_small``, or
the "smallref" selection of test_large rows that the published "Test Small" leaderboard was computed on;
each doc gets the parsed MCQ options and the OEQ reference set of its ``qa_id`` (all 30 languages, taken
from the whole split before any language filter). Images are joined from the food-kb dataset by exact
``image_url``.
"""

from __future__ import annotations

import functools
import os
from pathlib import Path
from typing import TYPE_CHECKING, Any, Sequence

from food_tasks import data
from food_tasks.benchmarks.worldcuisines import parsing

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
