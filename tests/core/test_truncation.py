"""``truncated_rate``: outputs that ran out of tokens (reasoning never closed, or the whole ``max_new_tokens`` used),
in every task of every benchmark and in regional tasks (food_tasks.hooks.truncation)."""

from __future__ import annotations

import json
import random
import shutil
import time
from pathlib import Path
from types import SimpleNamespace

import pytest
from conftest import run_lmms_eval
from sample_records import SAMPLE_TASKS

from food_tasks.hooks import truncation
from food_tasks.hooks.convention import TRUNCATED_RATE, aggregate
from food_tasks.hooks.outputs import NoAnswer
from food_tasks.lmms import harness, results_table
from food_tasks.tasks import catalogue

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "regional"

RUNAWAY = "<think>" + "Let me look at the dish again. " * 550  # 16.5 KB of reasoning, never closed
assert len(RUNAWAY) > 16 * 1024

# (output, ran out of tokens)
CRAFTED = [
    ("<think>The broth is clear, so</think> 2", False),
    (RUNAWAY, True),
    ("<THINKING>cut off mid-thought", True),  # any case, as our parser reads it
    ("<analysis>never closed", True),  # lmms-eval's --reasoning_tags default pair
    ("<analysis>short</analysis> 3", False),
    ("<think>a</think> 1 <think>and again", True),  # closed once, then reopened
    ("<thinking>x</thinking> <think>y", True),  # several tags: the second never closed
    ("</think> 3", False),  # the chat template opened the block; the model closed it
    ("The answer is 3.", False),
    ("", False),
    (None, False),
    (42, False),
    (float("nan"), False),
    (["<think>"], False),
    ({"text": "<think>"}, False),
    (b"<think>", False),
    (NoAnswer("[LMMS_EVAL_REQUEST_FAILED after 2 retries] <think>"), False),
    (truncation.Spent("1"), True),  # the harness marked it: the whole max_new_tokens used
]


@pytest.mark.parametrize(("output", "expected"), CRAFTED, ids=range(len(CRAFTED)))
def test_each_crafted_output_is_counted_as_it_should(output, expected):
    assert truncation.truncated(output) is expected


def test_think_tags_pair_as_the_parser_pairs_them():
    # On <think>/<thinking> outputs, "never closed" is exactly the parser's unterminated reasoning (None).
    from food_tasks.hooks.parsing import strip_reasoning

    rng = random.Random(36)
    pieces = ["<think>", "</think>", "<thinking>", "</thinking>", "<THINK >", "</Thinking>", "a", " 3 "]
    for _ in range(5000):
        text = "".join(rng.choice(pieces) for _ in range(rng.randint(0, 8)))
        assert truncation.unclosed_reasoning(text) is (strip_reasoning(text) is None), text


def test_a_megabyte_of_tags_is_linear():
    # 200,000 opening tags with no closing one, and 1 MB of '<think' without '>': well under a second each.
    for text in ("<think>" * 200_000, "<think" + " " * 1_000_000, "<think><thinking></think>" * 40_000):
        start = time.perf_counter()
        truncation.truncated(text)
        assert time.perf_counter() - start < 1.0


@pytest.mark.parametrize(
    ("tokens", "budget", "expected"),
    [(64, 64, True), (65, 64, False), (63, 64, False), (None, 64, False), (64, None, False), (True, 1, False)],
)
def test_spent_compares_the_reported_tokens_with_the_budget(tokens, budget, expected):
    assert truncation.spent_in(("prompt", {"max_new_tokens": budget}, 0), {"output_tokens": tokens}) is expected


OUTPUTS = [output for output, _ in CRAFTED]
TRUNCATED = sum(expected for _, expected in CRAFTED)  # 8 of 18


@pytest.mark.parametrize("task", SAMPLE_TASKS)
def test_every_sample_task_counts_its_truncated_outputs(task):
    # Each document answered with each crafted output: truncated_rate = 8 / 18 of them, whatever the task.
    path = catalogue.index()[task]
    docs = list(catalogue.function(catalogue.yaml_key(path, "process_docs"))(None))
    process = catalogue.function(catalogue.yaml_key(path, "process_results"))
    payloads = [process(doc, [output])["truncated_rate"] for doc in docs for output in OUTPUTS]
    assert aggregate(payloads) == pytest.approx(100.0 * TRUNCATED / len(OUTPUTS))
    listed = catalogue.yaml_key(path, "metric_list") or []
    assert {"metric": "truncated_rate", "higher_is_better": False} in [
        {k: m.get(k) for k in ("metric", "higher_is_better")} for m in listed
    ], task


def test_documents_without_their_image_are_left_out():
    # As every metric: a document whose image could not be loaded counts nowhere; 1 of 2 left is truncated.
    from food_tasks.stats import uncertainty as stats

    records = [{"truncated": True}, {"truncated": False}, {"truncated": True, "image_missing": True}]
    assert TRUNCATED_RATE(records) == 50.0
    assert stats.estimate(TRUNCATED_RATE.estimator, records, [0, 1, 2]).n == 2


def test_the_regional_table_has_it():
    from food_tasks.regional_tasks.scoring import Settings, metric_table

    for fmt in ("mcq", "open"):
        block = {"format": fmt, "id": "id", "question": "question", "options": "options", "answer": "answer"}
        assert metric_table(Settings.from_metadata({"regional": block}))["truncated_rate"] is TRUNCATED_RATE


def _instance(output: str, tokens: int | None, budget: int = 64):
    from lmms_eval.api.instance import Instance, TokenCounts

    request = Instance(
        request_type="generate_until",
        arguments=("prompt", {"max_new_tokens": budget, "temperature": 0}, None, 0, "t", "test"),
        idx=0,
        metadata={"task": "t", "doc_id": 0, "repeats": 1},
    )
    request.filtered_resps = {"none": output}
    request.token_counts = [TokenCounts(output_tokens=tokens)] if tokens is not None else [None]
    return request


def test_the_harness_marks_an_answer_that_used_the_whole_budget():
    from lmms_eval.api.task import ConfigurableTask

    assert harness.install_budget()
    process = SimpleNamespace(tables=(TRUNCATED_RATE,))
    requests = [_instance("1", 64), _instance("2", 63), _instance("3", None), _instance("<think>x", 64)]
    ours = SimpleNamespace(config=SimpleNamespace(process_results=process), _instances=requests, instances=requests)
    ConfigurableTask.apply_filters(ours)
    marked = [r.filtered_resps["none"] for r in requests]
    assert [type(m) is truncation.Spent for m in marked] == [True, False, False, True]
    assert marked == ["1", "2", "3", "<think>x"]  # the text is unchanged
    assert [truncation.truncated(m) for m in marked] == [True, False, False, True]
    # Not our task (no food_tasks process_results): left alone.
    theirs = [_instance("1", 64)]
    ConfigurableTask.apply_filters(
        SimpleNamespace(config=SimpleNamespace(process_results=None), _instances=theirs, instances=theirs)
    )
    assert type(theirs[0].filtered_resps["none"]) is str


def test_the_table_shows_the_rate_only_above_zero():
    rows = {
        "zero": {"alias": "zero", "acc,none": 50.0, "truncated_rate,none": 0.0, "truncated_rate_stderr,none": 0.0},
        "some": {"alias": "some", "acc,none": 50.0, "truncated_rate,none": 12.5, "truncated_rate_stderr,none": 1.0},
    }
    shown = results_table.compact({"results": rows, "configs": {}}, "results", ["zero", "some"])["results"]
    assert "truncated_rate,none" not in shown["zero"] and "truncated_rate_stderr,none" not in shown["zero"]
    assert shown["some"]["truncated_rate,none"] == 12.5 and shown["some"]["truncated_rate_stderr,none"] == 1.0


# End to end: the replay model answers each document by position with these; a task of n documents counts the
# truncated ones among the first n (period 6).
E2E_ANSWERS = [RUNAWAY, "<think>ok</think> 1", "<analysis>never closed", "2", "<think>a</think><think>b", "B"]
E2E_TASKS = {  # task: documents
    "worldcuisines_mcq_sample_1a_nocontext": 9,  # answers 0-5, 0-2: 3 + 2 truncated
    "fambench_task1_sample": 4,  # 0-3: 2
    "diningbench_cls_sample": 2,  # 0-1: 1
    "foodieqa_sivqa_en_sample_p3": 2,  # 0-1: 1
    "food500cap_caption_sample": 5,  # 0-4: 3
    "regional_example_mcq": 6,  # 0-5: 3
}
EXPECTED = {
    "worldcuisines_mcq_sample_1a_nocontext": 100.0 * 5 / 9,
    "fambench_task1_sample": 50.0,
    "diningbench_cls_sample": 50.0,
    "foodieqa_sivqa_en_sample_p3": 50.0,
    "food500cap_caption_sample": 60.0,
    "regional_example_mcq": 50.0,
}


@pytest.mark.e2e
def test_a_replayed_run_reports_truncated_rate_per_task(tmp_path):
    regional = tmp_path / "regional"  # the example MCQ task alone
    shutil.copytree(EXAMPLE, regional)
    for other in regional.glob("*.yaml"):
        if other.name != "regional_example_mcq.yaml":
            other.unlink()
    responses = tmp_path / "responses.jsonl"
    lines = [json.dumps({"doc_id": i, "response": E2E_ANSWERS[i % len(E2E_ANSWERS)]}) for i in range(20)]
    responses.write_text("\n".join(lines) + "\n", encoding="utf-8")
    args = [
        "--model",
        "food_tasks_replay",
        "--model_args",
        f"responses={responses}",
        "--include_path",
        str(regional),
        "--tasks",
        ",".join(E2E_TASKS),
    ]
    proc, results, samples = run_lmms_eval(args, tmp_path / "out")
    assert results is not None, proc.stderr[-3000:]
    for task, expected in EXPECTED.items():
        assert results["results"][task]["truncated_rate,none"] == pytest.approx(expected), task
        assert results["higher_is_better"][task]["truncated_rate"] is False, task
        flags = [s["truncated_rate"] for s in samples[task]]
        assert len(flags) == E2E_TASKS[task], task
        shown = [next(v for k, v in s.items() if isinstance(v, dict) and "truncated" in v) for s in samples[task]]
        assert sum(r["truncated"] for r in shown) == round(expected * E2E_TASKS[task] / 100), task
    assert "truncated_rate" in proc.stdout  # the printed table shows it where it is above 0
