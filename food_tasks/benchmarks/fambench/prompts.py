"""FAM-Bench prompts: Task 1 system prompts and JSON payloads, Task 2 prompt text and KI context.

Prompts are benchmark parameters. The strings below are the official v1.0 prompts as published in the
benchmark's code (anonymous-research-artifact123/Food-as-medicine@abfaf02: ``code/task1/run_task1.py``
``system_prompt_for`` and ``_build_user_prompt`` with the prompts of ``run_q2.py`` and
``run_q2_with_references.py``; ``code/task2/evaluate.py`` ``_build_prompt`` and ``_rag_context_for_question``),
kept byte for byte, including their line breaks and the
way the official runners compose them (``rstrip()`` of the base prompt, then an addendum that starts with
one newline). ``tests/parity/parity_fambench.py`` compares every rendering with the official functions.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence
from typing import Any

from food_tasks.benchmarks.fambench.parsing import clean, norm_condition

MODES = ("baseline", "cot", "ki", "cot_ki")
# Our input names -> the official Task 1 ``--input-mode`` values.
INPUTS = {"textimage": "text_image", "textonly": "text", "imageonly": "image_only"}

BASELINE_SYSTEM = """\
You are evaluating whether a dish is suitable for a health-management question.

Task:
- Infer whether the dish should be recommended or not recommended for the asked condition(s).
- Explain your decision by listing condition-specific supporting ingredients.
- Use only information from the provided recipe/question context.

Return ONLY valid JSON in this exact shape:
{
  "decision": "recommend|not recommend",
  "rationale_ingredients": [
    {
      "condition": "<condition name>",
      "ingredients": ["<ingredient short name>", "..."]
    }
  ]
}

Rules:
- decision must be exactly "recommend" or "not recommend".
- rationale_ingredients can be empty only if no valid ingredient evidence is available.
- Keep condition names concise and closely aligned with the asked question.
- Ingredients must come from the provided recipe ingredient list.
"""

COT_SYSTEM = """\
You are evaluating whether a dish is suitable for a health-management question.

Think step by step before answering. Produce your reasoning as a JSON array
of short strings (one thought per step), then commit to a final decision.

Reasoning checklist:
1. Identify each health condition implied by the question.
2. For each condition, scan the recipe ingredients and nutrition for
   factors that clearly support or conflict with that condition.
3. Weigh supporting vs. conflicting evidence.
4. Decide "recommend" only when the overall evidence supports suitability;
   otherwise "not recommend".

Use only information from the provided recipe/question context.

Return ONLY valid JSON in this exact shape:
{
  "reasoning_steps": ["<step 1>", "<step 2>", "..."],
  "decision": "recommend|not recommend",
  "rationale_ingredients": [
    {
      "condition": "<condition name>",
      "ingredients": ["<ingredient short name>", "..."]
    }
  ]
}

Rules:
- reasoning_steps must contain 2-6 concise steps.
- decision must be exactly "recommend" or "not recommend".
- rationale_ingredients can be empty only if no valid ingredient evidence is available.
- Keep condition names concise and closely aligned with the asked question.

Hard formatting rules (the output is scored by exact string match):
- EACH condition must appear as its own entry in rationale_ingredients.
  Never merge multiple conditions into one "condition" string. Do NOT use
  "and", "&", "/", "+", or commas to join condition names.
  * BAD : {"condition": "type 2 diabetes & metabolic syndrome", "ingredients": [...]}
  * BAD : {"condition": "cardiovascular disease and hypertension", "ingredients": [...]}
  * GOOD: two separate entries, one per condition, even if their ingredient
          lists are identical.
- Each ingredient must be the bare food name as it would appear on a clean
  shopping list. Strip everything else from the recipe line:
  * quantities and units (e.g., "1 tbsp", "300 g", "1/3 cup", "1l", "16 Ounces")
  * preparation/state qualifiers (e.g., "fresh", "raw", "hot", "chopped",
    "minced", "grated", "ground", "frozen", "canned", "plain", "good",
    "dried", "cooked", "sliced")
  * brand and origin descriptors (e.g., "Atlantic", "Italian")
  * parentheticals and trailing notes (e.g., "(4 4-ounce filets)", ", chopped")
  Use lowercase, singular-form-as-listed, no leading/trailing punctuation.
  Examples taken from actual recipe lines:
    "16 Ounces Fresh Atlantic salmon (4 4-ounce filets)"  -> "salmon"
    "1/3 cup / 80 ml good, raw honey"                     -> "honey"
    "110g pack chorizo sausage, chopped"                  -> "chorizo sausage"
    "1l hot fish or chicken stock"                        -> "fish or chicken stock"
    "2 clove Garlic, raw (minced)"                        -> "garlic"
    "1/2 cup Nonfat Greek Yogurt"                         -> "nonfat greek yogurt"
- Only include ingredients that genuinely drive the (non-)recommendation for
  that specific condition. Do not list every recipe ingredient that is merely
  consistent with the condition.
"""

KI_ADDENDUM = """\

Additional reference rule:
- The user payload may include disease_food_reference from knowledge_base/disease_food_kb.json.
- Use that reference as background guidance about foods that may support or conflict with each condition.
- The final decision must still be based on the provided recipe/question context.
- Ingredients in rationale_ingredients must still come from the recipe ingredient list, not from the reference alone.
"""

VISION_TEXT_ADDENDUM = """\

ADDITIONAL INPUT — DISH IMAGE:
An image of the prepared dish is provided alongside the recipe payload.
Use it as supporting visual evidence (confirm visible ingredients, plate
composition, portion cues). The recipe ingredient list in the payload
remains AUTHORITATIVE for `rationale_ingredients` — do not add ingredients
that only appear in the image but are absent from the recipe text.
"""

VISION_ONLY_ADDENDUM = """\

INPUT MODALITY — IMAGE ONLY:
Only a photograph of the prepared dish and the health-condition question
are provided. No recipe text, no nutrition table, no ingredient list.
Identify ingredients visually from the image; `rationale_ingredients`
must come strictly from what you can confidently see in the photo.
If a key ingredient is unclear, omit it rather than guessing. Use the
same JSON contract and the same naming/formatting rules as before.
"""

REFERENCE_SOURCE = "knowledge_base/disease_food_kb.json"
REFERENCE_INSTRUCTIONS = (
    "Use this disease-food reference as background guidance only. "
    "Do not copy reference foods into rationale_ingredients unless they also appear in the recipe ingredients."
)
REFERENCE_LIST_LIMIT = 20  # official --max-foods-per-list default

# Extra question phrasings that select a knowledge-base condition (official v1.0 table).
REFERENCE_ALIASES: dict[str, tuple[str, ...]] = {
    "bone health osteoporosis": ("bone health", "bone health or osteoporosis", "osteoporosis"),
    "cardiovascular disease": ("cardiovascular health", "heart disease", "heart health"),
    "gastrointestinal health": ("gastrointestinal health concerns", "digestive health", "gut health"),
    "gluten_celiac_disease": ("celiac disease", "gluten celiac disease", "gluten sensitivity", "gluten sensitive"),
    "lactose_intolerance": ("lactose intolerance", "lactose intolerant"),
    "metabolic syndrome": ("metabolic health",),
    "milk_allergy": ("dairy allergy", "milk allergy"),
    "obesity weight management": (
        "obesity",
        "obesity or weight management",
        "obesity or weight-management",
        "obesity weight management",
        "weight management",
    ),
    "type 2 diabetes": ("diabetes", "type two diabetes"),
}
# Phrases that add several knowledge-base conditions at once (only those present in the KB).
COMPOSITE_ALIASES: dict[str, tuple[str, ...]] = {
    "celiac disease": ("gluten_celiac_disease", "gluten_intolerance"),
    "dairy allergy": ("milk_allergy", "lactose_intolerance"),
    "seafood allergy": ("fish_allergy", "shellfish_allergy"),
}


def task1_system_prompt(mode: str, input_name: str) -> str:
    """The Task 1 system prompt for a prompting mode and one of our input names (see ``INPUTS``)."""
    if mode not in MODES or input_name not in INPUTS:
        raise ValueError(f"unknown FAM-Bench Task 1 mode/input: {mode!r}/{input_name!r}")
    base = COT_SYSTEM if mode.startswith("cot") else BASELINE_SYSTEM
    if mode.endswith("ki"):
        base = base.rstrip() + KI_ADDENDUM
    if input_name == "textimage":
        return base.rstrip() + VISION_TEXT_ADDENDUM
    if input_name == "imageonly":
        return base.rstrip() + VISION_ONLY_ADDENDUM
    return base


def select_reference_conditions(question: str, kb_conditions: Mapping[str, Any]) -> list[str]:
    """Knowledge-base conditions whose name or alias occurs in the question (substring match), sorted.

    Conditions without a KB entry (IBS, NAFLD, GERD, heart failure, CKD, hyperlipidemia under the
    usual question wording) select nothing; the reference block is still sent, with no conditions.
    """
    text = norm_condition(question)
    selected = []
    for key in kb_conditions:
        name = norm_condition(key)
        aliases = {name} | {norm_condition(a) for a in REFERENCE_ALIASES.get(key, ())}
        if any(alias and alias in text for alias in aliases):
            selected.append(key)
    for phrase, keys in COMPOSITE_ALIASES.items():
        if norm_condition(phrase) in text:
            selected += [k for k in keys if k in kb_conditions and k not in selected]
    return sorted(selected)


def reference_block(question: str, kb_conditions: Mapping[str, Mapping[str, list]]) -> dict[str, Any]:
    """The ``disease_food_reference`` object of a ki/cot_ki payload (first 20 foods of each list)."""
    conditions = {
        key: {
            "recommend": list(kb_conditions[key].get("recommend") or [])[:REFERENCE_LIST_LIMIT],
            "not_recommend": list(kb_conditions[key].get("not_recommend") or [])[:REFERENCE_LIST_LIMIT],
        }
        for key in select_reference_conditions(question, kb_conditions)
    }
    return {"source": REFERENCE_SOURCE, "instructions": REFERENCE_INSTRUCTIONS, "conditions": conditions}


def task1_user_payload(row: Mapping[str, Any], mode: str, input_name: str, kb_conditions: Mapping | None) -> str:
    """The Task 1 user message: the official JSON payload (2-space indent, non-ASCII kept, fixed key order)."""
    payload: dict[str, Any] = {"title": row.get("title"), "question": row.get("question")}
    if input_name != "imageonly":  # image-only still sends the title (a text cue kept for parity)
        payload.update(
            ingredients=row.get("ingredients", []),
            nutrition=row.get("nutrition", {}),
            dietary_tags=row.get("dietary_tags", []),
            meal_type=row.get("meal_type", []),
            notes=row.get("notes"),
        )
    if mode.endswith("ki"):
        if kb_conditions is None:
            raise ValueError("ki/cot_ki prompts need the Task 1 knowledge base")
        payload["disease_food_reference"] = reference_block(str(row.get("question") or ""), kb_conditions)
    return json.dumps(payload, ensure_ascii=False, indent=2)


# --------------------------------------------------------------------------- Task 2

GRID_NOTE = "The single attached image is a 2x2 grid labeled Option A, Option B, Option C, and Option D."
COT_LINE = (
    "\nFor each option, explicitly check condition fit, avoid/limit concerns, ingredient match, "
    "and overall basis before finalizing. Keep this concise and structured in JSON.\n"
)
JSON_LINE = "\nReturn only valid JSON. Do not include markdown, prose, or code fences.\n"
BASIS_SCHEMA = ', "ranking_basis": {"A": "short basis", "B": "short basis", "C": "short basis", "D": "short basis"}'
EVIDENCE_SCHEMA = (
    ' Include "evidence_checks" inside each option object with keys '
    '"condition_fit", "avoid_limit_concern", "ingredient_match", and "overall_basis".'
)
DECISION_SCHEMA = (
    '{"option_decisions": {"A": {"decision": "recommend|not_recommend", "risk_level": "low|moderate|high", '
    '"rationale_ingredients": [{"condition": "condition name", "supporting_ingredients": ["ingredient"], '
    '"concerning_ingredients": ["ingredient"]}]}, "B": {"same fields": "..."}, "C": {"same fields": "..."}, '
    '"D": {"same fields": "..."}}}'
)
SILENT_LINE = (
    "\nBefore finalizing, silently check condition fit, avoid/limit foods, ingredient coverage, "
    "and obvious nutrition suitability. Do not output the checklist or explanation.\n"
)


def condition_key(value: Any) -> str:
    """Official Task 2 condition key: lower-case, no apostrophes, only ``[a-z0-9:+-]`` and single spaces."""
    text = str(value or "").strip().lower().replace("’", "").replace("'", "")
    text = re.sub(r"[()/|]+", " ", text)
    return " ".join(re.sub(r"[^a-z0-9:+\-\s]", " ", text).split())


def option_ingredients(option: Mapping[str, Any]) -> list[str]:
    """The first non-empty of ``full_ingredients`` / ``ingredients`` / ``key_ingredients``, cleaned."""
    source = option.get("full_ingredients") or option.get("ingredients") or option.get("key_ingredients") or []
    return [clean(item) for item in source if clean(item)]


def _options_block(options: Sequence[Mapping[str, Any]], text_only: bool) -> str:
    if text_only:
        lines = ["Text-only recipe options:"]
    else:
        lines = [
            "Recipe ingredient lists for the four options:",
            "Use these ingredient lists together with the images. "
            "Do not assume an ingredient is absent just because it is not visually obvious.",
        ]
    for option in options:
        letter, title = clean(option.get("letter")).upper(), clean(option.get("title"))
        ingredients = "; ".join(option_ingredients(option)) or "No ingredient list available."
        if text_only:
            lines.append(f"- Option {letter}: {title or 'Untitled recipe'}. Ingredients: {ingredients}")
        else:
            lines.append(f"- Option {letter}{f' ({title})' if title else ''}: {ingredients}")
    return "\n".join(lines)


def _compact(values: Sequence[Any], limit: int = 8) -> str:
    items = [clean(v) for v in values if clean(v)]
    if not items:
        return "none listed"
    more = f" (+{len(items) - limit} more)" if len(items) > limit else ""
    return ", ".join(items[:limit]) + more


def _guideline_text(row: Mapping[str, Any]) -> str:
    target_type, unit = clean(row.get("target_type")), clean(row.get("unit"))
    bound = row.get("max") if row.get("max") not in (None, "") else row.get("min")
    target = f"{target_type} {bound:g} {unit}".strip() if bound not in (None, "") else target_type
    population = clean(row.get("population"))
    parts = [clean(row.get("nutrient")), target, clean(row.get("basis")), f"({population})" if population else ""]
    return " ".join(p for p in parts if p)


def task2_ki_context(prompt: Mapping[str, Any], rules: Mapping[str, Any]) -> str:
    """The Task 2 knowledge-injection block from the rule artifacts (see :func:`task2_rule_index`)."""
    lines = [
        "Disease-nutrition rule context from the app's generated rule artifacts:",
        "Use these rules to judge health-condition fit. Do not ignore the images or ingredient prompt.",
    ]
    for key in (condition_key(c) for c in prompt.get("conditions") or []):
        if not key:
            continue
        target = rules["alias_map"].get(key, key)
        rule = rules["conditions"].get(target)
        if not rule:
            continue  # unknown conditions are skipped silently, as officially
        lines += [
            f"- {clean(rule.get('label') or target)}:",
            f"  Favor: {_compact(rule.get('beneficial_raw') or rule.get('beneficial') or [])}.",
            f"  Limit: {_compact(rule.get('limit_raw') or rule.get('limit') or [])}.",
            f"  Avoid: {_compact(rule.get('avoid_raw') or rule.get('avoid') or [])}.",
            f"  Helpful tags: {_compact(rule.get('dietary_tag_hints') or [])}.",
        ]
        keys = [target] + [condition_key(a) for a in rule.get("guideline_aliases") or []]
        rows = [row for k in keys for row in rules["guidelines"].get(k, [])][:6]
        if rows:
            lines.append(f"  Nutrient targets: {'; '.join(_guideline_text(r) for r in rows)}.")
    age = clean(prompt.get("age_group")).replace("-", "")
    general = [
        row
        for row in rules["guidelines"].get("general", [])
        if not age or age in clean(row.get("population_key")).replace("_", "")
    ][:4]
    if general:
        lines.append(f"- General age-context targets: {'; '.join(_guideline_text(r) for r in general)}.")
    return "\n".join(lines)


def task2_rule_index(condition_rules: Mapping[str, Any], guidelines: Mapping[str, Any]) -> dict[str, Any]:
    """Index ``condition_rules.json`` and ``nutrition_guidelines.json`` by official condition key."""
    conditions = {
        condition_key(item.get("value")): item
        for item in condition_rules.get("conditions") or []
        if isinstance(item, dict) and condition_key(item.get("value"))
    }
    alias_map = {
        condition_key(a): condition_key(t)
        for a, t in (condition_rules.get("alias_map") or {}).items()
        if condition_key(a) and condition_key(t)
    }
    by_key: dict[str, list] = {}
    for row in guidelines.get("rules") or []:
        if isinstance(row, dict):
            key = condition_key(row.get("condition_key") or row.get("condition"))
            if key:
                by_key.setdefault(key, []).append(row)
    return {"conditions": conditions, "alias_map": alias_map, "guidelines": by_key}


def task2_prompt(question: Mapping[str, Any], kind: str, mode: str, input_name: str, rules: Mapping | None) -> str:
    """The Task 2 user text for ``kind`` in {rank, decision, answer}.

    ``textimage`` = images plus the ingredient block (official ``--include-recipe-ingredients``),
    ``imageonly`` = images only, ``textonly`` = the text-only option block (title and ingredients).
    """
    if kind not in ("rank", "decision", "answer") or mode not in MODES or input_name not in INPUTS:
        raise ValueError(f"unknown FAM-Bench Task 2 variant: {kind!r}/{mode!r}/{input_name!r}")
    text_only = input_name == "textonly"
    prompt = question.get("prompt") or {}
    labels = ", ".join(clean(c) for c in prompt.get("condition_labels") or [] if clean(c)) or "None specified"
    have = ", ".join(clean(c) for c in prompt.get("available_ingredients") or [] if clean(c)) or "None specified"
    evidence = "recipe text options" if text_only else "recipe images"
    shown = "text options" if text_only else "images"
    text = (
        f"You are evaluating {evidence} for a food-as-medicine benchmark.\n"
        f"Judge only from the provided prompt, {evidence}, and any supplied reference rules.\n"
        "Prioritize clinical safety: avoiding clearly harmful foods is more important than selecting an appealing "
        "dish.\n"
        "When citing ingredients, cite only ingredients that are present in the provided prompt evidence.\n\n"
        f"Health condition(s): {labels}\n"
        f"Available ingredient(s): {have}\n\n"
        f"You will see four recipe {shown} labeled A, B, C, and D.\n"
    )
    options = [o for o in question.get("options") or [] if not o.get("is_abstention")]
    if input_name != "imageonly":
        text += f"\n{_options_block(options, text_only)}\n"
    if mode.endswith("ki"):
        if rules is None:
            raise ValueError("ki/cot_ki prompts need the Task 2 rule artifacts")
        text += f"\n\n{task2_ki_context(prompt, rules)}\n"
    cot = mode.startswith("cot")
    if kind == "rank":
        return (
            text
            + (
                f"Rank all four recipe {shown} from best to worst for the health condition(s) and available "
                "ingredients.\n\n"
            )
            + (COT_LINE if cot else "")
            + JSON_LINE
            + "Use this exact schema:\n"
            + '{"ranking": ["best", "second", "third", "worst"], "best_option": "A|B|C|D"'
            + (BASIS_SCHEMA if cot else "")
            + "}\nThe ranking array must contain each of A, B, C, and D exactly once."
        )
    if kind == "decision":
        return (
            text
            + "For each option, decide whether it should be recommended for the health condition(s).\n"
            + (COT_LINE if cot else "")
            + JSON_LINE
            + "Use this schema for each of A, B, C, and D:\n"
            + DECISION_SCHEMA
            + "\n"
            + (EVIDENCE_SCHEMA if cot else "")
            + "\nEach option must contain a decision, risk_level, and rationale_ingredients."
        )
    return (
        text
        + (
            f"Choose the one {'recipe option' if text_only else 'image'} that best fits the health condition(s) and "
            "available ingredients.\n\n"
        )
        + (SILENT_LINE if cot else "")
        + "Output requirement:\n- Return exactly one capital letter\n- Allowed outputs: A, B, C, D\n"
        + "- Do not output words, punctuation, or explanation"
    )
