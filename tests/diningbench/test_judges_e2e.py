"""Issue 35's proof: a DiningBench VQA run through the real lmms-eval CLI judged by TWO local fake judges on two
servers, each with a known verdict rule, disagreeing on a known share of records. The results file's agreement and
kappa equal a recomputation from the verdicts the two servers themselves returned (kappa by scikit-learn), each
judge's tokens in judge_info equal its server's ``usage`` totals, and the report's Judges section shows it."""

from __future__ import annotations

import json

import diningbench_fixture as F
import pytest
from conftest import run_lmms_eval
from judge_server import JudgeServer, char_usage, prediction_in
from sklearn.metrics import cohen_kappa_score

from food_tasks.benchmarks.diningbench.parsing import VQA_ENDING_EN
from food_tasks.cli import main as cli_main

pytestmark = pytest.mark.e2e

N = 10
ANSWERS = [f"Answer number {i}" for i in range(N)]
# Judge A says yes to rows 0-5, judge B to rows 0-3, 7 and 8: they disagree on rows 4, 5, 7 and 8 (4 of 10).
A_YES = {ANSWERS[i] for i in (0, 1, 2, 3, 4, 5)}
B_YES = {ANSWERS[i] for i in (0, 1, 2, 3, 7, 8)}


def _candidate(prompt: str) -> str:
    return prediction_in(prompt)


class Judge:
    """A verdict rule that logs what it returned, by candidate answer."""

    def __init__(self, yes: set[str]) -> None:
        self.yes, self.returned = yes, {}

    def __call__(self, prompt: str) -> str:
        answer = "是" if _candidate(prompt) in self.yes else "否"
        if "<answer-" in prompt:  # the robust request (the judge protocol's), whose verdict the figures read
            self.returned[_candidate(prompt)] = answer
        return answer


@pytest.fixture(scope="module")
def judged_run(tmp_path_factory):  # type: ignore[no-untyped-def]
    root = tmp_path_factory.mktemp("db_mirror")
    rows = F.files()
    rows["vqa_en.jsonl"] = [
        {"id": i, "prompt": f"Is dish {i} fried?" + VQA_ENDING_EN, "ground_truth": "Yes", "images": [F.VQA_EN[0][2][0]]}
        for i in range(N)
    ]
    F.build(root, rows=rows)
    work = tmp_path_factory.mktemp("db_judges")
    responses = work / "responses.jsonl"
    lines = [{"task": "diningbench_vqa_en", "doc_id": i, "response": a} for i, a in enumerate(ANSWERS)]
    responses.write_text("\n".join(json.dumps(x) for x in lines) + "\n", encoding="utf-8")
    first, second = Judge(A_YES), Judge(B_YES)
    with JudgeServer(first, usage=char_usage) as a, JudgeServer(second, usage=char_usage) as b:
        env = {
            "FOOD_TASKS_DATA_DIR": str(root),
            "FOOD_TASKS_CACHE_DIR": str(work / "cache"),
            "FOOD_TASKS_JUDGE_MODEL": "judge-a,judge-b",
            "FOOD_TASKS_JUDGE_URL": f"{a.url},{b.url}",
            "OPENAI_API_KEY": "",
            "API_TYPE": "openai",
            "FOOD_TASKS_JUDGE_CACHE": str(work / "judge-cache"),
            "FOOD_TASKS_JUDGE_ATTEMPTS": "1",
            "FOOD_TASKS_DININGBENCH_MODEL_NAME": "",
        }
        args = ["--model", "food_tasks_replay", "--model_args", f"responses={responses}"]
        proc, results, _ = run_lmms_eval([*args, "--tasks", "diningbench_vqa_en"], work / "out", env=env)
    assert results is not None and "diningbench_vqa_en" in results["results"], proc.stderr[-3000:]
    return work, results["results"]["diningbench_vqa_en"], (a, first), (b, second)


def test_agreement_and_kappa_equal_a_recomputation_from_the_servers_logs(judged_run):
    _, got, (a, first), (b, second) = judged_run
    # Each server judged every answer once through the judge protocol (its data block); the headline judge also got
    # the official request, another body.
    for server, judge in ((a, first), (b, second)):
        prompts = [r["body"]["messages"][0]["content"] for r in server.requests]
        sent = sorted(_candidate(p) for p in prompts if "<answer-" in p and _candidate(p) in ANSWERS)
        assert sent == sorted(ANSWERS) and set(ANSWERS) <= set(judge.returned)
    verdicts_a = [first.returned[x] == "是" for x in ANSWERS]
    verdicts_b = [second.returned[x] == "是" for x in ANSWERS]
    agree = sum(x == y for x, y in zip(verdicts_a, verdicts_b))
    assert agree == 6  # the known share: 4 of 10 records disagree
    assert got["judge_agreement,none"] == pytest.approx(100 * agree / N)
    kappa = cohen_kappa_score(verdicts_a, verdicts_b)
    assert kappa == pytest.approx(1 / 6)  # p_o 0.6, p_e 0.6 * 0.6 + 0.4 * 0.4 = 0.52
    assert got["judge_kappa,none"] == pytest.approx(kappa)
    assert got["judge_acc,none"] == pytest.approx(60.0)  # the headline judge's: rows 0-5 of 10


def test_each_judges_tokens_equal_its_servers_usage(judged_run):
    _, got, (a, _), (b, _) = judged_run
    info = got["judge_info,none"]
    assert info["judges"] == ["judge-a", "judge-b"]
    for name, server in (("judge-a", a), ("judge-b", b)):
        usage = info["usage"][name]
        assert (usage["prompt_tokens"], usage["completion_tokens"]) == server.tokens()
        assert usage["requests"] == len(server.requests) and usage["cached"] == 0


def test_the_report_shows_it(judged_run):
    work, got, (a, _), (b, _) = judged_run
    assert cli_main(["report", str(work / "out"), "-o", str(work / "report")]) == 0
    md = (work / "report" / "report.md").read_text(encoding="utf-8")
    section = md.split("\n## Judges\n", 1)[1]
    assert "### `diningbench_vqa_en` — " in section
    # the results file's own values and standard errors (± 1.96 SE), not a second interval from judge_info
    half = 1.959963984540054 * got["judge_agreement_stderr,none"]
    assert f"Agreement (all judges give the same verdict), %: 60.00 ± {half:.2f}" in section
    assert f"Cohen's kappa: 0.167 ± {1.959963984540054 * got['judge_kappa_stderr,none']:.3f}" in section
    # rows 0-3 both yes; 4, 5 only A; 7, 8 only B; 6, 9 both no
    assert "| judge-a: correct | 4 | 2 |" in section and "| judge-a: wrong | 2 | 2 |" in section
    for name, server in (("judge-a", a), ("judge-b", b)):
        prompt_tokens, completion_tokens = server.tokens()
        assert f"| {prompt_tokens:,} | {completion_tokens:,} | – |" in section.split(f"| {name} | ", 1)[1]
    shown = [line for line in section.splitlines() if line.startswith("| ") and "Answer number" in line]
    assert len(shown) == 4  # the four disagreements
