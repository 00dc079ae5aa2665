"""The DiningBench task and group names our YAML files declare, and their `food-tasks list` rows (the core
registration test checks that lmms-eval indexes every declared name)."""

from __future__ import annotations

import re

from food_tasks.cli import main
from food_tasks.tasks.catalogue import names as yaml_names


def test_diningbench_tasks_groups_and_list_rows(capsys):
    names = {name: kind for name, kind, bench in yaml_names() if bench == "diningbench"}
    assert {n for n, k in names.items() if k == "group"} == {"diningbench_zh", "diningbench_en", "diningbench_noimage"}
    # per language 5 classification + 5 nutrition + 2 VQA; 3 samples (classification, nutrition, the judged VQA
    # sample); 2 groups; 3 _circular classification (zh, en, sample); image-free twins: classification and VQA per
    # language, the classification sample, and their group (issue 28)
    assert len(names) == 2 * 12 + 3 + 2 + 3 + (4 + 1 + 1)
    assert {n for n in names if n.endswith("_circular")} == {
        "diningbench_cls_zh_circular",
        "diningbench_cls_en_circular",
        "diningbench_cls_sample_circular",
    }
    assert main(["list"]) == 0
    listing = capsys.readouterr().out
    for row in (
        r"diningbench_cls_zh_v2 +task +diningbench +2884 +diningbench\n.*\n"
        r"  diningbench: +hf\.co/datasets/meituan/DiningBench",
        r"diningbench_nutrition_en_cot +task +diningbench +1650 ",
        r"diningbench_vqa_en +task +diningbench +804 ",
        r"diningbench_cls_sample +task +diningbench +2 ",
        r"diningbench_cls_en_circular +task +diningbench +23072 ",
        r"diningbench_cls_sample_circular +task +diningbench +16 ",
        r"diningbench_vqa_zh_noimage +task +diningbench +804 ",
        r"diningbench_cls_sample_noimage +task +diningbench +2 +sample$",
        r"diningbench_noimage +group +diningbench +7376 ",
    ):
        assert re.search(row, listing, re.M | re.S), row
