"""An LLM judge over any OpenAI-compatible chat-completions endpoint, for every benchmark.

Configured the way lmms-eval configures its own judges, plus one variable for the model name:

=========================  ==========================================================================
``API_TYPE``               ``openai`` (default; any OpenAI-compatible server: OpenAI, vLLM, SGLang ...,
                           called over HTTP here); any other provider of ``lmms_eval.llm_judge``
                           (``azure``, ``bedrock``, ...) is used through that provider, configured by its
                           own variables, one attempt per call inside our retries and cache
``OPENAI_API_URL``         base URL (``https://api.openai.com/v1``, ``http://host:8000/v1``) or the full
                           ``.../chat/completions`` URL (both spellings occur in lmms-eval tasks)
``OPENAI_API_KEY``         bearer token (may be empty for a local server)
``FOOD_TASKS_JUDGE_MODEL`` judge model name sent as ``model``; required by judged tasks. ``none`` turns
                           judging off explicitly (judge metrics are then written as null). A comma list
                           ``a,b[,c]`` is a panel of judges (:mod:`food_tasks.judge.panel`), the first the headline
``FOOD_TASKS_JUDGE_URL``      per-judge endpoints, aligned with the models (one value: all; default ``OPENAI_API_URL``)
``FOOD_TASKS_JUDGE_KEY_VARS`` per-judge *names* of the variables holding each key (default ``OPENAI_API_KEY``)
``FOOD_TASKS_JUDGE_REPEATS``  requests per record and judge, each its own cache entry (default 1)
``FOOD_TASKS_JUDGE_TEMPERATURE``  temperature of every robust request (default: the benchmark's own)
``FOOD_TASKS_JUDGE_PRICE``    ``<in>,<out>`` USD per million prompt / completion tokens (``;`` between judges)
``FOOD_TASKS_JUDGE_WORKERS``  concurrent requests (default 8)
``FOOD_TASKS_JUDGE_TIMEOUT``  seconds per attempt, the whole of it: connect, send, wait, read (default 60)
``FOOD_TASKS_JUDGE_ATTEMPTS`` attempts per request (default 5; exponential back-off from 1 s)
``FOOD_TASKS_JUDGE_BACKOFF``  first back-off delay in seconds (default 1; doubled per attempt)
``FOOD_TASKS_JUDGE_RETRY_AFTER_MAX``  the longest ``Retry-After`` (HTTP 429/503) waited, seconds (default 120)
``FOOD_TASKS_JUDGE_CACHE``    cache directory (default ``<food-tasks cache>/judge``)
=========================  ==========================================================================

Every successful completion is cached on disk, keyed by the SHA-256 of the full request body (model,
messages, temperature, max_tokens), so a re-run or a resumed run makes no request for what it already
judged (failed requests are remembered for the rest of the process and retried by the next run); repeat ``r > 0`` of
a request has its own key (:func:`request_key`). The response's ``usage`` (prompt and completion tokens) is kept with
the text; a cached answer costs no new tokens. Timeouts,
connection errors, HTTP 429/5xx and unreadable bodies are retried with back-off (after the server's ``Retry-After``
where it sends one); a request that still fails yields a :class:`JudgeResult` with ``error`` set (counted by the
caller, never raised). Client errors (HTTP 4xx other than 429) are not retried. How requests travel (httpx, tenacity,
the whole-attempt timeout, Ctrl-C) is :mod:`food_tasks.judge.transport`; the disk cache and its per-entry lock (two
runs sharing a cache pay once) are :mod:`food_tasks.judge.store`.

Any text is accepted: lone UTF-16 surrogates (which a model's byte-level tokenizer can produce, and no UTF-8
encoder takes) in a request or in the judge's reply become U+FFFD before anything is hashed, sent or cached
(:func:`food_tasks.hooks.outputs.utf8_safe`), so one such output is one judged row, never a lost task. What is
logged is free of credentials: the endpoint as host and port only, and failure reasons with the API key and
URL password masked.
"""

from __future__ import annotations

import asyncio
import functools
import hashlib
import json
import math
import os
import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
from loguru import logger

from food_tasks.errors import SetupError
from food_tasks.hooks.outputs import utf8_safe
from food_tasks.judge import transport
from food_tasks.judge.store import Store
from food_tasks.judge.transport import JudgingInterrupted  # noqa: F401  (public here: what Ctrl-C raises)

MODEL_ENV = "FOOD_TASKS_JUDGE_MODEL"
DISABLED = {"none", "off", "0", "false", "no"}
DEFAULT_URL = "https://api.openai.com/v1"


class JudgeNotConfigured(SetupError):
    """A judged task was requested without a judge; the message says how to configure one."""

    label = "the LLM judge is not configured"


class JudgeSettingsInvalid(JudgeNotConfigured):
    """A judge setting is set but malformed (a bad number, list, name or API type); the message names the variable
    and what to write. A :class:`JudgeNotConfigured`: every caller that catches one catches both."""

    label = "the LLM judge settings are invalid"


def _int_env(name: str, default: int) -> int:
    value = os.environ.get(name, "").strip()
    try:
        return max(1, int(value)) if value else default
    except ValueError:
        raise JudgeSettingsInvalid(f"{name}={value!r} is not an integer") from None


@dataclass(frozen=True)
class JudgeConfig:
    """Where and how to call the judge."""

    model: str
    api_type: str = "openai"
    url: str = DEFAULT_URL
    api_key: str = field(default="", repr=False)  # never in a repr (a log of the configuration)
    workers: int = 8
    timeout: float = 60.0
    attempts: int = 5
    backoff: float = 1.0
    retry_after_max: float = transport.RETRY_AFTER_MAX  # longest Retry-After waited (FOOD_TASKS_JUDGE_RETRY_AFTER_MAX)
    cache_dir: str = ""
    repeats: int = 1  # requests per record (FOOD_TASKS_JUDGE_REPEATS), each its own cache entry
    temperature: float | None = None  # of every robust request (FOOD_TASKS_JUDGE_TEMPERATURE); None: the benchmark's
    key_var: str = "OPENAI_API_KEY"  # the variable the key was read from (never the key)

    @property
    def endpoint(self) -> str:
        """The chat-completions URL: ``url`` itself when it ends in ``/chat/completions``, else with it appended."""
        url = self.url.rstrip("/")
        return url if url.endswith("/chat/completions") else f"{url}/chat/completions"

    @property
    def endpoint_host(self) -> str:
        """``host[:port]`` of the endpoint, what results may show (never the URL's ``user:password@``, path, query)."""
        return host_port(self.url)

    @property
    def secrets(self) -> tuple[str, ...]:
        """The credentials to mask in anything we log: the API key, the URL's user-info password (and its
        Basic-auth form), and those configured in the environment (:mod:`food_tasks.judge.redact`)."""
        from food_tasks.judge.redact import configured_secrets, secrets_of

        return secrets_of((self.api_key, *configured_secrets()), (self.url,))

    def redact(self, text: str) -> str:
        """``text`` with every secret replaced by ``***`` (and made UTF-8 safe)."""
        from food_tasks.judge.redact import mask

        return mask(text, self.secrets)

    @classmethod
    def from_env(cls, purpose: str = "this task") -> JudgeConfig | None:
        """The first (headline) judge of :func:`judges_from_env`; None when judging is explicitly off.

        Raises:
            JudgeNotConfigured: no judge model is set, a list is malformed, or the API type is unsupported.
        """
        judges = judges_from_env(purpose)
        return judges[0] if judges else None


URL_ENV = "FOOD_TASKS_JUDGE_URL"
PRICE_SEPARATOR_OF = "FOOD_TASKS_JUDGE_PRICE"  # the variable whose list ';' separates
KEY_VARS_ENV = "FOOD_TASKS_JUDGE_KEY_VARS"
REPEATS_ENV = "FOOD_TASKS_JUDGE_REPEATS"
TEMPERATURE_ENV = "FOOD_TASKS_JUDGE_TEMPERATURE"


def _env_list(name: str, n: int, *, secret: bool = False) -> list[str] | None:
    """The comma list in ``name`` for ``n`` judges (one value: every judge), or None when unset. Errors name the
    variable and what to write; a value that may be a credential (``secret``) is never repeated in them."""
    raw = os.environ.get(name, "").strip()
    if not raw:
        return None
    items = [item.strip() for item in raw.split(",")]
    shown = "" if secret else f"={raw!r}"
    if any(not item for item in items):
        raise JudgeSettingsInvalid(f"{name}{shown} has an empty entry: write one value per judge, separated by commas")
    if len(items) not in (1, n):
        raise JudgeSettingsInvalid(
            f"{name}{shown} has {len(items)} values for {n} judges ({MODEL_ENV}): write one value for every judge "
            "or one for all"
        )
    return items * n if len(items) == 1 else items


def _number_env(name: str, kind: type, low: float, what: str) -> Any:
    """``kind(value)`` of ``name`` (at least ``low``), None when unset; else a clear error."""
    raw = os.environ.get(name, "").strip()
    if not raw:
        return None
    try:
        value = kind(raw)
    except ValueError:
        value = None
    if value is None or not math.isfinite(value) or value < low:
        raise JudgeSettingsInvalid(f"{name}={raw!r} is not {what}; write e.g. {name}={kind(low) + 1}, or unset it")
    return value


def judges_from_env(purpose: str = "this task") -> list[JudgeConfig] | None:
    """The judges configured in the environment, the headline judge first; None when judging is explicitly off.

    ``FOOD_TASKS_JUDGE_MODEL=a,b[,c]``; each judge's endpoint from ``FOOD_TASKS_JUDGE_URL`` (a list aligned with the
    models, or one value for all; unset: ``OPENAI_API_URL``, then the default) and its key from the variable that
    ``FOOD_TASKS_JUDGE_KEY_VARS`` names for it (default ``OPENAI_API_KEY``); ``FOOD_TASKS_JUDGE_REPEATS`` and
    ``FOOD_TASKS_JUDGE_TEMPERATURE`` apply to every judge.

    Raises:
        JudgeNotConfigured: no judge model is set; an empty or duplicate name; a list whose length does not match
            the models; a key variable that is not set; a bad number; an unsupported API type.
    """
    raw = os.environ.get(MODEL_ENV, "").strip()
    if raw.lower() in DISABLED:
        return None
    models = [m.strip() for m in raw.split(",")] if raw else []
    if models and any(not m for m in models):
        raise JudgeSettingsInvalid(
            f"{MODEL_ENV}={raw!r} has an empty judge name: write the names separated by commas, e.g. "
            f"{MODEL_ENV}=gpt-4o,qwen2.5-72b-instruct"
        )
    if any(";" in m for m in models):
        raise JudgeSettingsInvalid(
            f"{MODEL_ENV}={raw!r}: ';' separates the judges' prices ({PRICE_SEPARATOR_OF}), not judges: write "
            f"several judges separated by commas, e.g. {MODEL_ENV}={raw.replace(';', ',')!r}"
        )
    seen = [m for i, m in enumerate(models) if m in models[:i]]
    if seen:
        raise JudgeSettingsInvalid(f"{MODEL_ENV}={raw!r} names the judge {seen[0]!r} twice: name each judge once")
    off = [m for m in models if m.lower() in DISABLED]
    if off and len(models) > 1:
        raise JudgeSettingsInvalid(
            f"{MODEL_ENV}={raw!r}: {off[0]!r} turns judging off and cannot be one of several judges"
        )
    api_type = os.environ.get("API_TYPE", "openai").strip().lower() or "openai"
    problem = next((p for p in (_provider_problem(api_type, m) for m in models) if p), None)
    if not models or problem:
        raise (JudgeSettingsInvalid if problem else JudgeNotConfigured)(
            f"{purpose} is scored by an LLM judge, but {problem or f'{MODEL_ENV} is not set'}. Configure an "
            f"OpenAI-compatible judge:\n"
            f"  export OPENAI_API_URL=http://localhost:8000/v1   # or https://api.openai.com/v1\n"
            f"  (several judges on their own servers: {URL_ENV}=<url>,<url>, one per judge)\n"
            f"  export OPENAI_API_KEY=...                         # empty for a local server\n"
            f"  export {MODEL_ENV}=<judge model name>\n"
            f"(API_TYPE=openai is the default). To report only the metrics that need no judge, set "
            f"{MODEL_ENV}=none explicitly; the judge metrics are then null."
        )
    from food_tasks.data.remote import cache_root

    n = len(models)
    urls = _env_list(URL_ENV, n) or [os.environ.get("OPENAI_API_URL", "").strip() or DEFAULT_URL] * n
    named = _env_list(KEY_VARS_ENV, n, secret=True)
    key_vars = named or ["OPENAI_API_KEY"] * n
    for var in named or ():
        if not var.isidentifier():  # perhaps the key itself: never repeated
            raise JudgeSettingsInvalid(
                f"{KEY_VARS_ENV} names the environment variables that hold the keys (e.g. "
                f"{KEY_VARS_ENV}=OPENAI_API_KEY,OTHER_KEY), never the keys; one entry is not a variable name"
            )
        if var not in os.environ:
            raise JudgeSettingsInvalid(
                f"{KEY_VARS_ENV} names {var}, which is not set: export {var}=<key> (empty for a local server)"
            )
    timeout = _number_env("FOOD_TASKS_JUDGE_TIMEOUT", float, 0.0, "a number of seconds")
    backoff = _number_env("FOOD_TASKS_JUDGE_BACKOFF", float, 0.0, "a number of seconds")
    ceiling = _number_env(transport.RETRY_AFTER_ENV, float, 0.0, "a number of seconds")
    repeats = _number_env(REPEATS_ENV, int, 1, "a whole number of at least 1")
    temperature = _number_env(TEMPERATURE_ENV, float, 0.0, "a temperature (a number >= 0)")
    common = {
        "api_type": api_type,
        "workers": _int_env("FOOD_TASKS_JUDGE_WORKERS", 8),
        "timeout": 60.0 if timeout is None else timeout,
        "attempts": _int_env("FOOD_TASKS_JUDGE_ATTEMPTS", 5),
        "backoff": 1.0 if backoff is None else backoff,
        "retry_after_max": transport.RETRY_AFTER_MAX if ceiling is None else ceiling,
        "cache_dir": os.environ.get("FOOD_TASKS_JUDGE_CACHE", "").strip() or str(cache_root() / "judge"),
        "repeats": repeats or 1,
        "temperature": temperature,
    }
    return [
        JudgeConfig(model=m, url=u, api_key=os.environ.get(k, "").strip(), key_var=k, **common)
        for m, u, k in zip(models, urls, key_vars)
    ]


def host_port(url: str) -> str:
    """``host`` or ``host:port`` of ``url`` (IPv6 hosts in brackets), without user-info, path or query."""
    from urllib.parse import urlsplit

    try:
        parts = urlsplit(url.strip())
        host = parts.hostname or ""
    except ValueError:  # unparseable (an unclosed IPv6 bracket): nothing rather than the raw URL
        return ""
    try:
        port = parts.port
    except ValueError:  # a port that is not a number: the host alone
        port = None
    host = f"[{host}]" if ":" in host else host
    return f"{host}:{port}" if port else host


def _provider_problem(api_type: str, model: str) -> str | None:
    """Why ``API_TYPE`` cannot serve as the judge, or None. ``openai`` is our own HTTP client; any other type
    is one of lmms-eval's judge providers, built here once (public ``lmms_eval.llm_judge.get_server``) so that
    an unknown type or a provider that cannot start fails before generation, with lmms-eval's message."""
    if api_type == "openai":
        return None
    try:
        from lmms_eval.llm_judge import ServerConfig, get_server

        get_server(api_type, ServerConfig(model_name=model))
    except Exception as err:  # noqa: BLE001 - any failure to build the provider is a configuration problem
        return f"API_TYPE={api_type!r} cannot be used ({type(err).__name__}: {err})"
    return None


@dataclass
class JudgeResult:
    """One completion: ``text`` (stripped) on success, else ``error`` (the last failure).

    ``attempts`` are the HTTP attempts made for it in this process (0 when it came from the disk cache),
    ``reasons`` the failure reason of each failed attempt, ``key`` its :func:`request_key`, ``usage``
    ``{"prompt_tokens": int, "completion_tokens": int}`` from the response (None when the server sent none; a
    ``cached`` result keeps what the cache stored, and costs no new tokens).
    """

    text: str | None
    error: str | None = None
    cached: bool = False
    attempts: int = 0
    reasons: tuple[str, ...] = ()
    key: str = ""
    usage: dict[str, int] | None = None


@dataclass
class JudgeStats:
    """Counters of one client (thread-safe updates through :meth:`JudgeClient._count`)."""

    requests: int = 0  # HTTP requests sent (attempts)
    failed_attempts: int = 0  # attempts that failed (retried or not)
    failures: int = 0  # requests that failed after every attempt
    cache_hits: int = 0
    completions: int = 0  # successful completions obtained over HTTP
    by_reason: dict[str, int] = field(default_factory=dict)


def request_body(
    config: JudgeConfig, prompt: str, *, temperature: float = 0.0, max_tokens: int = 100
) -> dict[str, Any]:
    """The chat-completions body of one single-turn judge request (text made UTF-8 safe)."""
    return clean_body(
        {
            "model": config.model,
            "messages": [{"role": "user", "content": prompt}],
            "temperature": temperature,
            "max_tokens": max_tokens,
        }
    )


def clean_body(value: Any) -> Any:
    """``value`` with every string in it (keys included) made UTF-8 safe (:func:`food_tasks.hooks.outputs.utf8_safe`):
    what is hashed, sent and cached is the same text, and every encoder takes it."""
    if isinstance(value, str):
        return utf8_safe(value)
    if isinstance(value, dict):
        return {clean_body(k): clean_body(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [clean_body(v) for v in value]
    return value


def request_key(body: dict[str, Any], repeat: int = 0) -> str:
    """SHA-256 of the canonical JSON of the full request body (after :func:`clean_body`); repeat ``r > 0`` of the same
    body (:attr:`JudgeConfig.repeats`) hashes the body followed by a ``repeat=r`` marker: its own cache entry."""
    text = json.dumps(clean_body(body), sort_keys=True, ensure_ascii=False)
    return hashlib.sha256((f"{text}\nrepeat={repeat}" if repeat else text).encode()).hexdigest()


def read_usage(value: Any) -> dict[str, int] | None:
    """``{"prompt_tokens", "completion_tokens"}`` of a response's ``usage`` (non-negative integers), else None."""
    if not isinstance(value, dict):
        return None
    found = {k: value.get(k) for k in ("prompt_tokens", "completion_tokens")}
    ok = all(type(v) is int and v >= 0 for v in found.values())
    return found if ok else None  # type: ignore[return-value]


def summarize(config: JudgeConfig, results: Sequence[JudgeResult]) -> dict[str, Any]:
    """What to log next to the scores of one task: the judge model, its endpoint host and the counters of the
    requests behind ``results`` (each distinct request once).

    Computed from the task's own results, not from the client's counters, which a process shares across
    tasks: ``http_requests`` are the attempts made for these requests (a request that another task of the
    same run made first is counted in both), ``failures`` the requests that failed after every attempt,
    ``cache_hits`` the requests answered from the disk cache, ``completions`` those answered over HTTP.
    """
    distinct = list({r.key or id(r): r for r in results}.values())
    reasons: dict[str, int] = {}
    for r in distinct:
        for reason in r.reasons:
            reasons[reason] = reasons.get(reason, 0) + 1
    return {
        "model": config.model,
        "endpoint": config.endpoint_host,
        "http_requests": sum(r.attempts for r in distinct),
        "failed_attempts": sum(len(r.reasons) for r in distinct),
        "failures": sum(r.text is None for r in distinct),
        "cache_hits": sum(r.cached for r in distinct),
        "completions": sum(r.text is not None and not r.cached for r in distinct),
        "failure_reasons": reasons,
    }


class JudgeClient:
    """Bounded-concurrency, cached, retrying chat-completions client (:mod:`food_tasks.judge.transport`: httpx,
    tenacity, whole-attempt timeouts, ``Retry-After``, Ctrl-C; :mod:`food_tasks.judge.store`: the disk cache, its
    per-entry lock). ``sleep``: the wait between attempts (tests pass their own; default ``asyncio.sleep``)."""

    def __init__(self, config: JudgeConfig, *, sleep: Callable[[float], Any] | None = None) -> None:
        self.config = config
        self.stats = JudgeStats()
        self._sleep = sleep
        self._lock = threading.Lock()
        self._memo: dict[str, JudgeResult] = {}
        self._local = threading.local()
        self.store = Store(Path(config.cache_dir) if config.cache_dir else None, _cache_warning)

    async def _wait(self, seconds: float) -> None:
        if self._sleep is None:
            await asyncio.sleep(seconds)
        else:
            self._sleep(seconds)

    def _count(self, **deltas: int) -> None:
        with self._lock:
            for name, delta in deltas.items():
                setattr(self.stats, name, getattr(self.stats, name) + delta)

    def _reason(self, reason: str) -> None:
        with self._lock:
            self.stats.by_reason[reason] = self.stats.by_reason.get(reason, 0) + 1

    def _provider_attempt(self, body: dict) -> transport.Outcome:
        """One attempt through an ``lmms_eval.llm_judge`` provider (API types other than ``openai``)."""
        from lmms_eval.llm_judge import Request, ServerConfig, get_server

        try:
            if getattr(self._local, "provider", None) is None:
                config = ServerConfig(
                    model_name=body["model"],
                    temperature=body["temperature"],
                    max_tokens=body["max_tokens"],
                    timeout=int(self.config.timeout),
                    num_retries=1,
                    retry_delay=0,
                )
                self._local.provider = get_server(self.config.api_type, config)
            response = self._local.provider.evaluate(Request(messages=body["messages"]))
        except Exception as err:  # noqa: BLE001 - provider errors are counted like HTTP errors
            return transport.Outcome(None, f"provider error ({type(err).__name__})", True)
        if not getattr(response, "success", False) or not isinstance(response.content, str):
            message = self.config.redact(str(getattr(response, "error_message", "") or "no content"))
            return transport.Outcome(None, f"provider error ({message})"[:200], True)
        return transport.Outcome(response.content, usage=getattr(response, "usage", None))

    async def _attempt(self, http: httpx.AsyncClient, body: dict) -> transport.Outcome:
        """One attempt (counted), over HTTP or through a provider."""
        self._count(requests=1)
        if self.config.api_type != "openai":
            return await asyncio.to_thread(self._provider_attempt, body)
        headers = {"Content-Type": "application/json"}
        if self.config.api_key:
            headers["Authorization"] = f"Bearer {self.config.api_key}"
        return await transport.post(
            http, self.config.endpoint, body, headers, self.config.timeout, lambda text: self.config.redact(text)
        )

    def _cached(self, key: str) -> JudgeResult | None:
        found = self.store.get(key)
        if found is None:
            return None
        self._count(cache_hits=1)
        return JudgeResult(utf8_safe(found[0]), cached=True, key=key, usage=read_usage(found[1]))

    async def _obtain(self, http: httpx.AsyncClient, body: dict, key: str) -> JudgeResult:
        """The cache's entry, else (under the entry's lock, the cache read again) a request with retries."""
        result = self._cached(key)
        if result is not None:
            return result
        c = self.config  # the longest another process's request for it can take, roughly: then ask unlocked
        async with self.store.locked(key, c.attempts * (c.timeout + max(c.retry_after_max, c.backoff * 2**c.attempts))):
            result = self._cached(key)  # another process may have answered it while we waited for the lock
            if result is not None:
                return result

            async def attempt() -> transport.Outcome:
                return await self._attempt(http, body)

            outcome, reasons = await transport.with_retries(
                attempt, self.config.attempts, self.config.backoff, self._wait, self.config.retry_after_max
            )
            for reason in reasons:
                self._count(failed_attempts=1)
                self._reason(reason)
            attempts = len(reasons) + (outcome.text is not None)
            if outcome.text is None:
                self._count(failures=1)
                return JudgeResult(None, outcome.reason, attempts=attempts, reasons=tuple(reasons), key=key)
            text, usage = utf8_safe(outcome.text.strip()), read_usage(outcome.usage)
            self._count(completions=1)
            entry = {"request": body, "response": text, **({"usage": usage} if usage is not None else {})}
            self.store.put(key, clean_body(entry))
            return JudgeResult(text, attempts=attempts, reasons=tuple(reasons), key=key, usage=usage)

    async def _all(self, unique: dict[str, dict[str, Any]]) -> dict[str, JudgeResult]:
        limit = asyncio.Semaphore(self.config.workers)
        limits = httpx.Limits(max_connections=self.config.workers, max_keepalive_connections=self.config.workers)
        timeout = httpx.Timeout(self.config.timeout)

        async def one(http: httpx.AsyncClient, key: str, body: dict) -> JudgeResult:
            async with limit:
                result = await self._obtain(http, body, key)
            with self._lock:  # failures too: the metrics of one task share the outcome; a new run retries them
                self._memo[key] = result
            return result

        verify = transport.ssl_context()
        async with httpx.AsyncClient(limits=limits, timeout=timeout, trust_env=True, verify=verify) as http:
            done = await asyncio.gather(*(one(http, k, b) for k, b in unique.items()))
        return dict(zip(unique, done))

    def complete(self, body: dict[str, Any], repeat: int = 0) -> JudgeResult:
        """One completion for ``body`` (memory, then disk cache, then HTTP with retries); ``repeat`` r > 0 is
        the same request under its own key (:func:`request_key`)."""
        return self.complete_many([body], repeat)[0]

    def complete_many(self, bodies: Sequence[dict[str, Any]], repeat: int = 0) -> list[JudgeResult]:
        """Completions for ``bodies`` in order; duplicates are requested once; at most ``workers`` at a time.
        ``repeat`` r > 0: the same bodies, each cached under its own key for that repeat (:func:`request_key`).

        Raises:
            JudgingInterrupted: Ctrl-C (a clean exit, status 130), after saying that a rerun resumes from the cache.
        """
        bodies = [clean_body(b) for b in bodies]
        keys = [request_key(b, repeat) for b in bodies]
        with self._lock:
            done = {k: self._memo[k] for k in keys if k in self._memo}
        todo = {k: b for k, b in zip(keys, bodies) if k not in done}
        if todo:
            try:
                done.update(transport.run_interruptible(self._all(todo)))
            except transport.JudgingInterrupted:
                logger.warning(interrupted_message(self.config, self.stats.completions))
                raise
        return [done[k] for k in keys]

    def info(self) -> dict[str, Any]:
        """The counters of this client over the whole process (every task that used it); a task's own
        diagnostics are :func:`summarize` of its results."""
        s = self.stats
        return {
            "model": self.config.model,
            "endpoint": self.config.endpoint_host,
            "http_requests": s.requests,
            "failed_attempts": s.failed_attempts,
            "failures": s.failures,
            "cache_hits": s.cache_hits,
            "completions": s.completions,
            "failure_reasons": dict(s.by_reason),
        }


def _cache_warning(message: str) -> None:
    logger.warning(f"food-tasks judge: {message}")


def interrupted_message(config: JudgeConfig, answered: int) -> str:
    """What Ctrl-C during judging prints: what is kept, and how a rerun resumes."""
    where = config.cache_dir or "nowhere (no judge cache configured)"
    return (
        f"food-tasks judge: interrupted. The {answered} verdicts answered in this process are cached in:\n"
        f"  {where}\n"
        "  A rerun with the same settings asks only for the missing ones (model responses too with lmms-eval's\n"
        "  --use_cache <dir> and a fixed LMMS_CACHE_RUN_ID: docs/usage.md, 'Resuming a killed judged run')."
    )


@functools.lru_cache(maxsize=8)
def client_for(config: JudgeConfig) -> JudgeClient:
    """One client per configuration and process (its memory cache and counters are shared)."""
    return JudgeClient(config)
