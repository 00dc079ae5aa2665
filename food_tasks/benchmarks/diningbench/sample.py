"""The packaged DiningBench sample: invented records in the published layout (JSONL + ``images.tar.gz`` with
generated images); the real data (CC BY-NC-ND 4.0) is downloaded, never shipped. Deterministic.
"""

from __future__ import annotations

from pathlib import Path

from food_tasks.benchmarks.diningbench import layout as db_layout
from food_tasks.benchmarks.diningbench.parsing import VQA_ENDING_EN
from food_tasks.data import mirror

DB_OPTIONS = [
    "Mapo Tofu",
    "Kung Pao Chicken",
    "Twice-cooked Pork",
    "Fish-fragrant Eggplant",
    "Dan Dan Noodles",
    "Boiled Fish in Chili Oil",
    "Spicy Diced Rabbit",
    "Sichuan Hot Pot",
]
DB_CLS = [("A", (200, 60, 40)), ("E", (230, 180, 90))]
DB_NUT = [
    ({"卡路里": 450, "蛋白质": 22, "碳水化合物": 30, "脂肪": 25}, (150, 40, 30)),
    ({"卡路里": 620, "蛋白质": 18, "碳水化合物": 85, "脂肪": 20}, (240, 200, 120)),
]
# VQA (English, judged): invented open questions with short gold answers, one or two images each (the published
# ``images`` list; the last row's second image is a second view of the same dish).
DB_VQA = [
    ("Is this dish fried?", "No, it is braised.", [(200, 60, 40)]),
    ("Is this dish suitable for a vegetarian?", "No, it contains minced pork.", [(210, 90, 50)]),
    ("What is the main staple of this dish?", "Wheat noodles", [(230, 180, 90), (200, 150, 60)]),
]


def mirror_files() -> tuple[dict[str, list[dict]], dict[str, bytes]]:
    """The sample mirror: classification, nutrition and VQA JSONL rows by file name, and the image bytes by path."""
    lines = "\n".join(f"{x}. {o}" for x, o in zip("ABCDEFGH", DB_OPTIONS))
    cls_prompt = (
        "You are a food recognition expert. Please select the most appropriate dish name from the following options "
        "based on the image content, and output the corresponding option letter.\n\n"
        f"Options:\n{lines}\n\n"
        "Your answer should only be a single uppercase English letter corresponding to the option, without any "
        "description, explanation, or content other than the option letter."
    )
    nut_prompt = (
        "你是一名食物识别专家。请根据图片内容预测图中食物的卡路里、蛋白质、碳水化合物和脂肪含量，并直接按以下JSON格式输出（单位均为每份的克或千卡）：\n\n"
        '{\n "卡路里": <number>,\n "蛋白质": <number>,\n "碳水化合物": <number>,\n "脂肪": '
        "<number>\n}\n\n请确保你的答案是可以被json.loads直接加载的标准JSON，不要输出JSON以外的任何内容。"
    )
    files: dict[str, list[dict]] = {"classification_en.jsonl": [], "nutrition.jsonl": [], "vqa_en.jsonl": []}
    images: dict[str, bytes] = {}
    for name, rows, prompt in (
        ("classification_en.jsonl", DB_CLS, cls_prompt),
        ("nutrition.jsonl", DB_NUT, nut_prompt),
    ):
        for i, (gold, colour) in enumerate(rows):
            stem = f"images/{name.split('.')[0]}/{i:05d}"
            views = [f"{stem}_0.jpg", f"{stem}_1.jpg", f"{stem}_2.jpg"]
            for k, view in enumerate(views):
                images[view] = mirror.png_bytes(tuple(max(0, c - 30 * k) for c in colour), 48)
            files[name].append(
                {"id": i, "prompt": prompt, "ground_truth": gold, "standard_image": views[0], "user_images": views[1:]}
            )
    for i, (question, gold, colours) in enumerate(DB_VQA):
        paths = [f"images/vqa_en/{i:05d}_{k}.jpg" for k in range(len(colours))]
        for path, colour in zip(paths, colours):
            images[path] = mirror.png_bytes(colour, 48)
        files["vqa_en.jsonl"].append(
            {"id": i, "prompt": question + VQA_ENDING_EN, "ground_truth": gold, "images": paths, "reasoning": ""}
        )
    return files, images


def write(root: Path) -> None:
    """Writes the sample under ``root`` as the Hub repository publishes it (JSONL files, image archive)."""
    db_layout.write_mirror(root, *mirror_files())
