#!/usr/bin/env python
"""Parity check of our FAM-Bench prompts, parsers and scorers against the official v1.0 code.

Opt-in: run by tests/parity/test_parity_fambench.py when ``FOOD_TASKS_PARITY_FAMBENCH`` names a local
copy, or as a script (usage below). It needs a local copy of the official repository
(anonymous-research-artifact123/Food-as-medicine, commit abfaf02, "v1.0"). It *imports* the
official modules from that copy and calls them; none of their code is reproduced here, and it
needs none of the official ``dataset/*.json`` files: every instance, model output and gold answer
is synthetic (generated from ``--seed``), only the knowledge files are real:

* ``knowledge_base/disease_food_kb.json`` (Task 1 knowledge injection; ``--kb`` when the copy lacks it),
* ``code/task2/ki_data/{condition_rules,nutrition_guidelines}.json`` (Task 2 knowledge injection).

Checks (each compares our function with the official one on the same input, exactly unless noted):

1. Prompts. Task 1 system prompts (``run_task1.system_prompt_for``) and user payloads
   (``run_task1._build_user_prompt``, reference from ``run_q2_with_references._load_reference``),
   every mode x input, for synthetic rows (non-ASCII text, None/missing fields, questions naming the
   13 conditions, KB names, aliases and composite aliases), with the real KB and with an edge-case KB;
   also the prompts stored in the documents built by ``fb_data.task1_docs``. Task 2 prompts
   (``evaluate._build_prompt``) for synthetic questions x rank/decision_rationale/answer x modes x
   inputs, with the real rule artifacts and with edge-case ones, and the documents of ``task2_docs``.
2. Parsers. Handwritten tricky outputs plus ``--n`` random generated/mutated ones per parser:
   ``parse_task1_official`` vs ``run_task1._parse_output``. Task 2 follows the official pipeline step by
   step: each output goes through ``evaluate._call_model`` of every official provider path (``openai``
   Responses SDK, ``gemini``, ``anthropic``, ``vllm`` HTTP; the network replaced by a replay of the output
   in that provider's response format), so the provider's text extraction (which collapses whitespace)
   and the call's ``except Exception`` (a parse error other than ``JSONDecodeError`` fails the request)
   are the official ones; the returned ranking, option decisions, answer letter and request error are
   compared with ``official_task2``. The generator includes the shapes that differ between the raw and
   the provider-processed output: literal tabs/newlines/control characters inside JSON strings (also as
   chain-of-thought fields), integers past Python's 4,300-digit limit (``json.loads`` raises a plain
   ``ValueError``) before, inside and after the answer object.
3. Scoring. ``norm_rationale`` / ``decision_official`` / ``rationale_counts`` / ``kendall_tau`` vs
   ``run_q2._normalize_rationale_entries`` / ``_normalize_decision`` / ``_score_rationale`` /
   ``evaluate._kendall_tau`` (official rounds tau to 6 places; compared after the same rounding);
   the official two-decimal percentage rounding; and the aggregates: Task 1 summary numbers as
   ``run_task1.main`` sums them (official per-row functions) vs ``t1_acc/t1_macro/t1_micro/t1_rate``
   (``official=True``; floating-point values within 1e-12 relative), Task 2 summaries from
   ``evaluate._call_model`` (each provider, replayed) + ``_build_result_row`` + ``_summarize_rows`` vs
   ``t2_topk/t2_mrr_official/t2_answer_rate_official/t2_option_acc/t2_exact_match/t2_false_recommend``,
   plus the ``valid_rankings`` and ``request_error`` counts (a bare letter makes a row "parsed": in the
   MRR denominator with 1/rank = 0 and in ``answer_rate_pct``).
4. Robust parsers on the same widened outputs (documented behaviour, not an official comparison): a
   ranking is a permutation or None, option decisions recommend / not_recommend / None, nothing raises,
   and JSON with literal whitespace or control characters in its strings reads as the escaped JSON.

Usage::

    python tests/parity/parity_fambench.py --official /path/to/Food-as-medicine [--seed 0] [--n 400]

Exit status 0 when everything matches, 1 on any mismatch (the first differing example of every
failing check is printed; ``--examples N`` prints more), 2 when the official code cannot be loaded or
checks were skipped (no knowledge base: the real-KB Task 1 checks are skipped).
"""

from __future__ import annotations

import argparse
import difflib
import importlib
import importlib.util
import itertools
import json
import math
import os
import random
import sys
import tempfile
import types
from collections.abc import Callable
from pathlib import Path
from typing import Any

os.environ.setdefault("FOOD_TASKS_OFFLINE", "1")  # nothing here may touch the network

ROOT = Path(__file__).resolve().parents[2]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from food_tasks.benchmarks.fambench import data as fb_data
from food_tasks.benchmarks.fambench import parsing as fb_parsing
from food_tasks.benchmarks.fambench import prompts as fb_prompts
from food_tasks.benchmarks.fambench import scoring as fb_scoring
from food_tasks.stats import metrics

MODES = ("baseline", "cot", "ki", "cot_ki")
T1_INPUTS = {"textimage": "text_image", "textonly": "text", "imageonly": "image_only"}
# our input -> official evaluate._build_prompt keyword arguments
T2_INPUTS = {
    "textimage": {"include_recipe_ingredients": True, "text_only": False},
    "imageonly": {"include_recipe_ingredients": False, "text_only": False},
    "textonly": {"include_recipe_ingredients": False, "text_only": True},
}
T2_KINDS = {"rank": "rank", "decision": "decision_rationale", "answer": "answer"}
LETTERS = "ABCD"


# =========================================================================== official modules


def _stub_missing(names: list[str]) -> list[str]:
    """Put empty stand-ins for missing third-party modules into ``sys.modules`` (never imported for real use)."""
    stubbed = []
    for name in names:
        try:
            importlib.import_module(name)
        except Exception:  # noqa: BLE001, S110 - whatever fails to import is stubbed
            pass
        else:
            continue
        parts = name.split(".")
        for i in range(1, len(parts) + 1):
            sub = ".".join(parts[:i])
            if sub not in sys.modules or i == len(parts):
                module = types.ModuleType(sub)
                module.__path__ = []  # type: ignore[attr-defined]
                sys.modules[sub] = module
                if i > 1:
                    setattr(sys.modules[".".join(parts[: i - 1])], parts[i - 1], module)
        leaf = sys.modules[name]
        for attr in ("OpenAI", "Anthropic", "load_dotenv", "GenerativeModel", "configure"):
            setattr(leaf, attr, None)
        stubbed.append(name)
    return stubbed


def load_official(root: Path) -> tuple[types.SimpleNamespace, list[str]]:
    task1, task2 = root / "code" / "task1", root / "code" / "task2"
    for path in (task1 / "run_task1.py", task2 / "evaluate.py"):
        if not path.is_file():
            raise FileNotFoundError(f"{path} not found: --official must be a copy of the official repository")
    sys.dont_write_bytecode = True  # leave the official copy untouched (no __pycache__)
    stubbed = _stub_missing(["openai", "anthropic", "google.generativeai", "dotenv", "requests", "PIL", "PIL.Image"])
    if str(task1) not in sys.path:  # the Task 1 modules import each other by name
        sys.path.insert(0, str(task1))
    run_q2 = importlib.import_module("run_q2")
    run_q2_ki = importlib.import_module("run_q2_with_references")
    llm_providers = importlib.import_module("llm_providers")
    run_task1 = importlib.import_module("run_task1")
    # evaluate.py (stdlib imports only) is loaded from its path under a private name, and code/task2 is kept
    # off sys.path: an unrelated "evaluate" package may be installed.
    spec = importlib.util.spec_from_file_location("fambench_official_evaluate", task2 / "evaluate.py")
    evaluate = importlib.util.module_from_spec(spec)  # type: ignore[arg-type]
    sys.modules[spec.name] = evaluate  # type: ignore[union-attr]
    spec.loader.exec_module(evaluate)  # type: ignore[union-attr]
    ns = types.SimpleNamespace(
        run_q2=run_q2, run_q2_ki=run_q2_ki, run_task1=run_task1, llm_providers=llm_providers, evaluate=evaluate
    )
    return ns, stubbed


# =========================================================================== comparison bookkeeping


def _short(value: Any, limit: int = 700) -> str:
    text = repr(value)
    if len(text) <= limit:
        return text
    return f"{text[: limit * 3 // 4]} ...[{len(text)} chars in all]... {text[-limit // 4 :]}"


def _call(fn: Callable, *args: Any, **kwargs: Any) -> Any:
    """``fn(...)``, or a marker naming the exception (both sides raising the same type count as equal)."""
    try:
        return fn(*args, **kwargs)
    except Exception as exc:  # noqa: BLE001 - the exception type is the compared outcome
        return ("<raised>", type(exc).__name__)


class Report:
    def __init__(self, examples: int = 1) -> None:
        self.examples = examples
        self.rows: dict[str, list] = {}  # check -> [compared, mismatches, first examples, note]
        self.skipped: dict[str, str] = {}

    def check(
        self, name: str, official: Any, ours: Any, given: Any, *, equal: Callable | None = None, note: str = ""
    ) -> bool:
        row = self.rows.setdefault(name, [0, 0, [], note])
        row[0] += 1
        if equal is not None:
            same = equal(official, ours)
        else:  # equal values of the same type (an int may stand for a float)
            same_type = type(official) is type(ours) or {type(official), type(ours)} <= {int, float}
            same = same_type and official == ours
        if not same:
            row[1] += 1
            if len(row[2]) < self.examples:
                row[2].append((given, official, ours))
        return same

    def skip(self, name: str, why: str) -> None:
        self.skipped[name] = why

    def print_table(self) -> None:
        width = max(len(n) for n in self.rows) + 2
        print(f"\n{'check':<{width}}{'compared':>10}{'mismatch':>10}  note")
        print("-" * (width + 30))
        for name, (count, bad, _, note) in self.rows.items():
            print(f"{name:<{width}}{count:>10}{bad:>10}  {note}")
        for name, why in self.skipped.items():
            print(f"{name:<{width}}{'SKIPPED':>10}{'':>10}  {why}")

    def print_failures(self) -> None:
        for name, (count, bad, examples, _) in self.rows.items():
            for number, (given, official, ours) in enumerate(examples, start=1):
                print(f"\n=== MISMATCH in {name}: {bad}/{count}; example {number} of {len(examples)}")
                print(f"input:    {_short(given, 500)}")
                if isinstance(official, str) and isinstance(ours, str):
                    diff = list(
                        difflib.unified_diff(
                            official.splitlines(keepends=True), ours.splitlines(keepends=True), "official", "ours", n=2
                        )
                    )
                    print("".join(diff[:60]) + ("... (diff truncated)\n" if len(diff) > 60 else ""))
                    if not diff:
                        print(f"official: {official!r}\nours:     {ours!r}")
                else:
                    print(f"official: {_short(official, 1500)}")
                    print(f"ours:     {_short(ours, 1500)}")

    @property
    def failed(self) -> bool:
        return any(bad for _, bad, _, _ in self.rows.values())


def close(rel: float = 1e-12) -> Callable[[Any, Any], bool]:
    def equal(a: Any, b: Any) -> bool:
        if isinstance(a, (int, float)) and isinstance(b, (int, float)):
            return math.isclose(a, b, rel_tol=rel, abs_tol=1e-15)
        return a == b

    return equal


# =========================================================================== synthetic Task 1 rows

CONDITION_PHRASES = [
    # the paper's 13 conditions, as questions name them
    "hypertension",
    "high blood pressure",
    "type 2 diabetes",
    "Type-2 Diabetes",
    "diabetes",
    "type two diabetes",
    "obesity",
    "weight management",
    "obesity or weight-management",
    "metabolic syndrome",
    "metabolic health",
    "IBS",
    "irritable bowel syndrome",
    "NAFLD",
    "non-alcoholic fatty liver disease",
    "heart failure",
    "GERD",
    "acid reflux",
    "cardiovascular disease",
    "Cardiovascular_Health",
    "heart health",
    "heart disease",
    "hyperlipidemia",
    "high cholesterol",
    "stroke",
    "chronic kidney disease",
    "CKD",
    "osteoporosis",
    "bone health",
    "bone health or osteoporosis",
    # KB-only names, aliases and composite aliases
    "celiac disease",
    "Celiac Disease",
    "gluten sensitivity",
    "gluten-sensitive",
    "dairy allergy",
    "milk allergy",
    "seafood allergy",
    "lactose intolerant",
    "lactose_intolerance",
    "gut health",
    "digestive health",
    "gastrointestinal health concerns",
    "gout",
    "inflammation",
    "eye health",
    "breast cancer",
    "cancer general",
    "alzheimers cognitive decline",
    "egg allergy",
    "peanut_allergy",
    "tree nut allergy",
    "soy allergy",
    "fish allergy",
    "shellfish allergy",
    "cholesterol",
    "prostate cancer",
    "colorectal cancer",
    # unknown / unusual
    "martian flu",
    "高血压",
    "diabète de type 2",
    "",
    "   ",
]
QUESTION_TEMPLATES = [
    "Is this dish suitable for someone managing {c}?",
    "Is this dish suitable for someone with {c}?",
    "Would you recommend this recipe for a person with {c}?",
    "{c}",
    "Suitable for {c}? Explain.\nConsider \"sodium\" and 'sugar'.",
    "¿Es este plato adecuado para alguien con {c}?",
]
JOINERS = [" and ", ", ", " & ", "/", " as well as ", "_", "-"]
TITLES = [
    "Butternut squash casserole",
    "Crème brûlée",
    "麻婆豆腐 (Mapo tofu)",
    "Jalapeño poppers",
    "Pho bò",
    'Salty "ramen"',
    "Smørrebrød",
    "",
    "  spaced  title ",
    "Tarte\ttatin\n",
]
INGREDIENTS = [
    "1 cup white rice",
    "2 tbsp soy sauce",
    "16 Ounces Fresh Atlantic salmon (4 4-ounce filets)",
    "1/3 cup / 80 ml good, raw honey",
    "110g pack chorizo sausage, chopped",
    "crème fraîche",
    "jalapeño",
    "豆腐 200 g",
    "1 l hot fish or chicken stock",
    "salt",
    "",
    "½ tsp pepper",
    "2 clove Garlic, raw (minced)",
    "olive oil \u2028 extra virgin",
    '"quoted" butter',
]


def t1_question(rng: random.Random, phrase: str | None = None) -> str:
    count = rng.choice([1, 1, 1, 2, 2, 3])
    picked = [phrase] if phrase is not None else []
    picked += [rng.choice(CONDITION_PHRASES) for _ in range(count - len(picked))]
    rng.shuffle(picked)
    conditions = picked[0]
    for item in picked[1:]:
        conditions += rng.choice(JOINERS) + item
    if rng.random() < 0.15:
        conditions = conditions.upper() if rng.random() < 0.5 else conditions.replace(" ", "_")
    return rng.choice(QUESTION_TEMPLATES).format(c=conditions)


def random_rationale(
    rng: random.Random, conditions: list[str] | None = None, ingredients: list[str] | None = None, messy: bool = True
) -> Any:
    conditions = conditions or RAT_CONDITIONS
    ingredients = ingredients or RAT_INGREDIENTS
    if messy and rng.random() < 0.08:
        return rng.choice([None, "hypertension: salt", {"condition": "x", "ingredients": ["y"]}, 3, [[]]])
    entries: list[Any] = []
    for _ in range(rng.choice([0, 1, 1, 2, 2, 3, 4])):
        roll = rng.random()
        if messy and roll < 0.06:
            entries.append(rng.choice(["salt", None, ["hypertension", "salt"], 7]))
            continue
        entry: dict[str, Any] = {"condition": rng.choice(conditions)}
        if messy and roll < 0.12:
            entry["ingredients"] = rng.choice([None, "salt, sugar", {"a": 1}, 5])
        elif messy and roll < 0.15:
            entry["ingredient"] = ["salt"]
        else:
            entry["ingredients"] = [rng.choice(ingredients) for _ in range(rng.choice([0, 1, 2, 3, 4]))]
        if rng.random() < 0.1:
            entry["note"] = "extra key"
        entries.append(entry)
    return entries


RAT_CONDITIONS = [
    "type 2 diabetes",
    "Type-2 Diabetes",
    "type_2_diabetes",
    "hypertension",
    " Hypertension ",
    "HEART failure",
    "heart  failure",
    "gerd",
    "",
    "   ",
    None,
    123,
    "chronic kidney disease",
    "obesity",
    "cardiovascular disease",
    "IBS",
    "nafld",
    "stroke",
    "osteoporosis",
    "metabolic syndrome",
    "hyperlipidemia",
    "crème",
    "高血压",
    "type 2 diabetes & hypertension",
]
RAT_INGREDIENTS = [
    "salt",
    "Salt",
    "salt.",
    "soy sauce",
    "soy-sauce",
    "soy_sauce",
    "Soy  Sauce",
    "white rice",
    "white-rice!",
    "olive oil",
    "olive oil (extra virgin)",
    "cheese",
    "crème fraîche",
    "jalapeño",
    "豆腐",
    "",
    "  ",
    None,
    5,
    "bacon",
    "bacon,",
    "sugar",
    "brown sugar",
    "broccoli",
    "salmon",
    "whole-wheat bread",
    "n/a",
    "—",
    "1/2 cup oats",
    "'honey'",
    "Ｓａｌｔ",
]


def t1_row(rng: random.Random, index: int, phrase: str | None = None) -> dict[str, Any]:
    row: dict[str, Any] = {}

    def optional(p: float) -> bool:
        return rng.random() < p

    if optional(0.95):
        row["title"] = rng.choice(TITLES + [None])
    if optional(0.97):
        row["question"] = t1_question(rng, phrase) if rng.random() < 0.96 else rng.choice([None, 42, ""])
    if optional(0.9):
        row["ingredients"] = rng.choice([[rng.choice(INGREDIENTS) for _ in range(rng.randint(0, 6))], [], None])
    if optional(0.85):
        row["nutrition"] = rng.choice(
            [
                {"calories": "313 kcal", "sodium": "185 mg", "fat": 1.5, "sugar": 0},
                {},
                None,
                {"énergie": "200 kJ", "protein": float("nan")},
            ]
        )
    if optional(0.8):
        row["dietary_tags"] = rng.choice([["vegetarian"], [], ["sans gluten", "végétalien"], None])
    if optional(0.8):
        row["meal_type"] = rng.choice([["dinner"], ["lunch", "snack"], [], None])
    if optional(0.8):
        row["notes"] = rng.choice([None, None, "", 'Serve hot.\nKeeps 2 days — "best" fresh.', "注意: 辣"])
    row["image_url"] = f"https://images.example.org/{index}.jpg"
    row["standard answer"] = {"decision": rng.choice(["recommend", "not recommend"]), "rationale_ingredients": []}
    keys = list(row)
    rng.shuffle(keys)
    return {k: row[k] for k in keys}


EDGE_KB = {
    "source_files": None,
    "conditions": {
        "type 2 diabetes": {
            "recommend": [f"food {i}" for i in range(30)],
            "not_recommend": ["white bread", " ", "", 7],
        },
        "Type_2_Diabetes": {"recommend": ["oats"], "not_recommend": None},
        "heart-failure": {"recommend": "salt-free broth", "not_recommend": ["salt"]},
        "hypertension": {"recommend": None, "not_recommend": [f"salty {i}" for i in range(21)]},
        "gluten_celiac_disease": {"recommend": ["rice"], "not_recommend": ["wheat"]},
        "milk_allergy": {"not_recommend": ["milk"]},
        "obesity weight management": {"recommend": [], "not_recommend": []},
        "broken": "not a dict",
        "list entry": ["x"],
        "crème": {"recommend": ["légumes"], "not_recommend": ["beurre"]},
        "": {"recommend": ["anything"], "not_recommend": []},
    },
}


# =========================================================================== synthetic Task 2 questions

UNKNOWN_CONDITIONS = [
    "martian flu",
    "Type-2 Diabetes (T2D)",
    "Crohn’s disease",
    "GERD/Reflux",
    "Alzheimer's",
    "  HIGH   blood pressure ",
    "",
    None,
    "kidney_failure",
    "hyperlipidemia",
    "high ldl cholesterol",
]
OPTION_TITLES = [
    "Grilled salmon",
    "Crème brûlée",
    "Pho bò",
    "麻婆豆腐",
    "  Loaded   nachos ",
    "",
    None,
    "Mac & cheese",
    "Tarte\ttatin",
]
OPTION_INGREDIENTS = [
    "1 cup brown rice",
    "2 tbsp soy sauce",
    "salmon",
    "  spaced   out  ",
    "",
    None,
    "crème fraîche",
    "jalapeño",
    "line\nbreak",
    "bacon; smoked",
    "3 eggs",
]
AGE_GROUPS = ["4-8", "14+", "9-13", "1-3", "2", "adults", "all", "", None, "-", "19-50"]


def t2_question(rng: random.Random, number: int, rule_values: list[str], alias_keys: list[str]) -> dict[str, Any]:
    pool = rule_values + alias_keys
    conditions = []
    for _ in range(rng.choice([1, 1, 2, 2, 3])):
        roll = rng.random()
        value = rng.choice(UNKNOWN_CONDITIONS) if roll < 0.2 else rng.choice(pool)
        if roll > 0.9 and isinstance(value, str):
            value = value.upper().replace(" ", rng.choice(["_", "-", " "]))
        conditions.append(value)
    labels = [(c.title() if isinstance(c, str) else c) for c in conditions]
    if rng.random() < 0.1:
        labels = rng.choice([[], None, ["", "  "], ["Diabetes", "Hypertension", "Crème"]])
    prompt: dict[str, Any] = {"conditions": conditions, "condition_labels": labels}
    if rng.random() < 0.8:
        prompt["available_ingredients"] = rng.choice([["mushroom", "corn"], [], ["crème", " leek ", ""], None])
    if rng.random() < 0.6:
        prompt["age_group"] = rng.choice(AGE_GROUPS)
    if rng.random() < 0.05:
        prompt["conditions"] = None
    options = []
    for letter in LETTERS:
        option: dict[str, Any] = {
            "letter": letter.lower() if rng.random() < 0.1 else letter,
            "image_url": f"https://img.example.org/{number}/{letter}.jpg",
        }
        if rng.random() < 0.9:
            option["title"] = rng.choice(OPTION_TITLES)
        items = [rng.choice(OPTION_INGREDIENTS) for _ in range(rng.randint(0, 5))]
        field = rng.choice(
            ["full_ingredients", "full_ingredients", "ingredients", "key_ingredients", "fallback", "none"]
        )
        if field == "fallback":  # empty full_ingredients -> ingredients -> key_ingredients
            option.update(full_ingredients=[], ingredients=None, key_ingredients=items)
        elif field != "none":
            option[field] = items
        options.append(option)
    rng.shuffle(options) if rng.random() < 0.15 else None
    if rng.random() < 0.3:  # abstention option (no image needed)
        abst = {"letter": "E", "title": "None of these", "is_abstention": True}
        if rng.random() < 0.5:
            abst["image_url"] = ""
        options.insert(rng.randint(0, 4), abst)
    answer = rng.choice(LETTERS)
    ranking = [answer] + rng.sample([x for x in LETTERS if x != answer], 3)
    labels_gold = {x: rng.choice(["recommend", "not_recommend"]) for x in LETTERS}
    labels_gold[answer] = "recommend"
    for x in LETTERS:
        if rng.random() < 0.05:
            del labels_gold[x]
        elif rng.random() < 0.05:
            labels_gold[x] = labels_gold[x].upper() if rng.random() < 0.5 else f" {labels_gold[x].title()} "
    question = {
        "question_id": f"crmcq_{number:04d}" if rng.random() < 0.5 else f"CRMCQ_{number:04d}",
        "prompt": prompt,
        "options": options,
        "answer": {"letter": f" {answer.lower()} " if rng.random() < 0.1 else answer},
        "gold": {"ranking": ranking, "decision_labels": labels_gold},
    }
    if rng.random() < 0.05:
        question["gold"] = {"decision_labels": labels_gold}
    return question


EDGE_RULES = {
    "conditions": [
        {
            "value": "Type-2 Diabetes",
            "label": "",
            "beneficial": [f"veg {i}" for i in range(12)],
            "limit_raw": [],
            "limit": ["sugar"],
            "avoid_raw": None,
            "avoid": None,
            "guideline_aliases": ["diabetes alias", "General"],
        },
        {
            "value": "hypertension",
            "label": "  High   BP ",
            "beneficial_raw": ["", " ", "fruit"],
            "dietary_tag_hints": ["low sodium"] * 9,
        },
        {"value": "Crohn’s disease", "label": "Crohn's"},
        "not a dict",
        {"value": "", "label": "empty"},
    ],
    "alias_map": {
        "High Blood Pressure": "hypertension",
        "t2d": "Type-2 Diabetes",
        "": "hypertension",
        "gerd": "missing target",
    },
}
EDGE_GUIDELINES = {
    "rules": [
        {
            "condition_key": "type 2 diabetes",
            "nutrient": "Sugar",
            "target_type": "Max",
            "max": 25,
            "unit": "g",
            "basis": "per day",
            "population": "Adults",
            "population_key": "adults",
        },
        {"condition": "Diabetes Alias", "nutrient": "Fiber", "target_type": "Min", "min": 28.5, "max": "", "unit": "g"},
        {"condition_key": "diabetes alias", "nutrient": "Carbs", "target_type": "Range", "min": None, "max": None},
        {"condition_key": "hypertension", "nutrient": "Sodium", "target_type": "Max", "max": 0, "unit": "mg"},
        {
            "condition_key": "hypertension",
            "nutrient": "Potassium",
            "target_type": "",
            "min": 3400,
            "unit": "",
            "population": "",
        },
        {
            "condition_key": "general",
            "nutrient": "Sodium",
            "target_type": "Max",
            "max": 1500,
            "unit": "mg",
            "population": "Ages 4-8",
            "population_key": "ages_4_8",
        },
        {
            "condition_key": "general",
            "nutrient": "Sodium",
            "target_type": "Max",
            "max": 2300,
            "unit": "mg",
            "population": "14+",
            "population_key": "adults_and_adolescents_14",
        },
        {
            "condition_key": "General",
            "nutrient": "Fiber",
            "target_type": "Min",
            "min": 1e-7,
            "unit": "g",
            "population_key": "all",
        },
        "not a dict",
    ]
}


# =========================================================================== model-output corpora

T1_TRICKY = [
    "",
    "   ",
    "recommend",
    "Not Recommended",
    "not recommend",
    "Recommend.",
    "not_recommend",
    "NOT RECOMMEND",
    "I would not recommend this dish.",
    "Decision: Not Recommended",
    "Decision: **recommend**",
    '{"decision": "recommend", "rationale_ingredients": []}',
    (
        '```json\n{"decision": "not recommend", "rationale_ingredients": [{"condition": "Hypertension", '
        '"ingredients": ["Soy-Sauce", "salt."]}]}\n```'
    ),
    (
        '```\n{"decision": "Recommended", "rationale_ingredients": [{"condition": "type_2_diabetes", "ingredients": '
        '["oats"]}]}\n```'
    ),
    'Here is my answer:\n```json\n{"decision": "avoid", "rationale_ingredients": []}\n```\nThanks.',
    (
        'Sure! {"decision": "no", "rationale_ingredients": [{"condition": "gerd", "ingredients": ["tomato"]}]} Hope it '
        "helps."
    ),
    (
        '<think>The schema is {"decision": "recommend|not recommend", "rationale_ingredients": [...]}. '
        'Salt is high, so not recommend.</think>\n{"decision": "not recommend", "rationale_ingredients": '
        '[{"condition": "hypertension", "ingredients": ["salt"]}]}'
    ),
    (
        '<think>{"decision": "recommend", "rationale_ingredients": []}</think>{"decision": "not recommend", '
        '"rationale_ingredients": []}'
    ),
    (
        '{"decision": "recommend|not recommend", "rationale_ingredients": []}\n{"decision": "not recommend", '
        '"rationale_ingredients": []}'
    ),
    '{"decision": "Not Recommended"}',
    '{"decision": "not_recommend", "rationale_ingredients": []}',
    '{"decision": "Recommend.", "rationale_ingredients": []}',
    '{"decision": " NOT   recommend "}',
    '{"decision": "recommend", "rationale_ingredients": [{"condition": "a", "ingredients": ["b"]}',
    (
        '{"decision": "not recommend", "note": "use {braces} and \\"quotes\\" inside strings", '
        '"rationale_ingredients": []}'
    ),
    '{"decision": {"value": "recommend"}, "rationale_ingredients": []} so I recommend it',
    '{"outer": {"decision": "recommend"}}',
    '{"a": 1} {"decision": "not recommend"}',
    '[{"decision": "recommend"}]',
    "null",
    '"recommend"',
    "[]",
    "{}",
    "{{}}",
    "}{",
    "{",
    '{"decision": "not suitable", "rationale_ingredients": "salt"}',
    '{"decision": "yes", "rationale_ingredients": [{"condition": "", "ingredients": ["salt"]}, "salt", null]}',
    '{"reasoning_steps": ["a", "b"], "decision": "do not recommend", "rationale_ingredients": []}',
    '{"decision": "recommended"} trailing {"decision": "not recommend"}',
    '{"decision": "maybe", "rationale_ingredients": []} Overall: not recommended.',
    '"decision": "Not Recommend" without braces',
    '"decision":"recommendation"',
    "recommendation only",
    '```json\n{"decision": "recommend",}\n```',
    "```json\n```",
    "```",
    '```json {"decision": "no"}```',
    "{'decision': 'recommend'}",
    '{"decision": "recommend", "x": NaN}',
    '{"decision": "recommend", "x": 1e999}',
    '\ufeff{"decision": "recommend"}',
    '{"decision": "recommend"}\x00',
    '{"decision":"Avoid","rationale_ingredients":[{"condition":"CKD","ingredients":["Ｓａｌｔ","salt"]}]}',
    '<think>unterminated reasoning {"decision": "recommend"}',
    "Not recommend. Recommend.",
    '{"decision": "not recommend"' + "}" * 3,
    "{" * 3 + '"decision": "recommend"' + "}" * 3,
    # degenerate repetition (last 4 entries): the JSON decoder recurses (RecursionError from depth ~1000 on 3.11)
    "[" * 1000,
    "[" * 100000,
    '{"decision": "recommend", "deep": ' + "[" * 1000 + "]" * 1000 + "}",
    '{"decision": "recommend", "deep": ' + "[" * 100000 + "]" * 100000 + "} I recommend it",
]
T1_PLAIN = T1_TRICKY[:-4]

T2_RANK_TRICKY = [
    "",
    "B > A > D > C",
    "b > a > d > c",
    "A, B, C",
    "ABCD",
    "DCBA",
    "Best is C",
    "C",
    "The ranking: B, D, A, C.",
    "1. B\n2. A\n3. D\n4. C",
    '["Option B", "Option A", "Option D", "Option C"]',
    '{"ranking": ["B", "A", "D", "C"], "best_option": "B"}',
    '{"ranking": ["b", "a", "d", "c"]}',
    '{"ranking": [" B ", "A", "D", "C"]}',
    '{"ranking": ["Option B", "Option A", "Option D", "Option C"]}',
    '{"ranking": ["B", "A", "D"], "best_option": "C"}',
    '{"ranking": ["B", "A", "D", "D"], "best_option": "C"}',
    '{"ranking": ["A", "B", "C", "D", "A"]}',
    '{"ranking": "B > A > D > C"}',
    '{"ranking": null, "best_option": "D"}',
    '{"ranking": ["B", "A", "D", "C"], "best_option": "D"}',
    '{"best_option": "c", "ranking": ["A", "B", "C"]}',
    '{"ranking": ["A", "B", "C"], "best_option": "Option C"}',
    '```json\n{"ranking": ["C", "B", "A", "D"], "best_option": "C"}\n```',
    'Sure: {"ranking": ["C", "B", "A", "D"]} because D is BAD',
    'Answer {"ranking": ["C", "B", "A"]} then D',
    '{"ranking": ["D", "C", "B", "A"], "ranking_basis": {"A": "bad", "B": "ok", "C": "good", "D": "best"}}',
    (
        '{"ranking": ["D", "C", "B"], "ranking_basis": {"A": "BAD", "B": "ok", "C": "good", "D": "best"}, '
        '"best_option": "B"}'
    ),
    (
        '<think>schema {"ranking": ["best", "second", "third", "worst"]}; I pick C</think>{"ranking": ["C", "A", "B", '
        '"D"]}'
    ),
    '{"ranking": ["A","B","C","D"]} {"ranking": ["D","C","B","A"]}',
    '{"ranking": ["A","B",',
    "{",
    "}{",
    "null",
    '["B", "A", "D", "C"]',
    '{"ranking": [1, 2, 3, 4]}',
    '{"ranking": [null, "A", "B", "C"], "best_option": "D"}',
    '{"ranking": ["A", "B", "C", "D"], "best_option": "E"}',
    "a b c d",
    "I choose option d, then a, b and c",
    '{"note": "use {braces} \\"B\\"", "ranking": ["B", "C", "D", "A"]}',
    '```\n{"ranking": ["B","C","D","A"]}```',
    '```json\n{"ranking": ["B","C","D","A"]}\n``` and more ```',
    "[" * 1000,
    '{"ranking": ["A", "B", "C", "D"], "x": ' + "[" * 1000 + "]" * 1000 + "}",
]
T2_RANK_TRICKY += [  # issue 9: literal whitespace inside JSON strings, oversized integers
    '{"reasoning": "Step 1:\tsodium\nStep 2: fibre", "ranking": ["C", "B", "A", "D"]}',
    '{"ranking": ["D", "C", "B", "A"], "ranking_basis": "line1\nline2"}',
    '{"ranking": ["B\n", "\tA", "D", "C"]}',
    '{"ranking": ["B", "A", "D", "C"], "score": ' + "9" * 5000 + "}",
    '{"score": ' + "9" * 4301 + ', "ranking": ["B", "A", "D", "C"]}',
    '{"ranking": ["B", "A", "D", "C"], "n": ' + "9" * 4300 + "}",
    'I rank {"ranking": ["C", "D", "A", "B"], "x": -' + "1" * 4400 + "} B first",
    '{"ranking": ["C", "D", "A", "B"], "x": 1}, {"y": ' + "2" * 4400 + "}",
    '{"bad": ' + "3" * 4400 + ", ] }",
    '```json\n{"ranking": ["A", "C", "B", "D"],\n "why": "tab\there"}\n```',
    '\x00{"ranking": ["A", "B", "C", "D"]}',
]
T2_RANK_PLAIN = T2_RANK_TRICKY[:-13]

T2_DECISION_TRICKY = [
    "",
    "null",
    "{}",
    '{"option_decisions": null}',
    '{"option_decisions": []}',
    (
        '{"option_decisions": {"A": {"decision": "recommend"}, "B": {"decision": "not_recommend"}, '
        '"C": {"decision": "not recommend"}, "D": {"decision": "Not-Recommend", "risk_level": "HIGH"}}}'
    ),
    (
        '{"option_decisions": {"a": {"decision": "recommend"}, "b": {"decision": "recommend"}, '
        '"c": {"decision": "recommend"}, "d": {"decision": "recommend"}}}'
    ),
    (
        '{"option_decisions": {"A": {}, "a": {"decision": "recommend"}, "B": {"decision": "recommend"}, '
        '"C": {"decision": "recommend"}, "D": {"decision": "recommend"}}}'
    ),
    (
        '{"option_decisions": {"A": {"decision": "avoid"}, "B": {"decision": "recommend"}, '
        '"C": {"decision": "recommend"}, "D": {"decision": "recommend"}}}'
    ),
    (
        '{"option_decisions": {"A": {"decision": "recommend"}, "B": {"decision": "recommend"}, '
        '"C": {"decision": "recommend"}}}'
    ),
    '{"option_decisions": {"A": "recommend", "B": "recommend", "C": "recommend", "D": "recommend"}}',
    (
        '{"option_decisions": {"Option A": {"decision": "recommend"}, "Option B": {"decision": "recommend"}, '
        '"Option C": {"decision": "recommend"}, "Option D": {"decision": "recommend"}}}'
    ),
    (
        '{"option_decisions": {"A": {"decision": "Recommend.", "risk_level": "extreme"}, "B": {"decision": '
        '"recommend"}, '
        '"C": {"decision": "recommend"}, "D": {"decision": "recommend"}}}'
    ),
    (
        '{"option_decisions": {"A": {"decision": " NOT   RECOMMEND ", "risk_level": "Low"}, "B": {"decision": '
        '"RECOMMEND"}, '
        '"C": {"decision": "not_recommend", "risk_level": null}, "D": {"decision": "recommend", "risk_level": 3}}}'
    ),
    (
        '```json\n{"option_decisions": {"A": {"decision": "recommend"}, "B": {"decision": "recommend"}, '
        '"C": {"decision": "recommend"}, "D": {"decision": "recommend"}}}\n```'
    ),
    (
        'Here: {"option_decisions": {"A": {"decision": "recommend"}, "B": {"decision": "not_recommend"}, '
        '"C": {"decision": "not_recommend"}, "D": {"decision": "not_recommend"}}} done'
    ),
    (
        '<think>{"option_decisions": {"A": {"decision": "recommend|not_recommend"}}}</think>{"option_decisions": '
        '{"A": {"decision": "recommend"}, "B": {"decision": "recommend"}, "C": {"decision": "recommend"}, '
        '"D": {"decision": "recommend"}}}'
    ),
    (
        '{"option_decisions": {"A": {"decision": "recommend"}, "B": {"decision": "recommend"}, '
        '"C": {"decision": "recommend"}, "D": {"decision": "recommend"}}'
    ),
    (
        '{"option_decisions": {"A": {"decision": "not recommended"}, "B": {"decision": "recommend"}, '
        '"C": {"decision": "recommend"}, "D": {"decision": "recommend"}}}'
    ),
    (
        '{"option_decisions": {"A": {"decision": ["recommend"]}, "B": {"decision": "recommend"}, '
        '"C": {"decision": "recommend"}, "D": {"decision": "recommend"}}}'
    ),
    (
        '{"option_decisions": {"A": {"decision": "recommend"}, "B": {"decision": "recommend"}, '
        '"C": {"decision": "recommend"}, "D": {"decision": "recommend"}, "E": {"decision": "banana"}}}'
    ),
    (
        '{"x": 1}{"option_decisions": {"A": {"decision": "recommend"}, "B": {"decision": "recommend"}, '
        '"C": {"decision": "recommend"}, "D": {"decision": "recommend"}}}'
    ),
    "[" * 1000,
]
_FOUR = '"A": {"decision": "recommend"}, "B": {"decision": "not_recommend"}, "C": {"decision": "recommend"}, '
T2_DECISION_TRICKY += [  # issue 9: literal whitespace inside JSON strings, oversized integers
    '{"option_decisions": {' + _FOUR + '"D": {"decision": "not\nrecommend", "note": "tab\there"}}}',
    '{"option_decisions": {' + _FOUR + '"D": {"decision": "recommend\t"}}, "analysis": "a\nb"}',
    '{"option_decisions": {' + _FOUR + '"D": {"decision": "recommend", "risk_level": ' + "9" * 5000 + "}}}",
    '{"option_decisions": {' + _FOUR + '"D": {"decision": "recommend", "risk_level": ' + "9" * 4300 + "}}}",
    'Plan: {"option_decisions": {' + _FOUR + '"D": {"decision": "recommend"}}} and {"x": ' + "9" * 4400 + "}",
]
T2_DECISION_PLAIN = T2_DECISION_TRICKY[:-6]

DECISION_WORDS: list[Any] = [
    "recommend",
    "not recommend",
    "Recommend",
    "NOT RECOMMEND",
    "Not Recommended",
    "recommended",
    "not_recommend",
    "not-recommend",
    "Recommend.",
    "avoid",
    "Avoid",
    "yes",
    "no",
    "Yes",
    "No",
    "suitable",
    "not suitable",
    "unsuitable",
    "do not recommend",
    "don't recommend",
    "  not   recommend ",
    "Recommend it",
    "recommend|not recommend",
    "NOT SUITABLE",
    "",
    None,
    1,
    0,
    True,
    ["recommend"],
    {"v": "recommend"},
    "recommend\n",
]
OPTION_DECISION_WORDS: list[Any] = [
    "recommend",
    "recommend",
    "not_recommend",
    "not_recommend",
    "not recommend",
    "Not-Recommend",
    "NOT_RECOMMEND",
    "RECOMMEND",
    "avoid",
    "recommended",
    "Recommend.",
    "",
    None,
    "  recommend  ",
    "not  recommend",
    0,
    ["recommend"],
]
RISK_LEVELS: list[Any] = ["low", "moderate", "high", "HIGH", " Low ", "extreme", None, "", 2]
PROSE = [
    "Here is my answer:",
    "Sure!",
    "Analysis: the dish is BAD for the heart.",
    "Overall I would not recommend it.",
    "A quick note: sodium matters.",
    "Let me think step by step.",
    "",
    "答案如下：",
    "Final answer below.",
]


def _serialize(rng: random.Random, payload: Any) -> str:
    indent = rng.choice([None, None, 2, 1])
    return json.dumps(payload, ensure_ascii=rng.random() < 0.3, indent=indent)


def _wrap(rng: random.Random, body: str, alt: str) -> str:
    roll = rng.randrange(12)
    if roll == 0:
        return f"```json\n{body}\n```"
    if roll == 1:
        return f"```\n{body}\n```"
    if roll == 2:
        return f"{rng.choice(PROSE)}\n```json\n{body}\n```\n{rng.choice(PROSE)}"
    if roll == 3:
        return f"{rng.choice(PROSE)} {body} {rng.choice(PROSE)}"
    if roll == 4:
        return f"<think>{rng.choice(PROSE)} {alt}</think>\n{body}"
    if roll == 5:
        return f"{alt}\n{body}" if rng.random() < 0.5 else f"{body}\n{alt}"
    if roll == 6:
        return body[: rng.randint(0, len(body))]
    if roll == 7:
        return f"  {body}\n\n"
    if roll == 8:
        return f"```JSON\n{body}\n```"
    return body


# Shapes the official provider paths and json.loads treat specially (issue 9): whitespace and control
# characters written literally inside JSON strings (every official Task 2 provider path collapses
# whitespace before parsing, so such JSON parses officially), integers past Python's 4,300-digit limit
# (json.loads raises a plain ValueError, not JSONDecodeError: the official request fails).
LITERAL_ESCAPES = [
    ("\\n", "\n"),
    ("\\t", "\t"),
    ("\\r", "\r"),
    ("\\u000b", "\x0b"),
    ("\\u000c", "\x0c"),
    ("\\u001c", "\x1c"),
    ("\\u001f", "\x1f"),
    ("\\u0085", "\x85"),
    ("\\u00a0", "\xa0"),
    ("\\u2028", "\u2028"),
    ("\\u3000", "\u3000"),
    ("\\u0000", "\x00"),
    ("\\u0007", "\x07"),
    ("\\u200b", "\u200b"),
]
WS_TEXTS = [
    "Step 1:\tcompare sodium\nStep 2:\tRANKING by fibre\n",
    "A\nB",
    "\t",
    " line one\r\nline two ",
    "x\x0by\x0cz",
    "sep\x1cfield\x1f",
    "next\x85line",
    "nb\xa0sp",
    "para\u2028graph",
    "ideo\u3000space",
    "nul\x00bel\x07",
    "zero\u200bwidth",
    "RANKING BASIS\n\n\n",
]
BIG_INTS = ["9" * 4300, "9" * 4301, "-" + "1" * 5000, "1" + "0" * 20000, "1." + "0" * 5000, "1e99999", "7" * 4299]


def _literal_ws(rng: random.Random, body: str) -> str:
    """Some JSON string escapes of ``body`` written as the literal characters (invalid strict JSON)."""
    for escaped, literal in rng.sample(LITERAL_ESCAPES, rng.randint(1, len(LITERAL_ESCAPES))):
        if rng.random() < 0.7:
            body = body.replace(escaped, literal)
    return body


def _adversarial(rng: random.Random, payload: dict, alt: str) -> str:
    """A payload serialised with literal whitespace/control characters in its strings and/or an oversized
    number, in the wrappers models use."""
    payload = dict(payload)
    if rng.random() < 0.6:
        payload[rng.choice(["reasoning", "analysis", "note", "ranking_basis"])] = rng.choice(WS_TEXTS)
    body = json.dumps(payload, ensure_ascii=True, indent=rng.choice([None, 2, "\t"]))
    if rng.random() < 0.75:
        body = _literal_ws(rng, body)
    if rng.random() < 0.4 and body.startswith("{"):
        big = rng.choice(BIG_INTS)
        where = rng.randrange(4)
        if where == 0:
            body = '{"score": ' + big + ", " + body[1:]
        elif where == 1:
            body = body[:-1] + ', "score": ' + big + "}"
        elif where == 2:
            body = body + ' {"score": ' + big + "}"
        else:
            body = '{"score": ' + big + "} " + body
    return _wrap(rng, body, alt)


def runaway(size: int = 1500) -> list[str]:
    """Runaway shapes (issue 10) at a size the quadratic official code still finishes quickly: our linear
    parsers must give the official results."""
    answer = '{"decision": "not recommend", "ranking": ["B", "A", "D", "C"]}'
    return [
        "```" + " " * size,
        "```json" + " \t" * (size // 2),
        "```" + "\n" * size + answer,
        "`" * size,
        "{" * size,
        "{" * size + answer,
        '{"' * (size // 2),
        '{\\"' * (size // 3),
        '"{' * (size // 2),
        '{"a": ' * (size // 6) + "1" + "}" * (size // 6 - 1),
        "[" * size,
        "}" * size + answer,
        "decision:" + " " * size + "not recommended",
        '"decision":' + " " * size + '"avoid"',
        "\n" * size + answer,
        "1." + "\n" * size,
        "<think>" * (size // 7) + answer,
        (answer + "\n") * (size // 60),
        ("```json\n" + answer + "\n```\n") * (size // 80),
        "A > B > " * (size // 8),
        "9" * size,
        answer[:-1] + ', "x": "' + "\t \n" * (size // 3) + '"}',
    ]


_MUTATION_CHARS = '{}[]",:\\ \n`ABCDabcd'


def _mutate(rng: random.Random, text: str) -> str:
    for _ in range(rng.choice([1, 1, 2, 3])):
        roll = rng.randrange(7)
        pos = rng.randint(0, len(text))
        if roll == 0 and text:
            text = text[:pos] + text[pos + 1 :]
        elif roll == 1:
            text = text[:pos] + rng.choice(_MUTATION_CHARS) + text[pos:]
        elif roll == 2:
            text = text[:pos]
        elif roll == 3 and text:
            end = rng.randint(pos, len(text))
            text = text[:end] + text[pos:end] + text[end:]
        elif roll == 4:
            text = text.lower() if rng.random() < 0.5 else text.upper()
        elif roll == 5:
            text = text.replace('"', "'", rng.randint(1, 3))
        else:
            text = text + rng.choice(PROSE)
    return text


def t1_output(rng: random.Random, gold: dict[str, Any] | None = None) -> str:
    if rng.random() < 0.12:
        return rng.choice(T1_PLAIN + [f"Decision: {rng.choice(DECISION_WORDS)}", rng.choice(PROSE)])
    payload: dict[str, Any] = {}
    if rng.random() < 0.25:
        payload["reasoning_steps"] = rng.choice([["Check salt.", "Decide."], "not a list", [1, " ", "x"]])
    if gold is not None and rng.random() < 0.7:
        payload["decision"] = gold["decision"] if rng.random() < 0.6 else rng.choice(["recommend", "not recommend"])
        entries = []
        for entry in gold["rationale_ingredients"]:
            if isinstance(entry, dict) and isinstance(entry.get("ingredients"), list) and rng.random() < 0.8:
                kept = [i for i in entry["ingredients"] if rng.random() < 0.7] + [
                    rng.choice(RAT_INGREDIENTS) for _ in range(rng.choice([0, 0, 1]))
                ]
                cond = entry.get("condition") if rng.random() < 0.85 else rng.choice(RAT_CONDITIONS)
                entries.append({"condition": cond, "ingredients": kept})
        payload["rationale_ingredients"] = entries
    else:
        if rng.random() < 0.93:
            payload[rng.choice(["decision", "decision", "decision", "Decision"])] = rng.choice(DECISION_WORDS)
        if rng.random() < 0.9:
            payload["rationale_ingredients"] = random_rationale(rng)
    if rng.random() < 0.3:
        items = list(payload.items())
        rng.shuffle(items)
        payload = dict(items)
    alt = _serialize(rng, {"decision": rng.choice(DECISION_WORDS), "rationale_ingredients": []})
    if rng.random() < 0.3:
        return _adversarial(rng, payload, alt)
    body = _serialize(rng, payload)
    text = _wrap(rng, body, alt)
    return _mutate(rng, text) if rng.random() < 0.3 else text


def _letter_variant(rng: random.Random, letter: str) -> Any:
    return rng.choice(
        [letter] * 6
        + [
            letter.lower(),
            f" {letter} ",
            f"Option {letter}",
            f"({letter})",
            None,
            3,
            f"{letter}\n",
            f"\t{letter}",
            f"{letter}\u2028",
        ]
    )


def rank_output(rng: random.Random, gold_letter: str | None = None) -> str:
    if rng.random() < 0.12:
        perm = rng.sample(LETTERS, 4)
        return rng.choice(
            T2_RANK_PLAIN
            + [" > ".join(perm), ", ".join(perm).lower(), " ".join(perm[:3]), f"Best is {perm[0]}", rng.choice(PROSE)]
        )
    perm = rng.sample(LETTERS, 4)
    if gold_letter and rng.random() < 0.4:
        perm = [gold_letter] + [x for x in perm if x != gold_letter]
    roll = rng.random()
    if roll < 0.7:
        ranking: Any = perm
    elif roll < 0.8:
        ranking = perm[: rng.choice([2, 3])]
    elif roll < 0.85:
        ranking = perm + [perm[0]]
    elif roll < 0.9:
        ranking = [perm[0]] * 4
    else:
        ranking = [_letter_variant(rng, x) for x in perm]
    payload: dict[str, Any] = {"ranking": ranking}
    if rng.random() < 0.7:
        payload["best_option"] = rng.choice(
            [perm[0]] * 4 + [rng.choice(LETTERS), perm[0].lower(), "E", None, f"Option {perm[0]}"]
        )
    if rng.random() < 0.3:
        payload["ranking_basis"] = {
            x: rng.choice(["BAD sodium", "ok", "good fiber", "avoid", "Best choice"]) for x in LETTERS
        }
    if rng.random() < 0.2:
        items = list(payload.items())
        rng.shuffle(items)
        payload = dict(items)
    alt = _serialize(rng, {"ranking": ["best", "second", "third", "worst"], "best_option": "A|B|C|D"})
    if rng.random() < 0.35:
        return _adversarial(rng, payload, alt)
    body = _serialize(rng, payload)
    text = _wrap(rng, body, alt)
    return _mutate(rng, text) if rng.random() < 0.3 else text


def decision_output(rng: random.Random, gold_labels: dict[str, str] | None = None) -> str:
    if rng.random() < 0.1:
        return rng.choice(T2_DECISION_PLAIN + [rng.choice(PROSE)])
    decisions: dict[str, Any] = {}
    for letter in LETTERS:
        if rng.random() < 0.04:
            continue
        key = letter.lower() if rng.random() < 0.08 else (f"Option {letter}" if rng.random() < 0.03 else letter)
        if gold_labels and gold_labels.get(letter) and rng.random() < 0.6:
            word: Any = gold_labels[letter].strip().lower()
        elif rng.random() < 0.75:
            word = rng.choice(["recommend", "not_recommend"])
        else:
            word = rng.choice(OPTION_DECISION_WORDS)
        item: Any = {"decision": word}
        if rng.random() < 0.8:
            item["risk_level"] = rng.choice(RISK_LEVELS)
        if rng.random() < 0.5:
            item["rationale_ingredients"] = [
                {"condition": "hypertension", "supporting_ingredients": ["oats"], "concerning_ingredients": ["salt"]}
            ]
        if rng.random() < 0.03:
            item = rng.choice([word, {}, None, [word]])
        decisions[key] = item
    payload: dict[str, Any] = {"option_decisions": decisions}
    if rng.random() < 0.04:
        payload = {"decisions": decisions}
    alt = _serialize(rng, {"option_decisions": {"A": {"decision": "recommend|not_recommend"}}})
    if rng.random() < 0.35:
        return _adversarial(rng, payload, alt)
    body = _serialize(rng, payload)
    text = _wrap(rng, body, alt)
    return _mutate(rng, text) if rng.random() < 0.25 else text


# =========================================================================== official Task 2 requests

PROVIDERS = ("openai", "gemini", "anthropic", "vllm")


def _replay_payload(provider: str, raw: str) -> dict:
    """A provider response holding ``raw`` as the model's text, as each provider's API returns it."""
    if provider == "gemini":
        return {"candidates": [{"content": {"parts": [{"text": raw}], "role": "model"}}], "responseId": "replay"}
    if provider == "anthropic":
        return {"id": "replay", "content": [{"type": "text", "text": raw}]}
    return {"id": "replay", "choices": [{"index": 0, "message": {"role": "assistant", "content": raw}}]}


class _Response:
    def __init__(self, payload: dict) -> None:
        self.body = json.dumps(payload).encode("utf-8")

    def read(self) -> bytes:
        return self.body

    def __enter__(self) -> _Response:
        return self

    def __exit__(self, *exc: object) -> None:
        return None


def official_request(off: types.SimpleNamespace, question: dict, task: str, raw: str, provider: str) -> dict:
    """``evaluate._call_model`` with the network replaced by a replay of ``raw``: the official provider path
    (payload building, HTTP or SDK call, text extraction) and parsing, exactly as an official run."""
    import urllib.request

    evaluate = off.evaluate
    if provider == "openai":

        def create(**_kw: Any) -> types.SimpleNamespace:
            return types.SimpleNamespace(output_text=raw, id="replay")

        client: dict[str, Any] = {
            "provider": "openai",
            "client": types.SimpleNamespace(responses=types.SimpleNamespace(create=create)),
        }
    else:
        client = {"provider": provider, "api_key": "replay", "base_url": "http://replay.invalid/v1"}
    saved = urllib.request.urlopen
    urllib.request.urlopen = lambda request, timeout=None: _Response(_replay_payload(provider, raw))  # type: ignore[assignment]
    try:
        return evaluate._call_model(
            client,
            model="replay",
            question=question,
            task=task,
            prompt_mode="baseline",
            include_recipe_ingredients=False,
            text_only=True,
            text_only_option_fields="title_ingredients",
            image_source="cached_first",
            max_retries=1,
            retry_sleep_seconds=0.0,
            request_timeout_seconds=1.0,
        )
    finally:
        urllib.request.urlopen = saved


def _official_reading(result: dict, task: str) -> dict:
    """What ``_call_model`` returned, in the shape of our ``official_task2`` reading."""
    payload = result["decision_payload"] or {}
    return {
        "ranking": list(result["predicted_ranking"]),
        "decisions": {k: v["decision"] for k, v in payload.items()} if payload else None,
        "letter": result["predicted_letter"],
        "request_error": bool(result["error"]),
    }


def _our_reading(raw: str, task: str) -> dict:
    ours = fb_parsing.official_task2(raw, "rank" if task == "rank" else "decision")
    return {k: ours[k] for k in ("ranking", "decisions", "letter", "request_error")}


# =========================================================================== 1. prompts


def _official_user_prompt(off: types.SimpleNamespace, row: dict, mode: str, input_mode: str, reference: dict) -> str:
    return off.run_task1._build_user_prompt(
        row,
        mode=mode,
        input_mode=input_mode,
        reference=reference,
        reference_mode="question_conditions",
        max_foods_per_list=20,
    )[0]


def check_prompts(
    rep: Report, off: types.SimpleNamespace, kb_path: Path | None, edge_kb_path: Path, rng: random.Random, n: int
) -> None:
    run_task1, run_q2_ki, evaluate = off.run_task1, off.run_q2_ki, off.evaluate
    for mode in MODES:
        for ours_in, off_in in T1_INPUTS.items():
            rep.check(
                "T1 system prompt",
                run_task1.system_prompt_for(mode, off_in),
                fb_prompts.task1_system_prompt(mode, ours_in),
                (mode, ours_in),
            )

    rows = [t1_row(rng, i, phrase) for i, phrase in enumerate(CONDITION_PHRASES)]
    rows += [t1_row(rng, len(rows) + i) for i in range(max(n // 2, 50))]
    for label, path in (("real KB", kb_path), ("edge-case KB", edge_kb_path)):
        if path is None:
            rep.skip(f"T1 user prompt ({label})", "knowledge base not found: pass --kb")
            continue
        reference = off.run_q2_ki._load_reference(path)
        ours_kb = fb_data._kb_conditions(json.loads(path.read_text(encoding="utf-8")), path)
        rep.check(f"T1 KB conditions ({label})", reference["conditions"], ours_kb, str(path))
        for row in rows:
            selected = run_q2_ki._select_reference_conditions(row, reference["conditions"], mode="question_conditions")
            rep.check(
                f"T1 reference conditions ({label})",
                selected,
                fb_prompts.select_reference_conditions(str(row.get("question") or ""), ours_kb),
                row.get("question"),
            )
            for mode in MODES:
                for ours_in, off_in in T1_INPUTS.items():
                    official = _call(_official_user_prompt, off, row, mode, off_in, reference)
                    ours = _call(fb_prompts.task1_user_payload, row, mode, ours_in, ours_kb)
                    rep.check(f"T1 user prompt ({label})", official, ours, {"row": row, "mode": mode, "input": ours_in})

    tmp = edge_kb_path.parent
    rules_dir = Path(evaluate.KI_DATA_DIR)
    real = (rules_dir / "condition_rules.json", rules_dir / "nutrition_guidelines.json")
    edge = (tmp / "edge_rules.json", tmp / "edge_guidelines.json")
    edge[0].write_text(json.dumps(EDGE_RULES, ensure_ascii=False), encoding="utf-8")
    edge[1].write_text(json.dumps(EDGE_GUIDELINES, ensure_ascii=False), encoding="utf-8")
    real_rules = json.loads(real[0].read_text(encoding="utf-8"))
    values = [c.get("value") for c in real_rules["conditions"] if isinstance(c, dict)]
    alias_keys = list(real_rules.get("alias_map") or {})
    edge_values = [
        "type 2 diabetes",
        "t2d",
        "High Blood Pressure",
        "hypertension",
        "Crohn’s disease",
        "gerd",
        "",
        "crohns disease",
    ]
    saved = (evaluate.DISEASE_RULES_PATH, evaluate.NUTRITION_GUIDELINES_PATH)
    try:
        for label, (rules_path, guidelines_path), pool in (
            ("real rules", real, (values, alias_keys)),
            ("edge-case rules", edge, (edge_values, values[:5])),
        ):
            evaluate.DISEASE_RULES_PATH, evaluate.NUTRITION_GUIDELINES_PATH = rules_path, guidelines_path
            evaluate._KI_CONTEXT_CACHE = None
            ours_rules = fb_prompts.task2_rule_index(
                json.loads(rules_path.read_text(encoding="utf-8")),
                json.loads(guidelines_path.read_text(encoding="utf-8")),
            )
            count = max(n // 2, 60) if label == "real rules" else max(n // 8, 30)
            for number in range(count):
                q = t2_question(rng, number, *pool)
                for kind, task in T2_KINDS.items():
                    for mode in MODES:
                        for ours_in, kwargs in T2_INPUTS.items():
                            official = _call(
                                evaluate._build_prompt,
                                q,
                                task,
                                mode,
                                kwargs["include_recipe_ingredients"],
                                text_only=kwargs["text_only"],
                                text_only_option_fields="title_ingredients",
                            )
                            ours = _call(fb_prompts.task2_prompt, q, kind, mode, ours_in, ours_rules)
                            rep.check(
                                f"T2 prompt ({label})",
                                official,
                                ours,
                                {"question": q, "kind": kind, "mode": mode, "input": ours_in},
                            )
    finally:
        evaluate.DISEASE_RULES_PATH, evaluate.NUTRITION_GUIDELINES_PATH = saved
        evaluate._KI_CONTEXT_CACHE = None


# =========================================================================== 2. parsers


def _official_t1(off: types.SimpleNamespace, raw: str) -> Any:
    result = _call(off.run_task1._parse_output, raw)
    if isinstance(result, tuple) and result and result[0] == "<raised>":
        return result
    decision, rationale, _steps, strict = result
    return {"decision": decision, "rationale": rationale, "strict_json": strict}


def _official_decisions(off: types.SimpleNamespace, raw: str) -> Any:
    result = _call(off.evaluate._parse_decision_payload, raw)
    if isinstance(result, tuple):
        return result
    if not result:
        return None
    if set(result) != set(LETTERS):  # our parser promises exactly the four letters
        return ("<official keys>", sorted(result))
    return {k: v["decision"] for k, v in result.items()}


def _harvested(off: types.SimpleNamespace, raw: str) -> bool:
    """Whether the official JSON reader found no valid ranking (so a ranking came from harvested letters)."""
    try:
        payload = off.evaluate._extract_json_object(off.evaluate._clean_text(raw))
    except Exception:  # noqa: BLE001
        return True
    ranking = payload.get("ranking")
    return not (
        isinstance(ranking, list) and sorted(off.evaluate._clean_text(x).upper() for x in ranking) == list(LETTERS)
    )


def check_parsers(rep: Report, off: types.SimpleNamespace, rng: random.Random, n: int) -> None:
    t1 = T1_TRICKY + runaway() + [t1_output(rng) for _ in range(n)]
    t1 += [_mutate(rng, rng.choice(T1_PLAIN)) for _ in range(n // 4)]
    stats: dict[str, dict[str, int]] = {"task1": {}, "ranking": {}, "decisions": {}}

    def tally(kind: str, outcome: str) -> None:
        stats[kind][outcome] = stats[kind].get(outcome, 0) + 1

    for raw in t1:
        official = _official_t1(off, raw)
        rep.check("parse_task1_official", official, _call(fb_parsing.parse_task1_official, raw), raw)
        tally(
            "task1",
            "raised"
            if isinstance(official, tuple)
            else "strict JSON"
            if official["strict_json"]
            else "loose decision"
            if official["decision"]
            else "no decision",
        )
    # Task 2: every output through the official _call_model of each provider (network replayed), compared
    # with our official reading (ranking, decisions, answer letter, failed request).
    real_rules = json.loads((Path(off.evaluate.KI_DATA_DIR) / "condition_rules.json").read_text(encoding="utf-8"))
    values = [c.get("value") for c in real_rules["conditions"] if isinstance(c, dict)]
    question = t2_question(rng, 1, values, [])
    ranks = T2_RANK_TRICKY + runaway() + [rank_output(rng) for _ in range(n)]
    ranks += [_mutate(rng, rng.choice(T2_RANK_PLAIN)) for _ in range(n // 4)]
    decisions = T2_DECISION_TRICKY + runaway() + [decision_output(rng) for _ in range(n)]
    decisions += [_mutate(rng, rng.choice(T2_DECISION_PLAIN)) for _ in range(n // 4)]
    for task, outputs, kind in (("rank", ranks, "ranking"), ("decision_rationale", decisions, "decisions")):
        for raw in outputs:
            ours = _our_reading(raw, task)
            readings = []
            for provider in PROVIDERS:
                official = _official_reading(official_request(off, question, task, raw, provider), task)
                readings.append(official)
                rep.check(f"official {task} request [{provider}]", official, ours, raw)
            official = readings[0]
            tally(
                kind,
                "request error"
                if official["request_error"]
                else (
                    "JSON ranking"
                    if official["ranking"] and not _harvested(off, raw)
                    else "letters harvested"
                    if official["ranking"]
                    else "letter only"
                    if official["letter"]
                    else "empty"
                )
                if task == "rank"
                else ("four decisions" if official["decisions"] else "letter only" if official["letter"] else "empty"),
            )
    for kind, counts in stats.items():
        print(
            f"official {kind} parser outcomes on the corpus: "
            + ", ".join(f"{k} {v}" for k, v in sorted(counts.items()))
        )


def check_robust(rep: Report, rng: random.Random, n: int) -> None:
    """The robust parsers on the same widened outputs still behave as documented (not an official
    comparison): a ranking is a permutation of A-D or None, option decisions are recommend /
    not_recommend / None, nothing raises, and JSON whose strings hold literal whitespace or control
    characters reads exactly as the same JSON properly escaped."""
    domain = {"recommend", "not_recommend", None}
    for _ in range(n):
        raw = rank_output(rng)
        ranking = _call(fb_parsing.parse_ranking, raw)
        rep.check(
            "robust ranking: permutation or None",
            True,
            ranking is None or (isinstance(ranking, list) and sorted(ranking) == list(LETTERS)),
            raw,
        )
        raw = decision_output(rng)
        decisions = _call(fb_parsing.parse_decisions, raw)
        rep.check(
            "robust decisions: recommend / not_recommend / None",
            True,
            isinstance(decisions, dict) and set(decisions) == set(LETTERS) and set(decisions.values()) <= domain,
            raw,
        )
        t1 = _call(fb_parsing.parse_task1, t1_output(rng))
        rep.check(
            "robust task1: decision recommend / not recommend / None",
            True,
            isinstance(t1, dict) and t1["decision"] in (fb_parsing.REC, fb_parsing.NOT_REC, None),
            t1,
        )
        perm = rng.sample(LETTERS, 4)
        payload = {"reasoning": rng.choice(WS_TEXTS), "ranking": perm, "best_option": perm[0]}
        escaped = json.dumps(payload, indent=rng.choice([None, 2]))
        literal = _literal_ws(rng, escaped)
        rep.check(
            "robust ranking: literal whitespace in JSON strings reads as escaped",
            fb_parsing.parse_ranking(escaped),
            fb_parsing.parse_ranking(literal),
            literal,
        )
        labels = {
            x: {"decision": rng.choice(["recommend", "not_recommend"]), "note": rng.choice(WS_TEXTS)} for x in LETTERS
        }
        escaped = json.dumps({"option_decisions": labels, "analysis": rng.choice(WS_TEXTS)})
        literal = _literal_ws(rng, escaped)
        rep.check(
            "robust decisions: literal whitespace in JSON strings reads as escaped",
            fb_parsing.parse_decisions(escaped),
            fb_parsing.parse_decisions(literal),
            literal,
        )


# =========================================================================== 3. scoring


def check_scoring(rep: Report, off: types.SimpleNamespace, rng: random.Random, n: int) -> None:
    run_q2, evaluate = off.run_q2, off.evaluate
    words = DECISION_WORDS + ["Recommend", " RECOMMENDED ", "not\trecommend", "not\u00a0recommend", "NO", "avoid."]
    for word in words + [rng.choice(words) for _ in range(n // 4)]:
        rep.check(
            "decision_official",
            _call(run_q2._normalize_decision, word),
            _call(fb_parsing.decision_official, word),
            word,
        )
    for _ in range(n):
        raw_pred, raw_gold = random_rationale(rng), random_rationale(rng)
        off_pred, ours_pred = run_q2._normalize_rationale_entries(raw_pred), _call(fb_parsing.norm_rationale, raw_pred)
        rep.check("norm_rationale", off_pred, ours_pred, raw_pred)
        off_gold = run_q2._normalize_rationale_entries(raw_gold)
        if rng.random() < 0.3:  # overlapping prediction: copy part of the gold
            raw_pred = [e for e in (raw_gold if isinstance(raw_gold, list) else []) if rng.random() < 0.7] + (
                raw_pred if isinstance(raw_pred, list) else []
            )
            off_pred = run_q2._normalize_rationale_entries(raw_pred)
        official = {
            k: v
            for k, v in run_q2._score_rationale(off_pred, off_gold).items()
            if k in ("tp", "fp", "fn", "precision", "recall", "f1")
        }
        rep.check(
            "rationale_counts",
            official,
            _call(fb_scoring.rationale_counts, off_pred, off_gold),
            {"pred": off_pred, "gold": off_gold},
        )
    perms = [list(p) for p in itertools.permutations(LETTERS)]
    oddities = [[], list("ABC"), list("AABC"), list("abcd"), list("ABCDA")]
    for pred in perms + oddities:
        for gold in perms + oddities[:3]:
            if sorted(pred) != list(LETTERS) or sorted(gold) != list(LETTERS):
                continue  # fb_scoring.t2_kendall only scores permutations of A-D (metrics.kendall_tau is generic)
            official = evaluate._kendall_tau(pred, gold)
            ours = _call(metrics.kendall_tau, pred, gold)
            rep.check(
                "kendall_tau (official rounds to 6)",
                official,
                round(ours, 6) if isinstance(ours, float) else ours,
                (pred, gold),
            )
    # two-decimal percentages: official round((n / d) * 100, 2); ours round(pct(n, d), 2) in t2_* (official=True).
    # Every n for d <= 1000, and the denominators of the full Task 2 set (1000 questions, 4000 options).
    for d in list(range(1, 1001)) + [1500, 2000, 2500, 3000] + list(range(3990, 4001)):
        for k in range(d + 1):
            rep.check(
                "percent rounding (pct -> 2 decimals)",
                evaluate._format_percentage(k, d),
                round(fb_scoring.pct(k, d), 2),
                f"{k}/{d}",
            )


class DataDir:
    """A ``$FOOD_TASKS_DATA_DIR`` mirror (official repository layout) with synthetic dataset files and the real
    knowledge files, so that our real loaders (``load_task1``/``load_task2``, validation included) read them.
    A fresh directory per use: the loaders cache files by path and modification time."""

    def __init__(
        self, tmp: Path, kb_path: Path, rules_dir: Path, *, task1: list | None = None, task2: list | None = None
    ) -> None:
        self.root = Path(tempfile.mkdtemp(prefix="mirror_", dir=tmp))
        repo = fb_data.repo_and_commit()[0] if hasattr(fb_data, "repo_and_commit") else fb_data.REPO
        base = self.root.joinpath("github", *repo.split("/"))
        files: dict[str, str] = {
            fb_data.KB_FILE: kb_path.read_text(encoding="utf-8"),
            fb_data.RULES_FILE: (rules_dir / "condition_rules.json").read_text(encoding="utf-8"),
            fb_data.GUIDELINES_FILE: (rules_dir / "nutrition_guidelines.json").read_text(encoding="utf-8"),
        }
        if task1 is not None:
            files[fb_data.TASK1_FILE] = json.dumps(task1, ensure_ascii=False)
        if task2 is not None:
            files[fb_data.TASK2_FILE] = json.dumps({"metadata": {}, "questions": task2}, ensure_ascii=False)
        for rel, text in files.items():
            path = base / rel
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(text, encoding="utf-8")

    def __enter__(self) -> Path:
        self.saved = {k: os.environ.get(k) for k in ("FOOD_TASKS_DATA_DIR",)}
        os.environ["FOOD_TASKS_DATA_DIR"] = str(self.root)
        return self.root

    def __exit__(self, *exc: object) -> None:
        for key, value in self.saved.items():
            if value is None:
                os.environ.pop(key, None)
            else:
                os.environ[key] = value


def check_task1_aggregation(
    rep: Report, off: types.SimpleNamespace, kb_path: Path, rng: random.Random, count: int, tmp: Path
) -> None:
    run_q2, run_task1 = off.run_q2, off.run_task1
    rows = []
    for index in range(1, count + 1):
        row = t1_row(rng, index)
        if not isinstance(row.get("title"), str) or not row["title"]:
            row["title"] = f"dish {index}"
        if not isinstance(row.get("question"), str) or not row["question"]:
            row["question"] = t1_question(rng)
        gold_rationale = random_rationale(rng, messy=rng.random() < 0.2)
        if not isinstance(gold_rationale, list):
            gold_rationale = []
        decision = rng.choice(
            [
                "recommend",
                "not recommend",
                "Not Recommended",
                "Recommend",
                "avoid",
                "suitable",
                "not_recommend",
                "Not recommend.",
                " NOT  RECOMMEND ",
            ]
        )
        row["standard answer"] = {"decision": decision, "rationale_ingredients": gold_rationale}
        rows.append(row)
    reference = off.run_q2_ki._load_reference(kb_path)
    docs_by = {}
    with DataDir(tmp, kb_path, Path(off.evaluate.KI_DATA_DIR), task1=rows):  # our loader and documents
        for mode in MODES:
            for ours_in in T1_INPUTS:
                docs_by[(mode, ours_in)] = fb_data.task1_docs(mode, ours_in)
    for (mode, ours_in), docs in docs_by.items():  # the documents carry the official prompts too
        for doc, row in zip(docs, rows):
            official = (
                run_task1.system_prompt_for(mode, T1_INPUTS[ours_in]),
                _official_user_prompt(off, row, mode, T1_INPUTS[ours_in], reference),
            )
            rep.check(
                "T1 task1_docs system/user",
                official,
                (doc["system"], doc["user"]),
                {"row": row, "mode": mode, "input": ours_in},
            )
    docs = docs_by[("baseline", "textonly")]
    outputs = [t1_output(rng, row["standard answer"]) for row in rows]
    records = [fb_scoring.score_task1(doc, out) for doc, out in zip(docs, outputs)]

    # official: run_task1._process_row's per-row work + run_task1.main's sums (no image errors here)
    sums = {"correct": 0, "strict": 0, "empty": 0, "p": 0.0, "r": 0.0, "f1": 0.0, "tp": 0, "fp": 0, "fn": 0}
    for row, raw in zip(rows, outputs):
        gold = row["standard answer"]
        gold_decision = run_q2._normalize_decision(gold.get("decision", ""))
        gold_rationale = run_q2._normalize_rationale_entries(gold.get("rationale_ingredients", []))
        decision, rationale, _steps, strict = run_task1._parse_output(raw)
        metrics = run_q2._score_rationale(rationale, gold_rationale)
        sums["correct"] += bool(decision and gold_decision and decision == gold_decision)
        sums["strict"] += bool(strict)
        sums["empty"] += not rationale
        for key, field in (("p", "precision"), ("r", "recall"), ("f1", "f1"), ("tp", "tp"), ("fp", "fp"), ("fn", "fn")):
            sums[key] += metrics[field]
    total = len(rows)
    safe = run_q2._safe_div
    micro_p, micro_r = safe(sums["tp"], sums["tp"] + sums["fp"]), safe(sums["tp"], sums["tp"] + sums["fn"])
    micro_f1 = safe(2 * micro_p * micro_r, micro_p + micro_r) if (micro_p + micro_r) else 0.0
    official = {
        "decision_accuracy x100 vs t1_acc": (
            safe(sums["correct"], total) * 100,
            fb_scoring.t1_acc(records, official=True),
        ),
        "strict_json_parse_success_rate vs t1_rate(strict_json)": (
            safe(sums["strict"], total),
            fb_scoring.t1_rate(records, "strict_json"),
        ),
        "empty_rationale_rate vs t1_rate(empty_rationale_official)": (
            safe(sums["empty"], total),
            fb_scoring.t1_rate(records, "empty_rationale_official"),
        ),
        "rationale_macro_precision vs t1_macro(precision)": (
            safe(sums["p"], total),
            fb_scoring.t1_macro(records, "precision", official=True),
        ),
        "rationale_macro_recall vs t1_macro(recall)": (
            safe(sums["r"], total),
            fb_scoring.t1_macro(records, "recall", official=True),
        ),
        "rationale_macro_f1 vs t1_macro": (safe(sums["f1"], total), fb_scoring.t1_macro(records, official=True)),
        "rationale_micro_precision vs t1_micro(0)": (micro_p, fb_scoring.t1_micro(records, 0, official=True)),
        "rationale_micro_recall vs t1_micro(1)": (micro_r, fb_scoring.t1_micro(records, 1, official=True)),
        "rationale_micro_f1 vs t1_micro(2)": (micro_f1, fb_scoring.t1_micro(records, 2, official=True)),
    }
    for name, (value, ours) in official.items():
        rep.check(
            "T1 aggregate", value, ours, f"{name} over {total} rows", equal=close(), note="floats within 1e-12 relative"
        )
    print(
        f"Task 1 aggregate ({total} rows): "
        + ", ".join(f"{k.split(' vs ')[0]}={v[0]:.6g}" for k, v in official.items())
    )


def _qid(off: types.SimpleNamespace, question: dict) -> str:
    return off.evaluate._clean_text(question["question_id"]).upper()


def official_t2_summary(
    off: types.SimpleNamespace, questions: list[dict], outputs: dict, task: str, provider: str, tmp: Path
) -> tuple[dict, list[dict]]:
    """``evaluate._call_model`` (network replayed for ``provider``), ``_build_result_row`` per question and
    ``_summarize_rows``, as ``evaluate.evaluate`` does."""
    evaluate = off.evaluate
    rows = []
    for index, q in enumerate(questions, start=1):
        raw = outputs[(_qid(off, q), "rank" if task == "rank" else "decision")]
        result = official_request(off, q, task, raw, provider)
        row, _debug = evaluate._build_result_row(
            index=index, question=q, model="parity", provider=provider, task=task, prompt_mode="baseline", result=result
        )
        rows.append(row)
    out = Path(tempfile.mkdtemp(prefix=f"t2_{task}_{provider}_", dir=tmp))
    summary = evaluate._summarize_rows(
        rows=rows,
        questions=questions,
        benchmark_path=tmp / "task2_comparative_analysis.json",
        metadata={},
        model="parity",
        provider=provider,
        task=task,
        prompt_mode="baseline",
        include_recipe_ingredients=False,
        csv_output_path=out / "eval.csv",
        jsonl_output_path=out / "eval.jsonl",
        summary_output_path=out / "summary.json",
        debug_output_path=out / "debug.jsonl",
        debug_rows=[],
        concurrency=1,
        resume=False,
        text_only=True,
        text_only_option_fields="title_ingredients",
        image_source="cached_first",
    )
    return summary, rows


def our_t2_records(off: types.SimpleNamespace, questions: list[dict], outputs: dict, tmp: Path) -> tuple:
    """Our documents (``task2_docs`` over a mirror holding these questions; text-only: no image lookups)
    and their records."""
    rules_dir = Path(off.evaluate.KI_DATA_DIR)
    with DataDir(tmp, rules_dir / "condition_rules.json", rules_dir, task2=questions):  # the KB is not read here
        docs = fb_data.task2_docs(("rank", "decision"), ("baseline",), "textonly")
    records = [
        fb_scoring.score_task2(doc, outputs[(doc["question_id"], doc["kind"])])
        for doc in docs
        if doc["mode"] == "baseline" and (doc["question_id"], doc["kind"]) in outputs
    ]
    return docs, records


def compare_t2_summaries(
    rep: Report,
    off: types.SimpleNamespace,
    questions: list[dict],
    outputs: dict,
    records: list[dict],
    tmp: Path,
    where: str,
    prefix: str = "T2",
    providers: tuple = PROVIDERS,
) -> dict:
    """Every ``_official`` number of our rank and decision tasks against the official summary of the same
    outputs, for each official provider path."""
    rank_rows = fb_scoring.evaluated(records, "rank")
    for provider in providers:
        summary = official_t2_summary(off, questions, outputs, "rank", provider, tmp)[0]
        ranking, accuracy = summary["ranking"], summary["accuracy"]
        label = f"{prefix} rank [{provider}]"
        rep.check(
            f"{label}: top1_accuracy_pct",
            ranking["top1_accuracy_pct"],
            fb_scoring.t2_topk(records, 1, official=True),
            where,
        )
        rep.check(
            f"{label}: mean_reciprocal_rank",
            ranking["mean_reciprocal_rank"],
            fb_scoring.t2_mrr_official(records),
            where,
        )
        rep.check(
            f"{label}: answer_rate_pct",
            accuracy["answer_rate_pct"],
            fb_scoring.t2_answer_rate_official(records, "rank"),
            where,
        )
        rep.check(
            f"{label}: valid_rankings (parsed rows)",
            ranking["valid_rankings"],
            sum(bool(r["parsed_official"]) for r in rank_rows),
            where,
        )
        rep.check(
            f"{label}: request_error rows",
            summary["parse_status_counts"].get("request_error", 0),
            sum(bool(r["request_error_official"]) for r in rank_rows),
            where,
        )
        summary = official_t2_summary(off, questions, outputs, "decision_rationale", provider, tmp)[0]
        dec, accuracy = summary["decision_rationale"], summary["accuracy"]
        label = f"{prefix} decision [{provider}]"
        rep.check(
            f"{label}: option_decision_accuracy_pct",
            dec["option_decision_accuracy_pct"],
            fb_scoring.t2_option_acc(records, official=True),
            where,
        )
        rep.check(
            f"{label}: all_options_exact_match_pct",
            dec["all_options_exact_match_pct"],
            fb_scoring.t2_exact_match(records, official=True),
            where,
        )
        rep.check(
            f"{label}: false_recommend_rate_pct",
            dec["false_recommend_rate_pct"],
            fb_scoring.t2_false_recommend(records, official=True),
            where,
        )
        rep.check(
            f"{label}: answer_rate_pct",
            accuracy["answer_rate_pct"],
            fb_scoring.t2_answer_rate_official(records, "decision"),
            where,
        )
    return {"ranking": ranking, "decision": dec, "accuracy": accuracy}


def check_task2_aggregation(rep: Report, off: types.SimpleNamespace, rng: random.Random, count: int, tmp: Path) -> None:
    evaluate = off.evaluate
    real_rules = json.loads((Path(evaluate.KI_DATA_DIR) / "condition_rules.json").read_text(encoding="utf-8"))
    values = [c.get("value") for c in real_rules["conditions"] if isinstance(c, dict)]
    questions = [t2_question(rng, number, values, []) for number in range(1, count + 1)]
    outputs = {}
    for q in questions:
        outputs[(_qid(off, q), "rank")] = rank_output(rng, evaluate._clean_text(q["answer"]["letter"]).upper())
        outputs[(_qid(off, q), "decision")] = decision_output(rng, q["gold"].get("decision_labels"))
    _docs, records = our_t2_records(off, questions, outputs, tmp)
    evaluate._KI_CONTEXT_CACHE = None
    by_id = {_qid(off, q): q for q in questions}
    rules_dir = Path(evaluate.KI_DATA_DIR)
    with DataDir(tmp, rules_dir / "condition_rules.json", rules_dir, task2=questions):
        for ours_in, kwargs in T2_INPUTS.items():  # the documents carry the official prompts too
            for doc in fb_data.task2_docs(("rank", "decision"), MODES, ours_in):
                q = by_id[doc["question_id"]]
                official = evaluate._build_prompt(
                    q, T2_KINDS[doc["kind"]], doc["mode"], **kwargs, text_only_option_fields="title_ingredients"
                )
                rep.check(
                    "T2 task2_docs prompt",
                    official,
                    doc["prompt"],
                    {"question": q, "kind": doc["kind"], "mode": doc["mode"], "input": ours_in},
                )

    # per row: does the official count the row in the MRR / valid_rankings denominator ("parsed")?
    _summary, rows = official_t2_summary(off, questions, outputs, "rank", "openai", tmp)
    ours_rank = {r["question_id"]: r for r in records if r["kind"] == "rank"}
    for row in rows:
        rec = ours_rank[row["question_id"]]
        rep.check(
            "T2 rank row in MRR denominator (parsed)",
            row["parse_status"] == "parsed",
            rec["parsed_official"],
            {
                "raw_output": outputs[(row["question_id"], "rank")],
                "official predicted_letter": row["predicted_letter"],
                "official predicted_ranking": row["predicted_ranking"],
            },
        )

    for size in sorted({count, 160, 97, 40, 7}):
        if size > count:
            continue
        subset = questions[:size]
        ids = {_qid(off, q) for q in subset}
        result = compare_t2_summaries(
            rep,
            off,
            subset,
            outputs,
            [r for r in records if r["question_id"] in ids],
            tmp,
            f"first {size} synthetic questions",
        )
        if size == count:
            ranking, dec = result["ranking"], result["decision"]
            print(
                f"Task 2 aggregate ({size} questions, official): top1={ranking['top1_accuracy_pct']} "
                f"MRR={ranking['mean_reciprocal_rank']} valid_rankings={ranking['valid_rankings']} "
                f"option_acc={dec['option_decision_accuracy_pct']} exact={dec['all_options_exact_match_pct']}"
            )


def check_rounding_ties(rep: Report, off: types.SimpleNamespace, rng: random.Random, tmp: Path) -> None:
    """End to end at two-decimal ties: k hits out of d where (k / d) * 100 and 100 * k / d round apart."""
    evaluate = off.evaluate

    def tie(d: int, low: float = 0.0) -> int | None:
        return next(
            (k for k in range(int(low * d), d + 1) if evaluate._format_percentage(k, d) != round(100.0 * k / d, 2)),
            None,
        )

    flip = {"recommend": "not_recommend", "not_recommend": "recommend"}
    d_rank = next((d for d in range(1, 401) if tie(d) is not None), None)
    for d, k_opt in ((d_rank, None), (4000, tie(4000, 0.5))):  # top-1 tie; option tie at 1000 questions x 4
        if d is None:
            continue
        n_questions = d if k_opt is None else d // 4
        k = tie(d) if k_opt is None else k_opt
        questions = [t2_question(rng, number, ["hypertension"], []) for number in range(1, n_questions + 1)]
        outputs = {}
        for i, q in enumerate(questions):
            gold = evaluate._clean_text(q["answer"]["letter"]).upper()
            others = [x for x in LETTERS if x != gold]
            right = k_opt is not None or i < k
            outputs[(_qid(off, q), "rank")] = json.dumps({"ranking": [gold] + others if right else others + [gold]})
            labels = q["gold"]["decision_labels"] = {x: rng.choice(["recommend", "not_recommend"]) for x in LETTERS}
            pred = {
                x: {"decision": labels[x] if k_opt is None or 4 * i + j < k else flip[labels[x]]}
                for j, x in enumerate(LETTERS)
            }
            outputs[(_qid(off, q), "decision")] = json.dumps({"option_decisions": pred})
        _docs, records = our_t2_records(off, questions, outputs, tmp)
        what = f"{k} of {d} questions ranked right" if k_opt is None else f"{k} of {d} options decided right"
        compare_t2_summaries(
            rep,
            off,
            questions,
            outputs,
            records,
            tmp,
            f"{what} (tie at {k}/{d})",
            prefix=f"T2 tie {k}/{d}",
            providers=("openai",),
        )


# =========================================================================== main


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__.split("\n\n")[0], formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--official", required=True, type=Path, help="copy of the official repository (v1.0)")
    parser.add_argument(
        "--kb",
        type=Path,
        default=None,
        help="disease_food_kb.json (default: <official>/knowledge_base/disease_food_kb.json)",
    )
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--n", type=int, default=400, help="random model outputs per parser (and scale of the rest)")
    parser.add_argument("--examples", type=int, default=1, help="differing examples printed per failing check")
    args = parser.parse_args(argv)

    root = args.official.resolve()
    kb_path: Path | None = (args.kb or root / "knowledge_base" / "disease_food_kb.json").resolve()
    if args.kb is not None and not kb_path.is_file():  # type: ignore[union-attr]
        print(f"error: --kb {kb_path} not found", file=sys.stderr)
        return 2
    if not kb_path.is_file():  # type: ignore[union-attr]
        print(f"warning: {kb_path} not found: real-KB checks are skipped (pass --kb)", file=sys.stderr)
        kb_path = None
    try:
        off, stubbed = load_official(root)
    except Exception as exc:  # noqa: BLE001 - reported, exit status 2
        print(f"error: cannot import the official modules from {root}: {type(exc).__name__}: {exc}", file=sys.stderr)
        return 2
    print(f"official code: {root}" + (f" (stubbed modules: {', '.join(stubbed)})" if stubbed else ""))
    print(f"knowledge base: {kb_path}; seed {args.seed}; n {args.n}")

    rep = Report(max(1, args.examples))
    rng = random.Random(args.seed)
    with tempfile.TemporaryDirectory(prefix="parity_fambench_") as tmp_name:
        tmp = Path(tmp_name)
        edge_kb_path = tmp / "edge_kb.json"
        edge_kb_path.write_text(json.dumps(EDGE_KB, ensure_ascii=False), encoding="utf-8")
        check_prompts(rep, off, kb_path, edge_kb_path, rng, args.n)
        check_parsers(rep, off, rng, args.n)
        check_robust(rep, rng, args.n)
        check_scoring(rep, off, rng, args.n)
        check_task1_aggregation(rep, off, kb_path or edge_kb_path, rng, max(args.n // 2, 50), tmp)
        check_task2_aggregation(rep, off, rng, max(args.n // 2, 50), tmp)
        check_rounding_ties(rep, off, rng, tmp)
    rep.print_table()
    if rep.failed:
        rep.print_failures()
        print(
            f"\nFAIL: {sum(r[1] for r in rep.rows.values())} mismatches in "
            f"{sum(1 for r in rep.rows.values() if r[1])} checks"
        )
        return 1
    total = sum(r[0] for r in rep.rows.values())
    if rep.skipped:
        print(f"\nINCOMPLETE: {total} comparisons, no mismatch, {len(rep.skipped)} checks skipped")
        return 2
    print(f"\nOK: {total} comparisons, no mismatch")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
