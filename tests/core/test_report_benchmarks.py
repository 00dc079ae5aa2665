"""`food-tasks report` tables of DiningBench, FoodieQA and Food-500 Cap (synthetic results, hand-written values)."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from results_files import write_results

from food_tasks import report

NUTRIENTS = ("calories", "protein", "carbohydrates", "fat")


def db_tasks(lang: str, acc: float) -> dict:
    nutrition = {}
    for i, name in enumerate(NUTRIENTS):
        for stat, base in (("mae", 10.0), ("rmse", 20.0), ("mape", 30.0)):
            nutrition[f"{name}_{stat}"] = base + i
            nutrition[f"{name}_{stat}_official"] = base + i + 0.5
    for stat, base in (("mae", 11.5), ("rmse", 21.5), ("mape", 31.5)):  # the means of the four values above
        nutrition[f"avg_{stat}"] = base
        nutrition[f"avg_{stat}_official"] = base + 0.5
    nutrition |= {"parse_fail_rate": 2.0, "parse_fail_rate_official": 10.0, "range_values": 3, "gold_missing": 0}
    return {
        f"diningbench_cls_{lang}": {
            "acc": acc,
            "acc_official": acc - 10,
            "invalid_rate": 5.0,
            "cannot_read_rate_official": 12.5,
        },
        f"diningbench_cls_{lang}_v2": {"acc": acc + 5},
        f"diningbench_cls_{lang}_v4": {"acc": acc + 10},
        f"diningbench_nutrition_{lang}": nutrition,
        f"diningbench_nutrition_{lang}_v2": {"avg_mape": 29.0},
        f"diningbench_vqa_{lang}": {
            "judge_acc": 80.0,
            "judge_acc_official": 76.0,
            "judge_error_rate": 5.0,
            "judge_unparsed_rate": 0.0,
            "judge_info": {"model": "judge-a", "endpoint": "x"},
        },
    }


def test_diningbench_table_views_curve_and_judge(tmp_path):
    write_results(
        tmp_path / "r" / "a_results.json",
        "pretrained=Qwen/Qwen3-VL-8B-Instruct",
        {**db_tasks("zh", 60.0), **db_tasks("en", 50.0)},
    )
    made = report.build_report([tmp_path / "r"], tmp_path / "rep")
    md = made["markdown"].read_text()
    assert "## DiningBench — Chinese (paper Table 2)" in md and "## DiningBench — English (paper Table 4)" in md
    # Accuracies in percent (2 decimals, as every benchmark's), MAPE %, unparsed and judge-error rates in % beside
    # their scores; the paper's accuracies x 100 (0.6526 in Table 2 is 65.26).
    assert (
        "| **Qwen/Qwen3-VL-8B-Instruct** | official | 50.00 | 12.50 | 30.50 | 31.50 | 32.50 | 33.50 | 12.00 | 22.00 | "
        "32.00 | 10.00 | 76.00 | 5.00 |"
    ) in md
    assert (
        "| **Qwen/Qwen3-VL-8B-Instruct** | robust | 60.00 | 5.00 | 30.00 | 31.00 | 32.00 | 33.00 | 11.50 | 21.50 | "
        "31.50 | 2.00 | 80.00 | 5.00 |"
    ) in md
    assert (
        "| GPT-4o | paper | 65.26 | – | 41.67 | 36.03 | 40.19 | 51.82 | 105.65 | 154.32 | 42.43 | – | 80.60 | – |" in md
    )
    assert "| GPT-4o | paper | 62.38 | – | – | – | – | – | 98.67 | 148.03 | 40.62 | – | 77.36 | – |" in md  # Table 4
    assert "Reference rows (*paper*): Paper Table 2 (Chinese data, 29 VLMs" in md
    assert "Judge (LLM-as-a-judge tasks):\n- Qwen/Qwen3-VL-8B-Instruct, `diningbench_vqa_zh`: judge-a at x" in md
    # Per-nutrient MAE/RMSE: no published numbers.
    assert (
        "| **Qwen/Qwen3-VL-8B-Instruct** | robust | 10.00 | 11.00 | 12.00 | 13.00 | 20.00 | 21.00 | 22.00 | 23.00 |"
        in md
    )
    # Views curves: the missing 3-view run is a gap.
    assert (
        "| views | Qwen/Qwen3-VL-8B-Instruct |\n|---|---|\n| 1 (reference photo) | 60.00 |\n"
        "| 2 | 65.00 |\n| 3 | – |\n| 4 | 70.00 |"
    ) in md
    assert "| 1 (reference photo) | 31.50 |\n| 2 | 29.00 |" in md
    names = sorted(p.name for p in made["charts"])
    assert names == sorted(
        f"diningbench_{k}_{lang}_{m}_curve.png"
        for lang in ("zh", "en")
        for k, m in (("cls", "acc"), ("nutrition", "avg_mape"))
    )
    assert "## Task `diningbench" not in md  # not in the generic section any more


def test_diningbench_sample_counts_as_two_views(tmp_path):
    """The packaged sample's tasks score two views (heading "(2 views)"): its curve line says 2, never the full
    benchmark's "1 (reference photo)" of the same base-task template."""
    tasks = {k.replace("_zh", "_sample"): v for k, v in db_tasks("zh", 60.0).items() if not k.endswith(("_v2", "_v4"))}
    write_results(tmp_path / "r" / "a_results.json", "pretrained=m/a", tasks)
    md = report.build_report([tmp_path / "r"], tmp_path / "rep", charts=False)["markdown"].read_text()
    assert "## DiningBench — packaged sample (2 views)" in md
    for title in ("Classification accuracy", "Nutrition Avg MAPE (%)"):
        assert (
            f"*Not shown:* {title} by number of views: these tasks have one views value (2); the full benchmark's "
            "tasks have the curve." in md
        )
    assert "1 (reference photo)" not in md.split("## DiningBench — packaged sample")[1]


def test_diningbench_different_judges_are_not_comparable(tmp_path):
    write_results(tmp_path / "r" / "a_results.json", "pretrained=m/a", db_tasks("zh", 60.0))
    other = db_tasks("zh", 50.0)
    other["diningbench_vqa_zh"]["judge_info"] = {"model": "judge-b"}
    write_results(tmp_path / "r" / "b_results.json", "pretrained=m/b", other)
    md = report.build_report([tmp_path / "r"], tmp_path / "rep", charts=False)["markdown"].read_text()
    assert '- judge model differs (m/a: "judge-a"; m/b: "judge-b") in `diningbench_vqa_zh`' in md
    assert "| **m/b** ⚠ | robust | 50.00 |" in md and "| **m/a** ⚠ | robust | 60.00 |" in md


def fq_tasks(prefix: str = "foodieqa") -> dict:
    tasks: dict = {}
    for s, setting in enumerate(("mivqa_zh", "mivqa_en", "sivqa_zh", "sivqa_en", "textqa_zh")):
        for k in range(4):
            acc = 40.0 + 10 * s + k
            per_type = {
                "cuisine_type": {"n": 10, "acc": acc + 5, "invalid_rate": 0.0},
                "flavor": {"n": 20, "acc": acc - 5, "invalid_rate": 10.0},
            }
            tasks[f"{prefix}_{setting}_p{k}"] = {
                "acc": acc,
                "acc_paper_protocol": acc - 1,
                "invalid_rate": 2.0,
                "paper_fallback_rate": 4.0,
                "per_question_type": per_type,
            }
    return tasks


def fq_groups() -> dict:
    groups = {}
    for s, setting in enumerate(("mivqa_zh", "mivqa_en", "sivqa_zh", "sivqa_en", "textqa_zh")):
        base = 40.0 + 10 * s
        groups[f"foodieqa_{setting}"] = {
            "acc_mean": base + 1.5,
            "acc_best": base + 3,
            "acc_paper_protocol": base + 0.5,
            "acc_paper_protocol_best": base + 2,
            "invalid_rate": 2.0,
            "paper_fallback_rate": 4.0,
            **{f"acc_p{k}": base + k for k in range(4)},
        }
    return groups


def test_foodieqa_table3_templates_and_question_types(tmp_path):
    write_results(tmp_path / "r" / "a_results.json", "pretrained=Qwen/Qwen2-VL-7B-Instruct", fq_tasks(), fq_groups())
    made = report.build_report([tmp_path / "r"], tmp_path / "rep")
    md = made["markdown"].read_text()
    # Table 3: best of four (official parity = acc_paper_protocol_best), then the paper rows and text-only LLMs.
    assert (
        "| Model | Scorer | Multi-image ZH | Multi-image EN | Single-image ZH | Single-image EN | Text QA ZH |\n"
        "|---|---|---|---|---|---|---|\n"
        "| **Qwen/Qwen2-VL-7B-Instruct** | official | 42.00 | 52.00 | 62.00 | 72.00 | 82.00 |\n"
        "| **Qwen/Qwen2-VL-7B-Instruct** | robust | 43.00 | 53.00 | 63.00 | 73.00 | 83.00 |"
    ) in md
    assert (
        "| GPT-4o | paper | 86.35 | 80.64 | 72.66 | 67.97 | – |" in md
        and "| Yi-VL-6B | paper | – | – | 49.61 | 41.41 | – |" in md
    )
    assert (
        "| Qwen2-7B-Instruct * | paper | – | – | – | – | 68.23 |" in md and "| Human * | paper | 91.69 | 77.22 |" in md
    )
    # Per template: official per template = acc_paper_protocol, mean / best from the groups, rates beside.
    assert (
        "| **Qwen/Qwen2-VL-7B-Instruct** | Multi-image EN | official | 49.00 | 50.00 | "
        "51.00 | 52.00 | 50.50 | 52.00 | 2.00 | 4.00 |" in md
    )
    assert (
        "| **Qwen/Qwen2-VL-7B-Instruct** | Multi-image EN | robust | 50.00 | 51.00 | "
        "52.00 | 53.00 | 51.50 | 53.00 | 2.00 | 4.00 |" in md
    )
    assert "| Idefics2-8B * | Multi-image ZH | paper | 35.98 | 49.38 | 50.87 | 40.45 | 44.17 | 50.87 | – | – |" in md
    assert (
        "| Yi-VL-6B * | Single-image ZH + dish name | paper | 73.83 | 74.61 | 76.17 | 62.50 | 71.78 | 76.17 | – | – |"
        in md
    )
    # Per question type: mean over the four templates (41.5 + 5 for mivqa ZH), n beside.
    # Wilson bounds by hand: the roots of (0.465 - p)^2 = 1.96^2 p (1 - p) / 10 are 21.18% and 73.77%
    assert (
        "| Question type | Qwen/Qwen2-VL-7B-Instruct (n; 4 templates) |\n|---|---|\n"
        "| cuisine_type | 46.50 [21.2, 73.8] (10) |\n"
        "| flavor | 36.50 [19.2, 58.1] (20) |"
    ) in md
    assert sorted(p.name for p in made["charts"]) == sorted(
        f"foodieqa_{s}_question_types.png" for s in ("mivqa_zh", "mivqa_en", "sivqa_zh", "sivqa_en", "textqa_zh")
    )


def test_foodieqa_sample_has_per_template_rows_only(tmp_path):
    tasks = {
        "foodieqa_mivqa_zh_sample_p1": {
            "acc": 50.0,
            "acc_paper_protocol": 25.0,
            "invalid_rate": 50.0,
            "paper_fallback_rate": 50.0,
        }
    }
    write_results(tmp_path / "r" / "a_results.json", "pretrained=m/a", tasks)
    md = report.build_report([tmp_path / "r"], tmp_path / "rep", charts=False)["markdown"].read_text()
    assert "## FoodieQA — packaged sample" in md and "Paper Table 3" not in md
    assert "| **m/a** | Multi-image ZH | official | – | 25.00 | – | – | – | – | 50.00 | 50.00 |" in md
    assert "No published numbers for this variant." in md


F5_ABSENT = "absent: no CLIP model given (set FOOD_TASKS_CLIP_MODEL to a local CLIP directory)"
REGION_ABSENT = "absent: no category-to-region mapping given"


def f5_metrics(regions: dict | str) -> dict:
    return {
        "mean_caption_words": 15.25,
        "bleu4": 3.5,
        "meteor": 10.125,
        "rouge_l": 25.0,
        "cider": 20.0,
        "clipscore": F5_ABSENT,
        "sla_accurate": 40.0,
        "sla_relaxed": 60.0,
        "parse_fail_rate": 1.0,
        "image_missing": 2,
        "per_region": regions,
    }


def test_food500cap_absent_metrics_and_regions(tmp_path):
    write_results(
        tmp_path / "r" / "a_results.json", "pretrained=m/a", {"food500cap_caption": f5_metrics(REGION_ABSENT)}
    )
    regions = {
        "Chinese": {
            "n": 3,
            "sla_accurate": 33.0,
            "sla_relaxed": 66.0,
            "bleu4": 1.0,
            "meteor": 2.0,
            "rouge_l": 3.0,
            "cider": "absent: not computed",
        },
        "Nordic": {
            "n": 1,
            "sla_accurate": 100.0,
            "sla_relaxed": 100.0,
            "bleu4": 5.0,
            "meteor": 6.0,
            "rouge_l": 7.0,
            "cider": 8.0,
        },
    }
    write_results(tmp_path / "r" / "b_results.json", "pretrained=m/b", {"food500cap_caption_food": f5_metrics(regions)})
    made = report.build_report([tmp_path / "r"], tmp_path / "rep")
    md = made["markdown"].read_text()
    assert (
        "## Food-500 Cap — test split, generic prompt" in md and "## Food-500 Cap — test split, food-aware prompt" in md
    )
    # One scorer: one row; CLIP-S absent with its reason under the table; rates beside.
    assert (
        "| **m/a** | official = robust | 15.25 | 3.50 | 10.12 | 25.00 | 20.00 | absent [1] | 40.00 | 60.00 | "
        "1.00 | 2 |\n"
        "| BLIP (decoder) | paper | 13.80 | 2.61 | 8.71 | 20.33 | 13.62 | 0.700 | 5.29 | 30.76 | – | – |"
    ) in md
    assert "absent [1]: no CLIP model given (set FOOD_TASKS_CLIP_MODEL to a local CLIP directory)" in md
    # Table 3: without a mapping the region columns are absent with the reason; with one, matching names fill.
    assert (
        "| **m/a** | Accurate | official = robust | 40.00 | absent [1] | absent [1] | absent [1] | absent [1] | "
        "absent [1] | absent [1] | absent [1] |"
    ) in md
    assert "absent [1]: no category-to-region mapping given" in md
    assert "| **m/b** | Relaxed | official = robust | 60.00 | 66.00 | – | – | – | – | – | – |" in md
    assert "| OFA | Relaxed | paper | 29.51 | 30.70 | 39.32 | 3.82 | 35.74 | 20.74 | 12.58 | 7.07 |" in md
    # The user's regions: a chart and a table (an absent cell says absent).
    # SLA rates beside their Wilson intervals: roots of (0.33 - p)^2 = 1.96^2 p (1 - p) / 3 are 6.04% and 79.05%
    assert "| Chinese | 3 | 33.00 [6.0, 79.1] | 66.00 [20.4, 93.6] | 1.00 | 2.00 | 3.00 | absent |" in md
    assert "| Nordic | 1 | 100.00 [20.7, 100.0] |" in md  # 1 of 1: never a 0 wide interval
    assert sorted(p.name for p in made["charts"]) == ["food500cap_caption_food_regions.png", "food_tasks_heatmap.png"]


def test_heatmap_takes_new_headlines_and_skips_absent(tmp_path, monkeypatch):
    seen = {}
    original = report.Charts.heatmap

    def spy(self, rows, cols, matrix, name, lower_is_better=()):  # type: ignore[no-untyped-def]
        seen["lower"] = list(lower_is_better)
        return original(self, rows, cols, matrix, name, lower_is_better)

    monkeypatch.setattr(report.Charts, "heatmap", spy)
    write_results(
        tmp_path / "r" / "a_results.json",
        "pretrained=m/a",
        {"food500cap_caption": f5_metrics(REGION_ABSENT), **db_tasks("zh", 60.0)},
    )
    other = f5_metrics(REGION_ABSENT) | {"cider": F5_ABSENT}
    write_results(
        tmp_path / "r" / "b_results.json", "pretrained=m/b", {"food500cap_caption": other, **db_tasks("zh", 50.0)}
    )
    md = report.build_report([tmp_path / "r"], tmp_path / "rep")["markdown"].read_text()
    table = md.split("## Models by benchmark", 1)[1].split("\n## ", 1)[0]
    assert (
        "| Model | diningbench_zh: Class ACC | diningbench_zh: Avg MAPE | diningbench_zh: VQA ACC | "
        "food500cap: CIDEr | food500cap: SLA accurate |" in table
    )
    assert "| m/b | 50.00 | 31.50 | 80.00 | – | 40.00 |" in table
    assert seen["lower"] == [False, True, False, False, False]  # MAPE: the lowest run is coloured best


def test_reference_data_of_the_new_benchmarks_is_consistent():
    db = report.reference_data("diningbench")
    assert len(db["tables"]["zh"]["rows"]) == 29 and len(db["tables"]["en"]["rows"]) == 16
    for row in db["tables"]["zh"]["rows"]:  # Avg MAPE = mean of the four nutrients (rounded cells)
        v = row["values"]
        assert abs(sum(v[f"{k}_mape"] for k in ("cal", "prot", "carbs", "fat")) / 4 - v["avg_mape"]) <= 0.011, row[
            "model"
        ]
    fq = report.reference_data("foodieqa")
    for row in fq["tables"]["templates"]["rows"]:
        v = row["values"]
        assert v["best"] == max(v[f"p{k}"] for k in range(4)), row
    f5 = report.reference_data("food500cap")
    overall = {(r["model"], r["mode"]): r["values"]["overall"] for r in f5["tables"]["table3"]["rows"]}
    for row in f5["tables"]["table4"]["rows"]:
        if row["model"] != "Ground truth":
            assert row["values"]["sla_accurate"] == overall[(row["model"], "accurate")]
    for spec in report.registry():  # every column key of a reference row exists in its table
        for table in spec.tables:
            keys = {c.key for c in table.columns}
            ref = report.reference_data(spec.name).get("tables") or {}
            for ref_key in {v.reference for v in spec.variants if v.reference}:
                name = (table.reference or "").replace("{variant}", ref_key)
                for row in (ref.get(name) or {}).get("rows", []):
                    assert set(row["values"]) <= keys, (spec.name, name, set(row["values"]) - keys)


def test_packaged_samples_are_claimed(tmp_path: Path):
    assert {
        report.spec_for(t).name
        for t in ("diningbench_cls_sample", "foodieqa_textqa_zh_sample_p2", "food500cap_caption_sample")
    } == {"diningbench", "foodieqa", "food500cap"}


@pytest.mark.e2e
def test_report_on_real_sample_runs(tmp_path):
    """The packaged samples of the three benchmarks through the lmms-eval CLI (replay model), then
    `food-tasks report` on the output directory: the real metric names land in the benchmark tables."""
    from conftest import run_lmms_eval

    tasks = (
        "foodieqa_mivqa_zh_sample_p1",
        "foodieqa_sivqa_en_sample_p3",
        "foodieqa_textqa_zh_sample_p2",
        "diningbench_cls_sample",
        "diningbench_nutrition_sample",
        "food500cap_caption_sample",
    )
    answers = {
        "diningbench_nutrition_sample": json.dumps({"calories": 500, "protein": 20, "carbohydrates": 50, "fat": 15}),
        "food500cap_caption_sample": "A bowl of beef noodle soup with scallions in a white bowl.",
    }
    lines = [{"task": t, "doc_id": i, "response": answers.get(t, "Answer: B")} for t in tasks for i in range(20)]
    preds = tmp_path / "preds.jsonl"
    preds.write_text("\n".join(json.dumps(x) for x in lines) + "\n", encoding="utf-8")
    proc, results, _ = run_lmms_eval(
        [
            "--model",
            "food_tasks_replay",
            "--model_args",
            f"responses={preds},model_name=demo/replay",
            "--tasks",
            "foodieqa_sample,diningbench_cls_sample,diningbench_nutrition_sample,food500cap_caption_sample",
        ],
        tmp_path / "out",
        env={"FOOD_TASKS_CLIP_MODEL": "", "FOOD_TASKS_FOOD500CAP_REGIONS": ""},
    )
    assert results is not None, proc.stderr[-3000:]
    made = report.build_report([tmp_path / "out"], tmp_path / "rep")
    with_intervals = made["markdown"].read_text(encoding="utf-8")
    # Cells carry "value ± half-width" where the run has a standard error; the values are checked without them
    # here, the intervals in tests/core/test_report_uncertainty.py.
    # 1 of 2 documents, in percent: SE 100 sqrt(0.5 x 0.5 / 1) = 50, whose normal interval 50 ± 98 leaves 0-100 %:
    # Wilson's over the one unit the SE is worth (issue 44), [5.46, 94.54]; two documents: the dagger
    assert "| **demo/replay** | official | 50.00 [5.46, 94.54]† |" in with_intervals
    # at 0 % a rate over 2 independent units gets Wilson's [0, 1.96^2 / (2 + 1.96^2)] = [0, 65.76], not 0 ± 0
    assert "| **demo/replay** | robust | 0.00 [0.00, 65.76]† | 0.00 [0.00, 65.76]† |" in with_intervals
    md = re.sub(r"( ± [0-9.]+| \[[0-9.]+, [0-9.]+\]| \(no interval: [^)]*\))†?", "", with_intervals)
    assert "## Task `" not in md  # nothing falls into the generic section any more
    for heading in (
        "## DiningBench — packaged sample (2 views)",
        "## FoodieQA — packaged sample",
        "## Food-500 Cap — packaged sample",
    ):
        assert heading in md
    r = results["results"]
    cls, nut, cap = r["diningbench_cls_sample"], r["diningbench_nutrition_sample"], r["food500cap_caption_sample"]
    # "Answer: B": the official parsers read the first letter (A), the robust ones B: both rows, from the JSON.
    for scorer, tail in (("official", "_official"), ("robust", "")):
        assert (
            f"| **demo/replay** | {scorer} | {cls[f'acc{tail},none']:.2f} | "
            f"{cls['cannot_read_rate_official,none'] if tail else cls['invalid_rate,none']:.2f} | "
            f"{nut[f'calories_mape{tail},none']:.2f} |"
        ) in md
        value = r["foodieqa_mivqa_zh_sample_p1"]["acc_paper_protocol,none" if tail else "acc,none"]
        assert f"| **demo/replay** | Multi-image ZH | {scorer} | – | {value:.2f} | – | – | – | – |" in md
    assert cls["acc_official,none"] != cls["acc,none"]
    assert (
        f"| **demo/replay** | official = robust | {cap['mean_caption_words,none']:.2f} | {cap['bleu4,none']:.2f} | "
        f"{cap['meteor,none']:.2f} | {cap['rouge_l,none']:.2f} | {cap['cider,none']:.2f} | absent [1] |"
    ) in md
    assert "absent [1]: no CLIP model given" in md and "absent [1]: no category-to-region mapping given" in md
    question_types = [f"foodieqa_{s}_sample_question_types.png" for s in ("mivqa_zh", "sivqa_en", "textqa_zh")]
    # beyond accuracy (issue 28): a position-bias chart per multiple-choice task of the run
    charts = sorted(p.name for p in made["charts"])
    assert [c for c in charts if not c.endswith("_position_bias.png")] == sorted(question_types)
    assert "diningbench_cls_sample_demo_replay_position_bias.png" in charts
