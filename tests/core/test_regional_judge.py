"""Open-answer regional tasks graded by an LLM judge (issue 35.6): the ``metadata.regional.judge`` block's checks,
the records the judge sees, and a run without a judge configured stopping before generation."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from food_tasks.cli import main as cli_main
from food_tasks.data.hub import RunStopped
from food_tasks.regional_tasks import judged
from food_tasks.regional_tasks import scoring as regional_scoring

ROOT = Path(__file__).resolve().parents[2]
EXAMPLE = ROOT / "examples" / "regional"
OPEN = {"format": "open", "id": "id", "question": "question", "answer": "answer"}


def problems(judge, fmt="open") -> list[str]:
    return regional_scoring.settings_problems({"regional": {**OPEN, "format": fmt, "judge": judge}})


@pytest.mark.parametrize(
    "judge, expected",
    [
        (
            {"prompt": "Q: {question}\nGold: {gold}\nPred: {prediction}"},
            ["metadata.regional.judge.prompt: {gold} is not one of {question}, {answer}, {prediction}"],
        ),
        (
            {"prompt": "Is {answer} right for {question}?"},
            ["metadata.regional.judge.prompt: must contain {prediction} (the model's answer the judge grades)"],
        ),
        (
            {"prompt": "{prediction} {"},
            [
                "metadata.regional.judge.prompt: Single '{' encountered in format string "
                "(write literal braces as {{ }})"
            ],
        ),
        ({"prompt": 3}, ["metadata.regional.judge.prompt: must be a string"]),
        ({"promt": "x"}, ["metadata.regional.judge.promt: unknown key (known: prompt, max_tokens, temperature)"]),
        ({"max_tokens": 0}, ["metadata.regional.judge.max_tokens: 0 is not a positive integer"]),
        ({"temperature": "hot"}, ["metadata.regional.judge.temperature: 'hot' is not a number from 0 to 2"]),
        ("yes", ["metadata.regional.judge: give a mapping (prompt, max_tokens, temperature; each optional) or `true`"]),
    ],
)
def test_validate_checks_the_judge_prompt_fields(judge, expected):
    assert problems(judge) == expected
    with pytest.raises(regional_scoring.RegionalConfigError, match="food-tasks regional task"):
        regional_scoring.Settings.from_metadata({"regional": {**OPEN, "judge": judge}})


def test_an_mcq_task_is_not_judged():
    block = {"format": "mcq", "question": "q", "answer": "a", "options": "options", "judge": True}
    assert regional_scoring.settings_problems({"regional": block}) == [
        "metadata.regional.judge: only open-answer tasks (format: open) are judged; remove it"
    ]


def test_judge_settings_and_default_prompt():
    assert problems({}) == problems(True) == problems({"max_tokens": 8, "temperature": 0.7}) == []
    assert problems({"prompt": "{question}|{answer}|{prediction}"}) == []
    s = regional_scoring.Settings.from_metadata({"regional": {**OPEN, "judge": True}})
    assert s.judge == judged.JudgeSettings(judged.JUDGE_PROMPT, 16, 0.0)
    assert regional_scoring.Settings.from_metadata({"regional": OPEN}).judge is None
    custom = regional_scoring.Settings.from_metadata(
        {"regional": {**OPEN, "judge": {"prompt": "{question}|{answer}|{prediction}", "max_tokens": 4}}}
    ).judge
    assert custom == judged.JudgeSettings("{question}|{answer}|{prediction}", 4, 0.0)
    # values are not scanned for fields again: an answer with braces reaches the judge as written
    assert custom.fill("Q?", "{x}", "{prediction}") == "Q?|{x}|{prediction}"
    default = judged.JudgeSettings().fill("Which dish?", "rendang", "Rendang.")
    assert "Question:\nWhich dish?\n\nReference answer:\nrendang\n\nCandidate answer:\nRendang.\n\n" in default
    assert default.endswith("Reply with one word: yes or no.")


def test_a_judged_record_carries_what_the_judge_sees():
    s = regional_scoring.Settings.from_metadata({"regional": {**OPEN, "judge": True}})
    row = {"id": "r1", "question": "Which dish?", "answer": '["nasi goreng", "fried rice"]'}
    record = regional_scoring.score(s, row, "<think>hm</think> Nasi goreng ")
    assert record["question"] == "Which dish?" and record["gold"] == "nasi goreng / fried rice"
    assert record["prediction"] == "Nasi goreng" and record["correct"] is True
    assert regional_scoring.score(s, row, 7)["prediction"] == ""  # not a string: no answer, never an exception
    plain = regional_scoring.score(regional_scoring.Settings.from_metadata({"regional": OPEN}), row, "x")
    assert not {"question", "gold", "prediction"} & set(plain)  # an unjudged task's records are unchanged


def test_validate_names_the_judge_prompt_problem(tmp_path, capsys):
    folder = tmp_path / "tasks"
    shutil.copytree(EXAMPLE, folder, ignore=shutil.ignore_patterns("*.yaml", "*.py"))
    text = (EXAMPLE / "regional_example_open_judged.yaml").read_text(encoding="utf-8")
    text = text.replace("      max_tokens: 16", '      prompt: "{question} {gold}"\n      max_tokens: 16', 1)
    assert "{gold}" in text
    (folder / "t.yaml").write_text(text, encoding="utf-8")
    assert cli_main(["validate", "--no-images", str(folder / "t.yaml")]) == 1
    out = " ".join(capsys.readouterr().out.split())  # lines wrapped at 120 columns
    assert "metadata.regional.judge.prompt: {gold} is not one of {question}, {answer}, {prediction}" in out
    assert "metadata.regional.judge.prompt: must contain {prediction}" in out


def test_a_judged_task_without_a_judge_stops_before_generation(tmp_path, monkeypatch):
    import lmms_eval.models  # noqa: F401  (our entry point: the harness wraps, as in a CLI run)
    from lmms_eval.tasks import TaskManager

    monkeypatch.delenv("FOOD_TASKS_JUDGE_MODEL", raising=False)
    monkeypatch.setenv("API_TYPE", "openai")
    manager = TaskManager(include_path=str(EXAMPLE), include_defaults=False)
    with pytest.raises(RunStopped) as err:
        manager.load_task_or_group(["regional_example_open_judged"], task_type="simple")
    message = str(err.value)
    lines = message.splitlines()
    assert " ".join(" ".join(lines[:2]).split()) == (  # wrapped at 120 columns, the YAML on a line of its own
        "food-tasks: regional task regional_example_open_judged: the LLM judge is not configured, the run stops "
        "before generation:"
    )
    assert lines[2].startswith("  YAML: ") and lines[2].endswith("examples/regional/regional_example_open_judged.yaml")
    assert lines[3].startswith("regional task regional_example_open_judged is scored by an LLM judge, but")
    assert "FOOD_TASKS_JUDGE_MODEL is not set" in message and "Check the task with:" not in message
    assert "  export FOOD_TASKS_JUDGE_MODEL=<judge model name>" in lines
    # The unjudged example in the same folder needs no judge.
    monkeypatch.setenv("FOOD_TASKS_JUDGE_MODEL", "")
    assert manager.load_task_or_group(["regional_example_open"], task_type="simple")
