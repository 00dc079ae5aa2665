"""What a newcomer still tripped on (issue 44, "What a newcomer still trips on"): the folders our commands write by
default are ignored by git, the rescore hints read the variant declarations, messages fit 120 columns."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from food_tasks import cli

REPO = Path(__file__).resolve().parents[2]


@pytest.mark.skipif(shutil.which("git") is None, reason="needs git")
@pytest.mark.parametrize(
    "folder",
    [
        cli.DEMO_OUTPUT,  # food-tasks demo
        "food_tasks_report",  # food-tasks report
        # food-tasks rescore of the demo's run: <output_path>_rescored beside it
        f"{cli.DEMO_OUTPUT}_rescored",
    ],
)
def test_the_default_output_folders_are_ignored_by_git(folder):
    out = subprocess.run(
        ["git", "check-ignore", "--no-index", "-q", f"{folder}/model/20260101_000000_results.json"],
        cwd=REPO,
        capture_output=True,
        text=True,
    )
    assert out.returncode == 0, f"{folder}/ is not in .gitignore ({out.stderr})"


def _leaves(name: str, groups: dict[str, tuple[str, ...]]) -> list[str]:
    return [leaf for m in groups[name] for leaf in _leaves(m, groups)] if name in groups else [name]


def test_rescore_hints_name_every_variant_the_demo_run_lacks(tmp_path):
    # The demo's run (its groups and leaf tasks, as lmms-eval records them); the hints read the variants that the
    # YAMLs declare on its leaf tasks, and name a group where one holds them all (was: only variants of the
    # tasks named in --tasks, so the rotated and image-free groups of the sample groups were left out).
    from food_tasks.runs.rescore import Source, more_runs
    from food_tasks.tasks import catalogue

    groups = {name: members for name, kind, _, members in catalogue.entries() if kind == "group"}
    top = cli.demo_tasks().split(",")
    subtasks = {g: list(groups[g]) for g in top if g in groups}
    tasks = [leaf for name in top for leaf in _leaves(name, groups)]
    source = Source(tmp_path / "r_results.json", {"group_subtasks": subtasks}, tasks, {})
    hinted = {line.split(": run ")[1]: line.split(": run ")[0].strip() for line in more_runs(source, tasks)}
    assert hinted == {
        "diningbench_cls_sample_circular": "rotation (circular accuracy, flips)",
        "diningbench_cls_sample_noimage": "image gain",
        "food500cap_caption_sample_noimage": "image gain",
        "foodieqa_sample_circular": "rotation (circular accuracy, flips)",
        "foodieqa_sample_noimage": "image gain",
        "worldcuisines_mcq_sample_circular": "rotation (circular accuracy, flips)",
        "worldcuisines_mcq_sample_noimage": "image gain",
        "worldcuisines_oeq_sample_noimage": "image gain",
    }


def test_rescore_hints_name_a_leaf_variant_when_no_group_holds_all(tmp_path):
    # One leaf of a rotated group's tasks in the run: its own variant is named, not the group.
    from food_tasks.runs.rescore import Source, more_runs
    from food_tasks.tasks import registry

    leaf = "worldcuisines_mcq_sample_1a_nocontext"
    source = Source(tmp_path / "r_results.json", {}, [leaf], {})
    lines = more_runs(source, [leaf])
    named = [line.split(": run ")[1] for line in lines]
    assert "worldcuisines_mcq_sample_circular" not in named
    assert named and all(registry.variant(n) and registry.variant(n)[1] == leaf for n in named), lines
