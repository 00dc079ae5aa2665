"""A multi-image FoodieQA document through lmms-eval's chat-message protocol into the tiny local Qwen2-VL
processor: four images, interleaved with their option labels, in the official A-D order."""

from __future__ import annotations

import pytest
from foodieqa_fixture import COLOURS, build, tables

from food_tasks.benchmarks.foodieqa import data as fq_data

# Builds the tiny model (torch, transformers: lmms-eval requires both; imported by the fixtures, not at collection).
pytestmark = pytest.mark.slow

VISION = "<|vision_start|><|image_pad|><|vision_end|>"


@pytest.fixture(scope="module")
def processor(tiny_qwen2_vl):
    from transformers import AutoProcessor

    return AutoProcessor.from_pretrained(tiny_qwen2_vl)


@pytest.mark.parametrize("template", [0, 1, 2, 3])
def test_processor_receives_four_images_in_official_order(tmp_path, monkeypatch, processor, template):
    from lmms_eval.protocol import ChatMessages

    import food_tasks.utils.foodieqa as hooks

    monkeypatch.setenv("HF_HOME", str(tmp_path / "hf_home"))
    fq_data._data_folder.cache_clear()
    root = build(tmp_path / "mirror")
    doc = hooks._docs(f"mivqa_en_p{template}", None, root=root)[1]  # images 3, 2, 1, 0 of the fixture
    # What lmms-eval's `huggingface` chat backend does with doc_to_messages (models/chat/huggingface.py).
    messages = ChatMessages(messages=hooks.doc_to_messages(doc))
    images, _, _ = messages.extract_media()
    text = processor.apply_chat_template(messages.to_hf_messages(), tokenize=False, add_generation_prompt=True)

    received = {}
    original = type(processor).__call__

    def spy(self, *args, **kwargs):
        received.update(kwargs)
        return original(self, *args, **kwargs)

    monkeypatch.setattr(type(processor), "__call__", spy)
    inputs = processor(text=[text], images=images, return_tensors="pt")

    expected = [COLOURS[3], COLOURS[2], COLOURS[1], COLOURS[0]]
    assert [im.getpixel((0, 0)) for im in received["images"]] == expected  # option A first
    assert inputs["image_grid_thw"].shape[0] == 4
    assert text.count(VISION) == 4
    if template == 0:  # images first, one per line, then the instruction
        assert f"{VISION}\n{VISION}\n{VISION}\n{VISION}\nAnswer the following question" in text
    elif template in (1, 2):  # each image followed by its option label
        assert f"{VISION}Option (A)\n{VISION}Option (B)\n{VISION}Option (C)\n{VISION}Option (D)\nQuestion: " in text
    else:  # label before each image, then the inline prefill
        assert (
            f"Option (A){VISION}\nOption (B){VISION}\nOption (C){VISION}\nOption (D){VISION}\n\nIf I have to choose"
            in text
        )
    assert tables()["mivqa"][1]["question_en"] in text
