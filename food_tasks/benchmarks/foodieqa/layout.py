"""Writers of FoodieQA's published layout (``lyan62/FoodieQA``: ``FoodieQA.zip`` holding ``images/`` and the
three ``*_tidy.json`` arrays), for the test fixtures and the packaged sample (``FOOD_TASKS_DATA_DIR`` layout)."""

from __future__ import annotations

import json
import zipfile
from collections.abc import Mapping, Sequence
from pathlib import Path

from food_tasks.benchmarks.foodieqa.data import FILES, REPO, ZIP_NAME

ZIP_DATE = (2024, 6, 1, 0, 0, 0)  # fixed member timestamps: byte-identical zips


def mivqa_row(
    qid: str, question: str, question_en: str, images: Sequence[str], answer: int, question_type: str, ann_group: str
) -> dict:
    """A multi-image question record with the fields of ``mivqa_tidy.json``."""
    return {
        "question_id": qid,
        "question": question,
        "question_en": question_en,
        "images": list(images),
        "answer": str(answer),
        "question_type": question_type,
        "ann_group": ann_group,
    }


def sivqa_row(
    qid: str,
    question: str,
    choices: Sequence[str],
    question_en: str,
    choices_en: Sequence[str],
    answer: int,
    question_type: str,
    food_name: str,
    food_type: str,
    food_file: str,
) -> dict:
    """A record with the field order printed by the official notebook ``model-eval/scripts/get_accuracy.ipynb``
    (deleted in lyan62/FoodieQA commit a58272a; read at its parent cbaae69)."""
    return {
        "question": question,
        "choices": list(choices),
        "answer": str(answer),
        "question_type": question_type,
        "food_name": food_name,
        "question_id": qid,
        "food_meta": {
            "main_ingredient": [],
            "id": 0,
            "food_name": food_name,
            "food_type": food_type,
            "food_location": "餐馆",
            "food_file": food_file,
        },
        "question_en": question_en,
        "choices_en": list(choices_en),
    }


def textqa_row(qid: str, question: str, choices: Sequence[str], answer: int, question_type: str) -> dict:
    """A text-only question record with the fields of ``textqa_tidy.json``."""
    return {
        "qid": qid,
        "question": question,
        "choices": list(choices),
        "answer": str(answer),
        "question_type": question_type,
    }


def _files(tables: Mapping[str, list], images: Mapping[str, bytes]) -> dict[str, bytes]:
    out = {
        FILES[task]: (json.dumps(rows, ensure_ascii=False, indent=1) + "\n").encode() for task, rows in tables.items()
    }
    return out | dict(images)


def write_unpacked(root: Path, tables: Mapping[str, list], images: Mapping[str, bytes]) -> Path:
    """The unpacked layout under ``root/lyan62/FoodieQA/``; ``images`` maps data-folder paths to bytes."""
    base = root / REPO
    for rel, content in sorted(_files(tables, images).items()):
        path = base / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(content)
    return base


def write_zip(root: Path, tables: Mapping[str, list], images: Mapping[str, bytes], folder: str = "FoodieQA") -> Path:
    """``root/lyan62/FoodieQA/FoodieQA.zip`` holding the files under ``folder/`` ("" for the zip's top level)."""
    path = root / REPO / ZIP_NAME
    path.parent.mkdir(parents=True, exist_ok=True)
    prefix = f"{folder}/" if folder else ""
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as archive:
        for rel, content in sorted(_files(tables, images).items()):
            archive.writestr(zipfile.ZipInfo(prefix + rel, date_time=ZIP_DATE), content)
    return path


# ---------------------------------------------------------------- packaged sample (synthetic; the real data is gated)

SAMPLE_COLOURS = {
    "kebab": (170, 90, 40),
    "mapo": (200, 40, 30),
    "duck": (150, 70, 30),
    "dumpling": (235, 225, 200),
    "noodle": (220, 190, 120),
}


def sample_tables() -> dict[str, list]:
    """The packaged sample's records per task (mivqa, sivqa, textqa)."""
    img = "images/sample/{}.png".format
    return {
        "mivqa": [
            mivqa_row(
                "sample_mivqa_0",
                "以下哪道菜是新疆菜？",
                "Which of the following dishes is a Xinjiang dish?",
                [img("duck"), img("dumpling"), img("kebab"), img("noodle")],
                2,
                "food-type",
                "新疆",
            ),
            mivqa_row(
                "sample_mivqa_1",
                "以下哪道菜的主要食材是豆腐？",
                "Which of the following dishes is mainly made of tofu?",
                [img("mapo"), img("duck"), img("noodle"), img("dumpling")],
                0,
                "ingredients",
                "川",
            ),
        ],
        "sivqa": [
            sivqa_row(
                "vqa-s0",
                "图片中的食物通常属于哪个菜系?",
                ["粤菜", "川菜", "鲁菜", "苏菜"],
                "The food in the picture usually belongs to which cuisine?",
                ["Cantonese cuisine", "Sichuan cuisine", "Shandong cuisine", "Jiangsu cuisine"],
                1,
                "cuisine_type",
                "麻婆豆腐",
                "川菜",
                img("mapo"),
            ),
            sivqa_row(
                "vqa-s1",
                "图片中的食物口味是?",
                ["甜", "酸", "咸鲜", "麻辣"],
                "What does the food in the picture taste like?",
                ["Sweet", "Sour", "Salty and savory", "Numbing and spicy"],
                3,
                "flavor",
                "麻婆豆腐",
                "川菜",
                img("mapo"),
            ),
        ],
        "textqa": [
            textqa_row("textqa-s0", "北京烤鸭通常属于哪个菜系?", ["京菜", "粤菜", "川菜", "湘菜"], 0, "cuisine_type"),
            textqa_row("textqa-s1", "麻婆豆腐的主要食材是什么?", ["鸡肉", "豆腐", "土豆", "鱼"], 1, "main-ingredient"),
        ],
    }


def sample_images() -> dict[str, bytes]:
    """The packaged sample's images: plain-colour PNG bytes by their path in the data folder."""
    from food_tasks.data import mirror

    return {f"images/sample/{name}.png": mirror.png_bytes(colour, 48) for name, colour in SAMPLE_COLOURS.items()}
