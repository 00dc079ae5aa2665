"""Chat-message construction shared by every ``doc_to_messages`` hook.

Hooks build messages from the same ``doc_to_visual`` / ``doc_to_text`` pieces
that lmms-eval's simple models use, so the chat and simple paths cannot diverge.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any


def build_messages(
    images: Sequence[Any], text: str, *, images_first: bool = True, system: str | None = None
) -> list[dict]:
    """One user turn holding ``images`` and ``text`` (images first by default), optionally after a system turn."""
    parts: list[dict] = [{"type": "image", "url": image} for image in images]
    text_part = {"type": "text", "text": text}
    content = parts + [text_part] if images_first else [text_part] + parts
    messages = [{"role": "system", "content": [{"type": "text", "text": system}]}] if system else []
    return messages + [{"role": "user", "content": content}]
