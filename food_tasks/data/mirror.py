"""Generic writers for small local mirrors in the layout of the official distributions.

Benchmark-specific writers live in ``food_tasks/benchmarks/<bench>/layout.py`` and use these.

Used to build the packaged sample data (the embedded default) and the test
fixtures. The layout is the ``FOOD_TASKS_DATA_DIR`` layout: a hub dataset
``org/name`` lives in ``<root>/org/name/`` with the repository's own file paths.
"""

from __future__ import annotations

import io
import json
from pathlib import Path


def png_bytes(color: tuple[int, int, int], size: int = 32, label: str = "") -> bytes:
    """A small generated PNG (solid colour with a darker square), optionally with a text label."""
    from PIL import Image, ImageDraw

    image = Image.new("RGB", (size, size), color)
    draw = ImageDraw.Draw(image)
    q = size // 4
    draw.rectangle([q, q, size - q, size - q], fill=tuple(c // 2 for c in color))
    if label:
        draw.text((2, 2), label, fill=(255, 255, 255))
    buf = io.BytesIO()
    image.save(buf, format="PNG")
    return buf.getvalue()


def write_github_repo(root: Path, repo: str, files: dict[str, object]) -> Path:
    """Write ``files`` (repository path -> JSON-serialisable content or text) as ``root/github/<repo>/<path>``."""
    base = root / "github" / repo
    for rel, content in files.items():
        path = base / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        text = content if isinstance(content, str) else json.dumps(content, ensure_ascii=False, indent=1) + "\n"
        path.write_text(text, encoding="utf-8")
    return base


def write_url_images(root: Path, images: dict[str, bytes]) -> None:
    """Write images as ``root/urls/<local_relpath(url)>`` (the mirror layout of :mod:`food_tasks.data.remote`)."""
    from food_tasks.data.remote import local_relpath

    for url, data in images.items():
        path = root / "urls" / local_relpath(url)
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(data)
