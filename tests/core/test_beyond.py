"""Beyond accuracy read back from runs (issue 28, offline part; :mod:`food_tasks.stats.comparison`,
:mod:`food_tasks.report.beyond`): hand-computed paired comparisons of the new measures, and one end-to-end run of a
packaged task with its image-free and circular variants (replay model) read by ``food-tasks compare`` and
``food-tasks report``."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from conftest import run_lmms_eval

from food_tasks.compare import table as compare_table
from food_tasks.runs import measures
from food_tasks.runs.run import read_pair
from food_tasks.stats import comparison, consistency
from food_tasks.stats import uncertainty as stats
from food_tasks.stats.consistency import HINT, MISLEADING, NO_CONTEXT


def _beyond_lines(a, b, iters=0):  # type: ignore[no-untyped-def]
    """What ``food-tasks compare`` prints after its main table, every measure both runs report included (none is
    left to the main table): read, computed, then written as the command does."""
    pair = read_pair(a, b)
    found = comparison.compared(pair.reads, pair.gains, True, iters)
    found.measures = comparison.measure_rows(pair.reads, iters)
    return compare_table.compare_text(found)


VIEW = consistency.View(
    item=stats.column("qa_id"),
    lang=stats.column("lang"),
    correct=stats.field("correct"),
    cluster=stats.column("qa_id"),
    choice=stats.column("pred"),
)


def _records(table: dict[str, dict[str, tuple[int, str]]]) -> list[dict]:
    return [
        {"qa_id": q, "lang": lang, "correct": ok, "pred": pred}
        for q, langs in table.items()
        for lang, (ok, pred) in langs.items()
    ]


# 3 items x 3 languages. A: q1 right everywhere; q2 right in en and fr, wrong in yo; q3 wrong everywhere, always "C".
RUN_A = _records(
    {
        "q1": {"en": (1, "A"), "fr": (1, "A"), "yo": (1, "A")},
        "q2": {"en": (1, "B"), "fr": (1, "B"), "yo": (0, "D")},
        "q3": {"en": (0, "C"), "fr": (0, "C"), "yo": (0, "C")},
    }
)
# B: q1 and q2 right everywhere; q3 right in en only.
RUN_B = _records(
    {
        "q1": {"en": (1, "A"), "fr": (1, "A"), "yo": (1, "A")},
        "q2": {"en": (1, "B"), "fr": (1, "B"), "yo": (1, "B")},
        "q3": {"en": (1, "A"), "fr": (0, "C"), "yo": (0, "D")},
    }
)


def _units(records: list[dict], what: str) -> list[tuple]:
    values = ((it.key, it.cluster, consistency.item_value(it, VIEW, what)) for it in consistency.items(records, VIEW))
    return [(k, c, v) for k, c, v in values if v is not None]


def _capture_charts(monkeypatch) -> dict[str, tuple]:
    """Each chart the report saves, by name: its x limits, its bars' error bars and its title."""
    from matplotlib.container import BarContainer

    from food_tasks.report.charts import Charts

    drawn: dict[str, tuple] = {}
    save = Charts._save

    def capture(self, fig, name):  # type: ignore[no-untyped-def]
        ax = fig.axes[0]
        bars = [c for c in ax.containers if isinstance(c, BarContainer)]
        drawn[name] = (ax.get_xlim(), [c.errorbar for c in bars], ax.get_title())
        return save(self, fig, name)

    monkeypatch.setattr(Charts, "_save", capture)
    return drawn


def test_xling_all_correct_compared_paired_by_item():
    # All correct: A (1, 0, 0) = 33.33 %, B (1, 1, 0) = 66.67 %: A - B = -33.33.
    # SE (linearised ratio difference, each item its own cluster): e_i = (a_i - 1/3)/3 - (b_i - 2/3)/3
    # = (1/9, -2/9, 1/9); CR1: sqrt(3/2 * 6/81) = 1/3, on the percent scale 33.33.
    c = comparison.paired_means(
        _units(RUN_A, "all_correct"), _units(RUN_B, "all_correct"), 100.0, 0, 1, pair_units=True
    )
    assert c.diff == pytest.approx(-100 / 3)
    assert c.se == pytest.approx(100 / 3)
    assert (c.n, c.clusters) == (3, 3)
    assert c.verdict() == "too few units to tell"  # the count is printed beside it


def test_xling_agreement_compared_paired_by_item():
    # Same option everywhere: A (1, 0, 1), B (1, 1, 0): both 66.67 %, A - B = 0; e = (a - b)/3 = (0, -1/3, 1/3),
    # sum of squares 2/9, CR1 sqrt(3/2 * 2/9) = 1/sqrt(3) = 57.74 %.
    c = comparison.paired_means(_units(RUN_A, "agreement"), _units(RUN_B, "agreement"), 100.0, 0, 1, pair_units=True)
    assert c.diff == pytest.approx(0.0)
    assert c.se == pytest.approx(100 / 3**0.5)


def test_items_only_one_run_answered_are_left_out_when_paired_by_item():
    one_more = RUN_A + _records({"q4": {"en": (1, "A"), "fr": (1, "A")}})
    c = comparison.paired_means(
        _units(one_more, "all_correct"), _units(RUN_B, "all_correct"), 100.0, 0, 1, pair_units=True
    )
    assert c.n == 3 and c.diff == pytest.approx(-100 / 3)


def _context(dishes: dict[str, dict[str, int]]) -> list[dict]:
    role = {"1a": NO_CONTEXT, "1b": HINT, "1c": MISLEADING}
    return [
        {"dish": d, "lang": "en", "correct": ok, "subtask": role[s], "qa_id": f"{d}{s}"}
        for d, by in dishes.items()
        for s, ok in by.items()
    ]


CONTEXT_VIEW = consistency.View(
    item=stats.column("qa_id"),
    lang=stats.column("lang"),
    correct=stats.field("correct"),
    cluster=stats.column("dish"),
    context=stats.column("subtask"),
    unit=stats.column("dish"),
)


def test_misled_rate_of_a_dish_right_in_1a_and_wrong_in_1c_and_its_paired_comparison():
    # A: d1 right in 1a, wrong in 1c (misled); d2 right in both; d3 wrong in 1a (not counted), right with the hint.
    a = consistency.context_rows(
        _context({"d1": {"1a": 1, "1c": 0}, "d2": {"1a": 1, "1c": 1}, "d3": {"1a": 0, "1b": 1}}), CONTEXT_VIEW
    )
    assert sorted(a["misled_rate"]) == [(("d1", "en"), "d1", 1.0), (("d2", "en"), "d2", 0.0)]
    assert a["hint_gain"] == [(("d3", "en"), "d3", 1.0)]
    # B: d1 right in both, d2 wrong in 1a: misled 0 of 1 (d1). A - B = 50 - 0 over the union of units {d1, d2}:
    # a = (1, 0), b = (0, -): ra = 1/2, rb = 0; e = ((1 - 1/2)/2 - 0, (0 - 1/2)/2) = (1/4, -1/4);
    # CR1 sqrt(2 * 1/8) = 1/2.
    b = consistency.context_rows(_context({"d1": {"1a": 1, "1c": 1}, "d2": {"1a": 0, "1c": 0}}), CONTEXT_VIEW)
    c = comparison.paired_means(a["misled_rate"], b["misled_rate"], 100.0, 0, 1, pair_units=False)
    assert c.diff == pytest.approx(50.0) and c.se == pytest.approx(50.0) and c.clusters == 2
    assert consistency.context_sensitivity(
        _context({"d1": {"1a": 1, "1c": 0}, "d2": {"1a": 1, "1c": 1}}), CONTEXT_VIEW
    )["misled_rate"].value == pytest.approx(50.0)


def test_fitted_tables_stay_within_120_columns():
    rows = [
        (
            "worldcuisines_mcq_task1a_food_name_no_context_sample_circular",
            "misled_rate_same_image",
            "12.34",
            "56.78",
            "-44.44",
            "[-50.00, -38.88]",
            "1000",
            "no detectable difference",
        )
    ]
    rows.append(
        (rows[0][0], "a_rather_long_measure_name", "0.00", "0.00", "", "", "", "a p-value: not differenced, " * 5)
    )
    lines = compare_table.fitted(compare_table.MEASURE_HEADER, rows)
    # Issue 29.6: a long name is never cut (it was cut mid-word to "worldcuisine…ontextualized"): each task or
    # group heads its rows on a line of its own, whole; a long note wraps at word boundaries under its column.
    assert max(map(len, lines)) <= 120 and not any("…" in line for line in lines)
    assert lines[0].split() == [*"measure A B A - B 95% interval units verdict".split()]
    assert lines[1] == rows[0][0] and lines[2].split()[0] == "misled_rate_same_image"
    start = lines[0].index("verdict")
    assert all(line[:start].strip() == "" for line in lines[4:]) and len(lines) > 4
    assert " ".join(" ".join(lines[3:]).split()).endswith(" ".join(rows[1][-1].split()))


# --------------------------------------------------------------------------- end to end (one lmms-eval process)

TASK, TWIN, CIRCULAR = "diningbench_cls_sample", "diningbench_cls_sample_noimage", "diningbench_cls_sample_circular"


@pytest.fixture(scope="module")
def run_dir(tmp_path_factory):
    # The two sample questions' gold letters are A and E (8 options). With the image the model answers both right;
    # without it, "A" twice (1 of 2 right); in the 8 rotations of each question, always "A".
    tmp = tmp_path_factory.mktemp("beyond")
    lines = [
        {"task": TASK, "doc_id": 0, "response": "A"},
        {"task": TASK, "doc_id": 1, "response": "E"},
        {"task": TWIN, "doc_id": 0, "response": "A"},
        {"task": TWIN, "doc_id": 1, "response": "A"},
    ]
    lines += [{"task": CIRCULAR, "doc_id": i, "response": "A"} for i in range(16)]
    responses = tmp / "responses.jsonl"
    responses.write_text("\n".join(json.dumps(x) for x in lines) + "\n")
    args = [
        "--model",
        "food_tasks_replay",
        "--model_args",
        f"responses={responses}",
        "--tasks",
        f"{TASK},{TWIN},{CIRCULAR}",
    ]
    proc, results, _ = run_lmms_eval(args, tmp / "out")
    assert results is not None and set(results["results"]) >= {TASK, TWIN, CIRCULAR}, proc.stderr[-3000:]
    return tmp / "out"


@pytest.mark.e2e
def test_compare_shows_the_image_gain_within_a_run_and_across_two_runs(run_dir, tmp_path):
    from food_tasks.runs import load_run

    run = load_run(run_dir)
    found = measures.image_gain(run, run, TASK, TWIN)
    # Paired by document: (1 - 1, 1 - 0) -> +50 points; without the image 1 of 2 right (percent, as every accuracy).
    assert found is not None and found.gain.diff == pytest.approx(50.0) and found.without_image == pytest.approx(50.0)
    assert found.with_image == pytest.approx(100.0) and (found.gain.n, found.gain.clusters) == (2, 2)
    # The same task and twin in two runs (two results files): A holds the task, B its twin.
    data = json.loads(run.path.read_text())
    for name, keep in (("a", TASK), ("b", TWIN)):
        folder = tmp_path / name
        folder.mkdir()
        shutil.copy(next(run_dir.rglob(f"*_samples_{keep}.jsonl")), folder / f"x_samples_{keep}.jsonl")
        one = {**data, "results": {keep: data["results"][keep]}, "configs": {keep: data["configs"][keep]}}
        (folder / "x_results.json").write_text(json.dumps(one))
    lines = _beyond_lines(load_run(tmp_path / "a"), load_run(tmp_path / "b"), iters=0)
    # Each task heads its rows on a line of its own (issue 29.6), its measures indented below it.
    gain = lines[lines.index(TASK) + 1]
    # one model in both files: its task (in A) paired with its own twin (in B), and the row says so
    assert gain.split()[:5] == ["acc", "A/B", "100.00", "50.00", "+50.00"] and gain.endswith("too few units to tell")
    assert gain.split()[5] == "n/a"  # 2 units: no interval (a normal one ran to +148.00 points)
    assert max(map(len, lines)) <= 120
    # A run against itself: circular accuracy compared like a metric (paired), the p-value side by side.
    lines = _beyond_lines(run, run, iters=0)
    below = {line: lines[i + 1 :] for i, line in enumerate(lines)}
    assert CIRCULAR in below and any(" circular_acc " in line for line in below[CIRCULAR][:3])
    assert any(" position_bias_p " in line and "not differenced" in line for line in lines)


def _two_models(run_dir: Path, tmp_path: Path) -> list[Path]:
    """The run's folder twice, the second as another model's run (both with their samples files)."""
    folders = [tmp_path / "a", tmp_path / "b"]
    for folder, model in zip(folders, ("m/a", "m/b")):
        shutil.copytree(run_dir, folder)
        path = next(folder.rglob("*_results.json"))
        data = json.loads(path.read_text())
        data["config"]["model_args"] = f"pretrained={model}"
        path.write_text(json.dumps(data))
    return folders


@pytest.mark.e2e
@pytest.mark.parametrize("command", ["compare", "report"])
def test_each_results_file_is_read_once_per_command(run_dir, tmp_path, monkeypatch, capsys, command):
    """Issue 34.1: one read of each results file per command (the report re-read a file for its paired differences
    and its image gains, up to three times). Both runs pair (their tasks, their twins, their groups)."""
    from food_tasks.cli import main

    folders = _two_models(run_dir, tmp_path)
    reads: list[str] = []
    read_text = Path.read_text

    def counted(self, *args, **kwargs):  # type: ignore[no-untyped-def]
        if self.name.endswith("_results.json"):
            reads.append(Path(self).resolve().relative_to(tmp_path.resolve()).parts[0])
        return read_text(self, *args, **kwargs)

    monkeypatch.setattr(Path, "read_text", counted)
    extra = ["-o", str(tmp_path / "report"), "--no-charts"] if command == "report" else ["--iters", "0"]
    assert main([command, *map(str, folders), *extra]) == 0
    out = capsys.readouterr().out
    assert sorted(reads) == ["a", "b"], reads
    if command == "compare":  # the paired lines were computed from the files read once: the image gain of each
        assert "Image gain" in out and "A/A" in out and "B/B" in out
    else:
        text = (tmp_path / "report" / "report.md").read_text()
        assert "Paired differences" in text and "Image gain" in text


@pytest.mark.e2e
def test_report_beyond_accuracy_section(run_dir, tmp_path):
    from food_tasks.report import build_report

    out = build_report([run_dir], tmp_path / "report")
    text = out["markdown"].read_text()
    section = text[text.index("DiningBench — beyond accuracy") :]
    row = next(line for line in section.splitlines() if line.startswith("| ") and f"`{TASK}`" in line and "acc" in line)
    cells = [c.strip() for c in row.strip("|").split("|")]
    assert cells[2] == f"{cells[0].strip('*')} / {cells[0].strip('*')}"  # both sides from the run itself
    # 2 units: the dagger; 50 % with SE 50 (its normal interval [-48, 148] left 0-100 %): Wilson over the one unit the
    # SE is worth (issue 44), [5.46, 94.54]
    assert cells[4] == "100.00" and cells[5] == "50.00 [5.46, 94.54]†" and cells[6] == "+50.00†"
    # Circular: "A" in every rotation is right once per question: circular 0, mean per question 1/8 (12.5 %).
    circ = next(line for line in section.splitlines() if f"`{CIRCULAR}`" in line and line.count("|") == 7)
    cells = [c.strip() for c in circ.strip("|").split("|")]
    assert cells[2].startswith("100.00") and cells[4].startswith("12.50") and cells[5].startswith("0.00")
    # 2 questions all right (plain) and all wrong (circular): their Wilson intervals, 1.96^2 / (2 + 1.96^2) = 0.6576
    assert cells[2] == "100.00 [34.24, 100.00]†" and cells[5] == "0.00 [0.00, 65.76]†", cells
    # Position bias: always "A" against gold spread evenly over the 8 positions.
    assert f"| `{CIRCULAR}` |" in section and "A: 100.0 vs 12.5" in section
    assert "Cross-lingual consistency: not shown" in section and "Context sensitivity: not shown" in section
    assert any("position_bias" in p.name for p in out["charts"])
    assert "beyond accuracy" in out["html"].read_text()


def test_report_section_of_cross_lingual_and_context_measures(tmp_path):
    # Values as a run writes them (results JSON, read by the report): the section shows them with 95% intervals,
    # and charts the per-language gaps to English sorted.
    from food_tasks.report.beyond import beyond_blocks
    from food_tasks.report.charts import Charts
    from food_tasks.report.runs import Run
    from food_tasks.report.spec import spec_for

    # the packaged sample's task and group: samples of worldcuisines_mcq (their YAMLs declare it, sample_of)
    task, group = "worldcuisines_mcq_sample_1a_nocontext", "worldcuisines_mcq_sample"
    gaps = {
        "fr": {"value": -10.0, "se": 5.0, "low": -19.8, "high": -0.2},
        "yo": {"value": -40.0, "se": 10.0, "low": -59.6, "high": -20.4},
    }
    metrics = {
        task: {"xling_all_correct": 50.0, "xling_agreement": 75.0, "xling_gap_to_en": gaps},
        group: {"misled_rate": 25.0, "hint_gain": 60.0},
    }
    stderr = {task: {"xling_all_correct": 10.0, "xling_agreement": 5.0}, group: {"misled_rate": 2.0}}
    run = Run("m", [tmp_path], metrics, stderr=stderr, units={task: {"xling_all_correct": 40}})
    charts = Charts(tmp_path)
    blocks = beyond_blocks(spec_for(task), [run], charts)
    tables = [b for b in blocks if b[0] == "table"]
    assert ["**m**", f"`{task}`", "50.00 ± 19.60", "75.00 ± 9.80", "40"] in tables[0][2]
    # misled rate, context loss, misled excess, hint gain, and the same-image pair
    assert ["**m**", f"`{group}`", "25.00 ± 3.92", "–", "–", "60.00", "–", "–"] in tables[1][2]
    if charts.plt is not None:
        assert any(b[0] == "img" and "xling_gap_to_en" in b[1] for b in blocks)
    lines = [b[1] for b in blocks if b[0] == "p"][-1].splitlines()
    assert [line.split(":")[0] for line in lines][:3] == ["Image gain", "Circular accuracy", "Position bias"]
    # A WorldCuisines MCQ run of another variant than smallref (declared: a sample of worldcuisines_mcq, which the
    # published file names among its same measures): one line pointing to the published models' task.
    assert lines[3].endswith("a run of `worldcuisines_mcq_smallref` is placed among them here.")


def test_report_beyond_cells_follow_the_legend_and_gaps_have_no_interval_below_30_units(tmp_path, monkeypatch):
    """Issue 33.5: the cross-lingual, context and position tables printed "0.00 ± 0.00†" (a 0-wide interval) where the
    legend says a rate at 0 or 100% gets its Wilson interval and another score says it has none; a gap to English (a
    difference) on 3 units printed "-33.33 ± 65.33" and its chart drew a bar to -98.67 points."""
    from food_tasks.report.beyond import beyond_blocks
    from food_tasks.report.charts import Charts
    from food_tasks.report.runs import Run
    from food_tasks.report.spec import spec_for

    task, group = "worldcuisines_mcq_task1a_sample", "worldcuisines_mcq_task1_sample"
    few = {"value": -33.33, "se": 33.33, "low": -98.67, "high": 32.0, "clusters": 3, "acc": 0.0, "acc_reference": 33.3}
    many = {"value": -10.0, "se": 5.0, "low": -19.8, "high": -0.2, "clusters": 40, "acc": 40.0, "acc_reference": 50.0}
    flat = {"value": 0.0, "se": 0.0, "low": 0.0, "high": 0.0, "clusters": 40, "acc": 0.0, "acc_reference": 0.0}
    metrics = {
        task: {
            "xling_all_correct": 0.0,
            "xling_agreement": 100.0,
            "xling_gap_to_en": {"fr": few, "yo": many},
            "xling_by_lang_status": {"full/partly": few, "full/translated": many, "mixed/english": flat},
            "position_bias": {"A": {"chosen_share": 50.0, "gold_share": 50.0}},
            "position_rstd": 0.0,
            "position_bias_p": 1.0,
        },
        group: {"hint_gain": 0.0},
    }
    stderr = {task: {"xling_all_correct": 0.0, "xling_agreement": 0.0, "position_rstd": 0.0}, group: {"hint_gain": 0.0}}
    units = {
        task: {"xling_all_correct": 3, "xling_agreement": 3, "position_rstd": 3},
        group: {"hint_gain": 3},
    }
    drawn = _capture_charts(monkeypatch)
    run = Run("m", [tmp_path], metrics, stderr=stderr, units=units)
    charts = Charts(tmp_path)
    blocks = beyond_blocks(spec_for(task), [run], charts)
    rows = [row for b in blocks if b[0] == "table" for row in b[2]]
    # Wilson over 3 units at 0 of 3 and 3 of 3: 1.96^2 / (3 + 1.96^2) = 0.5615 -> [0.00, 56.15] and [43.85, 100.00]
    assert ["**m**", f"`{task}`", "0.00 [0.00, 56.15]†", "100.00 [43.85, 100.00]†", "3"] in rows
    assert ["**m**", f"`{group}`", "–", "–", "–", "0.00 [0.00, 56.15]†", "–", "–"] in rows  # context: hint gain
    # RStd is a standard deviation, not a proportion: no Wilson interval
    assert ["**m**", f"`{task}`", "0.00 (no interval: all units alike)†", "1.000", "none (p ≥ 0.05)"] in rows
    # gaps to English: 3 units, no interval; 40 units, ± 1.96 x 5; 40 units alike, none
    assert ["full/partly", "-33.33†", "0.00", "33.30"] in rows
    assert ["full/translated", "-10.00 ± 9.80", "40.00", "50.00"] in rows
    assert ["mixed/english", "0.00 (no interval: all units alike)", "0.00", "0.00"] in rows
    if charts.plt is not None:  # the chart: no error bar on the 3-unit gap (sorted: fr -33.33 first), ±10 at least
        xlim, errorbars, title = drawn[f"{task}_m_xling_gap_to_en"]
        segments = errorbars[0].lines[2][0].get_segments()
        assert [(s[0][0], s[1][0]) for s in segments] == [(-33.33, -33.33), pytest.approx((-19.8, -0.2))]
        assert xlim[1] >= 10 and "none below 30 independent units" in title


def test_an_all_zero_gap_chart_spans_ten_points_and_says_it_has_no_interval(tmp_path, monkeypatch):
    """Issue 33.7: gaps of 0 on 3 units drew an axis of ±0.05 points (and zero-wide interval bars)."""
    from food_tasks.report.beyond import beyond_blocks
    from food_tasks.report.charts import Charts
    from food_tasks.report.runs import Run
    from food_tasks.report.spec import spec_for

    task = "worldcuisines_mcq_task1a_sample"
    zero = {"value": 0.0, "se": 0.0, "low": 0.0, "high": 0.0, "clusters": 3}
    drawn = _capture_charts(monkeypatch)
    metrics = {task: {"xling_all_correct": 0.0, "xling_gap_to_en": {"fr": zero, "yo": zero}}}
    charts = Charts(tmp_path)
    if charts.plt is None:
        pytest.skip("matplotlib is not installed")
    beyond_blocks(spec_for(task), [Run("m", [tmp_path], metrics)], charts)
    xlim, errorbars, title = drawn[f"{task}_m_xling_gap_to_en"]
    assert xlim[0] <= -10 and xlim[1] >= 10 and errorbars == [None]
    assert title.endswith("no intervals: fewer than 30 independent units")


def test_xling_units_pool_the_language_tasks_of_one_family():
    # FoodieQA / DiningBench keep each language in a task of its own: the items of a setting are pooled over the
    # run's tasks of the same view (another setting's items stay out).
    from types import SimpleNamespace

    view = consistency.View(
        item=stats.column("qa_id"),
        lang=stats.column("lang"),
        correct=stats.field("correct"),
        cluster=stats.column("qa_id"),
        choice=stats.column("pred"),
        family=stats.column("setting"),
    )
    table = SimpleNamespace(consistency=view)
    by_lang = {lang: [dict(r, setting="s") for r in RUN_A if r["lang"] == lang] for lang in ("en", "fr")}
    other = [{"qa_id": "q9", "lang": "fr", "correct": 1, "pred": "A", "setting": "t"}]
    tasks = {
        "t_en": SimpleNamespace(table=table, records=by_lang["en"]),
        "t_fr": SimpleNamespace(table=table, records=by_lang["fr"] + other),
    }
    run = SimpleNamespace(tasks=list(tasks), task=tasks.get)
    # en + fr of A: q1 right in both, q2 right in both, q3 wrong in both.
    assert sorted(measures.xling_units(run, "t_fr", "all_correct")) == [
        ("q1", "q1", 1.0),
        ("q2", "q2", 1.0),
        ("q3", "q3", 0.0),
    ]
    assert measures.xling_units(run, "t_fr", "agreement") == [("q1", "q1", 1.0), ("q2", "q2", 1.0), ("q3", "q3", 1.0)]
    # The pooling a run does (consistency.measures): the same function, the same mean (2 of 3 items all right).
    pooled = consistency.measures(tasks)["t_fr"]["xling_all_correct"]
    assert pooled.value == 100.0 * 2 / 3 and pooled.n == 3


def test_xling_units_pool_families_with_the_in_run_function(monkeypatch):
    """The offline pooling of a family's language tasks is the run's own (consistency.family_pools), not a copy."""
    from types import SimpleNamespace

    view = consistency.View(
        item=stats.column("qa_id"),
        lang=stats.column("lang"),
        correct=stats.field("correct"),
        cluster=stats.column("qa_id"),
        family=stats.column("setting"),
    )
    table = SimpleNamespace(consistency=view)
    records = [{"qa_id": "q1", "lang": lang, "correct": 1, "setting": "s"} for lang in ("en", "fr")]
    tasks = {t: SimpleNamespace(table=table, records=[r]) for t, r in zip(("t_en", "t_fr"), records)}
    calls, pool = [], consistency.family_pools

    def spy(found):  # type: ignore[no-untyped-def]
        calls.append(sorted(found))
        return pool(found)

    monkeypatch.setattr(consistency, "family_pools", spy)
    run = SimpleNamespace(tasks=list(tasks), task=tasks.get)
    assert measures.xling_units(run, "t_fr", "all_correct") == [("q1", "q1", 1.0)] and calls == [["t_en", "t_fr"]]


def test_report_position_bias_shows_where_a_task_reports_it_and_says_whose_tasks_do_not(tmp_path):
    """Issue 29.5: "no multiple-choice task in these runs" was printed under a benchmark without position_bias
    although the runs held multiple-choice tasks of other benchmarks (they had their section)."""
    from food_tasks.report.beyond import beyond_blocks
    from food_tasks.report.charts import Charts
    from food_tasks.report.runs import Run
    from food_tasks.report.spec import spec_for

    mcq, ranking = "worldcuisines_mcq_sample_1a_nocontext", "fambench_task2_ctc_sample"
    # Chosen: position 1 three times, 2 once; gold: 1, 2, 3, 4 once each.
    breakdown = {
        str(k): {"chosen_share": chosen, "gold_share": 25.0} for k, chosen in ((1, 75.0), (2, 25.0), (3, 0.0), (4, 0.0))
    }
    run = Run(
        "m",
        [tmp_path],
        {mcq: {"acc": 25.0, "position_bias": breakdown, "position_bias_p": 0.05}, ranking: {"ctc": 0.5}},
    )
    charts = Charts(tmp_path)
    blocks = beyond_blocks(spec_for(mcq), [run], charts)
    table = next(b for b in blocks if b[0] == "table" and b[1][0] == "Model" and "p (chi-square)" in b[1])
    # RStd absent from this run's results: a dash; p = 0.05 is no evidence: no position is named
    assert table[2] == [["**m**", f"`{mcq}`", "–", "0.050", "none (p ≥ 0.05)"]]
    run.metrics[mcq]["position_bias_p"] = 0.01
    table = next(b for b in beyond_blocks(spec_for(mcq), [run], charts) if b[0] == "table" and "RStd % ± 95%" in b[1])
    assert table[2] == [["**m**", f"`{mcq}`", "–", "0.010", "1: 75.0 vs 25.0"]]  # most over-chosen: +50 points
    assert ("h", 3, "Position bias (does it prefer a letter?)") in blocks
    assert "Position bias: not shown" not in "\n".join(b[1] for b in blocks if b[0] == "p")
    # FAM-Bench's tasks report no position_bias: the line says so of its tasks, not of the runs.
    notes = [b[1] for b in beyond_blocks(spec_for(ranking), [run], charts) if b[0] == "p"][-1].splitlines()
    assert notes[-1] == (
        "Position bias: not shown, none of these runs' FAM-Bench tasks reports `position_bias` (a multiple-choice "
        "task that picks one of its listed options does)."
    )


@pytest.mark.e2e
def test_compare_pairs_each_model_with_its_own_twin_and_says_where_each_side_comes_from(run_dir, tmp_path):
    """Issue 33.2: two runs of two models, each holding a task and its twin: compare printed every task twice under
    model A (against B's twin and against A's own) with nothing telling the rows apart."""
    from food_tasks.runs import load_run

    data = json.loads(next(run_dir.rglob("*_results.json")).read_text())
    for name, model in (("a", "responses=/x/model_a.jsonl"), ("b", "responses=/x/model_b.jsonl")):
        folder = tmp_path / name
        folder.mkdir()
        for samples in run_dir.rglob("*_samples_*.jsonl"):  # named after the results file, as lmms-eval does
            shutil.copy(samples, folder / f"x_samples_{samples.name.split('_samples_', 1)[1]}")
        (folder / "x_results.json").write_text(json.dumps({**data, "config": {**data["config"], "model_args": model}}))
    a, b = load_run(tmp_path / "a"), load_run(tmp_path / "b")
    assert a.label != b.label
    pairs = [(w.path, wo.path, task) for w, wo, task, _ in measures.gain_pairs([a, b])]
    assert pairs == [(a.path, a.path, TASK), (b.path, b.path, TASK)]  # never A's task against B's twin
    lines = _beyond_lines(a, b, iters=0)
    gains = [line.split() for line in lines if line.strip().startswith("acc ") and "/" in line.split()[1]]
    assert [g[1] for g in gains] == ["A/A", "B/B"]
    assert lines.count(f"model: {a.label}") == 1 and lines.count(f"model: {b.label}") == 1
    assert all(g[2:5] == ["100.00", "50.00", "+50.00"] for g in gains)


@pytest.mark.e2e
def test_compare_says_which_image_gain_it_cannot_compute_without_samples_files(run_dir, tmp_path):
    """Issue 33 leftover: the report named a task whose twin's samples file is missing, compare dropped its image
    gain silently; it says so in one line naming the task, the file it lacks and --log_samples."""
    from food_tasks.runs import load_run

    data = json.loads(next(run_dir.rglob("*_results.json")).read_text())
    shutil.copy(next(run_dir.rglob(f"*_samples_{TASK}.jsonl")), tmp_path / f"x_samples_{TASK}.jsonl")  # no twin's
    (tmp_path / "x_results.json").write_text(json.dumps(data))
    run = load_run(tmp_path)
    lines = _beyond_lines(run, run, iters=0)
    said = [line for line in lines if line.startswith(f"{TASK} ({run.label}): no image gain")]
    assert len(said) == 1 and "Image gain (with the image minus without it)" in lines, lines
    text = " ".join(" ".join(lines[lines.index(said[0]) :][:3]).split())  # the sentence may wrap
    assert f"no samples file of {TWIN} beside " in text and "(run with --log_samples)" in text
    assert max(map(len, lines)) <= 120


@pytest.mark.e2e
def test_the_report_gives_compares_reason_for_a_missing_image_gain(run_dir, tmp_path):
    """The report said "samples files missing" whatever the cause; it names the file it lacks, as compare does."""
    from food_tasks.report.beyond import beyond_blocks
    from food_tasks.report.charts import Charts
    from food_tasks.report.runs import load_runs
    from food_tasks.report.spec import spec_for

    data = json.loads(next(run_dir.rglob("*_results.json")).read_text())
    shutil.copy(next(run_dir.rglob(f"*_samples_{TASK}.jsonl")), tmp_path / f"x_samples_{TASK}.jsonl")  # no twin's
    (tmp_path / "x_results.json").write_text(json.dumps(data))
    blocks = beyond_blocks(spec_for(TASK), load_runs([tmp_path]), Charts(tmp_path / "charts"))
    text = " ".join(str(b[1]) for b in blocks if b[0] in ("p", "note")) + " ".join(
        str(b) for b in blocks if isinstance(b, str)
    )
    assert f"no samples file of {TWIN} beside " in text and "(run with --log_samples)" in text, blocks


def test_p_values_print_with_sensible_precision():
    """Issue 33.4: compare printed p-values such as 4.44e-310."""
    from food_tasks.stats.confidence import p_text

    assert [p_text(x) for x in (4.44e-310, 0.0, 3.2e-5, 0.04937, 1.0)] == [
        "< 1e-6",
        "< 1e-6",
        "3.2e-05",
        "0.049",
        "1.000",
    ]
    assert [p_text(x) for x in (None, float("nan"), True, "absent: not testable: 1 position")] == [
        "n/a",
        "n/a",
        "n/a",
        "not testable",
    ]


def test_report_over_chosen_needs_evidence():
    """Issue 33.8: p = 1.000 came with "Most over-chosen: 1: 33.3 vs 33.3"."""
    from food_tasks.report.beyond import over_chosen

    even = {str(k): {"chosen_share": 100 / 3, "gold_share": 100 / 3} for k in (1, 2, 3)}
    assert over_chosen(even, 1.0) == "none (p ≥ 0.05)"
    assert over_chosen(even, 0.001) == "none"  # nothing chosen more often than it is gold
    assert over_chosen(even, "absent: not testable: fewer than two positions") == "– (not testable)"
    skewed = {"A": {"chosen_share": 60.0, "gold_share": 25.0}, "B": {"chosen_share": 40.0, "gold_share": 75.0}}
    assert over_chosen(skewed, 0.001) == "A: 60.0 vs 25.0" and over_chosen(skewed, None) == "–"


@pytest.mark.e2e
def test_report_pairs_tasks_not_groups_for_the_image_gain(run_dir, tmp_path):
    """Issue 33.7: a run made with --log_samples holding a group and its image-free group was told "No image gain
    for <group>: samples files missing (--log_samples)": a group has no samples file of its own."""
    from food_tasks.report.beyond import beyond_blocks
    from food_tasks.report.charts import Charts
    from food_tasks.report.runs import load_runs
    from food_tasks.report.spec import spec_for

    data = json.loads(next(run_dir.rglob("*_results.json")).read_text())
    group, twin_group = "diningbench_cls_sample_grp", "diningbench_cls_sample_noimage_grp"
    results = {**data["results"], group: {"alias": group}, twin_group: {"alias": twin_group}}
    subtasks = {**(data.get("group_subtasks") or {}), group: [TASK], twin_group: [TWIN]}
    for samples in run_dir.rglob("*_samples_*.jsonl"):  # named after the results file, as lmms-eval does
        shutil.copy(samples, tmp_path / f"x_samples_{samples.name.split('_samples_', 1)[1]}")
    (tmp_path / "x_results.json").write_text(json.dumps({**data, "results": results, "group_subtasks": subtasks}))
    blocks = beyond_blocks(spec_for(TASK), load_runs([tmp_path]), Charts(tmp_path / "charts"))
    text = "\n".join(str(b[1]) for b in blocks if b[0] == "p")
    assert "No image gain" not in text and "samples files missing" not in text
    table = next(b for b in blocks if b[0] == "table" and "Image gain" in b[1])
    assert [row[1] for row in table[2]] == [f"`{TASK}`"] and table[2][0][7] == "n/a"  # 2 units: no interval


@pytest.mark.e2e
def test_a_run_with_a_task_and_its_twin_writes_the_image_gain_into_its_results(run_dir):
    """Issue 33.8: docs/beyond_accuracy.md says every measure is in the results JSON; image_gain was not."""
    row = json.loads(next(run_dir.rglob("*_results.json")).read_text())["results"][TASK]
    # paired by document: (1 - 1, 1 - 0) -> +50 points over 2 documents, 2 units; without the image 1 of 2 right
    assert row["image_gain,none"] == pytest.approx(50.0) and row["answerable_without_image,none"] == pytest.approx(50.0)
    assert (row["image_gain_n,none"], row["image_gain_clusters,none"]) == (2, 2)
    # SE of the paired difference (linearised): e_i = (a_i - 1) / 2 - (b_i - 1/2) / 2 = (-1/4, +1/4), CR1 factor 2:
    # sqrt(2 * (1/16 + 1/16)) = 1/2, in percent 50
    assert row["image_gain_stderr,none"] == pytest.approx(50.0)


def test_the_reports_circular_table_takes_the_declared_base_task(tmp_path):
    """Issue 34.2: the report found a rotated task's base by cutting "_circular" out of its name; it reads the
    task's declaration (metadata rotation_of), so a base that the name does not spell is still found."""
    from results_files import write_results

    from food_tasks.report.beyond import _circular
    from food_tasks.report.runs import load_runs

    path = write_results(
        tmp_path / "r" / "x_results.json",
        "pretrained=m/a",
        {
            "foodieqa_sivqa_en_p3": {"acc": 40.0},
            "foodieqa_sivqa_en_rotated": {"acc": 30.0, "circular_acc": 10.0, "rotation_mean_acc": 30.0},
        },
    )
    data = json.loads(path.read_text())
    data["configs"]["foodieqa_sivqa_en_rotated"]["metadata"]["rotation_of"] = "foodieqa_sivqa_en_p3"
    path.write_text(json.dumps(data))
    (run,) = load_runs([path])
    blocks, _ = _circular(None, [(run, ["foodieqa_sivqa_en_p3", "foodieqa_sivqa_en_rotated"])], None)
    table = next(b for b in blocks if b[0] == "table")
    assert [row[1] for row in table[2]] == ["`foodieqa_sivqa_en_rotated`"] and table[2][0][2].startswith("40.00")
