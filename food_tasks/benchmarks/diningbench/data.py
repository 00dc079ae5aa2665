"""DiningBench data: the published JSONL files and ``images.tar.gz`` of the hub dataset, documents, images.

Sources, in order: the ``$FOOD_TASKS_DATA_DIR/meituan/DiningBench/`` mirror (the repository's own file
names; the image tree may be extracted there already as ``images/`` or left as ``images.tar.gz``), else
the Hugging Face Hub through ``huggingface_hub`` (its cache, its download locks). Nothing is converted or
re-published (CC BY-NC-ND 4.0): the JSONL files are read line by line in their own order (the official
scorers align rows by position) and the archive is extracted once into the food-tasks cache.

Extraction is safe with several ranks starting at once: one process extracts into a temporary
directory under a file lock, writes a completion marker, then renames the tree into place; other
processes wait on the lock; a tree without the marker (an interrupted run) is never trusted.

Image paths are resolved as the official ``resolve_dataset_image_path`` resolves them against the
JSONL directory: absolute paths as they are, relative paths (``images/...``) under the directory where
the JSONL files and the extracted ``images/`` tree sit together. A selected image that does not exist
is an error raised when the documents are built (before any generation), naming the row and path. An
image that exists but cannot be decoded is found when the model asks for it: it is left out of the request
and the document is counted in ``image_missing`` (docs/failure_accounting.md).
"""

from __future__ import annotations

import functools
import json
import logging
import os
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from food_tasks.data import images
from food_tasks.data.archive import archive_key, extract_once
from food_tasks.data.hub import DATA_DIR_ENV, DataAccessError, hub_mirror_dir
from food_tasks.data.remote import cache_root

CACHES = ("_prepared",)  # what food_tasks.reset() clears in this module

if TYPE_CHECKING:  # pragma: no cover
    import datasets
    from PIL import Image as PILImage

REPO_ID = "meituan/DiningBench"
REVISION_ENV = "FOOD_TASKS_DININGBENCH_REVISION"  # a hub revision (branch, tag, commit); default: main
MODEL_NAME_ENV = "FOOD_TASKS_DININGBENCH_MODEL_NAME"  # the official --model_name (reasoning clean-up table)
ARCHIVE = "images.tar.gz"
FILES = {
    ("cls", "zh"): "classification.jsonl",
    ("cls", "en"): "classification_en.jsonl",
    ("nutrition", "zh"): "nutrition.jsonl",
    ("nutrition", "en"): "nutrition_en.jsonl",
    ("vqa", "zh"): "vqa.jsonl",
    ("vqa", "en"): "vqa_en.jsonl",
}
logger = logging.getLogger(__name__)


def official_model_name() -> str:
    """The model name that selects the official reasoning clean-up (``$FOOD_TASKS_DININGBENCH_MODEL_NAME``)."""
    return os.environ.get(MODEL_NAME_ENV, "").strip()


# --------------------------------------------------------------------------- files


def _hub_file(filename: str, root: Path | None = None) -> Path:
    """Local path of one repository file: from the mirror, else downloaded (cached) from the Hub."""
    local = hub_mirror_dir(REPO_ID, root)
    if local is not None:
        path = local / filename
        if not path.is_file():
            present = sorted(p.name for p in local.iterdir())
            raise DataAccessError(
                f"{REPO_ID}: {path} does not exist in the mirror (it holds {present[:12]}). Copy the dataset "
                f"repository there with its own file names: `hf download {REPO_ID} --repo-type dataset "
                f"--local-dir {local}`."
            )
        return path
    from huggingface_hub import constants, hf_hub_download
    from huggingface_hub.errors import LocalEntryNotFoundError

    from food_tasks.data import remote

    revision = os.environ.get(REVISION_ENV, "").strip() or None
    try:
        return Path(hf_hub_download(REPO_ID, filename, repo_type="dataset", revision=revision, local_files_only=True))
    except LocalEntryNotFoundError:
        pass
    if remote.offline():  # our switches, read now: no request at all (huggingface_hub read its own at import)
        raise DataAccessError(
            f"{REPO_ID}: {filename} is not in the Hugging Face cache and offline mode is on "
            f"({' / '.join(remote.OFFLINE_ENVS)}). Unset it to download, or mirror the dataset repository under "
            f"${DATA_DIR_ENV}/{REPO_ID}/ with its own file names: `hf download {REPO_ID} --repo-type dataset "
            "--local-dir <dir>` on a machine online."
        )
    reason = remote.unreachable(constants.ENDPOINT)
    if reason is not None:
        raise DataAccessError(
            f"{REPO_ID}: {filename} is not in the Hugging Face cache and {constants.ENDPOINT} cannot be reached "
            f"({reason}). Check the network, or mirror the dataset repository under ${DATA_DIR_ENV}/{REPO_ID}/ with "
            f"its own file names: `hf download {REPO_ID} --repo-type dataset --local-dir <dir>` on a machine online."
        )
    try:
        return Path(hf_hub_download(REPO_ID, filename, repo_type="dataset", revision=revision))
    except Exception as err:  # noqa: BLE001 - every hub failure gets the same explanation
        listing = ""
        if type(err).__name__ == "EntryNotFoundError":  # the file names were partly inferred: show the real ones
            try:
                from huggingface_hub import HfApi

                files = HfApi().list_repo_files(REPO_ID, repo_type="dataset", revision=revision)
                listing = f" The repository holds: {sorted(files)[:20]}."
            except Exception:  # noqa: BLE001
                pass
        raise DataAccessError(
            f"{REPO_ID}: cannot get {filename!r} from the Hugging Face Hub ({type(err).__name__}: {err}).{listing} "
            f"Check the network / `hf auth login`, or mirror the dataset repository under "
            f"$FOOD_TASKS_DATA_DIR/{REPO_ID}/ with its own file names (JSONL files and {ARCHIVE})."
        ) from err


def extract_archive(archive: Path, dest: Path | None = None) -> Path:
    """Extract ``archive`` once (default: into the cache, keyed by its path, size and mtime), concurrency-
    and interruption-safe (:func:`food_tasks.data.archive.extract_once`); returns the folder holding ``images/``."""
    return extract_once(archive, dest or cache_root() / "diningbench" / f"images-{archive_key(archive)}", REPO_ID)


def image_root(jsonl: Path, root: Path | None = None) -> Path:
    """The directory relative image paths are resolved against.

    The JSONL directory when it already holds an ``images/`` tree (a mirror extracted in place, as the
    official instructions say), else the cache directory the archive is extracted into."""
    if (jsonl.parent / "images").is_dir():
        return jsonl.parent
    local = hub_mirror_dir(REPO_ID, root)
    archive = local / ARCHIVE if local is not None else None
    if archive is None or not archive.is_file():
        archive = _hub_file(ARCHIVE, root)
    return extract_archive(archive)


# --------------------------------------------------------------------------- records


def _fail(path: Path, line: int, what: str) -> DataAccessError:
    return DataAccessError(f"{path}:{line}: {what}. The file must be the published DiningBench JSONL; re-download it.")


def load_rows(path: Path) -> list[dict[str, Any]]:
    """The records of one JSONL file in file order (blank lines skipped as officially), each with
    ``_line`` (1-based line number, for messages)."""
    rows = []
    with open(path, encoding="utf-8") as fh:
        for number, line in enumerate(fh, start=1):
            if not line.strip():
                continue
            try:
                row = json.loads(line)
            except ValueError as err:
                raise _fail(path, number, f"not valid JSON ({err})") from err
            if not isinstance(row, dict):
                raise _fail(path, number, f"expected a JSON object, got {type(row).__name__}")
            row["_line"] = number
            rows.append(row)
    if not rows:
        raise DataAccessError(f"{path}: no records")
    return rows


def select_views(row: dict[str, Any], views: Sequence[int], kind: str) -> list[str]:
    """The official view selection (``--num_images_idxs``): 0 is the merchant reference photo, k >= 1
    the k-th user photo; indices that do not exist are dropped; nothing left means the first image.

    Classification indexes the list ``[standard_image] + user_images`` (so without a reference photo,
    index 0 is the first user photo); nutrition indexes ``standard_image`` and ``user_images``
    separately -- both exactly as the official scripts do."""
    standard = row.get("standard_image") or ""
    users = row.get("user_images") or []
    users = [users] if isinstance(users, str) else list(users)
    if kind == "cls":
        paths = ([standard] if standard else []) + users
        chosen = [paths[i] for i in views if 0 <= i < len(paths)]
        return chosen or paths[:1]
    chosen = []
    for i in views:
        if i == 0:
            if standard:
                chosen.append(standard)
        elif 0 <= i - 1 < len(users):
            chosen.append(users[i - 1])
    if not chosen:
        chosen = [standard] if standard else users[:1]
    return chosen


def vqa_images(row: dict[str, Any]) -> list[str]:
    """All VQA images in list order; without ``images``, ``images/{id:05d}.jpg`` as officially."""
    images = row.get("images") or []
    if isinstance(images, str):
        images = [images]
    if images:
        return list(images)
    dish = row.get("id", "")
    if dish == "" or dish is None:
        return []
    try:
        return [f"images/{int(dish):05d}.jpg"]
    except (TypeError, ValueError):
        text = str(dish).strip()
        return [f"images/{text.zfill(5)}.jpg"] if text.isdigit() else []


def resolve(path: str, base: Path) -> Path:
    """``path`` as is when absolute, else relative to ``base``."""
    p = Path(path)
    return p if p.is_absolute() else base / p


def build_docs(
    kind: str, lang: str, views: Sequence[int] = (0,), cot: bool = False, root: Path | None = None
) -> list[dict]:
    """One document per record, in file order, with the selected image paths resolved and checked."""
    from food_tasks.benchmarks.diningbench import prompts

    jsonl = _hub_file(FILES[(kind, lang)], root)
    rows = load_rows(jsonl)
    base = image_root(jsonl, root)
    docs, missing = [], []
    for idx, row in enumerate(rows):
        prompt = row.get("prompt")
        if not isinstance(prompt, str) or not prompt:
            raise _fail(jsonl, row["_line"], "missing 'prompt' (a non-empty string)")
        if "ground_truth" not in row:
            raise _fail(jsonl, row["_line"], "missing 'ground_truth'")
        rel = vqa_images(row) if kind == "vqa" else select_views(row, views, kind)
        if not rel:
            raise _fail(jsonl, row["_line"], "no image path (standard_image / user_images / images)")
        paths = [resolve(p, base) for p in rel]
        missing += [f"{jsonl.name}:{row['_line']}: {p}" for p in paths if not p.is_file()]
        gold = row["ground_truth"]
        docs.append(
            {
                "idx": idx,
                "id": str(row.get("id", idx)),
                "lang": lang,
                "prompt": prompt,
                "text": prompts.with_cot(prompt) if cot else prompt,
                "cot": cot,
                "images": [str(p) for p in paths],
                "views": len(paths),
                "setting": f"{kind}_v{len(views)}{'_cot' if cot else ''}",  # the task's, whatever views a row has
                "gold_json": json.dumps(gold, ensure_ascii=False),
                "model_name": official_model_name(),
            }
        )
    short = sum(d["views"] < len(views) for d in docs) if kind != "vqa" else 0
    if short:
        logger.warning(
            f"{REPO_ID} {jsonl.name}: {short} of {len(docs)} rows have fewer than {len(views)} views; "
            "the missing indices are dropped, as the official code drops them"
        )
    if missing:
        raise DataAccessError(
            f"{REPO_ID}: {len(missing)} selected image(s) do not exist under {base}, e.g. {missing[:3]}. "
            f"Extract {ARCHIVE} next to the JSONL files (or delete the cache {base} to extract again)."
        )
    return docs


def prefetch(root: Path | None = None) -> dict[str, Path]:
    """Download every file once and extract the image archive (run before a multi-rank evaluation).

    Returns:
        File name -> local path, and ``images`` -> the directory relative image paths resolve against.
    """
    paths = {name: _hub_file(name, root) for name in FILES.values()}
    paths["images"] = image_root(next(iter(paths.values())), root)
    return paths


@functools.lru_cache(maxsize=32)
def _prepared(kind: str, lang: str, views: tuple, cot: bool, root: Path | None, stamp: tuple) -> datasets.Dataset:
    import datasets

    return datasets.Dataset.from_list(build_docs(kind, lang, views, cot, root))


def prepare_docs(
    kind: str, lang: str, views: Sequence[int] = (0,), cot: bool = False, root: Path | None = None
) -> datasets.Dataset:
    """Documents of one task as a ``datasets.Dataset`` (built once per process and data source)."""
    stamp = tuple(
        os.environ.get(k, "") for k in ("FOOD_TASKS_DATA_DIR", "FOOD_TASKS_CACHE_DIR", REVISION_ENV, MODEL_NAME_ENV)
    )
    return _prepared(kind, lang, tuple(views), cot, root, stamp)


def gold(doc: dict) -> Any:
    """The record's ``ground_truth``, decoded from the document's ``gold_json``."""
    return json.loads(doc["gold_json"])


LABEL = "DiningBench"


def _decoded(path: str) -> PILImage.Image:
    return images.rgb(images.decode_file(path))


def doc_images(doc: dict) -> list:
    """The document's images that decode, as RGB, in view order (PNG/WebP bytes in a ``.jpg`` file decode by
    content, as PIL reads them). An undecodable one is left out and recorded (:mod:`food_tasks.data.images`): the
    document is then counted in ``image_missing`` (:func:`image_missing`)."""
    out = []
    for path in doc["images"]:
        image = images.load(path, functools.partial(_decoded, path), LABEL)
        if image is not None:
            out.append(image)
    return out


def image_missing(doc: dict) -> bool:
    """True when an image of the document could not be given to the model (or, when the model never asked
    for it, its file has no readable header)."""
    return images.missing(doc["images"], images.probe_file, LABEL)
