"""FoodieQA prompt templates, kept verbatim from the official code (lyan62/FoodieQA @4d726407).

* mivqa: ``model-eval/scripts/eval_mivqa_en.py::get_prompt_phi`` (the README's canonical text); the
  ``<imgN>`` markers stand where that code puts ``<|image_N|>``: image lists before the text (p0) or
  images interleaved with their option labels (p1-p3).
* sivqa: ``sivqa_utils.py::format_text_prompt``, image first, then the text.
* textqa: ``textqa_utils.py::format_text_prompt`` (Chinese), with the ``get_prompt_qwen`` wrapping for
  chat models: system ``你是一个智能助手。`` and the template without ``你是一个智能助手，`` as user turn.

Templates given as ``(user, prefill)`` pairs officially start the assistant's turn with ``prefill``.
lmms-eval's chat backends always open a fresh assistant turn, so the prefill is sent **inline**: appended
to the end of the user text after a newline (``prefill_mode: inline``, the degradation Qwen-VL had
officially). The robust parser then reads the answer as a continuation of the prompt's last opener
(``(``, ``（`` or ``图``), so "B)" after "I would select (" is B.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field, replace

# ---------------------------------------------------------------- templates (verbatim)

MIVQA = {
    "zh": {
        0: (
            "<img1>\n<img2>\n<img3>\n<img4>\n根据以上四张图回答问题，他们分别为图A, 图B, 图C, 图D, "
            "请从给定选项ABCD中选择一个最合适的答案。问题：{q}, 答案为：图",
            None,
        ),
        1: (
            "<img1>图A\n<img2>图B\n<img3>图C\n<img4>图D\n根据以上四张图回答问题, "
            "请从给定选项ABCD中选择一个最合适的答案。问题：{q}, 答案为：图",
            None,
        ),
        2: (
            "根据以下四张图回答问题,请从给定选项ABCD中选择一个最合适的答案。"
            "<img1>图A\n<img2>图B\n<img3>图C\n<img4>图D\n问题：{q}, 答案为：图",
            None,
        ),
        3: (
            "问题{q}，选项有: <img1>图A\n<img2>图B\n<img3>图C\n<img4>图D\n",
            "如果从给定选项ABCD中选择一个最合适的答案， 答案为：图",
        ),
    },
    "en": {
        0: (
            "<img1>\n<img2>\n<img3>\n<img4>\nAnswer the following question according to the provided four images which "
            "corresponds to Option (A), Option (B), Option (C), Option (D). Choose one best answer from the given "
            "options. Question: {q}, your answer is: Option (",
            None,
        ),
        1: (
            "Answer the following question according to the provided four images, which corresponds to Option (A), "
            "Option (B), Option (C), Option (D). Choose one best answer from the given options. <img1>Option "
            "(A)\n<img2>Option (B)\n<img3>Option (C)\n<img4>Option (D)\nQuestion: {q}, your answer is: Option (",
            None,
        ),
        2: (
            "Answer the following question according to the provided four images, and choose one best answer from the "
            "given options. <img1>Option (A)\n<img2>Option (B)\n<img3>Option (C)\n<img4>Option (D)\nQuestion: {q}, "
            "your answer is: Option (",
            None,
        ),
        3: (
            "Question{q} The options are: Option (A)<img1>\nOption (B)<img2>\nOption (C)<img3>\nOption (D)<img4>\n",
            "If I have to choose one best answer from the given options， the answer is：Option (",
        ),
    },
}
# Chinese mivqa questions say 以下 ("below") or 以上 ("above"); the official code rewrites them to match
# where the images are: p0-p2 replace 以下 by 以上, p3 replaces 以上 by 以下. English: no replacement.
MIVQA_ZH_REPLACE = {0: ("以下", "以上"), 1: ("以下", "以上"), 2: ("以下", "以上"), 3: ("以上", "以下")}

SIVQA = {
    "zh": {
        0: ("{q} 选项有: {c}, 请根据上图从所提供的选项中选择一个正确答案，为（", None),
        1: ("你是一个人工智能助手，请你看图回答以下选择题：{q} 选项有: {c}, 请从中选择一个正确答案，为（", None),
        2: ("你是一个智能助手，现在请看图回答以下选择题：{q} 选项有: {c}", "我从所提供的选项中选择一个正确答案，为（"),
        3: ("{q} 这是选项: {c} 请根据上图从所提供的选项中选择一个正确答案。", "我选择（"),
    },
    "en": {  # "If had" (sic) is the official text
        0: ("{q} Here are the options: {c} If had to select one of the options, my answer would be (", None),
        1: (
            "You are an AI assistant. Please answer the following multiple choice question based on the image: {q} "
            "Here are the options: {c} Please select one of the options as your answer (",
            None,
        ),
        2: ("{q} Here are the options: {c}", "If had to select one of the options, my answer would be ("),
        3: ("{q} These are the options: {c} Please select one of the options as your answer.", "I would select ("),
    },
}

TEXTQA = {
    0: "{q} 选项有: {c}, 请根据从所提供的选项中选择一个正确答案，为（",
    1: "你是一个智能助手，请你回答以下选择题：{q} 选项有: {c}, 请从中选择一个正确答案，为（",
    2: "你是一个智能助手，现在回答以下选择题：{q} 选项有: {c}\n智能助手：我从所提供的选项中选择一个正确答案，为（",
    3: (
        "{q} 这是选项: {c} 请从所提供的选项中选择一个正确答案。请保证你的答案清晰简洁并输出字母选项。"
        "\n智能助手：我选择（"
    ),
}
TEXTQA_SYSTEM = "你是一个智能助手。"
TEXTQA_SYSTEM_PHRASE = "你是一个智能助手，"  # removed from the user turn (get_prompt_qwen: "avoid repeating")

DISH_PHRASE = "图片中的食物"  # "the food in the picture", replaced by the dish name in the ablation
IMAGE_MARKER_RE = re.compile(r"<img([1-4])>")
OPENERS = ("(", "（", "图")

TASKS = ("mivqa", "sivqa", "textqa")
TEMPLATES = (0, 1, 2, 3)


@dataclass
class Prompt:
    """One rendered prompt.

    Attributes:
        parts: the user turn in order: text segments (byte-exact) and image positions (ints, 0-based
            into the document's ``images``).
        prefill: the official assistant prefill, or None.
        system: a system message (textqa chat wrapping), or None.
        opener: the prompt's last character when it is an opening ``(``/``（``/``图`` the answer continues.
    """

    parts: list = field(default_factory=list)
    prefill: str | None = None
    system: str | None = None
    opener: str = ""


def format_choices(choices: list[str]) -> str:
    """``（A) opt\\n（B) opt\\n...``: full-width left parenthesis, ASCII right one (official format_choices)."""
    return "".join(f"（{label}) {str(choice).strip()}\n" for label, choice in zip("ABCD", choices))


def _fill(template: str, q: str, c: str = "") -> str:
    """The official fill, ``"{} 选项有: {}, ...".format(q, choices_str)``: ``str.format`` substitutes the
    template's own fields and never re-scans what it inserts, so braces in a question or an option (``{c}``,
    ``{}``, ``{0}``, ``{{``, a lone ``}``) reach the prompt verbatim. Our templates name their fields ``{q}``
    and ``{c}`` and hold no other brace, so ``format`` with those names is the official result exactly.
    (Successive ``str.replace`` calls would turn a ``{c}`` inside a question into the options block.)"""
    return template.format(q=q, c=c)


def _split_images(text: str) -> list:
    parts: list = []
    for i, piece in enumerate(IMAGE_MARKER_RE.split(text)):
        if i % 2:
            parts.append(int(piece) - 1)
        elif piece:
            parts.append(piece)
    return parts


def _opener(text: str) -> str:
    return text[-1] if text and text[-1] in OPENERS else ""


def build(doc: dict, task: str, lang: str, template: int, *, dishname: bool = False, image: bool = True) -> Prompt:
    """Render template ``template`` of ``task`` in ``lang`` for one document.

    Args:
        doc: a document of :func:`food_tasks.benchmarks.foodieqa.data.load_docs`.
        task: ``mivqa``, ``sivqa`` or ``textqa``.
        lang: ``zh`` or ``en`` (textqa: ``zh`` only).
        template: 0-3, the ``p0`` ... ``p3`` of the task names (the README's template numbering).
        dishname: sivqa ablation: ``图片中的食物`` in the (Chinese) question becomes the dish name.
        image: sivqa ablation: False drops the image (text unchanged).
    """
    if template not in TEMPLATES:
        raise ValueError(f"FoodieQA: template must be one of {TEMPLATES}, got {template!r}")
    if task == "mivqa":
        q = doc["question"] if lang == "zh" else doc["question_en"]
        if lang == "zh":
            q = q.replace(*MIVQA_ZH_REPLACE[template])
        # The question is filled in before splitting at markers; it holds no <imgN> markers.
        user, prefill = MIVQA[lang][template]
        parts = [p if isinstance(p, int) else _fill(p, q) for p in _split_images(user)]
        return Prompt(parts=parts, prefill=prefill, opener=_opener(prefill or parts[-1]))
    if task == "sivqa":
        q = (doc["question"] if lang == "zh" else doc["question_en"]).strip()
        if dishname:
            q = q.replace(DISH_PHRASE, doc["food_name"])
        choices = doc["choices"] if lang == "zh" else doc["choices_en"]
        user, prefill = SIVQA[lang][template]
        text = _fill(user, q, format_choices(choices))
        return Prompt(parts=([0] if image else []) + [text], prefill=prefill, opener=_opener(prefill or text))
    if task == "textqa":
        if lang != "zh":
            raise ValueError("FoodieQA: text QA exists in Chinese only (the release has no English text QA)")
        text = _fill(TEXTQA[template], doc["question"].strip(), format_choices(doc["choices"]))
        return Prompt(parts=[text], system=TEXTQA_SYSTEM, opener=_opener(text))
    raise ValueError(f"FoodieQA: unknown task {task!r}; expected one of {TASKS}")


def text_only(prompt: Prompt) -> Prompt:
    """The prompt without its image positions (an image-free twin, :mod:`food_tasks.tasks.noimage`): the text
    unchanged."""
    return replace(prompt, parts=[part for part in prompt.parts if isinstance(part, str)])


def user_text(prompt: Prompt, image_token: str | None = "<image>") -> str:
    """The user turn as one string: image positions become ``image_token`` (None drops them), and an
    assistant prefill is appended after a newline (inline prefill)."""
    text = "".join(p if isinstance(p, str) else (image_token or "") for p in prompt.parts)
    return text + "\n" + prompt.prefill if prompt.prefill is not None else text


def to_messages(prompt: Prompt, images: list) -> list[dict]:
    """lmms-eval chat messages: images at their template positions (None: left out, its label text stays),
    text segments byte-exact, the
    prefill inline at the end of the user turn; textqa gets the official system turn and the user
    text without ``你是一个智能助手，``."""
    content: list[dict] = []
    for part in prompt.parts:
        if isinstance(part, int):
            if images[part] is not None:  # None: an image that could not be decoded is left out
                content.append({"type": "image", "url": images[part]})
        else:
            text = part.replace(TEXTQA_SYSTEM_PHRASE, "") if prompt.system else part
            content.append({"type": "text", "text": text})
    if prompt.prefill is not None:
        content.append({"type": "text", "text": "\n" + prompt.prefill})
    messages = [{"role": "system", "content": [{"type": "text", "text": prompt.system}]}] if prompt.system else []
    return messages + [{"role": "user", "content": content}]
