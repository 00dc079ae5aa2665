"""food_tasks.data.archive: extract a zip or tar once; corrupt and unsafe archives are clear errors."""

from __future__ import annotations

import io
import tarfile
import zipfile

import pytest

from food_tasks.data.archive import MARKER, archive_key, extract_once
from food_tasks.data.hub import DataAccessError


def _tar(path, files):
    with tarfile.open(path, "w:gz") as tar:
        for name, data in files.items():
            info = tarfile.TarInfo(name)
            info.size = len(data)
            tar.addfile(info, io.BytesIO(data))


def test_zip_and_tar_extract_once_with_marker(tmp_path):
    with zipfile.ZipFile(tmp_path / "a.zip", "w") as zf:
        zf.writestr("d/x.json", "{}")
    _tar(tmp_path / "b.tar.gz", {"images/1.jpg": b"jpg"})
    for archive, member in (("a.zip", "d/x.json"), ("b.tar.gz", "images/1.jpg")):
        dest = extract_once(tmp_path / archive, tmp_path / "out" / archive_key(tmp_path / archive), "X")
        assert (dest / member).is_file() and (dest / MARKER).is_file()
        (dest / member).unlink()  # a second call trusts the marker and does not extract again
        assert extract_once(tmp_path / archive, dest, "X") == dest and not (dest / member).exists()


def test_interrupted_tree_is_extracted_again(tmp_path):
    _tar(tmp_path / "b.tar", {"f.txt": b"1"})
    (tmp_path / "dest").mkdir()
    (tmp_path / "dest" / "stale.txt").write_text("half")
    dest = extract_once(tmp_path / "b.tar", tmp_path / "dest", "X")
    assert (dest / "f.txt").is_file() and not (dest / "stale.txt").exists()


def test_corrupt_and_unsafe_archives(tmp_path):
    (tmp_path / "bad.tar.gz").write_bytes(b"not an archive")
    with pytest.raises(DataAccessError, match=r"X: cannot extract .*bad.tar.gz"):
        extract_once(tmp_path / "bad.tar.gz", tmp_path / "o1", "X")
    with zipfile.ZipFile(tmp_path / "evil.zip", "w") as zf:
        zf.writestr("../escape.txt", "x")
    with pytest.raises(DataAccessError, match="unsafe member path '../escape.txt'"):
        extract_once(tmp_path / "evil.zip", tmp_path / "o2", "X")
    assert not (tmp_path / "escape.txt").exists() and not (tmp_path / "o2").exists()
