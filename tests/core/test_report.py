"""`food-tasks report`: tables beside the papers' numbers, comparability flags, charts, reference data."""

from __future__ import annotations

import base64
import json
import re
from pathlib import Path

import pytest
from results_files import write_results

from food_tasks import report
from food_tasks.cli import main as cli_main
from food_tasks.report import spec as report_spec

WC_SUBS = ("1a_nocontext", "1b_contextualized", "1c_adversarial", "2_location")
CONDITIONS = ("type 2 diabetes", "hypertension", "gerd", "heart failure", "ckd", "gout")


def wc_tasks(base: float) -> tuple[dict, dict]:
    tasks = {}
    for i, sub in enumerate(WC_SUBS):
        acc = base + i
        langs = {
            lang: {"n": 500, "acc": acc + d, "acc_official": round(acc + d - 0.5, 2), "invalid_rate": 1.0 + d}
            for lang, d in (("en", 5.0), ("zh_cn", 0.0), ("yo", -5.0))
        }
        tasks[f"worldcuisines_mcq_{sub}"] = {
            "acc": acc,
            "acc_official": acc - 0.5,
            "invalid_rate": 1.0,
            "per_language": langs,
        }
        oeq_langs = {
            lang: {"n": 500, "acc_multi": acc / 4 + d} for lang, d in (("en", 2.0), ("zh_cn", 0.0), ("yo", -2.0))
        }
        tasks[f"worldcuisines_oeq_{sub}"] = {
            "acc_multi": acc / 4,
            "acc_multi_official": acc / 4,
            "per_language": oeq_langs,
            "bertscore_f1": 80.0 + i,
        }
    groups = {
        "worldcuisines_mcq": {"acc": base + 1.5, "acc_official": base + 1.0, "invalid_rate": 1.0},
        "worldcuisines_oeq": {
            "acc_multi": (base + 1.5) / 4,
            "acc_multi_official": (base + 1.5) / 4,
            "bertscore_f1": 81.5,
        },
    }
    return tasks, groups


def fb_tasks(base: float) -> dict:
    tasks = {}
    for k, suffix in enumerate(("", "_cot", "_ki", "_cot_ki")):
        per_condition = {
            c: {"n": 100, "decision_acc": base + 3 * j - k, "rationale_micro_f1": 0.1} for j, c in enumerate(CONDITIONS)
        }
        tasks[f"fambench_task1{suffix}"] = {
            "decision_acc": base + k,
            "decision_acc_official": base + k,
            "rationale_macro_f1": 0.11,
            "rationale_macro_f1_official": 0.1073,
            "rationale_micro_f1": 0.12,
            "rationale_micro_f1_official": 0.1046,
            "invalid_rate": 2.0,
            "image_missing": 3,
            "per_condition": per_condition,
        }
    ctc = {}
    for mode in ("baseline", "cot", "ki", "cot_ki"):
        ctc |= {
            f"ctc_{mode}": 0.9,
            f"ctc_{mode}_official_parsers": 0.9096,
            f"top1_acc_{mode}": 31.3,
            f"mrr_{mode}": 0.5617,
        }
    tasks["fambench_task2_ctc_all"] = {**ctc, "ctc_pool": 950, "image_missing": 2}
    return tasks


@pytest.fixture()
def two_runs(tmp_path) -> Path:
    return make_runs(tmp_path)


def make_runs(tmp_path: Path) -> Path:
    root = tmp_path / "results"
    wc, wc_groups = wc_tasks(60.0)
    write_results(
        root / "qwen7b" / "a_results.json", "model=Qwen/Qwen2-VL-7B-Instruct", {**wc, **fb_tasks(70.0)}, wc_groups
    )
    # The same model, another invocation with other tasks: merged into one run.
    write_results(
        root / "qwen7b" / "b_results.json",
        "model=Qwen/Qwen2-VL-7B-Instruct",
        {"regional_example_mcq": {"acc": 50.0, "parse_fail_rate": 10.0, "acc_by_region": {"EA": 40.0, "WA": 60.0}}},
    )
    wc2, wc2_groups = wc_tasks(40.0)
    write_results(
        root / "qwen2b" / "c_results.json",
        "model=Qwen/Qwen2-VL-2B-Instruct",
        {**wc2, **fb_tasks(60.0)},
        wc2_groups,
        versions={"worldcuisines_mcq_1a_nocontext": 2.0},
        generation={"max_new_tokens": 512},
        limit={"fambench_task1_ki": 40},
    )
    return root


def test_report_tables_reference_rows_and_flags(two_runs, tmp_path):
    made = report.build_report([two_runs], tmp_path / "rep", charts=False)
    assert made["runs"] == ["Qwen/Qwen2-VL-2B-Instruct", "Qwen/Qwen2-VL-7B-Instruct"]
    md = made["markdown"].read_text()
    # WorldCuisines: official row then robust row, the MCQ unparsed rate beside the scores, then paper rows.
    assert (
        "| **Qwen/Qwen2-VL-7B-Instruct** ⚠ | official | 59.50 | 15.00 | 60.50 | 15.25 | 61.50 | 15.50 | "
        "62.50 | 15.75 | 61.00 | 15.38 | 1.00 |"
    ) in md
    assert "| **Qwen/Qwen2-VL-7B-Instruct** ⚠ | robust | 60.00 | 15.00 | 61.00 |" in md
    assert (
        "| Qwen2-VL-7B-Instruct | paper | 61.48 | 6.76 | 67.85 | 10.36 | 53.52 | 6.12 | 55.90 | 21.03 | "
        "59.69 | 11.07 | – |" in md
    )
    assert "| Gemini 1.5 Flash * | paper | 77.05 | 12.81 |" in md and "single-reference" in md
    assert "Paper Table 7 (test_large, 60k" in md
    # BERTScore has one definition: one row per run, then the paper's Table 8.
    assert (
        "| **Qwen/Qwen2-VL-7B-Instruct** ⚠ | official = robust | 80.00 | 81.00 | 82.00 | 83.00 | 81.50 |\n"
        "| Qwen2-VL-2B-Instruct | paper | 82.95 | 83.10 | 82.81 | 84.51 | 83.34 |"
    ) in md
    # Different task version and decoding: flagged, and the runs carry the mark.
    assert "Not comparable" in md
    assert (
        "- task version differs (Qwen/Qwen2-VL-2B-Instruct: 2.0; Qwen/Qwen2-VL-7B-Instruct: 1.0) in "
        "`worldcuisines_mcq_1a_nocontext`\n"
    ) in md
    assert (
        '- generation_kwargs differs (Qwen/Qwen2-VL-2B-Instruct: {"max_new_tokens": 512}; Qwen/Qwen2-VL-7B-Instruct: '
        '{"max_new_tokens": 50}) in `worldcuisines_mcq_1a_nocontext`, `worldcuisines_mcq_1b_contextualized`'
    ) in md
    assert "| **Qwen/Qwen2-VL-2B-Instruct** ⚠ | official |" in md
    assert "| `acc` | 50.00 |\n| `parse_fail_rate` | 10.00 |" in md  # the regional task: one run, nothing to flag
    # FAM-Bench Table 1: modes as rows; the T2 columns come from the CTC task, which has no official top-1/MRR.
    assert (
        "| **Qwen/Qwen2-VL-7B-Instruct** ⚠ | baseline | official | 70.00 | 0.1073 | 0.1046 | – | – | – | 2.00 | 3 | 2 |"
    ) in md
    assert (
        "| **Qwen/Qwen2-VL-7B-Instruct** ⚠ | cot | robust | 71.00 | 0.1100 | 0.1200 | 31.30 | 0.5617 | 0.9000 | "
        "2.00 | 3 | 2 |"
    ) in md
    assert "| GPT-5.4 | cot+ki | paper | 82.40 | 0.2614 | 0.2666 | 37.40 | 0.6258 | 0.9227 | – | – | – |" in md
    assert (
        "Partial runs, not comparable with the paper:\n> - Qwen/Qwen2-VL-2B-Instruct evaluated 40 of 100 documents "
        "of `fambench_task1_ki` (--limit or missing data)"
    ) in md
    # Breakdowns: per-language table with unparsed rate, per-condition table; regional task generically.
    # every rate beside its 95% Wilson interval (scipy's binomtest(k, n).proportion_ci("wilson") gives the same
    # bounds: 325 of 500 -> [60.72, 69.05]; the mean over subtasks as one rate: 1330 of 2000 -> [64.40, 68.54])
    assert (
        "| en | 65.00 [60.7, 69.1] | 66.00 [61.7, 70.0] | 67.00 [62.8, 71.0] | 68.00 [63.8, 71.9] | 66.50 [64.4, 68.5] "
        "| 6.00 |"
    ) in md
    assert "| type 2 diabetes | 60.00 [50.2, 69.1] (100) | 70.00 [60.4, 78.1] (100) |" in md
    assert report.BINOMIAL_NOTE in md
    assert "## Task `regional_example_mcq`" in md and "| EA | 40.00 |" in md
    # Heat map table: both models x headline numbers; the regional acc only for the model that ran it.
    assert "| Qwen/Qwen2-VL-7B-Instruct | 61.50 | 15.38 | 70.00 | 31.30 | 0.9000 | 50.00 |" in md


def test_report_charts_are_pngs_the_pages_embed(two_runs, tmp_path):
    made = report.build_report([two_runs], tmp_path / "rep")
    names = sorted(p.name for p in made["charts"])
    assert names == sorted(
        [
            "food_tasks_heatmap.png",
            "worldcuisines_mcq_languages.png",
            "worldcuisines_oeq_languages.png",
            "fambench_task1_conditions.png",
            "fambench_task1_cot_conditions.png",
            "fambench_task1_ki_conditions.png",
            "fambench_task1_cot_ki_conditions.png",
            "regional_example_mcq_acc_by_region.png",
        ]
    )
    for path in made["charts"]:
        data = path.read_bytes()
        assert data[:8] == b"\x89PNG\r\n\x1a\n" and len(data) > 5000, path
    md, page = made["markdown"].read_text(), made["html"].read_text()
    for path in made["charts"]:
        # Markdown links the PNGs (kept for papers); the HTML carries each one itself, base64 in a data: URI
        assert f"](charts/{path.name})" in md and f"src='charts/{path.name}'" not in page
        assert "src='data:image/png;base64," + base64.b64encode(path.read_bytes()).decode("ascii") + "'" in page
    # the HTML alone is the report: it references no other file (no src, href or url() outside data: URIs and
    # anchors of its own headings)
    refs = re.findall(r"""(?:src|href)\s*=\s*['"]([^'"]*)['"]|url\(\s*['"]?([^'")]*)""", page)
    ids = set(re.findall(r"<h\d id='([^']+)'>", page))
    assert refs and all(
        r.startswith("data:") or (r.startswith("#") and r[1:] in ids) for pair in refs for r in pair if r
    ), [r for p in refs for r in p][:5]
    assert page.count("<table>") == md.count("\n|---|") and "<div class='warn'>" in page
    # Without charts (--no-charts): every table and note the same, no chart, and the report says so.
    bare = report.build_report([two_runs], tmp_path / "bare", charts=False)
    bare_md = bare["markdown"].read_text()
    assert bare["charts"] == [] and not (tmp_path / "bare" / "charts").exists() and "](charts/" not in bare_md
    assert "Charts not drawn (--no-charts)" in bare_md and "Charts not drawn" not in md
    assert [line for line in bare_md.splitlines() if line and "Charts not drawn" not in line] == [
        line for line in md.splitlines() if line and "](charts/" not in line
    ]


def test_cli_report_and_bad_input(two_runs, tmp_path, capsys):
    assert cli_main(["report", str(two_runs), "-o", str(tmp_path / "out"), "--no-charts"]) == 0
    assert "and 0 chart(s)" in capsys.readouterr().out and (tmp_path / "out" / "report.html").is_file()
    assert "Charts not drawn" in (tmp_path / "out" / "report.md").read_text()
    empty = tmp_path / "empty"
    empty.mkdir()
    # a bad input path exits 1, in report as in compare (issue 29: one exit status per kind of error)
    nosuch = str(tmp_path / "nosuch")
    assert cli_main(["report", nosuch]) == 1 and cli_main(["compare", nosuch, nosuch]) == 1
    assert cli_main(["compare", str(empty), str(empty)]) == 1
    capsys.readouterr()
    assert cli_main(["report", str(empty), "-o", str(tmp_path / "x")]) == 1
    # The message is wrapped at 120 columns (issue 29.2): read it as one line.
    assert f"{empty}: no lmms-eval results file" in " ".join(capsys.readouterr().err.split())
    bad = tmp_path / "bad_results.json"
    bad.write_text("{}")
    assert cli_main(["report", str(bad)]) == 1
    err = capsys.readouterr().err
    assert "not an lmms-eval results file (no 'results' object)" in " ".join(err.split())
    assert err.startswith("food-tasks report: ") and max(map(len, err.splitlines())) <= 120


def test_registry_is_keyed_by_prefix():
    assert report.spec_for("worldcuisines_mcq_small_1a_nocontext").name == "worldcuisines"
    assert report.spec_for("fambench_task2_ctc_all").name == "fambench"
    assert report.spec_for("regional_example_mcq") is None


def test_reference_data_is_consistent():
    # Transcription checks: WorldCuisines averages are the means of the four subtasks (rounded cells, 0.01);
    # FAM-Bench Table 2's T+I columns repeat Table 1.
    wc = report.reference_data("worldcuisines")
    for key in ("large", "smallref"):
        for row in wc["tables"][key]["rows"]:
            v = row["values"]
            for kind in ("mcq", "oeq"):
                mean = sum(v[f"{s}_{kind}"] for s in ("1a", "1b", "1c", "2")) / 4
                assert abs(mean - v[f"avg_{kind}"]) <= 0.011, (row["model"], kind)
    for row in wc["tables"]["bertscore_large"]["rows"]:
        v = row["values"]
        assert abs(sum(v[s] for s in ("1a", "1b", "1c", "2")) / 4 - v["avg"]) <= 0.011, row["model"]
    fb = report.reference_data("fambench")
    t1 = {
        (r["model"].split("-Instruct")[0].split("-IT")[0], r["mode"]): r["values"]
        for r in fb["tables"]["table1"]["rows"]
    }
    for row in fb["tables"]["table2"]["rows"]:
        ref = t1[(row["model"], row["mode"])]
        assert (row["values"]["t1_ti"], row["values"]["t2_ti"]) == (ref["t1_acc"], ref["t2_acc"])
    assert len(fb["tables"]["table1"]["rows"]) == 20 and len(wc["tables"]["large"]["rows"]) == 8


def test_a_new_benchmark_is_one_registry_entry(tmp_path, monkeypatch):
    # What a DiningBench-like entry looks like: a main table, a reference file, a views curve.
    spec = report.BenchmarkSpec(
        name="toybench",
        title="ToyBench",
        prefixes=("toybench_",),
        variants=(report.Variant("full", "main"),),
        tables=(
            report.TableSpec(
                "Main",
                "{variant}",
                (
                    report.Column("cls", "Class ACC", (report.Source("toybench_cls", "acc", "acc_official"),), 4),
                    report.Column("inv", "Unparsed", (report.Source("toybench_cls", "invalid_rate"),), rate=True),
                ),
            ),
        ),
        headline=("cls",),
        curves=(
            report.CurveSpec(
                "Accuracy by number of views",
                "views",
                (("1", "toybench_cls"), ("2", "toybench_cls_v2"), ("4", "toybench_cls_v4")),
                "acc",
            ),
        ),
    )
    base = report.registry()
    monkeypatch.setattr(report_spec, "registry", lambda: base + (spec,))
    data_dir = tmp_path / "data"
    data_dir.mkdir()
    (data_dir / "toybench.json").write_text(
        json.dumps(
            {
                "tables": {
                    "main": {"source": "Toy paper Table 2", "rows": [{"model": "GPT-4o", "values": {"cls": 0.6526}}]}
                }
            }
        )
    )
    monkeypatch.setattr(report_spec, "DATA_DIR", data_dir)
    tasks = {
        "toybench_cls": {"acc": 0.61, "acc_official": 0.6, "invalid_rate": 0.01},
        "toybench_cls_v2": {"acc": 0.65},
        "toybench_cls_v4": {"acc": 0.7},
    }
    write_results(tmp_path / "r" / "x_results.json", "pretrained=toy/model", tasks)
    made = report.build_report([tmp_path / "r"], tmp_path / "rep")
    md = made["markdown"].read_text()
    assert (
        "| **toy/model** | official | 0.6000 | 0.01 |\n| **toy/model** | robust | 0.6100 | 0.01 |\n"
        "| GPT-4o | paper | 0.6526 | – |" in md
    )
    assert "Reference rows (*paper*): Toy paper Table 2." in md
    assert "| views | toy/model |\n|---|---|\n| 1 | 0.61 |\n| 2 | 0.65 |\n| 4 | 0.70 |" in md
    assert [p.name for p in made["charts"]] == ["toybench_cls_acc_curve.png"]


def test_html_escapes_labels_and_values(tmp_path):
    write_results(
        tmp_path / "r" / "x_results.json",
        "pretrained=<b>evil|model</b>",
        {"regional_x": {"acc": 1.0, "acc_by_region": {"<i>r</i>": 2.0}}},
    )
    made = report.build_report([tmp_path / "r"], tmp_path / "rep", charts=False)
    page, md = made["html"].read_text(), made["markdown"].read_text()
    assert "<b>evil" not in page and "&lt;b&gt;evil|model&lt;/b&gt;" in page and "&lt;i&gt;r&lt;/i&gt;" in page
    assert "| `acc` | 1.00 |" in md and "<b>evil\\|model</b>" in md  # a pipe in a label does not split the row


# --- issue 19.5: what the report shows ------------------------------------------------------------------------


def test_bad_input_leaves_no_folder_behind(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    assert cli_main(["report", "reslts/"]) == 1  # a typo: nothing is written, not even the default folder
    assert "reslts: no such file or directory" in capsys.readouterr().err
    assert not (tmp_path / "food_tasks_report").exists() and list(tmp_path.iterdir()) == []
    with pytest.raises(report.ReportInputError):
        report.build_report([tmp_path / "nowhere"], tmp_path / "rep")
    assert not (tmp_path / "rep").exists()


def _chart_texts(tmp_path, draw) -> list[str]:
    """The texts on the chart ``draw(charts)`` makes (bar labels, notes), read from the figure before it is saved."""
    charts = report.Charts(tmp_path)
    texts: list[str] = []
    save = charts._save

    def capture(fig, name):  # type: ignore[no-untyped-def]
        texts.extend(t.get_text() for ax in fig.axes for t in ax.texts)
        return save(fig, name)

    charts._save = capture
    assert draw(charts)
    return texts


def test_zero_bars_carry_their_values_and_all_zero_charts_say_so(tmp_path):
    zero = {"run": {"en": 0.0, "fr": 0.0}}
    assert _chart_texts(tmp_path, lambda c: c.language_bars(zero, "t", "zero")) == ["0.0", "0.0", "all values 0"]
    some = {"a": {"en": 0.0, "fr": 50.0}, "b": {"en": 25.0}}  # "b" has no fr: a dash, not a zero
    assert _chart_texts(tmp_path, lambda c: c.language_bars(some, "t", "some")) == ["0.0", "50.0", "25.0", "–"]
    radar = {"run": {"x": 0.0, "y": 0.0, "z": 0.0}}
    assert _chart_texts(tmp_path, lambda c: c.radar(radar, "t", "radar")) == ["all values 0"]


def test_partial_run_headline_rate_is_computed_from_what_ran(tmp_path):
    # One WorldCuisines subtask, no group: the per-language table shows its unparsed rate; so does the headline.
    per_language = {"en": {"n": 3, "acc": 0.0, "acc_official": 0.0, "invalid_rate": 100.0}}
    write_results(
        tmp_path / "r" / "x_results.json",
        "pretrained=m/a",
        {
            "worldcuisines_mcq_sample_1a_nocontext": {
                "acc": 0.0,
                "acc_official": 0.0,
                "invalid_rate": 100.0,
                "per_language": per_language,
            }
        },
    )
    md = report.build_report([tmp_path / "r"], tmp_path / "rep", charts=False)["markdown"].read_text()
    assert "| **m/a** | official = robust | 0.00 | – | – | – | – | – | – | – | – | – | 100.00 (1 of 4) |" in md
    assert "(k of n): computed from the k of the n subtasks that ran" in md
    # the per-language table agrees; 0 of 3 gets Wilson's [0, z^2 / (3 + z^2)] = [0, 56.15], never a 0 wide interval
    assert "| en | 0.00 [0.0, 56.1] | – | – | – | 0.00 [0.0, 56.1] | 100.00 |" in md


def test_html_lists_are_lists(two_runs, tmp_path):
    page = report.build_report([two_runs], tmp_path / "rep", charts=False)["html"].read_text()
    assert "- <b>" not in page and "<br>- " not in page  # no literal Markdown bullets
    assert "<ul><li><b>Qwen/Qwen2-VL-2B-Instruct</b>: <code>" in page
    assert "<li>task version differs (Qwen/Qwen2-VL-2B-Instruct: 2.0; Qwen/Qwen2-VL-7B-Instruct: 1.0) in " in page


def test_models_named_by_a_path_show_a_short_name(tmp_path):
    tasks = {"regional_x": {"acc": 1.0}}
    write_results(
        tmp_path / "r" / "a" / "x_results.json", "pretrained=/home/me/.cache/food_tasks/tiny-qwen2-vl,device=cpu", tasks
    )
    write_results(
        tmp_path / "r" / "b" / "x_results.json", "pretrained=/data/other/tiny-qwen2-vl", tasks
    )  # another model
    write_results(
        tmp_path / "r" / "c" / "x_results.json",
        "pretrained=/home/me/.cache/food_tasks/tiny-qwen2-vl",
        {"regional_y": {"acc": 2.0}},
    )  # the first model again, other tasks: merged
    made = report.build_report([tmp_path / "r"], tmp_path / "rep", charts=False)
    assert made["runs"] == ["tiny-qwen2-vl", "tiny-qwen2-vl #2"]
    md = made["markdown"].read_text()
    assert "- **tiny-qwen2-vl** (`/home/me/.cache/food_tasks/tiny-qwen2-vl`): " in md
    assert "- **tiny-qwen2-vl #2** (`/data/other/tiny-qwen2-vl`): " in md
    assert (
        "| Metric | tiny-qwen2-vl | tiny-qwen2-vl #2 |" in md
        and "/home/me" not in md.split("Runs:")[1].split("\n## ")[1]
    )
    assert report.short_label("Qwen/Qwen2-VL-7B-Instruct") == "Qwen/Qwen2-VL-7B-Instruct"  # a hub id stays whole
    assert report.short_label("food_tasks_replay (preds.jsonl)") == "food_tasks_replay (preds.jsonl)"


def test_regional_slice_tables_give_group_sizes(tmp_path):
    write_results(
        tmp_path / "r" / "x_results.json",
        "pretrained=m/a",
        {"regional_x": {"acc": 50.0, "acc_by_region": {"EA": 40.0, "WA": 60.0}, "n_by_region": {"EA": 5, "WA": 10}}},
    )
    made = report.build_report([tmp_path / "r"], tmp_path / "rep")
    md = made["markdown"].read_text()
    # 2 of 5 -> Wilson [11.76, 76.93]; 6 of 10 -> [31.27, 83.18] (scipy's binomtest(...).proportion_ci("wilson"))
    assert "| region | m/a (n) |\n|---|---|\n| EA | 40.00 [11.8, 76.9] (5) |\n| WA | 60.00 [31.3, 83.2] (10) |" in md
    assert "n_by_region" not in md and [p.name for p in made["charts"]] == ["regional_x_acc_by_region.png"]


def test_official_and_robust_rates_that_differ_are_explained_and_nan_is_explained(tmp_path):
    from food_tasks.benchmarks.diningbench.report import CLS_UNPARSED
    from food_tasks.benchmarks.fambench.report import CTC_UNDEFINED

    tasks = {
        "diningbench_cls_sample": {
            "acc": 0.0,
            "acc_official": 0.0,
            "invalid_rate": 100.0,
            "cannot_read_rate_official": 0.0,
        },
        "fambench_task2_ctc_sample": {"ctc": float("nan"), "top1_acc": 0.0, "mrr": 0.0, "image_missing": 0},
    }
    write_results(tmp_path / "r" / "x_results.json", "pretrained=m/a", tasks)
    write_results(tmp_path / "r" / "y_results.json", "pretrained=m/b", tasks)  # two runs: a heat map too
    md = report.build_report([tmp_path / "r"], tmp_path / "rep", charts=False)["markdown"].read_text()
    assert (
        "| m/a | 0.00 | undefined | 0.00 |" in md and "undefined: the metric has no value on this run" in md
    )  # heat map; Class ACC in percent with 2 decimals, as every accuracy
    assert "| **m/a** | official | 0.00 | 0.00 |" in md and "| **m/a** | robust | 0.00 | 100.00 |" in md
    assert f"Class unparsed %, official and robust differ: {CLS_UNPARSED}" in md
    assert "| **m/a** | baseline | robust | – | – | – | 0.00 | 0.0000 | undefined [1] |" in md
    assert f"undefined [1]: {CTC_UNDEFINED}" in md and "NaN" not in md


def test_links_are_links_in_html_and_their_path_in_markdown():
    """Issue 29.3: the interval note points to docs/error_bars.md (the README section moved there)."""
    from food_tasks.report.render import to_html, to_markdown

    blocks = [
        ("p", "see [docs/error_bars.md](docs/error_bars.md) or [the page](https://example.org/a#b) <i>"),
        ("list", ["[y](y)"]),
    ]
    assert to_markdown(blocks) == "see docs/error_bars.md or the page (https://example.org/a#b) <i>\n\n- y\n"
    html = to_html(blocks, "t")
    assert (
        "see <a href='docs/error_bars.md'>docs/error_bars.md</a> or "
        "<a href='https://example.org/a#b'>the page</a> &lt;i&gt;" in html
    )
    assert "<li><a href='y'>y</a></li>" in html
    # A target with a quote or a space is not a link: nothing can leave the href attribute.
    assert "href" not in to_html([("p", "[x](a' onclick='b)"), ("p", "[x](a b)")], "t")
    # Issue 33.7: the one-file HTML travels alone, so the note names the page in words (no link to a file beside it)
    assert "docs/error_bars.md of the food-tasks source" in report_spec.INTERVAL_NOTE
    assert "](" not in report_spec.INTERVAL_NOTE
    # a link to a heading of the report itself stays a link in Markdown too (it works wherever the file goes)
    assert to_markdown([("p", "see [the legend](#how-to-read-this-report)")]) == (
        "see [the legend](#how-to-read-this-report)\n"
    )


def test_compare_names_a_local_model_as_the_report_does(tmp_path):
    """The demo's model is a local path: compare's ``A = ...`` line and the report's tables show its short label."""
    from food_tasks.runs import load_run

    model = "/root/.cache/food_tasks/tiny-qwen2-vl"
    write_results(tmp_path / "a" / "x_results.json", f"pretrained={model}", {"worldcuisines_mcq_sample": {"acc": 1.0}})
    assert load_run(tmp_path / "a").label == "tiny-qwen2-vl"
    assert report.build_report([tmp_path / "a"], tmp_path / "rep", charts=False)["runs"] == ["tiny-qwen2-vl"]
