"""Configured credentials are masked in what we log (food_tasks.judge.redact)."""

from __future__ import annotations

import base64
import io

from loguru import logger

from food_tasks.judge import redact


def test_secrets_from_the_environment_and_urls(monkeypatch):
    for name in (*redact.SECRET_VARIABLES, *redact.URL_VARIABLES):
        monkeypatch.delenv(name, raising=False)
    assert redact.configured_secrets() == ()
    monkeypatch.setenv("HF_TOKEN", "hf_abcdefghijklmnop")
    monkeypatch.setenv("OPENAI_API_KEY", "sk-key-1234")
    monkeypatch.setenv("OPENAI_API_URL", "https://me:p%40ss-word@judge.example.com:8443/v1")
    basic = base64.b64encode(b"me:p@ss-word").decode()
    assert set(redact.configured_secrets()) == {"hf_abcdefghijklmnop", "sk-key-1234", "p%40ss-word", "p@ss-word", basic}
    text = f"token=hf_abcdefghijklmnop Bearer sk-key-1234 url=https://me:p%40ss-word@judge.example.com Basic {basic}"
    assert redact.mask(text) == "token=*** Bearer *** url=https://me:***@judge.example.com Basic ***"
    assert redact.mask("no secret, a lone \udf20") == "no secret, a lone \ufffd"
    monkeypatch.setenv("OPENAI_API_KEY", "abc")  # too short to mask without masking ordinary text
    assert "abc" not in redact.configured_secrets()


def test_the_log_mask_covers_every_loguru_message(monkeypatch):
    monkeypatch.setenv("HF_TOKEN", "hf_FAKE_TOKEN_FOR_THE_LOG")
    sink = io.StringIO()
    handler = logger.add(sink, format="{message}")
    try:
        redact.install_log_mask()
        logger.bind(name="lmms-eval").info("Evaluation tracker args: {'token': 'hf_FAKE_TOKEN_FOR_THE_LOG'}")
    finally:
        logger.remove(handler)
        logger.configure(patcher=None)
    assert sink.getvalue().strip() == "Evaluation tracker args: {'token': '***'}"
