"""FoodieQA data: the gated ``lyan62/FoodieQA`` zip, its one-time extraction, documents and images.

Where the files come from, first hit wins:

1. ``$FOOD_TASKS_DATA_DIR/lyan62/FoodieQA/`` (or a sample root): the repository's ``FoodieQA.zip``, or
   its unpacked contents (``mivqa_tidy.json`` ... and ``images/``, at the top or in one sub-folder).
2. The Hugging Face cache (a previous download; works with ``HF_HUB_OFFLINE=1``).
3. A download with the user's token. Without a token, or when the account has not been granted
   access, :class:`~food_tasks.data.hub.DataAccessError` says where to request access and how to pass
   the token; this happens in ``process_docs``, before any generation.

A zip is extracted once into ``$HF_HOME/food_tasks/foodieqa/<digest>/`` under a file lock, into a
temporary folder renamed into place, so ranks that start together wait for one another and never see
a half-written folder. The data is evaluation-only (CC BY-NC-ND 4.0 + the dataset's terms): it stays
in the local cache.
"""

from __future__ import annotations

import functools
import json
import os
from pathlib import Path
from typing import TYPE_CHECKING, Any

from food_tasks.data import hub as data
from food_tasks.data import images
from food_tasks.data.archive import archive_key, extract_once

CACHES = ("_data_folder", "_load_docs")  # what food_tasks.reset() clears in this module

if TYPE_CHECKING:  # pragma: no cover
    from PIL import Image

REPO = "lyan62/FoodieQA"
ZIP_NAME = "FoodieQA.zip"
REVISION_ENV = "FOOD_TASKS_FOODIEQA_REVISION"
FILES = {"mivqa": "mivqa_tidy.json", "sivqa": "sivqa_tidy.json", "textqa": "textqa_tidy.json"}
ACCESS_URL = f"https://huggingface.co/datasets/{REPO}"
LABELS = ("A", "B", "C", "D")


def _access_error(reason: str) -> data.DataAccessError:
    return data.DataAccessError(
        f"FoodieQA ({REPO}) is a gated dataset: {reason}. Request access with a logged-in account at {ACCESS_URL} "
        f"(accept the conditions on the dataset page), then pass a token of that account: `{data.HF_LOGIN_COMMAND}`, "
        f"or `export HF_TOKEN=hf_...` before running lmms-eval. Air-gapped: copy {ZIP_NAME} (or its unpacked "
        f"contents) to ${data.DATA_DIR_ENV}/{REPO}/."
    )


def revision() -> str:
    """Hub revision of the dataset (``$FOOD_TASKS_FOODIEQA_REVISION``, default ``main``)."""
    return os.environ.get(REVISION_ENV, "").strip() or "main"


def _download_zip() -> Path:
    """The dataset zip from the HF cache, or downloaded with the user's token."""
    from huggingface_hub import get_token, hf_hub_download
    from huggingface_hub.errors import (
        GatedRepoError,
        HfHubHTTPError,
        LocalEntryNotFoundError,
        RepositoryNotFoundError,
    )

    kwargs = {"repo_id": REPO, "filename": ZIP_NAME, "repo_type": "dataset", "revision": revision()}
    try:
        return Path(hf_hub_download(**kwargs, local_files_only=True))
    except LocalEntryNotFoundError:
        pass
    offline = os.environ.get("HF_HUB_OFFLINE", "").strip().lower() in ("1", "true", "yes", "on")
    if offline:
        raise data.DataAccessError(
            f"FoodieQA ({REPO}): {ZIP_NAME} is not in the Hugging Face cache and HF_HUB_OFFLINE is set. The dataset is "
            f"gated: request access at {ACCESS_URL}, then run once online with that account's token "
            f"(`{data.HF_LOGIN_COMMAND}` or `export HF_TOKEN=hf_...`), or copy {ZIP_NAME} (or its unpacked contents) "
            f"to ${data.DATA_DIR_ENV}/{REPO}/."
        )
    if not get_token():
        raise _access_error("no Hugging Face token was found on this machine")
    from huggingface_hub import constants

    from food_tasks.data import remote

    reason = remote.unreachable(constants.ENDPOINT)
    if reason is not None:
        raise data.DataAccessError(
            f"FoodieQA ({REPO}): {ZIP_NAME} is not in the Hugging Face cache and {constants.ENDPOINT} cannot be "
            f"reached ({reason}). Check the network, or copy {ZIP_NAME} (or its unpacked contents) to "
            f"${data.DATA_DIR_ENV}/{REPO}/."
        )
    try:
        return Path(hf_hub_download(**kwargs))
    except GatedRepoError as err:
        raise _access_error(f"the token's account has not been granted access ({err.__class__.__name__})") from err
    except RepositoryNotFoundError as err:
        raise _access_error(
            f"the Hub refused the token or the repository is not visible to it ({err.__class__.__name__})"
        ) from err
    except HfHubHTTPError as err:
        status = getattr(getattr(err, "response", None), "status_code", None)
        if status in (401, 403):
            raise _access_error(f"the Hub answered HTTP {status}") from err
        raise data.DataAccessError(f"FoodieQA ({REPO}): downloading {ZIP_NAME} failed: {err}") from err
    except (OSError, ValueError) as err:
        raise data.DataAccessError(
            f"FoodieQA ({REPO}): {ZIP_NAME} could not be downloaded ({err}). Check the network, or copy it to "
            f"${data.DATA_DIR_ENV}/{REPO}/."
        ) from err


def cache_root() -> Path:
    """``$HF_HOME/food_tasks/foodieqa`` (read at call time; the Hugging Face default otherwise)."""
    from huggingface_hub import constants

    home = os.environ.get("HF_HOME", "").strip()
    return (
        Path(home).expanduser() / "food_tasks" / "foodieqa"
        if home
        else Path(constants.HF_HOME) / "food_tasks" / "foodieqa"
    )


def extract_zip(zip_path: Path, cache: Path | None = None) -> Path:
    """Extract ``zip_path`` once (per path, size and mtime) and return the extraction folder
    (:func:`food_tasks.data.archive.extract_once`: concurrency-safe, unsafe member paths refused)."""
    return extract_once(
        zip_path, (cache if cache is not None else cache_root()) / archive_key(zip_path, 20), "FoodieQA"
    )


def _find_data_folder(base: Path, origin: str) -> Path:
    """The folder holding the three JSON files: ``base`` itself or one sub-folder (zips often wrap one)."""
    candidates = [base] + sorted(p for p in base.iterdir() if p.is_dir() and not p.name.startswith((".", "__MACOSX")))
    for folder in candidates:
        if all((folder / name).is_file() for name in FILES.values()):
            return folder
    raise data.DataAccessError(
        f"FoodieQA: {origin} does not hold {', '.join(FILES.values())} (at its top or in one sub-folder); "
        f"it should unpack to the published layout (images/ and the three *_tidy.json files)."
    )


def data_folder(root: Path | None = None) -> Path:
    """The unpacked data folder (``images/`` + ``*_tidy.json``), resolved as the module docstring says."""
    root = root if root is not None else data.mirror_root()
    return _data_folder(root)


@functools.lru_cache(maxsize=4)
def _data_folder(root: Path | None) -> Path:
    local = data.hub_mirror_dir(REPO, root) if root is not None else None
    if local is not None:
        if (local / ZIP_NAME).is_file():
            return _find_data_folder(extract_zip(local / ZIP_NAME), str(local / ZIP_NAME))
        return _find_data_folder(local, f"the mirror {local} (no {ZIP_NAME} there either)")
    zip_path = _download_zip()
    return _find_data_folder(extract_zip(zip_path), str(zip_path))


# ---------------------------------------------------------------- documents

_REQUIRED = {
    "mivqa": ("question", "question_en", "images", "answer"),
    "sivqa": ("question", "question_en", "choices", "choices_en", "answer", "food_meta"),
    "textqa": ("question", "choices", "answer"),
}


def _fail(path: Path, index: int, what: str) -> data.DataAccessError:
    return data.DataAccessError(
        f"FoodieQA: {path}, record {index}: {what}. The file should be the published {path.name}; re-download it."
    )


def _doc(task: str, index: int, row: Any, path: Path, folder: Path) -> dict:
    if not isinstance(row, dict):
        raise _fail(path, index, f"expected a JSON object, found {type(row).__name__}")
    missing = [k for k in _REQUIRED[task] if k not in row]
    if missing:
        raise _fail(path, index, f"missing field(s) {missing} (has {sorted(row)})")
    answer = str(row["answer"]).strip()
    if answer not in ("0", "1", "2", "3"):
        raise _fail(path, index, f"answer {row['answer']!r} is not one of '0'..'3'")
    meta = row.get("food_meta") or {}
    if task == "mivqa":
        images = row["images"]
        if not isinstance(images, list) or len(images) != 4:
            raise _fail(path, index, f"'images' must list 4 image paths, found {images!r}")
    elif task == "sivqa":
        if not isinstance(meta, dict) or not meta.get("food_file"):
            raise _fail(path, index, "food_meta.food_file (the image path) is missing")
        images = [meta["food_file"]]
    else:
        images = []
    for key in ("choices", "choices_en"):
        if key in _REQUIRED[task] and (not isinstance(row[key], list) or len(row[key]) != 4):
            raise _fail(path, index, f"{key!r} must hold 4 options, found {row[key]!r}")
    for rel in images:
        if not (folder / rel).is_file():
            raise _fail(path, index, f"image {rel!r} does not exist under {folder}")
    qid = row.get("question_id", row.get("qid"))
    return {
        "index": index,
        "qid": str(qid) if qid not in (None, "") else f"{task}-{index}",
        "question": str(row["question"]),
        "question_en": str(row.get("question_en") or ""),
        "choices": [str(c) for c in row.get("choices") or []],
        "choices_en": [str(c) for c in row.get("choices_en") or []],
        "answer": answer,
        "question_type": str(row.get("question_type") or ""),
        "food_name": str(row.get("food_name") or meta.get("food_name") or ""),
        # Breakdown key: annotation group (mivqa) or cuisine type (sivqa); none for textqa.
        "category": str(row.get("ann_group") or meta.get("food_type") or ""),
        "images": [str(x) for x in images],
    }


def load_docs(task: str, root: Path | None = None) -> list[dict]:
    """The documents of ``mivqa`` / ``sivqa`` / ``textqa`` in file order (official scoring is positional).

    Raises:
        DataAccessError: data missing or gated (says what to do), or a record that does not match
            the published schema (names the file and record).
    """
    folder = data_folder(root)
    return _load_docs(task, folder)


@functools.lru_cache(maxsize=8)
def _load_docs(task: str, folder: Path) -> list[dict]:
    path = folder / FILES[task]
    try:
        rows = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as err:
        raise data.DataAccessError(f"FoodieQA: cannot read {path} as JSON ({err}); re-download the dataset.") from err
    if not isinstance(rows, list) or not rows:
        raise data.DataAccessError(f"FoodieQA: {path} must hold a non-empty JSON array of records.")
    return [_doc(task, i, row, path, folder) for i, row in enumerate(rows)]


LABEL = "FoodieQA"


def image_path(rel: str, root: Path | None = None) -> str:
    """The file of one image: ``os.path.join(data_dir, path)`` as the official code."""
    return str(data_folder(root) / rel)


def _decoded(path: str) -> Image.Image:
    return images.rgb(images.decode_file(path))


def load_image(rel: str, root: Path | None = None) -> Image.Image | None:
    """One image of the data folder as RGB, or None when it cannot be decoded (recorded, and the document
    counted in ``image_missing``: :mod:`food_tasks.data.images`)."""
    path = image_path(rel, root)
    return images.load(path, functools.partial(_decoded, path), LABEL)


def images_missing(rels: list[str], root: Path | None = None) -> bool:
    """True when one of these images could not be given to the model (or, when the model never asked for
    it, its file has no readable header)."""
    return images.missing([image_path(rel, root) for rel in rels], images.probe_file, LABEL)


def placeholder() -> Image.Image:
    """A plain grey image that stands where an undecodable image was, for prompts whose text marks each
    image's position (mivqa's ``image_token`` for simple models): the count of images then still matches."""
    from PIL import Image

    return Image.new("RGB", (224, 224), (128, 128, 128))


# ---------------------------------------------------------------- task variants

VARIANTS = ("", "dishname", "dishname_noimage", "sample")


def parse_spec(spec: str) -> dict:
    """``"sivqa_zh_p0"`` / ``"sivqa_zh_dishname_p2"`` / ``"mivqa_en_sample_p1"`` -> its parts."""
    task, lang, *middle, template = spec.split("_")
    variant = "_".join(middle)
    if (
        task not in FILES
        or lang not in ("zh", "en")
        or variant not in VARIANTS
        or template not in ("p0", "p1", "p2", "p3")
    ):
        raise ValueError(f"FoodieQA: unknown task variant {spec!r}")
    return {"fq_task": task, "fq_lang": lang, "fq_variant": variant, "fq_template": int(template[1])}


def task_docs(spec: str, root: Path | None = None) -> Any:
    """The documents of one task variant as a ``datasets.Dataset``, each carrying its variant fields
    (``fq_task``, ``fq_lang``, ``fq_variant``, ``fq_template``, ``fq_root``) for the hooks."""
    import datasets

    fields = parse_spec(spec)
    root = root if root is not None else data.mirror_root()
    docs = load_docs(fields["fq_task"], root)
    extra = fields | {"fq_root": str(root) if root is not None else ""}
    return datasets.Dataset.from_list([doc | extra for doc in docs])
