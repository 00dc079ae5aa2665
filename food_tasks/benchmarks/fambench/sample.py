"""The packaged FAM-Bench sample: four Task 1 rows and two Task 2 questions in the official repository layout
(``github/<owner>/<repo>/``), synthetic content, with generated images under ``urls/`` (the real files are
CC BY 4.0 and are downloaded, never shipped). Deterministic.
"""

from __future__ import annotations

from pathlib import Path

from food_tasks.benchmarks.fambench import data as fb_data
from food_tasks.data import mirror

FAM_IMG = "https://example.org/food-tasks-sample/fambench/{}.png"
FAM_T1 = [  # (title, condition asked, decision, rationale condition, rationale ingredients, recipe lines, colour)
    (
        "Grilled salmon with quinoa",
        "hypertension",
        "recommend",
        "hypertension",
        ["salmon", "quinoa"],
        ["2 salmon fillets", "1 cup quinoa", "1 lemon", "1 tbsp olive oil"],
        (230, 140, 110),
    ),
    (
        "Bacon cheeseburger",
        "heart failure",
        "not recommend",
        "heart failure",
        ["bacon", "cheddar cheese"],
        ["4 slices bacon", "1 beef patty", "2 slices cheddar cheese", "1 burger bun"],
        (150, 90, 40),
    ),
    (
        "Lentil soup",
        "diabetes",
        "recommend",
        "type 2 diabetes",
        ["lentil", "spinach"],
        ["1 cup red lentils", "1 onion, chopped", "2 cups spinach", "4 cups vegetable stock"],
        (200, 120, 40),
    ),
    (
        "Spicy tomato pasta",
        "GERD",
        "not recommend",
        "gerd",
        ["tomato", "chili flakes"],
        ["200 g spaghetti", "400 g can chopped tomatoes", "1 tsp chili flakes", "2 garlic cloves"],
        (210, 50, 40),
    ),
]
FAM_T2 = [  # (question id, condition label, gold letter, gold ranking, decision labels, option titles)
    (
        "SAMPLE_0001",
        "Hypertension",
        "B",
        "BDAC",
        "NRNN",
        ["Salted pork ramen", "Steamed cod with greens", "Pepperoni pizza", "Lentil salad"],
    ),
    (
        "SAMPLE_0002",
        "Type 2 diabetes",
        "A",
        "ADCB",
        "RNNN",
        ["Chickpea stew", "Glazed doughnuts", "White rice bowl", "Fruit smoothie"],
    ),
]


def repository_files() -> dict[str, object]:
    """The sample's files, in the official repository layout."""
    task1 = [
        {
            "title": t,
            "question": f"Is this dish suitable for someone managing {asked}?",
            "ingredients": lines,
            "nutrition": {"calories": "420 kcal", "sodium": "480 mg"},
            "dietary_tags": [],
            "meal_type": ["dinner"],
            "notes": None,
            "image_url": FAM_IMG.format(f"t1-{i}"),
            "standard answer": {
                "decision": decision,
                "rationale_ingredients": [{"condition": cond, "ingredients": ings}],
            },
        }
        for i, (t, asked, decision, cond, ings, lines, _) in enumerate(FAM_T1, start=1)
    ]
    questions = []
    for qid, label, gold, ranking, labels, titles in FAM_T2:
        options = [
            {
                "letter": x,
                "title": title,
                "image_url": FAM_IMG.format(f"{qid.lower()}-{x}"),
                "full_ingredients": [f"1 serving {title.lower()}"],
            }
            for x, title in zip("ABCD", titles)
        ]
        questions.append(
            {
                "question_id": qid,
                "prompt": {"conditions": [label.lower()], "condition_labels": [label], "available_ingredients": []},
                "options": options,
                "answer": {"letter": gold},
                "gold": {
                    "ranking": list(ranking),
                    "decision_labels": {
                        x: "recommend" if d == "R" else "not_recommend" for x, d in zip("ABCD", labels)
                    },
                },
            }
        )
    kb = {
        "source_files": ["food-tasks sample"],
        "conditions": {
            "hypertension": {
                "recommend": ["fish", "whole grains", "leafy greens"],
                "not_recommend": ["salt", "processed meat"],
            },
            "type 2 diabetes": {
                "recommend": ["legumes", "non-starchy vegetables"],
                "not_recommend": ["sugary drinks", "white bread"],
            },
        },
    }
    rules = {
        "conditions": [
            {
                "value": "hypertension",
                "label": "Hypertension",
                "beneficial": ["fish", "vegetables"],
                "limit": ["cheese"],
                "avoid": ["salty snacks"],
                "dietary_tag_hints": ["low sodium"],
            }
        ],
        "alias_map": {"high blood pressure": "hypertension"},
    }
    return {
        fb_data.TASK1_FILE: task1,
        fb_data.TASK2_FILE: {"metadata": {"benchmark_name": "food-tasks sample"}, "questions": questions},
        fb_data.KB_FILE: kb,
        fb_data.RULES_FILE: rules,
        fb_data.GUIDELINES_FILE: GUIDELINES,
    }


# The guidelines file (one rule), shared with bench/bench_fambench.py's synthetic mirror.
GUIDELINES = {
    "rules": [
        {
            "condition_key": "hypertension",
            "nutrient": "Sodium",
            "target_type": "Max",
            "max": 1500,
            "unit": "mg",
            "basis": "per day",
            "population": "Adults",
            "population_key": "adults",
        }
    ]
}


def url_images() -> dict[str, bytes]:
    """The sample images (PNG bytes) by URL: one per Task 1 row, four per Task 2 question."""
    images = {FAM_IMG.format(f"t1-{i}"): mirror.png_bytes(row[-1], 48) for i, row in enumerate(FAM_T1, start=1)}
    for n, (qid, *_rest) in enumerate(FAM_T2):
        for k, x in enumerate("ABCD"):
            images[FAM_IMG.format(f"{qid.lower()}-{x}")] = mirror.png_bytes((60 * k, 100 + 50 * n, 180 - 40 * k), 48)
    return images


def write(root: Path) -> None:
    """Writes the sample under ``root``: the repository files and the images served from their URLs."""
    mirror.write_github_repo(root, fb_data.REPO, repository_files())
    mirror.write_url_images(root, url_images())
