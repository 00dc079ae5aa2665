"""Undecodable images through a chat backend: ``--model vllm`` (lmms-eval's chat vLLM class, run for real, against
the stand-in ``vllm`` module) calls our ``doc_to_messages`` from its worker threads, as in issue 20's report
(DiningBench: one user photo that is not an image stopped the run after part of the requests).

The engine must see every request, without the broken images and with everything else (FoodieQA keeps the
option labels in place), and the results must count the documents in ``image_missing``.
"""

from __future__ import annotations

import diningbench_fixture as DB  # tests/<bench> folders are on sys.path (tests/conftest.py)
import foodieqa_fixture as FQ
import pytest
from conftest import NOT_AN_IMAGE, run_lmms_eval, truncated_jpeg
from engine_script import read_log
from serving_harness import stand_in_env

from food_tasks.benchmarks.diningbench import layout as db_layout
from food_tasks.benchmarks.foodieqa import layout as fq_layout

pytestmark = pytest.mark.e2e


@pytest.fixture(scope="module")
def vllm_run(tmp_path_factory):  # type: ignore[no-untyped-def]
    work = tmp_path_factory.mktemp("corrupt_vllm")
    root = work / "mirror"
    db_layout.write_mirror(root, DB.files(), {**DB.images(), "images/cls0/u1.jpg": NOT_AN_IMAGE})
    fq_layout.write_zip(root, FQ.tables(), {**FQ.images(), FQ.IMG(5): truncated_jpeg()}, folder="FoodieQA")
    script, log = work / "script.json", work / "engine.jsonl"
    script.write_text("{}")  # every request unscripted: the engine answers "" (wrong, never unparseable-by-image)
    args = [
        "--model",
        "vllm",
        "--model_args",
        "model=Qwen/Qwen2-VL-2B-Instruct,max_new_tokens=1",
        "--tasks",
        "diningbench_cls_en_v2,foodieqa_mivqa_zh_p1",
        "--batch_size",
        "4",
    ]
    env = stand_in_env(
        script,
        log,
        FOOD_TASKS_DATA_DIR=str(root),
        FOOD_TASKS_CACHE_DIR=str(work / "cache"),
        HF_HOME=str(work / "hf_home"),
        FOOD_TASKS_DININGBENCH_MODEL_NAME="",
    )
    proc, results, _ = run_lmms_eval(args, work / "out", env=env)
    assert results is not None, proc.stdout[-3000:] + proc.stderr[-3000:]
    return results, [e for e in read_log(log) if e["event"] == "chat"]


def _parts(messages: list[dict]) -> list[str]:
    return [p["type"] if p["type"] != "text" else p["text"] for m in messages for p in m["content"]]


def test_every_request_reached_the_engine_without_the_broken_images(vllm_run):  # type: ignore[no-untyped-def]
    _, chats = vllm_run
    images = sorted(_parts(c["messages"]).count("image_url") for c in chats)
    # DiningBench two views: row 0 lost its user photo. FoodieQA four images: rows 2 and 3 show image 5.
    assert len(chats) == 2 + 4 and images == [1, 2, 3, 3, 4, 4]
    short = [c["messages"] for c in chats if _parts(c["messages"]).count("image_url") == 3]
    for messages in short:  # the label of the left-out image stays where the template puts it
        parts = _parts(messages)
        assert {"图A\n", "图B\n", "图C\n"} <= set(parts) and parts[-1].startswith("图D\n根据以上四张图回答问题")


def test_the_documents_are_counted(vllm_run):  # type: ignore[no-untyped-def]
    results, _ = vllm_run
    assert results["results"]["diningbench_cls_en_v2"]["image_missing,none"] == 1
    assert results["results"]["foodieqa_mivqa_zh_p1"]["image_missing,none"] == 2
