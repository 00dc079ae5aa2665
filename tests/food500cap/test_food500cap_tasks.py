"""The Food-500 Cap task and group names our YAML files declare, and their `food-tasks list` rows (the core
registration test checks that lmms-eval indexes every declared name)."""

from __future__ import annotations

import re

from food_tasks.cli import main
from food_tasks.tasks.catalogue import names as yaml_names


def test_food500cap_tasks_groups_and_list_rows(capsys):
    names = {name: kind for name, kind, bench in yaml_names() if bench == "food500cap"}
    assert {n for n, k in names.items() if k == "group"} == {"food500cap", "food500cap_noimage"}
    # caption, caption_food, caption_all, caption_sample + the food500cap group, each with its image-free twin
    # (issue 28)
    assert len(names) == 2 * (4 + 1)
    assert main(["list"]) == 0
    listing = capsys.readouterr().out
    for row in (
        r"food500cap_caption +task +food500cap +4940 +food500cap\n.*\n"
        r"  food500cap: +github\.com/aaronma2020/Food500-Cap@a32dfe9",
        r"food500cap_caption_food +task +food500cap +4940 ",
        r"food500cap_caption_all +task +food500cap +24732 ",
        r"food500cap_caption_sample +task +food500cap +5 ",
        r"food500cap_caption_food_noimage +task +food500cap +4940 ",
        r"food500cap_caption_sample_noimage +task +food500cap +5 +sample$",
        r"food500cap_noimage +group +food500cap +9880 ",
    ):
        assert re.search(row, listing, re.M | re.S), row
