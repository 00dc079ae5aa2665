"""Generate the Food-500 Cap task, template and group YAML files of this directory.

Usage: ``python yaml_tasks/food500cap/_generate_configs.py [OUTPUT_DIR]`` (default: this directory).
Deterministic and offline; tests/core/test_registration.py reruns it and diffs the output against the
committed files. Metrics come from ``food_tasks.utils.food500cap.TABLES``; prompts from
``food_tasks.benchmarks.food500cap.prompts`` (one source of truth each).
"""

from __future__ import annotations

import json

from food_tasks.benchmarks.food500cap import prompts
from food_tasks.tasks import noimage, taskgen
from food_tasks.utils import food500cap as hooks

HOOKS = "food_tasks.utils.food500cap"
# task -> (process_docs hook, prompt, alias, max_new_tokens)
TASKS = {
    "food500cap_caption": ("docs_test", prompts.GENERIC, "Food-500 Cap (test, generic)", 128),
    "food500cap_caption_food": ("docs_test", prompts.FOOD, "Food-500 Cap (test, food)", 128),
    "food500cap_caption_all": ("docs_all", prompts.GENERIC, "Food-500 Cap (all, generic)", 128),
    # The packaged sample (the embedded default behind `food-tasks demo`).
    "food500cap_caption_sample": ("docs_sample", prompts.GENERIC, "Food-500 Cap (sample)", 48),
}
# The packaged sample -> the task it samples (the test split, generic prompt: food500cap.docs_sample).
SAMPLE_OF = {"food500cap_caption_sample": "food500cap_caption"}
GROUPS = {
    "food500cap": ("Food-500 Cap (test, both prompts)", ["food500cap_caption", "food500cap_caption_food"]),
    "food500cap_noimage": (
        "Food-500 Cap (test, both, no image)",
        ["food500cap_caption_noimage", "food500cap_caption_food_noimage"],
    ),
}
# Every task has an image-free twin, <task>_noimage (food_tasks.tasks.noimage), food500cap_noimage pairs with
# food500cap.


def template_yaml() -> str:
    """The ``_food500cap_yaml`` template: hooks, 128-token budget and the caption metric list."""
    return taskgen.template(
        about=[
            "Template of the Food-500 Cap tasks (no .yaml extension: never registered itself).",
            "`dataset_path: json` reads a one-line stub; `process_docs` replaces it with the documents built from the",
            "official caption files (GitHub at a pinned commit, or the $FOOD_TASKS_DATA_DIR mirror) and the local",
            "ISIA Food-500 image root ($FOOD_TASKS_FOOD500CAP_IMAGES).",
        ],
        hooks=HOOKS,
        visual="doc_to_visual",
        text_hook="doc_to_text",
        messages="doc_to_messages",
        target="caption",
        budget=128,
        budget_note=["Greedy; 128 new tokens (references average 18.4 words; 64 can cut long food descriptions)."],
        reasoning_note=[
            "Raw output reaches process_results, which removes reasoning itself (unterminated reasoning is a",
            "parse failure, counted in parse_fail_rate).",
        ],
        process_results="process_results",
        table=hooks.TABLES["caption"],
    )


def task_yaml(name: str, noimage: bool = False) -> str:
    """Task ``name``, or with ``noimage`` its image-free twin ``<name>_noimage`` (:mod:`food_tasks.tasks.noimage`)."""
    docs, prompt, alias, budget = TASKS[name]
    comment = "# The prompt (a design choice: the paper gives none); override per model under its own key."
    kwargs = [f"prompt: {json.dumps(prompt)}"]
    if noimage:
        lines = [comment, *taskgen.noimage_lines(name, version=hooks.TABLES["caption"].version, kwargs=kwargs)]
    else:
        lines = [comment, "lmms_eval_specific_kwargs:", "  default:", *(f"    {line}" for line in kwargs)]
    if budget != 128:
        lines += taskgen.generation_kwargs(budget)
    return taskgen.task(
        include="_food500cap_yaml",
        name=f"{name}_noimage" if noimage else name,
        alias=f"{alias}, no image" if noimage else alias,
        docs=f"{HOOKS}.{docs}",
        extra=lines,
    )


def group_yaml(name: str, alias: str, tasks: list[str]) -> str:
    """A group's YAML, naming its image twin when it is an image-free group."""
    return taskgen.group(name, alias, tasks, image_twin=noimage.image_twin(name))


def render() -> dict[str, str]:
    """Return ``{file name: content}`` for every generated file."""
    files = {
        "_stub.jsonl": taskgen.stub_line("food_tasks.benchmarks.food500cap.data.prepare_docs"),
        "_food500cap_yaml": template_yaml(),
    }
    for name in TASKS:
        files[f"{name}.yaml"] = task_yaml(name)
        files[f"{name}_noimage.yaml"] = task_yaml(name, noimage=True)
    for name, (alias, tasks) in GROUPS.items():
        files[f"_{name}.yaml"] = group_yaml(name, alias, tasks)
    files |= taskgen.sampled(files, SAMPLE_OF)
    return files


if __name__ == "__main__":
    taskgen.main(render, __file__)
