"""CLIPScore (Hessel et al., 2021) with a tiny random local CLIP model (nothing downloaded)."""

from __future__ import annotations

import json

import food500cap_fixture as fx
import pytest

from food_tasks.benchmarks.food500cap import data as fc_data
from food_tasks.benchmarks.food500cap import scoring as fc_scoring
from food_tasks.utils import food500cap as hooks


@pytest.fixture(scope="module")
def tiny_clip(tmp_path_factory):
    import torch
    from transformers import CLIPConfig, CLIPImageProcessor, CLIPModel, CLIPProcessor, CLIPTokenizer

    path = tmp_path_factory.mktemp("tiny_clip")
    vocab = {"<|startoftext|>": 0, "<|endoftext|>": 1}
    for c in "abcdefghijklmnopqrstuvwxyz":
        vocab[c], vocab[c + "</w>"] = len(vocab), len(vocab) + 1
    (path / "vocab.json").write_text(json.dumps(vocab))
    (path / "merges.txt").write_text("#version: 0.2\n")
    tokenizer = CLIPTokenizer(vocab_file=str(path / "vocab.json"), merges_file=str(path / "merges.txt"))
    images = CLIPImageProcessor(size={"shortest_edge": 32}, crop_size={"height": 32, "width": 32})
    CLIPProcessor(image_processor=images, tokenizer=tokenizer).save_pretrained(path)
    torch.manual_seed(0)
    text = {
        "vocab_size": len(vocab),
        "hidden_size": 16,
        "intermediate_size": 32,
        "num_hidden_layers": 1,
        "num_attention_heads": 2,
        "max_position_embeddings": 77,
        "bos_token_id": 0,
        "eos_token_id": 1,
        "pad_token_id": 1,
    }
    vision = {
        "hidden_size": 16,
        "intermediate_size": 32,
        "num_hidden_layers": 1,
        "num_attention_heads": 2,
        "image_size": 32,
        "patch_size": 16,
    }
    CLIPModel(CLIPConfig(text_config=text, vision_config=vision, projection_dim=8)).save_pretrained(path)
    return path


def _by_hand(path, image, caption):  # type: ignore[no-untyped-def]
    """2.5 * max(cos, 0) through the vision/text towers and projections, without the model's forward."""
    import torch
    from transformers import CLIPModel, CLIPProcessor

    model, processor = CLIPModel.from_pretrained(path).eval(), CLIPProcessor.from_pretrained(path)
    batch = processor(
        text=["A photo depicts " + caption], images=[image], return_tensors="pt", truncation=True, max_length=77
    )
    with torch.no_grad():
        img = model.visual_projection(model.vision_model(pixel_values=batch["pixel_values"]).pooler_output)
        txt = model.text_projection(
            model.text_model(input_ids=batch["input_ids"], attention_mask=batch["attention_mask"]).pooler_output
        )
    cos = torch.nn.functional.cosine_similarity(img, txt).item()
    return 2.5 * max(cos, 0.0)


def test_clip_s_matches_the_definition(tiny_clip):
    from PIL import Image

    images = [Image.new("RGB", (40, 30), (200, 100, 50)), Image.new("RGB", (30, 40), (20, 200, 50))]
    captions = ["a bowl of soup", "rice " * 200]  # the second is truncated to CLIP's 77 tokens
    got = fc_scoring.clip_scores(images, captions, str(tiny_clip))
    for value, image, caption in zip(got, images, captions):
        assert value == pytest.approx(_by_hand(tiny_clip, image, caption), abs=1e-5)
        assert value >= 0.0


def test_clipscore_metric_over_found_images(tiny_clip, tmp_path, monkeypatch):
    root = fx.build_mirror(tmp_path / "mirror")
    monkeypatch.setenv("FOOD_TASKS_DATA_DIR", str(root))
    monkeypatch.setenv(fc_scoring.CLIP_ENV, str(tiny_clip))
    docs = fc_data.build_docs("test")
    records = [hooks.process_results(d, [fx.OUTPUTS[d["replay_key"]]])["clipscore"].record for d in docs]
    found = [(fc_data.load_image(d), r["pred"]) for d, r in zip(docs, records) if d["image_path"]]
    expected = sum(fc_scoring.clip_scores([i for i, _ in found], [c for _, c in found], str(tiny_clip))) / len(found)
    assert len(found) == 5 and hooks.TABLES["caption"]["clipscore"](records) == pytest.approx(expected)
    monkeypatch.setenv(fc_scoring.CLIP_ENV, str(tmp_path / "no-such-model"))
    assert hooks.TABLES["caption"]["clipscore"](records).startswith("absent: FOOD_TASKS_CLIP_MODEL=")
