"""A small OpenAI-compatible chat-completions server on 127.0.0.1 for judge tests (scripted verdicts,
injected HTTP 500s, timeouts and garbage bodies, an optional ``usage`` field). Runs in a thread of the test process."""

from __future__ import annotations

import json
import re
import threading
import time
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


class JudgeServer:
    """``verdict(prompt) -> str``; ``faults[key]``: list of "500" / "timeout" / "garbage" / "400" / "echo" (a 400
    whose body echoes the request's path and credentials, as some proxies do) consumed one per request whose prompt
    contains ``key`` (``"*"`` matches any); "down" repeats forever. ``usage(prompt, answer)``: the response's
    ``usage`` field (None: the response has none, as without ``usage``); every usage sent is in ``usage_sent``
    (:func:`char_usage`: one token per character).

    Misbehaviour on purpose (issue 41): fault ``"hang"`` never answers (until the server stops); ``"drip"`` sends its
    headers, then its body one byte every ``drip`` seconds; ``rate_limit_for`` seconds from the first request every
    request is answered 429 with the header ``Retry-After: retry_after`` (a string, or a callable giving one)."""

    def __init__(
        self,
        verdict: Callable[[str], str],
        faults: dict[str, list[str]] | None = None,
        delay: float = 0.0,
        usage: Callable[[str, str], dict | None] | None = None,
    ) -> None:
        self.verdict, self.faults, self.delay, self.usage = verdict, faults or {}, delay, usage
        self.requests: list[dict] = []
        self.usage_sent: list[dict] = []
        self.in_flight = self.max_in_flight = 0
        self.lock = threading.Lock()
        self.drip = 2.0
        self.rate_limit_for: float | None = None
        self.retry_after: str | Callable[[], str] = "30"
        self.first_request: float | None = None
        self.rate_limited = 0
        self.stopped = threading.Event()
        server = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args):  # type: ignore[no-untyped-def]
                pass

            def do_POST(self):  # type: ignore[no-untyped-def]
                body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
                with server.lock:
                    server.requests.append({"path": self.path, "auth": self.headers.get("Authorization"), "body": body})
                    server.first_request = server.first_request or time.monotonic()
                    server.in_flight += 1
                    server.max_in_flight = max(server.max_in_flight, server.in_flight)
                self._counted = True
                try:
                    self._answer(body)
                finally:
                    self._leave()

            def send_response(self, code, message=None):  # type: ignore[no-untyped-def]
                # A request stops being in flight before its answer is sent: once the client reads the answer it may
                # send its next request, which the count must not see beside this one (max_in_flight read one too many).
                self._leave()
                super().send_response(code, message)

            def _leave(self):  # type: ignore[no-untyped-def]
                if getattr(self, "_counted", False):
                    self._counted = False
                    with server.lock:
                        server.in_flight -= 1

            def _answer(self, body):  # type: ignore[no-untyped-def]
                prompt = body["messages"][0]["content"]
                fault = server.next_fault(prompt)
                if server.delay:
                    time.sleep(server.delay)
                if fault == "hang":
                    server.stopped.wait(3600)
                    return
                limit = server.rate_limit_for
                if limit is not None and time.monotonic() < (server.first_request or 0) + limit:
                    after = server.retry_after() if callable(server.retry_after) else server.retry_after
                    with server.lock:
                        server.rate_limited += 1
                    self.send_response(429)
                    self.send_header("Retry-After", after)
                    self.send_header("Content-Length", "0")
                    self.end_headers()
                    return
                if fault == "timeout":
                    time.sleep(1.5)
                if fault == "echo":
                    echo = f"bad request {self.path} Authorization: {self.headers.get('Authorization')}".encode(
                        "utf-8", "replace"
                    )
                    self.send_response(400)
                    self.send_header("Content-Length", str(len(echo)))
                    self.end_headers()
                    self.wfile.write(echo)
                    return
                if fault in ("500", "down", "400", "429"):
                    self.send_response(int(fault) if fault != "down" else 500)
                    self.end_headers()
                    self.wfile.write(b"error")
                    return
                if fault == "garbage":
                    payload = b"<html>garbage"
                else:
                    answer = server.verdict(prompt)
                    data: dict = {"choices": [{"message": {"role": "assistant", "content": " " + answer + "\n"}}]}
                    usage = server.usage(prompt, answer) if server.usage else None
                    if usage is not None:
                        data["usage"] = usage
                        with server.lock:
                            server.usage_sent.append(usage)
                    payload = json.dumps(data).encode()
                try:
                    self.send_response(200)
                    self.send_header("Content-Type", "application/json")
                    self.send_header("Content-Length", str(len(payload)))
                    self.end_headers()
                    if fault == "drip":
                        for i in range(len(payload)):
                            self.wfile.write(payload[i : i + 1])
                            self.wfile.flush()
                            if server.stopped.wait(server.drip):
                                return
                    else:
                        self.wfile.write(payload)
                except (BrokenPipeError, ConnectionResetError):
                    pass

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}/v1"
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)

    def tokens(self) -> tuple[int, int]:
        """The prompt and completion tokens of every usage sent."""
        return tuple(sum(u.get(k, 0) for u in self.usage_sent) for k in ("prompt_tokens", "completion_tokens"))  # type: ignore[return-value]

    def next_fault(self, prompt: str) -> str | None:
        with self.lock:
            for key, queue in self.faults.items():
                if queue and (key == "*" or key in prompt):
                    return queue[0] if queue[0] == "down" else queue.pop(0)
        return None

    def __enter__(self) -> JudgeServer:
        self.thread.start()
        return self

    def __exit__(self, *exc) -> None:  # type: ignore[no-untyped-def]
        self.stopped.set()
        self.httpd.shutdown()
        self.httpd.server_close()


def char_usage(prompt: str, answer: str) -> dict:
    """A ``usage`` field of one token per character (prompt and answer), with the total as OpenAI sends it."""
    return {"prompt_tokens": len(prompt), "completion_tokens": len(answer), "total_tokens": len(prompt) + len(answer)}


# The judge protocol (food_tasks.judge.protocol, issue 41): what a local judge reads of a request, and replies that
# follow it.
BLOCK_RE = re.compile(r"<answer-([0-9a-f]{16})>\n(.*)\n</answer-\1>", re.DOTALL)


def prediction_in(prompt: str) -> str | None:
    """The candidate answer a judge request carries: the protocol's data block of a robust request, else the
    official DiningBench request's 【预测答案】 section; None for a request with neither."""
    block = BLOCK_RE.search(prompt)
    if block is not None:
        return block.group(2)
    if "【预测答案】：\n" not in prompt:
        return None
    return prompt.split("【预测答案】：\n", 1)[1].rsplit("\n\n### 输出", 1)[0]


def protocol_reply(prompt: str, verdict: bool) -> str:
    """``verdict`` in the format the request asks for: the JSON object, the final line, or (a request outside the
    protocol, the official one) 是 / 否."""
    if BLOCK_RE.search(prompt) is None:
        return "是" if verdict else "否"
    if "as the JSON object" in prompt:
        return json.dumps({"verdict": "yes" if verdict else "no"})
    return f"The answer is {'right' if verdict else 'not right'}.\nVERDICT: {'yes' if verdict else 'no'}"


def follows_protocol(rule: Callable[[str], bool]) -> Callable[[str], str]:
    """A judge that follows the protocol: ``rule(candidate answer) -> verdict``, replied as the request asks."""
    return lambda prompt: protocol_reply(prompt, rule(prediction_in(prompt)))
