"""Generate the WorldCuisines task and group YAML files of this directory.

Usage: ``python yaml_tasks/worldcuisines/_generate_configs.py [OUTPUT_DIR]``
(default: this directory). Deterministic, offline; tests/core/test_registration.py
reruns it and diffs the output against the committed files. Metrics come from
``food_tasks.utils.worldcuisines.TABLES`` (one declaration each).
"""

from __future__ import annotations

from food_tasks.tasks import taskgen
from food_tasks.utils import worldcuisines as hooks

HOOKS = "food_tasks.utils.worldcuisines"

SUBTASKS = {  # name -> (process_docs suffix, display alias)
    "1a_nocontext": ("1a", "1a. Dish Name (No-Context)"),
    "1b_contextualized": ("1b", "1b. Dish Name (Contextualized)"),
    "1c_adversarial": ("1c", "1c. Dish Name (Adversarial)"),
    "2_location": ("2", "2. Regional Cuisine"),
}
# variant -> (task-name infix, process_docs prefix, group alias suffix)
VARIANTS = {
    "large": ("", "docs_large", "test_large"),
    "small": ("_small", "docs_small", "test_small"),
    "smallref": ("_smallref", "docs_smallref", "smallref"),
    "sample": ("_sample", "docs_sample", "sample"),
}
KINDS = {"mcq": ("MCQ", "multi_choice_answer", "multiple-choice"), "oeq": ("OEQ", "answer", "open-ended")}
# Group aggregation. Plain means first: lmms-eval matches these names by
# substring, so an `_official` entry listed later overrides the plain one.
GROUP_METRICS = {
    "mcq": [("acc", "mean"), ("invalid_rate", "mean"), ("parse_fail_rate", "mean"), ("acc_official", "official")],
    "oeq": [
        ("acc_multi", "mean"),
        ("acc_single", "mean"),
        ("acc_dual", "mean"),
        ("acc_multi_strict", "mean"),
        ("bertscore_f1", "mean"),
        ("acc_multi_official", "official_numpy"),
        ("acc_single_official", "official_numpy"),
        ("acc_dual_official", "official_numpy"),
    ],
}
SAMPLE_SKIPS = {"bertscore_f1"}


def template_yaml(kind: str) -> str:
    """The template of a kind (MCQ or OEQ): hooks, gold field and the kind's metric list."""
    _, target, label = KINDS[kind]
    return taskgen.template(
        about=[
            f"Template of the WorldCuisines {label} tasks (no .yaml extension: never registered itself).",
            "`dataset_path: json` reads a one-line stub; `process_docs` replaces it with the real",
            "documents loaded from worldcuisines/vqa (hub or $FOOD_TASKS_DATA_DIR mirror).",
        ],
        hooks=HOOKS,
        visual="doc_to_visual",
        text_hook=f"doc_to_text_{kind}",
        messages=f"doc_to_messages_{kind}",
        target=target,
        budget=50,
        budget_note=["Official runners: greedy, 50 new tokens, no stop string."],
        reasoning_note=[
            "lmms-eval strips <think>/<analysis> blocks by default (--reasoning_tags). Our hooks need the raw",
            "output: the `_official` metrics search reasoning text as the official scorer does, and the",
            "robust metrics strip it themselves (an unterminated block counts as invalid).",
        ],
        process_results=f"process_results_{kind}",
        table=hooks.TABLES[kind],
        extra=["lmms_eval_specific_kwargs:", "  default:", '    pre_prompt: ""', '    post_prompt: ""'],
    )


def task_name(kind: str, variant: str, subtask: str) -> str:
    """``worldcuisines_<kind><variant suffix>_<subtask>``."""
    return f"worldcuisines_{kind}{VARIANTS[variant][0]}_{subtask}"


def group_name(kind: str, variant: str) -> str:
    """``worldcuisines_<kind><variant suffix>``: the group of a kind and variant's subtasks."""
    return f"worldcuisines_{kind}{VARIANTS[variant][0]}"


def task_yaml(kind: str, variant: str, subtask: str) -> str:
    """One subtask's task of a kind and variant (the sample's tasks use the sample hooks)."""
    suffix, alias = SUBTASKS[subtask]
    extra = []
    if variant == "sample":
        extra += [
            f"doc_to_visual: !function {HOOKS}.doc_to_visual_sample",
            f"doc_to_messages: !function {HOOKS}.doc_to_messages_{kind}_sample",
        ]
        if kind == "oeq":
            extra += [
                f"process_results: !function {HOOKS}.process_results_oeq_sample",
                *taskgen.metric_list(hooks.TABLES["oeq_sample"]),
            ]
    return taskgen.task(
        include=f"_worldcuisines_{kind}_yaml",
        name=task_name(kind, variant, subtask),
        alias=alias,
        docs=f"{HOOKS}.{VARIANTS[variant][1]}_{suffix}",
        extra=extra,
    )


def group_yaml(kind: str, variant: str) -> str:
    """The group of a kind and variant over its subtasks, with the official rounding of each metric."""
    # MCQ: Python round (score_mc); OEQ: numpy round (score_oe rounds numpy.float64 values).
    metrics = [(m, how) for m, how in GROUP_METRICS[kind] if not (variant == "sample" and m in SAMPLE_SKIPS)]
    return taskgen.group(
        group_name(kind, variant),
        f"WorldCuisines {KINDS[kind][0]} ({VARIANTS[variant][2]})",
        [task_name(kind, variant, s) for s in SUBTASKS],
        metrics=metrics,
        version=hooks.TABLES[kind].version,
    )


def render() -> dict[str, str]:
    """Return ``{file name: content}`` for every generated file."""
    files: dict[str, str] = {"_stub.jsonl": taskgen.stub_line("food_tasks.benchmarks.worldcuisines.data")}
    for kind in KINDS:
        files[f"_worldcuisines_{kind}_yaml"] = template_yaml(kind)
    for variant in VARIANTS:
        for kind in KINDS:
            files[f"_{group_name(kind, variant)}.yaml"] = group_yaml(kind, variant)
            for subtask in SUBTASKS:
                files[f"{task_name(kind, variant, subtask)}.yaml"] = task_yaml(kind, variant, subtask)
    files |= circular_files()
    files |= noimage_files()
    files |= taskgen.sampled(files, samples())
    return dict(sorted(files.items()))


def samples() -> dict[str, str]:
    """Each packaged-sample task and group -> the test_large one it samples (its documents are test_large rows)."""
    out = {}
    for kind in KINDS:
        out[group_name(kind, "sample")] = group_name(kind, "large")
        out |= {task_name(kind, "sample", s): task_name(kind, "large", s) for s in SUBTASKS}
    return out


# ---------------------------------------------------------------- image-free twins (food_tasks.tasks.noimage)
# Every task of every split and kind has one: worldcuisines_<kind>[_<split>]_noimage_<subtask>, grouped
# as worldcuisines_<kind>[_<split>]_noimage. Same documents, prompt, parser and metrics; no image.
NOIMAGE_KWARGS = ('pre_prompt: ""', 'post_prompt: ""')  # the template's lmms_eval_specific_kwargs


def noimage_group_name(kind: str, variant: str) -> str:
    """The name of a group's image-free twin."""
    return f"{group_name(kind, variant)}_noimage"


def noimage_files() -> dict[str, str]:
    """The image-free twin of every task and group (each variant and kind)."""
    files = {}
    for variant in VARIANTS:
        for kind in KINDS:
            group = noimage_group_name(kind, variant)
            version = hooks.TABLES[kind].version
            for subtask, (_, alias) in SUBTASKS.items():
                files[f"{group}_{subtask}.yaml"] = taskgen.noimage_task(
                    task_yaml(kind, variant, subtask),
                    f"{group}_{subtask}",
                    alias=f"{alias}, no image",
                    version=version,
                    kwargs=NOIMAGE_KWARGS,
                )
            metrics = [(m, how) for m, how in GROUP_METRICS[kind] if not (variant == "sample" and m in SAMPLE_SKIPS)]
            files[f"_{group}.yaml"] = taskgen.group(
                group,
                f"WorldCuisines {KINDS[kind][0]} ({VARIANTS[variant][2]}), no image",
                [f"{group}_{s}" for s in SUBTASKS],
                metrics=metrics,
                version=version,
                image_twin=group_name(kind, variant),
            )
    return files


# ------------------------------------------------------------------ _circular MCQ variants (options rotated)
CIRCULAR = {  # the variant rotated -> (the rotated tasks' infix, group label)
    "large": ("_circular", "test_large, circular"),
    "sample": ("_sample_circular", "sample, circular"),
}
CIRCULAR_GROUP_METRICS = [
    ("acc", "mean"),
    ("circular_acc", "mean"),
    ("rotation_mean_acc", "mean"),
    ("invalid_rate", "mean"),
    ("parse_fail_rate", "mean"),
    ("acc_official", "official"),
]


def circular_files() -> dict[str, str]:
    """The MCQ tasks asked once per rotation of their options, and their groups (``worldcuisines_mcq_circular``),
    from their base tasks' files."""
    files = {}
    for variant, (infix, label) in CIRCULAR.items():
        names = []
        for subtask, (_, alias) in SUBTASKS.items():
            name = f"worldcuisines_mcq{infix}_{subtask}"
            names.append(name)
            # Its own alias: a rotated task shown alone (no group row above it) is told from its base task.
            files[f"{name}.yaml"] = taskgen.circular_task(
                task_yaml("mcq", variant, subtask),
                name,
                alias=f"{alias}, circular",
                table=hooks.CIRCULAR.table,
            )
        files[f"_worldcuisines_mcq{infix}.yaml"] = taskgen.group(
            f"worldcuisines_mcq{infix}",
            f"WorldCuisines MCQ ({label})",
            names,
            metrics=CIRCULAR_GROUP_METRICS,
            version=hooks.CIRCULAR.table.version,
        )
    return files


if __name__ == "__main__":
    taskgen.main(render, __file__)
