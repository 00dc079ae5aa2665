"""The tiny random Qwen2-VL checkpoint builds offline, loads with transformers and generates on CPU."""

from __future__ import annotations

import json

import pytest
from PIL import Image

from food_tasks.lmms.tiny_model import MARKER_FILE, SPECIAL_TOKENS, build_tiny_qwen2_vl

# torch and transformers are imported by the tests (lmms-eval requires both): importing them here would cost
# every collection, the inner loop's included, 10-20 s.
pytestmark = pytest.mark.slow


def test_build_load_and_generate(tmp_path, monkeypatch):
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    import torch
    from transformers import AutoProcessor, AutoTokenizer, Qwen2VLForConditionalGeneration

    ckpt = build_tiny_qwen2_vl(tmp_path / "tiny", seed=0)
    assert ckpt == tmp_path / "tiny"
    for name in ("config.json", "model.safetensors", "tokenizer.json", "chat_template.jinja", MARKER_FILE):
        assert (ckpt / name).is_file(), name
    size = sum(p.stat().st_size for p in ckpt.iterdir() if p.is_file())
    assert size < 20 * 1024 * 1024

    # Idempotent: a second call returns at once and leaves the files untouched.
    mtimes = {p.name: p.stat().st_mtime_ns for p in ckpt.iterdir()}
    assert build_tiny_qwen2_vl(ckpt, seed=0) == ckpt
    assert {p.name: p.stat().st_mtime_ns for p in ckpt.iterdir()} == mtimes
    assert json.loads((ckpt / MARKER_FILE).read_text())["seed"] == 0

    processor = AutoProcessor.from_pretrained(ckpt)
    tokenizer = AutoTokenizer.from_pretrained(ckpt)
    model = Qwen2VLForConditionalGeneration.from_pretrained(ckpt).eval()
    assert model.dtype == torch.float32
    for tok in SPECIAL_TOKENS:
        assert len(tokenizer.encode(tok, add_special_tokens=False)) == 1, tok
    assert tokenizer.eos_token == "<|im_end|>"
    assert model.config.image_token_id == tokenizer.convert_tokens_to_ids("<|image_pad|>")

    image = Image.new("RGB", (96, 64), (200, 80, 30))
    messages = [{"role": "user", "content": [{"type": "image"}, {"type": "text", "text": "What food is this?"}]}]
    prompt = processor.apply_chat_template(messages, add_generation_prompt=True)
    assert "<|vision_start|><|image_pad|><|vision_end|>" in prompt
    assert prompt.endswith("<|im_start|>assistant\n")
    inputs = processor(text=[prompt], images=[image], return_tensors="pt")
    assert inputs["pixel_values"].shape[0] > 0  # the image really becomes vision patches

    with torch.no_grad():
        out = model.generate(**inputs, max_new_tokens=8, do_sample=False)
    new_tokens = out[0, inputs["input_ids"].shape[1] :]
    assert new_tokens.numel() == 8  # special tokens (EOS included) are suppressed in lm_head
    text = processor.batch_decode([new_tokens], skip_special_tokens=True)[0]
    assert text.strip() and text.isprintable()


def test_deterministic_per_seed(tmp_path):
    a = build_tiny_qwen2_vl(tmp_path / "a", seed=0)
    b = build_tiny_qwen2_vl(tmp_path / "b", seed=0)
    c = build_tiny_qwen2_vl(tmp_path / "c", seed=1)
    for name in ("model.safetensors", "tokenizer.json", "config.json"):
        assert (a / name).read_bytes() == (b / name).read_bytes(), name
    assert (a / "model.safetensors").read_bytes() != (c / "model.safetensors").read_bytes()
    assert (a / "tokenizer.json").read_bytes() == (c / "tokenizer.json").read_bytes()
