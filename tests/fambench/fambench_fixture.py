"""A small FAM-Bench mirror in the official repository layout (v1.0 tree: ``dataset/``, ``knowledge_base/``,
``code/task2/ki_data/``), built by code.

Everything here is invented test content in the schema the official v1.0 code reads; the expected metric values in
test_fambench*.py are hand-computed from these records and the scripted outputs.
"""

from __future__ import annotations

from pathlib import Path

from food_tasks.benchmarks.fambench import data as fb_data
from food_tasks.data import mirror

IMG = "https://images.example.org/recipes/{}.jpg"
MISSING_IMG = "https://dead.example.org/gone/{}.jpg"


def t1_row(title, question, decision, rationale, image=None, **extra):  # type: ignore[no-untyped-def]
    row = {
        "title": title,
        "question": question,
        "ingredients": extra.pop("ingredients", ["1 cup rice", "2 tbsp soy sauce"]),
        "nutrition": extra.pop("nutrition", {"calories": "313 kcal", "sodium": "185 mg"}),
        "dietary_tags": extra.pop("dietary_tags", ["vegetarian"]),
        "meal_type": ["dinner"],
        "notes": None,
        "image_url": image or IMG.format(title.lower().replace(" ", "-")),
        "standard answer": {"decision": decision, "rationale_ingredients": rationale},
    }
    row.update(extra)
    return row


TASK1 = [
    t1_row(
        "Butternut squash casserole",
        "Is this dish suitable for someone managing diabetes?",
        "recommend",
        [{"condition": "type 2 diabetes", "ingredients": ["bulgur wheat", "sweet potato"]}],
    ),
    t1_row(
        "Creamy leek soup",
        "Is this dish suitable for someone managing chronic kidney disease?",
        "not recommend",
        [{"condition": "chronic kidney disease", "ingredients": ["bean", "cheese"]}],
    ),
    t1_row(
        "Salty ramen",
        "Is this dish suitable for someone managing hypertension?",
        "Not Recommend",
        [{"condition": "hypertension", "ingredients": ["soy sauce", "instant noodles"]}],
    ),
    t1_row("Fruit salad", "Is this dish suitable for someone managing IBS?", "recommend", []),
    t1_row(
        "Fried rice",
        "Is this dish suitable for someone managing type 2 diabetes and hypertension?",
        "not recommend",
        [
            {"condition": "type 2 diabetes", "ingredients": ["white rice"]},
            {"condition": "hypertension", "ingredients": ["soy sauce"]},
        ],
    ),
    t1_row(
        "Green salad",
        "Is this dish suitable for someone managing obesity?",
        "recommend",
        [{"condition": "obesity", "ingredients": ["lettuce"]}],
        image=MISSING_IMG.format("salad"),
    ),
]


def option(letter, title, ingredients, image=None):  # type: ignore[no-untyped-def]
    return {
        "letter": letter,
        "title": title,
        "image_url": image or IMG.format(f"opt-{title.lower().replace(' ', '-')}"),
        "full_ingredients": ingredients,
    }


def question(qid, conditions, labels, gold, ranking, decision_labels, options, **prompt):  # type: ignore[no-untyped-def]
    return {
        "question_id": qid.lower(),  # the official code upper-cases ids
        "prompt": {
            "conditions": conditions,
            "condition_labels": labels,
            "available_ingredients": ["mushroom", "corn"],
            **prompt,
        },
        "options": options,
        "answer": {"letter": gold},
        "gold": {"ranking": ranking, "decision_labels": decision_labels},
    }


def _opts(prefix, missing=None):  # type: ignore[no-untyped-def]
    return [
        option(
            x,
            f"{prefix} dish {x}",
            [f"1 cup {prefix.lower()} {x.lower()}", "salt"],
            image=MISSING_IMG.format(prefix) if x == missing else None,
        )
        for x in "ABCD"
    ]


REC, NOT = "recommend", "not_recommend"
TASK2 = {
    "metadata": {"benchmark_name": "FAM-Bench Task 2 (test fixture)", "question_count": 5},
    "questions": [
        question(
            "CRMCQ_0001",
            ["obesity weight management"],
            ["Obesity weight management"],
            "A",
            list("ABCD"),
            {"A": REC, "B": REC, "C": NOT, "D": NOT},
            _opts("Millet"),
        ),
        question(
            "CRMCQ_0002",
            ["hypertension"],
            ["Hypertension"],
            "C",
            list("CADB"),
            {"A": REC, "B": NOT, "C": REC, "D": NOT},
            _opts("Bean"),
        ),
        question(
            "CRMCQ_0003",
            ["type 2 diabetes", "hypertension"],
            ["Type 2 diabetes", "Hypertension"],
            "B",
            list("BDAC"),
            {"A": NOT, "B": REC, "C": NOT, "D": NOT},
            _opts("Shrimp"),
        ),
        question(
            "CRMCQ_0004",
            ["gerd"],
            ["GERD"],
            "D",
            list("DCBA"),
            {"A": NOT, "B": NOT, "C": NOT, "D": REC},
            _opts("Fajita", missing="D"),
        ),
        question(
            "CRMCQ_0005",
            ["obesity weight management"],
            ["Obesity weight management"],
            "A",
            list("ABCD"),
            {"A": REC, "B": NOT, "C": NOT, "D": NOT},
            _opts("Corn"),
        ),
    ],
}

KB = {
    "source_files": ["mayo.json", "rules.json"],
    "generated_date": "2026-05-04",
    "merge_policy": "mayo first",
    "condition_count": 4,
    "conditions": {
        "type 2 diabetes": {
            "recommend": [f"food {i}" for i in range(25)],
            "not_recommend": ["white bread", "soda"],
            "sources": ["mayo"],
        },
        "hypertension": {"recommend": ["potassium-rich fruits"], "not_recommend": ["salt", "  ", "processed meat"]},
        "gluten_celiac_disease": {"recommend": ["rice"], "not_recommend": ["wheat"]},
        "bone health osteoporosis": {"recommend": ["milk"], "not_recommend": []},
    },
}

RULES = {
    "conditions": [
        {
            "value": "obesity weight management",
            "label": "Obesity/Weight Management",
            "beneficial_raw": [f"veg {i}" for i in range(10)],
            "limit_raw": ["desserts", "sauces"],
            "avoid": ["chips", "candy"],
            "dietary_tag_hints": [],
            "guideline_aliases": ["general adult"],
        },
        {
            "value": "hypertension",
            "label": "Hypertension",
            "beneficial": ["fruit"],
            "limit": [],
            "avoid_raw": ["salt"],
            "dietary_tag_hints": ["low sodium"],
        },
    ],
    "alias_map": {"obesity": "obesity weight management", "High Blood Pressure": "hypertension"},
}
GUIDELINES = {
    "rules": [
        {
            "condition_key": "obesity weight management",
            "nutrient": "Total fat",
            "target_type": "DV",
            "max": 78,
            "unit": "g",
            "basis": "per day",
            "population": "Adults and children",
            "population_key": "adults_children",
        },
        {
            "condition_key": "general adult",
            "nutrient": "Dietary fiber",
            "target_type": "Min",
            "min": 28.0,
            "unit": "g",
            "basis": "per day",
            "population": "",
            "population_key": "adults",
        },
        {
            "condition_key": "hypertension",
            "nutrient": "Sodium",
            "target_type": "Max",
            "max": 1500.5,
            "unit": "mg",
            "basis": "per day",
            "population": "Adults",
            "population_key": "adults",
        },
        {
            "condition_key": "general",
            "nutrient": "Sodium",
            "target_type": "Max",
            "max": 2300,
            "unit": "mg",
            "basis": "per day",
            "population": "Adults and adolescents 14+",
            "population_key": "adults_adolescents_14_plus",
        },
        {
            "condition_key": "general",
            "nutrient": "Sodium",
            "target_type": "Max",
            "max": 1500,
            "unit": "mg",
            "basis": "per day",
            "population": "Ages 4-8",
            "population_key": "ages_4_8",
        },
    ]
}


def all_image_urls() -> list[str]:
    urls = [r["image_url"] for r in TASK1]
    urls += [o["image_url"] for q in TASK2["questions"] for o in q["options"]]
    return urls


def build(root: Path, *, task1=None, task2=None, kb=None, skip=()) -> Path:  # type: ignore[no-untyped-def]
    """Write the mirror under ``root`` ($FOOD_TASKS_DATA_DIR layout); images except the dead host."""
    files = {
        fb_data.TASK1_FILE: TASK1 if task1 is None else task1,
        fb_data.TASK2_FILE: TASK2 if task2 is None else task2,
        fb_data.KB_FILE: KB if kb is None else kb,
        fb_data.RULES_FILE: RULES,
        fb_data.GUIDELINES_FILE: GUIDELINES,
    }
    mirror.write_github_repo(root, fb_data.REPO, {k: v for k, v in files.items() if k not in skip})
    mirror.write_url_images(
        root,
        {
            url: mirror.png_bytes((40 * (n % 6), 120, 200 - 20 * (n % 8)), 28)
            for n, url in enumerate(all_image_urls())
            if "dead.example.org" not in url
        },
    )
    return root


def hook_environment(root: Path) -> dict[str, str]:
    """A mirror under ``root`` that every FAM-Bench task's ``process_docs`` reads (``FOOD_TASKS_DATA_DIR=root``),
    and the other environment variables it needs (none): tests/core/test_adversarial_outputs.py calls it."""
    build(root)
    return {}
