"""Several processes: ``accelerate launch --multi_gpu --num_processes 2 -m lmms_eval`` on CPU, replay model.

On a machine without GPUs, ``--multi_gpu`` is what starts N processes (they join a gloo process
group); ``--cpu`` selects accelerate's single-process launcher and starts one. Every results value
and every logged sample must equal the one-process run: WorldCuisines groups (macro over languages
and subtasks) and the FAM-Bench CTC task, whose rank and decision prompts of one question land on
different ranks, so the CTC join only works on the records gathered from both. The two ranks gather their
documents in another order than one process scores them: every statistic, standard errors included, must be a
function of the set of documents (issue 27), so the whole results JSON equals the one-process run's except what
describes the run (timestamps, durations, paths, the process count). One launched run serves every test here (a
launch costs two interpreter start-ups).
"""

from __future__ import annotations

import json
import re
import socket
import sys

import pytest
from serving_harness import (
    assert_scores,
    metric_values,
    replay_reference,
    replay_reference_run,
    run_lmms_eval_launched,
    run_names,
    write_replay_responses,
)
from serving_harness import requests as harness_requests

pytestmark = pytest.mark.e2e
# Top-level keys of the results JSON that describe the run, not its documents (time, machine, paths, processes).
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


@pytest.fixture(scope="module")
def two_process_run(tmp_path_factory):  # type: ignore[no-untyped-def]
    work = tmp_path_factory.mktemp("two_proc")
    responses = write_replay_responses(work / "responses.jsonl")
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
    args = ["--model", "food_tasks_replay", "--model_args", f"responses={responses}", "--tasks", run_names()]
    proc, results, samples = run_lmms_eval_launched(launcher, args, work / "out")
    assert proc.returncode == 0 and results is not None, proc.stderr[-4000:]
    return proc, results, samples


def test_two_processes_ran(two_process_run):  # type: ignore[no-untyped-def]
    proc, _, _ = two_process_run
    log = proc.stdout + proc.stderr
    assert "Running on rank 0" in log and "Running on rank 1" in log


def test_results_equal_one_process(two_process_run):  # type: ignore[no-untyped-def]
    _, results, _ = two_process_run
    reference = replay_reference()
    assert_scores(results, reference)  # hand-computed values, and every value equal to one process
    assert metric_values(results) == metric_values(reference)
    assert results["n-samples"] == reference["n-samples"]
    ctc = metric_values(results)["fambench_task2_ctc_sample"]
    assert ctc["ctc_pool"] == 2  # both questions joined across ranks


def test_logged_samples_equal_one_process(two_process_run):  # type: ignore[no-untyped-def]
    _, _, samples = two_process_run
    _, reference = replay_reference_run()
    assert set(samples) == set(reference)
    for task, rows in reference.items():
        # Ranks log in their own order (rank 0's documents, then rank 1's); compare document by document.
        assert {r["doc_id"]: r for r in samples[task]} == {r["doc_id"]: r for r in rows}, task
    assert (
        sum(len(rows) for rows in samples.values()) == len(harness_requests())
        and len(samples["fambench_task2_ctc_sample"]) == 4
    )


def _documents_part(results: dict) -> dict:
    """The results JSON less what describes the run; objects' memory addresses in the configs' reprs blanked."""
    kept = {k: v for k, v in results.items() if k not in RUN_KEYS}
    return json.loads(re.sub(r" at 0x[0-9a-f]+", " at 0x", json.dumps(kept)))


def _differ(a: dict, b: dict) -> dict:
    return {k: (a.get(k), b.get(k)) for k in set(a) | set(b) if a.get(k) != b.get(k)}


def test_results_json_equal_one_process_standard_errors_included(two_process_run):  # type: ignore[no-untyped-def]
    one, two = _documents_part(replay_reference()), _documents_part(two_process_run[1])
    assert set(one) == set(two)
    for section in one:
        if isinstance(one[section], dict):  # the first differing task and value, not only the section
            for name, value in one[section].items():
                assert value == two[section].get(name), (
                    section,
                    name,
                    _differ(value, two[section].get(name)) if isinstance(value, dict) else value,
                )
        assert one[section] == two[section], section
    stderrs = [v for row in one["results"].values() for k, v in row.items() if "_stderr" in k]
    assert sum(isinstance(v, float) for v in stderrs) >= 10  # standard errors were computed, not all "N/A"
