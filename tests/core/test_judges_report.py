"""The report's Judges section and the same-family note of the report and ``food-tasks compare`` (issue 35.1, 35.3,
35.4), from results files written by hand (tests/core/test_regional_judge.py and tests/diningbench/test_judges_e2e.py
make them through lmms-eval)."""

from __future__ import annotations

import json
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


def _write(tmp_path, name: str, model: str, info: dict, stderr: dict | None = None, **metrics):
    values = {"judge_acc": 50.0, "judge_info": info, **metrics}
    path = write_results(tmp_path / name / "results.json", f"pretrained={model}", {"my_judged_task": values})
    if stderr:  # {metric: (standard error, clusters)}, as food_tasks.lmms.errorbars writes them
        data = json.loads(path.read_text())
        for metric, (se, clusters) in stderr.items():
            data["results"]["my_judged_task"][f"{metric}_stderr,none"] = se
            data["results"]["my_judged_task"][f"{metric}_clusters,none"] = clusters
        path.write_text(json.dumps(data))
    return path


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
    stderr = {"judge_agreement": (5.0, 40), "judge_kappa": (0.1, 12), "judge_acc": (10.0, 40)}
    _write(tmp_path, "a", "my-model", info, stderr, judge_agreement=70.0, judge_kappa=0.4, judge_majority_acc=None)
    build_report([tmp_path / "a"], tmp_path / "report", charts=False)
    md = (tmp_path / "report" / "report.md").read_text(encoding="utf-8")
    section = md.split("\n## Judges\n", 1)[1]
    # the results keys' own values and standard errors (1.96 x SE), not judge_info's: 0.1 x 1.96 = 0.196
    assert "Fleiss' kappa: 0.400 ± 0.196†" in section  # 12 clusters: fewer than 30
    assert "Agreement (all judges give the same verdict), %: 70.00 ± 9.80;" in section
    assert "its accuracy, %: 50.00 ± 19.60." in section and "the majority verdict's accuracy, %: undefined" in section
    assert "- 2 record(s) left out of the figures between judges" in section
    assert "| judge-a | 9 | 1 | 90.00 |" in section and "| judge-b | 7 | 3 | 70.00 |" in section
    assert (
        "| judge-a | 50.00 [40.00, 60.00] | undefined: one repeat | – | 0 | 10 | 2 | 1,200 | 30 | 0.0033 |" in section
    )
    unknown = "tokens unknown | tokens unknown | – |"
    assert f"| judge-c | 50.00 [40.00, 60.00] | undefined: one repeat | – | 0 | 10 | 2 | {unknown}" in section
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
    # the family note once, then (the two runs' headline judges differ) that warning, as the report's rule says
    assert len(warnings) == 2 and warnings[1].startswith("the headline judges differ, so judge figures are not")
    assert warnings[0].startswith(
        "A judge from the evaluated model's own family: `gpt-4o` judges gpt-4o-mini (OpenAI GPT / o-series); "
        "`Qwen2.5-72B-Instruct` judges Qwen/Qwen2-VL-7B-Instruct (Qwen)."
    )
    other = _write(tmp_path, "c", "llava-v1.6-mistral-7b", _info(["gpt-4o", "judge-x"]))
    assert not [text for kind, text in output(str(other), str(other)) if "own family" in text]


def test_a_judge_with_no_verdict_unreadable_replies_and_every_answer_cached(tmp_path):
    # judge-b was down (every call failed): its accuracy is undefined, not 0; judge-a replied "maybe" twice; every
    # answer of judge-a came from the cache (nothing sent: no new tokens); judge-b sent 5 requests without usage.
    info = _info(["judge-a", "judge-b"], not_asked=1, agreement_left_out=5)
    info["per_judge"]["judge-a"].update(unreadable=2, failed=0, not_asked=1)
    info["per_judge"]["judge-b"] = {
        "judge_acc": {"value": None, "interval": None, "n": 0},
        "flip_rate": "undefined: one repeat",
        "unreadable": 0,
        "failed": 5,
        "not_asked": 1,
    }
    info["usage"]["judge-a"].update(requests=0, cached=5, prompt_tokens=0, completion_tokens=0)
    info["usage"]["judge-b"].update(requests=5, cached=0, failed=5, prompt_tokens=None, completion_tokens=None)
    _write(tmp_path, "a", "my-model", info)
    build_report([tmp_path / "a"], tmp_path / "report", charts=False)
    section = (tmp_path / "report" / "report.md").read_text(encoding="utf-8").split("\n## Judges\n", 1)[1]
    cached = "no new tokens (5 cached)"
    assert f"| judge-a | 50.00 [40.00, 60.00] | undefined: one repeat | 2 | 0 | 0 | 5 | {cached} | {cached} | – |" in (
        section
    )
    assert "| judge-b | undefined: no verdict | undefined: one repeat | 0 | 5 | 5 | 0 | tokens unknown |" in section
    assert "- 1 record(s) with an empty answer: no judge was asked;" in section
