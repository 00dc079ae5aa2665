"""Error bars through the real lmms-eval CLI: Stderr cells, n and clusters, group errors, --baseline, --repeats."""

from __future__ import annotations

import json
import math

import pytest
from conftest import run_lmms_eval

from food_tasks.registration import task_dir

pytestmark = pytest.mark.e2e
TASK = "worldcuisines_mcq_sample_1a_nocontext"
GROUP = "worldcuisines_mcq_sample"


def _replay(tmp_path, name: str, lines: list[dict], extra: list[str] = ()):  # type: ignore[no-untyped-def]
    responses = tmp_path / f"{name}.jsonl"
    responses.write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")
    proc, results, samples = run_lmms_eval(
        [
            "--model",
            "food_tasks_replay",
            "--model_args",
            f"responses={responses},keys=qa_id+lang,model_name={name},default=1",
            "--tasks",
            GROUP,
            *extra,
        ],
        tmp_path / name,
    )
    assert results is not None, proc.stdout[-3000:] + proc.stderr[-3000:]
    return proc, results, samples


def _example() -> list[dict]:
    return [json.loads(line) for line in (task_dir() / "replay_example.jsonl").read_text(encoding="utf-8").splitlines()]


def test_stderr_n_and_clusters_in_the_json_and_the_table(tmp_path):
    proc, results, samples = _replay(tmp_path, "example", _example())
    row = results["results"][TASK]
    dishes = {s["acc"]["food_id"] for s in samples[TASK]}
    assert row["acc_n,none"] == 9 and row["acc_clusters,none"] == len(dishes) == 3
    # invalid_rate (a mean): only qa 402 in id_formal is unparseable (null), x = 1 of 9, r = 1/9. Cluster (dish)
    # residual sums: qa 402: 1 - 3/9 = 2/3; qa 400 and 401: -3/9 each; sum of squares 2/3; CR1 factor 3/2:
    # SE = sqrt(3/2 * 2/3) / 9 = 1/9, in percent 11.11.
    assert row["invalid_rate,none"] == pytest.approx(100 / 9)
    assert row["invalid_rate_stderr,none"] == pytest.approx(100 / 9) == row["invalid_rate_stderr_clustered,none"]
    # iid: sd of eight 0s and one 1 = 1/3, / sqrt(9) = 1/9 too (the clusters happen not to widen it here)
    assert row["invalid_rate_stderr_clt,none"] == pytest.approx(100 / 9)
    assert row["invalid_rate_stderr_method,none"] == "clustered analytic (CR1), 3 dishes"
    # acc is a macro mean over languages: dish-clustered bootstrap, a number, reproducible; the JSON says so, and
    # gives the same bootstrap with every document its own cluster as the CLT figure
    assert isinstance(row["acc_stderr,none"], float) and 0 < row["acc_stderr,none"] < 50
    assert row["acc_stderr_clustered,none"] == row["acc_stderr,none"] and isinstance(row["acc_stderr_clt,none"], float)
    assert row["acc_stderr_method,none"] == "cluster bootstrap, 1000 resamples, 3 dishes"
    assert row["per_language_stderr,none"] == "N/A"
    group = results["results"][GROUP]
    assert isinstance(group["acc_stderr,none"], float) and group["acc_n,none"] == 36 and group["acc_clusters,none"] == 3
    assert group["acc_stderr_clustered,none"] == group["acc_stderr,none"] and isinstance(
        group["acc_stderr_clt,none"], float
    )
    assert (
        group["acc_stderr_method,none"] == "cluster bootstrap, 1000 resamples, 3 dishes, joint over the group's 4 tasks"
    )
    # an alias (the shared unparsed name) gets the same error as the metric it repeats
    assert group["parse_fail_rate,none"] == group["invalid_rate,none"]
    assert group["parse_fail_rate_stderr,none"] == group["invalid_rate_stderr,none"]
    table = [line for line in proc.stdout.splitlines() if line.startswith("|") and "|acc " in line]
    assert table and all(not cells.split("|")[8].strip() == "N/A" for cells in table), table
    assert not any(
        "_clusters" in line or "acc_n " in line or "_method" in line
        for line in proc.stdout.splitlines()
        if line.startswith("|")
    )
    assert max(len(line) for line in proc.stdout.splitlines() if line.startswith("|")) <= 120
    # the samples file shows the record once and each metric's per-document score
    first = samples[TASK][0]
    assert set(first["acc"]) >= {"qa_id", "lang", "food_id", "correct", "score"} and set(first["invalid_rate"]) == {
        "score"
    }
    _, again, _ = _replay(tmp_path, "again", _example())
    assert again["results"][TASK]["acc_stderr,none"] == row["acc_stderr,none"]  # seeded


def test_baseline_gives_a_paired_comparison_matched_by_document(tmp_path):
    _, base, _ = _replay(tmp_path, "base", _example())
    better = [dict(line, response={"400": "1", "401": "5", "402": "2"}[line["qa_id"]]) for line in _example()]
    results_file = next((tmp_path / "base").rglob("*_results.json"))
    proc, results, _ = _replay(tmp_path, "better", list(reversed(better)), ["--baseline", str(results_file)])
    row = results["results"][TASK]
    assert row["paired_metric"] == "acc" and row["paired_n"] == 9
    assert row["paired_diff"] == pytest.approx(row["acc,none"] - base["results"][TASK]["acc,none"])
    assert row["paired_baseline_score"] == pytest.approx(base["results"][TASK]["acc,none"])
    assert row["paired_ci_lower"] <= row["paired_diff"] <= row["paired_ci_upper"] and 0 <= row["paired_pvalue"] <= 1


def test_repeats_give_lmms_evals_stability_metrics_for_per_document_scores(tmp_path):
    _, results, _ = _replay(tmp_path, "repeats", _example(), ["--repeats", "2"])
    row = results["results"][TASK]
    # the replay model answers the same twice: every question consistent, no internal variance
    assert row["acc_consistency_rate,none"] == 1.0 and row["acc_internal_variance,none"] == 0.0
    correct = row["acc_expected_accuracy,none"]
    assert 0 <= correct <= 1 and not math.isnan(correct)
    assert row["invalid_rate_expected_accuracy,none"] == pytest.approx(1 / 9)
