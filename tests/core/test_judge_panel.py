"""food_tasks.judge.panel and the judge list of the environment: two judges on two local servers, repeats, tokens,
cost, one judge down, and every malformed setting."""

from __future__ import annotations

import json

import pytest
from judge_server import JudgeServer, char_usage

from food_tasks.judge import client as judge
from food_tasks.judge import panel as jp

JUDGE_VARS = (
    "FOOD_TASKS_JUDGE_MODEL",
    "FOOD_TASKS_JUDGE_URL",
    "FOOD_TASKS_JUDGE_KEY_VARS",
    "FOOD_TASKS_JUDGE_REPEATS",
    "FOOD_TASKS_JUDGE_TEMPERATURE",
    "FOOD_TASKS_JUDGE_PRICE",
    "OPENAI_API_URL",
    "OPENAI_API_KEY",
    "API_TYPE",
)


@pytest.fixture()
def env(monkeypatch, tmp_path):  # type: ignore[no-untyped-def]
    """A clean judge environment with a private cache; returns ``monkeypatch.setenv``."""
    for name in JUDGE_VARS:
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("FOOD_TASKS_JUDGE_CACHE", str(tmp_path / "cache"))
    monkeypatch.setenv("FOOD_TASKS_JUDGE_BACKOFF", "0")
    monkeypatch.setenv("FOOD_TASKS_JUDGE_TIMEOUT", "2")
    judge.client_for.cache_clear()
    yield monkeypatch.setenv
    judge.client_for.cache_clear()


def _yes_if(word):  # type: ignore[no-untyped-def]
    return lambda prompt: "yes" if word in prompt else "no"


PROMPTS = ["apple pie", "beef stew", "apple tart"]


def test_two_judges_two_servers_bodies_repeats_tokens_and_cost(env):  # type: ignore[no-untyped-def]
    with (
        JudgeServer(_yes_if("apple"), usage=char_usage) as one,
        JudgeServer(_yes_if("pie"), usage=char_usage) as two,
    ):
        env("FOOD_TASKS_JUDGE_MODEL", "judge-a, judge-b")
        env("FOOD_TASKS_JUDGE_URL", f"{one.url},{two.url}")
        env("KEY_A", "sk-aaaa")
        env("KEY_B", "sk-bbbb")
        env("FOOD_TASKS_JUDGE_KEY_VARS", "KEY_A,KEY_B")
        env("FOOD_TASKS_JUDGE_REPEATS", "2")
        env("FOOD_TASKS_JUDGE_TEMPERATURE", "0.7")
        env("FOOD_TASKS_JUDGE_PRICE", "2,10")
        panel = jp.panel_from_env("test")
        assert [c.model for c in panel.configs] == ["judge-a", "judge-b"] and panel.headline.model == "judge-a"
        assert judge.JudgeConfig.from_env("test") == panel.configs[0]

        official = panel.ask(PROMPTS, temperature=0.0, max_tokens=5, official=True)
        answers = panel.ask(PROMPTS, temperature=0.0, max_tokens=5)
        assert [[r.text for r in rep] for rep in official[0]] == [["yes", "no", "yes"]]
        assert [[[r.text for r in rep] for rep in j] for j in answers] == [
            [["yes", "no", "yes"]] * 2,
            [["yes", "no", "no"]] * 2,
        ]
        # official: headline only, its temperature, key A; then every judge twice at 0.7 (submitted in prompt order;
        # they arrive in any order, up to FOOD_TASKS_JUDGE_WORKERS at a time)
        bodies_one = [r["body"] for r in one.requests]
        key = json.dumps
        assert sorted(map(key, bodies_one[:3])) == sorted(
            key({"model": "judge-a", "messages": [{"role": "user", "content": p}], "temperature": 0.0, "max_tokens": 5})
            for p in PROMPTS
        )
        assert sorted((b["messages"][0]["content"], b["temperature"]) for b in bodies_one[3:]) == sorted(
            (p, 0.7) for p in PROMPTS * 2
        )
        assert {r["auth"] for r in one.requests} == {"Bearer sk-aaaa"}
        assert {r["auth"] for r in two.requests} == {"Bearer sk-bbbb"} and len(two.requests) == 6
        assert all(r["body"]["model"] == "judge-b" and r["body"]["temperature"] == 0.7 for r in two.requests)

        usage = panel.usage(official, answers)
        p_one, c_one = one.tokens()
        assert usage["judge-a"] == {
            "model": "judge-a",
            "endpoint": "127.0.0.1:" + one.url.split(":")[2].split("/")[0],
            "requests": 9,
            "attempts": 9,
            "failed_attempts": 0,
            "failure_reasons": {},
            "cached": 0,
            "failed": 0,
            "prompt_tokens": p_one,
            "completion_tokens": c_one,
            "cost": pytest.approx((p_one * 2 + c_one * 10) / 1e6),
        }
        # hand-computed: 2 repeats of 9 + 9 + 10 prompt characters and of the answers yes, no, no (3 + 2 + 2)
        assert (usage["judge-b"]["prompt_tokens"], usage["judge-b"]["completion_tokens"]) == (56, 14) == two.tokens()
        assert usage["judge-b"]["cost"] == pytest.approx((56 * 2 + 14 * 10) / 1e6)

        # A re-run (fresh clients) reads every repeat from its own cache entry: no request, no new tokens.
        judge.client_for.cache_clear()
        sent = len(one.requests), len(two.requests)
        again = jp.panel_from_env("test")
        rerun = again.ask(PROMPTS, temperature=0.0, max_tokens=5)
        assert (len(one.requests), len(two.requests)) == sent
        assert [[[r.text for r in rep] for rep in j] for j in rerun] == [
            [["yes", "no", "yes"]] * 2,
            [["yes", "no", "no"]] * 2,
        ]
        cost = again.usage(rerun)["judge-b"]
        assert cost["cached"] == 6 and cost["requests"] == 0 and (cost["prompt_tokens"], cost["cost"]) == (0, 0.0)
        assert all(r.cached and r.usage is not None for j in rerun for rep in j for r in rep)


def test_repeats_have_their_own_cache_keys(tmp_path):  # type: ignore[no-untyped-def]
    with JudgeServer(lambda p: "yes") as server:
        config = judge.JudgeConfig(model="m", url=server.url, backoff=0.0, cache_dir=str(tmp_path))
        client = judge.JudgeClient(config)
        body = judge.request_body(config, "q")
        first, second = client.complete_many([body])[0], client.complete_many([body], repeat=1)[0]
        assert len(server.requests) == 2 and first.key == judge.request_key(body) != second.key
        assert second.key == judge.request_key(body, 1) and client.complete_many([body], repeat=1)[0] is second
        assert len(server.requests) == 2
        assert sorted(p.name for p in tmp_path.rglob("*.json")) == sorted(f"{k}.json" for k in (first.key, second.key))


def test_tokens_unknown_when_a_server_sends_no_usage(env):  # type: ignore[no-untyped-def]
    with JudgeServer(_yes_if("apple"), usage=char_usage) as one, JudgeServer(_yes_if("apple")) as two:
        env("FOOD_TASKS_JUDGE_MODEL", "a,b")
        env("FOOD_TASKS_JUDGE_URL", f"{one.url},{two.url}")
        env("FOOD_TASKS_JUDGE_PRICE", "1,1")
        panel = jp.panel_from_env("test")
        usage = panel.usage(panel.ask(PROMPTS, temperature=0.0, max_tokens=5))
    assert usage["b"]["requests"] == 3 and usage["b"]["prompt_tokens"] is None
    assert usage["b"]["completion_tokens"] is None and usage["b"]["cost"] is None
    assert usage["a"]["prompt_tokens"] == 28 and usage["a"]["cost"] == pytest.approx((28 + 8) / 1e6)


def test_one_judge_down_the_other_stands(env):  # type: ignore[no-untyped-def]
    env("FOOD_TASKS_JUDGE_ATTEMPTS", "2")
    with JudgeServer(_yes_if("apple"), usage=char_usage) as up, JudgeServer(_yes_if("apple"), {"*": ["down"]}) as down:
        env("FOOD_TASKS_JUDGE_MODEL", "up,down")
        env("FOOD_TASKS_JUDGE_URL", f"{up.url},{down.url}")
        panel = jp.panel_from_env("test")
        answers = panel.ask(PROMPTS, temperature=0.0, max_tokens=5)
        usage = panel.usage(answers)
    assert [r.text for r in answers[0][0]] == ["yes", "no", "yes"]
    assert [r.text for r in answers[1][0]] == [None] * 3 and answers[1][0][0].error == "http 500"
    assert len(down.requests) == 6  # 2 attempts each
    assert usage["down"] == {**usage["down"], "requests": 3, "failed": 3, "prompt_tokens": 0, "completion_tokens": 0}
    assert usage["up"]["failed"] == 0 and usage["up"]["prompt_tokens"] == 28


def test_one_judge_reads_as_today(env, tmp_path):  # type: ignore[no-untyped-def]
    with JudgeServer(_yes_if("apple")) as server:
        env("FOOD_TASKS_JUDGE_MODEL", "judge-x")
        env("OPENAI_API_URL", server.url)
        env("OPENAI_API_KEY", "sk-test")
        panel = jp.panel_from_env("test")
        (config,) = panel.configs
        assert config == judge.JudgeConfig(
            model="judge-x",
            url=server.url,
            api_key="sk-test",
            timeout=2.0,
            backoff=0.0,
            cache_dir=str(tmp_path / "cache"),
        )
        answers = panel.ask(["apple"], temperature=0.0, max_tokens=100)
        body = judge.request_body(config, "apple")
        assert [r["body"] for r in server.requests] == [body] and answers[0][0][0].key == judge.request_key(body)
        entry = json.loads(next((tmp_path / "cache").rglob("*.json")).read_text())
        assert entry == {"request": body, "response": "yes"}  # no usage sent: none stored


def test_old_cache_entries_stay_valid(tmp_path):  # type: ignore[no-untyped-def]
    config = judge.JudgeConfig(model="m", url="http://127.0.0.1:9", cache_dir=str(tmp_path), attempts=1)
    body = judge.request_body(config, "q")
    key = judge.request_key(body)
    (tmp_path / key[:2]).mkdir()
    (tmp_path / key[:2] / f"{key}.json").write_text(json.dumps({"request": body, "response": "yes"}))
    result = judge.JudgeClient(config).complete(body)
    assert (result.text, result.cached, result.usage) == ("yes", True, None)


@pytest.mark.parametrize(
    ("settings", "words"),
    [
        ({"FOOD_TASKS_JUDGE_MODEL": "a,,b"}, ["FOOD_TASKS_JUDGE_MODEL", "empty judge name"]),
        ({"FOOD_TASKS_JUDGE_MODEL": "a,"}, ["FOOD_TASKS_JUDGE_MODEL", "empty judge name"]),
        ({"FOOD_TASKS_JUDGE_MODEL": "a,b,a"}, ["'a' twice"]),
        ({"FOOD_TASKS_JUDGE_MODEL": "a,none"}, ["turns judging off"]),
        ({"FOOD_TASKS_JUDGE_MODEL": "a,b", "FOOD_TASKS_JUDGE_URL": "http://x,http://y,http://z"}, ["3 values for 2"]),
        ({"FOOD_TASKS_JUDGE_MODEL": "a,b", "FOOD_TASKS_JUDGE_URL": "http://x,"}, ["FOOD_TASKS_JUDGE_URL", "empty"]),
        ({"FOOD_TASKS_JUDGE_MODEL": "a,b,c", "FOOD_TASKS_JUDGE_KEY_VARS": "K1,K2"}, ["2 values for 3"]),
        ({"FOOD_TASKS_JUDGE_MODEL": "a", "FOOD_TASKS_JUDGE_KEY_VARS": "UNSET_KEY_VAR"}, ["UNSET_KEY_VAR", "not set"]),
        ({"FOOD_TASKS_JUDGE_MODEL": "a", "FOOD_TASKS_JUDGE_REPEATS": "0"}, ["FOOD_TASKS_JUDGE_REPEATS='0'"]),
        ({"FOOD_TASKS_JUDGE_MODEL": "a", "FOOD_TASKS_JUDGE_REPEATS": "two"}, ["FOOD_TASKS_JUDGE_REPEATS='two'"]),
        ({"FOOD_TASKS_JUDGE_MODEL": "a", "FOOD_TASKS_JUDGE_REPEATS": "1.5"}, ["whole number"]),
        ({"FOOD_TASKS_JUDGE_MODEL": "a", "FOOD_TASKS_JUDGE_TEMPERATURE": "-1"}, ["FOOD_TASKS_JUDGE_TEMPERATURE"]),
        ({"FOOD_TASKS_JUDGE_MODEL": "a", "FOOD_TASKS_JUDGE_TEMPERATURE": "nan"}, ["FOOD_TASKS_JUDGE_TEMPERATURE"]),
        ({"FOOD_TASKS_JUDGE_MODEL": "a", "FOOD_TASKS_JUDGE_TIMEOUT": "soon"}, ["FOOD_TASKS_JUDGE_TIMEOUT"]),
        ({"FOOD_TASKS_JUDGE_MODEL": "a", "FOOD_TASKS_JUDGE_PRICE": "2.5"}, ["FOOD_TASKS_JUDGE_PRICE", "<in>,<out>"]),
        ({"FOOD_TASKS_JUDGE_MODEL": "a", "FOOD_TASKS_JUDGE_PRICE": "2,-1"}, ["FOOD_TASKS_JUDGE_PRICE"]),
        ({"FOOD_TASKS_JUDGE_MODEL": "a", "FOOD_TASKS_JUDGE_PRICE": "x,1"}, ["FOOD_TASKS_JUDGE_PRICE"]),
        ({"FOOD_TASKS_JUDGE_MODEL": "a,b,c", "FOOD_TASKS_JUDGE_PRICE": "1,2;3,4"}, ["2 prices for 3"]),
        ({"FOOD_TASKS_JUDGE_MODEL": ""}, ["FOOD_TASKS_JUDGE_MODEL is not set"]),
    ],
)
def test_bad_settings_are_clear_errors(env, settings, words):  # type: ignore[no-untyped-def]
    for name, value in settings.items():
        env(name, value)
    with pytest.raises(judge.JudgeNotConfigured) as err:
        jp.panel_from_env("test")
    assert all(w in str(err.value) for w in words), str(err.value)
    # a malformed value is introduced as invalid settings; "not configured" only where nothing is set
    unset = settings == {"FOOD_TASKS_JUDGE_MODEL": ""}
    assert isinstance(err.value, judge.JudgeSettingsInvalid) is not unset
    expected = "the LLM judge is not configured" if unset else "the LLM judge settings are invalid"
    assert err.value.label == expected


def test_the_no_judge_message_says_null_and_names_both_url_variables(env):  # type: ignore[no-untyped-def]
    with pytest.raises(judge.JudgeNotConfigured) as err:
        jp.panel_from_env("test")
    message = str(err.value)
    assert "the judge metrics are then null" in message and "NaN" not in message
    assert "OPENAI_API_URL" in message and "FOOD_TASKS_JUDGE_URL" in message


def test_a_key_written_in_the_key_list_is_never_repeated(env):  # type: ignore[no-untyped-def]
    env("FOOD_TASKS_JUDGE_MODEL", "a")
    env("FOOD_TASKS_JUDGE_KEY_VARS", "sk-live-123456")
    with pytest.raises(judge.JudgeNotConfigured, match="never the keys") as err:
        judge.judges_from_env("test")
    assert "sk-live-123456" not in str(err.value)
    from food_tasks.judge import redact

    assert redact.mask("key sk-live-123456 leaked") == "key *** leaked"


def test_settings_apply_to_every_judge(env):  # type: ignore[no-untyped-def]
    env("FOOD_TASKS_JUDGE_MODEL", "a,b")
    env("OPENAI_API_URL", "http://shared:8000/v1")
    env("OPENAI_API_KEY", "sk-shared")
    env("FOOD_TASKS_JUDGE_PRICE", "1,2;3,4")
    panel = jp.panel_from_env("test")
    assert [(c.url, c.api_key, c.repeats, c.temperature) for c in panel.configs] == [
        ("http://shared:8000/v1", "sk-shared", 1, None)
    ] * 2
    assert panel.prices == [(1.0, 2.0), (3.0, 4.0)]
    env("FOOD_TASKS_JUDGE_MODEL", "none")
    assert jp.panel_from_env("test") is None and judge.judges_from_env("test") is None


def test_every_judges_key_and_url_password_is_masked(env):  # type: ignore[no-untyped-def]
    from food_tasks.judge import redact

    env("FOOD_TASKS_JUDGE_MODEL", "a,b")
    env("FOOD_TASKS_JUDGE_URL", "http://h1:8000/v1,https://user:pw-b-secret@h2/v1")
    env("FOOD_TASKS_JUDGE_KEY_VARS", "OPENAI_API_KEY,KEY_B")
    env("OPENAI_API_KEY", "sk-a-secret")
    env("KEY_B", "sk-b-secret")
    a, b = judge.judges_from_env("test")
    assert (a.api_key, b.api_key, b.key_var, b.endpoint_host) == ("sk-a-secret", "sk-b-secret", "KEY_B", "h2")
    assert "secret" not in repr(a) and "sk-b" not in repr(b)  # a logged configuration shows no key
    text = "sent sk-a-secret and sk-b-secret to https://user:pw-b-secret@h2/v1"
    assert redact.mask(text) == "sent *** and *** to https://user:***@h2/v1" == a.redact(text)


def test_a_runs_usage_is_the_sum_of_its_tasks_and_unknown_stays_unknown():  # type: ignore[no-untyped-def]
    def entry(model, p, c, cost, requests=3, cached=1, failed=0):  # type: ignore[no-untyped-def]
        return {
            "model": model,
            "endpoint": "h",
            "requests": requests,
            "cached": cached,
            "failed": failed,
            "prompt_tokens": p,
            "completion_tokens": c,
            "cost": cost,
        }

    en = {"gpt-4o": entry("gpt-4o", 1000, 10, 0.0026), "local": entry("local", 500, 5, None)}
    zh = {"gpt-4o": entry("gpt-4o", 2000, 20, 0.0052, failed=1), "local": entry("local", None, None, None)}
    total = jp.total_usage([en, zh, None, {"x": "not an entry"}])
    expected = {k: v for k, v in entry("gpt-4o", 3000, 30, pytest.approx(0.0078), 6, 2, 1).items() if k != "endpoint"}
    assert total["gpt-4o"] == {**expected, "attempts": 0, "failed_attempts": 0}  # results written before attempts
    assert (total["local"]["prompt_tokens"], total["local"]["cost"], total["local"]["requests"]) == (None, None, 6)
    assert jp.usage_line(total) == (  # 128 columns on one line: a judge a line (our lines are 120 columns at most)
        "Judge usage:\n"
        "  gpt-4o 3,000 + 30 tokens (6 asked, 2 cached, 1 failed), $0.0078;\n"
        "  local tokens unknown (6 asked, 2 cached, 0 failed)"
    )
    one = jp.usage_line({"gpt-4o": total["gpt-4o"]})
    assert one == "Judge usage: gpt-4o 3,000 + 30 tokens (6 asked, 2 cached, 1 failed), $0.0078"
    assert jp.usage_line(jp.total_usage([])) is None
    # a re-run answered wholly from the cache sends nothing: "no new tokens", not "0 + 0 tokens" (a judge whose
    # server sends no usage included); "tokens unknown" stays for a sent request without usage
    rerun = {"local": entry("local", 0, 0, None, requests=0, cached=5), "b": entry("b", None, None, None, 2, 3)}
    assert jp.usage_line(jp.total_usage([rerun])) == (
        "Judge usage: local no new tokens (5 cached); b tokens unknown (2 asked, 3 cached, 0 failed)"
    )


def test_the_results_table_prints_the_runs_judge_usage_once():  # type: ignore[no-untyped-def]
    import lmms_eval.utils

    from food_tasks.lmms.results_table import render

    make_table = getattr(lmms_eval.utils.make_table, "__wrapped__", lmms_eval.utils.make_table)
    usage = {"m": {"model": "m", "requests": 2, "cached": 0, "failed": 0, "prompt_tokens": 7, "completion_tokens": 2}}
    results = {
        "results": {
            "diningbench_vqa_en": {
                "alias": "en",
                "judge_acc,none": 1.0,
                "judge_info,none": {"model": "m", "usage": usage},
            },
            "diningbench_vqa_zh": {
                "alias": "zh",
                "judge_acc,none": 1.0,
                "judge_info,none": {"model": "m", "usage": usage},
            },
        },
        "n-shot": {},
    }
    table = render(make_table, results, "results", False, {"diningbench_vqa_en", "diningbench_vqa_zh"})
    assert table.splitlines().count("Judge usage: m 14 + 4 tokens (4 asked, 0 cached, 0 failed)") == 1
