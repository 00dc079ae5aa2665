"""What ``food-tasks compare`` prints of a row: a [0, 1] score with the decimals the report shows it with (issue 34.7:
an F1 of 0.6123 printed as 0.61, a difference of +0.1123 as +0.11)."""

from __future__ import annotations

from food_tasks.compare import table as compare
from food_tasks.lmms.facts import tables_for
from food_tasks.stats.comparison import Row
from food_tasks.stats.uncertainty import Comparison

TASK = "fambench_task1_sample"


def _row(metric: str, a: float, b: float, declared: bool = True) -> Row:
    # 40 shared documents in 40 units: enough for an interval and a verdict (MIN_UNITS is 30)
    diff, se = a - b, 0.05
    c = Comparison(diff, se, diff - 1.96 * se, diff + 1.96 * se, 0.0245, 40, 40, 2.8 * se, "clustered analytic")
    table = tables_for(TASK)[0]
    return Row(TASK, metric, a, b, c, True, "", table[metric] if declared else None)


def test_a_unit_interval_score_has_the_reports_four_decimals():
    # The report's FAM-Bench table shows Macro F1 with 4 decimals: 0.61234 - 0.5 = +0.11234, +-1.96 x 0.05 = 0.098
    cells = compare.table_rows([_row("rationale_macro_f1", 0.61234, 0.5)])[0]
    assert cells[2:6] == ("0.6123", "0.5000", "+0.1123", "[+0.0143, +0.2103]")
    # Micro recall has no report column of its own: its declaration says 4 decimals, as its sibling Micro F1's column
    assert compare.table_rows([_row("rationale_micro_recall", 0.25, 0.125)])[0][2:5] == ("0.2500", "0.1250", "+0.1250")
    # The decimals live on the metric's declaration (issue 42): a row without one is never read by its name
    assert compare.table_rows([_row("rationale_micro_recall", 0.25, 0.125, False)])[0][2:5] == ("0.25", "0.12", "+0.12")


def test_a_percentage_keeps_two_decimals():
    # 11.234 -+ 0.098: [11.136, 11.332]
    cells = compare.table_rows([_row("decision_acc", 61.234, 50.0)])[0]
    assert cells[2:6] == ("61.23", "50.00", "+11.23", "[+11.14, +11.33]")


def test_a_task_without_a_metric_table_is_named_as_such_not_as_a_missing_samples_file():
    """A task both runs report that is neither one we ship nor a regional task (renamed, say) has no metric table to
    read its samples with: its row says so (it said "no samples file ... run with --log_samples", with the file
    there: the independent check's side finding)."""
    from food_tasks.lmms.facts import TaskFacts
    from food_tasks.stats.comparison import Read, task_rows

    read = Read("food500cap_caption_mysample", TaskFacts("food500cap_caption_mysample"), ({}, {}), (), {})
    (row,) = task_rows(read, True, 0)
    assert "no metric table" in row.note and "samples file" not in row.note


def test_an_image_gain_without_a_metric_table_says_so():
    """A task and its declared twin whose names we do not ship have no metric table: the image-gain line says so, not
    "no samples file ... (run with --log_samples)" beside existing files."""
    from food_tasks.stats.comparison import GainRead, gain_missing_reason

    read = GainRead("m", "A/A", "cap_mysample", "cap_mysample_noimage", (0, 0), ("a.json", "a.json"), {}, (False, True))
    why = gain_missing_reason(read)
    assert "no metric table" in why and "cap_mysample " in why + " " and "samples file" not in why
