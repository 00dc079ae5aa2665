"""No configured secret reaches what a judged run writes: a DiningBench VQA task through the real lmms-eval CLI,
judged by a local server reached through a URL with credentials, with an API key and HF_TOKEN set to fake
values; then ``food-tasks report`` on its output. Every file written and both commands' stdout/stderr are
searched for each secret (and for the Basic-auth form of the URL credentials)."""

from __future__ import annotations

import base64
import json
import os
import subprocess
import sys

import diningbench_fixture as F
import pytest
from conftest import run_lmms_eval
from judge_server import JudgeServer

pytestmark = pytest.mark.e2e

API_KEY = "sk-FAKEAPIKEY-7Qx2"
URL_USER, URL_PASSWORD = "judge-acct", "pw-FAKEURLPASS-9Zk4"
HF_TOKEN = "hf_FAKEHFTOKEN3Lm8"
PRED = "【预测答案】：\n"
OUTPUTS = ["It has been fried", "Not vegan: has cheese", "Chicken"]


def test_no_secret_in_results_samples_report_or_logs(tmp_path):
    root = tmp_path / "mirror"
    F.build(root)
    lines = [{"task": "diningbench_vqa_en", "doc_id": i, "response": r} for i, r in enumerate(OUTPUTS)]
    responses = tmp_path / "responses.jsonl"
    responses.write_text("\n".join(json.dumps(x) for x in lines) + "\n", encoding="utf-8")
    # One request is answered by an error page that echoes the credentials it received, as some proxies do.
    with JudgeServer(lambda p: "是", {PRED + "Chicken": ["echo"]}) as server:
        host = server.url.split("//", 1)[1].split("/", 1)[0]
        env = {
            "FOOD_TASKS_DATA_DIR": str(root),
            "FOOD_TASKS_CACHE_DIR": str(tmp_path / "cache"),
            "FOOD_TASKS_JUDGE_MODEL": "judge-test",
            "API_TYPE": "openai",
            "OPENAI_API_KEY": API_KEY,
            "OPENAI_API_URL": f"http://{URL_USER}:{URL_PASSWORD}@{host}/v1",
            "HF_TOKEN": HF_TOKEN,
            "FOOD_TASKS_JUDGE_ATTEMPTS": "2",
            "FOOD_TASKS_JUDGE_BACKOFF": "0.01",
            "FOOD_TASKS_JUDGE_CACHE": str(tmp_path / "judge-cache"),
            "FOOD_TASKS_DININGBENCH_MODEL_NAME": "",
        }
        out = tmp_path / "out"
        args = [
            "--model",
            "food_tasks_replay",
            "--model_args",
            f"responses={responses}",
            "--tasks",
            "diningbench_vqa_en",
            "--verbosity",
            "DEBUG",
        ]
        proc, results, samples = run_lmms_eval(args, out, env=env)
    assert results is not None and "diningbench_vqa_en" in results["results"], proc.stderr[-3000:]
    got = results["results"]["diningbench_vqa_en"]
    info = got["judge_info,none"]
    assert info["endpoint"] == host and info["failures"] == 1 and got["judge_error_rate,none"] == pytest.approx(100 / 3)
    assert samples.get("diningbench_vqa_en")
    # The secrets were really in use: the judge got the URL credentials (requests sends them as Basic auth).
    basic = base64.b64encode(f"{URL_USER}:{URL_PASSWORD}".encode()).decode()
    assert {r["auth"] for r in server.requests} == {f"Basic {basic}"}

    report_dir = tmp_path / "report"
    report = subprocess.run(
        [sys.executable, "-m", "food_tasks.cli", "report", str(out), "-o", str(report_dir)],
        capture_output=True,
        text=True,
        env=dict(os.environ, **env),
        cwd=tmp_path,
        timeout=300,
    )
    assert report.returncode == 0, report.stderr[-3000:]
    assert host in (report_dir / "report.md").read_text(encoding="utf-8")  # the report does name the judge's host

    written = {
        p: p.read_bytes().decode("utf-8", "replace") for d in (out, report_dir) for p in d.rglob("*") if p.is_file()
    }
    assert any(p.name.endswith("_results.json") for p in written) and any("_samples_" in p.name for p in written)
    logs = {
        "lmms-eval stdout": proc.stdout,
        "lmms-eval stderr": proc.stderr,
        "report stdout": report.stdout,
        "report stderr": report.stderr,
    }
    assert "DEBUG" in proc.stderr + proc.stdout  # the most verbose log was searched
    for secret in (API_KEY, URL_PASSWORD, HF_TOKEN, basic, f"{URL_USER}:"):
        for where, text in {**{str(p): t for p, t in written.items()}, **logs}.items():
            assert secret not in text, f"{secret!r} appears in {where}"
