"""FAM-Bench data files damaged in a mirror: the process_docs hooks stop the lmms-eval run (no retry)
with a message naming the file and the line, record or field."""

from __future__ import annotations

import fambench_fixture as fx
import pytest

from food_tasks.benchmarks.fambench import data as fb_data
from food_tasks.data import hub as data


@pytest.fixture()
def damaged(tmp_path, monkeypatch):
    root = fx.build(tmp_path)
    monkeypatch.setenv(data.DATA_DIR_ENV, str(root))
    return root / "github" / fb_data.REPO


def _stop(hook_name: str) -> str:
    from food_tasks.utils import fambench as hooks

    with pytest.raises(data.RunStopped) as err:
        getattr(hooks, hook_name)(None)
    return str(err.value.code)


def test_truncated_task1_json_names_file_and_line(damaged):
    path = damaged / fb_data.TASK1_FILE
    text = path.read_text(encoding="utf-8")
    path.write_text(text[: len(text) // 2], encoding="utf-8")
    message = _stop("docs_task1_baseline_textimage")
    assert (
        message.startswith("food-tasks: data error") and f"{path} is not valid JSON" in message and " line " in message
    )


def test_record_without_gold_names_the_record(damaged):
    fx.build(
        damaged.parents[2], task1=[{**fx.TASK1[0]}, {k: v for k, v in fx.TASK1[1].items() if k != "standard answer"}]
    )
    assert "record 2" in _stop("docs_task1_cot_textimage") and "standard answer" in _stop("docs_task1_cot_textimage")


def test_missing_task2_file_names_the_path(damaged):
    (damaged / fb_data.TASK2_FILE).unlink()
    assert f"{damaged / fb_data.TASK2_FILE} is not a file" in _stop("docs_task2_ki_textimage")
