"""Undefined is null (issue 43, item 2): a rate over zero units is ``null`` in the results file and "undefined" in
the printed table, ``food-tasks compare`` and the report, in every benchmark and in regional tasks, never 0.

Every image of the sample tasks (and of the regional example) is made unreachable, as in a network outage: each
decode fails (``food_tasks.data.images.decode``, the fetched images' ``remote._decode``), so every document with an
image is counted in ``image_missing`` and left out of every robust denominator. Was: ``"acc,none": 0.0`` beside
``acc_n: 0``, and the report printed 0.00, as for a model that scores 0.
"""

from __future__ import annotations

import json
import math
import shutil
from pathlib import Path

import pytest
from conftest import run_lmms_eval

pytestmark = pytest.mark.e2e

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "regional"
# task -> its headline metric, which counts only documents whose images reached the model
HEADLINES = {
    "diningbench_cls_sample": "acc",
    "diningbench_nutrition_sample": "calories_mae",
    "fambench_task1_sample": "decision_acc",
    "food500cap_caption_sample": "sla_accurate",
    "foodieqa_mivqa_zh_sample_p1": "acc",
    "worldcuisines_mcq_sample_1a_nocontext": "acc",
    "worldcuisines_oeq_sample_1a_nocontext": "acc_multi",
    "regional_example_mcq": "acc",
}


@pytest.fixture(scope="module")
def run(tmp_path_factory):  # type: ignore[no-untyped-def]
    from food_tasks.data import images, remote

    work = tmp_path_factory.mktemp("unreachable")
    shutil.copytree(EXAMPLE, work / "regional", ignore=shutil.ignore_patterns("*.py", "group"))
    preds = work / "responses.jsonl"
    preds.write_text('{"doc_id": 999999, "response": "A"}\n', encoding="utf-8")

    def unreachable(data, what):  # type: ignore[no-untyped-def]
        raise images._corrupt(what, "unreachable (network outage)")

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(images, "decode", unreachable)
        patch.setattr(remote, "_decode", lambda data: (None, "unreachable (network outage)"))
        args = [
            "--model",
            "food_tasks_replay",
            "--model_args",
            f"responses={preds},default=A,load_images=true",
            "--include_path",
            str(work / "regional"),
            "--tasks",
            ",".join(HEADLINES),
        ]
        proc, results, _ = run_lmms_eval(args, work / "out")
    assert results is not None, proc.stdout[-3000:] + proc.stderr[-3000:]
    (path,) = (work / "out").rglob("*_results.json")
    return proc, results, path


@pytest.mark.parametrize("task", sorted(HEADLINES))
def test_a_rate_over_zero_units_is_null_in_the_results_file(run, task):
    _, results, path = run
    row = results["results"][task]
    metric = HEADLINES[task]
    assert row["image_missing,none"] > 0 and row[f"{metric}_n,none"] == 0, row
    assert row[f"{metric},none"] is None, (task, metric, row[f"{metric},none"])  # was 0.0
    zero_units = [k for k in row if k.endswith("_n,none") and row[k] == 0]
    values = [row[k.replace("_n,none", ",none")] for k in zero_units]  # None, or absent with its reason
    assert values and all(v is None or str(v).startswith("absent:") for v in values), row
    text = path.read_text(encoding="utf-8")
    assert "NaN" not in text and f'"{metric},none": null' in text  # strict JSON


def test_the_table_compare_and_the_report_say_undefined(run, tmp_path):
    from food_tasks.compare.command import output
    from food_tasks.report import build_report

    proc, _, path = run
    assert "[undefined]" in proc.stdout
    text = "\n".join(line for kind, line in output(str(path), str(path)) if kind == "line")
    rows = [line for line in text.splitlines() if line.strip().startswith("acc ")]
    assert rows and all(line.split()[1:3] == ["undefined", "undefined"] for line in rows), text
    report = (Path(build_report([path], tmp_path / "report", charts=False)["markdown"])).read_text(encoding="utf-8")
    table = [line for line in report.splitlines() if line.startswith("| **food_tasks_replay")]
    assert table and not any("| 0.00" in line and "undefined" not in line for line in table[:1]), table
    assert "undefined" in report


def test_a_group_mean_of_undefined_subtasks_is_undefined_and_the_best_skips_them():
    from food_tasks.stats import metrics

    assert math.isnan(metrics.group_mean_official_numpy([math.nan, 50.0], [2, 2]))  # was: ValueError
    assert metrics.group_max([math.nan, 50.0, 25.0], [2, 2, 2]) == 50.0  # was: nan, or 50 in another order
    assert math.isnan(metrics.group_max([math.nan], [2])) and metrics.group_max([], []) == 0.0


def test_the_rule_is_the_estimators_count_not_the_value():
    # A metric whose documents all count and all score 0 keeps its 0; over no counted document it is NaN.
    from food_tasks.hooks.convention import Metric, MetricTable, Payload, aggregate
    from food_tasks.stats import uncertainty as stats

    acc = Metric(
        "acc",
        lambda rs: 100.0 * sum(r["ok"] for r in rs if not r["gone"]) / max(1, sum(not r["gone"] for r in rs)),
        estimator=stats.mean(stats.field("ok", unless="gone"), 100.0, binary=True),
    )
    table = MetricTable(acc, key=stats.column("id"))
    wrong = [{"id": i, "ok": False, "gone": False} for i in range(3)]
    gone = [{"id": i, "ok": True, "gone": True} for i in range(3)]
    assert aggregate([Payload({}, r, table, "acc") for r in wrong]) == 0.0
    assert math.isnan(aggregate([Payload({}, r, table, "acc") for r in gone]))
    assert json.dumps(None) == "null"
