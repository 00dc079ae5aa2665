"""DiningBench answer parsing: the official rules (reproduced exactly, in linear time) and robust parsers.

Official behaviour is that of ``eval_classification.py``, ``eval_nutrition.py`` and ``eval_vqa.py`` of
meituan/DiningBench at commit 9c9bdf7 (``clean_thinking_by_model``, ``evaluate_predictions`` of each script,
``eval_vqa.py::parse_eval_result``). The robust parsers are our design, described under "Parsers" in
``yaml_tasks/diningbench/README.md``. The official regular expressions
(``.*?</think>``, ``\\{.*\\}``, the fenced-JSON pattern, ``\\boxed\\{([^}]*)\\}``) backtrack
quadratically on adversarial output; each is re-implemented here with the same result in one pass.

Every function accepts untrusted model output of any length; anything that is not a string is an
unparseable answer, never an exception.
"""

from __future__ import annotations

import bisect
import json
import math
import re
import unicodedata
from collections.abc import Mapping, Sequence
from typing import Any

from food_tasks.hooks import parsing as shared
from food_tasks.hooks.jsonparse import json_objects
from food_tasks.hooks.outputs import safe_str
from food_tasks.hooks.parsing import extract_choice, last_match, normalize_chars, strip_reasoning

CACHES = ("_TAG_CACHE",)  # what food_tasks.reset() clears in this module

# --------------------------------------------------------------------------- official reasoning clean-up

INFER_ERROR = "__INFER_ERROR__"
EVAL_ERROR = "__EVAL_ERROR__"
# Model-name branches of the official ``clean_thinking_by_model`` (exact strings, as passed to --model_name).
KEYE_MODELS = ("keye-vl-1.5-8b",)
THINK_BLOCK_MODELS = ("mimo-vl-7b-rl-2508", "minicpm-v-4.5")
QWEN_THINKING_MODELS = ("qwen-3-vl-30b-a3b-thinking", "qwen-3-vl-4b-thinking", "qwen-3-vl-8b-thinking")
OFFICIAL_MODEL_NAMES = KEYE_MODELS + THINK_BLOCK_MODELS + QWEN_THINKING_MODELS

_I = re.IGNORECASE
_TAG_CACHE: dict[str, re.Pattern[str]] = {}


def _literal(text: str) -> re.Pattern[str]:
    """A case-insensitive literal pattern (same case folding as the official ``re.IGNORECASE``)."""
    if text not in _TAG_CACHE:
        _TAG_CACHE[text] = re.compile(re.escape(text), _I)
    return _TAG_CACHE[text]


def _remove_pairs(text: str, open_tag: str, close_tag: str) -> str:
    """``re.sub(open + '.*?' + close, '', text, flags=DOTALL|IGNORECASE)`` in O(n log n).

    The regex removes, left to right, each opening tag together with everything up to the first
    closing tag after it; an opening tag without a later closing tag is kept."""
    opens = [m.start() for m in _literal(open_tag).finditer(text)]
    if not opens:
        return text
    closes = [(m.start(), m.end()) for m in _literal(close_tag).finditer(text)]
    close_starts = [c[0] for c in closes]
    pieces, cursor = [], 0
    for start in opens:
        if start < cursor:
            continue
        k = bisect.bisect_left(close_starts, start + len(open_tag))
        if k == len(closes):
            break
        pieces.append(text[cursor:start])
        cursor = closes[k][1]
    pieces.append(text[cursor:])
    return "".join(pieces)


def _remove_through_last(text: str, tag: str) -> str:
    """``re.sub('.*?' + tag, '', text, flags=DOTALL|IGNORECASE)``: everything up to the last ``tag`` goes."""
    match = last_match(_literal(tag), text)
    return text if match is None else text[match.end() :]


def official_boxed(text: str) -> str | None:
    """Content of the first ``\\boxed{...}`` up to the first ``}`` (``\\\\boxed\\{([^}]*)\\}``), or None."""
    start = text.find("\\boxed{")
    if start == -1:
        return None
    end = text.find("}", start + 7)
    return None if end == -1 else text[start + 7 : end]


def clean_official(full_pred: object, model_name: str = "") -> str:
    """The official ``clean_thinking_by_model``: model-name-dependent reasoning removal, then the first
    ``\\boxed{}`` (no brace balancing). Non-strings become ``str(value)`` as officially."""
    if not isinstance(full_pred, str):
        try:
            full_pred = str(full_pred)
        except Exception:  # noqa: BLE001 - the official code swallows any error here
            return ""
    text = full_pred
    if model_name in KEYE_MODELS:
        text = _remove_pairs(text, "<analysis>", "</analysis>")
        open_match = _literal("<answer>").search(text)
        close_match = _literal("</answer>").search(text, open_match.end()) if open_match else None
        text = text[open_match.end() : close_match.start()].strip() if close_match else text.strip()
    elif model_name in THINK_BLOCK_MODELS:
        text = _remove_pairs(text, "<think>", "</think>\n\n")
        text = _remove_pairs(text, "<think>", "</think>")
        text = _remove_pairs(text, "<think>", "</think>")
        text = text.strip()
    elif model_name in QWEN_THINKING_MODELS:
        text = _remove_through_last(text, "</think>\n\n")
        text = _remove_through_last(text, "</think>")
        text = text.strip()
    boxed = official_boxed(text)
    if boxed is not None:
        text = boxed.strip()
    return text


def official_prediction(raw: object, model_name: str = "") -> str:
    """What the official scorers read as ``model_pred``: the cleaned text (errors kept verbatim), stripped."""
    text = raw if isinstance(raw, str) else ("" if raw is None else safe_str(raw))
    if INFER_ERROR in text:
        return text.strip()
    return clean_official(text, model_name).strip()


# --------------------------------------------------------------------------- robust reasoning clean-up

_BOXED_OPEN_RE = re.compile(r"\\boxed\s*\{")
_WRAPPER_RE = re.compile(r"^\\(?:text|mathrm|textbf|mathbf)\s*\{(.*)\}$", re.DOTALL)


def balanced_boxed(text: str) -> str | None:
    """Content of the last ``\\boxed{...}`` with balanced braces (``\\text{}``/``\\mathrm{}`` unwrapped)."""
    match = last_match(_BOXED_OPEN_RE, text)
    if match is None:
        return None
    depth, i = 1, match.end()
    while i < len(text):
        ch = text[i]
        if ch == "{":
            depth += 1
        elif ch == "}":
            depth -= 1
            if depth == 0:
                inner = text[match.end() : i].strip()
                for _ in range(3):
                    wrapped = _WRAPPER_RE.match(inner)
                    if wrapped is None:
                        break
                    inner = wrapped.group(1).strip()
                return inner
        i += 1
    return None


def clean_robust(raw: object, *, boxed: bool = True) -> str | None:
    """Reasoning removed for every model: ``<think>``/``<thinking>`` (core rule: unterminated means
    invalid), ``<analysis>`` blocks; the last ``<answer>…</answer>`` wins; then optionally the last
    brace-balanced ``\\boxed{}``. Returns None for invalid (non-string, unterminated reasoning)."""
    text = strip_reasoning(raw)
    if text is None:
        return None
    if "<" in text:
        text = _remove_pairs(text, "<analysis>", "</analysis>")
        if _literal("<analysis>").search(text):
            return None
        close = last_match(_literal("</answer>"), text)
        if close is not None:
            opening = last_match(_literal("<answer>"), text[: close.start()])
            if opening is not None:
                text = text[opening.end() : close.start()]
    if boxed and "\\boxed" in text:
        inner = balanced_boxed(text)
        if inner is not None:
            text = inner
    return text


def answer_segment(raw: object) -> object:
    """CoT tasks: the text after the last "Comprehensive Answer" marker (or 综合回答), else the output."""
    if not isinstance(raw, str):
        return raw
    match = last_match(_COT_MARKER_RE, raw)
    return raw[match.end() :].lstrip(" \t\r\n:：*-") if match is not None else raw


_COT_MARKER_RE = re.compile(r"comprehensive\s+answer|综合回答", re.IGNORECASE)

# --------------------------------------------------------------------------- classification

LETTERS = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
_OPTION_LINE_RE = re.compile(r"^[ \t]*([A-H])[.．、)][ \t]*(\S.*?)[ \t]*$", re.MULTILINE)


def option_spans(prompt: object) -> list[tuple[str, int, int]]:
    """``(letter, start, end)`` of each option text of a classification prompt (lines ``A. <dish>`` ...
    ``H. <dish>``, the first line per letter): what :func:`prompt_options` reads and the ``_circular`` tasks
    rotate (:func:`food_tasks.hooks.parsing.option_spans`)."""
    return shared.option_spans(prompt, _OPTION_LINE_RE)


def prompt_options(prompt: str) -> tuple[list[str], list[str]]:
    """Option letters and texts listed in a classification prompt (lines ``A. <dish>`` ... ``H. <dish>``)."""
    spans = option_spans(prompt)
    return [letter for letter, _, _ in spans], [prompt[start:end] for _, start, end in spans]


def letter_official(model_pred: str) -> str:
    """The official rule: upper-case, strip, first ``isalpha()`` character ("" when none or empty/error)."""
    if not model_pred or INFER_ERROR in model_pred:
        return ""
    for char in model_pred.upper().strip():
        if char.isalpha():
            return char
    return ""


def letter_robust(raw: object, letters: Sequence[str], options: Sequence[str] | None = None) -> str | None:
    """Robust option letter (README "Parsers"), None when unparseable or ambiguous."""
    text = clean_robust(raw, boxed=False)
    if text is None:
        return None
    labels = list(letters) or list("ABCDEFGH")
    index = extract_choice(text, labels, options=list(options) if options else None)
    return None if index is None else labels[index]


# --------------------------------------------------------------------------- nutrition

COMPONENTS = ("calories", "protein", "carbohydrates", "fat")
KEY_MAP = {
    "calories": "calories",
    "protein": "protein",
    "carbohydrates": "carbohydrates",
    "fat": "fat",
    "卡路里": "calories",
    "蛋白质": "protein",
    "碳水化合物": "carbohydrates",
    "脂肪": "fat",
}
# Robust key aliases (matched after NFKC, case-folding and removing spaces, "_" and "-").
ROBUST_KEYS = {
    **{k: v for k, v in KEY_MAP.items()},
    "calorie": "calories",
    "kcal": "calories",
    "energy": "calories",
    "热量": "calories",
    "能量": "calories",
    "卡路里kcal": "calories",
    "热量kcal": "calories",
    "proteins": "protein",
    "carbohydrate": "carbohydrates",
    "carbs": "carbohydrates",
    "carb": "carbohydrates",
    "碳水": "carbohydrates",
    "碳水化合物g": "carbohydrates",
    "fats": "fat",
    "totalfat": "fat",
    "蛋白质g": "protein",
    "脂肪g": "fat",
    "caloriekcal": "calories",
    "calorieskcal": "calories",
    "proteing": "protein",
    "carbohydratesg": "carbohydrates",
    "fatg": "fat",
}


def normalize_keys_official(values: Mapping[str, Any]) -> dict[str, Any]:
    """Official key normalisation: Chinese keys map to English ones; the first occurrence wins."""
    out: dict[str, Any] = {}
    for key, value in values.items():
        standard = KEY_MAP.get(key)
        if standard:
            if standard not in out:
                out[standard] = value
        else:
            out[key] = value
    return out


def _next_non_space(text: str) -> list[int]:
    """``nxt[i]`` = index of the first non-``isspace`` character at or after ``i`` (len(text) if none)."""
    nxt = [len(text)] * (len(text) + 1)
    for i in range(len(text) - 1, -1, -1):
        nxt[i] = i if not text[i].isspace() else nxt[i + 1]
    return nxt


def official_fenced_object(text: str) -> str | None:
    """Group 1 of ``re.search(r'```(?:json)?\\s*(\\{.*?\\})\\s*```', text, re.DOTALL)``, in linear time."""
    if "```" not in text:
        return None
    nxt = _next_non_space(text)
    closes = [i for i, ch in enumerate(text) if ch == "}" and text.startswith("```", nxt[i + 1])]
    pos = text.find("```")
    while pos != -1:
        q = pos + 3
        if text.startswith("json", q):
            q += 4
        o = nxt[q]
        if o < len(text) and text[o] == "{":
            k = bisect.bisect_right(closes, o)
            if k < len(closes):
                return text[o : closes[k] + 1]
        pos = text.find("```", pos + 1)
    return None


def _official_loads(text: str) -> tuple[bool, Any]:
    try:
        return True, json.loads(text)
    except Exception:  # noqa: BLE001 - json.loads raises ValueError, RecursionError, ...
        return False, None


def nutrition_official(model_pred: str) -> dict[str, float] | None:
    """The official nutrition reader (``eval_nutrition.py::evaluate_predictions`` and its
    ``normalize_nutrition_dict``): four floats, or None (a parse failure)."""
    ok, value = _official_loads(model_pred)
    if not ok:
        candidate = model_pred
        if "```" in candidate:
            fenced = official_fenced_object(candidate)
            if fenced is not None:
                candidate = fenced
            else:
                start, end = candidate.find("{"), candidate.rfind("}")
                if start != -1 and end > start:
                    candidate = candidate[start : end + 1]
        ok, value = _official_loads(candidate)
        if not ok:
            return None
    if not isinstance(value, dict):
        return None
    values = normalize_keys_official(value)
    out = {}
    for key in COMPONENTS:
        if key not in values:
            return None
        try:
            out[key] = float(values[key])
        except Exception:  # noqa: BLE001 - officially any error here is a parse failure
            return None
    return out


def gold_nutrition_official(ground_truth: Any) -> dict[str, float | None] | None:
    """Gold values as the official scorer reads them: per component a float, or None when the value is
    missing or not convertible (that component is skipped); None for the whole sample when the gold
    JSON cannot be read (``gt_missing``)."""
    try:
        if ground_truth:
            gold = json.loads(ground_truth) if isinstance(ground_truth, str) else ground_truth
        else:
            gold = {}
        gold = normalize_keys_official(gold)
    except Exception:  # noqa: BLE001
        return None
    out: dict[str, float | None] = {}
    for key in COMPONENTS:
        value = gold.get(key)
        try:
            out[key] = None if value is None else float(value)
        except (ValueError, TypeError):
            out[key] = None
    return out


# Robust: a number with optional thousands separators; a range "20-25", "20~25", "20到25".
_NUMBER = r"[-+]?(?:\d{1,3}(?:,\d{3})+|\d+)(?:\.\d+)?|[-+]?\.\d+"
_RANGE_RE = re.compile(rf"({_NUMBER})\s*(?:-|–|—|~|～|to|至|到)\s*({_NUMBER})")
_NUMBER_RE = re.compile(_NUMBER)


def _key(name: object) -> str:
    text = unicodedata.normalize("NFKC", str(name)).casefold()
    return "".join(ch for ch in text if ch.isalnum() or "\u4e00" <= ch <= "\u9fff")


def number_robust(value: Any) -> tuple[float | None, bool]:
    """A finite non-negative number from a JSON value: numbers as is, the first number (or the
    midpoint of a range) in strings such as ``"580 kcal"``, ``"约580"``, ``"20-25 g"``; booleans,
    negatives and non-finite values are rejected. Returns ``(value or None, was_a_range)``."""
    if isinstance(value, bool):
        return None, False
    if isinstance(value, (int, float)):
        try:
            number = float(value)
        except OverflowError:
            return None, False
        return (number if math.isfinite(number) and number >= 0 else None), False
    if not isinstance(value, str):
        return None, False
    text = normalize_chars(value[:200])
    ranged = _RANGE_RE.search(text)
    if ranged is not None and not ranged.group(2).startswith(("-", "+")):
        low, high = (float(g.replace(",", "")) for g in ranged.groups())
        number = (low + high) / 2
        return (number if math.isfinite(number) and 0 <= low <= high else None), True
    match = _NUMBER_RE.search(text)
    if match is None:
        return None, False
    number = float(match.group(0).replace(",", ""))
    return (number if math.isfinite(number) and number >= 0 else None), False


def nutrition_robust(raw: object) -> tuple[dict[str, float] | None, int]:
    """Robust nutrition reader (README "Parsers"): four finite non-negative numbers, or None; and the number of
    values that were ranges (midpoints used)."""
    text = clean_robust(raw, boxed=False)
    if text is None:
        return None, 0
    text = normalize_chars(text) if not text.isascii() else text
    for value in json_objects(text):
        mapped: dict[str, Any] = {}
        for key, item in value.items():
            standard = ROBUST_KEYS.get(_key(key))
            if standard and standard not in mapped:
                mapped[standard] = item
        if not all(k in mapped for k in COMPONENTS):
            continue
        out, ranges = {}, 0
        for key in COMPONENTS:
            number, ranged = number_robust(mapped[key])
            if number is None:
                return None, 0
            out[key], ranges = number, ranges + ranged
        return out, ranges
    return None, 0


# --------------------------------------------------------------------------- VQA

VQA_ENDING_ZH = "\n仅输出最终答案，不要包含任何解释、分析、前言或总结。"
VQA_ENDING_EN = "\nOutput only the final answer, without any explanation, analysis, preface, or summary."


def vqa_question(prompt: str) -> str:
    """The bare question sent to the judge: the prompt without its fixed ending (English tested first)."""
    if prompt.endswith(VQA_ENDING_EN):
        return prompt[: -len(VQA_ENDING_EN)].strip()
    if prompt.endswith(VQA_ENDING_ZH):
        return prompt[: -len(VQA_ENDING_ZH)].strip()
    return prompt.strip()


POSITIVE_OFFICIAL = ("yes", "true", "Yes", "correct", "match", "same", "是", "一致", "相同", "等价", "正确")
NEGATIVE_OFFICIAL = ("no", "false", "No", "incorrect", "different", "not match", "否", "不一致", "不同", "错误")


def verdict_official(text: object) -> bool:
    """Official ``parse_eval_result``: any negative substring wins, then any positive substring."""
    if not isinstance(text, str):
        return False
    text = text.strip().lower()
    if any(k in text for k in NEGATIVE_OFFICIAL):
        return False
    return any(k in text for k in POSITIVE_OFFICIAL)
