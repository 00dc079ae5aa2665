"""Food-500 Cap data: the official caption files, the ISIA Food-500 image root, documents, region mapping.

Captions: ``aaronma2020/Food500-Cap`` at a pinned commit (data only: ``evaluation_data.json``, 4,940 rows,
494 categories x 10; ``finetune_data.json``, 19,880 rows), read through :func:`food_tasks.data.remote.github_file`
(``$FOOD_TASKS_DATA_DIR/github/aaronma2020/Food500-Cap/`` mirror, cache, download). Every record is
validated; errors name the file, the record and what to do.

Images: ISIA Food-500 (Min et al., ACM MM 2020), not redistributed by the authors nor by us. The image
root holds ``<cat>/<cat>_<NNNN>.jpg`` (the ``filename`` field) and is ``$FOOD_TASKS_FOOD500CAP_IMAGES``,
else ``$FOOD_TASKS_DATA_DIR/isia_food500/images``. Without a root, documents are not built (so nothing is
generated) and the error says where ISIA Food-500 is obtained and which layout is expected. Missing
individual images are counted (``image_missing``) and excluded from every denominator. Ten test filenames
are stored in decomposed Unicode (NFD); lookups try the name as stored, NFC and NFD.

The ``all`` variant is the union of both files de-duplicated by (NFC) filename: 24,732 images, test rows
first (the 88 shared filenames carry identical captions in both files); it approximates, and does not
equal, the paper's 24,700 evaluation images.
"""

from __future__ import annotations

import csv
import functools
import json
import os
import unicodedata
from pathlib import Path
from typing import TYPE_CHECKING, Any

from food_tasks.data import images, remote
from food_tasks.data.hub import DATA_DIR_ENV, DataAccessError, mirror_root

CACHES = ("_load", "_regions", "_prepared")  # what food_tasks.reset() clears in this module

if TYPE_CHECKING:  # pragma: no cover
    import datasets
    from PIL import Image as PILImage

REPO = "aaronma2020/Food500-Cap"
COMMIT = "a32dfe90c01801231aad92c59f6bebe8a8e0dfe6"  # 2023-08-14, the only data commit
REPO_ENV, COMMIT_ENV = "FOOD_TASKS_FOOD500CAP_REPO", "FOOD_TASKS_FOOD500CAP_COMMIT"
TEST_FILE, TRAIN_FILE = "evaluation_data.json", "finetune_data.json"
IMAGES_ENV = "FOOD_TASKS_FOOD500CAP_IMAGES"
REGIONS_ENV = "FOOD_TASKS_FOOD500CAP_REGIONS"
MIRROR_IMAGES = ("isia_food500", "images")  # under FOOD_TASKS_DATA_DIR
ISIA_URL = "http://123.57.42.89/FoodComputing-Dataset/ISIA-Food500.html"
UNMAPPED = "unmapped"
SPLITS = {"test": (TEST_FILE,), "all": (TEST_FILE, TRAIN_FILE)}


def repo_and_commit() -> tuple[str, str]:
    """The official repository and commit of the caption files (``$FOOD_TASKS_FOOD500CAP_*`` override them)."""
    return os.environ.get(REPO_ENV, "").strip() or REPO, os.environ.get(COMMIT_ENV, "").strip() or COMMIT


def nfc(text: str) -> str:
    """``text`` in Unicode normal form C (file names and categories are compared in it)."""
    return unicodedata.normalize("NFC", text)


def category_key(cat: str) -> str:
    """Key grouping category spellings across files and mapping files (NFC, case-folded, ``_`` = space)."""
    return " ".join(nfc(cat).replace("_", " ").casefold().split())


# --------------------------------------------------------------------------- caption files


def _fail(local: Path, where: str, problem: str) -> DataAccessError:
    return DataAccessError(
        f"Food-500 Cap {local}: {where}: {problem}. Expected a JSON array of objects with string fields "
        f"'cat', 'filename' and 'caption' (the files of https://github.com/{REPO} at {COMMIT[:7]}); if you pinned "
        f"another commit through {COMMIT_ENV}, check it has that schema, or delete the file so it is downloaded again."
    )


@functools.lru_cache(maxsize=8)
def _load(local: str, stamp: float) -> tuple[dict[str, str], ...]:
    path = Path(local)
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (ValueError, UnicodeDecodeError) as err:
        raise _fail(path, "top level", f"not valid JSON ({err})") from err
    if not isinstance(data, list) or not data:
        raise _fail(path, "top level", f"expected a non-empty JSON array, got {type(data).__name__}")
    rows, seen = [], set()
    for number, row in enumerate(data, start=1):
        if not isinstance(row, dict):
            raise _fail(path, f"record {number}", "not an object")
        for field in ("cat", "filename", "caption"):
            value = row.get(field)
            if not isinstance(value, str) or not value.strip():
                raise _fail(
                    path,
                    f"record {number} ({str(row.get('filename'))[:60]!r})",
                    f"field {field!r} must be a non-empty string, got {value!r:.60}",
                )
        key = nfc(row["filename"])
        if key in seen:
            raise _fail(path, f"record {number}", f"duplicate filename {row['filename']!r}")
        seen.add(key)
        rows.append({"cat": row["cat"], "filename": row["filename"], "caption": row["caption"]})
    return tuple(rows)


def load_file(name: str, root: Path | None = None) -> list[dict[str, str]]:
    """Validated records of one caption file (official order)."""
    repo, commit = repo_and_commit()
    local = remote.github_file(repo, commit, name, root=root)
    return list(_load(str(local), local.stat().st_mtime))


def load_rows(split: str, root: Path | None = None) -> list[dict[str, str]]:
    """``test``: evaluation_data.json; ``all``: the union de-duplicated by NFC filename (test rows first)."""
    rows, seen = [], set()
    for name in SPLITS[split]:
        for row in load_file(name, root):
            key = nfc(row["filename"])
            if key not in seen:
                seen.add(key)
                rows.append({**row, "source": name})
    return rows


# --------------------------------------------------------------------------- images


def _missing_root(problem: str) -> DataAccessError:
    return DataAccessError(
        f"Food-500 Cap: {problem}. The images belong to ISIA Food-500 and are not redistributed: obtain ISIA "
        f"Food-500 from {ISIA_URL} (access conditions are set by its maintainers), then set {IMAGES_ENV} to the "
        f"directory that holds one folder per category, <cat>/<cat>_<NNNN>.jpg (e.g. Abalone/Abalone_0081.jpg), "
        f"or place that directory at ${DATA_DIR_ENV}/{'/'.join(MIRROR_IMAGES)}/."
    )


def image_root(root: Path | None = None) -> Path:
    """The ISIA Food-500 image root (``root``'s mirror layout, ``$FOOD_TASKS_FOOD500CAP_IMAGES``, the mirror).

    Raises:
        DataAccessError: no root is configured or it is not a directory.
    """
    if root is not None:
        candidate, source = Path(root, *MIRROR_IMAGES), f"the mirror {root}"
    elif os.environ.get(IMAGES_ENV, "").strip():
        candidate, source = Path(os.environ[IMAGES_ENV].strip()).expanduser(), IMAGES_ENV
    elif mirror_root() is not None:
        candidate, source = Path(mirror_root(), *MIRROR_IMAGES), DATA_DIR_ENV  # type: ignore[arg-type]
    else:
        raise _missing_root(f"no image root: {IMAGES_ENV} is not set and neither is {DATA_DIR_ENV}")
    if not candidate.is_dir():
        raise _missing_root(f"the image root {candidate} (from {source}) is not a directory")
    return candidate


def find_image(base: Path, filename: str) -> str:
    """Path of ``filename`` under ``base`` as stored, NFC or NFD (``""`` when absent)."""
    for form in dict.fromkeys((filename, nfc(filename), unicodedata.normalize("NFD", filename))):
        path = base / form
        if path.is_file():
            return str(path)
    return ""


# --------------------------------------------------------------------------- region mapping


def _region_error(path: Path, problem: str) -> DataAccessError:
    return DataAccessError(
        f"Food-500 Cap region mapping {path} ({REGIONS_ENV}): {problem}. Give a JSON object "
        f'{{"<category>": "<region>", ...}} or a CSV/TSV file with a header row "category,region"; category '
        f"names as in the caption files' 'cat' field (case, '_' and Unicode form are ignored)."
    )


@functools.lru_cache(maxsize=4)
def _regions(path: str, stamp: float) -> dict[str, str]:
    file = Path(path)
    text = file.read_text(encoding="utf-8-sig")
    pairs: list[tuple[Any, Any, str]] = []
    if file.suffix.lower() == ".json":
        try:
            data = json.loads(text)
        except ValueError as err:
            raise _region_error(file, f"not valid JSON ({err})") from err
        if not isinstance(data, dict):
            raise _region_error(file, f"expected a JSON object, got {type(data).__name__}")
        pairs = [(k, v, f"key {k!r}") for k, v in data.items()]
    else:
        reader = csv.DictReader(text.splitlines(), dialect="excel-tab" if file.suffix.lower() == ".tsv" else "excel")
        if not reader.fieldnames or not {"category", "region"} <= {f.strip().lower() for f in reader.fieldnames}:
            raise _region_error(
                file, f"the header row must name the columns category and region, got {reader.fieldnames}"
            )
        names = {f.strip().lower(): f for f in reader.fieldnames}
        pairs = [(r.get(names["category"]), r.get(names["region"]), f"line {n}") for n, r in enumerate(reader, start=2)]
    out: dict[str, str] = {}
    for cat, region, where in pairs:
        if not isinstance(cat, str) or not isinstance(region, str) or not cat.strip() or not region.strip():
            raise _region_error(
                file, f"{where}: category and region must be non-empty strings, got {cat!r} -> {region!r}"
            )
        key = category_key(cat)
        if key in out and out[key] != region.strip():
            raise _region_error(file, f"{where}: category {cat!r} is mapped twice ({out[key]!r}, {region.strip()!r})")
        out[key] = region.strip()
    return out


def region_mapping() -> dict[str, str] | None:
    """The user's category -> region mapping (``$FOOD_TASKS_FOOD500CAP_REGIONS``), or None when not given."""
    value = os.environ.get(REGIONS_ENV, "").strip()
    if not value:
        return None
    path = Path(value).expanduser()
    if not path.is_file():
        raise _region_error(path, "the file does not exist")
    return _regions(str(path), path.stat().st_mtime)


# --------------------------------------------------------------------------- documents


def build_docs(split: str, root: Path | None = None) -> list[dict[str, Any]]:
    """One document per image of ``split`` (``test`` or ``all``), with its resolved image path.

    Raises:
        DataAccessError: caption files unavailable or malformed, no image root, a root holding none of
            the split's images, or a malformed region mapping.
    """
    rows = load_rows(split, root)
    base = image_root(root)
    regions = region_mapping()
    docs = []
    for row in rows:
        docs.append(
            {
                "replay_key": nfc(row["filename"]),
                "key": nfc(row["filename"]),  # the records' document key (utils/food500cap.py KEY): the image file
                "filename": row["filename"],
                "cat": row["cat"],
                "caption": row["caption"],
                "source": row["source"],
                "image_path": find_image(base, row["filename"]),
                "region": (regions.get(category_key(row["cat"]), UNMAPPED) if regions is not None else ""),
            }
        )
    if not any(d["image_path"] for d in docs):
        example = docs[0]["filename"]
        nested = [p.name for p in sorted(base.iterdir())[:5] if p.is_dir()] if base.is_dir() else []
        raise _missing_root(
            f"none of the {len(docs)} images of this split is under the image root {base} (looked for e.g. "
            f"{base / example}; its first sub-folders are {nested}); point the root at the folder that holds the "
            f"category folders"
        )
    return docs


def _dataset(rows: list[dict]) -> datasets.Dataset:
    import datasets

    return datasets.Dataset.from_list(rows)


def _stamp() -> tuple:
    names = (DATA_DIR_ENV, IMAGES_ENV, REGIONS_ENV, "FOOD_TASKS_CACHE_DIR", REPO_ENV, COMMIT_ENV)
    return tuple(os.environ.get(n, "") for n in names)


@functools.lru_cache(maxsize=16)
def _prepared(split: str, root: Path | None, stamp: tuple) -> datasets.Dataset:
    return _dataset(build_docs(split, root))


def prepare_docs(split: str, root: Path | None = None) -> datasets.Dataset:
    """Documents of a split as a ``datasets.Dataset`` (built once per process and configuration)."""
    return _prepared(split, root, _stamp())


LABEL = "Food-500 Cap"


def _decoded(path: str) -> PILImage.Image:
    return images.rgb(images.decode_file(path))


def load_image(doc: dict[str, Any]) -> PILImage.Image | None:
    """The document's image as RGB, or None when it is missing or cannot be decoded (a truncated file included,
    whatever lmms-eval's Pillow setting: :mod:`food_tasks.data.images`); either way the document counts as missing."""
    path = doc.get("image_path") or ""
    if not path:
        return None
    return images.load(path, functools.partial(_decoded, path), LABEL)


def image_missing(doc: dict[str, Any]) -> bool:
    """No image file, or one that could not be decoded when the model was given it (a header check when the
    model never asked for it)."""
    path = doc.get("image_path") or ""
    return not path or images.missing([path], images.probe_file, LABEL)
