"""One process or two: the same replayed predictions give the same results JSON, standard errors included.

``accelerate launch --multi_gpu --num_processes 2`` on CPU (see tests/serving/test_serving_processes.py) gathers
the two ranks' documents in another order than one process scores them; every statistic must be a function of
the set of documents (issue 27). Only what describes the run rather than its documents may differ: timestamps,
durations, paths and the process count.
"""

from __future__ import annotations

import json
import os
import re
import socket
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import run_lmms_eval

from food_tasks.registration import task_dir

pytestmark = pytest.mark.e2e
GROUP = "worldcuisines_mcq_sample"
# Top-level keys that describe the run, not its documents (time, machine, paths, processes).
RUN_KEYS = {
    "config",
    "date",
    "start_time",
    "end_time",
    "total_evaluation_time_seconds",
    "pretty_env_info",
    "transformers_version",
    "lmms_eval_version",
    "git_hash",
    "model_source",
    "model_name_sanitized",
    "system_instruction",
    "system_instruction_sha",
    "chat_template",
    "chat_template_sha",
    "fewshot_as_multiturn",
    "throughput",
    "task_hashes",
    "upper_git_hash",
}


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def _args(responses: Path) -> list[str]:
    return [
        "--model",
        "food_tasks_replay",
        "--model_args",
        f"responses={responses},keys=qa_id+lang,default=1",
        "--tasks",
        GROUP,
    ]


def _two_processes(args: list[str], out: Path) -> tuple[subprocess.CompletedProcess, dict | None]:
    launcher = [
        sys.executable,
        "-m",
        "accelerate.commands.launch",
        "--multi_gpu",
        "--num_processes",
        "2",
        "--num_machines",
        "1",
        "--mixed_precision",
        "no",
        "--dynamo_backend",
        "no",
        "--main_process_port",
        str(_free_port()),
    ]
    env = dict(os.environ, HF_HUB_OFFLINE="1", HF_DATASETS_OFFLINE="1", TOKENIZERS_PARALLELISM="false")
    out.mkdir(parents=True)
    proc = subprocess.run(
        [*launcher, "-m", "lmms_eval", *args, "--output_path", str(out), "--log_samples"],
        env=env,
        capture_output=True,
        text=True,
        timeout=900,
        cwd=out.parent,
        check=False,
    )
    found = sorted(out.rglob("*_results.json"))
    return proc, json.loads(found[-1].read_text(encoding="utf-8")) if found else None


def _documents_part(results: dict) -> dict:
    """The results JSON less what describes the run; objects' memory addresses in the configs' reprs blanked."""
    kept = {k: v for k, v in results.items() if k not in RUN_KEYS}
    return json.loads(re.sub(r" at 0x[0-9a-f]+", " at 0x", json.dumps(kept)))


def _differ(a: dict, b: dict) -> dict:
    return {k: (a.get(k), b.get(k)) for k in set(a) | set(b) if a.get(k) != b.get(k)}


def test_one_and_two_processes_write_the_same_results(tmp_path):
    lines = (task_dir() / "replay_example.jsonl").read_text(encoding="utf-8").splitlines()
    responses = tmp_path / "responses.jsonl"
    responses.write_text("\n".join(reversed(lines)) + "\n", encoding="utf-8")
    proc, one, _ = run_lmms_eval(_args(responses), tmp_path / "one")
    assert one is not None, proc.stdout[-3000:] + proc.stderr[-3000:]
    proc, two = _two_processes(_args(responses), tmp_path / "two")
    assert proc.returncode == 0 and two is not None, proc.stdout[-3000:] + proc.stderr[-3000:]
    assert "Running on rank 1" in proc.stdout + proc.stderr  # two ranks really scored documents
    one, two = _documents_part(one), _documents_part(two)
    assert set(one) == set(two)
    for section in one:
        if section in ("results", "groups"):
            for name, row in one[section].items():
                assert row == two[section][name], (section, name, _differ(row, two[section][name]))
        if isinstance(one[section], dict):
            for name, value in one[section].items():
                assert value == two[section].get(name), (
                    section,
                    name,
                    _differ(value, two[section].get(name)) if isinstance(value, dict) else value,
                )
        assert one[section] == two[section], section
    stderr_keys = [k for row in one["results"].values() for k in row if "_stderr" in k]
    assert any(isinstance(one["results"][t].get("acc_stderr,none"), float) for t in one["results"]) and stderr_keys
