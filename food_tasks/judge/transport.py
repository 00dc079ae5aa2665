"""How one judge request travels: httpx (asynchronous) for the HTTP, tenacity for the retries, asyncio for the bounds.

- **The whole attempt is bounded** by ``FOOD_TASKS_JUDGE_TIMEOUT``: connecting, sending, waiting and reading the body
  together (``asyncio.timeout`` around the attempt), so a server that sends its body a byte at a time is cut off at
  the timeout, not after one timeout per byte.
- **Retries** (``FOOD_TASKS_JUDGE_ATTEMPTS`` attempts): timeouts, connection errors, HTTP 429 and 5xx and unreadable
  bodies, after an exponential back-off from ``FOOD_TASKS_JUDGE_BACKOFF``; a 429 or 503 that sends ``Retry-After``
  (seconds or an HTTP date) is retried after that delay instead, bounded by ``FOOD_TASKS_JUDGE_RETRY_AFTER_MAX``
  (:data:`RETRY_AFTER_MAX`, default 120 s: a longer one is waited that long, then retried).
- **Ctrl-C stops at once**: the requests of a batch run as tasks of one event loop (:func:`run_interruptible`); the
  first SIGINT cancels them all (an HTTP read, a back-off or a Retry-After wait alike) and raises
  :class:`JudgingInterrupted`, a clean exit with status 130; a second SIGINT ends the process at once.
- **Why a request failed** is a short reason: ``connection refused``, ``connection error (<kind>)``, ``timeout``,
  ``http <status>`` (a client error with the start of its body, credentials masked by the caller),
  ``unreadable response body``, ``response without text content``.
"""

from __future__ import annotations

import asyncio
import email.utils
import errno
import math
import os
import signal
import sys
import threading
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any

import httpx
import tenacity

RETRY_AFTER_ENV = "FOOD_TASKS_JUDGE_RETRY_AFTER_MAX"
RETRY_AFTER_MAX = 120.0  # seconds: the longest Retry-After honoured as sent (the openai SDK's ceiling too)
INTERRUPTED = 130  # the exit status of a process ended by SIGINT (128 + 2)


class JudgingInterrupted(SystemExit):
    """Ctrl-C during judging: a clean exit (status 130, no traceback); what was judged is in the cache."""

    def __init__(self) -> None:
        super().__init__(INTERRUPTED)


@dataclass(frozen=True)
class Outcome:
    """One attempt: ``text`` (with ``usage``) on success, else ``reason``, whether it is worth retrying, and the
    server's ``Retry-After`` in seconds (None when it sent none)."""

    text: str | None
    reason: str = ""
    retryable: bool = False
    usage: Any = None
    retry_after: float | None = None


def parse_retry_after(value: str | None, now: float | None = None) -> float | None:
    """Seconds to wait from a ``Retry-After`` header: delta-seconds (``30``) or an HTTP date
    (``Wed, 21 Oct 2015 07:28:00 GMT``, from ``now``, default the clock); None when absent or unreadable; never
    negative."""
    if not value or not value.strip():
        return None
    text = value.strip()
    try:
        seconds = float(text)
    except ValueError:
        try:
            when = email.utils.parsedate_to_datetime(text)
        except (TypeError, ValueError, IndexError):
            return None
        if when.tzinfo is None:  # an HTTP date is GMT
            return None
        seconds = when.timestamp() - (time.time() if now is None else now)
    return max(0.0, seconds) if math.isfinite(seconds) else None


def retry_after_max() -> float:
    """The ceiling on a ``Retry-After`` wait, from :data:`RETRY_AFTER_ENV` (seconds), default :data:`RETRY_AFTER_MAX`.
    A bad value is a setup error raised by :func:`food_tasks.judge.client.judges_from_env`; here it is the default."""
    try:
        value = float(os.environ.get(RETRY_AFTER_ENV, "").strip() or RETRY_AFTER_MAX)
    except ValueError:
        return RETRY_AFTER_MAX
    return value if math.isfinite(value) and value >= 0 else RETRY_AFTER_MAX


def _connect_reason(err: Exception) -> str:
    """``connection refused`` where the host refused the connection, else ``connection error (<kind>)``."""
    seen: set[int] = set()
    cause: BaseException | None = err
    while cause is not None and id(cause) not in seen:
        seen.add(id(cause))
        if getattr(cause, "errno", None) == errno.ECONNREFUSED or "connection refused" in str(cause).lower():
            return "connection refused"
        cause = cause.__cause__ or cause.__context__
    return f"connection error ({type(err).__name__})"


async def post(
    client: httpx.AsyncClient, url: str, body: dict, headers: dict[str, str], timeout: float, mask: Callable[[str], str]
) -> Outcome:
    """One attempt, bounded as a whole by ``timeout`` seconds; ``mask`` hides credentials in an echoed body."""
    try:
        async with asyncio.timeout(timeout):
            response = await client.post(url, json=body, headers=headers)
            status, raw = response.status_code, response.content
    except (TimeoutError, httpx.TimeoutException):
        return Outcome(None, "timeout", True)
    except (httpx.ConnectError, OSError) as err:
        return Outcome(None, _connect_reason(err), True)
    except httpx.HTTPError as err:  # a broken connection, an invalid response, too many redirects ...
        return Outcome(None, f"connection error ({type(err).__name__})", True)
    if status == 429 or status >= 500:
        return Outcome(None, f"http {status}", True, retry_after=parse_retry_after(response.headers.get("retry-after")))
    if status >= 400:  # the body may echo what was sent: credentials are masked
        return Outcome(None, f"http {status}: {mask(raw.decode('utf-8', 'replace'))[:200]}")
    try:
        data = response.json()
        content = data["choices"][0]["message"]["content"]
    except (ValueError, KeyError, IndexError, TypeError):
        return Outcome(None, "unreadable response body", True)
    if not isinstance(content, str):
        return Outcome(None, "response without text content", True)
    return Outcome(content, usage=data.get("usage") if isinstance(data, dict) else None)


async def with_retries(
    attempt: Callable[[], Awaitable[Outcome]],
    attempts: int,
    backoff: float,
    sleep: Callable[[float], Awaitable[Any]],
    ceiling: float | None = None,
) -> tuple[Outcome, list[str]]:
    """``attempt`` until it succeeds, fails for good or ``attempts`` are spent (tenacity); the last outcome and the
    reason of every failed attempt. The wait before attempt ``k + 1`` is the server's ``Retry-After`` (at most
    ``ceiling``, default :func:`retry_after_max`), else ``backoff * 2**(k - 1)``."""
    ceiling = retry_after_max() if ceiling is None else ceiling
    reasons: list[str] = []

    def wait(state: tenacity.RetryCallState) -> float:
        outcome: Outcome = state.outcome.result()  # type: ignore[union-attr]
        if outcome.retry_after is not None:
            return min(outcome.retry_after, ceiling)
        return backoff * 2 ** (state.attempt_number - 1)

    def failed(outcome: Outcome) -> bool:
        if outcome.text is None:
            reasons.append(outcome.reason)
        return outcome.text is None and outcome.retryable

    retrying = tenacity.AsyncRetrying(
        stop=tenacity.stop_after_attempt(max(1, attempts)),
        wait=wait,
        retry=tenacity.retry_if_result(failed),
        sleep=sleep,
        retry_error_callback=lambda state: state.outcome.result(),  # type: ignore[union-attr]
    )
    outcome = await retrying(attempt)
    return outcome, reasons


def _force_exit(signum: int, frame: Any) -> None:  # noqa: ARG001 - a signal handler's signature
    sys.stderr.write("food-tasks judge: interrupted again, stopped at once; a rerun resumes from the judge cache.\n")
    sys.stderr.flush()
    os._exit(INTERRUPTED)


def run_interruptible(coro: Awaitable[Any]) -> Any:
    """Run ``coro`` in a fresh event loop of this thread. In the main thread the first SIGINT cancels it (every request
    and wait in it) and raises :class:`JudgingInterrupted`; a second one, while that unwinds, ends the process
    (``os._exit``: no traceback, nothing left to wait for). Elsewhere SIGINT is left as it is."""
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        pass
    else:  # called from a running event loop (a notebook): ours runs in a thread of its own
        return _in_thread(coro)
    loop = asyncio.new_event_loop()
    main = loop.create_task(coro)  # type: ignore[arg-type]
    interrupted = threading.Event()

    def on_sigint(signum: int, frame: Any) -> None:  # noqa: ARG001
        if interrupted.is_set():
            _force_exit(signum, frame)
        interrupted.set()
        signal.signal(signal.SIGINT, _force_exit)
        loop.call_soon_threadsafe(main.cancel)

    previous = None
    if threading.current_thread() is threading.main_thread():
        previous = signal.signal(signal.SIGINT, on_sigint)
    try:
        return loop.run_until_complete(main)
    except asyncio.CancelledError:
        if interrupted.is_set():
            raise JudgingInterrupted() from None
        raise
    finally:
        _drain(loop)
        loop.close()
        if previous is not None and not interrupted.is_set():
            signal.signal(signal.SIGINT, previous)


def _in_thread(coro: Awaitable[Any]) -> Any:
    """:func:`run_interruptible` in a new thread (which leaves SIGINT alone): its result, or what it raised."""
    out: dict[str, Any] = {}

    def target() -> None:
        try:
            out["value"] = run_interruptible(coro)
        except BaseException as err:  # noqa: BLE001 - handed to the caller's thread
            out["error"] = err

    thread = threading.Thread(target=target, name="food-tasks-judge", daemon=True)
    thread.start()
    thread.join()
    if "error" in out:
        raise out["error"]
    return out.get("value")


def ssl_context() -> Any:
    """The certificates to trust: httpx's defaults (certifi, ``SSL_CERT_FILE``/``SSL_CERT_DIR``), or the bundle that
    ``REQUESTS_CA_BUNDLE`` or ``CURL_CA_BUNDLE`` names (what the former ``requests`` client read), where set."""
    import ssl

    bundle = os.environ.get("REQUESTS_CA_BUNDLE") or os.environ.get("CURL_CA_BUNDLE")
    if not bundle or os.environ.get("SSL_CERT_FILE") or os.environ.get("SSL_CERT_DIR"):
        return True
    return (
        ssl.create_default_context(cafile=bundle)
        if os.path.isfile(bundle)
        else ssl.create_default_context(capath=bundle)
    )


def _drain(loop: asyncio.AbstractEventLoop) -> None:
    """Cancel what is left in ``loop`` and let it unwind (an HTTP connection closes at once)."""
    pending = [t for t in asyncio.all_tasks(loop) if not t.done()]
    for task in pending:
        task.cancel()
    if pending and not loop.is_running():
        loop.run_until_complete(asyncio.gather(*pending, return_exceptions=True))
