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
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from loguru import logger

from food_tasks.benchmarks.worldcuisines import parsing
from food_tasks.data import hub as data
from food_tasks.data import images

CACHES = ("load_split", "_prepare_docs")  # what food_tasks.reset() clears in this module

if TYPE_CHECKING:  # pragma: no cover
    import datasets
    from PIL import Image

VQA_REPO = "worldcuisines/vqa"
KB_REPO = "worldcuisines/food-kb"
KB_SPLIT = "main"
KB_IMAGE_COLUMNS = tuple((f"image{i}_url", f"image{i}") for i in range(1, 9))
REVISION_ENV = "FOOD_TASKS_WORLDCUISINES_REVISION"
LANGS_ENV = "FOOD_TASKS_WORLDCUISINES_LANGS"

# The 30 language varieties, in the order of the dataset files (the ``langs`` list of the official generator,
# worldcuisines/worldcuisines@d4d1c44 ``generate_vqa/generate_prompts.py``).
# "nan" is Hokkien (written), not a missing value.
LANGUAGES = (
    "en",
    "id_formal",
    "id_casual",
    "zh_cn",
    "ko_formal",
    "ko_casual",
    "ja_formal",
    "ja_casual",
    "su_loma",
    "jv_krama",
    "jv_ngoko",
    "cs",
    "es",
    "fr",
    "ar",
    "hi",
    "bn",
    "mr",
    "si_formal_spoken",
    "yo",
    "yue",
    "nan",
    "nan_spoken",
    "tl",
    "th",
    "az",
    "ru_formal",
    "ru_casual",
    "it",
    "sc",
)

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
# Items (qa_ids) per (subtask, language) cell, counted in the published ``worldcuisines/vqa`` files.
PUBLISHED_ITEMS = {"large": 500, "small": 100, "smallref": 100}
# qa_id ranges per (config, split), read from the published ``worldcuisines/vqa`` files.
PUBLISHED_QA_RANGES = {
    ("task1", "test_large"): (400, 1899),
    ("task2", "test_large"): (1900, 2399),
    ("task1", "test_small"): (0, 299),
    ("task2", "test_small"): (300, 399),
}


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
        raise data.DataSettingError(
            f"{LANGS_ENV}: unknown language code(s) {unknown}; valid codes: {', '.join(LANGUAGES)}"
        )
    return langs


@functools.lru_cache(maxsize=8)
def load_split(config: str, split: str, root: Path | None = None) -> datasets.Dataset:
    """Load one config/split of ``worldcuisines/vqa`` (hub or mirror), checked and cached per process."""
    ds = data.load_hub_split(
        VQA_REPO, config, split, revision=revision(), data_files=SPLIT_FILES[(config, split)], root=root
    )
    required = {
        "qa_id",
        "lang",
        "food_id",
        "prompt_id",
        "prompt_type",
        "multi_choice_prompt",
        "open_ended_prompt",
        "image_url",
        "answer",
        "multi_choice_answer",
    }
    missing = sorted(required - set(ds.column_names))
    if missing:
        raise data.DataAccessError(f"{VQA_REPO} {config}/{split}: missing column(s) {missing}; found {ds.column_names}")
    # Ids must be strings: a reader that inferred numbers (or NaN for Hokkien "nan") would break joins.
    wrong = [c for c in STRING_FIELDS if ds.features[c].dtype != "string"]
    if wrong:
        import datasets

        ds = ds.cast(ds.features.copy() | {c: datasets.Value("string") for c in wrong})
    return ds


def _split_folder(config: str, split: str) -> str:
    """``hf_prompt/large_eval_task1`` for ``("task1", "test_large")``."""
    return SPLIT_FILES[(config, split)].rsplit("/", 1)[0]


def language_file(config: str, split: str, lang: str) -> str:
    """The repository path of one language file, e.g. ``hf_prompt/large_eval_task1/en_large_eval_task1.jsonl``."""
    folder = _split_folder(config, split)
    return f"{folder}/{lang}_{folder.rsplit('/', 1)[1]}.jsonl"


def check_mirror_files(config: str, split: str, root: Path | None, languages: Sequence[str]) -> None:
    """Before anything is loaded: a mirror must hold the split folder and one non-empty file per language.

    A missing language file would otherwise silently shrink the benchmark (the split is the
    concatenation of whatever files exist). No-op without a mirror.

    Raises:
        DataAccessError: naming the missing folder or files and how to fix them.
    """
    local = data.hub_mirror_dir(VQA_REPO, root)
    if local is None:
        return
    folder = _split_folder(config, split)
    fix = (
        f"Copy them from the dataset repository, e.g. `{data.hf_download_command(VQA_REPO, local)} "
        f"--include '{folder}/*'`, or evaluate a subset of languages on purpose with {LANGS_ENV}=<codes>."
    )
    if not (local / folder).is_dir():
        raise data.DataAccessError(
            f"{VQA_REPO} {config}/{split}: the split folder {local / folder} is missing from the mirror "
            f"(expected {len(languages)} files {language_file(config, split, '<lang>')}). {fix}"
        )
    paths = [local / language_file(config, split, lang) for lang in languages]
    missing = [str(path) for path in paths if not path.is_file() or path.stat().st_size == 0]
    if missing:
        raise data.DataAccessError(
            f"{VQA_REPO} {config}/{split}: {len(missing)} of the {len(languages)} expected language files are missing "
            f"or empty in the mirror: {', '.join(missing)}. {fix}"
        )


def check_documents(
    ds: datasets.Dataset, split_kind: str, subtask: str, languages: Sequence[str], *, from_hub: bool
) -> None:
    """Every expected language holds the same items (qa_ids), once each, as the benchmark defines them.

    On hub data the number of items must also be the published one (500 per cell in test_large, 100
    in test_small and smallref); mirrors and samples may hold fewer, but still all languages alike.

    Raises:
        DataAccessError: naming the subtask, the language, its file and the first missing qa_ids.
    """
    config, _ = SUBTASKS[subtask]
    split = "test_small" if split_kind == "small" else "test_large"
    by_lang: dict[str, set[str]] = {}
    for qa_id, lang in zip(_col(ds, "qa_id"), _col(ds, "lang")):
        seen = by_lang.setdefault(lang, set())
        if qa_id in seen:
            raise data.DataAccessError(
                f"{VQA_REPO} {config}/{split} subtask {subtask}: qa_id {qa_id} appears twice for language {lang!r} "
                f"(file {language_file(config, split, lang)}): a duplicated or concatenated file."
            )
        seen.add(qa_id)
    unknown = sorted(set(by_lang) - set(LANGUAGES))
    if unknown:
        raise data.DataAccessError(
            f"{VQA_REPO} {config}/{split} subtask {subtask}: rows in language(s) {unknown} that the benchmark does not "
            f"have (files {', '.join(language_file(config, split, str(lang)) for lang in unknown)}?); they would enter "
            f"the average over languages. Remove them; the {len(LANGUAGES)} codes are: {', '.join(LANGUAGES)}."
        )
    absent = [lang for lang in languages if lang not in by_lang]
    if absent:
        raise data.DataAccessError(
            f"{VQA_REPO} {config}/{split} subtask {subtask}: no rows for language(s) {', '.join(absent)} "
            f"(files {', '.join(language_file(config, split, lang) for lang in absent)}); the benchmark has all "
            f"{len(LANGUAGES)} languages in every subtask. Restore the files, or select languages with "
            f"{LANGS_ENV}=<codes>."
        )
    items = set().union(*(by_lang[lang] for lang in languages))
    for lang in languages:
        lacking = items - by_lang[lang]
        if lacking:
            first = ", ".join(sorted(lacking, key=lambda q: (len(q), q))[:5])
            raise data.DataAccessError(
                f"{VQA_REPO} {config}/{split} subtask {subtask}: language {lang!r} lacks {len(lacking)} of the "
                f"{len(items)} items the other languages have (qa_id {first}{', ...' if len(lacking) > 5 else ''}): "
                f"its file {language_file(config, split, lang)} is truncated or damaged."
            )
    if from_hub:
        low, high = PUBLISHED_QA_RANGES[(config, split)]
        outside = sorted(q for q in items if not (q.isdigit() and low <= int(q) <= high))
        if len(items) != PUBLISHED_ITEMS[split_kind] or outside:
            raise data.DataAccessError(
                f"{VQA_REPO} {config}/{split} subtask {subtask} (revision {revision()}): {len(items)} items "
                "per language"
                + (f", {len(outside)} qa_id(s) outside {low}-{high} (first: {outside[0]})" if outside else "")
                + f"; the published benchmark has {PUBLISHED_ITEMS[split_kind]} per language with qa_ids "
                f"{low}-{high}. Pin the published revision with {REVISION_ENV}."
            )


def _col(ds: datasets.Dataset, name: str) -> list:
    """One column as a Python list, read through Arrow (datasets 5.x row-wise column reads are ~100x slower)."""
    return ds.with_format("arrow")[name].to_pylist()


def _select(ds: datasets.Dataset, column: str, keep: Any) -> datasets.Dataset:
    return ds.select([i for i, v in enumerate(_col(ds, column)) if keep(v)])


def prepare_docs(
    split_kind: str, subtask: str, root: Path | None = None, languages: Sequence[str] | None = None
) -> datasets.Dataset:
    """Documents of one subtask (see :func:`_prepare_docs`), built once per process: the MCQ and
    OEQ tasks of a subtask share them. ``root`` defaults to ``$FOOD_TASKS_DATA_DIR``, ``languages``
    to ``$FOOD_TASKS_WORLDCUISINES_LANGS`` (all 30 when unset). The data must hold every one of
    these languages, with the same items in each (:func:`check_documents`)."""
    root = root if root is not None else data.mirror_root()
    languages = tuple(languages) if languages is not None else selected_languages()
    return _prepare_docs(split_kind, subtask, root, languages)


@functools.lru_cache(maxsize=16)
def _prepare_docs(
    split_kind: str, subtask: str, root: Path | None, languages: tuple[str, ...] | None
) -> datasets.Dataset:
    """Build and check the documents of one subtask; load the food-kb images' index.

    Args:
        split_kind: ``large`` (test_large), ``small`` (HF test_small) or ``smallref``
            (the test_large rows matching test_small by food_id, prompt_id and image_url,
            on which the published "Test Small" numbers were computed).
        subtask: a key of :data:`SUBTASKS`.
        root: mirror root, or None for the hub; sample tasks pass theirs.
        languages: keep only these languages, or None for all.

    Returns:
        The rows as published plus ``options`` (MCQ option texts), ``options_status`` (:func:`options_status`),
        ``answers_all`` (the qa_id's distinct answers over all languages of the split) and
        ``answer_en`` (its English answer, "" if none).
    """
    config, prompt_type = SUBTASKS[subtask]
    expected = languages if languages is not None else LANGUAGES
    for split in ("test_large", "test_small") if split_kind == "smallref" else (SPLITS[split_kind],):
        check_mirror_files(config, split, root, expected)
    if split_kind == "smallref":
        ds = load_split(config, "test_large", root)
        small = load_split(config, "test_small", root)
        small_keys = zip(_col(small, "food_id"), _col(small, "prompt_id"), _col(small, "image_url"))
        keys = {k for k, p in zip(small_keys, _col(small, "prompt_type")) if p == prompt_type}
        triples = zip(_col(ds, "food_id"), _col(ds, "prompt_id"), _col(ds, "image_url"))
        ds = ds.select(
            [i for i, (k, p) in enumerate(zip(triples, _col(ds, "prompt_type"))) if p == prompt_type and k in keys]
        )
    else:
        ds = _select(load_split(config, SPLITS[split_kind], root), "prompt_type", prompt_type.__eq__)
    check_documents(ds, split_kind, subtask, expected, from_hub=data.hub_mirror_dir(VQA_REPO, root) is None)

    answers: dict[str, list[str]] = {}
    english: dict[str, str] = {}
    english_options: dict[str, list[str]] = {}
    prompts = _col(ds, "multi_choice_prompt")
    for qa_id, lang, answer, prompt in zip(_col(ds, "qa_id"), _col(ds, "lang"), _col(ds, "answer"), prompts):
        refs = answers.setdefault(qa_id, [])
        if answer is not None and answer not in refs:
            refs.append(answer)
        if lang == "en" and answer is not None:
            english.setdefault(qa_id, answer)
        if lang == "en":
            english_options.setdefault(qa_id, parsing.parse_mcq_options(prompt))

    if languages is not None:
        wanted = set(languages)
        ds = _select(ds, "lang", wanted.__contains__)
    qa_ids = _col(ds, "qa_id")
    # The image index is built now (URL columns only), so a missing or damaged food-kb stops the run
    # before generation; URLs it lacks are announced here and counted as image_missing when scored.
    store = kb_store(root)
    absent = sorted({u for u in _col(ds, "image_url") if u not in store})
    if absent:
        logger.warning(
            f"WorldCuisines {split_kind} {subtask}: {len(absent)} image URL(s) are not in {store.source} "
            f"(first: {absent[0]!r}); their documents are excluded from every denominator and counted in image_missing."
        )
    options = [parsing.parse_mcq_options(p) for p in _col(ds, "multi_choice_prompt")]
    ds = ds.add_column("options", options)
    ds = ds.add_column(
        "options_status",
        [options_status(o, english_options.get(q), lang) for o, q, lang in zip(options, qa_ids, _col(ds, "lang"))],
    )
    ds = ds.add_column("answers_all", [answers[q] for q in qa_ids])
    ds = ds.add_column("answer_en", [english.get(q, "") for q in qa_ids])
    return ds.add_column("kb_root", [str(root) if root is not None else ""] * len(ds))


def options_status(options: Sequence[str], english: Sequence[str] | None, lang: str) -> str:
    """Whether a row's option strings are the English row's (``lang_status`` "mixed" says options fall back to
    English where no translation exists): ``english`` (all equal), ``partly``, ``translated`` (none equal);
    ``reference`` for English rows, ``unknown`` when the split has no English row for the item."""
    if lang == "en":
        return "reference"
    if english is None:
        return "unknown"
    same = sum(a == b for a, b in zip(options, english))
    return "english" if same == len(options) == len(english) else "translated" if same == 0 else "partly"


def kb_store(root: Path | None = None) -> data.ImageStore:
    """The food-kb image index (built once per process; reads the URL columns only)."""
    root = root if root is not None else data.mirror_root()
    return data.hub_image_store(KB_REPO, KB_SPLIT, KB_IMAGE_COLUMNS, revision(), root)


def kb_image(url: str, root: Path | None = None) -> Image.Image:
    """The food-kb image stored for ``url`` (exact match, including ``?download``), as RGB.

    Raises:
        DataAccessError: the URL is not in food-kb; CorruptImageError: its bytes do not decode.
    """
    return kb_store(root).get(url)


# Undecodable images follow the one rule of food_tasks.data.images: doc_images (called when the model asks for the
# image) records a failure; image_missing reads the record, or checks the header for models that never ask
# (food_tasks_replay), so re-scoring 60k documents decodes no image.
LABEL = "WorldCuisines"


def _doc_root(doc: Mapping[str, Any]) -> Path | None:
    return Path(doc["kb_root"]) if doc.get("kb_root") else None


def _key(doc: Mapping[str, Any]) -> str:
    return f"worldcuisines\0{doc.get('kb_root') or ''}\0{doc['image_url']}"


def doc_images(doc: Mapping[str, Any]) -> list:
    """``[image]`` for the document, or ``[]`` when its image cannot be loaded (counted at scoring)."""
    image = images.load(_key(doc), lambda: kb_image(doc["image_url"], _doc_root(doc)), LABEL)
    return [image] if image is not None else []


def image_missing(doc: Mapping[str, Any]) -> bool:
    """True when the document's image could not be loaded (such documents leave every denominator)."""
    return images.missing([_key(doc)], lambda _key: kb_store(_doc_root(doc)).probe(doc["image_url"]), LABEL)
