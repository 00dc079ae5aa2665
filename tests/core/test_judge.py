"""food_tasks.judge.client against a local OpenAI-compatible server: retries, back-off, cache, bounded pool."""

from __future__ import annotations

import pytest
from judge_server import JudgeServer

from food_tasks.judge import client as judge


def _config(url, tmp_path, **kw):  # type: ignore[no-untyped-def]
    return judge.JudgeConfig(
        model="judge-x",
        url=url,
        api_key="sk-test",
        timeout=kw.pop("timeout", 0.5),
        backoff=0.0,
        cache_dir=str(tmp_path / "cache"),
        **kw,
    )


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
        assert client.stats.by_reason == {
            "http 500": 5,
            "timeout": 1,
            "unreadable response body": 1,
            "http 400: error": 1,
        }
        request = next(r for r in server.requests if r["body"]["messages"][0]["content"] == "q0")
        assert request["path"] == "/v1/chat/completions" and request["auth"] == "Bearer sk-test"
        assert request["body"] == {
            "model": "judge-x",
            "messages": [{"role": "user", "content": "q0"}],
            "temperature": 0.0,
            "max_tokens": 100,
        }

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
        config = judge.JudgeConfig(
            model="m", url=server.url + "/chat/completions", timeout=0.5, attempts=4, backoff=0.5, cache_dir=""
        )
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
    with pytest.raises(
        judge.JudgeNotConfigured,
        match=(
            r"API_TYPE='carrier-pigeon' cannot be used \(ValueError: Unknown API type: carrier-pigeon. "
            r"Supported types: \["
        ),
    ):
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


# --------------------------------------------------------------------------- any text, per-task counters, no secrets


def test_lone_surrogates_in_the_request_and_in_the_reply_are_judged_and_cached(tmp_path):
    """A model output with a lone surrogate (byte-level tokenizers) used to raise UnicodeEncodeError in
    request_key; a reply holding one raised it in the cache write. Both become U+FFFD, hashed as sent."""
    with JudgeServer(lambda p: "是\udf20" if "Chi" in p else "否") as server:
        config = _config(server.url, tmp_path, attempts=1)
        client = judge.JudgeClient(config)
        body = judge.request_body(config, "Chi\udf20cken Kiev")
        assert body["messages"][0]["content"] == "Chi\ufffdcken Kiev"
        raw = {
            "model": "judge-x",
            "messages": [{"role": "user", "content": "Chi\udf20cken Kiev"}],
            "temperature": 0.0,
            "max_tokens": 100,
        }
        assert judge.request_key(raw) == judge.request_key(body)  # what is hashed is what is sent
        results = client.complete_many([raw, body, judge.request_body(config, "\ud800")])
        assert [r.text for r in results] == ["是\ufffd", "是\ufffd", "否"]
        assert sorted(r["body"]["messages"][0]["content"] for r in server.requests) == ["Chi\ufffdcken Kiev", "\ufffd"]
        # The reply was cached (the write no longer raises) and a new run reads it back.
        again = judge.JudgeClient(config).complete(raw)
        assert again.cached and again.text == "是\ufffd" and len(server.requests) == 2


def test_a_cache_that_cannot_be_written_loses_no_verdict(tmp_path):
    blocker = tmp_path / "cache"
    blocker.write_text("a file where the cache folder should be")
    with JudgeServer(lambda p: "是") as server:
        config = _config(server.url, tmp_path, attempts=1)
        results = judge.JudgeClient(config).complete_many(_bodies(config, ["q0", "q1"]))
    assert [r.text for r in results] == ["是", "是"]


def test_summarize_counts_one_tasks_own_requests(tmp_path):
    """The client is shared by the tasks of a process: a task's diagnostics come from its own results."""
    faults = {"a1": ["500", "500"], "b1": ["down"]}
    with JudgeServer(lambda p: "是", faults) as server:
        config = _config(server.url, tmp_path, attempts=3)
        client = judge.JudgeClient(config, sleep=lambda s: None)
        first = client.complete_many(_bodies(config, ["a0", "a1", "a2", "a0"]))
        second = client.complete_many(_bodies(config, ["b0", "b1"]))
        again = client.complete_many(_bodies(config, ["b0", "b1"]))  # another metric of the same task: memory
    a = judge.summarize(config, first)
    assert a == {
        "model": "judge-x",
        "endpoint": server.url.split("//")[1].split("/")[0],
        "http_requests": 1 + 3 + 1,
        "failed_attempts": 2,
        "failures": 0,
        "cache_hits": 0,
        "completions": 3,
        "failure_reasons": {"http 500": 2},
    }
    b = judge.summarize(config, second)
    assert (b["http_requests"], b["failed_attempts"], b["failures"], b["completions"]) == (1 + 3, 3, 1, 1)
    assert b["failure_reasons"] == {"http 500": 3} and judge.summarize(config, again) == b
    assert client.stats.requests == 9  # the process-wide counters still add up every task
    # A re-run (new process, same cache): b0 is a cache hit, b1 is asked again.
    with JudgeServer(lambda p: "是") as server2:
        config2 = _config(server2.url, tmp_path, attempts=3)
        rerun = judge.JudgeClient(config2, sleep=lambda s: None).complete_many(_bodies(config2, ["b0", "b1"]))
    c = judge.summarize(config2, rerun)
    assert (c["cache_hits"], c["http_requests"], c["failures"], c["completions"], c["failure_reasons"]) == (
        1,
        1,
        0,
        1,
        {},
    )


@pytest.mark.parametrize("url", ["http://judge-user:pw-SECRET-42@127.0.0.1:{port}/v1", "http://127.0.0.1:{port}/v1"])
def test_judge_info_shows_host_and_port_only_and_masks_echoed_credentials(tmp_path, url):
    with JudgeServer(lambda p: "是", {"x1": ["echo"]}) as server:
        port = server.url.split(":")[2].split("/")[0]
        config = judge.JudgeConfig(
            model="m",
            url=url.format(port=port),
            api_key="sk-SECRET-KEY-42",
            attempts=1,
            backoff=0.0,
            timeout=2,
            cache_dir=str(tmp_path / "c"),
        )
        client = judge.JudgeClient(config)
        results = client.complete_many(_bodies(config, ["x0", "x1"]))
    assert results[0].text == "是" and results[1].text is None
    # The server echoed the credentials it got (requests sends URL user-info as Basic auth instead of the key).
    assert ("Basic ***" if "@" in url else "Bearer ***") in results[1].error
    for info in (judge.summarize(config, results), client.info()):
        assert info["endpoint"] == f"127.0.0.1:{port}"
        text = repr(info)
        assert "SECRET" not in text and "judge-user" not in text, text
        assert "***" in str(info["failure_reasons"])
    assert "SECRET" not in repr(results)


def test_host_port():
    assert judge.host_port("https://user:token@api.example.com/v1") == "api.example.com"
    assert judge.host_port("http://u:p@[::1]:8000/v1?key=s") == "[::1]:8000"
    assert judge.host_port("http://h:notaport/v1") == "h" and judge.host_port("http://[::1") == ""


# --------------------------------------------------------------------------- issue 35: usage, repeats, a judge list


def test_usage_is_read_cached_and_costs_nothing_when_cached(tmp_path):
    from judge_server import char_usage

    with JudgeServer(lambda p: "是", usage=char_usage) as server:
        config = _config(server.url, tmp_path)
        first = judge.JudgeClient(config).complete(judge.request_body(config, "q0q0"))
        assert (first.usage, first.cached) == ({"prompt_tokens": 4, "completion_tokens": 1}, False)
        again = judge.JudgeClient(config).complete(judge.request_body(config, "q0q0"))
        assert (again.text, again.usage, again.cached, again.attempts) == ("是", first.usage, True, 0)
        assert len(server.requests) == 1 and server.tokens() == (4, 1)


@pytest.mark.parametrize(
    "usage",
    [
        {"prompt_tokens": "4", "completion_tokens": 1},
        {"prompt_tokens": -1, "completion_tokens": 1},
        {"prompt_tokens": True, "completion_tokens": 1},
        {"prompt_tokens": 4},
        {"prompt_tokens": 4.0, "completion_tokens": 1},
        [4, 1],
        "4,1",
    ],
)
def test_a_malformed_usage_is_unknown_and_the_verdict_stands(tmp_path, usage):  # type: ignore[no-untyped-def]
    with JudgeServer(lambda p: "是", usage=lambda p, a: usage) as server:
        config = _config(server.url, tmp_path)
        result = judge.JudgeClient(config).complete(judge.request_body(config, "q"))
    assert (result.text, result.usage, result.error) == ("是", None, None)


def test_from_env_is_the_first_of_a_judge_list(monkeypatch, tmp_path):
    for name in ("API_TYPE", "OPENAI_API_URL", "FOOD_TASKS_JUDGE_URL", "FOOD_TASKS_JUDGE_KEY_VARS"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("FOOD_TASKS_JUDGE_CACHE", str(tmp_path))
    monkeypatch.setenv("FOOD_TASKS_JUDGE_MODEL", " gpt-4o , qwen2.5-72b-instruct ")
    first, second = judge.judges_from_env("X")
    assert judge.JudgeConfig.from_env("X") == first and (first.model, second.model) == (
        "gpt-4o",
        "qwen2.5-72b-instruct",
    )
    assert first.url == second.url == judge.DEFAULT_URL and (first.repeats, first.temperature) == (1, None)
