"""Two processes preparing FAM-Bench data into an empty cache at the same moment (as two ranks do).

The official repository files come from a local server standing in for raw.githubusercontent.com
(127.0.0.1, serving the packaged sample's copy of the repository, each answer delayed so that the
two processes overlap). Both must succeed with the same documents, and each file must be
downloaded once: the cache write is taken under a file lock that the second process waits on.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
import time
from collections import Counter
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from food_tasks.benchmarks.fambench import data as fb_data
from food_tasks.sample_data import SAMPLE_ROOT

DRIVER = """
import json, sys, time
import food_tasks.data.remote as remote
remote.GITHUB_RAW = sys.argv[1]
while time.time() < float(sys.argv[2]):
    time.sleep(0.005)
from food_tasks.benchmarks.fambench import data as fb
t1, t2 = fb.load_task1(), fb.load_task2()
kb, rules = fb.task1_kb(), fb.task2_rules()
print(json.dumps({"task1": t1, "task2": t2, "kb": kb, "rules": rules}, sort_keys=True, default=str))
"""


class _GitHubRaw:
    """``GET /<owner>/<repo>/<commit>/<path>`` from the sample's repository copy; bounded and self-stopping."""

    def __init__(self, delay_s: float = 0.3, max_requests: int = 100, lifetime_s: float = 120.0) -> None:
        self.hits: Counter[str] = Counter()
        owner_repo = SAMPLE_ROOT / "github"
        outer = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args) -> None:  # type: ignore[no-untyped-def]
                pass

            def do_GET(self) -> None:
                owner, repo, _commit, *rel = self.path.lstrip("/").split("/")
                path = "/".join(rel)
                outer.hits[path] += 1
                file = owner_repo.joinpath(owner, repo, *rel)
                time.sleep(delay_s)
                if sum(outer.hits.values()) > max_requests or not file.is_file():
                    self.send_response(404)
                    self.send_header("Content-Length", "0")
                    self.end_headers()
                    return
                body = file.read_bytes()
                self.send_response(200)
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.httpd.daemon_threads = True
        self.thread = threading.Thread(target=self.httpd.serve_forever, kwargs={"poll_interval": 0.1}, daemon=True)
        self.timer = threading.Timer(lifetime_s, self.httpd.shutdown)
        self.timer.daemon = True

    def __enter__(self) -> _GitHubRaw:
        self.thread.start()
        self.timer.start()
        return self

    def __exit__(self, *exc) -> None:  # type: ignore[no-untyped-def]
        self.timer.cancel()
        self.httpd.shutdown()
        self.httpd.server_close()


@pytest.mark.slow  # two interpreters
def test_two_processes_prepare_into_an_empty_cache_and_download_once(tmp_path):
    cache = tmp_path / "cache"
    env = {
        k: v
        for k, v in os.environ.items()
        if k not in {"HF_HUB_OFFLINE", "HF_DATASETS_OFFLINE", "FOOD_TASKS_OFFLINE", "FOOD_TASKS_DATA_DIR"}
    }
    env.update(FOOD_TASKS_CACHE_DIR=str(cache), NO_PROXY="127.0.0.1,localhost", no_proxy="127.0.0.1,localhost")
    with _GitHubRaw() as server:
        host, port = server.httpd.server_address[:2]
        start = time.time() + 4.0  # both interpreters are up and importing well before this
        procs = [
            subprocess.Popen(
                [sys.executable, "-c", DRIVER, f"http://{host}:{port}", str(start)],
                env=env,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                text=True,
                cwd=tmp_path,
            )
            for _ in range(2)
        ]
        outs = [p.communicate(timeout=120) for p in procs]
    for proc, (_, err) in zip(procs, outs):
        assert proc.returncode == 0, err[-3000:]
    first, second = (json.loads(out) for out, _ in outs)
    assert first == second and len(first["task1"]) == 4 and len(first["task2"]) == 2
    assert server.hits and all(count == 1 for count in server.hits.values()), server.hits
    repo, commit = fb_data.REPO, fb_data.COMMIT
    for path in server.hits:
        assert (cache / "github" / repo / commit / path).is_file()
        assert not list((cache / "github" / repo / commit / path).parent.glob("*.tmp-*"))
