"""The report's uncertainty: intervals in the tables, standard errors and detectable differences, paired
differences between runs (matched by document), the best-of-templates selection bias, and what it says when a
run has no samples file."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from conftest import run_lmms_eval

from food_tasks import report
from food_tasks.registration import task_dir
from food_tasks.report.spec import ERROR_BARS_DOC

pytestmark = pytest.mark.e2e
TASK = "worldcuisines_mcq_sample_1a_nocontext"
GROUP = "worldcuisines_mcq_sample"


def _replay(tmp_path, name: str, lines: list[dict]):  # type: ignore[no-untyped-def]
    responses = tmp_path / f"{name}.jsonl"
    responses.write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")
    proc, results, _ = run_lmms_eval(
        [
            "--model",
            "food_tasks_replay",
            "--model_args",
            f"responses={responses},keys=qa_id+lang,model_name=demo/{name},default=1",
            "--tasks",
            GROUP,
        ],
        tmp_path / name,
    )
    assert results is not None, proc.stdout[-3000:] + proc.stderr[-3000:]
    return results


def _example() -> list[dict]:
    return [json.loads(line) for line in (task_dir() / "replay_example.jsonl").read_text(encoding="utf-8").splitlines()]


@pytest.fixture(scope="module")
def two_runs(tmp_path_factory):  # type: ignore[no-untyped-def]
    tmp = tmp_path_factory.mktemp("uncertainty")
    base = _replay(tmp, "base", _example())
    better = _replay(
        tmp, "better", [dict(line, response={"400": "1", "401": "5", "402": "2"}[line["qa_id"]]) for line in _example()]
    )
    return tmp, base, better


def test_cells_carry_the_95_interval_of_the_results_files_standard_error(two_runs, tmp_path):
    tmp, base, _ = two_runs
    made = report.build_report([tmp / "base"], tmp_path / "rep", charts=False)
    md = made["markdown"].read_text(encoding="utf-8")
    row = base["results"][TASK]
    acc, se = row["acc,none"], row["acc_stderr,none"]
    assert f"{acc:.2f} ± {1.959963984540054 * se:.2f}" in md
    # The interval note is said once, in the legend, naming the error-bars page in words (issue 29.3; issue 33.7: a
    # link to a file breaks when the HTML travels alone); the tables point to the legend, an anchor of the page.
    assert md.count(report.INTERVAL_NOTE) == 1 and ERROR_BARS_DOC in report.INTERVAL_NOTE
    page = made["html"].read_text(encoding="utf-8")
    assert "href='docs/" not in page and "<a href='#how-to-read-this-report'>" in page
    assert "<h2 id='how-to-read-this-report'>" in page
    assert (Path(__file__).resolve().parents[2] / ERROR_BARS_DOC).is_file()
    # the uncertainty table: value ± 95%, the standard error, and 2.80 x sqrt(2) x SE as the detectable difference
    assert "### Uncertainty" in md and "Smallest detectable difference" in md
    group = base["results"][GROUP]
    gse = group["acc_stderr,none"]
    # three dishes: fewer than 30 independent units, so the values carry the dagger and its note
    assert (
        f"| {group['acc,none']:.2f} ± {1.959963984540054 * gse:.2f}† | {gse:.2f} | 3 | {2.8016 * 2**0.5 * gse:.2f}† |"
        in md
    ) and report.FEW_NOTE in md
    assert f"{acc:.2f} ± {1.959963984540054 * se:.2f}†" in md
    assert "### Paired differences" not in md  # one run: nothing to compare, and the page says so
    assert "| single run: 2.80 x sqrt(2) x SE |" in md and "*Not shown:* Paired differences: one model only" in md


def test_two_runs_get_a_paired_difference_matched_by_document(two_runs, tmp_path):
    tmp, base, better = two_runs
    made = report.build_report([tmp / "better", tmp / "base"], tmp_path / "rep", charts=False)
    md = made["markdown"].read_text(encoding="utf-8")
    assert "### Paired differences" in md and report.PAIRED_NOTE in md
    rows = [line for line in md.splitlines() if line.startswith("| demo/better vs demo/base |")]
    assert rows, md
    diff = better["results"][GROUP]["acc,none"] - base["results"][GROUP]["acc,none"]
    cells = [c.strip() for c in rows[0].strip("|").split("|")]
    assert float(cells[2]) == pytest.approx(diff, abs=0.01)
    group = better["results"][GROUP]
    assert cells[5] == f"{group['acc_n,none']} ({group['acc_clusters,none']})"  # every shared document, and the dishes
    # three dishes are three independent units: no interval, p-value or verdict (as food-tasks compare), and the page
    # says why
    assert cells[3:5] == ["n/a", "n/a"]
    assert cells[7] == "too few units to tell"  # the units are in the column before
    assert (
        "Too few units to tell: fewer than 30 independent units (clusters), no verdict for:" in md
        and "36 shared documents in 3 independent units" in md
    )
    # two models: the Uncertainty table shows the paired figure over the shared documents (the Paired differences
    # table's "Detectable (paired)", 2.80 x SE of A - B), against the other model, and says so
    paired = cells[6]
    for model, other in (("demo/better", "demo/base"), ("demo/base", "demo/better")):
        row = next(line for line in md.splitlines() if line.startswith(f"| **{model}** | ") and " vs " in line)
        assert f"| {paired}† vs {other} | paired: 2.80 x SE of A - B on the shared documents |" in row, row
    assert "single run: 2.80 x sqrt(2) x SE" not in md


def test_without_samples_files_the_report_says_what_to_pass(two_runs, tmp_path):
    tmp, _, _ = two_runs
    for name in ("base", "better"):
        shutil.copytree(tmp / name, tmp_path / name)
        for samples in (tmp_path / name).rglob("*_samples_*.jsonl"):
            samples.unlink()
    made = report.build_report([tmp_path / "better", tmp_path / "base"], tmp_path / "rep", charts=False)
    md = made["markdown"].read_text(encoding="utf-8")
    assert "### Uncertainty" in md  # the standard errors come from the results files
    assert "No paired comparison for" in md and "--log_samples" in md


Z = 1.959963984540054


@pytest.mark.parametrize(
    ("percent", "n", "expected"),
    [
        # 50 of 100 by hand: centre (0.5 + z^2/200) / (1 + z^2/100) = 0.5;
        # half z sqrt(0.25/100 + z^2/40000) / (1 + z^2/100)
        (
            50.0,
            100,
            (
                50 - 100 * Z * (0.0025 + Z * Z / 40000) ** 0.5 / (1 + Z * Z / 100),
                50 + 100 * Z * (0.0025 + Z * Z / 40000) ** 0.5 / (1 + Z * Z / 100),
            ),
        ),
        (0.0, 10, (0.0, 100 * Z * Z / (10 + Z * Z))),  # 0 of n: [0, z^2 / (n + z^2)], not 0 wide
        (100.0, 4, (100 * 4 / (4 + Z * Z), 100.0)),  # n of n: its mirror
        (0.0, 3, (0.0, 56.1497)),
        (100.0, 3, (43.8503, 100.0)),  # scipy binomtest(0 or 3, 3).proportion_ci("wilson")
        (50.0, 0, None),
        (None, 10, None),
        (float("nan"), 10, None),
        (50.0, None, None),
    ],
)
def test_binomial_interval_is_wilson_by_hand(percent, n, expected):
    got = report.binomial_interval(percent, n)
    assert got == (pytest.approx(expected, abs=1e-4) if expected is not None else None)
    if got is not None:
        assert 0.0 <= got[0] < got[1] <= 100.0  # never 0 wide, never outside the bounds


def test_a_zero_wide_normal_interval_becomes_the_wilson_interval_over_the_units():
    # every one of 3 units scored 0: the standard error is 0, the cell shows Wilson's [0, 56.15] over the 3 units
    assert report.with_interval(0.0, 0.0, 3, 2) == "0.00 [0.00, 56.15]"
    assert report.with_interval(100.0, 0.0, 3, 2) == "100.00 [43.85, 100.00]"
    assert report.with_interval(1.0, 0.0, 3, 4) == "1.0000 [0.4385, 1.0000]"  # a fraction metric (4 decimals)
    assert report.with_interval(12.0, 0.0, 5, 2) == "12.00 (no interval: all units alike)"  # not a rate at a bound
    assert report.with_interval(50.0, 2.0, 30, 2) == f"50.00 ± {Z * 2:.2f}"


def test_compare_prints_documents_and_units_and_gives_no_verdict_on_three_dishes(two_runs, capsys):
    from food_tasks.cli import main as cli_main

    tmp, _, _ = two_runs
    assert cli_main(["compare", str(tmp / "better"), str(tmp / "base")]) == 0
    out = capsys.readouterr().out.splitlines()
    line = out[out.index(GROUP) + 1]  # each task or group on a line of its own, its metrics below it (issue 29.3)
    assert line.split()[0] == "acc" and "36 (3)" in line and "better)" not in line
    assert line.endswith("too few units to tell")  # the count of units is in the column before, not repeated
    assert max(map(len, out[2:])) <= 120  # the two paths above are the user's
    assert cli_main(["compare", str(tmp / "better"), str(tmp / "base"), "--all", "--iters", "50"]) == 0
    assert max(map(len, capsys.readouterr().out.splitlines()[2:])) <= 120


# Sections the report builds, and the one line it prints instead when it cannot build one.
SECTIONS = (
    ("## Models by benchmark", "*Not shown:* Models by benchmark (heat map)"),
    ("### Uncertainty", "*Not shown:* Uncertainty"),
    ("### Paired differences", "*Not shown:* Uncertainty and Paired differences"),
    ("### Per language: MCQ accuracy", "*Not shown:* Per language breakdown"),
)


def _readme_replay(tmp_path, name: str):  # type: ignore[no-untyped-def]
    """The README's replay command (subtask 1a of the sample, `--log_samples`), under its own model name."""
    responses = task_dir() / "replay_example.jsonl"
    proc, results, _ = run_lmms_eval(
        [
            "--model",
            "food_tasks_replay",
            "--model_args",
            f"responses={responses},keys=qa_id+lang,model_name={name}",
            "--tasks",
            TASK,
        ],
        tmp_path / name,
    )
    assert results is not None, proc.stdout[-3000:] + proc.stderr[-3000:]
    return tmp_path / name


def test_on_the_readme_replay_runs_no_section_vanishes_silently(tmp_path):
    one = _readme_replay(tmp_path, "replay_example")
    two = _readme_replay(tmp_path, "replay_again")
    for paths in ([one], [one, two]):
        made = report.build_report(paths, tmp_path / f"rep{len(paths)}", charts=False)
        md = made["markdown"].read_text(encoding="utf-8")
        for built, missing in SECTIONS:
            assert (built in md) != (missing in md), (built, missing, md)
        # a subtask alone has no headline (group) number: the page says why, and what to run; two runs of the same
        # subtask are paired on it
        what = "Uncertainty and Paired differences: they cover" if len(paths) == 1 else "Uncertainty: it covers"
        assert f"*Not shown:* {what} the headline numbers (Avg MCQ, Avg OEQ)" in md
        assert ("### Paired differences" in md) == (len(paths) == 2)
        assert "### Per language: MCQ accuracy" in md  # the subtask's own table is there
        html = made["html"].read_text(encoding="utf-8")
        assert "Not shown:" in html  # the same document model in both files
    assert "one model only" in (tmp_path / "rep1" / "report.md").read_text(encoding="utf-8")
    assert "fewer than two models have a headline number" in (tmp_path / "rep2" / "report.md").read_text(
        encoding="utf-8"
    )


def test_a_subtask_run_and_a_group_run_are_paired_on_the_subtask_both_have(two_runs, tmp_path):
    """The README's replay (subtask 1a alone) beside a run of the group: the headline (group) is one run's only, so
    the paired section uses the subtask both have, and says so; the group's row points to it."""
    tmp, base, _ = two_runs
    one = _readme_replay(tmp_path, "replay_example")
    made = report.build_report([one, tmp / "better"], tmp_path / "rep", charts=False)
    md = made["markdown"].read_text(encoding="utf-8")
    assert "### Paired differences" in md, md
    rows = [
        line for line in md.splitlines() if line.startswith("| replay_example vs ") or " vs replay_example |" in line
    ]
    assert len(rows) == 1 and "| 1a MCQ |" in rows[0], rows
    assert "Paired on 1a MCQ: the tasks both runs have." in md
    assert "(no other model has it; Paired differences use the tasks both ran)" in md


def test_one_metric_of_a_group_is_bootstrapped_alone(two_runs, monkeypatch):
    """A minus B for one metric of a group (compare's beyond-accuracy rows, the report's paired cells) resamples that
    metric alone, and gives the row the whole group's comparison gives (it resampled every metric of the group, then
    kept one)."""
    from food_tasks.runs import load_run, paired
    from food_tasks.stats import comparison

    tmp, _, _ = two_runs
    a, b = load_run(tmp / "base"), load_run(tmp / "better")
    resampled = []
    real = comparison.paired_group
    monkeypatch.setattr(
        comparison, "paired_group", lambda group, name, *rest: resampled.append(name) or real(group, name, *rest)
    )
    row = paired.compare_one(a, b, GROUP, "acc_official", iters=200)
    assert resampled == ["acc_official"]
    (whole,) = [r for r in paired.compare_runs(a, b, "all", iters=200) if (r.name, r.metric) == (GROUP, "acc_official")]
    assert row is not None and row.comparison is not None and whole.comparison is not None
    assert (row.a, row.b, row.comparison.diff, row.comparison.low, row.comparison.high) == (
        whole.a,
        whole.b,
        whole.comparison.diff,
        whole.comparison.low,
        whole.comparison.high,
    )
