"""food_tasks.judge against a local OpenAI-compatible server: retries, back-off, cache, bounded pool."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from judge_server import JudgeServer  # noqa: E402

from food_tasks import judge  # noqa: E402


def _config(url, tmp_path, **kw):  # type: ignore[no-untyped-def]
    return judge.JudgeConfig(model="judge-x", url=url, api_key="sk-test", timeout=kw.pop("timeout", 0.5), backoff=0.0,
                             cache_dir=str(tmp_path / "cache"), **kw)  # fmt: skip


def _bodies(config, prompts):  # type: ignore[no-untyped-def]
    return [judge.request_body(config, p) for p in prompts]


def test_scripted_verdicts_faults_and_cache(tmp_path):
    faults = {"q1": ["500", "timeout", "garbage"], "q2": ["down"], "q3": ["400"]}
    with JudgeServer(lambda p: "是" if "q0" in p or "q1" in p else "否", faults) as server:
        config = _config(server.url, tmp_path, attempts=4)
        client = judge.JudgeClient(config, sleep=lambda s: None)
        results = client.complete_many(_bodies(config, ["q0", "q1", "q2", "q3", "q0"]))
        assert [r.text for r in results] == ["是", "是", None, None, "是"]
        assert results[1].attempts == 4 and results[2].error == "http 500" and results[3].error.startswith("http 400")
        # q0 once (deduplicated), q1 four attempts, q2 four attempts, q3 once (client errors are not retried)
        assert len(server.requests) == 1 + 4 + 4 + 1
        assert client.stats.failures == 2 and client.stats.completions == 2
        assert client.stats.by_reason == {"http 500": 5, "timeout": 1, "unreadable response body": 1,
                                          "http 400: error": 1}  # fmt: skip
        request = next(r for r in server.requests if r["body"]["messages"][0]["content"] == "q0")
        assert request["path"] == "/v1/chat/completions" and request["auth"] == "Bearer sk-test"
        assert request["body"] == {"model": "judge-x", "messages": [{"role": "user", "content": "q0"}], "temperature": 0.0, "max_tokens": 100}

        # A fresh client (a re-run) reads the disk cache: no request for what was judged; failures are retried.
        server.faults.clear()
        again = judge.JudgeClient(config, sleep=lambda s: None)
        before = len(server.requests)
        assert [r.text for r in again.complete_many(_bodies(config, ["q0", "q1"]))] == ["是", "是"]
        assert len(server.requests) == before and again.stats.cache_hits == 2
        assert again.complete(judge.request_body(config, "q2")).text == "否" and len(server.requests) == before + 1


def test_backoff_is_exponential(tmp_path):
    delays = []
    with JudgeServer(lambda p: "是", {"*": ["down"]}) as server:
        config = judge.JudgeConfig(model="m", url=server.url + "/chat/completions", timeout=0.5, attempts=4, backoff=0.5, cache_dir="")
        result = judge.JudgeClient(config, sleep=delays.append).complete(judge.request_body(config, "x"))
    assert result.text is None and delays == [0.5, 1.0, 2.0]


def test_bounded_pool(tmp_path):
    with JudgeServer(lambda p: "是", delay=0.05) as server:
        config = _config(server.url, tmp_path, workers=3, attempts=1)
        judge.JudgeClient(config).complete_many(_bodies(config, [f"q{i}" for i in range(12)]))
    assert len(server.requests) == 12 and server.max_in_flight <= 3


def test_cache_key_is_the_full_request(tmp_path):
    config = _config("http://127.0.0.1:9", tmp_path)
    a = judge.request_body(config, "x")
    assert judge.request_key(a) != judge.request_key({**a, "model": "other"})
    assert judge.request_key(a) != judge.request_key({**a, "max_tokens": 10})
    assert judge.request_key(a) == judge.request_key(dict(reversed(list(a.items()))))


def test_config_from_env(monkeypatch, tmp_path):
    for name in ("FOOD_TASKS_JUDGE_MODEL", "API_TYPE", "OPENAI_API_URL", "OPENAI_API_KEY"):
        monkeypatch.delenv(name, raising=False)
    with pytest.raises(judge.JudgeNotConfigured, match="FOOD_TASKS_JUDGE_MODEL is not set"):
        judge.JudgeConfig.from_env("X")
    monkeypatch.setenv("FOOD_TASKS_JUDGE_MODEL", "none")
    assert judge.JudgeConfig.from_env() is None
    monkeypatch.setenv("FOOD_TASKS_JUDGE_MODEL", "gpt-4o-2024-11-20")
    monkeypatch.setenv("API_TYPE", "carrier-pigeon")
    with pytest.raises(judge.JudgeNotConfigured, match=r"API_TYPE='carrier-pigeon' cannot be used \(ValueError: Unknown API type: carrier-pigeon. Supported types: \["):
        judge.JudgeConfig.from_env()
    monkeypatch.setenv("API_TYPE", "openai")
    monkeypatch.setenv("OPENAI_API_URL", "http://h:8000/v1/")
    monkeypatch.setenv("FOOD_TASKS_CACHE_DIR", str(tmp_path))
    config = judge.JudgeConfig.from_env()
    assert config.endpoint == "http://h:8000/v1/chat/completions" and config.cache_dir == str(tmp_path / "judge")


def test_other_api_types_go_through_lmms_eval_providers(monkeypatch, tmp_path):
    monkeypatch.setenv("FOOD_TASKS_JUDGE_MODEL", "m")
    monkeypatch.setenv("API_TYPE", "dummy")  # lmms-eval's offline provider: answers "dummy"
    monkeypatch.setenv("FOOD_TASKS_JUDGE_CACHE", str(tmp_path))
    config = judge.JudgeConfig.from_env()
    assert config.api_type == "dummy"
    client = judge.JudgeClient(config)
    assert client.complete(judge.request_body(config, "x")).text == "dummy"
    assert judge.JudgeClient(config).complete(judge.request_body(config, "x")).cached  # same disk cache
