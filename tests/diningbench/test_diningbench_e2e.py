"""DiningBench through the real lmms-eval CLI, offline, on a mirror in the published layout.

Scripted outputs (food_tasks_replay), a judge served by a local OpenAI-compatible server with injected
faults, and hand-computed expectations (the same arithmetic as test_diningbench_scoring.py).
"""

from __future__ import annotations

import json
import math

import diningbench_fixture as F
import pytest
from conftest import run_lmms_eval
from judge_server import JudgeServer, prediction_in

pytestmark = pytest.mark.e2e

OUTPUTS = {
    "diningbench_cls_zh": F.CLS_OUTPUTS,
    "diningbench_cls_en_v4": ["\\boxed{F}", "Roasted Potato Chicken Salad"],
    "diningbench_cls_en": ["F", "A"],
    "diningbench_nutrition_zh": F.NUT_OUTPUTS,
    "diningbench_nutrition_en_v2": [
        '{"calories": 580, "protein": 24, "carbohydrates": 80, "fat": 18}',
        "I cannot tell.",
    ],
    "diningbench_vqa_zh": ["经历了油炸", "<think>有奶酪</think>不符合，含有奶酪", "炖", ""],
    "diningbench_vqa_en": ["It has been fried", "Not vegan: has cheese", "Chicken"],
}
VERDICTS = {
    "经历了油炸": "是",
    "不符合，含有奶酪": "是，虽然表述不同但语义一致",
    "<think>有奶酪</think>不符合，含有奶酪": "否",
    "It has been fried": "是",
    "Chicken": "否",
    "Not vegan: has cheese": "是",
}
# 经历了油炸: faults on its official request only; Not vegan: every request down, the official and the robust one
# (the judge protocol's, whose data block opens with a line of its own)
FAULTS = {"【预测答案】：\n经历了油炸": ["500", "timeout", "garbage"], "\nNot vegan": ["down"]}
EXPECTED = {
    # every accuracy and rate in percent (version 1.3)
    "diningbench_cls_zh": {"acc": 80.0, "acc_official": 40.0, "invalid_rate": 20.0, "cannot_read_rate_official": 20.0},
    # boxed F correct both ways; option text -> B robust, "R" officially
    "diningbench_cls_en_v4": {"acc": 100.0, "acc_official": 50.0, "invalid_rate": 0.0},
    "diningbench_cls_en": {"acc": 50.0, "acc_official": 50.0, "invalid_rate": 0.0},
    "diningbench_nutrition_zh": F.NUT_EXPECTED,
    # row 2 unparseable: errors |gt| (200, 5, 30, 6), APE 100 -> MAPE 50 per component
    "diningbench_nutrition_en_v2": {
        "calories_mae": 100.0,
        "fat_rmse": math.sqrt(18),
        "avg_mape": 50.0,
        "avg_mape_official": 50.0,
        "parse_fail_rate": 50.0,
        "avg_mae": (100 + 2.5 + 15 + 3) / 4,
    },
    "diningbench_vqa_zh": {
        "judge_acc": 100 * 2 / 3,
        "judge_acc_official": 100 / 3,
        "judge_error_rate": 0.0,
        "judge_unparsed_rate": 0.0,
    },
    "diningbench_vqa_en": {
        "judge_acc": 50.0,
        "judge_acc_official": 100 / 3,
        "judge_error_rate": 100 / 3,
        "rouge1_f": 100 * 0.4 / 3,  # x 100, as every text-overlap score
    },
}


def _verdict(prompt: str) -> str:
    pred = prediction_in(prompt)
    return VERDICTS.get(pred, "否")  # (a request about another answer: no)


@pytest.fixture(scope="module")
def setup(tmp_path_factory):  # type: ignore[no-untyped-def]
    root = tmp_path_factory.mktemp("db_mirror")
    F.build(root)
    work = tmp_path_factory.mktemp("db_run")
    lines = [{"task": t, "doc_id": i, "response": r} for t, outs in OUTPUTS.items() for i, r in enumerate(outs)]
    responses = work / "responses.jsonl"
    responses.write_text("\n".join(json.dumps(x, ensure_ascii=False) for x in lines) + "\n", encoding="utf-8")
    env = {
        "FOOD_TASKS_DATA_DIR": str(root),
        "FOOD_TASKS_CACHE_DIR": str(work / "cache"),
        "FOOD_TASKS_JUDGE_MODEL": "judge-test",
        "OPENAI_API_KEY": "sk-local",
        "FOOD_TASKS_JUDGE_TIMEOUT": "0.5",
        "FOOD_TASKS_JUDGE_ATTEMPTS": "4",
        "FOOD_TASKS_JUDGE_BACKOFF": "0.01",
        "FOOD_TASKS_JUDGE_CACHE": str(work / "judge-cache"),
        "FOOD_TASKS_JUDGE_WORKERS": "4",
        "API_TYPE": "openai",
        "FOOD_TASKS_DININGBENCH_MODEL_NAME": "",
    }  # the developer's own settings never leak in
    return work, responses, env


def _run(setup, server, tasks, out, **extra):  # type: ignore[no-untyped-def]
    work, responses, env = setup
    env = {**env, "OPENAI_API_URL": server.url if server else "http://127.0.0.1:9/v1", **extra}
    args = [
        "--model",
        "food_tasks_replay",
        "--model_args",
        f"responses={responses},default=",
        "--tasks",
        ",".join(tasks),
    ]
    return run_lmms_eval(args, work / out, env=env)


@pytest.fixture(scope="module")
def first_run(setup):  # type: ignore[no-untyped-def]
    faults = {k: list(v) for k, v in FAULTS.items()}
    with JudgeServer(_verdict, faults) as server:
        result = _run(setup, server, list(OUTPUTS), "out1")
    return result, server


@pytest.mark.parametrize("task", list(EXPECTED))
def test_metrics_exact(first_run, task):
    (proc, results, _), _ = first_run
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert results is not None and task in results["results"], proc.stderr[-3000:]
    got = results["results"][task]
    for metric, value in EXPECTED[task].items():
        assert got[f"{metric},none"] == pytest.approx(value, rel=1e-12, abs=1e-12), (task, metric)


def test_judge_requests_faults_and_info(first_run):
    (proc, results, samples), server = first_run
    bodies = [r["body"] for r in server.requests]
    assert {b["model"] for b in bodies} == {"judge-test"} and {b["max_tokens"] for b in bodies} == {100}
    outputs = {o for task in OUTPUTS.values() for o in task} | {"不符合，含有奶酪"}
    ours = [b for b in bodies if prediction_in(b["messages"][0]["content"]) in outputs]  # not a probe's
    official = [b for b in ours if "<answer-" not in b["messages"][0]["content"]]
    robust = [b for b in ours if "<answer-" in b["messages"][0]["content"]]  # the judge protocol's requests
    assert all("response_format" not in b for b in official) and all(b["response_format"] for b in robust)
    fried = [b for b in official if "【预测答案】：\n经历了油炸" in b["messages"][0]["content"]]
    down = [b for b in ours if "\nNot vegan" in b["messages"][0]["content"]]
    assert len(fried) == 4 and len(down) == 8  # 500, timeout, garbage, success / four failures, official and robust
    # official: zh 经历了油炸 (in fried), the raw output with <think> (炖: not judged); en: 3 (Not vegan in down)
    # robust: zh 经历了油炸, the cleaned output; en: 3 (Not vegan in down)
    assert len(official) == 4 + 1 + 4 + 2 and len(robust) == 2 + 4 + 2
    info = results["results"]["diningbench_vqa_en"]["judge_info,none"]
    assert info["model"] == "judge-test" and info["prompt"] == "diningbench-zh-v1"
    english = next(b for b in bodies if "It has been fried" in b["messages"][0]["content"])["messages"][0]["content"]
    assert (
        english.startswith("你是一个智能评估助手")
        and "【问题】：\nIs this dish fried?\n\n【标准答案】：\nYes\n\n" in english
    )
    # views: the v4 task sends 4 images for row 1 (three user photos + reference) and the VQA multi-image row 2 images
    v4 = samples["diningbench_cls_en_v4"]
    assert [s["acc"]["views"] for s in sorted(v4, key=lambda s: s["doc_id"])] == [4, 4], v4[0].keys()
    assert sorted(s["judge_acc"]["views"] for s in samples["diningbench_vqa_zh"]) == [1, 1, 1, 2]


def test_rerun_uses_the_cache(setup, first_run):
    (_, first, _), _ = first_run
    with JudgeServer(_verdict, {"\nNot vegan": ["down"]}) as server:
        proc, results, _ = _run(setup, server, ["diningbench_vqa_zh", "diningbench_vqa_en"], "out2")
    assert proc.returncode == 0 and results is not None, proc.stderr[-3000:]
    # Only the requests that never succeeded are sent again (four attempts each: the official and the robust one);
    # everything else comes from the cache.
    mine = [r for r in server.requests if prediction_in(r["body"]["messages"][0]["content"]) is not None]
    assert len(mine) == 8 and all("Not vegan" in r["body"]["messages"][0]["content"] for r in mine)
    for task in ("diningbench_vqa_zh", "diningbench_vqa_en"):
        for metric in ("judge_acc", "judge_acc_official", "judge_error_rate", "rouge1_f"):
            assert results["results"][task][f"{metric},none"] == first["results"][task][f"{metric},none"]


def test_vqa_without_judge_fails_before_generation_and_none_opts_out(setup):
    proc, results, _ = _run(setup, None, ["diningbench_vqa_en"], "out3", FOOD_TASKS_JUDGE_MODEL="")
    assert results is None or "diningbench_vqa_en" not in results.get("results", {})
    assert "FOOD_TASKS_JUDGE_MODEL is not set" in proc.stdout + proc.stderr
    # The English group (paper Table 4 tasks) with judging explicitly off: ROUGE only for VQA.
    proc, results, _ = _run(setup, None, ["diningbench_en"], "out4", FOOD_TASKS_JUDGE_MODEL="none")
    assert results is not None, proc.stderr[-3000:]
    assert {"diningbench_cls_en", "diningbench_nutrition_en", "diningbench_vqa_en"} <= set(results["results"])
    got = results["results"]["diningbench_vqa_en"]
    # Undefined (NaN while aggregating): null in the results file, strict JSON.
    assert got["judge_acc,none"] is None and got["rouge1_f,none"] == pytest.approx(100 * 0.4 / 3)
    # no judge, no error bar for its metrics; ROUGE keeps its own
    assert (
        got["judge_acc_stderr,none"]
        == got["judge_acc_official_stderr,none"]
        == got["judge_error_rate_stderr,none"]
        == "N/A"
    )
    assert isinstance(got["rouge1_f_stderr,none"], float)


@pytest.mark.parametrize("task", list(EXPECTED))
def test_standard_errors_in_the_results(first_run, task):
    # Every metric with an estimator gets a standard error and its n (a row is its own cluster); the judge
    # metrics' rows come from the same (cached) verdicts: no request beyond those
    # test_judge_requests_faults_and_info counts.
    from food_tasks.utils.diningbench import TABLES

    (_, results, _), _ = first_run
    got = results["results"][task]
    table = TABLES[task.split("_")[1]]
    for metric in [m for m in table.values() if m.estimator is not None]:
        stderr = got[f"{metric.name}_stderr,none"]
        if task == "diningbench_cls_en_v4" and metric.name == "position_rstd":
            # 2 documents, gold at 2 positions: RStd 0, but a resample that draws one document twice holds one
            # position (RStd undefined), half of them or more: no bootstrap error (stats.spread)
            assert got[f"{metric.name},none"] == 0.0 and stderr == "N/A", (task, metric.name, stderr)
            continue
        if metric.name in ("judge_agreement", "judge_kappa", "judge_majority_acc", "judge_flip_rate"):
            # one judge, one repeat: undefined (null), with no error
            assert got[f"{metric.name},none"] is None and stderr == "N/A", (task, metric.name, stderr)
            continue
        assert isinstance(stderr, float) and stderr >= 0, (task, metric.name, stderr)
        assert got[f"{metric.name}_clusters,none"] == got[f"{metric.name}_n,none"] >= 2, (task, metric.name)


def test_chinese_and_english_classification_pair_on_the_same_dishes(first_run):
    """README "Beyond accuracy": row 0 (id 0, same photos, gold F in both) is the only dish of both files with
    the same gold letter (row 1: C in Chinese, B in English); both answered F: right and agreeing."""
    (_, results, _), _ = first_run
    zh = results["results"]["diningbench_cls_zh"]
    assert zh["xling_all_correct,none"] == 100.0 and zh["xling_agreement,none"] == 100.0  # percent
    assert zh["xling_all_correct_n,none"] == 1 and zh["xling_all_correct_stderr,none"] == "N/A"  # one dish
    assert zh["xling_gap_to_en,none"]["zh"]["value"] == 0.0
    assert "xling_all_correct,none" not in results["results"]["diningbench_cls_en"]
    assert "xling_all_correct,none" not in results["results"]["diningbench_cls_en_v4"]  # 4 views: another setting
