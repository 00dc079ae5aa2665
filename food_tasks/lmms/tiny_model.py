"""Build a tiny, randomly initialised Qwen2-VL checkpoint entirely offline.

The checkpoint is meant for smoke tests of the food-tasks pack through the
lmms-eval harness: it has the exact *architecture and file layout* of a real
``Qwen2VLForConditionalGeneration`` checkpoint (config, safetensors weights,
generation config, Qwen2 byte-level BPE tokenizer, Qwen2-VL chat template,
image/video processors) but only a few hundred thousand random parameters, so
it loads and generates in well under a second on a CPU.

Nothing is downloaded.  The tokenizer is a byte-level BPE trained at build
time with the ``tokenizers`` library on a small corpus embedded in this module,
wrapped as a ``Qwen2Tokenizer`` carrying the special tokens Qwen2-VL needs.
The processors use small ``min_pixels``/``max_pixels`` so images become only a
handful of vision tokens.

To make random generations useful in tests, the rows of ``lm_head`` belonging
to special tokens and to tokens that do not decode to printable ASCII are
zeroed.  Their logit is therefore always exactly 0 while the maximum over the
remaining random logits is (practically) always positive, so greedy decoding
never emits end-of-sequence or invisible tokens: every generation is exactly
``max_new_tokens`` long and decodes to printable text.

Usage::

    from food_tasks.lmms.tiny_model import build_tiny_qwen2_vl
    path = build_tiny_qwen2_vl("/tmp/tiny-qwen2-vl")
    # lmms-eval --model qwen2_vl \\
    #   --model_args pretrained=/tmp/tiny-qwen2-vl,device=cpu,device_map=cpu,max_pixels=12544 ...

(lmms-eval 0.7.3's ``qwen2_vl`` backend imports ``decord`` at module level, so
``decord`` -- or a stub module of that name -- must be importable for that run.
Its generic ``huggingface`` chat backend does not work with transformers 5.x.)

Importing this module has no side effects; ``torch``, ``transformers`` and
``tokenizers`` are imported inside the builder.
"""

from __future__ import annotations

import json
import os
import pathlib
from typing import Any

__all__ = ["build_tiny_qwen2_vl", "MARKER_FILE", "SPECIAL_TOKENS", "CHAT_TEMPLATE"]

#: File written last by :func:`build_tiny_qwen2_vl`; its presence marks a complete checkpoint.
MARKER_FILE = "tiny_qwen2_vl.json"

#: Bump when the recipe changes so stale checkpoints are rebuilt.
_RECIPE_VERSION = 1

#: Qwen2-VL special tokens, in the same order as the real tokenizer (ids 151643...).
SPECIAL_TOKENS: tuple[str, ...] = (
    "<|endoftext|>",
    "<|im_start|>",
    "<|im_end|>",
    "<|object_ref_start|>",
    "<|object_ref_end|>",
    "<|box_start|>",
    "<|box_end|>",
    "<|quad_start|>",
    "<|quad_end|>",
    "<|vision_start|>",
    "<|vision_end|>",
    "<|vision_pad|>",
    "<|image_pad|>",
    "<|video_pad|>",
)

#: The Qwen2-VL-Instruct chat template.
CHAT_TEMPLATE = (
    "{% set image_count = namespace(value=0) %}{% set video_count = namespace(value=0) %}"
    "{% for message in messages %}{% if loop.first and message['role'] != 'system' %}"
    "<|im_start|>system\nYou are a helpful assistant.<|im_end|>\n{% endif %}"
    "<|im_start|>{{ message['role'] }}\n"
    "{% if message['content'] is string %}{{ message['content'] }}<|im_end|>\n"
    "{% else %}{% for content in message['content'] %}"
    "{% if content['type'] == 'image' or 'image' in content or 'image_url' in content %}"
    "{% set image_count.value = image_count.value + 1 %}"
    "{% if add_vision_id %}Picture {{ image_count.value }}: {% endif %}"
    "<|vision_start|><|image_pad|><|vision_end|>"
    "{% elif content['type'] == 'video' or 'video' in content %}"
    "{% set video_count.value = video_count.value + 1 %}"
    "{% if add_vision_id %}Video {{ video_count.value }}: {% endif %}"
    "<|vision_start|><|video_pad|><|vision_end|>"
    "{% elif 'text' in content %}{{ content['text'] }}{% endif %}{% endfor %}<|im_end|>\n"
    "{% endif %}{% endfor %}"
    "{% if add_generation_prompt %}<|im_start|>assistant\n{% endif %}"
)

# Qwen2 pre-tokenisation regex (same as transformers' Qwen2Tokenizer).
_PRETOKENIZE_REGEX = (
    r"""(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}| ?[^\s\p{L}\p{N}]+[\r\n]*"""
    r"""|\s*[\r\n]+|\s+(?!\S)|\s+"""
)

_CORPUS = """\
You are a helpful assistant. Look at the image and answer the question.
What food is shown in this picture? Answer with a single word or phrase.
The image shows a bowl of ramen with egg, pork, green onion and seaweed.
This is a pizza with tomato sauce, mozzarella cheese and fresh basil leaves.
A plate of sushi: salmon nigiri, tuna maki, cucumber rolls and pickled ginger.
The dish is a hamburger with lettuce, tomato, onion, pickles and french fries.
Pasta carbonara is made with spaghetti, eggs, pecorino, guanciale and pepper.
A chocolate cake with strawberries on top, served on a white plate.
Fried rice with shrimp, peas, carrots, scrambled egg and soy sauce.
Caesar salad, greek salad, tacos, burrito, curry, dumplings, pho, paella.
Pancakes with maple syrup and blueberries; waffles with whipped cream.
Apple, banana, orange, grape, mango, lemon, cherry, peach, pear, melon.
Bread, butter, cheese, milk, yogurt, honey, coffee, tea, water, juice.
How many calories are in this meal? About 650 kcal, 25 g protein, 30 g fat.
Estimate the weight: 120 g, 250 g, 500 g, 1 kg. The price is $12.99.
Rate the dish from 1 to 10. Score: 7/10. Answer: A, B, C or D.
Question: Which cuisine is this? Options: (A) Italian (B) Japanese (C) Mexican (D) Indian.
The answer is (B). Yes. No. True. False. Maybe. Unknown.
Numbers: 0 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20 25 50 75 100 1000.
Digits 0123456789 and 9876543210; dates 2024-01-31, times 12:30, 3.14, 42%.
Ingredients: salt, sugar, flour, oil, garlic, onion, pepper, chili, rice, beans.
Cooking methods: boiled, baked, fried, grilled, roasted, steamed, raw, smoked.
Breakfast, lunch, dinner, dessert, snack, soup, sandwich, steak, chicken, fish.
The quick brown fox jumps over the lazy dog. THE QUICK BROWN FOX! (a) [b] {c}
Punctuation: . , ; : ! ? ' " - _ + = * / \\ | @ # $ % ^ & ~ ` < > ( ) [ ] { }
"""

_VOCAB_SIZE = 512  # byte alphabet (256) + learned merges, before special tokens


def _train_tokenizer_files() -> tuple[dict[str, int], list[tuple[str, str]]]:
    """Train a deterministic byte-level BPE on the built-in corpus; return (vocab, merges)."""
    from tokenizers import Regex, Tokenizer, decoders, normalizers, pre_tokenizers
    from tokenizers.models import BPE
    from tokenizers.trainers import BpeTrainer

    tok = Tokenizer(BPE(unk_token=None, continuing_subword_prefix="", end_of_word_suffix="", fuse_unk=False))
    tok.normalizer = normalizers.NFC()
    tok.pre_tokenizer = pre_tokenizers.Sequence(
        [
            pre_tokenizers.Split(Regex(_PRETOKENIZE_REGEX), behavior="isolated", invert=False),
            pre_tokenizers.ByteLevel(add_prefix_space=False, use_regex=False),
        ]
    )
    tok.decoder = decoders.ByteLevel()
    trainer = BpeTrainer(
        vocab_size=_VOCAB_SIZE,
        min_frequency=2,
        show_progress=False,
        special_tokens=[],
        initial_alphabet=pre_tokenizers.ByteLevel.alphabet(),
    )
    corpus = _CORPUS.splitlines(keepends=True)
    tok.train_from_iterator(corpus * 4, trainer=trainer)
    model = json.loads(tok.to_str())["model"]
    vocab: dict[str, int] = dict(model["vocab"])
    merges = [tuple(m.split(" ", 1)) if isinstance(m, str) else (m[0], m[1]) for m in model["merges"]]
    return vocab, merges


def _build_tokenizer() -> Any:
    from tokenizers import AddedToken
    from transformers import Qwen2Tokenizer

    vocab, merges = _train_tokenizer_files()
    tokenizer = Qwen2Tokenizer(
        vocab=vocab,
        merges=merges,
        unk_token=None,
        bos_token=None,
        eos_token="<|endoftext|>",  # switched to <|im_end|> below, once ids follow Qwen's order
        pad_token="<|endoftext|>",
        errors="replace",
        model_max_length=32768,
        clean_up_tokenization_spaces=False,
        split_special_tokens=False,
    )
    tokenizer.add_special_tokens(
        {"additional_special_tokens": [AddedToken(t, special=True, normalized=False) for t in SPECIAL_TOKENS]}
    )
    tokenizer.eos_token = "<|im_end|>"  # like Qwen2-VL-Instruct
    tokenizer.chat_template = CHAT_TEMPLATE
    for t in SPECIAL_TOKENS:  # sanity: each special token is a single id
        assert len(tokenizer.encode(t, add_special_tokens=False)) == 1, t
    return tokenizer


def _is_complete(path: pathlib.Path, seed: int) -> bool:
    marker = path / MARKER_FILE
    if not marker.is_file():
        return False
    try:
        meta = json.loads(marker.read_text())
    except (OSError, ValueError):
        return False
    if meta.get("seed") != seed or meta.get("recipe_version") != _RECIPE_VERSION:
        return False
    return all((path / f).is_file() for f in meta.get("files", []))


def build_tiny_qwen2_vl(path: str | os.PathLike[str], seed: int = 0) -> pathlib.Path:
    """Write a tiny random Qwen2-VL checkpoint (model + tokenizer + processor) into ``path``.

    Args:
        path: Target directory (created if needed). Loadable afterwards with
            ``Qwen2VLForConditionalGeneration.from_pretrained(path)`` and
            ``AutoProcessor.from_pretrained(path)``.
        seed: Seed for the random weights. The same seed gives the same weights.

    Returns:
        The checkpoint directory as a :class:`pathlib.Path`.

    If ``path`` already holds a complete checkpoint built with the same seed
    (recorded in :data:`MARKER_FILE`, which is written last), it is returned
    immediately without touching the files.  No network access is needed.
    """
    out = pathlib.Path(path)
    if _is_complete(out, seed):
        return out

    import torch
    from transformers import (
        GenerationConfig,
        Qwen2VLConfig,
        Qwen2VLForConditionalGeneration,
        Qwen2VLImageProcessor,
        Qwen2VLProcessor,
        Qwen2VLVideoProcessor,
    )

    out.mkdir(parents=True, exist_ok=True)
    marker = out / MARKER_FILE
    if marker.exists():
        marker.unlink()  # stale / different seed: mark incomplete while rebuilding

    tokenizer = _build_tokenizer()
    vocab_size = len(tokenizer)
    ids = {t: tokenizer.convert_tokens_to_ids(t) for t in SPECIAL_TOKENS}

    # Small images: 56x56 .. 112x112 pixels -> 1..16 merged vision tokens.
    min_pixels, max_pixels = 56 * 56, 112 * 112
    image_processor = Qwen2VLImageProcessor(
        min_pixels=min_pixels, max_pixels=max_pixels, patch_size=14, temporal_patch_size=2, merge_size=2
    )
    video_processor = Qwen2VLVideoProcessor(
        min_pixels=min_pixels, max_pixels=max_pixels, patch_size=14, temporal_patch_size=2, merge_size=2
    )
    processor = Qwen2VLProcessor(
        image_processor=image_processor,
        tokenizer=tokenizer,
        video_processor=video_processor,
        chat_template=CHAT_TEMPLATE,
    )

    hidden, heads = 64, 4  # text head_dim 16 -> mrope sections must sum to 8
    config = Qwen2VLConfig(
        text_config={
            "vocab_size": vocab_size,
            "hidden_size": hidden,
            "intermediate_size": 128,
            "num_hidden_layers": 2,
            "num_attention_heads": heads,
            "num_key_value_heads": 2,
            "max_position_embeddings": 4096,
            "rms_norm_eps": 1e-6,
            "rope_parameters": {"rope_type": "default", "rope_theta": 1000000.0, "mrope_section": [2, 3, 3]},
            "bos_token_id": ids["<|endoftext|>"],
            "eos_token_id": ids["<|im_end|>"],
            "pad_token_id": ids["<|endoftext|>"],
            "use_sliding_window": False,
            "tie_word_embeddings": False,
        },
        vision_config={
            "depth": 1,
            "embed_dim": 32,
            "hidden_size": hidden,  # merger output must equal text hidden size
            "num_heads": 2,
            "mlp_ratio": 2,
            "in_channels": 3,
            "patch_size": 14,
            "spatial_merge_size": 2,
            "temporal_patch_size": 2,
        },
        image_token_id=ids["<|image_pad|>"],
        video_token_id=ids["<|video_pad|>"],
        vision_start_token_id=ids["<|vision_start|>"],
        vision_end_token_id=ids["<|vision_end|>"],
        tie_word_embeddings=False,
    )
    config.bos_token_id = ids["<|endoftext|>"]
    config.eos_token_id = ids["<|im_end|>"]
    config.pad_token_id = ids["<|endoftext|>"]

    torch.manual_seed(seed)
    model = Qwen2VLForConditionalGeneration(config).to(torch.float32).eval()

    # Zero lm_head rows of special / non-printable tokens (see module docstring).
    with torch.no_grad():
        lm_head = model.get_output_embeddings().weight
        for token_id in range(vocab_size):
            text = tokenizer.decode([token_id], skip_special_tokens=False)
            if token_id in ids.values() or not text or not all(" " <= ch <= "~" for ch in text):
                lm_head[token_id].zero_()

    model.generation_config = GenerationConfig(
        bos_token_id=ids["<|endoftext|>"],
        eos_token_id=[ids["<|im_end|>"], ids["<|endoftext|>"]],
        pad_token_id=ids["<|endoftext|>"],
        do_sample=False,
    )

    model.save_pretrained(out)
    processor.save_pretrained(out)
    tokenizer.save_pretrained(out)

    files = sorted(p.name for p in out.iterdir() if p.is_file() and p.name != MARKER_FILE)
    marker.write_text(
        json.dumps(
            {"seed": seed, "recipe_version": _RECIPE_VERSION, "vocab_size": vocab_size, "files": files},
            indent=2,
            sort_keys=True,
        )
        + "\n"
    )
    return out
