"""The WorldCuisines task and group names our YAML files declare, and their `food-tasks list` rows (the core
registration test checks that lmms-eval indexes every declared name)."""

from __future__ import annotations

import re

from food_tasks.cli import main
from food_tasks.tasks.catalogue import names as yaml_names

GROUPS = {
    f"worldcuisines_{kind}{variant}{noimage}"
    for kind in ("mcq", "oeq")
    for variant in ("", "_small", "_smallref", "_sample")
    for noimage in ("", "_noimage")
}
GROUPS |= {"worldcuisines_mcq_circular", "worldcuisines_mcq_sample_circular"}  # options rotated (MCQ only)


def test_worldcuisines_tasks_groups_and_list_rows(capsys):
    names = {name: kind for name, kind, bench in yaml_names() if bench == "worldcuisines"}
    assert {n for n, k in names.items() if k == "group"} == GROUPS
    # 8 variants (MCQ/OEQ x large, small, smallref, sample) + 2 _circular MCQ (large, sample), x 4 subtasks; 10 groups;
    # the 8 variants' image-free twins (8 x 4 tasks + 8 groups)
    assert len(names) == 10 * 4 + 10 + 8 * 4 + 8
    assert main(["list"]) == 0
    listing = capsys.readouterr().out
    for row in (
        r"worldcuisines_mcq_1a_nocontext +task +worldcuisines +15000 +worldcuisines\n.*\n"
        r"  worldcuisines: +hf\.co/datasets/worldcuisines/vqa",
        r"worldcuisines_mcq_smallref_2_location +task +worldcuisines +3000 ",
        r"worldcuisines_oeq_small_1b_contextualized +task +worldcuisines +3000 ",
        r"worldcuisines_oeq_sample_2_location +task +worldcuisines +9 ",
        r"worldcuisines_mcq +group +worldcuisines +60000 +worldcuisines$",
        r"worldcuisines_mcq_sample_circular_2_location +task +worldcuisines +45 ",
        r"worldcuisines_mcq_noimage_1c_adversarial +task +worldcuisines +15000 ",
        r"worldcuisines_oeq_small_noimage +group +worldcuisines +12000 ",
        r"worldcuisines_mcq_sample_noimage_2_location +task +worldcuisines +9 +sample$",
    ):
        assert re.search(row, listing, re.M | re.S), row
