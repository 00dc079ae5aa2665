"""Writers of Food-500 Cap's official layout for test fixtures and the packaged sample data.

Caption files as in the official repository (``github/aaronma2020/Food500-Cap/*.json``, a JSON array of
``{"cat", "filename", "caption"}``) and generated images under ``isia_food500/images/<filename>``
(the ``FOOD_TASKS_DATA_DIR`` layout). Images are generated JPEGs, never ISIA Food-500 images.
"""

from __future__ import annotations

import io
import json
from collections.abc import Mapping, Sequence
from pathlib import Path

from food_tasks.benchmarks.food500cap.data import MIRROR_IMAGES, REPO
from food_tasks.data import mirror


def jpeg_bytes(color: tuple[int, int, int], size: int = 48) -> bytes:
    """A small generated JPEG (the official file names end in .jpg)."""
    from PIL import Image

    png = Image.open(io.BytesIO(mirror.png_bytes(color, size)))
    buf = io.BytesIO()
    png.convert("RGB").save(buf, format="JPEG", quality=90)
    return buf.getvalue()


def write_captions(root: Path, files: Mapping[str, Sequence[Mapping[str, str]]]) -> Path:
    """Write caption files (name -> records) as the official repository has them (one JSON array per file)."""
    base = root / "github" / REPO
    base.mkdir(parents=True, exist_ok=True)
    for name, rows in files.items():
        (base / name).write_text(json.dumps(list(rows), ensure_ascii=False), encoding="utf-8")
    return base


def write_images(root: Path, images: Mapping[str, bytes]) -> Path:
    """Write images (filename relative to the image root -> bytes) under ``root/isia_food500/images``."""
    base = root.joinpath(*MIRROR_IMAGES)
    for filename, payload in images.items():
        path = base / filename
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(payload)
    return base
