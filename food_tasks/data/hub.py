"""Data access shared by all benchmarks.

Every benchmark is loaded from its official distribution, as published, through
the libraries made for it (``datasets`` for Hugging Face dataset repos), with
two overrides:

* ``FOOD_TASKS_DATA_DIR``: a local mirror for air-gapped clusters and tests. A
  hub dataset ``org/name`` is read from ``$FOOD_TASKS_DATA_DIR/org/name/``, laid
  out exactly like the hub repository (same relative file paths), without any
  network access. Other sources use documented sub-directories of the same root
  (see the docs/data.md section).
* ``HF_HUB_OFFLINE=1`` / ``HF_DATASETS_OFFLINE=1`` are honoured by ``datasets``
  itself; when the data is not cached we say how to provide a mirror.

Downloads land in the Hugging Face cache. ``datasets`` and ``huggingface_hub``
take file locks while downloading and preparing, so several ranks starting at
once (``accelerate launch``) wait for one another instead of corrupting the cache.

Images are never decoded up front: :class:`ImageStore` maps image URLs to
(row, column) positions and decodes one image when it is asked for.
"""

from __future__ import annotations

import functools
import hashlib
import io
import os
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import TYPE_CHECKING, ParamSpec, TypeVar

from food_tasks.errors import CorruptImageError, DataAccessError, DataSettingError, RunStopped, SetupError  # noqa: F401  (public here too)

if TYPE_CHECKING:  # pragma: no cover
    import datasets
    from PIL import Image as PILImage

DATA_DIR_ENV = "FOOD_TASKS_DATA_DIR"


def hf_download_command(repo_id: str, local_dir: Path | str, repo_type: str = "dataset") -> str:
    """The ``hf`` CLI command (huggingface_hub >= 0.34; the older console script is gone in 1.x) that
    copies a hub repository into ``local_dir`` with its own relative paths."""
    return f"hf download {repo_id} --repo-type {repo_type} --local-dir {local_dir}"


HF_LOGIN_COMMAND = "hf auth login"


_P = ParamSpec("_P")
_R = TypeVar("_R")


def stop_run_on_data_error(fn: Callable[_P, _R]) -> Callable[_P, _R]:
    """Decorate an lmms-eval hook so a :class:`DataAccessError` or :class:`SetupError` stops the run (RunStopped)."""

    @functools.wraps(fn)
    def wrapper(*args: _P.args, **kwargs: _P.kwargs) -> _R:
        try:
            return fn(*args, **kwargs)
        except DataAccessError as err:
            raise RunStopped(f"food-tasks: data error, the run stops before generation:\n{err}") from err
        except SetupError as err:
            raise RunStopped(f"food-tasks: {err.label}, the run stops before generation:\n{err}") from err

    return wrapper


def mirror_root() -> Path | None:
    """Return ``$FOOD_TASKS_DATA_DIR`` as a path, or None when unset."""
    value = os.environ.get(DATA_DIR_ENV, "").strip()
    return Path(value).expanduser() if value else None


def hub_mirror_dir(repo_id: str, root: Path | None = None) -> Path | None:
    """Return the mirror directory of hub dataset ``repo_id``, or None without a mirror.

    Args:
        repo_id: ``org/name`` of a Hugging Face dataset repository.
        root: mirror root; defaults to :func:`mirror_root`.

    Raises:
        DataAccessError: a mirror root is set but has no directory for ``repo_id``.
    """
    root = root if root is not None else mirror_root()
    if root is None:
        return None
    path = root / repo_id
    if not path.is_dir():
        raise DataAccessError(
            f"{repo_id}: {DATA_DIR_ENV}={root} is set, but the mirror directory {path} does not exist. "
            f"Copy the dataset repository there with its own relative paths, e.g. "
            f"`{hf_download_command(repo_id, path)}`, "
            f"or unset {DATA_DIR_ENV} to download from the Hugging Face Hub."
        )
    return path


def _mirror_cache_dir(local: Path) -> str:
    """A ``datasets`` cache directory specific to a mirror's path and file stamps.

    ``datasets`` fingerprints a local repository by its layout, so two mirrors with the
    same relative file names (or a mirror updated in place) would share a stale cache.
    """
    import datasets

    digest = hashlib.sha1(str(local.resolve()).encode())
    for path in sorted(p for p in local.rglob("*") if p.is_file()):
        stat = path.stat()
        digest.update(f"{path.relative_to(local)}:{stat.st_size}:{stat.st_mtime_ns}".encode())
    return str(Path(datasets.config.HF_DATASETS_CACHE) / "food_tasks_mirrors" / digest.hexdigest()[:20])


def find_damaged_file(paths: Iterable[Path]) -> str | None:
    """Name the first damaged data file among ``paths``, or None when all of them read.

    JSON Lines (``.jsonl``): the first line that is not a JSON object, with its 1-based line number
    (blank lines are skipped, as ``datasets`` does); ``.json``: the whole document; ``.parquet``: the
    footer and schema, through pyarrow. Used after ``datasets`` failed, whose own errors name neither
    the file nor the line.
    """
    import json

    for path in sorted(Path(p) for p in paths):
        suffix = path.suffix.lower()
        if suffix == ".jsonl":
            with open(path, "rb") as fh:
                for number, raw in enumerate(fh, start=1):
                    if not raw.strip():
                        continue
                    try:
                        value = json.loads(raw.rstrip(b"\r\n"))
                    except json.JSONDecodeError as err:
                        return (
                            f"{path} line {number} is not valid JSON ({err.msg}, column {err.colno}); the file must "
                            "be JSON Lines, one object per line"
                        )
                    except ValueError as err:  # UnicodeDecodeError
                        return (
                            f"{path} line {number} is not valid UTF-8 JSON ({err}); the file must be JSON Lines, one "
                            "object per line"
                        )
                    if not isinstance(value, dict):
                        return (
                            f"{path} line {number} is a JSON {type(value).__name__}, not an object; the file must be "
                            "JSON Lines, one object per line"
                        )
        elif suffix == ".json":
            try:
                with open(path, "rb") as fh:
                    json.load(fh)
            except ValueError as err:
                return f"{path} is not valid JSON ({err})"
        elif suffix == ".parquet":
            import pyarrow.parquet as pq

            try:
                pq.ParquetFile(path).schema_arrow  # noqa: B018  (reads the footer)
            except Exception as err:  # pyarrow.ArrowInvalid, OSError
                return f"{path} is damaged or truncated, not a readable parquet file ({err})"
    return None


def _mirror_load_error(
    repo_id: str, config: str | None, split: str, local: Path, err: Exception, files: Iterable[Path]
) -> DataAccessError:
    damaged = find_damaged_file(files)
    if damaged is not None:
        return DataAccessError(
            f"{repo_id}: cannot load config {config!r} split {split!r} from the mirror {local}: {damaged}. "
            f"Replace the file with the dataset repository's copy, e.g. `{hf_download_command(repo_id, local)}`."
        )
    return DataAccessError(f"{repo_id}: cannot load config {config!r} split {split!r} from the mirror {local}: {err}")


def _mirror_data_files(local: Path, data_files: str | None) -> list[Path]:
    """The files a failed load may have read: the split's glob, else every data file of the mirror."""
    if data_files is not None and list(local.glob(data_files)):
        return [p for p in local.glob(data_files) if p.is_file()]
    return [p for p in local.rglob("*") if p.is_file() and p.suffix.lower() in {".jsonl", ".json", ".parquet"}]


def _is_missing_config(err: Exception, config: str | None) -> bool:
    text = str(err)
    return config is not None and ("BuilderConfig" in text or "Unknown config" in text) and repr(config) in text


def _explain_hub_error(err: Exception, repo_id: str) -> DataAccessError:
    text = f"{type(err).__name__}: {err}"
    lowered = text.lower()
    if "gated" in lowered or "401" in lowered or "403" in lowered or "authenticat" in lowered:
        return DataAccessError(
            f"{repo_id} is gated or private on the Hugging Face Hub and this machine has no access. "
            f"Request access at https://huggingface.co/datasets/{repo_id}, then run `{HF_LOGIN_COMMAND}` "
            f"or set HF_TOKEN. Air-gapped: mirror the repository under ${DATA_DIR_ENV}/{repo_id}/. ({text})"
        )
    if "offline" in lowered or "connection" in lowered or "resolve" in lowered or "couldn't reach" in lowered:
        return DataAccessError(
            f"{repo_id} could not be downloaded (offline, or the Hub is unreachable) and is not in the local "
            f"cache. Run once with network access to fill the cache, or mirror the repository under "
            f"${DATA_DIR_ENV}/{repo_id}/ with its own relative paths. ({text})"
        )
    return DataAccessError(f"{repo_id}: loading failed: {text}")


def load_hub_split(
    repo_id: str,
    config: str | None,
    split: str,
    *,
    revision: str | None = None,
    data_files: str | None = None,
    root: Path | None = None,
) -> datasets.Dataset:
    """Load one split of a hub dataset, from the mirror when one is configured.

    The dataset card decides how files map to configs and splits. If the card
    does not declare ``config`` and ``data_files`` (a glob relative to the
    repository root) is given, that glob is loaded with the JSON builder instead;
    still through ``datasets``, from the hub (``hf://``) or the mirror.

    Args:
        repo_id: ``org/name`` of the dataset repository.
        config: configuration name, or None for the default one.
        split: split name.
        revision: hub revision (branch, tag or full commit hash); ignored for mirrors.
        data_files: fallback glob, relative to the repository root.
        root: mirror root overriding ``$FOOD_TASKS_DATA_DIR`` (used by sample tasks).

    Raises:
        DataAccessError: with the file, URL or repository to fix.
    """
    import datasets

    local = hub_mirror_dir(repo_id, root)
    source = str(local) if local is not None else repo_id
    if local is not None:
        kwargs = {"cache_dir": _mirror_cache_dir(local)}
    else:
        kwargs = {} if revision is None else {"revision": revision}
    first_error: Exception | None = None
    try:
        return datasets.load_dataset(source, config, split=split, **kwargs)
    except (ValueError, FileNotFoundError) as err:
        # A mirror without a usable card (or without any data file) falls back to the glob,
        # whose absence is then reported with the path we expected.
        fallback = data_files is not None and (_is_missing_config(err, config) or local is not None)
        if not fallback:
            if local is not None:
                raise _mirror_load_error(
                    repo_id, config, split, local, err, _mirror_data_files(local, data_files)
                ) from err
            raise _explain_hub_error(err, repo_id) from err
        first_error = err
    except Exception as err:  # network, auth, corrupt cache, damaged mirror file
        if local is not None:
            raise _mirror_load_error(repo_id, config, split, local, err, _mirror_data_files(local, data_files)) from err
        raise _explain_hub_error(err, repo_id) from err

    if local is not None:
        pattern = str(local / data_files)
        if not list(local.glob(data_files)):
            raise DataAccessError(
                f"{repo_id}: cannot load config {config!r} split {split!r} from the mirror {local} ({first_error}), "
                f"and no file matches {data_files!r} there (expected {local / data_files}). "
                "Copy the dataset repository with its own relative paths."
            )
    else:
        pattern = f"hf://datasets/{repo_id}@{revision or 'main'}/{data_files}"
    try:
        return datasets.load_dataset(
            "json",
            data_files=pattern,
            split="train",
            **({"cache_dir": kwargs["cache_dir"]} if local is not None else {}),
        )
    except Exception as err:
        if local is not None:
            raise _mirror_load_error(repo_id, config, split, local, err, _mirror_data_files(local, data_files)) from err
        raise _explain_hub_error(err, repo_id) from err


class ImageStore:
    """Lazy URL → image lookup over image columns of a dataset.

    Only the URL columns are read to build the index; an image's bytes are read
    and decoded when :meth:`get` is called, one at a time.

    Args:
        dataset: a ``datasets.Dataset`` holding images and their URLs.
        pairs: ``(url_column, image_column)`` pairs, e.g. ``("image1_url", "image1")``.
        source: a human-readable name of the dataset, used in error messages.
    """

    def __init__(self, dataset: datasets.Dataset, pairs: Iterable[tuple[str, str]], source: str) -> None:
        import datasets

        self.source = source
        self._index: dict[str, tuple[int, str]] = {}
        self._columns: dict[str, datasets.Dataset] = {}
        present = set(dataset.column_names)
        for url_col, image_col in pairs:
            if url_col not in present or image_col not in present:
                continue
            column = dataset.select_columns([image_col])
            if isinstance(column.features[image_col], datasets.Image):
                column = column.cast_column(image_col, datasets.Image(decode=False))
            self._columns[image_col] = column
            for row, url in enumerate(dataset[url_col]):
                if url and url not in self._index:
                    self._index[url] = (row, image_col)
        if not self._columns:
            raise DataAccessError(f"{source}: no image columns among {sorted(present)}")

    def __len__(self) -> int:
        return len(self._index)

    def __contains__(self, url: str) -> bool:
        return url in self._index

    def probe(self, url: str) -> str | None:
        """Why the image of ``url`` cannot be used, or None when it is stored and its header parses.

        Reads the bytes and the image header only (about 0.5 ms against 65 ms for decoding a
        1600x1200 JPEG); a body truncated after a valid header passes, and fails :meth:`get`.
        """
        from PIL import Image

        try:
            row, column = self._index[url]
        except KeyError:
            return f"{self.source}: no image stored for URL {url!r}"
        try:
            value = self._columns[column][row][column]
            data = value.get("bytes") if isinstance(value, dict) else None
            if isinstance(value, dict) and not data:
                Image.open(value["path"]).close()
            elif data:
                Image.open(io.BytesIO(data)).close()
            elif value is None:
                return f"{self.source}: the image at row {row}, column {column!r} (URL {url!r}) is empty"
        except Exception as err:
            return f"{self.source}: cannot read the image at row {row}, column {column!r} (URL {url!r}): {err}"
        return None

    def get(self, url: str) -> PILImage.Image:
        """Decode the image stored for ``url`` as RGB.

        Raises:
            DataAccessError: no image is stored for the URL.
            CorruptImageError: the stored bytes do not decode (or are cut short: :func:`food_tasks.data.images.decode`).
        """
        from PIL import Image

        try:
            row, column = self._index[url]
        except KeyError:
            raise DataAccessError(f"{self.source}: no image stored for URL {url!r}") from None
        from food_tasks.data import images

        what = f"{self.source}: the image at row {row}, column {column!r} (URL {url!r})"
        value = self._columns[column][row][column]
        if isinstance(value, dict) and value.get("bytes"):
            return images.rgb(images.decode(value["bytes"], what))
        if isinstance(value, dict) and value.get("path"):
            return images.rgb(images.decode_file(value["path"], what))
        if isinstance(value, Image.Image):  # a column that decodes itself (not cast above)
            return images.rgb(value)
        raise CorruptImageError(f"{what}: no image data")


@functools.lru_cache(maxsize=8)
def hub_image_store(
    repo_id: str, split: str, pairs: tuple[tuple[str, str], ...], revision: str | None = None, root: Path | None = None
) -> ImageStore:
    """Build (once per process) an :class:`ImageStore` over a hub dataset split."""
    dataset = load_hub_split(repo_id, None, split, revision=revision, root=root)
    where = str(hub_mirror_dir(repo_id, root) or f"hf://datasets/{repo_id}")
    return ImageStore(dataset, pairs, source=f"{where} (split {split})")
