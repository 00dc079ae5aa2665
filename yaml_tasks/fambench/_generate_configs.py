"""Generate the FAM-Bench task, template and group YAML files of this directory.

Usage: ``python yaml_tasks/fambench/_generate_configs.py [OUTPUT_DIR]`` (default: this directory).
Deterministic and offline; tests/core/test_registration.py reruns it and diffs the output against the
committed files. Metrics come from ``food_tasks.utils.fambench.TABLES`` (one declaration each), the variants
of each kind and their ``process_docs`` hooks from its ``VARIANTS``.
"""

from __future__ import annotations

from food_tasks.tasks import taskgen
from food_tasks.utils import fambench as hooks

HOOKS = "food_tasks.utils.fambench"
MODES = {"baseline": ("", "baseline"), "cot": ("_cot", "CoT"), "ki": ("_ki", "KI"), "cot_ki": ("_cot_ki", "CoT+KI")}
INPUTS = {"textimage": ("", "T+I"), "textonly": ("_textonly", "T-only"), "imageonly": ("_imageonly", "I-only")}
# kind -> (doc_to_* suffix, max_new_tokens, task-name stem)
# Budgets: the official Task 1 runner uses 4096; Task 2 uses 400/900 (rank, CoT) and 1600/2200
# (decision, CoT) for most providers, more for reasoning models; we use one generous budget per kind.
KINDS = {
    "task1": ("task1", 4096, "fambench_task1"),
    "rank": ("task2", 1024, "fambench_task2"),
    "decision": ("task2", 2560, "fambench_task2_decision"),
    "ctc": ("task2", 2560, "fambench_task2_ctc"),
    "ctc_all": ("task2", 2560, "fambench_task2_ctc_all"),
}


def template_yaml(kind: str) -> str:
    """The ``_fambench_<kind>_yaml`` template: the kind's hooks, generation budget and metric list."""
    hook_suffix, budget, _ = KINDS[kind]
    return taskgen.template(
        about=[
            f"Template of the FAM-Bench {kind} tasks (no .yaml extension: never registered itself).",
            "`dataset_path: json` reads a one-line stub; `process_docs` replaces it with the documents built",
            "from the official repository files (GitHub at a pinned commit, or the $FOOD_TASKS_DATA_DIR mirror).",
        ],
        hooks=HOOKS,
        visual="doc_to_visual",
        text_hook=f"doc_to_text_{hook_suffix}",
        messages=f"doc_to_messages_{hook_suffix}",
        target="gold_decision" if kind == "task1" else "gold_letter",
        budget=budget,
        reasoning_note=[
            "Raw output reaches process_results: _official metrics parse it as the official scorer does",
            "(reasoning included); the robust parser strips <think> blocks itself.",
        ],
        process_results=f"process_results_{kind}",
        table=hooks.TABLES[kind],
    )


def task_name(kind: str, mode: str, input_name: str = "textimage") -> str:
    """The task name: the kind's stem, then the input and prompting-mode suffixes (CTC over all modes: its stem)."""
    if kind == "ctc_all":
        return KINDS[kind][2]
    return f"{KINDS[kind][2]}{INPUTS[input_name][0]}{MODES[mode][0]}"


def task_yaml(kind: str, mode: str, input_name: str) -> str:
    """One task's YAML; a text-only task also names its T+I task as its image twin."""
    names = {"task1": "T1", "rank": "T2 rank", "decision": "T2 decision", "ctc": "T2 CTC"}  # aliases: <= 40 characters
    if kind == "ctc_all":
        alias = "FAM-Bench T2 CTC (4 modes, one pool)"
    else:
        alias = f"FAM-Bench {names[kind]} ({MODES[mode][1]}, {INPUTS[input_name][1]})"
    # The paper's text-only input mode is the image-free twin of its T+I task (food_tasks.tasks.noimage): same
    # documents.
    extra = (
        taskgen.image_twin_metadata(task_name(kind, mode), version=hooks.TABLES[kind].version)
        if input_name == "textonly"
        else []
    )
    return taskgen.task(
        include=f"_fambench_{kind}_yaml",
        name=task_name(kind, mode, input_name),
        alias=alias,
        docs=f"{HOOKS}.{hooks.docs_hook(kind, mode, input_name)}",
        extra=extra,
    )


# The packaged sample tasks (run by `food-tasks demo`): a short
# generation budget, since the demo model is a tiny random one.
SAMPLES = {
    "fambench_task1_sample": ("task1", "docs_sample_task1", "FAM-Bench T1 (sample)"),
    "fambench_task2_ctc_sample": ("ctc", "docs_sample_ctc", "FAM-Bench T2 CTC (sample)"),
}

# Each sample -> the full-data task it samples (fambench.docs_sample_*: the T+I baseline).
SAMPLE_OF = {"fambench_task1_sample": "fambench_task1", "fambench_task2_ctc_sample": "fambench_task2_ctc"}


def sample_yaml(name: str) -> str:
    """A packaged sample task's YAML (48-token budget for the tiny model)."""
    kind, docs, alias = SAMPLES[name]
    return taskgen.task(
        include=f"_fambench_{kind}_yaml",
        name=name,
        alias=alias,
        docs=f"{HOOKS}.{docs}",
        extra=taskgen.generation_kwargs(48),
    )


def groups() -> dict[str, tuple[str, list[str]]]:
    """``{group name: (alias, task names)}``: the paper's tables, each task over all modes, and each mode."""
    out = {
        "fambench_task1_all": ("FAM-Bench T1, four modes (T+I)", [task_name("task1", m) for m in MODES]),
        "fambench_task2_all": ("FAM-Bench T2 rank, four modes (T+I)", [task_name("rank", m) for m in MODES]),
        "fambench_table1": (
            "FAM-Bench Table 1 (T1, T2 rank, CTC)",
            [task_name("task1", m) for m in MODES] + [task_name("ctc_all", "all")],
        ),
        "fambench_table2": (
            "FAM-Bench Table 2 (input ablation)",
            [task_name(k, m, i) for k in ("task1", "rank") for i in INPUTS for m in MODES],
        ),
    }
    for mode, (_, label) in MODES.items():
        out[f"fambench_{mode}"] = (f"FAM-Bench {label} mode (T+I)", [task_name("task1", mode), task_name("ctc", mode)])
    return out


def group_yaml(name: str, alias: str, tasks: list[str]) -> str:
    """A group's YAML (no aggregate)."""
    return taskgen.group(name, alias, tasks)


def render() -> dict[str, str]:
    """Return ``{file name: content}`` for every generated file."""
    files = {"_stub.jsonl": taskgen.stub_line("food_tasks.benchmarks.fambench.data.prepare_docs")}
    for kind in KINDS:
        files[f"_fambench_{kind}_yaml"] = template_yaml(kind)
        for mode, input_name in hooks.variants(kind):
            files[f"{task_name(kind, mode, input_name)}.yaml"] = task_yaml(kind, mode, input_name)
    for name in SAMPLES:
        files[f"{name}.yaml"] = sample_yaml(name)
    for name, (alias, tasks) in groups().items():
        files[f"_{name}.yaml"] = group_yaml(name, alias, tasks)
    files |= taskgen.sampled(files, SAMPLE_OF)
    return files


if __name__ == "__main__":
    taskgen.main(render, __file__)
