"""Every lmms-eval name food-tasks relies on, in one place (food_tasks.lmms.harness.HARNESS_API).

An lmms-eval upgrade that renames or removes one fails here first, with the name. Our code uses public names
only: no private attribute (``._x``), no stack walking; every lmms-eval import is listed.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from food_tasks.lmms import harness

REPO = Path(__file__).resolve().parents[2]
OUR_CODE = [*sorted((REPO / "food_tasks").rglob("*.py")), *sorted((REPO / "utils").glob("*.py"))]


@pytest.mark.parametrize(("module", "path", "why"), harness.HARNESS_API)
def test_every_name_we_rely_on_exists(module, path, why):
    assert harness.resolve(module, path) is not None, why


def _lmms_eval_names(path: Path) -> set[tuple[str, str]]:
    """(module, name) of every ``from lmms_eval.x import name`` and ``lmms_eval.x.name`` use in a file."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    found = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("lmms_eval"):
            found |= {(node.module, alias.name) for alias in node.names}
        elif isinstance(node, ast.Attribute):
            parts, inner = [], node
            while isinstance(inner, ast.Attribute):
                parts.append(inner.attr)
                inner = inner.value
            if isinstance(inner, ast.Name) and inner.id == "lmms_eval" and len(parts) >= 2:
                parts.reverse()
                found.add(("lmms_eval." + ".".join(parts[:-1]), parts[-1]))
    return found


def test_our_code_uses_only_listed_public_lmms_eval_names():
    listed = {(module, path.split(".")[0]) for module, path, _ in harness.HARNESS_API}
    for path in OUR_CODE:
        for module, name in _lmms_eval_names(path):
            where = f"{path.relative_to(REPO)}: {module}.{name}"
            assert not name.startswith("_") and not any(p.startswith("_") for p in module.split(".")), (
                f"private name: {where}"
            )
            assert (module, name) in listed or module == "lmms_eval.models" and name == "registry_v2", (
                f"{where} is not in food_tasks.lmms.harness.HARNESS_API: add it there (with why we need it)"
            )
        text = path.read_text(encoding="utf-8")
        assert "_getframe" not in text and "f_locals" not in text, f"{path.relative_to(REPO)} walks the call stack"


# test_opt_out_installs_no_wrap: tests/core/test_registration.py (one fresh interpreter per setting).


def test_task_type_is_chat_outside_a_load():
    # Inside TaskManager.load_task_or_group it is the call's task_type: tests/core/test_regional.py
    # (test_task_class_follows_the_model_kind) loads the example regional task both ways.
    assert harness.TASK_TYPE.get() == "chat"


@pytest.mark.e2e
def test_the_lmms_eval_behaviour_we_rely_on(tmp_path, monkeypatch):
    """HARNESS_API's "relied on (behaviour)" entries, in one lmms-eval run of fambench_task1_sample (4 documents,
    ``max_new_tokens`` 48) answered by ``food_tasks_replay keys=identity``, as ``food-tasks rescore`` runs it:

    * ``evaluate`` skips a document without requests: the run lacks document index 1, whose request the replay
      model gives ``doc_id`` NOT_SCORED; it is not scored (3 samples, truncated_rate of 3), nor does the run crash;
    * ``ConfigurableTask.process_results`` strips the answer and the Spent mark survives: document index 2 used its
      48 tokens (reported as a backend reports counts), so it is truncated; index 3 used 47, index 4 reported none.
    """
    import json
    import os

    import inprocess

    import food_tasks
    from food_tasks.replay_model import NOT_SCORED
    from food_tasks.runs import rescore

    assert NOT_SCORED == -1
    task = "fambench_task1_sample"
    lines = [
        {
            "task": task,
            "identity": {"index": 2},
            "doc_id": 1,
            "response": " 1 ",
            "token_counts": [{"output_tokens": 48}],
        },
        {"task": task, "identity": {"index": 3}, "doc_id": 2, "response": "1", "token_counts": [{"output_tokens": 47}]},
        {"task": task, "identity": {"index": 4}, "doc_id": 3, "response": "1"},
    ]
    responses = tmp_path / "answers.jsonl"
    responses.write_text("".join(json.dumps(x) + "\n" for x in lines), encoding="utf-8")
    monkeypatch.setattr(rescore, "MAX_SHARE", 0.5)  # one document of four left out
    argv = ["--model", "food_tasks_replay", "--model_args", f"responses={responses},keys=identity,model_name=b"]
    argv += ["--tasks", task, "--batch_size", "1", "--output_path", str(tmp_path / "run"), "--log_samples"]
    env = {**os.environ, "HF_HUB_OFFLINE": "1", "HF_DATASETS_OFFLINE": "1", "TOKENIZERS_PARALLELISM": "false"}
    food_tasks.reset()
    proc = inprocess.run(argv, env, tmp_path)
    found = list((tmp_path / "run").rglob("*_results.json"))
    assert found, proc.stdout[-3000:] + proc.stderr[-3000:]
    (samples,) = found[0].parent.glob(f"*_samples_{task}.jsonl")
    scored = [json.loads(line) for line in samples.read_text(encoding="utf-8").splitlines()]
    assert [s["doc_id"] for s in scored] == [1, 2, 3]  # document 0 (index 1) skipped, not scored as ""
    assert [s["decision_acc"]["truncated"] for s in scored] == [True, False, False]
    row = json.loads(found[0].read_text(encoding="utf-8"))["results"][task]
    assert row["truncated_rate,none"] == pytest.approx(100 / 3) and row["truncated_rate_n,none"] == 3
