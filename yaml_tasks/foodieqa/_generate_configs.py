"""Generate the FoodieQA task and group YAML files of this directory.

Usage: ``python yaml_tasks/foodieqa/_generate_configs.py [OUTPUT_DIR]`` (default: this directory).
Deterministic, offline; tests/core/test_registration.py reruns it and diffs against the committed files.
Metrics come from ``food_tasks.utils.foodieqa.TABLES`` (one declaration each).
"""

from __future__ import annotations

from food_tasks.tasks import noimage, taskgen
from food_tasks.utils import foodieqa as hooks

HOOKS = "food_tasks.utils.foodieqa"
TEMPLATES = (0, 1, 2, 3)
TASK_NAMES = {"mivqa": "Multi-image VQA", "sivqa": "Single-image VQA", "textqa": "Text QA"}
LANG_NAMES = {"zh": "ZH", "en": "EN"}
# (task, lang, variant) -> group alias (default: task and language); the first five form the `foodieqa` group.
GROUPS = {
    ("mivqa", "zh", ""): "",
    ("mivqa", "en", ""): "",
    ("sivqa", "zh", ""): "",
    ("sivqa", "en", ""): "",
    ("textqa", "zh", ""): "",
    ("sivqa", "zh", "dishname"): "ablation: image + dish name",
    ("sivqa", "zh", "dishname_noimage"): "ablation: dish name, no image",
}
SAMPLES = (("mivqa", "zh", 1), ("sivqa", "en", 3), ("textqa", "zh", 2))
# Group reduction over the four templates. lmms-eval matches these names by substring and the last
# matching entry wins, so `acc_paper_protocol` (mean) precedes `acc_paper_protocol_best` (max).
GROUP_METRICS = [
    ("acc_mean", "mean"),
    ("acc_best", "max"),
    *((f"acc_p{k}", "mean") for k in TEMPLATES),
    ("acc_paper_protocol", "mean"),
    ("acc_paper_protocol_best", "max"),
    ("invalid_rate", "mean"),
    ("paper_fallback_rate", "mean"),
    ("parse_fail_rate", "mean"),
    ("image_missing", "max"),
]


def template_yaml() -> str:
    """The ``_foodieqa_yaml`` template: hooks, 500-token budget, image token and inline prefill."""
    return taskgen.template(
        about=[
            "Template of the FoodieQA tasks (no .yaml extension: never registered itself).",
            "`dataset_path: json` reads a one-line stub; `process_docs` replaces it with the documents of the",
            "gated lyan62/FoodieQA zip (downloaded and extracted once, or a $FOOD_TASKS_DATA_DIR mirror).",
        ],
        hooks=HOOKS,
        visual="doc_to_visual",
        text_hook="doc_to_text",
        messages="doc_to_messages",
        target="answer",
        budget=500,
        budget_note=["Official VQA scripts: greedy, 500 new tokens. Raise max_new_tokens for reasoning models."],
        reasoning_note=[
            "Raw outputs reach our hooks: acc_paper_protocol parses them as the official code (reasoning",
            "included); the robust parser strips reasoning itself (an unterminated block is invalid).",
        ],
        process_results="process_results",
        table=hooks.TABLES["p0"],
        with_metrics=False,
        extra=[
            "lmms_eval_specific_kwargs:",
            "  default:",
            "    # doc_to_text (simple models) marks mivqa image positions with this token.",
            '    image_token: "<image>"',
        ],
        metadata=[
            "# Official assistant prefills are appended to the user turn after a newline (see README).",
            "prefill_mode: inline",
        ],
    )


def stem(task: str, lang: str, variant: str) -> str:
    """``<task>_<lang>[_<variant>]``: the setting part of task, group and hook names."""
    return "_".join(x for x in (task, lang, variant) if x)


def task_yaml(task: str, lang: str, variant: str, k: int, alias: str = "", extra: tuple[str, ...] = ()) -> str:
    """The task of one setting and template ``k`` (its metric list adds ``acc_p<k>``)."""
    # Each template's task adds acc_p<k> to the common metrics, so the metric list is per task.
    name = f"foodieqa_{stem(task, lang, variant)}_p{k}"
    return taskgen.task(
        include="_foodieqa_yaml",
        name=name,
        alias=alias or f"p{k}",
        docs=f"{HOOKS}.docs_{stem(task, lang, variant)}_p{k}",
        extra=[*taskgen.metric_list(hooks.TABLES[f"p{k}"]), *extra],
    )


def group_yaml(task: str, lang: str, variant: str, suffix: str) -> str:
    """The group of one setting over its four templates (mean, best and per-template accuracy)."""
    base = f"foodieqa_{stem(task, lang, variant)}"
    return taskgen.group(
        base,
        f"FoodieQA {suffix or f'{TASK_NAMES[task]} ({LANG_NAMES[lang]})'}",
        [f"{base}_p{k}" for k in TEMPLATES],
        metrics=GROUP_METRICS,
        version=hooks.TABLES["p0"].version,
        image_twin=noimage.image_twin(base),
    )


def top_group_yaml() -> str:
    """The ``foodieqa`` group: every setting's group except the packaged sample's."""
    return taskgen.group(
        "foodieqa", "FoodieQA (acc_best = paper protocol)", [f"foodieqa_{stem(*key)}" for key in GROUPS if not key[2]]
    )


def sample_yamls() -> dict[str, str]:
    """The packaged sample tasks (32-token budget for the tiny model) and their group."""
    files = {}
    names = []
    for task, lang, k in SAMPLES:
        name = f"foodieqa_{task}_{lang}_sample_p{k}"
        names.append(name)
        # `food-tasks demo` runs a tiny random model that never stops early: keep its answers short.
        files[f"{name}.yaml"] = task_yaml(
            task,
            lang,
            "sample",
            k,
            alias=f"{TASK_NAMES[task]} ({LANG_NAMES[lang]}) p{k}",
            extra=tuple(taskgen.generation_kwargs(32)),
        )
    files["_foodieqa_sample.yaml"] = taskgen.group(
        "foodieqa_sample", "FoodieQA (sample)", names, metrics=[("acc_mean", "mean")]
    )
    return files


def render() -> dict[str, str]:
    """Return ``{file name: content}`` for every generated file."""
    files: dict[str, str] = {
        "_foodieqa.yaml": top_group_yaml(),
        "_foodieqa_yaml": template_yaml(),
        "_stub.jsonl": taskgen.stub_line("food_tasks.benchmarks.foodieqa.data.task_docs"),
    }
    for (task, lang, variant), suffix in GROUPS.items():
        files[f"_foodieqa_{stem(task, lang, variant)}.yaml"] = group_yaml(task, lang, variant, suffix)
        for k in TEMPLATES:
            # The paper's no-image ablation is told from its image task by its alias too, as the twins are.
            alias = f"p{k}, no image" if variant.endswith("noimage") else ""
            files[f"foodieqa_{stem(task, lang, variant)}_p{k}.yaml"] = task_yaml(
                task, lang, variant, k, alias=alias, extra=ablation_link(variant, k)
            )
    files |= sample_yamls()
    files |= circular_files()
    files |= noimage_files()
    files |= taskgen.sampled(
        files, {f"foodieqa_{t}_{lang}_sample_p{k}": f"foodieqa_{t}_{lang}_p{k}" for t, lang, k in SAMPLES}
    )
    return dict(sorted(files.items()))


# ---------------------------------------------------------------- image-free twins (food_tasks.tasks.noimage)
# The VQA settings (the paper's own ablation, sivqa_zh_dishname_noimage, stays as it is) and the packaged
# image samples: foodieqa_<task>_<lang>[_sample]_noimage_p<k>, grouped per setting and in foodieqa_noimage.
NOIMAGE = (("mivqa", "zh"), ("mivqa", "en"), ("sivqa", "zh"), ("sivqa", "en"))
NOIMAGE_SAMPLES = tuple((task, lang, k) for task, lang, k in SAMPLES if task != "textqa")
# The template's lmms_eval_specific_kwargs and metadata, repeated in each image-free task file (the metadata in
# each rotated task file too).
NOIMAGE_KWARGS = (
    "# doc_to_text (simple models) marks mivqa image positions with this token.",
    'image_token: "<image>"',
)
NOIMAGE_METADATA = (
    "# Official assistant prefills are appended to the user turn after a newline (see README).",
    "prefill_mode: inline",
)


def ablation_link(variant: str, k: int) -> tuple[str, ...]:
    """The paper's no-image ablation (its own documents, built without the image) names its image twin too."""
    if variant != "dishname_noimage":
        return ()
    return tuple(
        taskgen.image_twin_metadata(
            f"foodieqa_sivqa_zh_dishname_p{k}", version=hooks.TABLES["p0"].version, metadata=NOIMAGE_METADATA
        )
    )


def noimage_task_yaml(twin_file: str, name: str, alias: str) -> str:
    """The image-free twin of a task file, with the template's kwargs and metadata repeated."""
    return taskgen.noimage_task(
        twin_file,
        name,
        alias=f"{alias}, no image",
        version=hooks.TABLES["p0"].version,
        kwargs=NOIMAGE_KWARGS,
        metadata=NOIMAGE_METADATA,
    )


def noimage_files() -> dict[str, str]:
    """The image-free twins of the VQA settings and samples, with their groups."""
    files = {}
    for task, lang in NOIMAGE:
        group, twin = f"foodieqa_{stem(task, lang, 'noimage')}", f"foodieqa_{stem(task, lang, '')}"
        for k in TEMPLATES:
            files[f"{group}_p{k}.yaml"] = noimage_task_yaml(task_yaml(task, lang, "", k), f"{group}_p{k}", f"p{k}")
        files[f"_{group}.yaml"] = taskgen.group(
            group,
            f"FoodieQA {TASK_NAMES[task]} ({LANG_NAMES[lang]}), no image",
            [f"{group}_p{k}" for k in TEMPLATES],
            metrics=GROUP_METRICS,
            version=hooks.TABLES["p0"].version,
            image_twin=twin,
        )
    files["_foodieqa_noimage.yaml"] = taskgen.group(
        "foodieqa_noimage", "FoodieQA VQA, no image", [f"foodieqa_{stem(t, lang, 'noimage')}" for t, lang in NOIMAGE]
    )
    names = []
    for task, lang, k in NOIMAGE_SAMPLES:
        twin = sample_yamls()[f"foodieqa_{task}_{lang}_sample_p{k}.yaml"]
        names.append(f"foodieqa_{task}_{lang}_sample_noimage_p{k}")
        files[f"{names[-1]}.yaml"] = noimage_task_yaml(twin, names[-1], f"{TASK_NAMES[task]} ({LANG_NAMES[lang]}) p{k}")
    files["_foodieqa_sample_noimage.yaml"] = taskgen.group(
        "foodieqa_sample_noimage", "FoodieQA (sample), no image", names, metrics=[("acc_mean", "mean")]
    )
    return files


# ------------------------------------------------------------------ _circular VQA (options rotated)
CIRCULAR = (("mivqa", "zh"), ("mivqa", "en"), ("sivqa", "zh"), ("sivqa", "en"))
CIRCULAR_SAMPLES = (("mivqa", "zh", 1), ("sivqa", "en", 3))
CIRCULAR_GROUP_METRICS = [
    ("acc", "mean"),
    ("circular_acc", "mean"),
    ("rotation_mean_acc", "mean"),
    ("invalid_rate", "mean"),
    ("parse_fail_rate", "mean"),
]


def circular_task(base_file: str, name: str, alias: str) -> str:
    """A rotated-options task from its base task's file, with the template's metadata repeated."""
    return taskgen.circular_task(base_file, name, alias=alias, table=hooks.CIRCULAR.table, metadata=NOIMAGE_METADATA)


def circular_files() -> dict[str, str]:
    """VQA tasks asked once per rotation of their options (food_tasks.hooks.rotation), per setting and template."""
    files, groups = {}, []
    for task, lang in CIRCULAR:
        base = f"foodieqa_{task}_{lang}_circular"
        groups.append(base)
        for k in TEMPLATES:
            files[f"{base}_p{k}.yaml"] = circular_task(task_yaml(task, lang, "", k), f"{base}_p{k}", f"p{k}, circular")
        title = f"FoodieQA {TASK_NAMES[task]} ({LANG_NAMES[lang]}), circular"
        members = [f"{base}_p{k}" for k in TEMPLATES]
        files[f"_{base}.yaml"] = taskgen.group(
            base, title, members, metrics=CIRCULAR_GROUP_METRICS, version=hooks.CIRCULAR.table.version
        )
    files["_foodieqa_circular.yaml"] = taskgen.group("foodieqa_circular", "FoodieQA VQA, circular", groups)
    names = []
    for task, lang, k in CIRCULAR_SAMPLES:
        name = f"foodieqa_{task}_{lang}_sample_circular_p{k}"
        names.append(name)
        alias = f"{TASK_NAMES[task]} ({LANG_NAMES[lang]}) p{k}, circular"
        files[f"{name}.yaml"] = circular_task(sample_yamls()[f"foodieqa_{task}_{lang}_sample_p{k}.yaml"], name, alias)
    files["_foodieqa_sample_circular.yaml"] = taskgen.group(
        "foodieqa_sample_circular", "FoodieQA (sample, circular)", names, metrics=CIRCULAR_GROUP_METRICS
    )
    return files


if __name__ == "__main__":
    taskgen.main(render, __file__)
