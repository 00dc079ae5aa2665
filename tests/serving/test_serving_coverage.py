"""Every packaged sample task is covered by the serving tests (one ``Family`` entry per benchmark)."""

from __future__ import annotations

from serving_harness import FAMILIES

from food_tasks.benchmarks import BENCHMARKS


def test_every_sample_task_has_a_family():
    covered = {name for family in FAMILIES for name in family.run}
    missing = sorted({t for b in BENCHMARKS for t in b.sample_tasks} - covered)
    assert not missing, f"add a Family entry for {missing} to tests/serving/serving_harness.py (FAMILIES)"
