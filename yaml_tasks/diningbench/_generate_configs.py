"""Generate the DiningBench task, template and group YAML files of this directory.

Usage: ``python yaml_tasks/diningbench/_generate_configs.py [OUTPUT_DIR]`` (default: this directory).
Deterministic and offline; tests/core/test_registration.py reruns it and diffs the output against the
committed files. Metrics come from ``food_tasks.utils.diningbench.TABLES`` (one declaration each).
"""

from __future__ import annotations

from food_tasks.tasks import taskgen
from food_tasks.utils import diningbench as hooks

HOOKS = "food_tasks.utils.diningbench"
KINDS = {"cls": "classification", "nutrition": "nutrition estimation", "vqa": "VQA"}
LANGS = {"zh": "Chinese", "en": "English"}
VIEW_LABELS = {"": "1 view", "_v2": "2 views", "_v3": "3 views", "_v4": "4 views"}  # 1 view: the reference photo
# Display aliases (at most 40 characters: taskgen.ALIAS_WIDTH): kind and language as in the task names.
ALIAS_KINDS = {"cls": "cls", "nutrition": "nutrition", "vqa": "VQA"}
# Official generation budget: max_tokens = 16384 - 2048 (thinking models are evaluated too), temperature 0.
BUDGET = 14336


def template_yaml(kind: str) -> str:
    """The ``_diningbench_<kind>_yaml`` template: hooks, generation budget and the kind's metric list."""
    return taskgen.template(
        about=[
            f"Template of the DiningBench {KINDS[kind]} tasks (no .yaml extension: never registered itself).",
            "`dataset_path: json` reads a one-line stub; `process_docs` replaces it with the documents built from the",
            "published JSONL file (row order kept) of hf.co/datasets/meituan/DiningBench or the "
            "$FOOD_TASKS_DATA_DIR mirror.",
        ],
        hooks=HOOKS,
        visual="doc_to_visual",
        text_hook="doc_to_text",
        messages="doc_to_messages",
        target="gold_json",
        budget=BUDGET,
        reasoning_note=[
            "Raw output reaches process_results: _official metrics apply the official model-name clean-up;",
            "the robust parsers strip reasoning themselves.",
        ],
        process_results=f"process_results_{kind}",
        table=hooks.TABLES[kind],
    )


def variants() -> list[tuple[str, str, str, bool]]:
    """``(task name, kind, lang, cot)`` for every task."""
    out = []
    for lang in LANGS:
        for kind in KINDS:
            suffixes = list(VIEW_LABELS) if kind != "vqa" else [""]
            out += [(f"diningbench_{kind}_{lang}{s}", kind, lang, False) for s in suffixes]
            out.append((f"diningbench_{kind}_{lang}_cot", kind, lang, True))
    return out


def task_alias(name: str, kind: str, lang: str, cot: bool) -> str:
    """The task's display name (at most 40 characters: taskgen.ALIAS_WIDTH): kind, language, views and CoT."""
    # VQA shows every image; CoT (not an official setting) uses the reference photo.
    detail = "CoT" if cot else "" if kind == "vqa" else VIEW_LABELS[name.removeprefix(f"diningbench_{kind}_{lang}")]
    return f"DiningBench {ALIAS_KINDS[kind]} ({', '.join(x for x in (lang.upper(), detail) if x)})"


def task_yaml(name: str, kind: str, lang: str, cot: bool) -> str:
    """One task's YAML: the kind's template plus its name, alias and ``process_docs`` hook."""
    suffix = name.removeprefix(f"diningbench_{kind}_{lang}")
    return taskgen.task(
        include=f"_diningbench_{kind}_yaml",
        name=name,
        alias=task_alias(name, kind, lang, cot),
        docs=f"{HOOKS}.docs_{kind}_{lang}{suffix}",
    )


# Packaged sample tasks (run by `food-tasks demo`, but the VQA one, which needs a judge): short budget for the tiny
# model.
SAMPLES = {
    "diningbench_cls_sample": ("cls", "docs_sample_cls", "DiningBench cls (sample)"),
    "diningbench_nutrition_sample": ("nutrition", "docs_sample_nutrition", "DiningBench nutrition (sample)"),
    "diningbench_vqa_sample": ("vqa", "docs_sample_vqa", "DiningBench VQA (sample, judged)"),
}

# Each sample -> the full-data task it samples (diningbench.docs_sample_*: classification in English and nutrition
# in Chinese on two views, VQA in English): the report finds the sample's column by it.
SAMPLE_OF = {
    "diningbench_cls_sample": "diningbench_cls_en_v2",
    "diningbench_nutrition_sample": "diningbench_nutrition_zh_v2",
    "diningbench_vqa_sample": "diningbench_vqa_en",
}


def sample_yaml(name: str) -> str:
    """A packaged sample task's YAML (48-token budget for the tiny model)."""
    kind, docs, alias = SAMPLES[name]
    return taskgen.task(
        include=f"_diningbench_{kind}_yaml",
        name=name,
        alias=alias,
        docs=f"{HOOKS}.{docs}",
        extra=taskgen.generation_kwargs(48),
    )


def group_yaml(lang: str) -> str:
    """The per-language group (``diningbench_<lang>``): its kinds' tasks, no aggregate."""
    # No aggregate: the paper reports each task's metrics separately (no combined score exists).
    return taskgen.group(
        f"diningbench_{lang}",
        f"DiningBench ({LANGS[lang]}; paper Table {2 if lang == 'zh' else 4})",
        [f"diningbench_{k}_{lang}" for k in KINDS],
    )


def render() -> dict[str, str]:
    """Return ``{file name: content}`` for every generated file."""
    files = {"_stub.jsonl": taskgen.stub_line("food_tasks.benchmarks.diningbench.data")}
    for kind in KINDS:
        files[f"_diningbench_{kind}_yaml"] = template_yaml(kind)
    for name, kind, lang, cot in variants():
        files[f"{name}.yaml"] = task_yaml(name, kind, lang, cot)
    for name in SAMPLES:
        files[f"{name}.yaml"] = sample_yaml(name)
    for lang in LANGS:
        files[f"_diningbench_{lang}.yaml"] = group_yaml(lang)
    files |= circular_files(files)
    files |= noimage_files()
    files |= taskgen.sampled(files, SAMPLE_OF)
    return files


# ---------------------------------------------------------------- image-free twins (food_tasks.tasks.noimage)
# Classification and VQA (one view, the paper's setting; every view count sends the same text) and the packaged
# classification sample: <twin>_noimage, grouped in diningbench_noimage. Nutrition estimation has none (issue 28).
NOIMAGE = ("diningbench_cls_zh", "diningbench_cls_en", "diningbench_vqa_zh", "diningbench_vqa_en")
NOIMAGE_SAMPLES = ("diningbench_cls_sample",)


def noimage_files() -> dict[str, str]:
    """The image-free twins of :data:`NOIMAGE` and :data:`NOIMAGE_SAMPLES`, and their group."""
    twins = {name: (kind, lang, cot) for name, kind, lang, cot in variants()}
    files = {}
    for twin in NOIMAGE:
        kind = twins[twin][0]
        files[f"{twin}_noimage.yaml"] = taskgen.noimage_task(
            task_yaml(twin, *twins[twin]),
            f"{twin}_noimage",
            alias=f"{task_alias(twin, *twins[twin])}, no image",
            version=hooks.TABLES[kind].version,
        )
    for twin in NOIMAGE_SAMPLES:
        kind, _, alias = SAMPLES[twin]
        files[f"{twin}_noimage.yaml"] = taskgen.noimage_task(
            sample_yaml(twin), f"{twin}_noimage", alias=f"{alias}, no image", version=hooks.TABLES[kind].version
        )
    files["_diningbench_noimage.yaml"] = taskgen.group(
        "diningbench_noimage", "DiningBench cls and VQA, no image", [f"{twin}_noimage" for twin in NOIMAGE]
    )
    return files


# ------------------------------------------------------------------ _circular classification (options rotated)
CIRCULAR = {  # rotated task -> (its base task, alias)
    "diningbench_cls_zh_circular": ("diningbench_cls_zh", "DiningBench cls (ZH, 1 view, circular)"),
    "diningbench_cls_en_circular": ("diningbench_cls_en", "DiningBench cls (EN, 1 view, circular)"),
    "diningbench_cls_sample_circular": ("diningbench_cls_sample", "DiningBench cls (sample, circular)"),
}


def circular_files(files: dict[str, str]) -> dict[str, str]:
    """Classification tasks asked once per rotation of their options (food_tasks.hooks.rotation), from their base
    tasks' files."""
    return {
        f"{name}.yaml": taskgen.circular_task(files[f"{base}.yaml"], name, alias=alias, table=hooks.CIRCULAR.table)
        for name, (base, alias) in CIRCULAR.items()
    }


if __name__ == "__main__":
    taskgen.main(render, __file__)
