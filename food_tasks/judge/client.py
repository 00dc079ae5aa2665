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
                           judging off explicitly (judge metrics are then reported as NaN)
``FOOD_TASKS_JUDGE_WORKERS``  concurrent requests (default 8)
``FOOD_TASKS_JUDGE_TIMEOUT``  seconds per request (default 60)
``FOOD_TASKS_JUDGE_ATTEMPTS`` attempts per request (default 5; exponential back-off from 1 s)
``FOOD_TASKS_JUDGE_BACKOFF``  first back-off delay in seconds (default 1; doubled per attempt)
``FOOD_TASKS_JUDGE_CACHE``    cache directory (default ``<food-tasks cache>/judge``)
=========================  ==========================================================================

Every successful completion is cached on disk, keyed by the SHA-256 of the full request body (model,
messages, temperature, max_tokens), so a re-run or a resumed run makes no request for what it already
judged (failed requests are remembered for the rest of the process and retried by the next run). Timeouts,
connection errors, HTTP 429/5xx and unreadable bodies are retried with back-off; a request that still fails
yields a :class:`JudgeResult` with ``error`` set (counted by the caller, never raised).
Client errors (HTTP 4xx other than 429) are not retried.

Any text is accepted: lone UTF-16 surrogates (which a model's byte-level tokenizer can produce, and no UTF-8
encoder takes) in a request or in the judge's reply become U+FFFD before anything is hashed, sent or cached
(:func:`food_tasks.hooks.outputs.utf8_safe`), so one such output is one judged row, never a lost task. What is
logged is free of credentials: the endpoint as host and port only, and failure reasons with the API key and
URL password masked.
"""

from __future__ import annotations

import contextlib
import functools
import hashlib
import json
import os
import threading
import time
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import requests
from loguru import logger

from food_tasks.errors import SetupError
from food_tasks.hooks.outputs import utf8_safe

MODEL_ENV = "FOOD_TASKS_JUDGE_MODEL"
DISABLED = {"none", "off", "0", "false", "no"}
DEFAULT_URL = "https://api.openai.com/v1"


class JudgeNotConfigured(SetupError):
    """A judged task was requested without a judge; the message says how to configure one."""

    label = "the LLM judge is not configured"


def _int_env(name: str, default: int) -> int:
    value = os.environ.get(name, "").strip()
    try:
        return max(1, int(value)) if value else default
    except ValueError:
        raise JudgeNotConfigured(f"{name}={value!r} is not an integer") from None


@dataclass(frozen=True)
class JudgeConfig:
    """Where and how to call the judge."""

    model: str
    api_type: str = "openai"
    url: str = DEFAULT_URL
    api_key: str = ""
    workers: int = 8
    timeout: float = 60.0
    attempts: int = 5
    backoff: float = 1.0
    cache_dir: str = ""

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
        """The configuration from the environment; None when judging is explicitly off.

        Raises:
            JudgeNotConfigured: no judge model is set, or the API type is unsupported.
        """
        model = os.environ.get(MODEL_ENV, "").strip()
        if model.lower() in DISABLED:
            return None
        api_type = os.environ.get("API_TYPE", "openai").strip().lower() or "openai"
        problem = _provider_problem(api_type, model) if model else f"{MODEL_ENV} is not set"
        if problem:
            raise JudgeNotConfigured(
                f"{purpose} is scored by an LLM judge, but {problem}. Configure an OpenAI-compatible judge:\n"
                f"  export OPENAI_API_URL=http://localhost:8000/v1   # or https://api.openai.com/v1\n"
                f"  export OPENAI_API_KEY=...                         # empty for a local server\n"
                f"  export {MODEL_ENV}=<judge model name>\n"
                f"(API_TYPE=openai is the default). To report only the metrics that need no judge, set "
                f"{MODEL_ENV}=none explicitly; the judge metrics are then NaN."
            )
        from food_tasks.data.remote import cache_root

        timeout = os.environ.get("FOOD_TASKS_JUDGE_TIMEOUT", "").strip()
        backoff = os.environ.get("FOOD_TASKS_JUDGE_BACKOFF", "").strip()
        return cls(
            model=model,
            api_type=api_type,
            url=os.environ.get("OPENAI_API_URL", "").strip() or DEFAULT_URL,
            api_key=os.environ.get("OPENAI_API_KEY", "").strip(),
            workers=_int_env("FOOD_TASKS_JUDGE_WORKERS", 8),
            timeout=float(timeout) if timeout else 60.0,
            attempts=_int_env("FOOD_TASKS_JUDGE_ATTEMPTS", 5),
            backoff=float(backoff) if backoff else 1.0,
            cache_dir=os.environ.get("FOOD_TASKS_JUDGE_CACHE", "").strip() or str(cache_root() / "judge"),
        )


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
    ``reasons`` the failure reason of each failed attempt, ``key`` its :func:`request_key`.
    """

    text: str | None
    error: str | None = None
    cached: bool = False
    attempts: int = 0
    reasons: tuple[str, ...] = ()
    key: str = ""


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


def request_key(body: dict[str, Any]) -> str:
    """SHA-256 of the canonical JSON of the full request body (after :func:`clean_body`)."""
    return hashlib.sha256(json.dumps(clean_body(body), sort_keys=True, ensure_ascii=False).encode()).hexdigest()


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
    """Bounded-concurrency, cached, retrying chat-completions client."""

    def __init__(self, config: JudgeConfig, *, sleep: Callable[[float], Any] = time.sleep) -> None:
        self.config = config
        self.stats = JudgeStats()
        self._sleep = sleep
        self._lock = threading.Lock()
        self._memo: dict[str, JudgeResult] = {}
        self._local = threading.local()
        self._cache = Path(config.cache_dir) if config.cache_dir else None
        self._cache_warned = False

    # ------------------------------------------------------------------ cache
    def _cache_path(self, key: str) -> Path | None:
        return None if self._cache is None else self._cache / key[:2] / f"{key}.json"

    def _cache_get(self, key: str) -> str | None:
        path = self._cache_path(key)
        if path is None or not path.is_file():
            return None
        try:
            value = json.loads(path.read_text(encoding="utf-8"))["response"]
        except (OSError, ValueError, KeyError, TypeError):
            return None  # a damaged entry is ignored and rewritten
        return value if isinstance(value, str) else None

    def _cache_put(self, key: str, body: dict, text: str) -> None:
        path = self._cache_path(key)
        if path is None:
            return
        tmp = path.with_name(f"{path.name}.tmp-{os.getpid()}-{threading.get_ident()}")
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            payload = json.dumps(clean_body({"request": body, "response": text}), ensure_ascii=False)
            tmp.write_text(payload, encoding="utf-8")
            os.replace(tmp, path)
        except OSError as err:  # a full or read-only disk: the verdict stands, only the cache entry is lost
            if not self._cache_warned:
                self._cache_warned = True
                logger.warning(
                    f"food-tasks judge: cannot write the cache under {self._cache} ({type(err).__name__}: {err}); "
                    "verdicts are not cached."
                )
        finally:
            with contextlib.suppress(OSError):
                tmp.unlink(missing_ok=True)

    # ------------------------------------------------------------------ HTTP
    def _session(self) -> requests.Session:
        session = getattr(self._local, "session", None)
        if session is None:
            session = self._local.session = requests.Session()
        return session

    def _count(self, **deltas: int) -> None:
        with self._lock:
            for name, delta in deltas.items():
                setattr(self.stats, name, getattr(self.stats, name) + delta)

    def _reason(self, reason: str) -> None:
        with self._lock:
            self.stats.by_reason[reason] = self.stats.by_reason.get(reason, 0) + 1

    def _provider_attempt(self, body: dict) -> tuple[str | None, str, bool]:
        """One attempt through an ``lmms_eval.llm_judge`` provider (API types other than ``openai``)."""
        from lmms_eval.llm_judge import Request, ServerConfig, get_server

        self._count(requests=1)
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
            return None, f"provider error ({type(err).__name__})", True
        if not getattr(response, "success", False) or not isinstance(response.content, str):
            message = self.config.redact(str(getattr(response, "error_message", "") or "no content"))
            return None, f"provider error ({message})"[:200], True
        return utf8_safe(response.content.strip()), "", False

    def _attempt(self, body: dict) -> tuple[str | None, str, bool]:
        """One HTTP attempt: ``(text, "", _)`` or ``(None, reason, retryable)``."""
        if self.config.api_type != "openai":
            return self._provider_attempt(body)
        headers = {"Content-Type": "application/json"}
        if self.config.api_key:
            headers["Authorization"] = f"Bearer {self.config.api_key}"
        self._count(requests=1)
        try:
            resp = self._session().post(self.config.endpoint, json=body, headers=headers, timeout=self.config.timeout)
        except requests.Timeout:
            return None, "timeout", True
        except requests.RequestException as err:
            return None, f"connection error ({type(err).__name__})", True
        if resp.status_code == 429 or resp.status_code >= 500:
            return None, f"http {resp.status_code}", True
        if resp.status_code >= 400:  # the body may echo what was sent: credentials are masked
            return None, f"http {resp.status_code}: {self.config.redact(resp.text)[:200]}", False
        try:
            content = resp.json()["choices"][0]["message"]["content"]
        except (ValueError, KeyError, IndexError, TypeError):
            return None, "unreadable response body", True
        if not isinstance(content, str):
            return None, "response without text content", True
        return utf8_safe(content.strip()), "", False

    def complete(self, body: dict[str, Any]) -> JudgeResult:
        """One completion for ``body`` (memory, then disk cache, then HTTP with retries)."""
        body = clean_body(body)
        key = request_key(body)
        with self._lock:
            if key in self._memo:
                return self._memo[key]
        cached = self._cache_get(key)
        if cached is not None:
            self._count(cache_hits=1)
            result = JudgeResult(utf8_safe(cached), cached=True, key=key)
        else:
            result = JudgeResult(None, "no attempt", key=key)
            reasons: list[str] = []
            for attempt in range(self.config.attempts):
                if attempt:
                    self._sleep(self.config.backoff * 2 ** (attempt - 1))
                text, reason, retryable = self._attempt(body)
                if text is not None:
                    self._count(completions=1)
                    self._cache_put(key, body, text)
                    result = JudgeResult(text, attempts=attempt + 1, reasons=tuple(reasons), key=key)
                    break
                self._count(failed_attempts=1)
                self._reason(reason)
                reasons.append(reason)
                result = JudgeResult(None, reason, attempts=attempt + 1, reasons=tuple(reasons), key=key)
                if not retryable:
                    break
            if result.text is None:
                self._count(failures=1)
        with self._lock:
            # Failures too: the metrics of one task share the outcome; a new run (process) retries them.
            self._memo[key] = result
        return result

    def complete_many(self, bodies: Sequence[dict[str, Any]]) -> list[JudgeResult]:
        """Completions for ``bodies`` in order; duplicates are requested once; at most ``workers`` at a time."""
        bodies = [clean_body(b) for b in bodies]
        keys = [request_key(b) for b in bodies]
        unique = dict(zip(keys, bodies))
        with ThreadPoolExecutor(max_workers=self.config.workers) as pool:
            done = dict(zip(unique, pool.map(self.complete, unique.values())))
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


@functools.lru_cache(maxsize=8)
def client_for(config: JudgeConfig) -> JudgeClient:
    """One client per configuration and process (its memory cache and counters are shared)."""
    return JudgeClient(config)
