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
