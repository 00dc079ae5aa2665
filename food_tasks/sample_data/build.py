"""Write the packaged sample data (run: ``python -m food_tasks.sample_data.build``).

A handful of WorldCuisines-shaped rows per subtask in three languages, rendered
with the official prompt templates, and generated images (solid colours) in a
food-kb-shaped parquet file; four FAM-Bench Task 1 rows and two Task 2 questions in
the official repository layout (``github/<owner>/<repo>/``) with generated images
under ``urls/``. Dish names and countries are facts; questions are
our own translations of the official English templates. Deterministic.
"""

from __future__ import annotations

import sys
from pathlib import Path

from food_tasks import mirror
from food_tasks.benchmarks.worldcuisines import layout as wc_layout
from food_tasks.benchmarks.foodieqa import layout as fq_layout
from food_tasks.sample_data import SAMPLE_ROOT

COUNTRIES = {
    "Indonesia": {"id_formal": "Indonesia", "ja_formal": "インドネシア"},
    "Japan": {"id_formal": "Jepang", "ja_formal": "日本"},
    "South Africa": {"id_formal": "Afrika Selatan", "ja_formal": "南アフリカ"},
    "Italy": {"id_formal": "Italia", "ja_formal": "イタリア"},
    "Brazil": {"id_formal": "Brasil", "ja_formal": "ブラジル"},
    "Thailand": {"id_formal": "Thailand", "ja_formal": "タイ"},
    "Canada": {"id_formal": "Kanada", "ja_formal": "カナダ"},
    "Netherlands": {"id_formal": "Belanda", "ja_formal": "オランダ"},
}
QUESTIONS = {  # prompt_type -> (prompt_id, {lang: template})
    "1": ("9", {"en": "What is this culinary dish called?", "id_formal": "Apa nama hidangan kuliner ini?",
                "ja_formal": "この料理は何と呼ばれていますか？"}),
    "3": ("46", {"en": "How do people in {c} identify this dish?", "id_formal": "Bagaimana orang di {c} menyebut hidangan ini?",
                 "ja_formal": "{c}の人々はこの料理を何と呼びますか？"}),
    "4": ("79", {"en": "My friend went to {c} and sent me this photo. What is the name of this food?",
                 "id_formal": "Teman saya pergi ke {c} dan mengirimi saya foto ini. Apa nama makanan ini?",
                 "ja_formal": "友人が{c}に行って、この写真を私に送ってくれました。この食べ物の名前は何ですか?"}),
    "2": ("23", {"en": "Which country is this dish associated with?", "id_formal": "Hidangan ini berasal dari negara mana?",
                 "ja_formal": "この料理はどの国と関係がありますか？"}),
}  # fmt: skip
# food_id, dish, country, options (dish names), gold option id, context country for 1b/1c, colour
DISHES = [
    ("422", "Serabi", "Indonesia", ["Serabi", "Terang Bulan", "Syrniki", "Murtabak", "Sapin-sapin"], 1, "Netherlands", (200, 150, 60)),
    ("1614", "Kenchin-jiru", "Japan", ["Sayur asem", "Draw soup", "Egg drop soup", "Agedashi dōfu", "Kenchin-jiru"], 5, "Japan", (120, 80, 40)),
    ("949", "Melktert", "South Africa", ["Pastel de nata", "Melktert", "Custard tart", "Bougatsa"], 2, "Canada", (240, 220, 150)),
]
COUNTRY_OPTIONS = [["Thailand", "South Africa", "Canada", "Brazil", "Indonesia"], ["Japan", "Italy", "Brazil", "Thailand", "Canada"],
                   ["Italy", "Canada", "South Africa", "Netherlands", "Brazil"]]  # fmt: skip
LANGS = ("en", "id_formal", "ja_formal")
QA_BASE = {"1": 400, "3": 410, "4": 420, "2": 1900}


def _country(name: str, lang: str) -> str:
    return name if lang == "en" else COUNTRIES[name][lang]


def rows() -> list[dict]:
    out = []
    for prompt_type, (prompt_id, templates) in QUESTIONS.items():
        for k, (food_id, _, country, options, gold, context, _) in enumerate(DISHES):
            qa_id = str(QA_BASE[prompt_type] + k)
            for lang in LANGS:
                if prompt_type == "2":
                    opts = [_country(c, lang) for c in COUNTRY_OPTIONS[k]]
                    answer_id = COUNTRY_OPTIONS[k].index(country) + 1
                    task = "large_task2"
                else:
                    opts, answer_id, task = options, gold, "large_task1"
                question = templates[lang].format(c=_country(context, lang))
                url = f"https://example.org/food-tasks-sample/{food_id}.png?download"
                out.append(wc_layout.wc_row(qa_id=qa_id, lang=lang, food_id=food_id, prompt_id=prompt_id, prompt_type=prompt_type,
                                         question=question, options=opts, answer_id=answer_id, image_url=url, task=task))  # fmt: skip
    return out


def kb() -> list[dict]:
    return [
        {"food_id": food_id, "name": name,
         "images": [(f"https://example.org/food-tasks-sample/{food_id}.png?download", mirror.png_bytes(colour, 48))]}
        for food_id, name, _, _, _, _, colour in DISHES
    ]  # fmt: skip


FAM_IMG = "https://example.org/food-tasks-sample/fambench/{}.png"
FAM_T1 = [  # (title, condition asked, decision, rationale condition, rationale ingredients, recipe lines, colour)
    ("Grilled salmon with quinoa", "hypertension", "recommend", "hypertension", ["salmon", "quinoa"],
     ["2 salmon fillets", "1 cup quinoa", "1 lemon", "1 tbsp olive oil"], (230, 140, 110)),
    ("Bacon cheeseburger", "heart failure", "not recommend", "heart failure", ["bacon", "cheddar cheese"],
     ["4 slices bacon", "1 beef patty", "2 slices cheddar cheese", "1 burger bun"], (150, 90, 40)),
    ("Lentil soup", "diabetes", "recommend", "type 2 diabetes", ["lentil", "spinach"],
     ["1 cup red lentils", "1 onion, chopped", "2 cups spinach", "4 cups vegetable stock"], (200, 120, 40)),
    ("Spicy tomato pasta", "GERD", "not recommend", "gerd", ["tomato", "chili flakes"],
     ["200 g spaghetti", "400 g can chopped tomatoes", "1 tsp chili flakes", "2 garlic cloves"], (210, 50, 40)),
]  # fmt: skip
FAM_T2 = [  # (question id, condition label, gold letter, gold ranking, decision labels, option titles)
    ("SAMPLE_0001", "Hypertension", "B", "BDAC", "NRNN", ["Salted pork ramen", "Steamed cod with greens", "Pepperoni pizza", "Lentil salad"]),
    ("SAMPLE_0002", "Type 2 diabetes", "A", "ADCB", "RNNN", ["Chickpea stew", "Glazed doughnuts", "White rice bowl", "Fruit smoothie"]),
]  # fmt: skip


def fambench_files() -> dict[str, object]:
    """The FAM-Bench sample, in the official repository layout (synthetic content; the real files are CC BY 4.0
    and are downloaded, never shipped)."""
    from food_tasks.benchmarks.fambench import data as fb_data

    task1 = [{"title": t, "question": f"Is this dish suitable for someone managing {asked}?", "ingredients": lines,
              "nutrition": {"calories": "420 kcal", "sodium": "480 mg"}, "dietary_tags": [], "meal_type": ["dinner"],
              "notes": None, "image_url": FAM_IMG.format(f"t1-{i}"),
              "standard answer": {"decision": decision, "rationale_ingredients": [{"condition": cond, "ingredients": ings}]}}
             for i, (t, asked, decision, cond, ings, lines, _) in enumerate(FAM_T1, start=1)]  # fmt: skip
    questions = []
    for qid, label, gold, ranking, labels, titles in FAM_T2:
        options = [{"letter": x, "title": title, "image_url": FAM_IMG.format(f"{qid.lower()}-{x}"),
                    "full_ingredients": [f"1 serving {title.lower()}"]} for x, title in zip("ABCD", titles)]  # fmt: skip
        questions.append({"question_id": qid, "prompt": {"conditions": [label.lower()], "condition_labels": [label],
                          "available_ingredients": []}, "options": options, "answer": {"letter": gold},
                          "gold": {"ranking": list(ranking), "decision_labels": {x: "recommend" if d == "R" else "not_recommend"
                                                                                  for x, d in zip("ABCD", labels)}}})  # fmt: skip
    kb = {"source_files": ["food-tasks sample"], "conditions": {
        "hypertension": {"recommend": ["fish", "whole grains", "leafy greens"], "not_recommend": ["salt", "processed meat"]},
        "type 2 diabetes": {"recommend": ["legumes", "non-starchy vegetables"], "not_recommend": ["sugary drinks", "white bread"]}}}  # fmt: skip
    rules = {"conditions": [{"value": "hypertension", "label": "Hypertension", "beneficial": ["fish", "vegetables"],
                             "limit": ["cheese"], "avoid": ["salty snacks"], "dietary_tag_hints": ["low sodium"]}],
             "alias_map": {"high blood pressure": "hypertension"}}  # fmt: skip
    guidelines = {"rules": [{"condition_key": "hypertension", "nutrient": "Sodium", "target_type": "Max", "max": 1500,
                             "unit": "mg", "basis": "per day", "population": "Adults", "population_key": "adults"}]}  # fmt: skip
    return {fb_data.TASK1_FILE: task1, fb_data.TASK2_FILE: {"metadata": {"benchmark_name": "food-tasks sample"}, "questions": questions},
            fb_data.KB_FILE: kb, fb_data.RULES_FILE: rules, fb_data.GUIDELINES_FILE: guidelines}  # fmt: skip


def fambench_images() -> dict[str, bytes]:
    images = {FAM_IMG.format(f"t1-{i}"): mirror.png_bytes(row[-1], 48) for i, row in enumerate(FAM_T1, start=1)}
    for n, (qid, *_rest, titles) in enumerate(FAM_T2):
        for k, x in enumerate("ABCD"):
            images[FAM_IMG.format(f"{qid.lower()}-{x}")] = mirror.png_bytes((60 * k, 100 + 50 * n, 180 - 40 * k), 48)
    return images


# DiningBench sample: invented records in the published layout (JSONL + images.tar.gz with generated images);
# the real data (CC BY-NC-ND 4.0) is downloaded, never shipped.
DB_OPTIONS = ["Mapo Tofu", "Kung Pao Chicken", "Twice-cooked Pork", "Fish-fragrant Eggplant", "Dan Dan Noodles",
              "Boiled Fish in Chili Oil", "Spicy Diced Rabbit", "Sichuan Hot Pot"]  # fmt: skip
DB_CLS = [("A", (200, 60, 40)), ("E", (230, 180, 90))]
DB_NUT = [({"卡路里": 450, "蛋白质": 22, "碳水化合物": 30, "脂肪": 25}, (150, 40, 30)),
          ({"卡路里": 620, "蛋白质": 18, "碳水化合物": 85, "脂肪": 20}, (240, 200, 120))]  # fmt: skip


def diningbench_files() -> tuple[dict[str, list[dict]], dict[str, bytes]]:
    lines = "\n".join(f"{x}. {o}" for x, o in zip("ABCDEFGH", DB_OPTIONS))
    cls_prompt = ("You are a food recognition expert. Please select the most appropriate dish name from the following options based on the "
                  f"image content, and output the corresponding option letter.\n\nOptions:\n{lines}\n\nYour answer should only be a single "
                  "uppercase English letter corresponding to the option, without any description, explanation, or content other than the option letter.")  # fmt: skip
    nut_prompt = ("你是一名食物识别专家。请根据图片内容预测图中食物的卡路里、蛋白质、碳水化合物和脂肪含量，并直接按以下JSON格式输出（单位均为每份的克或千卡）：\n\n"
                  '{\n "卡路里": <number>,\n "蛋白质": <number>,\n "碳水化合物": <number>,\n "脂肪": <number>\n}\n\n请确保你的答案是可以被json.loads直接加载的标准JSON，不要输出JSON以外的任何内容。')  # fmt: skip
    files: dict[str, list[dict]] = {"classification_en.jsonl": [], "nutrition.jsonl": []}
    images: dict[str, bytes] = {}
    for name, rows, prompt in (("classification_en.jsonl", DB_CLS, cls_prompt), ("nutrition.jsonl", DB_NUT, nut_prompt)):
        for i, (gold, colour) in enumerate(rows):
            stem = f"images/{name.split('.')[0]}/{i:05d}"
            views = [f"{stem}_0.jpg", f"{stem}_1.jpg", f"{stem}_2.jpg"]
            for k, view in enumerate(views):
                images[view] = mirror.png_bytes(tuple(max(0, c - 30 * k) for c in colour), 48)
            files[name].append({"id": i, "prompt": prompt, "ground_truth": gold, "standard_image": views[0], "user_images": views[1:]})
    return files, images


# Food-500 Cap: synthetic captions in the official file layout (the real captions are downloaded, never
# shipped) and generated JPEGs in the ISIA Food-500 folder layout; one file name in decomposed Unicode (NFD)
# as in the official test file.
FOOD500CAP_TEST = [  # (cat, image number, caption, colour)
    ("Abalone", 81, "Two steamed abalones in their shells on crushed ice on a white plate.", (200, 190, 170)),
    ("Abalone", 83, "Sliced abalone on rice with green onions in a black bowl.", (180, 170, 150)),
    ("Agedashi_tofu", 12, "Golden agedashi tofu cubes in a light broth with scallions in a round bowl.", (230, 190, 90)),
    ("Chicken_and_waffles", 89, "Crispy fried chicken on a waffle with syrup and cream on a white plate.", (190, 120, 50)),
    ("B\u00fan_ri\u00eau", 7, "A bowl of red crab noodle soup with tomatoes and herbs.", (210, 80, 60)),
]  # fmt: skip
FOOD500CAP_TRAIN = [("Abalone", 90, "Grilled abalones with garlic butter on a slate board.", (150, 140, 120))]


def food500cap_files() -> tuple[dict[str, list[dict]], dict[str, bytes]]:
    import unicodedata

    from food_tasks.benchmarks.food500cap import data as fc_data
    from food_tasks.benchmarks.food500cap import layout as fc_layout

    files: dict[str, list[dict]] = {}
    images: dict[str, bytes] = {}
    for name, rows, form in ((fc_data.TEST_FILE, FOOD500CAP_TEST, "NFD"), (fc_data.TRAIN_FILE, FOOD500CAP_TRAIN, "NFC")):
        records = []
        for cat, number, caption, colour in rows:
            cat_form = unicodedata.normalize(form, cat)
            filename = f"{cat_form}/{cat_form}_{number:04d}.jpg"
            records.append({"cat": cat_form, "filename": filename, "caption": caption})
            images[unicodedata.normalize("NFC", filename)] = fc_layout.jpeg_bytes(colour)
        files[name] = records
    return files, images


def build(root: Path = SAMPLE_ROOT) -> None:
    from food_tasks.benchmarks.diningbench import layout as db_layout
    from food_tasks.benchmarks.fambench import data as fb_data

    wc_layout.write_wc_vqa(root, rows())
    wc_layout.write_wc_kb(root, kb())
    mirror.write_github_repo(root, fb_data.REPO, fambench_files())
    mirror.write_url_images(root, fambench_images())
    # FoodieQA: synthetic rows and generated images, unpacked under lyan62/FoodieQA/ (the real data is gated).
    fq_layout.write_unpacked(root, fq_layout.sample_tables(), fq_layout.sample_images())
    db_layout.write_mirror(root, *diningbench_files())
    from food_tasks.benchmarks.food500cap import layout as fc_layout

    fc_files, fc_images = food500cap_files()
    fc_layout.write_captions(root, fc_files)
    fc_layout.write_images(root, fc_images)


if __name__ == "__main__":
    build(Path(sys.argv[1]) if len(sys.argv) > 1 else SAMPLE_ROOT)
