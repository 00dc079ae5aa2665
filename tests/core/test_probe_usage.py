"""The judge probes' requests are counted in each judge's usage (issue: judge cost under-reported): a regional judged
task's and DiningBench's ``judge_info`` usage, and the run's "Judge usage:" line, equal what the local judge server
itself received and reported (requests and ``usage`` tokens), probes on; a rerun from the cache sends nothing."""

from __future__ import annotations

import pytest
from judge_server import JudgeServer, char_usage

from food_tasks.judge import client as judge
from food_tasks.judge import panel as jp
from food_tasks.judge import probes

N_PROBES = len(probes.PROBES)  # 34


@pytest.fixture()
def probes_on(monkeypatch, tmp_path):  # type: ignore[no-untyped-def]
    monkeypatch.setenv("FOOD_TASKS_JUDGE_PROBES", "1")  # tests/conftest.py turns them off
    monkeypatch.delenv("FOOD_TASKS_JUDGE_PRICE", raising=False)
    judge.client_for.cache_clear()
    probes._COUNTED.clear()  # a fresh process
    yield
    judge.client_for.cache_clear()
    probes._COUNTED.clear()


def _panel(url, tmp_path, price=None):  # type: ignore[no-untyped-def]
    config = judge.JudgeConfig(model="my-judge", url=url, api_key="sk-test", timeout=5.0, backoff=0.01, attempts=3)
    config = judge.JudgeConfig(**{**config.__dict__, "cache_dir": str(tmp_path / "cache")})
    return jp.Panel([config], price)


def _records():  # type: ignore[no-untyped-def]
    from food_tasks.regional_tasks import scoring

    settings = scoring.Settings.from_metadata(
        {"regional": {"format": "open", "id": "id", "question": "question", "answer": "answer", "judge": True}}
    )
    rows = [("a1", "rendang", "Rendang."), ("a2", "laksa", "Curry laksa"), ("a3", "pho", "Ramen"), ("a4", "sate", "")]
    return [scoring.score(settings, {"id": i, "question": "Which dish?", "answer": g}, p) for i, g, p in rows]


def _judge_info(monkeypatch, panel, task="regional_t", records=None):  # type: ignore[no-untyped-def]
    from food_tasks.regional_tasks import judged

    monkeypatch.setattr(judged, "judge_from_env", lambda purpose: panel)
    monkeypatch.setattr(judged, "_warn_once", lambda message: None)
    return judged.JudgeInfo(judged.JudgeSettings(task=task))(_records() if records is None else records)


def test_a_regional_tasks_usage_equals_the_servers_totals_probes_included(probes_on, monkeypatch, tmp_path):
    # the first probe fails once (HTTP 500) before it is answered: an attempt the usage must count too
    with JudgeServer(lambda prompt: "no", {"Pad see ew": ["500"]}, usage=char_usage) as server:
        info = _judge_info(monkeypatch, _panel(server.url, tmp_path, [(2.0, 10.0)]))
        sent_prompt, sent_completion = server.tokens()
        received = len(server.requests)
    assert info["probes"]["status"] == "on" and "usage" not in info["probes"]  # the usage is the judge's, not apart
    usage = info["usage"]["my-judge"]
    # three non-empty answers + 34 probes sent; the server answered 37 of 38 attempts (one 500)
    assert (usage["requests"], usage["attempts"], usage["failed_attempts"], usage["cached"]) == (37, 38, 1, 0)
    assert received == 38 and len(server.usage_sent) == 37
    assert (usage["prompt_tokens"], usage["completion_tokens"]) == (sent_prompt, sent_completion)
    assert usage["completion_tokens"] == 2 * 37  # "no": one token per character
    assert usage["cost"] == pytest.approx((2.0 * sent_prompt + 10.0 * sent_completion) / 1e6)
    part = usage["probes"]
    assert (part["requests"], part["attempts"], part["failed_attempts"], part["cached"]) == (34, 35, 1, 0)
    assert part["failure_reasons"] == {"http 500": 1} and usage["failure_reasons"] == {"http 500": 1}
    assert 0 < part["prompt_tokens"] < usage["prompt_tokens"] and part["completion_tokens"] == 2 * 34
    # the footer ("Judge usage:") and the report read these totals: the server's own
    line = jp.usage_line(jp.total_usage([info["usage"]]))
    assert " ".join(line.split()) == (  # wrapped at 120 columns
        f"Judge usage: my-judge {sent_prompt:,} + {sent_completion:,} tokens (37 asked in 38 attempts, 34 of them "
        f"probes, 0 cached, 0 failed: failed attempts http 500 x1), ${usage['cost']:.4f}"
    )

    # a rerun (a new process: empty memory cache) hits the disk cache: nothing sent, "no new tokens (37 cached)"
    judge.client_for.cache_clear()
    with JudgeServer(lambda prompt: "no", usage=char_usage) as again:
        info = _judge_info(monkeypatch, _panel(again.url, tmp_path))
        assert again.requests == []
    usage = info["usage"]["my-judge"]
    assert (usage["requests"], usage["cached"], usage["probes"]["cached"], usage["prompt_tokens"]) == (0, 37, 34, 0)
    assert jp.usage_line(jp.total_usage([info["usage"]])) == "Judge usage: my-judge no new tokens (37 cached)"


def test_two_tasks_of_a_run_sharing_the_probes_count_them_once(probes_on, monkeypatch, tmp_path):
    """Two regional tasks with the default prompt send the same 34 probe requests: the server receives them once
    (the client's memory cache), and the run's line counts them once: the first task's, the second's cached."""
    with JudgeServer(lambda prompt: "no", usage=char_usage) as server:
        panel = _panel(server.url, tmp_path)
        first = _judge_info(monkeypatch, panel, "regional_a")
        second = _judge_info(monkeypatch, panel, "regional_b", _records()[:2])  # a1, a2: already asked by the first
        tokens, received = server.tokens(), len(server.requests)
    assert received == 3 + 34
    a, b = first["usage"]["my-judge"], second["usage"]["my-judge"]
    assert (a["requests"], a["probes"]["requests"]) == (37, 34)
    assert (b["probes"]["requests"], b["probes"]["cached"], b["probes"]["prompt_tokens"]) == (0, 34, 0)
    total = jp.total_usage([first["usage"], second["usage"]])["my-judge"]
    # the task's own records shared by two tasks are counted in both (docs/judge.md): a1 and a2 here, 2 requests
    assert (total["requests"], total["probes"]["requests"]) == (received + 2, 34)
    assert (b["requests"], b["completion_tokens"]) == (2, 2 * 2)  # a1, a2 again, counted in this task too
    assert (total["prompt_tokens"], total["completion_tokens"]) == (tokens[0] + b["prompt_tokens"], tokens[1] + 4)


def test_probes_off_leave_the_usage_as_it_was(monkeypatch, tmp_path):  # type: ignore[no-untyped-def]
    monkeypatch.setenv("FOOD_TASKS_JUDGE_PROBES", "0")
    judge.client_for.cache_clear()
    with JudgeServer(lambda prompt: "no", usage=char_usage) as server:
        info = _judge_info(monkeypatch, _panel(server.url, tmp_path))
        tokens = server.tokens()
    usage = info["usage"]["my-judge"]
    assert "probes" not in usage and usage["requests"] == 3
    assert (usage["prompt_tokens"], usage["completion_tokens"]) == tokens
    judge.client_for.cache_clear()


def test_with_probes_adds_each_judge_and_keeps_unknown_unknown():  # type: ignore[no-untyped-def]
    def entry(model, requests, cached, p, c, cost):  # type: ignore[no-untyped-def]
        return {
            "model": model,
            "endpoint": "h:1",
            "requests": requests,
            "attempts": requests,
            "failed_attempts": 0,
            "failure_reasons": {},
            "cached": cached,
            "failed": 0,
            "prompt_tokens": p,
            "completion_tokens": c,
            "cost": cost,
        }

    task = {"a": entry("a", 6, 0, 1_099, 30, 0.001), "b": entry("b", 6, 0, 500, 6, None)}
    probe = {"a": entry("a", 34, 0, 8_800, 68, 0.009), "b": entry("b", 30, 4, None, None, None)}
    got = jp.with_probes(task, probe)
    a, b = got["a"], got["b"]
    assert (a["requests"], a["prompt_tokens"], a["completion_tokens"], a["endpoint"]) == (40, 9_899, 98, "h:1")
    assert a["cost"] == pytest.approx(0.010) and a["probes"]["requests"] == 34
    assert (b["requests"], b["cached"], b["prompt_tokens"], b["cost"]) == (36, 4, None, None)  # unknown stays unknown
    # two tasks of a run: the totals and their probe parts add up
    total = jp.total_usage([got, got])
    assert (total["a"]["requests"], total["a"]["probes"]["requests"], total["a"]["prompt_tokens"]) == (80, 68, 19_798)
    assert jp.with_probes(task, None) is task and jp.with_probes(None, probe) is None
