"""The packaged WorldCuisines sample: a handful of rows per subtask in three languages, rendered with the
official prompt templates, and generated images (solid colours) in a food-kb-shaped parquet file. Dish names
and countries are facts; questions are our own translations of the official English templates. Deterministic.
"""

from __future__ import annotations

from pathlib import Path

from food_tasks.benchmarks.worldcuisines import layout as wc_layout
from food_tasks.data import mirror

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
    "1": (
        "9",
        {
            "en": "What is this culinary dish called?",
            "id_formal": "Apa nama hidangan kuliner ini?",
            "ja_formal": "この料理は何と呼ばれていますか？",
        },
    ),
    "3": (
        "46",
        {
            "en": "How do people in {c} identify this dish?",
            "id_formal": "Bagaimana orang di {c} menyebut hidangan ini?",
            "ja_formal": "{c}の人々はこの料理を何と呼びますか？",
        },
    ),
    "4": (
        "79",
        {
            "en": "My friend went to {c} and sent me this photo. What is the name of this food?",
            "id_formal": "Teman saya pergi ke {c} dan mengirimi saya foto ini. Apa nama makanan ini?",
            "ja_formal": "友人が{c}に行って、この写真を私に送ってくれました。この食べ物の名前は何ですか?",
        },
    ),
    "2": (
        "23",
        {
            "en": "Which country is this dish associated with?",
            "id_formal": "Hidangan ini berasal dari negara mana?",
            "ja_formal": "この料理はどの国と関係がありますか？",
        },
    ),
}
# food_id, dish, country, options (dish names), gold option id, context country for 1b/1c, colour
DISHES = [
    (
        "422",
        "Serabi",
        "Indonesia",
        ["Serabi", "Terang Bulan", "Syrniki", "Murtabak", "Sapin-sapin"],
        1,
        "Netherlands",
        (200, 150, 60),
    ),
    (
        "1614",
        "Kenchin-jiru",
        "Japan",
        ["Sayur asem", "Draw soup", "Egg drop soup", "Agedashi dōfu", "Kenchin-jiru"],
        5,
        "Japan",
        (120, 80, 40),
    ),
    (
        "949",
        "Melktert",
        "South Africa",
        ["Pastel de nata", "Melktert", "Custard tart", "Bougatsa"],
        2,
        "Canada",
        (240, 220, 150),
    ),
]
COUNTRY_OPTIONS = [
    ["Thailand", "South Africa", "Canada", "Brazil", "Indonesia"],
    ["Japan", "Italy", "Brazil", "Thailand", "Canada"],
    ["Italy", "Canada", "South Africa", "Netherlands", "Brazil"],
]
LANGS = ("en", "id_formal", "ja_formal")
QA_BASE = {"1": 400, "3": 410, "4": 420, "2": 1900}


def _country(name: str, lang: str) -> str:
    return name if lang == "en" else COUNTRIES[name][lang]


def _url(food_id: str) -> str:
    return f"https://example.org/food-tasks-sample/{food_id}.png?download"


def rows() -> list[dict]:
    """The sample's ``hf_prompt`` records: every dish, subtask and sample language."""
    items, contexts = [], {}
    for prompt_type, (prompt_id, _) in QUESTIONS.items():
        for k, (food_id, _, country, options, gold, context, _) in enumerate(DISHES):
            contexts[food_id] = context
            if prompt_type == "2":
                options, gold, task = COUNTRY_OPTIONS[k], COUNTRY_OPTIONS[k].index(country) + 1, "large_task2"
            else:
                task = "large_task1"
            qa_id = str(QA_BASE[prompt_type] + k)
            items.append(
                wc_layout.WcItem(qa_id, food_id, prompt_id, prompt_type, "", options, gold, _url(food_id), task)
            )

    def localize(item: wc_layout.WcItem, lang: str) -> tuple[str, list[str]]:
        question = QUESTIONS[item.prompt_type][1][lang].format(c=_country(contexts[item.food_id], lang))
        options = [_country(o, lang) for o in item.options] if item.prompt_type == "2" else list(item.options)
        return question, options

    return wc_layout.item_rows(items, LANGS, localize)


def kb() -> list[dict]:
    """The sample's food-kb rows: each dish with one image (URL and PNG bytes)."""
    return [
        {
            "food_id": food_id,
            "name": name,
            "images": [(_url(food_id), mirror.png_bytes(colour, 48))],
        }
        for food_id, name, _, _, _, _, colour in DISHES
    ]


def write(root: Path) -> None:
    """Writes the sample under ``root`` in the official layout (``worldcuisines/vqa``, ``worldcuisines/food-kb``)."""
    wc_layout.write_wc_vqa(root, rows())
    wc_layout.write_wc_kb(root, kb())
