"""A small FoodieQA distribution in the published layout (FoodieQA.zip: images/ + *_tidy.json), built by code.

Every image is a distinct solid colour, so tests can tell which image reached a model in which position.
"""

from __future__ import annotations

from pathlib import Path

from food_tasks.benchmarks.foodieqa import layout
from food_tasks.data import mirror

COLOURS = [(250, 0, 0), (0, 250, 0), (0, 0, 250), (250, 250, 0), (0, 250, 250), (250, 0, 250)]
IMG = "images/14456664_all_202404292352223293/{}_IMG.jpeg".format  # official-looking sub-folder per upload


def tables() -> dict[str, list]:
    mivqa = [
        layout.mivqa_row(
            "8a5705334b2cccd1bff5792a30f2efeb_1",
            "以下哪道菜需要放入馕坑烤制？",
            "Which of the following dishes is baked in a tandoor?",
            [IMG(0), IMG(1), IMG(2), IMG(3)],
            1,
            "cooking-skills",
            "新疆",
        ),
        layout.mivqa_row(
            "8a5705334b2cccd1bff5792a30f2efeb_2",
            "以上哪道菜是甜的？",
            "Which dish above is sweet?",
            [IMG(3), IMG(2), IMG(1), IMG(0)],
            3,
            "taste",
            "川",
        ),
        layout.mivqa_row(
            "8a5705334b2cccd1bff5792a30f2efeb_3",
            "以下哪道菜用到了豆腐？",
            "Which dish uses tofu?",
            [IMG(4), IMG(5), IMG(0), IMG(1)],
            0,
            "ingredients",
            "川",
        ),
        layout.mivqa_row(
            "8a5705334b2cccd1bff5792a30f2efeb_4",
            "以下哪道菜最辣？",
            "Which dish is the spiciest?",
            [IMG(1), IMG(4), IMG(5), IMG(2)],
            2,
            "taste",
            "湘",
        ),
    ]
    sivqa = [
        layout.sivqa_row(
            "vqa-0",
            "图片中的食物通常属于哪个菜系?",
            ["京菜", "徽菜", "新疆菜", "桂菜"],
            "The food in the picture usually belongs to which cuisine?",
            ["Beijing cuisine", "Anhui cuisine", "Xinjiang cuisine", "Guizhou cuisine"],
            2,
            "cuisine_type",
            "烤羊肉串",
            "新疆菜",
            IMG(0),
        ),
        layout.sivqa_row(
            "vqa-1",
            " 图片中的食物的主要口味是? ",
            ["甜", "酸", "咸", "辣"],
            "What is the main flavor of the food in the picture?",
            ["Sweet", "Sour", "Salty", "Spicy"],
            3,
            "flavor",
            "麻婆豆腐",
            "川菜",
            IMG(4),
        ),
        layout.sivqa_row(
            "vqa-2",
            "图片中的食物是哪里的特色?",
            ["四川", "广东", "新疆", "山东"],
            "Where is the food in the picture a specialty?",
            ["Sichuan", "Guangdong", "Xinjiang", "Shandong"],
            0,
            "region-2",
            "麻婆豆腐",
            "川菜",
            IMG(4),
        ),
    ]
    textqa = [
        layout.textqa_row("textqa-0", "北京烤鸭通常属于哪个菜系?", ["京菜", "粤菜", "川菜", "湘菜"], 0, "cuisine_type"),
        layout.textqa_row(
            "textqa-1", "麻婆豆腐的主要食材是什么?", ["鸡肉", "豆腐", "土豆", "鱼"], 1, "main-ingredient"
        ),
        layout.textqa_row("textqa-2", "{奇怪}的菜通常冷吃还是热吃?", ["冷", "热", "都可以", "不吃"], 2, "warm-cold"),
        layout.textqa_row("textqa-3", "过桥米线来自哪个省?", ["云南", "贵州", "四川", "广西"], 0, "region"),
    ]
    return {"mivqa": mivqa, "sivqa": sivqa, "textqa": textqa}


def images() -> dict[str, bytes]:
    return {IMG(i): mirror.png_bytes(c, 32) for i, c in enumerate(COLOURS)}


def build(root: Path, *, zipped: bool = True, folder: str = "FoodieQA") -> Path:
    if zipped:
        layout.write_zip(root, tables(), images(), folder=folder)
    else:
        layout.write_unpacked(root, tables(), images())
    return root


def doc(task: str, i: int = 0) -> dict:
    """Document ``i`` of ``task`` as :func:`food_tasks.benchmarks.foodieqa.data.load_docs` builds it (no files)."""
    from food_tasks.benchmarks.foodieqa.data import _doc

    class _Folder:  # images "exist" for this in-memory check
        def __truediv__(self, other):  # type: ignore[no-untyped-def]
            return type("P", (), {"is_file": staticmethod(lambda: True)})()

    return _doc(task, i, tables()[task][i], Path(f"{task}_tidy.json"), _Folder())  # type: ignore[arg-type]


def hook_environment(root: Path) -> dict[str, str]:
    """A mirror under ``root`` that every FoodieQA task's ``process_docs`` reads (``FOOD_TASKS_DATA_DIR=root``),
    and the other environment variables it needs (a Hub home of its own): tests/core/test_adversarial_outputs.py
    calls it."""
    build(root)
    return {"HF_HOME": str(root / "hf_home")}
