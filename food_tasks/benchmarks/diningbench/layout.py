"""Writers of small DiningBench mirrors in the published layout (JSONL files + a real ``images.tar.gz``).

Used by the test fixtures and the packaged sample. Content is invented; images are generated.
"""

from __future__ import annotations

import io
import json
import tarfile
from collections.abc import Iterable, Mapping
from pathlib import Path

from food_tasks.benchmarks.diningbench.data import ARCHIVE, REPO_ID


def write_jsonl(path: Path, rows: Iterable[Mapping]) -> None:
    """Write ``rows`` as JSON Lines (characters unescaped), creating the folder."""
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows), encoding="utf-8")


def write_archive(path: Path, images: Mapping[str, bytes]) -> None:
    """A gzip tarball holding ``images`` (relative path -> bytes), deterministic (fixed mtimes, order)."""
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w:gz", format=tarfile.PAX_FORMAT) as tar:
        dirs = sorted({str(Path(p).parent) for p in images} - {"."})
        for d in dirs:
            info = tarfile.TarInfo(d)
            info.type, info.mode, info.mtime = tarfile.DIRTYPE, 0o755, 0
            tar.addfile(info)
        for rel in sorted(images):
            info = tarfile.TarInfo(rel)
            info.size, info.mode, info.mtime = len(images[rel]), 0o644, 0
            tar.addfile(info, io.BytesIO(images[rel]))
    raw = buf.getvalue()
    # gzip stores a timestamp in its header: zero it so the bytes are reproducible.
    raw = raw[:4] + b"\x00\x00\x00\x00" + raw[8:]
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(raw)


def write_mirror(
    root: Path, files: Mapping[str, Iterable[Mapping]], images: Mapping[str, bytes], *, extracted: bool = False
) -> Path:
    """``root/meituan/DiningBench/`` with the JSONL ``files`` and ``images.tar.gz`` (or, with
    ``extracted``, the ``images/`` tree next to the JSONL files instead)."""
    base = root / REPO_ID
    for name, rows in files.items():
        write_jsonl(base / name, rows)
    if extracted:
        for rel, data in images.items():
            (base / rel).parent.mkdir(parents=True, exist_ok=True)
            (base / rel).write_bytes(data)
    else:
        write_archive(base / ARCHIVE, images)
    return base
