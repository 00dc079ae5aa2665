"""The script both serving stand-ins answer from, and the key they find an answer by.

A request is keyed by its conversation as the engine sees it: roles, text parts verbatim and, per
image, a digest of its pixels, in order. The tests compute the same key from our ``doc_to_messages``
hooks, so an answer reaches the engine only if the conversation our hooks built reached it intact.
"""

from __future__ import annotations

import base64
import hashlib
import io
import json
import os
import threading
from pathlib import Path

from PIL import Image

SCRIPT_ENV = "FOOD_TASKS_ENGINE_SCRIPT"  # JSON {key: {"answer": str, "faults": [..]}}
LOG_ENV = "FOOD_TASKS_ENGINE_LOG"  # JSON Lines: one record per engine call / HTTP request


def image_digest(image) -> str:  # type: ignore[no-untyped-def]
    """``<image WxH digest>`` of a PIL image, a data URL or an OpenAI ``image_url`` part (pixels, not encoding)."""
    if isinstance(image, dict):
        image = image["image_url"]["url"]
    if isinstance(image, str):
        image = Image.open(io.BytesIO(base64.b64decode(image.partition(",")[2])))
    rgb = image.convert("RGB")
    return f"<image {rgb.width}x{rgb.height} {hashlib.sha256(rgb.tobytes()).hexdigest()[:12]}>"


def canonical(messages: list[dict]) -> list[list]:
    """``[[role, [text | "<image WxH digest>", ...]], ...]`` from our messages or OpenAI-format ones."""
    out = []
    for message in messages:
        parts = []
        content = message["content"]
        for part in [{"type": "text", "text": content}] if isinstance(content, str) else content:
            kind = part.get("type")
            if kind == "text":
                parts.append(part["text"])
            elif kind == "image":
                parts.append(image_digest(part["url"]))
            elif kind == "image_url":
                parts.append(image_digest(part))
            else:
                parts.append(f"<{kind}>")
        out.append([message["role"], parts])
    return out


def request_key(messages: list[dict]) -> str:
    return hashlib.sha256(json.dumps(canonical(messages), ensure_ascii=False).encode("utf-8")).hexdigest()[:16]


def load_script() -> dict[str, dict]:
    path = os.environ.get(SCRIPT_ENV)
    if not path:
        raise RuntimeError(f"stand-in engine: set {SCRIPT_ENV} to the answer script (JSON)")
    return json.loads(Path(path).read_text(encoding="utf-8"))


_LOCK = threading.Lock()


def log(record: dict) -> None:
    path = os.environ.get(LOG_ENV)
    if path:
        with _LOCK, open(path, "a", encoding="utf-8") as fh:
            fh.write(json.dumps(record, ensure_ascii=False, default=repr) + "\n")


def read_log(path: Path) -> list[dict]:
    return (
        [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
        if path.exists()
        else []
    )
