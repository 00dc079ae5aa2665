"""Writers of WorldCuisines' official layout (``worldcuisines/vqa`` JSONL + card, ``worldcuisines/food-kb``
parquet), for the test fixtures and the packaged sample data (the ``FOOD_TASKS_DATA_DIR`` layout)."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Mapping, Sequence
from pathlib import Path
from typing import NamedTuple

from food_tasks.benchmarks.worldcuisines.data import KB_REPO, VQA_REPO

WC_MCQ_INSTRUCTION = "Print only the answer with a single answer id (1,2,3,4,5)."
WC_OEQ_INSTRUCTION = "Print only the answer."


def wc_mcq_prompt(question: str, options: Sequence[str]) -> str:
    """Render an MCQ prompt the way the official generator does (worldcuisines/worldcuisines@d4d1c44
    ``generate_vqa/generate_prompts.py::generate_multiple_choices_sample``)."""
    answer_prompt = "".join(f"{i}. {opt}\n" for i, opt in enumerate(options, start=1))
    return f"{question}\n{answer_prompt}\n{WC_MCQ_INSTRUCTION}"


def wc_oeq_prompt(question: str) -> str:
    """Render an open-ended prompt: the question, a blank line, then the official instruction."""
    return f"{question}\n\n{WC_OEQ_INSTRUCTION}"


def wc_row(
    *,
    qa_id: str,
    lang: str,
    food_id: str,
    prompt_id: str,
    prompt_type: str,
    question: str,
    options: Sequence[str],
    answer_id: int,
    image_url: str,
    task: str,
) -> dict:
    """One record of ``hf_prompt/*.jsonl`` with the official field order."""
    return {
        "qa_id": qa_id,
        "lang": lang,
        "food_id": food_id,
        "prompt_id": prompt_id,
        "prompt_type": prompt_type,
        "multi_choice_prompt": wc_mcq_prompt(question, options),
        "open_ended_prompt": wc_oeq_prompt(question),
        "image_url": image_url,
        "answer": options[answer_id - 1],
        "multi_choice_answer": answer_id,
        "task": task,
        "lang_status": "full" if prompt_type == "2" else "mixed",
    }


class WcItem(NamedTuple):
    """One question of ``hf_prompt`` before it is put into each language (English question and options)."""

    qa_id: str
    food_id: str
    prompt_id: str
    prompt_type: str
    question: str
    options: Sequence[str]
    answer_id: int
    image_url: str
    task: str


def _as_is(item: WcItem, lang: str) -> tuple[str, Sequence[str]]:
    return item.question, item.options


def item_rows(
    items: Iterable[WcItem],
    langs: Sequence[str],
    localize: Callable[[WcItem, str], tuple[str, Sequence[str]]] = _as_is,
) -> list[dict]:
    """The ``hf_prompt`` records of each item in each language (item by item, languages in ``langs`` order): the
    question and options of a language are ``localize(item, lang)`` (default: the item's own, in every language).
    ``items`` may be a generator: each item is drawn before its languages are localised."""
    rows = []
    for item in items:
        for lang in langs:
            question, options = localize(item, lang)
            rows.append(wc_row(**{**item._asdict(), "lang": lang, "question": question, "options": options}))
    return rows


def wc_vqa_card(splits: Iterable[tuple[str, str]]) -> str:
    """A dataset card whose ``configs`` block maps (config, split) pairs to the hf_prompt folders."""
    folders = {"test_large": "large_eval", "test_small": "small_eval"}
    lines = ["---", "license: cc-by-sa-4.0", "configs:"]
    for config in sorted({c for c, _ in splits}):
        lines += [f"- config_name: {config}", "  data_files:"]
        for c, split in sorted(splits):
            if c == config:
                lines += [f"  - split: {split}", f"    path: hf_prompt/{folders[split]}_{config}/*.jsonl"]
    return "\n".join(lines + ["---", "# WorldCuisines VQA (local mirror)", ""])


KB_CARD = """---
license: cc-by-sa-4.0
configs:
- config_name: default
  data_files:
  - split: main
    path: data/main-*.parquet
---
# WorldCuisines food knowledge base (local mirror)
"""


def write_wc_vqa(root: Path, rows: Iterable[Mapping], *, with_card: bool = True) -> Path:
    """Write rows into ``<root>/worldcuisines/vqa/hf_prompt/<folder>/<lang>_<folder>.jsonl``.

    The folder comes from each row's ``task`` (``large_task1`` → ``large_eval_task1``).
    """
    repo = Path(root) / VQA_REPO
    files: dict[Path, list[str]] = {}
    splits: set[tuple[str, str]] = set()
    for row in rows:
        size, task = row["task"].split("_")
        folder = f"{size}_eval_{task}"
        splits.add((task, f"test_{size}"))
        path = repo / "hf_prompt" / folder / f"{row['lang']}_{folder}.jsonl"
        files.setdefault(path, []).append(json.dumps(dict(row), ensure_ascii=False))
    for path, lines in files.items():
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    if with_card:
        (repo / "README.md").write_text(wc_vqa_card(splits), encoding="utf-8")
    return repo


def write_wc_kb(root: Path, dishes: Sequence[Mapping]) -> Path:
    """Write the food-kb split ``main`` as parquet; each dish maps ``image_urls`` to encoded image bytes.

    Args:
        dishes: ``{"food_id": str, "name": str, "images": [(url, bytes), ...]}`` (up to 8 images each).
    """
    import datasets

    columns: dict[str, list] = {"food_id": [], "name": []}
    for i in range(1, 9):
        columns[f"image{i}"] = []
        columns[f"image{i}_url"] = []
    for dish in dishes:
        columns["food_id"].append(dish["food_id"])
        columns["name"].append(dish["name"])
        images = list(dish["images"])
        for i in range(1, 9):
            url, data = images[i - 1] if i <= len(images) else (None, None)
            columns[f"image{i}"].append({"bytes": data, "path": None} if data is not None else None)
            columns[f"image{i}_url"].append(url)
    features = datasets.Features(
        {"food_id": datasets.Value("string"), "name": datasets.Value("string")}
        | {f"image{i}": datasets.Image() for i in range(1, 9)}
        | {f"image{i}_url": datasets.Value("string") for i in range(1, 9)}
    )
    repo = Path(root) / KB_REPO
    (repo / "data").mkdir(parents=True, exist_ok=True)
    datasets.Dataset.from_dict(columns, features=features).to_parquet(
        str(repo / "data" / "main-00000-of-00001.parquet")
    )
    (repo / "README.md").write_text(KB_CARD, encoding="utf-8")
    return repo
