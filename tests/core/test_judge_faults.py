"""The judge client under faults (issue 41, item 5), each against a local server that misbehaves on purpose:
Retry-After, a hanging judge and Ctrl-C, a body sent a byte at a time, why a judge failed, what a killed process
leaves in the cache, two runs sharing one cache. Bounded in time: every wait here is a few seconds at most."""

from __future__ import annotations

import email.utils
import json
import os
import signal
import socket
import subprocess
import sys
import textwrap
import threading
import time
from pathlib import Path

import pytest
from judge_server import JudgeServer

from food_tasks.judge import client as judge
from food_tasks.judge import panel as jp
from food_tasks.judge import transport

ROOT = Path(__file__).resolve().parents[2]


def _config(url, tmp_path, **kw):  # type: ignore[no-untyped-def]
    return judge.JudgeConfig(
        model="judge-x",
        url=url,
        api_key="sk-test",
        timeout=kw.pop("timeout", 5.0),
        backoff=kw.pop("backoff", 0.01),
        cache_dir=str(tmp_path / "cache"),
        **kw,
    )


def _bodies(config, prompts):  # type: ignore[no-untyped-def]
    return [judge.request_body(config, p) for p in prompts]


def _closed_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]  # closed again on exit: a connection to it is refused


# --------------------------------------------------------------------------- the request is the published one


def test_the_request_body_and_cache_key_are_those_of_the_old_client(tmp_path):
    """The body sent is the body built, field for field; its key is the one the requests-based client used (the
    hash below was computed before the transport moved to httpx), so existing caches still hit."""
    with JudgeServer(lambda p: "是") as server:
        config = _config(server.url, tmp_path, attempts=1)
        body = judge.request_body(config, "【问题】鱼香肉丝是什么菜？")
        result = judge.JudgeClient(config).complete(body)
        (sent,) = server.requests
    assert (
        sent["body"]
        == body
        == {
            "model": "judge-x",
            "messages": [{"role": "user", "content": "【问题】鱼香肉丝是什么菜？"}],
            "temperature": 0.0,
            "max_tokens": 100,
        }
    )
    assert sent["auth"] == "Bearer sk-test" and sent["path"] == "/v1/chat/completions"
    assert result.key == judge.request_key(body) == "3a60c8f7e68145f52d2a8d5bcda59830d1dd9db085f17ef6337498912178f1b4"


def test_an_entry_written_by_the_old_client_is_read_without_a_request(tmp_path):
    config = _config("http://127.0.0.1:9/v1", tmp_path, attempts=1)
    body = judge.request_body(config, "old question")
    key = judge.request_key(body)
    path = tmp_path / "cache" / key[:2] / f"{key}.json"
    path.parent.mkdir(parents=True)
    usage = {"prompt_tokens": 3, "completion_tokens": 1}
    path.write_text(json.dumps({"request": body, "response": "是", "usage": usage}, ensure_ascii=False), "utf-8")
    result = judge.JudgeClient(config).complete(body)  # nothing listens on port 9: a request would fail
    assert (result.text, result.cached, result.usage, result.attempts) == ("是", True, usage, 0)


# --------------------------------------------------------------------------- Retry-After


@pytest.mark.parametrize(
    ("header", "seconds"),
    [("30", 30.0), ("0", 0.0), ("  7 ", 7.0), ("soon", None), ("", None), ("-5", 0.0), ("inf", None)],
)
def test_retry_after_in_seconds(header, seconds):
    assert transport.parse_retry_after(header) == seconds


def test_retry_after_as_an_http_date():
    now = 1_700_000_000.0
    assert transport.parse_retry_after(email.utils.formatdate(now + 45, usegmt=True), now=now) == 45.0
    assert transport.parse_retry_after(email.utils.formatdate(now - 45, usegmt=True), now=now) == 0.0  # past: now
    assert transport.parse_retry_after("Sun, 06 Nov 1994 08:49:37", now=now) is None  # no zone: not an HTTP date


def test_the_wait_is_the_servers_retry_after_bounded_by_the_ceiling(tmp_path):
    """Old client: waits 0.01, 0.02 ... whatever the server said. Now: the server's 30 s, or the ceiling."""
    for ceiling, expected in ((120.0, [30.0]), (4.0, [4.0])):
        delays: list[float] = []
        with JudgeServer(lambda p: "是") as server:
            server.rate_limit_for, server.retry_after = 0.3, "30"
            config = _config(server.url, tmp_path / str(ceiling), attempts=5, retry_after_max=ceiling)

            def sleep(seconds: float) -> None:
                delays.append(seconds)  # noqa: B023 - used within this iteration only
                time.sleep(0.4)  # past the server's window: the next attempt is answered

            result = judge.JudgeClient(config, sleep=sleep).complete(judge.request_body(config, "q"))
        assert (result.text, result.reasons, delays) == ("是", ("http 429",), expected)


@pytest.mark.parametrize("form", ["seconds", "date"])
def test_a_judge_answering_429_for_a_while_loses_no_verdict(tmp_path, form):
    """The issue's case in small: 429 with a Retry-After longer than the whole back-off schedule, for a window
    shorter than it. The old client retried after 0.01, 0.02, 0.04, 0.08 s and lost every verdict."""
    with JudgeServer(lambda p: "是" if "right" in p else "否") as server:
        server.rate_limit_for = 1.2
        server.retry_after = "2" if form == "seconds" else lambda: email.utils.formatdate(time.time() + 2, usegmt=True)
        config = _config(server.url, tmp_path, attempts=5, workers=8)
        prompts = [f"{'right' if i % 3 else 'wrong'} {i}" for i in range(12)]
        results = judge.JudgeClient(config).complete_many(_bodies(config, prompts))
    assert [r.text for r in results] == ["是" if i % 3 else "否" for i in range(12)]
    assert server.rate_limited >= 1 and all(r.error is None for r in results)


def test_a_bad_retry_after_ceiling_names_the_variable(monkeypatch):
    monkeypatch.setenv("FOOD_TASKS_JUDGE_MODEL", "m")
    monkeypatch.setenv("FOOD_TASKS_JUDGE_RETRY_AFTER_MAX", "a minute")
    with pytest.raises(judge.JudgeSettingsInvalid, match="FOOD_TASKS_JUDGE_RETRY_AFTER_MAX='a minute'"):
        judge.judges_from_env("X")
    monkeypatch.setenv("FOOD_TASKS_JUDGE_RETRY_AFTER_MAX", "30")
    assert judge.judges_from_env("X")[0].retry_after_max == 30.0


# --------------------------------------------------------------------------- the timeout bounds the whole attempt


def test_a_slow_drip_body_is_cut_off_at_the_timeout(tmp_path):
    """A body sent one byte every 0.5 s (the old client waited up to one timeout per byte: here ~40 s)."""
    with JudgeServer(lambda p: "是", {"*": ["drip"]}) as server:
        server.drip = 0.5
        config = _config(server.url, tmp_path, attempts=1, timeout=1.5)
        start = time.monotonic()
        result = judge.JudgeClient(config).complete(judge.request_body(config, "q"))
        elapsed = time.monotonic() - start
    assert (result.text, result.error) == (None, "timeout") and elapsed < 4.0, elapsed


# --------------------------------------------------------------------------- why a judge failed, what was sent


def test_a_refused_connection_says_so_and_the_footer_counts_attempts(tmp_path):
    config = _config(f"http://127.0.0.1:{_closed_port()}/v1", tmp_path, attempts=3)
    panel = jp.Panel([config])
    answers = panel.ask(["a", "b"], temperature=0.0, max_tokens=5)
    usage = panel.usage(answers)["judge-x"]
    assert {k: usage[k] for k in ("requests", "attempts", "failed_attempts", "failed", "failure_reasons")} == {
        "requests": 2,
        "attempts": 6,
        "failed_attempts": 6,
        "failed": 2,
        "failure_reasons": {"connection refused": 6},
    }
    line = jp.usage_line(jp.total_usage([{"judge-x": usage}]))
    assert line == (
        "Judge usage: judge-x 0 + 0 tokens (2 asked in 6 attempts, 0 cached, 2 failed: failed attempts "
        "connection refused x6)"
    )
    assert jp.attempt_warnings("regional task t", {"judge-x": usage}) == [
        "regional task t: judge 'judge-x': 6 of 6 attempts failed (connection refused x6); 2 of 2 requests got no "
        "answer after every attempt."
    ]


def test_a_regional_judge_that_fails_twice_before_answering_leaves_a_trace(tmp_path, monkeypatch):
    from food_tasks.regional_tasks import judged
    from food_tasks.regional_tasks import scoring as regional_scoring

    settings = regional_scoring.Settings.from_metadata(
        {"regional": {"format": "open", "id": "id", "question": "question", "answer": "answer", "judge": True}}
    )
    rows = [("r1", "rendang", "Xq1 Rendang."), ("r2", "pho", "Xq2 pho"), ("r3", "sate", "Xq3 Laksa")]
    records = [regional_scoring.score(settings, {"id": i, "question": "Dish?", "answer": g}, p) for i, g, p in rows]
    faults = {"Xq1": ["500", "429"], "Xq2": ["500", "500"], "Xq3": ["500", "500"]}
    warned: list[str] = []
    monkeypatch.setattr(judged, "_warn_once", warned.append)
    with JudgeServer(lambda p: "yes", faults) as server:
        panel = jp.Panel([_config(server.url, tmp_path, attempts=3)])
        monkeypatch.setattr(judged, "judge_from_env", lambda purpose: panel)
        info = judged.JudgeInfo(judged.JudgeSettings(task="regional_t"))(records)
    assert (info["http_requests"], info["failed_attempts"], info["failures"]) == (9, 6, 0)
    assert info["failure_reasons"] == {"http 500": 5, "http 429": 1}
    usage = info["usage"]["judge-x"]
    assert (usage["attempts"], usage["failed_attempts"], usage["failed"]) == (9, 6, 0)
    assert warned == [
        "regional task regional_t: judge 'judge-x': 6 of 9 attempts failed (http 500 x5, http 429 x1); every request "
        "was answered in the end."
    ]


# --------------------------------------------------------------------------- Ctrl-C


CHILD = """
import sys
sys.path.insert(0, {tests!r})
from food_tasks.judge import client as judge
config = judge.JudgeConfig(model="m", url={url!r}, timeout=600, attempts=5, cache_dir={cache!r})
bodies = [judge.request_body(config, f"q{{i}}") for i in range(20)]
judge.JudgeClient(config).complete_many(bodies)
print("finished", flush=True)
"""


@pytest.mark.parametrize("interrupts", [1, 2])
def test_ctrl_c_stops_a_run_whose_judge_hangs(tmp_path, interrupts):
    """A judge that never answers, a 600 s timeout: SIGINT ends the process within seconds, with status 130, no
    traceback, and a message that a rerun resumes from the cache. A second SIGINT is no traceback either."""
    with JudgeServer(lambda p: "是", {"*": ["hang"] * 100}) as server:
        script = CHILD.format(tests=str(ROOT / "tests"), url=server.url, cache=str(tmp_path / "cache"))
        env = {**os.environ, "PYTHONPATH": str(ROOT)}
        proc = subprocess.Popen(
            [sys.executable, "-c", script], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env
        )
        try:
            deadline = time.monotonic() + 60
            while len(server.requests) < 8 and time.monotonic() < deadline:  # every worker waits on the judge
                time.sleep(0.05)
            assert len(server.requests) >= 8
            sent = time.monotonic()
            for _ in range(interrupts):
                proc.send_signal(signal.SIGINT)
                time.sleep(0.02)
            out, err = proc.communicate(timeout=15)
            elapsed = time.monotonic() - sent
        finally:
            if proc.poll() is None:
                proc.kill()
                proc.communicate()
    # 130: our exit; -SIGINT: a second SIGINT that came while the interpreter was already shutting down
    assert proc.returncode in (transport.INTERRUPTED, -signal.SIGINT) and elapsed < 15, (elapsed, err[-2000:])
    assert "Traceback" not in err and "finished" not in out, err[-3000:]
    assert "interrupted" in err and "rerun" in err.lower(), err[-2000:]
    if interrupts == 1:
        assert "A rerun with the same settings asks only for the missing ones" in err


# --------------------------------------------------------------------------- the cache: kill -9, two runs


def test_the_stale_temporary_files_of_dead_processes_are_removed(tmp_path):
    """What kill -9 between the write and the rename leaves: ``<key>.json.tmp-<pid>-<tid>``. Removed once its process
    is gone (and it is a minute old); a live process's own file is left alone."""
    with JudgeServer(lambda p: "是") as server:
        config = _config(server.url, tmp_path, attempts=1)
        body = judge.request_body(config, "q")
        key = judge.request_key(body)
        folder = tmp_path / "cache" / key[:2]
        folder.mkdir(parents=True)
        dead = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, text=True)
        dead_pid = int(dead.stdout)
        stale = folder / f"{'0' * 64}.json.tmp-{dead_pid}-140001"
        stale.write_text('{"request": {}, "response": "是"}', encoding="utf-8")  # a complete verdict, never renamed
        fresh = folder / f"{'1' * 64}.json.tmp-{dead_pid}-140002"  # just written: perhaps another host's, mid-write
        fresh.write_text("{", encoding="utf-8")
        live = folder / f"{'2' * 64}.json.tmp-{os.getppid()}-140003"
        live.write_text("{", encoding="utf-8")
        old = time.time() - 120
        for path in (stale, live):
            os.utime(path, (old, old))
        assert judge.JudgeClient(config).complete(body).text == "是"
    assert not stale.exists() and fresh.exists() and live.exists()
    assert sorted(p.name for p in folder.iterdir() if ".tmp-" not in p.name) == [f"{key}.json"]  # no lock left


def test_two_runs_sharing_one_cache_pay_once(tmp_path):
    """Two clients (two runs: their own memory, one cache folder) ask for the same 12 verdicts at the same time from
    a slow judge: 12 requests, not 24 (the old client sent 24)."""
    with JudgeServer(lambda p: "是", delay=0.2) as server:
        config = _config(server.url, tmp_path, attempts=1, workers=4)
        bodies = _bodies(config, [f"q{i}" for i in range(12)])
        results: dict[int, list] = {}
        barrier = threading.Barrier(2)

        def run(n: int) -> None:
            client = judge.JudgeClient(config)
            barrier.wait()
            results[n] = client.complete_many(bodies)

        threads = [threading.Thread(target=run, args=(n,)) for n in range(2)]
        for t in threads:
            t.start()
        for t in threads:
            t.join(60)
    assert len(server.requests) == 12
    assert [r.text for r in results[0]] == [r.text for r in results[1]] == ["是"] * 12
    assert sum(r.cached for r in results[0] + results[1]) == 12  # each verdict answered once, read once


def test_two_processes_sharing_one_cache_pay_once(tmp_path):
    script = textwrap.dedent(
        """
        import sys
        from food_tasks.judge import client as judge
        config = judge.JudgeConfig(model="m", url=sys.argv[1], timeout=10, attempts=1, workers=4, cache_dir=sys.argv[2])
        results = judge.JudgeClient(config).complete_many([judge.request_body(config, f"q{i}") for i in range(6)])
        print(sum(r.text == "是" for r in results))
        """
    )
    with JudgeServer(lambda p: "是", delay=0.3) as server:
        env = {**os.environ, "PYTHONPATH": str(ROOT)}
        cmd = [sys.executable, "-c", script, server.url, str(tmp_path / "cache")]
        procs = [
            subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env) for _ in "ab"
        ]
        outs = [p.communicate(timeout=120) for p in procs]
    assert [o.strip() for o, _ in outs] == ["6", "6"], outs
    assert len(server.requests) == 6


# --------------------------------------------------------------------------- a judge list with ';'


@pytest.mark.parametrize("value", ["gpt-4o;qwen2.5-72b", "gpt-4o,qwen;llama"])
def test_a_semicolon_in_the_judge_list_is_refused(monkeypatch, value):
    monkeypatch.setenv("FOOD_TASKS_JUDGE_MODEL", value)
    with pytest.raises(judge.JudgeSettingsInvalid, match=r"FOOD_TASKS_JUDGE_MODEL=.*';' separates the judges' prices"):
        judge.judges_from_env("X")


# --------------------------------------------------------------------------- compare: the headline judges differ


def _judged_run(folder: Path, judge_model: str) -> Path:
    from food_tasks.regional_tasks import scoring as regional_scoring

    metadata = {
        "version": 1.0,
        "regional": {"format": "open", "id": "id", "question": "question", "answer": "answer", "judge": True},
    }
    settings = regional_scoring.Settings.from_metadata(metadata)
    rows = [("r1", "rendang", "Rendang."), ("r2", "pho", "pho"), ("r3", "sate", "Laksa")]
    records = [regional_scoring.score(settings, {"id": i, "question": "Dish?", "answer": g}, p) for i, g, p in rows]
    folder.mkdir()
    lines = "\n".join(json.dumps({"acc": r}) for r in records) + "\n"
    (folder / "run_samples_regional_judged.jsonl").write_text(lines, encoding="utf-8")
    results = {"acc": 2 / 3 * 100, "judge_acc": 50.0, "judge_info": {"model": judge_model}}
    data = {
        "results": {"regional_judged": {f"{k},none": v for k, v in results.items()}},
        "configs": {"regional_judged": {"task": "regional_judged", "metadata": metadata}},
        "model_name": folder.name,
    }
    (folder / "run_results.json").write_text(json.dumps(data), encoding="utf-8")
    return folder / "run_results.json"


@pytest.mark.parametrize(
    ("judge_a", "judge_b", "warned"), [("gpt-4o", "qwen2.5-72b", True), ("gpt-4o", "gpt-4o", False)]
)
def test_compare_warns_when_the_headline_judges_differ(tmp_path, monkeypatch, judge_a, judge_b, warned):
    from food_tasks.compare.command import WARNING, output

    monkeypatch.delenv("FOOD_TASKS_JUDGE_MODEL", raising=False)
    a, b = _judged_run(tmp_path / "a", judge_a), _judged_run(tmp_path / "b", judge_b)
    warnings = [text for kind, text in output(str(a), str(b), "headline", 50) if kind == WARNING]
    expected = (
        'the headline judges differ, so judge figures are not comparable: judge model differs (a: "gpt-4o"; b: '
        '"qwen2.5-72b") in `regional_judged`'
    )
    assert warnings == ([expected] if warned else [])


def test_the_client_works_where_an_event_loop_already_runs(tmp_path):
    """A notebook runs an event loop in its main thread: the client's own loop then runs in a thread of its own."""
    import asyncio

    with JudgeServer(lambda p: "是") as server:
        config = _config(server.url, tmp_path, attempts=1)

        async def inside() -> list:
            return judge.JudgeClient(config).complete_many(_bodies(config, ["q0", "q1"]))

        results = asyncio.run(inside())
    assert [r.text for r in results] == ["是", "是"]


def test_a_lock_held_by_a_stopped_process_is_waited_for_a_bounded_time(tmp_path):
    """A holder that stopped without dying (SIGSTOP, a hung NFS client) keeps its lock: the waiter goes on unlocked
    after its patience, rather than forever."""
    import asyncio
    import fcntl

    from food_tasks.judge.store import Store

    store = Store(tmp_path, lambda message: None)
    key = "ab" + "0" * 62
    path = store.path(key)
    path.parent.mkdir(parents=True)
    with open(path.with_suffix(".lock"), "a+b") as held:
        fcntl.flock(held.fileno(), fcntl.LOCK_EX)

        async def wait() -> float:
            start = time.monotonic()
            async with store.locked(key, patience=0.3):
                return time.monotonic() - start

        waited = asyncio.run(wait())
    assert 0.3 <= waited < 2.0
