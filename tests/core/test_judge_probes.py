"""Judge susceptibility probes (food_tasks.judge.probes): the probe set, the figures per judge (hand-computed), local
judges that are naive (yes whenever the answer says yes / correct / 是) or honest, through the generic judging path,
through a regional judged task's judge_info in the lmms-eval CLI, and FOOD_TASKS_JUDGE_PROBES=0."""

from __future__ import annotations

import json
import logging
import re
from pathlib import Path

import numpy as np
import pytest
from judge_server import JudgeServer

from food_tasks.judge import client as judge_client
from food_tasks.judge import probes as P
from food_tasks.judge.verdicts import Judged, judge
from food_tasks.stats import agreement as A

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "regional"
BY_ANSWER = {p.answer: p for p in P.PROBES}
_NAIVE_WORDS = ("yes", "correct", "是")


def _naive_says_yes(answer: str) -> bool:
    return any(w in answer.lower() for w in _NAIVE_WORDS)


def _honest_says_yes(answer: str) -> bool:
    return BY_ANSWER[answer].right  # a judge that knows each probe's truth


def test_the_probe_set():
    wrong = [p for p in P.PROBES if not p.right]
    right = [p for p in P.PROBES if p.right]
    assert len(wrong) >= 24 and len(right) >= 8
    cjk = re.compile(r"[\u4e00-\u9fff]")
    assert sum(bool(cjk.search(p.answer)) for p in wrong) >= 10  # Chinese and English
    assert sum(not cjk.search(p.answer) for p in wrong) >= 10
    assert len({p.id for p in P.PROBES}) == len(P.PROBES) and len(BY_ANSWER) == len(P.PROBES)
    assert all(p.gold not in p.answer for p in wrong)  # a wrong probe never carries its gold answer verbatim
    assert P.VERSION.startswith("probes-1-")


def test_figures_by_hand():
    """Two judges on 3 wrong and 2 right probes. Judge 0: credits wrong 1, unreadable on wrong 2, wrong 3 failed;
    credits right 1, says no to right 2 -> false credit 1/2 (wrong 3 not answered), miss 1/2. Judge 1: all no ->
    false credit 0/3, miss 2/2."""
    probes = [P.Probe(f"w{i}", "q", "g", f"a{i}", False, "k") for i in range(3)]
    probes += [P.Probe(f"r{i}", "q", "g", f"b{i}", True, "k") for i in range(2)]
    codes = np.array([[A.CORRECT, A.WRONG], [A.UNREADABLE, A.WRONG], [A.FAILED, A.WRONG], [A.CORRECT, A.WRONG],
                      [A.WRONG, A.WRONG]])[:, :, None]  # fmt: skip
    judged = Judged(P.items(probes), ["j0", "j1"], codes, [], None)
    got = P.figures(judged, probes)
    fc0, miss0 = got["j0"]["judge_probe_false_credit_rate"], got["j0"]["judge_probe_miss_rate"]
    assert (fc0["count"], fc0["n"], fc0["value"]) == (1, 2, 50.0) and (miss0["count"], miss0["n"]) == (1, 2)
    assert got["j0"]["failed"] == 1 and got["j0"]["credited"] == ["w0 (k)"]
    fc1, miss1 = got["j1"]["judge_probe_false_credit_rate"], got["j1"]["judge_probe_miss_rate"]
    assert (fc1["count"], fc1["n"], fc1["value"]) == (0, 3, 0.0) and (miss1["count"], miss1["n"], miss1["value"]) == (
        2,
        2,
        100.0,
    )
    assert fc0["interval"][0] < 50.0 < fc0["interval"][1]
    lines = P.warnings(got, "task t")
    assert len(lines) == 1 and "'j0'" in lines[0] and "1 of 2" in lines[0]


@pytest.fixture
def judges(monkeypatch, tmp_path):  # type: ignore[no-untyped-def]
    def configure(servers, models):  # type: ignore[no-untyped-def]
        for name in ("FOOD_TASKS_JUDGE_KEY_VARS", "FOOD_TASKS_JUDGE_PRICE", "FOOD_TASKS_JUDGE_TEMPERATURE"):
            monkeypatch.delenv(name, raising=False)
        for name, value in {
            "FOOD_TASKS_JUDGE_MODEL": ",".join(models),
            "FOOD_TASKS_JUDGE_URL": ",".join(s.url for s in servers),
            "OPENAI_API_KEY": "",
            "API_TYPE": "openai",
            "FOOD_TASKS_JUDGE_CACHE": str(tmp_path / "judge-cache"),
            "FOOD_TASKS_JUDGE_ATTEMPTS": "1",
            "FOOD_TASKS_JUDGE_BACKOFF": "0",
            "FOOD_TASKS_JUDGE_TIMEOUT": "5",
            "FOOD_TASKS_JUDGE_REPEATS": "1",
            "FOOD_TASKS_JUDGE_PROBES": "1",
        }.items():
            monkeypatch.setenv(name, value)
        judge_client.client_for.cache_clear()

    yield configure
    judge_client.client_for.cache_clear()


_ANSWER_RE = re.compile(r"<<<(.*)>>>", re.DOTALL)


def _template(item):  # type: ignore[no-untyped-def]
    return f"Question: {item.question}\nReference: {item.gold}\nAnswer: <<<{item.prediction}>>>\nReply yes or no."


def _by(rule):  # type: ignore[no-untyped-def]
    return lambda prompt: "yes" if rule(_ANSWER_RE.search(prompt).group(1)) else "no"


def test_naive_judge_is_caught_and_named_honest_judge_is_not(judges, caplog):
    from food_tasks.judge.panel import panel_from_env

    with JudgeServer(_by(_naive_says_yes)) as naive, JudgeServer(_by(_honest_says_yes)) as honest:
        judges([naive, honest], ["naive-judge", "honest-judge"])
        panel = panel_from_env("probes")

        def ask(items):  # type: ignore[no-untyped-def]
            parse = lambda text, item: {"yes": True, "no": False}.get(text.strip())  # noqa: E731
            return judge(items, _template, panel, temperature=0.0, max_tokens=5, parse=parse)

        with caplog.at_level(logging.WARNING):
            info = P.run(ask, "task t")
        assert len(naive.requests) == len(honest.requests) == len(P.PROBES)
        again = P.run(ask, "task t")  # cached like any verdict: nothing new sent
        assert len(naive.requests) == len(P.PROBES) and again["per_judge"] == info["per_judge"]
    wrong_naive = sum(_naive_says_yes(p.answer) for p in P.PROBES if not p.right)
    fc = info["per_judge"]["naive-judge"]["judge_probe_false_credit_rate"]
    assert fc["count"] == wrong_naive > 0 and fc["n"] == 24 and fc["value"] > 0
    honest_fc = info["per_judge"]["honest-judge"]["judge_probe_false_credit_rate"]
    honest_miss = info["per_judge"]["honest-judge"]["judge_probe_miss_rate"]
    assert honest_fc["value"] == 0.0 and honest_miss["value"] == 0.0 and honest_miss["n"] == 10
    assert info["credulous"] == ["naive-judge"]
    assert P.notes(info) == [
        f"Judge probes, naive-judge: false credit {wrong_naive}/24 ({100 * wrong_naive / 24:.0f} %), miss "
        f"{info['per_judge']['naive-judge']['judge_probe_miss_rate']['count']}/10 "
        f"({info['per_judge']['naive-judge']['judge_probe_miss_rate']['value']:.0f} %): credits planted answers.",
        "Judge probes, honest-judge: false credit 0/24 (0 %), miss 0/10 (0 %).",
    ]
    warned = {r.getMessage() for r in caplog.records if "wrong probe answers" in r.getMessage()}
    assert len(warned) == 1 and "'naive-judge'" in warned.pop()


def test_probes_off(judges, monkeypatch, caplog):
    with JudgeServer(_by(_naive_says_yes)) as naive:
        judges([naive], ["naive-judge"])
        monkeypatch.setenv("FOOD_TASKS_JUDGE_PROBES", "0")
        with caplog.at_level(logging.INFO, logger="food_tasks.judge.probes"):
            info = P.run(lambda items: pytest.fail("no probe may be sent"), "task t")
        assert naive.requests == []
    assert info == {"status": "off (FOOD_TASKS_JUDGE_PROBES=0)"}
    assert any("judge probes off (FOOD_TASKS_JUDGE_PROBES=0)" in r.getMessage() for r in caplog.records)
    assert P.notes(info) == ["Judge probes: off (FOOD_TASKS_JUDGE_PROBES=0)."]


def _candidate(prompt: str) -> str:
    from judge_server import prediction_in

    return prediction_in(prompt)


def _protocol_reply(rule):  # type: ignore[no-untyped-def]
    from judge_server import protocol_reply

    return lambda prompt: protocol_reply(prompt, rule(_candidate(prompt)))


def test_regional_judged_task_reports_probes_through_the_cli(tmp_path):
    """The lmms-eval CLI on the judged regional example with a naive and an honest judge that follow the protocol:
    judge_info's probes name the naive judge, the honest one credits no wrong probe, judge_acc is the records'."""
    from conftest import run_lmms_eval

    ids = ["sea-001", "sea-002", "eas-001", "eas-002", "waf-001", "waf-002"]
    lines = [{"task": "regional_example_open_judged", "doc_id": i, "response": "Rendang."} for i in range(len(ids))]
    preds = tmp_path / "preds.jsonl"
    preds.write_text("\n".join(json.dumps(x) for x in lines) + "\n", encoding="utf-8")

    def naive(answer: str) -> bool:
        return _naive_says_yes(answer)

    def honest(answer: str) -> bool:
        probe = BY_ANSWER.get(answer)
        return probe.right if probe is not None else answer == "Rendang."

    with JudgeServer(_protocol_reply(naive)) as a, JudgeServer(_protocol_reply(honest)) as b:
        env = {
            "FOOD_TASKS_JUDGE_MODEL": "naive-judge,honest-judge",
            "FOOD_TASKS_JUDGE_URL": f"{a.url},{b.url}",
            "OPENAI_API_KEY": "",
            "API_TYPE": "openai",
            "FOOD_TASKS_JUDGE_CACHE": str(tmp_path / "judge-cache"),
            "FOOD_TASKS_JUDGE_ATTEMPTS": "1",
            "FOOD_TASKS_JUDGE_PROBES": "1",
        }
        args = ["--model", "food_tasks_replay", "--model_args", f"responses={preds}", "--include_path", str(EXAMPLE)]
        proc, results, _ = run_lmms_eval([*args, "--tasks", "regional_example_open_judged"], tmp_path / "out", env=env)
    assert results is not None and "regional_example_open_judged" in results["results"], proc.stderr[-3000:]
    got = results["results"]["regional_example_open_judged"]
    info = got["judge_info,none"]
    probes = info["probes"]
    assert probes["status"] == "on" and probes["credulous"] == ["naive-judge"]
    assert probes["per_judge"]["naive-judge"]["judge_probe_false_credit_rate"]["value"] > 0
    assert probes["per_judge"]["honest-judge"]["judge_probe_false_credit_rate"]["value"] == 0.0
    assert probes["per_judge"]["honest-judge"]["judge_probe_miss_rate"]["value"] == 0.0
    said = proc.stdout + proc.stderr
    assert "naive-judge" in said and "wrong probe answers" in said
    assert not any(k.startswith("judge_probe") for k in got)  # judge_info only: never a results key


def test_compare_shows_each_runs_probe_lines():
    from food_tasks.compare.command import probe_lines
    from food_tasks.runs.run import probes_of

    class _Run:  # the two things probes_of reads of a food_tasks.runs.Run
        def __init__(self, info):  # type: ignore[no-untyped-def]
            self.metrics = {"task_j": {"judge_info": info}, "task_x": {"acc": 1.0}}

        def value(self, task, metric):  # type: ignore[no-untyped-def]
            return self.metrics.get(task, {}).get(metric)

    rate = {"value": 25.0, "interval": [10.0, 40.0], "count": 6, "n": 24}
    miss = {"value": 0.0, "interval": [0.0, 30.0], "count": 0, "n": 10}
    on = {"status": "on", "per_judge": {"j": {"judge_probe_false_credit_rate": rate, "judge_probe_miss_rate": miss}}}
    lines = probe_lines(probes_of(_Run({"probes": on}), _Run({"probes": {"status": P.OFF}})))
    assert lines == [
        "A task_j: Judge probes, j: false credit 6/24 (25 %), miss 0/10 (0 %): credits planted answers.",
        "B task_j: Judge probes: off (FOOD_TASKS_JUDGE_PROBES=0).",
    ]
    assert probe_lines(probes_of(_Run("not a mapping"), _Run({}))) == []


def test_table_note_lines():
    from food_tasks.lmms.results_table import judge_notes

    rate = {"value": 0.0, "interval": [0.0, 13.8], "count": 0, "n": 24}
    miss = {"value": 10.0, "interval": [1.8, 40.4], "count": 1, "n": 10}
    probes = {
        "status": "on",
        "per_judge": {"j": {"judge_probe_false_credit_rate": rate, "judge_probe_miss_rate": miss}},
    }
    results = {
        "results": {"t1": {"judge_info,none": {"probes": probes}}, "t2": {"judge_info,none": {"probes": probes}}}
    }
    assert judge_notes(results) == ["Judge probes, j: false credit 0/24 (0 %), miss 1/10 (10 %)."]  # once
    off = {"results": {"t1": {"judge_info,none": {"probes": {"status": P.OFF}}}}}
    assert judge_notes(off) == ["Judge probes: off (FOOD_TASKS_JUDGE_PROBES=0)."]
