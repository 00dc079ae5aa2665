"""What the serving-path tests share.

``FAMILIES`` is the table of task families under test: which tasks, how to get their documents and
chat messages (our own hooks), the scripted answer for each document, the YAML token budget and
hand-computed scores. Adding a benchmark's sample tasks to every serving test is one entry here.

Each test then runs the real lmms-eval CLI with one backend (a stand-in ``vllm`` module, an
OpenAI-compatible test server, several processes of the replay model) and checks:
  - what reached the engine, request by request, against our ``doc_to_messages`` (roles, system
    turn, text verbatim, images as data URLs decoding to the same pixels, their count and order);
  - the scores: hand-computed headline values, and every other number equal to the replay model's
    run on the same answers (the path the benchmarks' own tests pin down).
"""

from __future__ import annotations

import base64
import functools
import io
import json
import os
import tempfile
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
from conftest import run_lmms_eval
from engine_script import canonical, request_key
from PIL import Image

from food_tasks.utils import diningbench as db
from food_tasks.utils import fambench as fb
from food_tasks.utils import food500cap as fc
from food_tasks.utils import foodieqa as fq
from food_tasks.utils import worldcuisines as wc

HERE = Path(__file__).resolve().parent
STAND_INS = HERE / "stand_ins"


@dataclass(frozen=True)
class Family:
    name: str
    run: tuple[str, ...]  # what goes to --tasks (groups or tasks)
    tasks: dict[str, tuple[Callable, Callable]]  # task -> (process_docs hook, doc_to_messages hook)
    answer: Callable[[str, int, dict], str]  # (task, position, document) -> scripted model output
    max_new_tokens: int  # the tasks' generation budget in YAML
    expected: dict[str, dict[str, float]] = field(default_factory=dict)  # results/groups entry -> metric -> value


# --------------------------------------------------------------------------- WorldCuisines
WC_SUBTASKS = {"1a_nocontext": "1a", "1b_contextualized": "1b", "1c_adversarial": "1c", "2_location": "2"}


def _wc_answer(task: str, position: int, doc: dict) -> str:
    # en and id_formal right; ja_formal: first item wrong, second unparseable, third right.
    ja_index = position % 3 if doc["lang"] == "ja_formal" else None
    if "_mcq_" in task:
        gold = int(doc["multi_choice_answer"])
        return {0: str(gold % 5 + 1), 1: "わかりません"}.get(ja_index, str(gold))  # type: ignore[arg-type]
    return {0: "不明", 1: "不明"}.get(ja_index, doc["answer"])  # type: ignore[arg-type]


_WC_TASKS = {
    f"worldcuisines_{kind}_sample_{sub}": (
        getattr(wc, f"docs_sample_{short}"),
        getattr(wc, f"doc_to_messages_{kind}_sample"),
    )
    for kind in ("mcq", "oeq")
    for sub, short in WC_SUBTASKS.items()
}

WORLDCUISINES = Family(
    name="worldcuisines",
    run=("worldcuisines_mcq_sample", "worldcuisines_oeq_sample"),
    tasks=_WC_TASKS,
    answer=_wc_answer,
    max_new_tokens=50,
    expected={
        # per subtask and language: en 3/3, id_formal 3/3, ja_formal 1/3; macro over languages = 7/9
        **{f"worldcuisines_mcq_sample_{s}": {"acc": 700 / 9, "invalid_rate": 100 / 9} for s in WC_SUBTASKS},
        "worldcuisines_mcq_sample": {"acc": 700 / 9},
        **{f"worldcuisines_oeq_sample_{s}": {"acc_multi": 700 / 9} for s in WC_SUBTASKS},
    },
)

# --------------------------------------------------------------------------- FAM-Bench
FB_TASK1 = {
    1: (
        '{"decision": "recommend", "rationale_ingredients": '
        '[{"condition": "hypertension", "ingredients": ["quinoa", "salmon"]}]}'
    ),
    2: (
        '{"decision": "not recommend", "rationale_ingredients": '
        '[{"condition": "heart failure", "ingredients": ["bacon"]}]}'
    ),
    3: '{"decision": "not recommend", "rationale_ingredients": []}',
    4: "",
}


def _fb_answer(task: str, position: int, doc: dict) -> str:
    if task == "fambench_task1_sample":
        return FB_TASK1[doc["index"]]
    if doc["kind"] == "rank":  # SAMPLE_0001 ranked as gold; SAMPLE_0002: gold A second
        ranking = list(doc["gold_ranking"]) if doc["question_id"] == "SAMPLE_0001" else ["D", "A", "C", "B"]
        return json.dumps({"ranking": ranking, "best_option": ranking[0]})
    return json.dumps({"option_decisions": {k: {"decision": v} for k, v in json.loads(doc["gold_labels"]).items()}})


FAMBENCH = Family(
    name="fambench",
    run=("fambench_task1_sample", "fambench_task2_ctc_sample"),
    tasks={
        "fambench_task1_sample": (fb.docs_sample_task1, fb.doc_to_messages_task1),
        "fambench_task2_ctc_sample": (fb.docs_sample_ctc, fb.doc_to_messages_task2),
    },
    answer=_fb_answer,
    max_new_tokens=48,
    expected={
        # rows: right with full rationale, right with 1 of 2 ingredients, wrong, empty output
        "fambench_task1_sample": {
            "decision_acc": 50.0,
            "rationale_macro_f1": (1 + 2 / 3 + 0 + 0) / 4,
            "rationale_micro_f1": 6 / 11,
            "invalid_rate": 25.0,
            "image_missing": 0,
        },
        # Q1 ranked right, Q2 gold second; every option decision right
        "fambench_task2_ctc_sample": {"top1_acc": 50.0, "mrr": 0.75, "option_decision_acc": 100.0, "image_missing": 0},
    },
)


# --------------------------------------------------------------------------- FoodieQA, DiningBench, Food-500 Cap
# Scores of these families are pinned by their own end-to-end tests; here every number must equal the replay
# model's run on the same answers (expected left empty), and what reached the engine is checked request by request.
def _fq_answer(task: str, position: int, doc: dict) -> str:
    gold = "ABCD"[int(doc["answer"])]
    return gold if position == 0 else f"答案是{gold}" if doc["fq_lang"] == "zh" else f"The answer is ({gold})."


FOODIEQA = Family(
    name="foodieqa",
    run=("foodieqa_sample",),
    tasks={
        "foodieqa_mivqa_zh_sample_p1": (fq.docs_mivqa_zh_sample_p1, fq.doc_to_messages),
        "foodieqa_sivqa_en_sample_p3": (fq.docs_sivqa_en_sample_p3, fq.doc_to_messages),
        "foodieqa_textqa_zh_sample_p2": (fq.docs_textqa_zh_sample_p2, fq.doc_to_messages),
    },
    answer=_fq_answer,
    max_new_tokens=32,
)


def _db_answer(task: str, position: int, doc: dict) -> str:
    gold = json.loads(doc["gold_json"])
    if task == "diningbench_cls_sample":
        return f"Answer: {gold}" if position == 0 else "I cannot tell."
    return json.dumps(gold, ensure_ascii=False) if position == 0 else '```json\n{"卡路里": 500}\n```'


DININGBENCH = Family(
    name="diningbench",
    run=("diningbench_cls_sample", "diningbench_nutrition_sample"),
    tasks={
        "diningbench_cls_sample": (db.docs_sample_cls, db.doc_to_messages),
        "diningbench_nutrition_sample": (db.docs_sample_nutrition, db.doc_to_messages),
    },
    answer=_db_answer,
    max_new_tokens=48,
)


def _fc_answer(task: str, position: int, doc: dict) -> str:
    return doc["caption"] if position % 2 == 0 else f"A plate of {doc['cat'].replace('_', ' ').lower()}."


FOOD500CAP = Family(
    name="food500cap",
    run=("food500cap_caption_sample",),
    tasks={"food500cap_caption_sample": (fc.docs_sample, fc.doc_to_messages)},
    answer=_fc_answer,
    max_new_tokens=48,
)

FAMILIES: tuple[Family, ...] = (WORLDCUISINES, FAMBENCH, FOODIEQA, DININGBENCH, FOOD500CAP)


# --------------------------------------------------------------------------- requests and script
@dataclass
class Request:
    family: Family
    task: str
    position: int
    doc: dict
    messages: list[dict]  # ours (images as PIL)
    answer: str
    key: str


@functools.cache
def requests() -> tuple[Request, ...]:
    out = []
    for family in FAMILIES:
        for task, (docs_hook, messages_hook) in family.tasks.items():
            for position, doc in enumerate(docs_hook(None)):
                messages = messages_hook(doc)
                answer = family.answer(task, position, doc)
                out.append(Request(family, task, position, doc, messages, answer, request_key(messages)))
    return tuple(out)


def run_names() -> str:
    return ",".join(name for family in FAMILIES for name in family.run)


def write_script(path: Path, faults: dict[str, list] | None = None) -> dict[str, dict]:
    """Write ``{key: {"answer", "faults"}}``; two documents whose conversations are identical must share an answer."""
    script: dict[str, dict] = {}
    for request in requests():
        entry = script.setdefault(request.key, {"answer": request.answer, "faults": [], "docs": []})
        assert entry["answer"] == request.answer, (
            f"{request.task}[{request.position}]: same conversation, different answers"
        )
        entry["docs"].append(f"{request.task}:{request.position}")
    for key, fault_list in (faults or {}).items():
        script[key]["faults"] = list(fault_list)
    path.write_text(json.dumps(script, ensure_ascii=False), encoding="utf-8")
    return script


def write_replay_responses(path: Path) -> Path:
    lines = [{"task": r.task, "doc_id": r.position, "response": r.answer} for r in requests()]
    path.write_text("".join(json.dumps(line, ensure_ascii=False) + "\n" for line in lines), encoding="utf-8")
    return path


def stand_in_env(script: Path, log: Path, **extra: str) -> dict[str, str]:
    paths = [str(STAND_INS), str(HERE), os.environ.get("PYTHONPATH", "")]
    return {
        "PYTHONPATH": os.pathsep.join(p for p in paths if p),
        "FOOD_TASKS_ENGINE_SCRIPT": str(script),
        "FOOD_TASKS_ENGINE_LOG": str(log),
        **extra,
    }


# --------------------------------------------------------------------------- checks
def _decode(url: str) -> np.ndarray:
    header, _, payload = url.partition(",")
    assert header == "data:image/png;base64", header
    return np.asarray(Image.open(io.BytesIO(base64.b64decode(payload))).convert("RGB"))


def assert_same_conversation(received: list[dict], ours: list[dict], where: str) -> None:
    """The OpenAI-format messages an engine received carry exactly our conversation."""
    assert canonical(received) == canonical(ours), where
    for got, want in zip(received, ours):
        got_images = [p["image_url"]["url"] for p in got["content"] if p["type"] == "image_url"]
        want_images = [p["url"] for p in want["content"] if p["type"] == "image"]
        for index, (url, image) in enumerate(zip(got_images, want_images)):
            assert np.array_equal(_decode(url), np.asarray(image.convert("RGB"))), f"{where}: image {index} differs"


def assert_engine_saw_every_request(received: list[list[dict]], count_each: int = 1) -> None:
    """Every document's conversation arrived (``count_each`` times per document), and nothing else."""
    by_key: dict[str, list[list[dict]]] = {}
    for messages in received:
        by_key.setdefault(request_key(messages), []).append(messages)
    wanted: dict[str, list[Request]] = {}
    for request in requests():
        wanted.setdefault(request.key, []).append(request)
    assert set(by_key) == set(wanted), f"unexpected: {set(by_key) - set(wanted)}; missing: {set(wanted) - set(by_key)}"
    for key, group in wanted.items():
        assert len(by_key[key]) == count_each * len(group), (group[0].task, group[0].position, len(by_key[key]))
        for messages in by_key[key]:
            assert_same_conversation(messages, group[0].messages, f"{group[0].task}[{group[0].position}]")


def metric_values(results: dict) -> dict[str, dict[str, Any]]:
    """``{task or group: {metric: value}}`` without aliases and stderr entries."""
    out = {}
    for section in ("results", "groups"):
        for name, metrics in (results.get(section) or {}).items():
            out[name] = {k.split(",")[0]: v for k, v in metrics.items() if k != "alias" and "_stderr" not in k}
    return out


def assert_scores(results: dict, reference: dict | None = None, skip: set[str] = frozenset()) -> None:
    values = metric_values(results)
    for family in FAMILIES:
        for name, metrics in family.expected.items():
            for metric, value in metrics.items():
                assert values[name][metric] == _approx(value), (name, metric, values[name][metric], value)
    if reference is not None:
        ref = metric_values(reference)
        assert set(values) == set(ref)
        for name in ref:
            if name not in skip:
                assert values[name] == ref[name], name


def _approx(value: float):  # type: ignore[no-untyped-def]
    import pytest

    return pytest.approx(value, rel=1e-9, abs=1e-9)


def replay_reference() -> dict:
    """The replay model's results on the scripted answers (one process): the reference every path must match."""
    return replay_reference_run()[0]


@functools.cache
def replay_reference_run() -> tuple[dict, dict]:
    """(results, logged samples by task) of the one-process replay run."""
    work = Path(tempfile.mkdtemp(prefix="food-tasks-replay-ref-"))
    responses = write_replay_responses(work / "responses.jsonl")
    proc, results, samples = run_lmms_eval(
        ["--model", "food_tasks_replay", "--model_args", f"responses={responses}", "--tasks", run_names()], work / "out"
    )
    assert proc.returncode == 0 and results is not None, proc.stderr[-3000:]
    return results, samples


def run_lmms_eval_launched(
    launcher: list[str], args: list[str], out_dir: Path, env: dict | None = None, timeout: int = 900
):
    """:func:`conftest.run_lmms_eval` behind a launcher (``accelerate launch ...``): (process, results, samples)."""
    import subprocess

    full_env = dict(
        os.environ, HF_HUB_OFFLINE="1", HF_DATASETS_OFFLINE="1", TOKENIZERS_PARALLELISM="false", **(env or {})
    )
    out_dir.mkdir(parents=True, exist_ok=True)
    cmd = [*launcher, "-m", "lmms_eval", *args, "--output_path", str(out_dir), "--log_samples"]
    proc = subprocess.run(
        cmd, check=False, env=full_env, capture_output=True, text=True, timeout=timeout, cwd=out_dir.parent
    )
    found = sorted(out_dir.rglob("*_results.json"))
    results = json.loads(found[-1].read_text()) if found else None
    samples = {}
    for path in out_dir.rglob("*_samples_*.jsonl"):
        task = path.name.split("_samples_")[1].rsplit(".", 1)[0]
        samples[task] = [json.loads(line) for line in path.read_text().splitlines() if line.strip()]
    return proc, results, samples
