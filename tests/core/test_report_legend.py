"""Issue 33 (items 5, 6 and 7), the report: intervals only where they mean something, one reading of an undefined
metric, the legend said once, links that travel with the one-file HTML, all-zero charts that say so, and regional
sections titled by their alias."""

from __future__ import annotations

import json
import math
import re
from pathlib import Path

from results_files import write_results

from food_tasks import report
from food_tasks.report.cells import fmt
from food_tasks.report.spec import Column, Source

CAPTION = "food500cap_caption_sample"


def _with_errors(path: Path, errors: dict[str, dict[str, tuple[float, int]]]) -> None:
    """Gives metrics of a written results file a standard error and a cluster count: {task: {metric: (se, k)}}."""
    data = json.loads(path.read_text())
    for task, metrics in errors.items():
        for metric, (se, clusters) in metrics.items():
            for section in ("results", "groups"):  # a group is in both
                if task in data[section]:
                    data[section][task][f"{metric}_stderr,none"] = se
                    data[section][task][f"{metric}_clusters,none"] = clusters
    path.write_text(json.dumps(data))


def _caption_run(tmp_path: Path) -> Path:
    metrics = {
        "mean_caption_words": 3.0,
        "bleu4": 0.0,
        "meteor": 12.5,
        "rouge_l": 0.0,
        "cider": 0.0,
        "clipscore": "absent: no CLIP model given",
        "sla_accurate": 0.0,
        "sla_relaxed": 100.0,
        "parse_fail_rate": 0.0,
        "image_missing": 0,
    }
    path = write_results(tmp_path / "r" / "a_results.json", "pretrained=m/a", {CAPTION: metrics})
    zero = (0.0, 5)  # five images, every one scored alike
    _with_errors(
        path,
        {
            CAPTION: {
                "bleu4": zero,
                "meteor": (2.0, 5),
                "rouge_l": zero,
                "cider": zero,
                "sla_accurate": zero,
                "sla_relaxed": zero,
                "parse_fail_rate": zero,
            }
        },
    )
    return tmp_path / "r"


def test_caption_metrics_get_their_interval_or_none_never_a_wilson_interval(tmp_path):
    """Issue 33.5: CIDEr, METEOR, ROUGE-L and BLEU-4 are not proportions: no 0-100 Wilson interval on them."""
    md = report.build_report([_caption_run(tmp_path)], tmp_path / "rep", charts=False)["markdown"].read_text()
    none = "0.00 (no interval: all units alike)†"
    # Wilson's upper bound at 0 of 5: z^2 / (5 + z^2) = 3.8415 / 8.8415 = 43.45%; at 5 of 5 the lower is 56.55%.
    # METEOR keeps its own interval: 1.96 x 2.0 = 3.92.
    row = (
        f"| **m/a** | official = robust | 3.00 | {none} | 12.50 ± 3.92† | {none} | {none} | absent [1] | "
        "0.00 [0.00, 43.45]† | 100.00 [56.55, 100.00]† | 0.00 [0.00, 43.45]† | 0 |"
    )
    assert row in md, md
    assert f"| **m/a** | CIDEr | {none} | 0.00 | 5 |" in md  # the uncertainty table reads the cell alike
    # A score at the top of its scale that is not a proportion: no interval either (an F1 of 1, an MRR of 1).
    from food_tasks.report.cells import column_interval

    f1 = Column("f1", "F1", (Source("t", "f1"),), 4, proportion=False)
    assert column_interval(1.0, 0.0, 5, f1) == "1.0000 (no interval: all units alike)"
    assert column_interval(1.0, 0.0, 5, Column("acc", "Acc", (Source("t", "acc"),), 4)) == "1.0000 [0.5655, 1.0000]"


def test_null_and_nan_metrics_read_undefined_everywhere(tmp_path):
    """Issue 33.6: an undefined metric, written NaN or (strict JSON) null, reads "undefined" in every table: the
    main table's numbered reason, the heat map, the context table; never a bare NaN, never the missing mark."""
    from food_tasks.benchmarks.fambench.report import CTC_UNDEFINED

    group = "worldcuisines_mcq_sample"
    for name, undefined in (("nan", float("nan")), ("null", None)):
        tasks = {"fambench_task2_ctc_sample": {"ctc": undefined, "top1_acc": 0.0, "mrr": 0.0, "image_missing": 0}}
        groups = {group: {"acc": 10.0, "misled_rate": undefined, "hint_gain": 0.0}}
        write_results(tmp_path / name / "a" / "x_results.json", "pretrained=m/a", tasks, groups)
        write_results(tmp_path / name / "b" / "x_results.json", "pretrained=m/b", tasks, groups)
        md = report.build_report([tmp_path / name], tmp_path / f"rep_{name}", charts=False)["markdown"].read_text()
        assert "| **m/a** | baseline | robust | – | – | – | 0.00 | 0.0000 | undefined [1] |" in md, name
        assert f"undefined [1]: {CTC_UNDEFINED}" in md, name
        assert "| m/a | 10.00 | 0.00 | undefined |" in md, name  # heat map: Avg MCQ, T2 Acc, CTC
        # context sensitivity: misled rate, context loss, misled excess, hint gain, the same-image pair
        assert f"| **m/a** | `{group}` | undefined | – | – | 0.00 | – | – |" in md, name
        assert "NaN" not in md, name
    assert fmt(math.nan, 2) == "undefined" and fmt(None, 2) == "–"


def _interval_runs(tmp_path: Path) -> Path:
    tasks = {
        "worldcuisines_mcq_sample_1a_nocontext": {"acc": 50.0, "acc_official": 50.0, "invalid_rate": 0.0},
        "regional_x": {"acc": 40.0, "acc_by_region": {"EA": 40.0}, "n_by_region": {"EA": 5}},
    }
    path = write_results(tmp_path / "r" / "x_results.json", "pretrained=m/a", tasks)
    errors = {"acc": (5.0, 12), "acc_official": (5.0, 12), "invalid_rate": (0.0, 12)}
    _with_errors(path, {"worldcuisines_mcq_sample_1a_nocontext": errors, "regional_x": {"acc": (4.0, 40)}})
    return tmp_path / "r"


def test_interval_notes_are_said_once_and_the_html_links_only_to_itself(tmp_path):
    """Issue 33.7: the interval, dagger and Wilson paragraphs once (the legend), each table pointing to it; the
    one-file HTML links nothing that stays behind (docs/error_bars.md is named in words)."""
    made = report.build_report([_interval_runs(tmp_path)], tmp_path / "rep", charts=False)
    md, page = made["markdown"].read_text(), made["html"].read_text()
    for note in (report.INTERVAL_NOTE, report.FEW_NOTE, report.BINOMIAL_NOTE):
        assert md.count(note) == 1, note
    assert md.index("## How to read this report") < md.index("## WorldCuisines")
    assert md.count(report.MARKS_NOTE) == 3  # under the main table, the regional table and its breakdown
    assert "see [how to read this report](#how-to-read-this-report)." in md  # a link in Markdown too
    hrefs = re.findall(r"href='([^']*)'", page)
    ids = set(re.findall(r" id='([^']+)'", page))
    assert hrefs and all(h.startswith("#") and h[1:] in ids for h in hrefs), hrefs
    assert "docs/error_bars.md of the food-tasks source" in page and "href='docs/" not in page


def test_a_gap_chart_whose_bars_are_all_zero_says_so(tmp_path, monkeypatch):
    """Issue 33.7: a bar chart whose bars all have zero length (gap to English, 0 everywhere) carries the same
    "all values 0" note as the per-language charts, whoever drew it; a chart with a bar says nothing."""
    texts: dict[str, list[str]] = {}
    save = report.Charts._save

    def capture(self, fig, name):  # type: ignore[no-untyped-def]
        found = save(self, fig, name)
        texts[name] = [t.get_text() for ax in fig.axes for t in ax.texts]
        return found

    monkeypatch.setattr(report.Charts, "_save", capture)
    zero = {"value": 0.0, "low": 0.0, "high": 0.0, "se": 0.0}
    task = "worldcuisines_mcq_sample_1a_nocontext"
    gaps = {
        task: {"acc": 0.0, "xling_all_correct": 0.0, "xling_gap_to_en": {"id_formal": zero, "ja_formal": zero}},
        "worldcuisines_mcq_sample_1b_contextualized": {
            "acc": 0.0,
            "xling_all_correct": 0.0,
            "xling_gap_to_en": {"id_formal": {**zero, "value": -20.0, "low": -30.0, "high": -10.0}},
        },
    }
    write_results(tmp_path / "r" / "x_results.json", "pretrained=m/a", gaps)
    report.build_report([tmp_path / "r"], tmp_path / "rep")
    assert texts[f"{task}_m/a_xling_gap_to_en"] == ["all values 0"]
    assert texts["worldcuisines_mcq_sample_1b_contextualized_m/a_xling_gap_to_en"] == []
    # the charts that said so before say it once
    assert report.Charts(tmp_path).language_bars({"run": {"en": 0.0}}, "t", "zero")
    assert texts["zero"].count("all values 0") == 1


def test_regional_section_is_titled_by_its_alias_and_says_what_its_rows_are(tmp_path):
    """Issue 33.7: a regional task's section is titled as lmms-eval's table names it (its task_alias); a report of
    regional tasks only does not speak of official and robust rows it does not have."""
    tasks = {"regional_x": {"acc": 40.0}, "regional_y": {"acc": 50.0}}
    write_results(
        tmp_path / "r" / "x_results.json", "pretrained=m/a", tasks, aliases={"regional_x": "Dishes of Java (MCQ)"}
    )
    md = report.build_report([tmp_path / "r"], tmp_path / "rep", charts=False)["markdown"].read_text()
    assert "## Dishes of Java (MCQ) (`regional_x`)\n" in md
    assert "## Task `regional_y`\n" in md  # no alias of its own (lmms-eval writes the task's name)
    assert "*official*" not in md and "robust" not in md
    assert "one scorer, so one value per run and no paper rows" in md


def test_a_zero_standard_error_detects_no_difference(tmp_path, monkeypatch):
    """Two runs that scored every unit alike: the paired standard error of A - B is 0, and "0.00" would claim that
    any difference is detectable; the report says there is no figure, as it does for a single run."""
    from types import SimpleNamespace

    from food_tasks.report import uncertainty
    from food_tasks.stats.uncertainty import Comparison

    group = "worldcuisines_mcq_sample"
    for name in ("a", "b"):
        path = write_results(
            tmp_path / "r" / name / "x_results.json", f"pretrained=m/{name}", {}, {group: {"acc": 0.0}}
        )
        _with_errors(path, {group: {"acc": (0.0, 3)}})
    flat = Comparison(0.0, 0.0, 0.0, 0.0, 1.0, 6, 3, 0.0, "clustered analytic")

    def pairs(spec, runs, suffix):  # type: ignore[no-untyped-def]
        column = next(c for c in spec.tables[0].columns if c.key == "avg_mcq")
        return [(runs[0], runs[1], column, group, SimpleNamespace(comparison=flat, note=""))]

    monkeypatch.setattr(uncertainty, "_pair_results", pairs)
    md = report.build_report([tmp_path / "r"], tmp_path / "rep", charts=False)["markdown"].read_text()
    none = "n/a (standard error 0)"
    assert f"| **m/a** | Avg MCQ | 0.00 [0.00, 56.15]† | 0.00 | 3 | {none}† vs m/b |" in md
    assert f"| m/a vs m/b | Avg MCQ | +0.00 | n/a | n/a | 6 (3) | {none} |" in md  # 3 units: no interval or p


def _paired_report(tmp_path: Path, monkeypatch, comparison) -> str:  # type: ignore[no-untyped-def]
    """The report of two runs of WorldCuisines' MCQ group whose paired comparison is ``comparison``."""
    from types import SimpleNamespace

    from food_tasks.report import uncertainty

    group = "worldcuisines_mcq_sample"
    for name in ("a", "b"):
        path = write_results(
            tmp_path / "r" / name / "x_results.json", f"pretrained=m/{name}", {}, {group: {"acc": 50.0}}
        )
        _with_errors(path, {group: {"acc": (5.0, comparison.clusters)}})

    def pairs(spec, runs, suffix):  # type: ignore[no-untyped-def]
        column = next(c for c in spec.tables[0].columns if c.key == "avg_mcq")
        return [(runs[0], runs[1], column, group, SimpleNamespace(comparison=comparison, note=""))]

    monkeypatch.setattr(uncertainty, "_pair_results", pairs)
    return report.build_report([tmp_path / "r"], tmp_path / "rep", charts=False)["markdown"].read_text()


def test_paired_differences_give_no_interval_or_p_below_the_units_for_a_verdict(tmp_path, monkeypatch):
    """Issue 33.2/33.5: the report's Paired differences printed a normal interval on 3 units (here past +100 points,
    with p = 4.44e-310) beside "too few units to tell"; it follows food-tasks compare: n/a for both."""
    from food_tasks.stats.uncertainty import Comparison

    few = Comparison(77.78, 15.73, 46.95, 108.61, 4.44e-310, 9, 3, 44.0, "clustered paired")
    md = _paired_report(tmp_path, monkeypatch, few)
    assert "| m/a vs m/b | Avg MCQ | +77.78 | n/a | n/a | 9 (3) | 44.00 | too few units to tell |" in md
    assert "108.61" not in md and "4.44e-310" not in md


def test_paired_differences_print_interval_and_p_from_the_units_for_a_verdict(tmp_path, monkeypatch):
    """From 30 units on, the interval and the p-value as food-tasks compare prints them (p below 1e-6: '< 1e-6',
    was '4.44e-310')."""
    from food_tasks.stats.uncertainty import Comparison

    many = Comparison(10.0, 1.0, 8.04, 11.96, 4.44e-310, 400, 40, 4.8, "clustered paired")
    md = _paired_report(tmp_path, monkeypatch, many)
    assert "| m/a vs m/b | Avg MCQ | +10.00 | [+8.04, +11.96] | < 1e-6 | 400 (40) | 4.80 | m/a > m/b |" in md
