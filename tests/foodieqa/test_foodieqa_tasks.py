"""FoodieQA's `food-tasks list` rows (its names are pinned by test_foodieqa_registration.py)."""

from __future__ import annotations

import re

from food_tasks.cli import main


def test_foodieqa_list_rows(capsys):
    assert main(["list"]) == 0
    listing = capsys.readouterr().out
    for row in (
        r"foodieqa_mivqa_zh_p0 +task +foodieqa +403 +foodieqa\n.*\n"
        r"  foodieqa: +hf\.co/datasets/lyan62/FoodieQA \(gated: FoodieQA\.zip\)",
        r"foodieqa_sivqa_zh_dishname_noimage_p3 +task +foodieqa +256 ",
        r"foodieqa_textqa_zh_p0 +task +foodieqa +705 ",
        r"foodieqa_textqa_zh_sample_p2 +task +foodieqa +2 ",
        r"foodieqa_mivqa_en_noimage_p2 +task +foodieqa +403 ",
        r"foodieqa_noimage +group +foodieqa +5272 ",
        r"foodieqa_sample_noimage +group +foodieqa +4 +sample$",
        r"foodieqa_sample +group +foodieqa +6 +sample\n.*\n"
        r"  sample: +packaged sample \(installed with food-tasks; offline, no account needed\)",
    ):
        assert re.search(row, listing, re.M | re.S), row
