"""A small OpenAI-compatible chat-completions server for tests (127.0.0.1 only).

Answers ``POST .../chat/completions`` from the engine script (tests/serving/engine_script.py),
records every request, and injects the faults a script entry lists, one per attempt, in order:
an HTTP status (500, 504: what a gateway sends when the engine behind it times out) or ``"drop"``
(the connection closes without a response). Bounded: it serves at most ``max_requests`` requests
and stops itself after ``lifetime_s`` seconds, whichever comes first.
"""

from __future__ import annotations

import json
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from engine_script import request_key


class ChatServer:
    def __init__(self, script: dict[str, dict], *, max_requests: int = 1000, lifetime_s: float = 600.0) -> None:
        self.script = script
        self.max_requests = max_requests
        self.records: list[dict] = []
        self._attempts: dict[str, int] = {}
        self._lock = threading.Lock()
        self._httpd = ThreadingHTTPServer(("127.0.0.1", 0), self._handler())
        self._httpd.daemon_threads = True
        self._thread = threading.Thread(target=self._httpd.serve_forever, kwargs={"poll_interval": 0.1}, daemon=True)
        self._timer = threading.Timer(lifetime_s, self.stop)
        self._timer.daemon = True

    @property
    def base_url(self) -> str:
        host, port = self._httpd.server_address[:2]
        return f"http://{host}:{port}/v1"

    def __enter__(self) -> ChatServer:
        self._thread.start()
        self._timer.start()
        return self

    def __exit__(self, *exc) -> None:  # type: ignore[no-untyped-def]
        self.stop()

    def stop(self) -> None:
        self._timer.cancel()
        if self._thread.is_alive():
            self._httpd.shutdown()
        self._httpd.server_close()

    def _next(self, body: dict) -> tuple[str, dict | None, object]:
        """Record the request; return (key, script entry, fault or None)."""
        key = request_key(body.get("messages") or [])
        with self._lock:
            attempt = self._attempts.get(key, 0)
            self._attempts[key] = attempt + 1
            entry = self.script.get(key)
            faults = entry["faults"] if entry else []
            fault = faults[attempt] if attempt < len(faults) else None
            over = len(self.records) >= self.max_requests
            self.records.append({"key": key, "attempt": attempt, "fault": fault, "at": time.time(), "body": body})
        if over:
            threading.Thread(target=self.stop, daemon=True).start()
            fault = 503
        return key, entry, fault

    def _handler(self):  # type: ignore[no-untyped-def]
        server = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args) -> None:  # type: ignore[no-untyped-def]
                pass

            def _send(self, status: int, payload: dict) -> None:
                data = json.dumps(payload).encode("utf-8")
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                if status >= 500:  # the SDK retries at once (else 0.5 s, 1 s, ... of backoff); still a retry
                    self.send_header("retry-after-ms", "1")
                self.end_headers()
                self.wfile.write(data)

            def do_POST(self) -> None:
                body = json.loads(self.rfile.read(int(self.headers.get("Content-Length", 0))) or b"{}")
                if not self.path.endswith("/chat/completions"):
                    self._send(404, {"error": {"message": f"no route {self.path}"}})
                    return
                key, entry, fault = server._next(body)
                if fault == "drop":
                    self.close_connection = True  # no status line at all: the client sees a broken connection
                    return
                if isinstance(fault, int):
                    self._send(fault, {"error": {"message": f"injected {fault}", "type": "server_error"}})
                    return
                answer = entry["answer"] if entry else ""
                self._send(
                    200,
                    {
                        "id": f"chatcmpl-{key}",
                        "object": "chat.completion",
                        "created": 0,
                        "model": body.get("model"),
                        "choices": [
                            {"index": 0, "message": {"role": "assistant", "content": answer}, "finish_reason": "stop"}
                        ],
                        "usage": {
                            "prompt_tokens": 1,
                            "completion_tokens": max(1, len(answer.split())),
                            "total_tokens": 2,
                        },
                    },
                )

        return Handler
