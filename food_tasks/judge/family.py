"""Model families: is a judge from the evaluated model's own family?

LLM judges prefer answers from their own kind (self-preference; Zheng et al. 2023, "Judging LLM-as-a-Judge with
MT-Bench and Chatbot Arena", section 3.3). The results table, the report and ``food-tasks compare`` say so when a
judge's name and the evaluated model's name fall in the same family of :data:`FAMILIES`.

The rule, on names only: a name is lower-cased and stripped of everything up to its last ``/`` (an organisation
``Qwen/``, a provider ``openai/``, a local folder); it belongs to the first family in :data:`FAMILIES` one of whose
prefixes begins it, where the character after the prefix is not a letter (``phi-3`` and ``phi3`` are Phi,
``phind`` is not). A name no prefix begins has no family and matches nothing: a deployment alias (an Azure
deployment named ``prod-judge``) is unknown, never guessed. A fine-tune named after its own line (``llava-v1.6-
mistral-7b``) is in that line's family (LLaVA), not its base model's. Plain prefix checks: linear in the name.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

# family -> the name prefixes of its models (lower case), in the order checked
FAMILIES: dict[str, tuple[str, ...]] = {
    "OpenAI GPT / o-series": ("gpt", "chatgpt", "o1", "o3", "o4"),
    "Google Gemini / Gemma": ("gemini", "gemma", "paligemma"),
    "Qwen": ("qwen", "qwq", "qvq"),
    "Meta Llama": ("llama", "meta-llama"),
    "Mistral / Pixtral": ("mistral", "mixtral", "pixtral", "ministral", "codestral"),
    "Anthropic Claude": ("claude",),
    "DeepSeek": ("deepseek",),
    "InternVL / InternLM": ("internvl", "internlm", "mini-internvl"),
    "Microsoft Phi": ("phi",),
    "Molmo": ("molmo",),
    "LLaVA": ("llava",),
    "MiniCPM": ("minicpm",),
    "GLM": ("glm", "chatglm", "cogvlm"),
    "Yi": ("yi",),
}


def base_name(name: str) -> str:
    """``name`` lower-cased, without what precedes its last ``/`` and surrounding spaces."""
    return name.strip().rstrip("/").rpartition("/")[2].strip().lower()


def family_of(name: str) -> str | None:
    """The family of a model ``name`` (:data:`FAMILIES`), None when unknown (or not a string)."""
    if not isinstance(name, str):
        return None
    base = base_name(name)
    for family, prefixes in FAMILIES.items():
        for prefix in prefixes:
            if base.startswith(prefix) and not base[len(prefix) : len(prefix) + 1].isalpha():
                return family
    return None


def same_family(judge: str, model: str) -> str | None:
    """The family both ``judge`` and ``model`` belong to, None when they differ or either is unknown."""
    family = family_of(judge)
    return family if family is not None and family == family_of(model) else None


def judge_names(info: Any, depth: int = 3) -> list[str]:
    """The judge models a task's ``judge_info`` names (its ``model`` and every nested ``model``, e.g. per-judge
    usage), in order, each once; [] for anything else."""
    found: list[str] = []

    def walk(value: Any, left: int) -> None:
        if isinstance(value, Mapping):
            name = value.get("model")
            if isinstance(name, str) and name.strip() and name not in found:
                found.append(name)
            items: Iterable = value.values()
        elif isinstance(value, (list, tuple)):
            items = value
        else:
            return
        if left:
            for item in items:
                walk(item, left - 1)

    walk(info, depth)
    return found


def family_note(judges: Iterable[str], models: Iterable[str]) -> str | None:
    """The one line the results table, the report and ``food-tasks compare`` print when a judge shares a family with
    an evaluated model (:func:`same_family`), None when none does."""
    pairs = [(j, m, f) for j in judges for m in models if (f := same_family(j, m))]
    if not pairs:
        return None
    judged = ", ".join(dict.fromkeys(f"{j} judges {m} ({f})" for j, m, f in pairs))
    return f"Same-family judge: {judged}: self-preference, see docs/judge.md"


def judges_of(info: Any) -> list[str]:
    """The judges' names a task's ``judge_info`` lists (:meth:`food_tasks.judge.verdicts.Judged.info`), headline
    first; a ``judge_info`` of one judge without the list (its ``model`` alone) is that judge."""
    if not isinstance(info, Mapping):
        return []
    judges = info.get("judges")
    if isinstance(judges, Sequence) and not isinstance(judges, str):
        return [str(j) for j in judges if isinstance(j, str) and j]
    return [info["model"]] if isinstance(info.get("model"), str) and info["model"] else []


def family_matches(judged: Iterable[tuple[Any, str, Sequence[str]]]) -> list[tuple[Any, str, str]]:
    """``(who, judge, family)`` for each judge from the evaluated model's own family (:func:`same_family`), each
    once per ``who`` (``judged``: ``(who, model, judges)`` per judged task; ``who`` has a ``label``)."""
    found: dict[tuple[str, str], tuple[Any, str, str]] = {}
    for who, model, judges in judged:
        for judge in judges:
            family = same_family(judge, model)
            if family is not None:
                found.setdefault((who.label, judge), (who, judge, family))
    return list(found.values())


def own_family_note(matches: Sequence[tuple[Any, str, str]], label: Any = lambda who: who.label) -> str | None:
    """The line the report and ``food-tasks compare`` print naming each judge of the evaluated model's own family
    (``matches``: :func:`family_matches`; None: no such judge)."""
    if not matches:
        return None
    pairs = "; ".join(f"`{judge}` judges {label(who)} ({family})" for who, judge, family in matches)
    return (
        f"A judge from the evaluated model's own family: {pairs}. LLM judges tend to prefer answers of their own kind "
        "(self-preference, Zheng et al. 2023): prefer a judge from another family, or add one (docs/judge.md)."
    )
