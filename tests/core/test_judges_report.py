"""The report's Judges section and the same-family note of the report and ``food-tasks compare`` (issue 35.1, 35.3,
35.4), from results files written by hand (tests/core/test_regional_judge.py and tests/diningbench/test_judges_e2e.py
make them through lmms-eval)."""

from __future__ import annotations

import math

from results_files import write_results

from food_tasks.compare.command import WARNING, output
from food_tasks.report import build_report


def _figure(value: float, low: float, high: float, clusters: int = 40) -> dict:
    return {"value": value, "interval": [low, high], "se": None, "n": clusters, "clusters": clusters}


def _info(judges: list[str], **extra) -> dict:
    usage = {
        name: {"model": name, "requests": 10, "cached": 2, "failed": 0, "prompt_tokens": 1200, "completion_tokens": 30}
        for name in judges
    }
    return {
        "model": judges[0],
        "endpoint": "127.0.0.1:9",
        "judges": judges,
        "repeats": 1,
        "per_judge": {
            n: {"judge_acc": _figure(50.0, 40.0, 60.0), "flip_rate": "undefined: one repeat"} for n in judges
        },
        "usage": usage,
        **extra,
    }


def _write(tmp_path, name: str, model: str, info: dict, **metrics):
    values = {"judge_acc": 50.0, "judge_info": info, **metrics}
    return write_results(tmp_path / name / "results.json", f"pretrained={model}", {"my_judged_task": values})


def test_three_judges_each_against_the_majority_and_tokens_unknown(tmp_path):
    info = _info(
        ["judge-a", "judge-b", "judge-c"],
        agreement={"judge_agreement": _figure(70.0, 60.0, 80.0), "judge_kappa": _figure(0.4, 0.2, 0.6, clusters=12)},
        verdict_table={"versus_majority": {"judge-a": {"agree": 9, "n": 10}, "judge-b": {"agree": 7, "n": 10}}},
        agreement_left_out=2,
        majority_ties=0,
        disagreements=[
            {
                "id": "r|1",
                "question": "Q <i>",
                "gold": "a_b",
                "prediction": "`yes` [x](y)",
                "verdicts": {"judge-a": "correct", "judge-b": "wrong", "judge-c": "wrong"},
            }
        ],
    )
    info["usage"]["judge-c"].update(prompt_tokens=None, completion_tokens=None, cost=None)  # a server without usage
    info["usage"]["judge-a"]["cost"] = 0.0033
    _write(tmp_path, "a", "my-model", info, judge_agreement=70.0, judge_kappa=0.4)
    build_report([tmp_path / "a"], tmp_path / "report", charts=False)
    md = (tmp_path / "report" / "report.md").read_text(encoding="utf-8")
    section = md.split("\n## Judges\n", 1)[1]
    assert "Fleiss' kappa: 0.400 [0.200, 0.600]†" in section  # 12 clusters: fewer than 30
    assert "Agreement (all judges give the same verdict), %: 70.00 [60.00, 80.00];" in section
    assert "- 2 record(s) left out of the figures between judges" in section
    assert "| judge-a | 9 | 1 | 90.00 |" in section and "| judge-b | 7 | 3 | 70.00 |" in section
    assert "| judge-a | 50.00 [40.00, 60.00] | undefined: one repeat | 10 | 2 | 0 | 1,200 | 30 | 0.0033 |" in section
    assert (
        "| judge-c | 50.00 [40.00, 60.00] | undefined: one repeat | 10 | 2 | 0 | tokens unknown | tokens unknown | – |"
        in (section)
    )
    # model output escaped, never rendered: the pipe stays in its cell, the link and code are text
    assert "| r\\|1 | Q &lt;i&gt; | a\\_b | \\`yes\\` \\[x\\]\\(y\\) | correct | wrong | wrong |" in section
    html = (tmp_path / "report" / "report.html").read_text(encoding="utf-8")
    assert "<td>`yes` [x](y)</td>" in html and "<td>Q &lt;i&gt;</td>" in html and "<code>yes</code>" not in html


def test_one_judge_gets_no_section_and_no_family_note(tmp_path):
    _write(tmp_path, "a", "my-model", {"model": "judge-test", "endpoint": "127.0.0.1:9"})
    build_report([tmp_path / "a"], tmp_path / "report", charts=False)
    md = (tmp_path / "report" / "report.md").read_text(encoding="utf-8")
    assert "## Judges" not in md and "own family" not in md


def test_a_judge_of_the_models_own_family_is_said_once(tmp_path):
    info = _info(["gpt-4o", "claude-3-5-sonnet"], agreement={"judge_agreement": _figure(math.nan, 0, 0)})
    a = _write(tmp_path, "a", "gpt-4o-mini", info)
    b = _write(tmp_path, "b", "Qwen/Qwen2-VL-7B-Instruct", _info(["Qwen2.5-72B-Instruct", "gpt-4o"]))
    build_report([a, b], tmp_path / "report", charts=False)
    md = (tmp_path / "report" / "report.md").read_text(encoding="utf-8")
    note = [line for line in md.splitlines() if "own family" in line]
    assert note == [
        "> **⚠ A judge from the evaluated model's own family: `gpt-4o` judges gpt-4o-mini (OpenAI GPT / o-series); "
        "`Qwen2.5-72B-Instruct` judges Qwen/Qwen2-VL-7B-Instruct (Qwen). LLM judges tend to prefer answers of their "
        "own kind (self-preference, Zheng et al. 2023): prefer a judge from another family, or add one "
        "(docs/judge.md).**"
    ]
    warnings = [text for kind, text in output(str(a), str(b)) if kind == WARNING]
    assert len(warnings) == 1 and warnings[0].startswith(
        "A judge from the evaluated model's own family: `gpt-4o` judges gpt-4o-mini (OpenAI GPT / o-series); "
        "`Qwen2.5-72B-Instruct` judges Qwen/Qwen2-VL-7B-Instruct (Qwen)."
    )
    other = _write(tmp_path, "c", "llava-v1.6-mistral-7b", _info(["gpt-4o", "judge-x"]))
    assert not [text for kind, text in output(str(other), str(other)) if "own family" in text]
