"""The FAM-Bench task and group names our YAML files declare, their `food-tasks list` rows, and every hook the
YAML names (the core registration test checks that lmms-eval indexes every declared name)."""

from __future__ import annotations

import importlib
import re
from pathlib import Path

import yaml

from food_tasks.cli import main
from food_tasks.tasks.catalogue import names as yaml_names

REPO = Path(__file__).resolve().parents[2]
GROUPS = {
    "fambench_task1_all",
    "fambench_task2_all",
    "fambench_table1",
    "fambench_table2",
    "fambench_baseline",
    "fambench_cot",
    "fambench_ki",
    "fambench_cot_ki",
}


def test_fambench_tasks_groups_and_list_rows(capsys):
    names = {name: kind for name, kind, bench in yaml_names() if bench == "fambench"}
    assert {n for n, k in names.items() if k == "group"} == GROUPS
    # 12 Task 1, 12 rank, 12 decision, 4 CTC and 1 all-mode CTC tasks, 2 sample tasks + 8 groups.
    assert len(names) == 41 + 2 + 8
    assert main(["list"]) == 0
    listing = capsys.readouterr().out
    for row in (
        r"fambench_task2_ctc_all +task +fambench +8000 +fambench\n.*\n"
        r"  fambench: +github\.com/anonymous-research-artifact123/Food-as-medicine@abfaf02",
        r"fambench_task1_cot_ki +task +fambench +1500 ",
        r"fambench_task2_ctc_cot +task +fambench +2000 ",
        r"fambench_task1_sample +task +fambench +4 ",
        r"fambench_table1 +group +fambench +14000 +fambench$",
    ):
        assert re.search(row, listing, re.M | re.S), row


def test_every_fambench_hook_resolves():
    class _Loader(getattr(yaml, "CSafeLoader", yaml.SafeLoader)):  # libyaml: ten times faster on our 276 YAMLs
        pass

    refs = []
    _Loader.add_constructor("!function", lambda loader, node: refs.append(loader.construct_scalar(node)))
    for path in (REPO / "yaml_tasks" / "fambench").iterdir():
        if path.suffix == ".yaml" or path.name.endswith("_yaml"):
            yaml.load(path.read_text(), Loader=_Loader)
    assert len(refs) > 100
    for ref in refs:
        module, name = ref.rsplit(".", 1)
        assert callable(getattr(importlib.import_module(module), name)), ref
