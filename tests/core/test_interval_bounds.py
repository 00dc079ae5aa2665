"""Intervals that respect their bounds (issue 44): a proportion's normal interval that would leave 0-100 % becomes
its Wilson interval over the units its standard error is worth, RStd (skewed) always takes the percentile interval
of its cluster bootstrap, a non-negative statistic that is not a proportion takes that percentile interval where the
normal one crosses 0; each says which interval it is, and each is a function of the set of documents."""

from __future__ import annotations

import json
import math
import random
import re
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from food_tasks.hooks import rotation
from food_tasks.report.cells import with_interval
from food_tasks.stats import consistency, intervals
from food_tasks.stats import uncertainty as stats
from food_tasks.stats.confidence import wilson_effective


def test_wilson_effective_by_hand():
    # 1.0 % with a standard error of 1.0 point: p = 0.01, n_eff = 0.01 * 0.99 / 0.01^2 = 99 units; Wilson (z 1.96):
    # centre (0.01 + z^2/198) / (1 + z^2/99) = 0.028303, half z sqrt(0.0001 + z^2/39204) / (1 + z^2/99) = 0.026549
    low, high = wilson_effective(1.0, 1.0, 100.0, 100)
    assert low == pytest.approx(0.17550, abs=1e-4) and high == pytest.approx(5.48511, abs=1e-4)
    # at the bound (0 of 12 clusters, standard error 0): the units themselves, [0, z^2 / (12 + z^2)]
    low, high = wilson_effective(0.0, 0.0, 100.0, 12)
    assert low == 0.0 and high == pytest.approx(100 * 3.841459 / (12 + 3.841459), abs=1e-4)
    low, high = wilson_effective(1.0, 0.0, 1.0, 5)  # 5 of 5 on a [0, 1] scale
    assert high == 1.0 and low == pytest.approx(5 / (5 + 3.841459), abs=1e-5)
    assert wilson_effective(math.nan, 1.0, 100.0, 10) is None


def test_choose_keeps_the_normal_interval_inside_the_range():
    found = intervals.choose(50.0, 5.0, (0.0, 100.0), 40)
    assert found.method == intervals.NORMAL and found.low == pytest.approx(50 - 9.79982) and found.high < 100


def test_choose_a_proportion_that_would_cross_zero_gets_wilson():
    found = intervals.choose(1.0, 1.0, (0.0, 100.0), 100)
    assert found.method == intervals.WILSON and found.low == pytest.approx(0.17550, abs=1e-4)


def test_choose_a_nonnegative_statistic_takes_the_percentile_of_its_draws():
    draws = np.array([0.5, 1.0, 2.0, 3.0, 9.0] * 20 + [np.nan] * 10)  # NaN resamples are left out
    found = intervals.choose(1.0, 2.0, (0.0, math.inf), 30, draws, 110)
    assert found.method == intervals.PERCENTILE and found.low == pytest.approx(0.5) and found.high == pytest.approx(9.0)
    # without resamples the normal interval is cut at 0 and says so
    cut = intervals.choose(1.0, 2.0, (0.0, math.inf), 30)
    assert cut.method == intervals.CUT and cut.low == 0.0 and cut.high == pytest.approx(1 + 1.959964 * 2)


def test_choose_a_skewed_statistic_always_takes_the_percentile_even_above_its_value():
    draws = np.linspace(3.0, 16.0, 1000)
    found = intervals.choose(2.6, 2.4, (0.0, math.inf), 100, draws, 1000, skewed=True)
    assert found.method == intervals.PERCENTILE and found.low > 2.6  # RStd is biased upward on few answers


def _rstd_records(n_dishes: int = 40) -> tuple[list[dict], list[str]]:
    rng = random.Random(7)
    records, clusters = [], []
    for dish in range(n_dishes):
        for lang in range(3):
            gold = rng.randrange(4)
            chosen = gold if rng.random() < 0.8 else rng.randrange(4)
            records.append({"chosen": chosen, "gold": gold, "id": (dish, lang)})
            clusters.append(f"d{dish}")
    return records, clusters


def test_rstd_interval_is_the_percentile_bootstrap_nonnegative_and_order_free():
    spread = rotation.RecallSpread(stats.column("chosen"), stats.column("gold"), 4)
    records, clusters = _rstd_records()
    est = stats.estimate(spread, records, clusters, 400, seed=11)
    assert est.interval.method == intervals.PERCENTILE and 0 <= est.interval.low < est.interval.high
    # the same documents in another order: the same interval, bit for bit
    order = list(range(len(records)))
    random.Random(3).shuffle(order)
    again = stats.estimate(spread, [records[i] for i in order], [clusters[i] for i in order], 400, seed=11)
    assert (again.interval.low, again.interval.high) == (est.interval.low, est.interval.high)


def test_a_clustered_proportion_near_zero_gets_a_wilson_interval_inside_0_100():
    # 1 right of 100 independent dishes: 1.0 %, SE 1.0 point; the normal interval [-0.96, 2.96] crosses 0
    records = [{"x": 1.0}] + [{"x": 0.0}] * 99
    est = stats.estimate(stats.mean(stats.field("x"), 100.0, binary=True), records, list(range(100)))
    assert est.interval.method == intervals.WILSON
    assert est.interval.low == pytest.approx(0.17550, abs=1e-4) and est.interval.high == pytest.approx(5.4851, abs=1e-3)
    # every dish right: 100 % with SE 0 -> Wilson over the 100 dishes, [96.30, 100]
    full = stats.estimate(stats.mean(stats.field("x"), 100.0, binary=True), [{"x": 1.0}] * 100, list(range(100)))
    assert full.interval.method == intervals.WILSON and full.interval.high == 100.0
    assert full.interval.low == pytest.approx(100 * 100 / (100 + 3.841459), abs=1e-3)
    # a score that is only 0 everywhere (not declared 0/1: a CIDEr of 0) keeps its 0-wide normal interval, which
    # the report shows as "no interval: all units alike"
    flat = stats.estimate(stats.mean(stats.field("x"), 100.0), [{"x": 0.0}] * 5, list(range(5)))
    assert flat.interval.method == intervals.NORMAL and flat.interval.low == flat.interval.high == 0.0


def test_a_nonnegative_mean_error_that_would_cross_zero_takes_the_bootstrap_percentile():
    # mean absolute error 0.5 over 10 clusters, one document at 5 and nine at 0: the normal interval crosses 0
    records = [{"e": 5.0}] + [{"e": 0.0}] * 9
    est = stats.estimate(stats.mean(stats.field("e")), records, list(range(10)), 500, seed=5)
    assert est.interval.method == intervals.PERCENTILE and est.interval.low == 0.0 and est.interval.high <= 5.0


def test_consistency_stat_of_a_rare_event_stays_in_range_and_names_its_interval():
    stat = consistency.mean_stat([(i, i, 1.0 if i == 0 else 0.0) for i in range(100)], 100.0)
    entry = stat.as_dict()
    assert entry["interval"] == intervals.WILSON and entry["low"] >= 0 and entry["high"] <= 100
    # inside the range: the normal interval, no method key (as before)
    plain = consistency.mean_stat([(i, i, float(i % 2)) for i in range(100)], 100.0).as_dict()
    assert "interval" not in plain and plain["low"] == pytest.approx(50 - 1.959964 * plain["se"])


def test_report_cell_prints_the_bounded_interval():
    assert with_interval(2.6, 2.4, 100, 2, proportion=False, bounds=(3.44, 15.49)) == "2.60 [3.44, 15.49]"
    # a proportion whose normal interval would cross 0, without a stored interval: its Wilson interval
    assert with_interval(1.0, 1.0, 100, 2) == "1.00 [0.18, 5.49]"
    assert with_interval(50.0, 1.0, 100, 2) == "50.00 ± 1.96"


# --------------------------------------------------------------------------- every interval the pack prints or stores

SIGNED = ("gain", "gap", "excess", "A - B", "difference", "points", "tau", "kappa")  # differences may be negative
CELL = re.compile(r"^(-?\d+\.\d+) (?:± (\d+\.\d+)|\[(-?\d+\.\d+), (-?\d+\.\d+)\])")
GOLDEN = Path(__file__).resolve().parents[1] / "pins" / "golden"


def _report_intervals(markdown: str) -> list[tuple[str, float, float, float]]:
    """``(column header, value, low, high)`` of every table cell with an interval."""
    found, header = [], None
    for line in markdown.splitlines():
        if not line.startswith("|"):
            header = None
            continue
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if header is None:
            header = cells
            continue
        for title, cell in zip(header, cells):
            if (m := CELL.match(cell)) is not None:
                value = float(m.group(1))
                if m.group(2) is not None:
                    low, high = value - float(m.group(2)), value + float(m.group(2))
                else:
                    low, high = float(m.group(3)), float(m.group(4))
                found.append((title, value, low, high))
    return found


def report_problems(markdown: str) -> list[str]:
    """Intervals of a non-negative statistic below 0, or of a percentage above 100, in a report's tables."""
    bad = []
    for title, value, low, high in _report_intervals(markdown):
        if any(word in title for word in SIGNED) or value < 0:
            continue
        if low < -1e-9 or ("%" in title and high > 100 + 1e-9):
            bad.append(f"{title}: {value} [{low}, {high}]")
    return bad


def results_problems(data: dict) -> list[str]:
    """Intervals (stored, else value +- 1.96 SE) of percentages outside 0-100 in a results JSON."""
    from food_tasks.lmms.facts import tables_for

    bad = []
    for section in ("results", "groups"):
        for task, row in (data.get(section) or {}).items():
            tables = tables_for(task, (data.get("configs") or {}).get(task))
            scales = {name: m.scale for t in tables for name, m in t.items()}
            for key, value in row.items():
                name, _, filter_key = key.partition(",")
                percent = scales.get(name) == "percent" or (
                    not tables and (name.startswith("acc") or name in PROPORTIONS)
                )
                if not percent or not isinstance(value, (int, float)) or isinstance(value, bool):
                    continue
                stored, se = row.get(f"{name}_stderr_ci,{filter_key}"), row.get(f"{name}_stderr,{filter_key}")
                if isinstance(stored, dict):
                    low, high = stored["low"], stored["high"]
                elif isinstance(se, (int, float)) and not isinstance(se, bool):
                    low, high = value - 1.959963984540054 * se, value + 1.959963984540054 * se
                else:
                    continue
                if low < -1e-9 or high > 100 + 1e-9:
                    bad.append(f"{task} {name}: {value} [{low}, {high}]")
    return bad


PROPORTIONS = ("misled_rate", "hint_gain", "context_loss_rate", "misled_rate_same_image", "hint_gain_same_image")


def published_problems(data: Any, path: str = "") -> list[str]:
    """Stored intervals (``low``, ``high``) of the published measures outside 0-100, differences left out."""
    bad = []
    if isinstance(data, dict):
        if {"value", "low", "high"} <= data.keys() and data["low"] is not None and "gap" not in path:
            if "excess" not in path and (data["low"] < 0 or data["high"] > 100):
                bad.append(f"{path}: [{data['low']}, {data['high']}]")
        for key, value in data.items():
            bad += published_problems(value, f"{path}/{key}")
    elif isinstance(data, list):
        for i, value in enumerate(data):
            bad += published_problems(value, f"{path}/{i}")
    return bad


def test_the_published_models_intervals_stay_within_0_100():
    """Issue 44: GPT-4o's Task 2 RStd read 4.55 with [-1.73, 10.82], MolmoE-1B's all-correct 1a 1.0 with
    [-0.96, 2.96] in report_data/worldcuisines_beyond.json."""
    from food_tasks.tasks.registry import PUBLISHED_DIR

    data = json.loads((PUBLISHED_DIR / "worldcuisines_beyond.json").read_text(encoding="utf-8"))
    assert published_problems(data) == []


def test_the_checks_find_intervals_that_leave_their_range():
    table = "| Model | RStd % ± 95% | Image gain |\n|---|---|---|\n| m | 2.60 ± 4.70 | 5.00 ± 9.00 |\n"
    (found,) = report_problems(table)
    assert found.startswith("RStd % ± 95%: 2.6 [-2.1")
    assert report_problems(table.replace("2.60 ± 4.70", "2.60 [3.44, 15.49]")) == []
    assert published_problems({"m": {"value": 1.0, "low": -0.96, "high": 2.96}}) == ["/m: [-0.96, 2.96]"]
    assert published_problems({"misled_excess": {"value": 1.0, "low": -0.96, "high": 2.96}}) == []


@pytest.mark.parametrize("name", ["report.md", "A_results.json", "B_results.json"])
def test_no_pinned_interval_leaves_its_range(name):
    """The pinned outputs of the packaged sample runs (tests/pins/golden: what users see; test_pins checks that they
    are what the pack produces): no interval of a non-negative statistic below 0, none of a percentage above 100."""
    text = (GOLDEN / name).read_text(encoding="utf-8")
    problems = report_problems(text) if name.endswith(".md") else results_problems(json.loads(text))
    assert problems == []


def test_a_gap_to_english_of_zero_everywhere_keeps_its_normal_interval():
    # a difference of two accuracies that is 0 on every item: not a share at 0 % (no Wilson [0, 56.15])
    view = consistency.View(
        item=stats.column("q"), lang=stats.column("lang"), correct=stats.field("ok"), cluster=stats.column("q")
    )
    records = [{"q": q, "lang": lang, "ok": 0} for q in range(3) for lang in ("en", "fr")]
    gap = consistency.gap_to_reference(records, view)["fr"]
    assert gap["value"] == 0.0 and gap["low"] == gap["high"] == 0.0 and "interval" not in gap


# --------------------------------------------------------------------------- the Judges section and the charts' bars

FIGURE = re.compile(r"%: (-?\d+\.\d+) (?:± (\d+\.\d+)|\[(-?\d+\.\d+), (-?\d+\.\d+)\])")


def _judged_results(tmp_path: Path, stderr: dict[str, tuple[float, int]], **metrics: Any) -> Path:
    """A two-judge run's results file (as tests/core/test_judges_report.py writes them), its standard errors and
    clusters set by hand."""
    from results_files import write_results

    figure = {"value": 90.0, "interval": [60.0, 98.0], "se": None, "n": 5, "clusters": 5}
    info = {
        "model": "judge-a",
        "judges": ["judge-a", "judge-b"],
        "repeats": 3,
        "per_judge": {n: {"judge_acc": figure, "flip_rate": figure} for n in ("judge-a", "judge-b")},
    }
    path = write_results(
        tmp_path / "a" / "results.json", "pretrained=m", {"my_judged_task": {"judge_info": info, **metrics}}
    )
    data = json.loads(path.read_text())
    for metric, (se, clusters) in stderr.items():
        data["results"]["my_judged_task"][f"{metric}_stderr,none"] = se
        data["results"]["my_judged_task"][f"{metric}_clusters,none"] = clusters
    path.write_text(json.dumps(data))
    return path.parent


def test_the_judges_section_keeps_its_rates_within_0_100(tmp_path):
    """Issue 44: the judge figures that are results keys read ``value ± 1.96 SE``: 96.00 ± 7.84 (5 dishes) reached
    103.84 %, a flip rate of 2.00 ± 3.92 went below 0. Now the tables' rule: Wilson over the units the SE is worth."""
    from food_tasks.report import build_report

    stderr = {"judge_acc": (4.0, 5), "judge_flip_rate": (2.0, 5), "judge_agreement": (10.0, 5), "judge_kappa": (0.3, 5)}
    run = _judged_results(tmp_path, stderr, judge_acc=96.0, judge_flip_rate=2.0, judge_agreement=60.0, judge_kappa=0.9)
    build_report([run], tmp_path / "report", charts=False)
    section = (tmp_path / "report" / "report.md").read_text(encoding="utf-8").split("\n## Judges\n", 1)[1]
    found = [m.groups() for m in FIGURE.finditer(section)]
    assert len(found) >= 3
    for value, half, low, high in found:
        low, high = (float(value) - float(half), float(value) + float(half)) if half else (float(low), float(high))
        assert 0 <= low <= float(value) <= high <= 100, (value, low, high)
    # 96 % with SE 4: n_eff = 0.96 * 0.04 / 0.04^2 = 24 units; Wilson (z 1.96): centre (0.96 + z^2/48) / (1 + z^2/24)
    # = 0.896529, half z sqrt(0.96 * 0.04 / 24 + z^2 / 2304) / (1 + z^2/24) = 0.096570: [80.00, 99.31]
    assert "its accuracy, %: 96.00 [80.00, 99.31]†" in section
    # 2 % with SE 2: n_eff = 0.02 * 0.98 / 0.02^2 = 49 units; Wilson: [0.35, 10.63]
    assert "flip rate over its repeats, %: 2.00 [0.35, 10.63]†" in section
    # inside the range: the normal interval as before; kappa (-1..1) is no proportion: 0.9 ± 0.588 stays
    assert "%: 60.00 ± 19.60†;" in section and "kappa: 0.900 ± 0.588†" in section


def test_the_curve_chart_draws_the_tables_interval_within_0_100(tmp_path, monkeypatch):
    """Issue 44: the curve's error bars (and its table) were ``value ± 1.96 SE``: 97 % with SE 3 over 4 clusters
    drew a bar to 102.88 %. Now they are the tables' interval (Wilson here), drawn asymmetric."""
    pytest.importorskip("matplotlib")
    from results_files import write_results

    from food_tasks.report.build import _curve_blocks
    from food_tasks.report.cells import Placed
    from food_tasks.report.charts import Charts
    from food_tasks.report.spec import CurveSpec, Variant
    from food_tasks.runs import load_runs

    path = write_results(tmp_path / "a" / "results.json", "pretrained=m", {"t_1": {"acc": 97.0}, "t_2": {"acc": 50.0}})
    data = json.loads(path.read_text())
    for task, se in (("t_1", 3.0), ("t_2", 5.0)):
        data["results"][task]["acc_stderr,none"] = se
        data["results"][task]["acc_clusters,none"] = 4
    path.write_text(json.dumps(data))
    curve = CurveSpec("Accuracy by views", "views", (("1", "t_1"), ("2", "t_2")), "acc", "Acc (%)")
    charts, drawn = Charts(tmp_path / "out"), []
    monkeypatch.setattr(Charts, "_save", lambda self, fig, name: drawn.append(fig) or "charts/x.png")
    blocks = _curve_blocks(curve, load_runs([tmp_path / "a"]), Placed(Variant("full data")), charts)
    (fig,) = drawn
    segments = [s for c in fig.axes[0].containers for s in c.lines[2][0].get_segments()]
    spans = sorted((float(s[:, 1].min()), float(s[:, 1].max())) for s in segments)
    assert len(spans) == 2 and all(0 <= low and high <= 100 for low, high in spans)
    # 97 % with SE 3: n_eff = 0.97 * 0.03 / 0.03^2 = 32.33 units; Wilson: [84.54, 99.48]
    assert spans[1] == (pytest.approx(84.538, abs=1e-3), pytest.approx(99.480, abs=1e-3))
    assert spans[0] == (pytest.approx(50 - 9.79982), pytest.approx(50 + 9.79982))  # inside: the normal one
    table = next(b for b in blocks if b[0] == "table")
    assert table[2] == [["1", "97.00 [84.54, 99.48]"], ["2", "50.00 ± 9.80"]]
