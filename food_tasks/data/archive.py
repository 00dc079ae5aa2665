"""Extracting a downloaded data archive (zip or tar) once, safely with several ranks starting together.

One process extracts under a file lock into a temporary folder, writes a completion marker, then renames
the folder into place; the others wait on the lock and reuse the result. A folder without the marker (an
interrupted extraction) is never trusted: it is removed and extracted again. Members that would land
outside the target (absolute paths, ``..``, links leaving the tree) are refused.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import tarfile
import tempfile
import zipfile
from pathlib import Path

from filelock import FileLock

from food_tasks.errors import DataAccessError

MARKER = ".food_tasks_complete"


def archive_key(archive: Path, length: int = 16) -> str:
    """A folder name for ``archive``'s extraction: its resolved path, size and modification time."""
    stat = archive.stat()
    return hashlib.sha1(f"{archive.resolve()}:{stat.st_size}:{stat.st_mtime_ns}".encode()).hexdigest()[:length]


def _extract(archive: Path, into: Path, label: str) -> None:
    if zipfile.is_zipfile(archive):
        with zipfile.ZipFile(archive) as zf:
            for name in zf.namelist():
                parts = Path(name).parts
                if name.startswith(("/", "\\")) or ".." in parts or (parts and ":" in parts[0]):
                    raise DataAccessError(
                        f"{label}: {archive} holds an unsafe member path {name!r}; refusing to extract"
                    )
            zf.extractall(into)
    else:
        with tarfile.open(archive, "r:*") as tar:
            tar.extractall(into, filter="data")  # refuses absolute paths, "..", links leaving the tree


def extract_once(archive: Path, dest: Path, label: str) -> Path:
    """Extract ``archive`` (zip or tar, any compression) into ``dest`` once and return ``dest``.

    Args:
        archive: the archive file.
        dest: the folder to create; its parent is created when missing.
        label: what the archive is (a dataset id), for error messages.

    Raises:
        DataAccessError: the archive is corrupt or holds unsafe member paths; the message says what to do.
    """
    dest = Path(dest)
    if (dest / MARKER).is_file():
        return dest
    dest.parent.mkdir(parents=True, exist_ok=True)
    with FileLock(f"{dest}.lock"):
        if (dest / MARKER).is_file():
            return dest
        if dest.exists():  # a tree from an interrupted extraction: never trusted
            shutil.rmtree(dest)
        tmp = Path(tempfile.mkdtemp(prefix=f"{dest.name}.tmp-", dir=dest.parent))
        try:
            _extract(archive, tmp, label)
            (tmp / MARKER).write_text(f"{archive}\n", encoding="utf-8")
            os.replace(tmp, dest)
        except DataAccessError:
            raise
        except (tarfile.TarError, zipfile.BadZipFile, OSError, EOFError) as err:
            raise DataAccessError(
                f"{label}: cannot extract {archive} ({type(err).__name__}: {err}). Delete it (and any {dest}*) so "
                "that it is downloaded again, or replace the mirror copy."
            ) from err
        finally:
            shutil.rmtree(tmp, ignore_errors=True)
    return dest
