"""Configured credentials never reach what a run prints or writes.

The secrets are the values of :data:`SECRET_VARIABLES` (an API key, a Hugging Face token) and the password in
the user-info of :data:`URL_VARIABLES` (``https://user:token@host/v1``), with the Basic-auth form an HTTP client
sends for it (a server or proxy may echo it back). :func:`mask` replaces each with ``***``.

:func:`install_log_mask` masks them in every message of the process's loguru logger, which lmms-eval uses: lmms-eval
0.7.3 itself logs its evaluation-tracker arguments, ``HF_TOKEN`` included, at INFO level when the run starts
(``lmms_eval/__main__.py``, "Evaluation tracker args"). Our lmms-eval plugin installs it before that line runs
(:mod:`food_tasks.registration`).
"""

from __future__ import annotations

import base64
import functools
import os
from collections.abc import Iterable
from urllib.parse import unquote, urlsplit

from food_tasks.hooks.outputs import utf8_safe

SECRET_VARIABLES = (
    "OPENAI_API_KEY",
    "HF_TOKEN",
    "HUGGING_FACE_HUB_TOKEN",
    "AZURE_API_KEY",
    "AZURE_OPENAI_API_KEY",
    "ANTHROPIC_API_KEY",
)
URL_VARIABLES = ("OPENAI_API_URL",)
MASK = "***"
MIN_LENGTH = 4  # shorter values would mask ordinary text at random


def url_secrets(url: str) -> set[str]:
    """The password of ``url``'s user-info (as written and percent-decoded) and its Basic-auth encoding."""
    try:
        parts = urlsplit(url.strip())
        user, password = parts.username or "", parts.password or ""
    except ValueError:
        return set()
    if not password:
        return set()
    basic = base64.b64encode(f"{unquote(user)}:{unquote(password)}".encode("utf-8", "replace")).decode()
    return {password, unquote(password), basic}


def secrets_of(values: Iterable[str], urls: Iterable[str] = ()) -> tuple[str, ...]:
    """Secrets to mask, longest first (a secret containing another is masked whole), short values left out."""
    found = {v.strip() for v in values if v}
    for url in urls:
        found |= url_secrets(url or "")
    return tuple(sorted((s for s in found if len(s) >= MIN_LENGTH), key=len, reverse=True))


def configured_secrets() -> tuple[str, ...]:
    """The secrets configured in the environment now: those of :data:`SECRET_VARIABLES` and :data:`URL_VARIABLES`,
    and of the judges' own keys and endpoints (the variables ``FOOD_TASKS_JUDGE_KEY_VARS`` names and the URLs of
    ``FOOD_TASKS_JUDGE_URL``, :func:`food_tasks.judge.client.judges_from_env`)."""
    named = [n.strip() for n in os.environ.get("FOOD_TASKS_JUDGE_KEY_VARS", "").split(",") if n.strip()]
    urls = [*(os.environ.get(n, "") for n in URL_VARIABLES), *os.environ.get("FOOD_TASKS_JUDGE_URL", "").split(",")]
    keys = [os.environ.get(n, "") if n.isidentifier() else n for n in (*SECRET_VARIABLES, *named)]  # a key written
    return _configured(tuple(keys), tuple(urls))  # in FOOD_TASKS_JUDGE_KEY_VARS by mistake is masked too


@functools.lru_cache(maxsize=8)
def _configured(values: tuple[str, ...], urls: tuple[str, ...]) -> tuple[str, ...]:
    return secrets_of(values, urls)


def mask(text: str, secrets: Iterable[str] | None = None) -> str:
    """``text`` with every secret (default: :func:`configured_secrets`) replaced by ``***``, made UTF-8 safe."""
    for secret in configured_secrets() if secrets is None else secrets:
        if secret in text:
            text = text.replace(secret, MASK)
    return utf8_safe(text)


def _patch(record: dict) -> None:
    secrets = configured_secrets()
    if secrets and isinstance(record.get("message"), str):
        record["message"] = mask(record["message"], secrets)


def install_log_mask() -> None:
    """Mask the configured secrets in every loguru message of this process (see the module docstring)."""
    from loguru import logger

    logger.configure(patcher=_patch)
