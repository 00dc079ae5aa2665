"""The packaged DiningBench VQA sample (issue 44, newcomer item 5): a judge of one's own tried on packaged data.

``diningbench_vqa_sample`` reads three invented English VQA rows (food_tasks/sample_data, one with two images),
through the real lmms-eval CLI with the replay model (every image decoded, as a model's input) and a local judge
that follows the judge protocol (tests/judge_server.py): the judge says yes to two of the three answers, so the
judge's accuracy is 2/3. Without a judge the run stops before generation with the full VQA task's message; the demo,
which has no judge, does not run it, and ``food-tasks list`` shows it as a sample.
"""

from __future__ import annotations

import json

import pytest
from conftest import run_lmms_eval
from judge_server import JudgeServer, follows_protocol

from food_tasks import cli
from food_tasks.benchmarks.diningbench import sample

pytestmark = pytest.mark.e2e

TASK = "diningbench_vqa_sample"
# The replayed answers, by document: the first and the last agree with the gold answer, the second does not.
ANSWERS = ["It is braised, not fried.", "Yes, it is vegetarian.", "Wheat noodles"]
RIGHT = {ANSWERS[0], ANSWERS[2]}


def _env(work, url: str, model: str = "my-judge") -> dict:  # type: ignore[no-untyped-def]
    return {
        "FOOD_TASKS_CACHE_DIR": str(work / "cache"),
        "FOOD_TASKS_JUDGE_MODEL": model,
        "FOOD_TASKS_JUDGE_URL": url,
        "OPENAI_API_KEY": "",
        "API_TYPE": "openai",
        "FOOD_TASKS_JUDGE_CACHE": str(work / "judge-cache"),
        "FOOD_TASKS_JUDGE_ATTEMPTS": "1",
        "FOOD_TASKS_DININGBENCH_MODEL_NAME": "",
    }


def _responses(work):  # type: ignore[no-untyped-def]
    path = work / "responses.jsonl"
    path.write_text("".join(json.dumps({"doc_id": i, "response": a}) + "\n" for i, a in enumerate(ANSWERS)))
    return path


@pytest.fixture(scope="module")
def judged(tmp_path_factory):  # type: ignore[no-untyped-def]
    work = tmp_path_factory.mktemp("db_vqa_sample")
    with JudgeServer(follows_protocol(lambda answer: answer in RIGHT)) as server:
        args = ["--model", "food_tasks_replay", "--model_args", f"responses={_responses(work)},load_images=true"]
        proc, results, samples = run_lmms_eval([*args, "--tasks", TASK], work / "out", env=_env(work, server.url))
    assert results is not None and TASK in results["results"], proc.stdout[-3000:] + proc.stderr[-3000:]
    return proc, results["results"][TASK], samples[TASK], server


def test_the_sample_is_three_packaged_rows_with_their_images(judged):
    _, got, samples, _ = judged
    assert len(samples) == len(sample.DB_VQA) == 3
    assert got["image_missing,none"] == 0  # all four packaged images decoded
    assert [json.loads(s["target"]) for s in samples] == [gold for _, gold, _ in sample.DB_VQA]


def test_the_judges_accuracy_is_its_verdicts(judged):
    _, got, _, server = judged
    assert got["judge_acc,none"] == pytest.approx(200 / 3)  # 2 of 3 judged right
    assert got["judge_acc_n,none"] == 3 and got["judge_error_rate,none"] == 0.0
    asked = {r["body"]["messages"][0]["content"] for r in server.requests}
    assert all(any(a in prompt for prompt in asked) for a in ANSWERS)  # each answer reached the judge


def test_a_protocol_judge_is_read_from_the_structured_field(judged):
    """Issue 41: with a local judge that follows the judge protocol, every verdict of the packaged sample is read
    from the JSON field (``schema``), none from free text."""
    _, got, _, _ = judged
    info = got["judge_info,none"]
    assert info["per_judge"]["my-judge"]["read"] == {"schema": 3, "final_line": 0, "fallback": 0, "unreadable": 0}


def test_without_a_judge_the_sample_stops_as_the_full_task_does(tmp_path):
    proc, results, _ = run_lmms_eval(
        ["--model", "food_tasks_replay", "--model_args", f"responses={_responses(tmp_path)}", "--tasks", TASK],
        tmp_path / "out",
        env=_env(tmp_path, "http://127.0.0.1:9/v1", model=""),
    )
    assert results is None or TASK not in results.get("results", {})
    assert "FOOD_TASKS_JUDGE_MODEL is not set" in proc.stdout + proc.stderr


def test_the_demo_leaves_it_out_and_list_shows_it_as_a_sample(capsys):
    assert TASK not in cli.demo_tasks().split(",")  # the demo has no judge
    cli.main(["list"])
    (row,) = [line.split() for line in capsys.readouterr().out.splitlines() if line.startswith(f"{TASK} ")]
    assert row == [TASK, "task", "diningbench", "3", "sample"]
