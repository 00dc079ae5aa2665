"""A small DiningBench mirror in the published layout (six JSONL files + a real images.tar.gz), built by code.

Invented records in the schema the official scripts read; expected metric values (here, for the scripted
outputs at the end, and in test_diningbench_*.py) are hand-computed from these records and the scripted outputs.
"""

from __future__ import annotations

import math
from pathlib import Path

from food_tasks.benchmarks.diningbench import layout
from food_tasks.benchmarks.diningbench.parsing import VQA_ENDING_EN, VQA_ENDING_ZH
from food_tasks.data import mirror

OPTIONS_ZH = [
    "红薯鸡肉沙拉",
    "烤土豆鸡肉沙拉",
    "柚子虾仁沙拉",
    "烤南瓜藜麦沙拉",
    "木瓜鸡肉沙拉",
    "烤南瓜鸡肉沙拉",
    "芒果鸡肉沙拉",
    "鲜果虾仁沙拉",
]
OPTIONS_EN = [
    "Sweet Potato Chicken Salad",
    "Roasted Potato Chicken Salad",
    "Pomelo Shrimp Salad",
    "Roasted Pumpkin Quinoa Salad",
    "Papaya Chicken Salad",
    "Roasted Pumpkin Chicken Salad",
    "Mango Chicken Salad",
    "Fresh Fruit Shrimp Salad",
]


def cls_prompt(options: list[str], lang: str) -> str:
    lines = "\n".join(f"{letter}. {o}" for letter, o in zip("ABCDEFGH", options))
    if lang == "zh":
        return (
            "你是一名食物识别专家。请根据图片内容，从以下选项中选择最合适的菜品名称，并输出对应的选项字母。\n\n"
            f"选项：\n{lines}\n\n"
            "你的答案只能是选项对应的单个大写英文字母，不要包含任何描述、解释或选项字母以外的内容。"
        )
    return (
        "You are a food recognition expert. Please select the most appropriate dish name from the following options "
        f"based on the image content, and output the corresponding option letter.\n\nOptions:\n{lines}\n\n"
        "Your answer should only be a single uppercase English letter corresponding to the option, without any "
        "description, explanation, or content other than the option letter."
    )


NUT_PROMPT_ZH = (
    "你是一名食物识别专家。请根据图片内容预测图中食物的卡路里、蛋白质、碳水化合物和脂肪含量，"
    "并直接按以下JSON格式输出（单位均为每份的克或千卡）：\n\n"
    '{\n "卡路里": <number>,\n "蛋白质": <number>,\n "碳水化合物": <number>,\n "脂肪": <number>\n}\n\n'
    "请确保你的答案是可以被json.loads直接加载的标准JSON，不要输出JSON以外的任何内容。"
)
NUT_PROMPT_EN = (
    "You are a food recognition expert. Please predict the calories, protein, carbohydrates, and fat content of the "
    "food in the image based on the image content, and output directly in the following JSON format (all units are "
    "grams or kilocalories per serving):\n\n"
    '{\n "calories": <number>,\n "protein": <number>,\n "carbohydrates": <number>,\n "fat": <number>\n}\n\n'
    "Please ensure your answer is standard JSON that can be directly loaded by json.loads, and do not output any "
    "content other than JSON."
)


def _views(stem: str, users: int) -> dict:
    return {
        "standard_image": f"images/{stem}/std.jpg",
        "user_images": [f"images/{stem}/u{k}.jpg" for k in range(1, users + 1)],
    }


# (gold, number of user photos)
CLS_ZH = [("F", 3), ("C", 3), ("A", 1), (" b ", 4), ("H", 3)]
CLS_EN = [("F", 3), ("B", 3)]
NUT_ZH = [
    {"卡路里": 500, "蛋白质": 20, "碳水化合物": 60, "脂肪": 10},
    '{"卡路里": 300, "蛋白质": 10, "碳水化合物": 40, "脂肪": 0}',  # a JSON string, and a zero fat value
    {"卡路里": 800, "蛋白质": 40, "碳水化合物": 100, "脂肪": 30},
]
NUT_EN = [
    {"calories": 580, "protein": 24, "carbohydrates": 80, "fat": 18},
    {"calories": 200, "protein": 5, "carbohydrates": 30, "fat": 6},
]
VQA_ZH = [  # (question, gold, images or None for the id fallback)
    ("这道菜是否经过油炸？", "是", ["images/vqa/00000.jpg"]),
    (
        "假设一位素食者想吃这道菜，判断它是否符合其饮食标准？",
        "不符合，含有奶酪制品。",
        ["images/vqa/00001.jpg", "images/vqa/00001b.jpg"],
    ),
    ("这道菜的主要烹饪方法是什么？", "", ["images/vqa/00002.jpg"]),
    ("这道菜适合糖尿病患者吗？", "不适合，含糖量高。", None),
]
VQA_EN = [
    ("Is this dish fried?", "Yes", ["images/vqa/00000.jpg"]),
    (
        "Assuming a vegan wants to eat this dish, determine whether it meets their dietary standards?",
        "Does not comply, contains cheese products.",
        ["images/vqa/00001.jpg", "images/vqa/00001b.jpg"],
    ),
    ("What is the main meat in this dish?", "Pork", ["images/vqa/00002.jpg"]),
]


def files() -> dict[str, list[dict]]:
    out = {
        "classification.jsonl": [
            {"id": i, "prompt": cls_prompt(OPTIONS_ZH, "zh"), "ground_truth": g, **_views(f"cls{i}", u)}
            for i, (g, u) in enumerate(CLS_ZH)
        ],
        "classification_en.jsonl": [
            {"id": i, "prompt": cls_prompt(OPTIONS_EN, "en"), "ground_truth": g, **_views(f"cls{i}", u)}
            for i, (g, u) in enumerate(CLS_EN)
        ],
        "nutrition.jsonl": [
            {"id": 100 + i, "prompt": NUT_PROMPT_ZH, "ground_truth": g, **_views(f"nut{i}", 3)}
            for i, g in enumerate(NUT_ZH)
        ],
        "nutrition_en.jsonl": [
            {"id": 100 + i, "prompt": NUT_PROMPT_EN, "ground_truth": g, **_views(f"nut{i}", 3)}
            for i, g in enumerate(NUT_EN)
        ],
        "vqa.jsonl": [],
        "vqa_en.jsonl": [],
    }
    for name, rows, ending in (("vqa.jsonl", VQA_ZH, VQA_ENDING_ZH), ("vqa_en.jsonl", VQA_EN, VQA_ENDING_EN)):
        for i, (question, gold, images) in enumerate(rows):
            row = {
                "id": i,
                "prompt": question + ending,
                "ground_truth": gold,
                "reasoning": "（构造时的推理，不用于评分）",
            }
            if images is not None:
                row["images"] = images
            out[name].append(row)
    return out


def image_paths() -> list[str]:
    paths = set()
    for rows in files().values():
        for row in rows:
            paths.update(
                [row["standard_image"], *row["user_images"]] if "standard_image" in row else row.get("images", [])
            )
    paths.add("images/00003.jpg")  # VQA_ZH row 3 has no "images": the official fallback path
    return sorted(paths)


def images() -> dict[str, bytes]:
    return {
        p: mirror.png_bytes((30 * (n % 8), 90 + 10 * (n % 5), 200 - 15 * (n % 9)), 24)
        for n, p in enumerate(image_paths())
    }


def build(root: Path, *, extracted: bool = False, rows: dict | None = None) -> Path:
    """Write the mirror under ``root`` ($FOOD_TASKS_DATA_DIR layout); return the dataset directory."""
    return layout.write_mirror(root, rows or files(), images(), extracted=extracted)


# --- scripted outputs and their hand-computed scores (test_diningbench_scoring.py, test_diningbench_e2e.py)

# The e2e outputs of diningbench_cls_zh (scored by hand in test_diningbench_scoring.py)
CLS_OUTPUTS = ["F", "答案：C", "Answer: A", "<think>maybe C</think>B", "I don't know"]

NUT_OUTPUTS = [
    '{"卡路里": 550, "蛋白质": 18, "碳水化合物": 60, "脂肪": 12}',
    '```json\n{"calories": "330 kcal", "protein": 12, "carbohydrates": 40, "fat": 1}\n```',
    'About {"calories": 800, "protein": 30, "carbohydrates": 120, "fat": 30}',
]
# Robust errors per row (cal, prot, carb, fat): (50, 2, 0, 2), (30, 2, 0, 1), (0, 10, 20, 0).
# Official: rows 2 and 3 are parse failures -> errors |gt|: (300, 10, 40, 0), (800, 40, 100, 30), APE 100.
NUT_EXPECTED = {
    "calories_mae": 80 / 3,
    "calories_rmse": math.sqrt(3400 / 3),
    "calories_mape": 20 / 3,
    "protein_mae": 14 / 3,
    "protein_rmse": 6.0,
    "protein_mape": 55 / 3,
    "carbohydrates_mae": 20 / 3,
    "carbohydrates_rmse": math.sqrt(400 / 3),
    "carbohydrates_mape": 20 / 3,
    "fat_mae": 1.0,
    "fat_rmse": math.sqrt(5 / 3),
    "fat_mape": 10.0,  # fat gt 0 in row 2: out of the MAPE denominator
    "avg_mae": 9.75,
    "avg_mape": 125 / 12,
    "avg_rmse": (math.sqrt(3400 / 3) + 6 + math.sqrt(400 / 3) + math.sqrt(5 / 3)) / 4,
    "parse_fail_rate": 0.0,
    "calories_mae_official": 1150 / 3,
    "calories_rmse_official": math.sqrt(732500 / 3),
    "calories_mape_official": 70.0,
    "protein_mae_official": 52 / 3,
    "protein_rmse_official": math.sqrt(568),
    "protein_mape_official": 70.0,
    "carbohydrates_mae_official": 140 / 3,
    "carbohydrates_rmse_official": math.sqrt(11600 / 3),
    "carbohydrates_mape_official": 200 / 3,
    "fat_mae_official": 32 / 3,
    "fat_rmse_official": math.sqrt(904 / 3),
    "fat_mape_official": 60.0,
    "avg_mae_official": 114.5,
    "avg_mape_official": 200 / 3,
    "parse_fail_rate_official": 100 * 2 / 3,  # percent, as every rate (the official scorer prints 2 / 3)
}


def hook_environment(root: Path) -> dict[str, str]:
    """A mirror under ``root`` that every DiningBench task's ``process_docs`` reads (``FOOD_TASKS_DATA_DIR=root``),
    and the other environment variables it needs (none): tests/core/test_adversarial_outputs.py calls it."""
    build(root)
    return {}
