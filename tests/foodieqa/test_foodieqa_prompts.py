"""FoodieQA prompts: byte-exact renderings of every official template (lyan62/FoodieQA@4d726407
``model-eval/scripts/eval_mivqa_en.py::get_prompt_phi``, ``sivqa_utils.py::format_text_prompt``,
``textqa_utils.py::format_text_prompt``), image placement, 以下/以上 rewriting, inline prefill, the dish-name ablations
and the text-QA chat wrapping."""

from __future__ import annotations

import pytest
from foodieqa_fixture import doc

from food_tasks.benchmarks.foodieqa import prompts

Q_ZH = "以上哪道菜需要放入馕坑烤制？"  # mivqa doc 0 after 以下 -> 以上
Q_EN = "Which of the following dishes is baked in a tandoor?"

# (lang, template) -> (parts with ints for images, prefill); hand-copied from eval_mivqa_en.py::get_prompt_phi.
MIVQA = {
    ("zh", 0): (
        [
            0,
            "\n",
            1,
            "\n",
            2,
            "\n",
            3,
            "\n根据以上四张图回答问题，他们分别为图A, 图B, 图C, 图D, "
            f"请从给定选项ABCD中选择一个最合适的答案。问题：{Q_ZH}, 答案为：图",
        ],
        None,
    ),
    ("zh", 1): (
        [
            0,
            "图A\n",
            1,
            "图B\n",
            2,
            "图C\n",
            3,
            f"图D\n根据以上四张图回答问题, 请从给定选项ABCD中选择一个最合适的答案。问题：{Q_ZH}, 答案为：图",
        ],
        None,
    ),
    ("zh", 2): (
        [
            "根据以下四张图回答问题,请从给定选项ABCD中选择一个最合适的答案。",
            0,
            "图A\n",
            1,
            "图B\n",
            2,
            "图C\n",
            3,
            f"图D\n问题：{Q_ZH}, 答案为：图",
        ],
        None,
    ),
    ("zh", 3): (
        ["问题以下哪道菜需要放入馕坑烤制？，选项有: ", 0, "图A\n", 1, "图B\n", 2, "图C\n", 3, "图D\n"],
        "如果从给定选项ABCD中选择一个最合适的答案， 答案为：图",
    ),
    ("en", 0): (
        [
            0,
            "\n",
            1,
            "\n",
            2,
            "\n",
            3,
            "\nAnswer the following question according to the provided four images which corresponds to "
            "Option (A), Option (B), Option (C), Option (D). Choose one best answer from the given options. "
            f"Question: {Q_EN}, your answer is: Option (",
        ],
        None,
    ),
    ("en", 1): (
        [
            "Answer the following question according to the provided four images, which corresponds to "
            "Option (A), Option (B), Option (C), Option (D). Choose one best answer from the given options. ",
            0,
            "Option (A)\n",
            1,
            "Option (B)\n",
            2,
            "Option (C)\n",
            3,
            f"Option (D)\nQuestion: {Q_EN}, your answer is: Option (",
        ],
        None,
    ),
    ("en", 2): (
        [
            "Answer the following question according to the provided four images, and choose one best answer "
            "from the given options. ",
            0,
            "Option (A)\n",
            1,
            "Option (B)\n",
            2,
            "Option (C)\n",
            3,
            f"Option (D)\nQuestion: {Q_EN}, your answer is: Option (",
        ],
        None,
    ),
    ("en", 3): (
        [
            f"Question{Q_EN} The options are: Option (A)",
            0,
            "\nOption (B)",
            1,
            "\nOption (C)",
            2,
            "\nOption (D)",
            3,
            "\n",
        ],
        "If I have to choose one best answer from the given options， the answer is：Option (",
    ),
}


@pytest.mark.parametrize("key", sorted(MIVQA))
def test_mivqa_templates_are_verbatim_with_images_in_place(key):
    lang, k = key
    prompt = prompts.build(doc("mivqa"), "mivqa", lang, k)
    assert prompt.parts == MIVQA[key][0]
    assert prompt.prefill == MIVQA[key][1]
    assert prompt.opener == ("图" if lang == "zh" else "(")


def test_mivqa_zh_question_direction_follows_the_template():
    above = doc("mivqa", 1)  # "以上哪道菜是甜的？"
    assert "问题：以上哪道菜是甜的？" in prompts.build(above, "mivqa", "zh", 0).parts[-1]
    assert prompts.build(above, "mivqa", "zh", 3).parts[0] == "问题以下哪道菜是甜的？，选项有: "
    assert "Which dish above is sweet?" in prompts.build(above, "mivqa", "en", 3).parts[0]  # English: untouched


CHOICES_ZH = "（A) 京菜\n（B) 徽菜\n（C) 新疆菜\n（D) 桂菜\n"
CHOICES_EN = "（A) Beijing cuisine\n（B) Anhui cuisine\n（C) Xinjiang cuisine\n（D) Guizhou cuisine\n"
QS_ZH, QS_EN = "图片中的食物通常属于哪个菜系?", "The food in the picture usually belongs to which cuisine?"
SIVQA = {
    ("zh", 0): (f"{QS_ZH} 选项有: {CHOICES_ZH}, 请根据上图从所提供的选项中选择一个正确答案，为（", None),
    ("zh", 1): (
        f"你是一个人工智能助手，请你看图回答以下选择题：{QS_ZH} 选项有: {CHOICES_ZH}, 请从中选择一个正确答案，为（",
        None,
    ),
    ("zh", 2): (
        f"你是一个智能助手，现在请看图回答以下选择题：{QS_ZH} 选项有: {CHOICES_ZH}",
        "我从所提供的选项中选择一个正确答案，为（",
    ),
    ("zh", 3): (f"{QS_ZH} 这是选项: {CHOICES_ZH} 请根据上图从所提供的选项中选择一个正确答案。", "我选择（"),
    ("en", 0): (
        f"{QS_EN} Here are the options: {CHOICES_EN} If had to select one of the options, my answer would be (",
        None,
    ),
    ("en", 1): (
        f"You are an AI assistant. Please answer the following multiple choice question based on the image: {QS_EN} "
        f"Here are the options: {CHOICES_EN} Please select one of the options as your answer (",
        None,
    ),
    ("en", 2): (
        f"{QS_EN} Here are the options: {CHOICES_EN}",
        "If had to select one of the options, my answer would be (",
    ),
    ("en", 3): (
        f"{QS_EN} These are the options: {CHOICES_EN} Please select one of the options as your answer.",
        "I would select (",
    ),
}


@pytest.mark.parametrize("key", sorted(SIVQA))
def test_sivqa_templates_are_verbatim_image_first(key):
    lang, k = key
    prompt = prompts.build(doc("sivqa"), "sivqa", lang, k)
    assert prompt.parts == [0, SIVQA[key][0]]
    assert prompt.prefill == SIVQA[key][1]


def test_sivqa_rendered_example_vqa_0():  # item vqa-0 as printed by the official get_accuracy.ipynb
    text = prompts.user_text(prompts.build(doc("sivqa"), "sivqa", "zh", 0), None)
    assert (
        text == "图片中的食物通常属于哪个菜系? 选项有: （A) 京菜\n（B) 徽菜\n（C) 新疆菜\n（D) 桂菜\n"
        ", 请根据上图从所提供的选项中选择一个正确答案，为（"
    )


def test_sivqa_question_is_stripped_and_dish_name_ablation():
    d = doc("sivqa", 1)  # question " 图片中的食物的主要口味是? " (padded)
    assert prompts.build(d, "sivqa", "zh", 0).parts[1].startswith("图片中的食物的主要口味是? 选项有: ")
    dish = prompts.build(d, "sivqa", "zh", 0, dishname=True)
    assert dish.parts[1].startswith("麻婆豆腐的主要口味是? 选项有: ")
    no_image = prompts.build(d, "sivqa", "zh", 0, dishname=True, image=False)
    assert no_image.parts == dish.parts[1:]
    # English questions do not contain the phrase: the ablation is a no-op there.
    assert prompts.build(d, "sivqa", "en", 0, dishname=True).parts == prompts.build(d, "sivqa", "en", 0).parts


TQ = "北京烤鸭通常属于哪个菜系?"
TC = "（A) 京菜\n（B) 粤菜\n（C) 川菜\n（D) 湘菜\n"
TEXTQA = {
    0: f"{TQ} 选项有: {TC}, 请根据从所提供的选项中选择一个正确答案，为（",
    1: f"你是一个智能助手，请你回答以下选择题：{TQ} 选项有: {TC}, 请从中选择一个正确答案，为（",
    2: f"你是一个智能助手，现在回答以下选择题：{TQ} 选项有: {TC}\n智能助手：我从所提供的选项中选择一个正确答案，为（",
    3: (
        f"{TQ} 这是选项: {TC} 请从所提供的选项中选择一个正确答案。"
        "请保证你的答案清晰简洁并输出字母选项。\n智能助手：我选择（"
    ),
}


@pytest.mark.parametrize("k", range(4))
def test_textqa_templates_and_qwen2_chat_wrapping(k):
    prompt = prompts.build(doc("textqa"), "textqa", "zh", k)
    assert prompts.user_text(prompt) == TEXTQA[k]  # simple models: the official single string
    messages = prompts.to_messages(prompt, [])
    assert messages[0] == {"role": "system", "content": [{"type": "text", "text": "你是一个智能助手。"}]}
    assert messages[1] == {
        "role": "user",
        "content": [{"type": "text", "text": TEXTQA[k].replace("你是一个智能助手，", "")}],
    }
    with pytest.raises(ValueError, match="Chinese only"):
        prompts.build(doc("textqa"), "textqa", "en", k)


def test_braces_in_questions_are_literal():
    assert prompts.build(doc("textqa", 2), "textqa", "zh", 0).parts[0].startswith("{奇怪}的菜")


def test_messages_interleave_images_and_prefill_inline():
    prompt = prompts.build(doc("mivqa"), "mivqa", "en", 3)
    messages = prompts.to_messages(prompt, ["I0", "I1", "I2", "I3"])
    content = messages[0]["content"]
    assert [c.get("url", c.get("text")) for c in content] == [
        f"Question{Q_EN} The options are: Option (A)",
        "I0",
        "\nOption (B)",
        "I1",
        "\nOption (C)",
        "I2",
        "\nOption (D)",
        "I3",
        "\n",
        "\nIf I have to choose one best answer from the given options， the answer is：Option (",
    ]
    # Simple models: the same order, images as <image> tokens, the prefill after a newline.
    assert prompts.user_text(prompt) == (
        f"Question{Q_EN} The options are: Option (A)<image>\nOption (B)<image>\nOption (C)<image>\nOption (D)<image>\n"
        "\nIf I have to choose one best answer from the given options， the answer is：Option ("
    )


def test_bad_template_and_task_are_clear_errors():
    with pytest.raises(ValueError, match="template"):
        prompts.build(doc("mivqa"), "mivqa", "zh", 4)
    with pytest.raises(ValueError, match="unknown task"):
        prompts.build(doc("mivqa"), "vqa", "zh", 0)


BRACED = "图片中的食物是{c}还是{q}？{}{0}{{x}}}"


@pytest.mark.parametrize(
    "task,lang", [("sivqa", "zh"), ("sivqa", "en"), ("textqa", "zh"), ("mivqa", "zh"), ("mivqa", "en")]
)
@pytest.mark.parametrize("k", range(4))
def test_braces_in_questions_and_options_reach_the_prompt_verbatim(task, lang, k):
    """The official fill is "{} 选项有: {}".format(q, choices_str): format never re-scans what it inserts, so
    a question's "{c}" stays "{c}" (str.replace used to put the options block there)."""
    d = dict(doc(task), question=BRACED, question_en=BRACED)
    if task != "mivqa":
        d["choices"] = d["choices_en"] = ["{q}", "{c}", "{}", "}{"]
    text = prompts.user_text(prompts.build(d, task, lang, k), None)
    assert text.count(BRACED) == 1, text
    if task != "mivqa":
        assert text.count("（A) {q}\n（B) {c}\n（C) {}\n（D) }{\n") == 1 and text.count("（A)") == 1


def test_templates_have_only_the_q_and_c_fields():
    import string

    templates = [t for lang in prompts.MIVQA.values() for pair in lang.values() for t in pair if t]
    templates += [t for lang in prompts.SIVQA.values() for pair in lang.values() for t in pair if t] + list(
        prompts.TEXTQA.values()
    )
    for template in templates:
        fields = {name for _, name, spec, conv in string.Formatter().parse(template) if name is not None}
        assert fields <= {"q", "c"}, template
