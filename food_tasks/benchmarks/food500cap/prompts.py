"""Food-500 Cap captioning prompts (design choices documented in yaml_tasks/food500cap/README.md; the paper
gives none).

The paper's captioners ran in their default captioning mode without a prompt. For instruction-following
models we keep two fixed prompts as two tasks; both can be overridden per model through
``lmms_eval_specific_kwargs`` (``prompt``), and the prompt used is recorded in the results' task config.
"""

from __future__ import annotations

# Identical to lmms-eval's COCO captioning instruction (lmms_eval/tasks/coco_cap/utils.py).
GENERIC = "Provide a one-sentence caption for the provided image."
# Closer to the annotation guideline of paper section 3.1 (label, ingredients, colours, shapes, container).
FOOD = (
    "Describe this food image in one sentence. Name the dish and mention its visible ingredients, colors, "
    "shapes, and the container it is served in."
)
PROMPTS = {"generic": GENERIC, "food": FOOD}


def prompt_for(lmms_eval_specific_kwargs: dict | None, default: str = GENERIC) -> str:
    """The prompt text: ``lmms_eval_specific_kwargs["prompt"]`` when given, else ``default``."""
    value = (lmms_eval_specific_kwargs or {}).get("prompt")
    return value if isinstance(value, str) and value.strip() else default
