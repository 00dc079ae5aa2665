"""FAM-Bench prompts against complete renderings of the official v1.0 prompt builders, and data loading.

tests/data/fambench_*.{json,txt} are renderings of the official functions
(anonymous-research-artifact123/Food-as-medicine@abfaf02 ``code/task1/run_task1.py::_build_user_prompt`` in
``ki`` mode, ``code/task2/evaluate.py`` ``_build_prompt`` and ``_rag_context_for_question``) on the inputs of
the paper's Figures 9 and 10 with the real knowledge-base content, kept byte for byte.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import fambench_fixture
import pytest

from food_tasks.benchmarks.fambench import data as fb_data
from food_tasks.benchmarks.fambench import prompts as fb_prompts
from food_tasks.data import remote
from food_tasks.data.hub import DataAccessError

DATA = Path(__file__).resolve().parents[1] / "data"

FIGURE9 = {
    "title": "Butternut squash casserole",
    "question": "Is this dish suitable for someone managing diabetes?",
    "ingredients": [
        "2 tbsp olive oil",
        "1 onion, sliced",
        "2 garlic cloves, crushed",
        "1 tsp cumin seeds",
        "1 tbsp paprika",
        "225 g sweet potato, cubed",
        "1 red pepper, deseeded and chopped",
        "1 butternut squash (about 550 g), peeled and chopped",
        "400 g can chopped tomatoes",
        "200 ml red wine",
        "300 ml vegetable stock",
        "75 g bulgur wheat",
        "4 spoonfuls Greek yogurt (to serve)",
        "A little grated vegetarian cheddar cheese (to serve)",
    ],
    "nutrition": {
        "calories": "313 kcal",
        "total_fat": "9 g",
        "saturated_fat": "1 g",
        "sodium": "185 mg",
        "total_carbohydrate": "46 g",
        "dietary_fiber": "5 g",
        "total_sugars": "0 g",
        "protein": "7 g",
    },
    "dietary_tags": ["vegetarian"],
    "meal_type": ["dinner"],
    "notes": None,
    "image_url": "https://example.org/casserole.jpg",
}


def _spec_kb() -> dict:
    expected = json.loads((DATA / "fambench_task1_ki_payload.json").read_text())
    lists = expected["disease_food_reference"]["conditions"]["type 2 diabetes"]
    # The real KB lists are longer than 20: the payload keeps the first 20.
    diabetes = {"recommend": lists["recommend"] + ["extra 1", "extra 2"], "not_recommend": lists["not_recommend"]}
    return {"type 2 diabetes": diabetes, "hypertension": {"recommend": ["x"], "not_recommend": []}}


def test_task1_ki_payload_matches_spec_rendering():
    expected = (DATA / "fambench_task1_ki_payload.json").read_text().rstrip("\n")
    assert fb_prompts.task1_user_payload(FIGURE9, "ki", "textonly", _spec_kb()) == expected
    baseline = json.loads(fb_prompts.task1_user_payload(FIGURE9, "baseline", "textimage", None))
    assert list(baseline) == ["title", "question", "ingredients", "nutrition", "dietary_tags", "meal_type", "notes"]
    image_only = json.loads(fb_prompts.task1_user_payload(FIGURE9, "cot_ki", "imageonly", _spec_kb()))
    assert list(image_only) == ["title", "question", "disease_food_reference"]  # the title is still sent
    sparse = json.loads(fb_prompts.task1_user_payload({"title": "t", "question": "q"}, "baseline", "textonly", None))
    assert sparse == {
        "title": "t",
        "question": "q",
        "ingredients": [],
        "nutrition": {},
        "dietary_tags": [],
        "meal_type": [],
        "notes": None,
    }


def test_task1_system_prompt_composition():
    ki = fb_prompts.task1_system_prompt("ki", "textonly")
    assert ki.startswith(fb_prompts.BASELINE_SYSTEM.rstrip() + "\nAdditional reference rule:\n")  # no blank line
    cot_ki_image = fb_prompts.task1_system_prompt("cot_ki", "textimage")
    assert "consistent with the condition.\nAdditional reference rule:" in cot_ki_image
    assert cot_ki_image.endswith("absent from the recipe text.\n")
    assert "from the reference alone.\nADDITIONAL INPUT — DISH IMAGE:" in cot_ki_image
    assert fb_prompts.task1_system_prompt("baseline", "textonly") == fb_prompts.BASELINE_SYSTEM
    assert fb_prompts.task1_system_prompt("cot", "imageonly").endswith(
        "same JSON contract and the same naming/formatting rules as before.\n"
    )
    assert "Ingredients must come from the provided recipe ingredient list." not in fb_prompts.COT_SYSTEM
    with pytest.raises(ValueError):
        fb_prompts.task1_system_prompt("rag", "textonly")


KB_KEYS = [
    "type 2 diabetes",
    "hypertension",
    "obesity weight management",
    "metabolic syndrome",
    "cardiovascular disease",
    "stroke",
    "bone health osteoporosis",
    "cholesterol",
    "gastrointestinal health",
    "gluten_celiac_disease",
    "gluten_intolerance",
    "milk_allergy",
    "lactose_intolerance",
]


@pytest.mark.parametrize(
    "condition,selected",
    [
        ("hypertension", ["hypertension"]),
        ("type 2 diabetes", ["type 2 diabetes"]),
        ("obesity", ["obesity weight management"]),
        ("metabolic syndrome", ["metabolic syndrome"]),
        ("cardiovascular disease", ["cardiovascular disease"]),
        ("stroke", ["stroke"]),
        ("osteoporosis", ["bone health osteoporosis"]),
        # the six conditions the knowledge base lacks under the usual wording select nothing
        ("IBS", []),
        ("NAFLD", []),
        ("heart failure", []),
        ("GERD", []),
        ("hyperlipidemia", []),
        ("chronic kidney disease", []),
        ("celiac disease", ["gluten_celiac_disease", "gluten_intolerance"]),
        ("dairy allergy", ["lactose_intolerance", "milk_allergy"]),
        ("Type-2 diabetes and heart-health", ["cardiovascular disease", "type 2 diabetes"]),
    ],
)
def test_task1_reference_selection(condition, selected):
    kb = dict.fromkeys(KB_KEYS, {"recommend": [], "not_recommend": []})
    assert (
        fb_prompts.select_reference_conditions(f"Is this dish suitable for someone managing {condition}?", kb)
        == selected
    )


def _figure10() -> dict:
    lines = (DATA / "fambench_task2_rank_figure10.txt").read_text().splitlines()
    options = []
    for line in lines:
        match = re.match(r"- Option ([A-D]) \((.*?)\): (.*)$", line)
        if match:
            options.append(
                {
                    "letter": match[1],
                    "title": match[2],
                    "image_url": f"https://example.org/{match[1]}.jpg",
                    "full_ingredients": match[3].split("; "),
                }
            )
    return {
        "question_id": "x",
        "prompt": {
            "conditions": ["obesity weight management"],
            "condition_labels": ["Obesity weight management"],
            "available_ingredients": ["mushroom", "corn"],
        },
        "options": options,
        "answer": {"letter": "A"},
    }


def test_task2_rank_prompt_matches_spec_rendering():
    expected = (DATA / "fambench_task2_rank_figure10.txt").read_text().rstrip("\n")
    assert fb_prompts.task2_prompt(_figure10(), "rank", "baseline", "textimage", None) == expected
    image_only = fb_prompts.task2_prompt(_figure10(), "rank", "baseline", "imageonly", None)
    assert "Recipe ingredient lists" not in image_only and "labeled A, B, C, and D.\nRank all four" in image_only
    text_only = fb_prompts.task2_prompt(_figure10(), "decision", "cot", "textonly", None)
    assert "You are evaluating recipe text options" in text_only
    assert (
        "- Option A: Warm Millet, Mushroom, and Spinach Salad. Ingredients: 3/4 cup uncooked millet OR; " in text_only
    )
    assert text_only.endswith(
        '"overall_basis".\nEach option must contain a decision, risk_level, and rationale_ingredients.'
    )
    baseline_decision = fb_prompts.task2_prompt(_figure10(), "decision", "baseline", "textimage", None)
    assert '"D": {"same fields": "..."}}}\n\nEach option must contain' in baseline_decision  # empty evidence line


def test_task2_ki_context_matches_spec_rendering():
    rules = {
        "conditions": [
            {
                "value": "obesity weight management",
                "label": "Obesity/Weight Management",
                "beneficial_raw": [
                    "non-starchy vegetables",
                    "berries",
                    "whole grains in moderation",
                    "plant-based foods",
                ],
                "beneficial": ["ignored when beneficial_raw is set"],
                "limit": ["desserts", "sauces", "prepackaged snack foods"],
                "avoid_raw": ["chips", "candy", "regular soda", "sports drinks", "juice"],
                "dietary_tag_hints": ["low calorie", "high protein", "high fiber"],
            }
        ],
        "alias_map": {"Obesity": "obesity weight management"},
    }
    dv = [
        ("Total fat", 78, "g"),
        ("Saturated fat", 20, "g"),
        ("Cholesterol", 300, "mg"),
        ("Sodium", 2300, "mg"),
        ("Total carbohydrate", 275, "g"),
        ("Dietary fiber", 28, "g"),
        ("Added sugars", 50, "g"),
    ]  # 7th is clipped
    rows = [
        {
            "condition_key": "obesity weight management",
            "nutrient": n,
            "target_type": "DV",
            "max": v,
            "unit": u,
            "basis": "per day",
            "population": "Adults and children",
        }
        for n, v, u in dv
    ]
    ages = [
        ("Adults and adolescents 14+", 2300.0),
        ("Ages 9-13", 1800),
        ("Ages 4-8", 1500),
        ("Ages 1-3", 1200),
        ("Infants", 1000),
    ]
    rows += [
        {
            "condition_key": "general",
            "nutrient": "Sodium",
            "target_type": "Max",
            "max": v,
            "unit": "mg",
            "basis": "per day",
            "population": p,
            "population_key": re.sub(r"[ -]", "_", p.lower()),
        }
        for p, v in ages
    ]
    index = fb_prompts.task2_rule_index(rules, {"rules": rows})
    expected = (DATA / "fambench_task2_ki_obesity.txt").read_text().rstrip("\n")
    assert fb_prompts.task2_ki_context({"conditions": ["obesity", "unknown condition"]}, index) == expected
    only_kids = fb_prompts.task2_ki_context({"conditions": [], "age_group": "4-8"}, index)
    assert only_kids.endswith("- General age-context targets: Sodium Max 1500 mg per day (Ages 4-8).")
    prompt = fb_prompts.task2_prompt(_figure10(), "rank", "ki", "textimage", index)
    assert "absent just because it is not visually obvious.\n- Option A" in prompt
    assert "\n\n\nDisease-nutrition rule context" in prompt and "(Ages 1-3).\nRank all four" in prompt


# --------------------------------------------------------------------------- data loading


@pytest.fixture()
def fam_env(tmp_path, monkeypatch):  # type: ignore[no-untyped-def]
    monkeypatch.setenv("FOOD_TASKS_DATA_DIR", str(tmp_path / "mirror"))
    monkeypatch.setenv("FOOD_TASKS_CACHE_DIR", str(tmp_path / "cache"))
    remote.default_image_store.cache_clear()
    yield tmp_path / "mirror"
    remote.default_image_store.cache_clear()


def test_documents_from_mirror(fam_env):
    fambench_fixture.build(fam_env)
    docs = fb_data.task1_docs("cot", "textimage")
    assert [d["index"] for d in docs] == [1, 2, 3, 4, 5, 6]
    assert docs[4]["focal"] == ["hypertension", "type 2 diabetes"] and docs[3]["focal"] == ["ibs"]
    assert docs[2]["gold_decision"] == "not recommend" and docs[2]["gold_decision_official"] == "not recommend"
    assert fb_data.images_missing(docs[5]) and not fb_data.images_missing(docs[0])
    ctc = fb_data.task2_docs(("rank", "decision"), ("baseline", "ki"), "textonly")
    assert [(d["question_id"], d["mode"], d["kind"]) for d in ctc[:4]] == [
        ("CRMCQ_0001", "baseline", "rank"),
        ("CRMCQ_0001", "baseline", "decision"),
        ("CRMCQ_0001", "ki", "rank"),
        ("CRMCQ_0001", "ki", "decision"),
    ]
    assert ctc[0]["image_urls"] == [] and "Disease-nutrition rule context" in ctc[2]["prompt"]


@pytest.mark.parametrize(
    "mutate,message",
    [
        (lambda t1: t1[1].pop("question"), "record 2 ('Creamy leek soup'): missing field 'question'"),
        (
            lambda t1: t1[0].pop("standard answer"),
            "record 1 ('Butternut squash casserole'): missing field 'standard answer'",
        ),
        (
            lambda t1: t1[2]["standard answer"].update(decision="maybe"),
            "record 3 ('Salty ramen'): 'standard answer'.decision 'maybe'",
        ),
    ],
)
def test_task1_validation_names_file_record_field(fam_env, mutate, message):
    rows = json.loads(json.dumps(fambench_fixture.TASK1))
    mutate(rows)
    fambench_fixture.build(fam_env, task1=rows)
    with pytest.raises(DataAccessError) as err:
        fb_data.load_task1()
    assert "task1_dish_suitability.json" in str(err.value) and message in str(err.value)


def test_tolerated_alternatives(fam_env):
    rows = json.loads(json.dumps(fambench_fixture.TASK1))
    rows[0]["standard_answer"] = rows[0].pop("standard answer")
    rows.insert(1, "not a record")  # non-dict entries are dropped, as officially
    task2 = json.loads(json.dumps(fambench_fixture.TASK2))["questions"]  # a bare array
    task2[0]["options"][1] = {**task2[0]["options"][1], "key_ingredients": ["kale"], "full_ingredients": []}
    fambench_fixture.build(fam_env, task1=rows, task2=task2)
    assert len(fb_data.load_task1()) == 6
    assert "- Option B (Millet dish B): kale" in fb_data.task2_docs(("rank",), ("baseline",), "textimage")[0]["prompt"]


def test_task2_validation_and_missing_files(fam_env):
    task2 = json.loads(json.dumps(fambench_fixture.TASK2))
    task2["questions"][2]["options"][0].pop("image_url")
    fambench_fixture.build(fam_env, task2=task2, skip=(fb_data.KB_FILE,))
    with pytest.raises(DataAccessError, match=r"question 3 \(CRMCQ_0003\) option A: missing field 'image_url'"):
        fb_data.load_task2()
    with pytest.raises(DataAccessError, match="disease_food_kb.json"):
        fb_data.task1_docs("ki", "textonly")
    (fam_env / "github" / fb_data.REPO / fb_data.TASK1_FILE).write_text("[{broken")
    with pytest.raises(DataAccessError, match="is not valid JSON"):
        fb_data.load_task1()
    (fam_env / "github" / fb_data.REPO / fb_data.TASK1_FILE).write_text(
        "version https://git-lfs.github.com/spec/v1\noid sha256:0\n"
    )
    with pytest.raises(DataAccessError, match="is a Git LFS pointer"):
        fb_data.load_task1()
