"""Every packaged sample task is covered by the serving tests (one ``Family`` entry per benchmark)."""

from __future__ import annotations

import yaml
from serving_harness import FAMILIES

from food_tasks.registration import task_dir


def test_every_sample_task_has_a_family():
    group = yaml.safe_load((task_dir() / "_food_tasks_sample.yaml").read_text(encoding="utf-8"))
    covered = {name for family in FAMILIES for name in family.run}
    missing = sorted(set(group["task"]) - covered)
    assert not missing, f"add a Family entry for {missing} to tests/serving/serving_harness.py (FAMILIES)"

