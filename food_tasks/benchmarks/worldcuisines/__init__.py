"""WorldCuisines (WC-VQA): multilingual dish-name and location VQA, 30 languages, MCQ and open-ended.

Paper: Winata et al., "WorldCuisines: A Massive-Scale Benchmark for Multilingual and Multicultural
Visual Question Answering on Global Cuisines", NAACL 2025 (arXiv:2410.12705).

Data: the Hugging Face datasets ``worldcuisines/vqa`` (questions, configs ``task1``/``task2``, splits
``test_large``/``test_small``) and ``worldcuisines/food-kb`` (images, joined by ``image_url``), or their
``FOOD_TASKS_DATA_DIR`` mirrors.

Official code mirrored: github.com/worldcuisines/worldcuisines ``evaluation/score/score.py`` (MCQ id
parser, OEQ substring matching, per-language averages and their rounding), reproduced as ``_official``
metrics; robust parsers give the primary metrics. OEQ BERTScore F1 uses that script's setting (``evaluate``'s
wrapper, ``xlm-roberta-large``), which :mod:`food_tasks.hooks.bertscore` reproduces.

Modules: :mod:`.data` (loading, documents, images), :mod:`.parsing` (robust and official parsers),
:mod:`.scoring` (per-document records and aggregation), :mod:`.layout` (writers of the official
layout for fixtures and the packaged sample).
:mod:`.sample` (the packaged sample data), :mod:`.report` (the ``food-tasks report`` tables and breakdowns).
The registry record :data:`BENCHMARK` below is what the core reads.
"""

from __future__ import annotations

from food_tasks.tasks.registry import SAMPLE, Benchmark, Lazy, in_sample, variant

# Documents of the packaged sample's rotated MCQ tasks (every rotation of each question: 4 or 5 options).
ROTATED_SAMPLE = {
    "worldcuisines_mcq_sample_1a_nocontext": 42,
    "worldcuisines_mcq_sample_1b_contextualized": 42,
    "worldcuisines_mcq_sample_1c_adversarial": 42,
    "worldcuisines_mcq_sample_2_location": 45,
}


def documents(task: str) -> int | None:
    """Questions per task: test_large 15,000; test_small (and our smallref slice of it) 3,000; the sample 9 (the
    record's sample tasks: :func:`food_tasks.tasks.registry.in_sample`). A rotated task asks each question once per
    option (4 or 5): counted for the sample, unknown otherwise; an image-free twin: its twin's (both read from the
    variant's declaration, :func:`food_tasks.tasks.registry.variant`)."""
    kind, base = variant(task) or ("", task)
    if kind and kind != SAMPLE:  # a packaged sample (sample_of) has documents of its own
        return ROTATED_SAMPLE.get(base) if kind == "circular" else documents(base)
    if in_sample(task, BENCHMARK.sample_tasks):
        return 9
    for split, count in (("smallref", 3000), ("small", 3000)):
        if f"_{split}_" in task:
            return count
    return 15000


BENCHMARK = Benchmark(
    name="worldcuisines",
    title="WorldCuisines",
    paper=(
        'Winata et al., "WorldCuisines: A Massive-Scale Benchmark for Multilingual and Multicultural Visual Question '
        'Answering on Global Cuisines", NAACL 2025 (arXiv:2410.12705)'
    ),
    source="hf.co/datasets/worldcuisines/vqa + worldcuisines/food-kb (images)",
    licence="CC BY-SA 4.0 (data); loaded from the Hub, nothing redistributed beyond the synthetic sample",
    units=(
        "`acc*`, `invalid_rate` and `parse_fail_rate` in percent (0-100); `bertscore_f1` x 100, as the paper's "
        "Tables 7-8."
    ),
    documents=documents,
    sample_tasks=("worldcuisines_mcq_sample", "worldcuisines_oeq_sample"),
    write_sample=Lazy("food_tasks.benchmarks.worldcuisines.sample:write"),
    report=Lazy("food_tasks.benchmarks.worldcuisines.report:SPEC"),
    tables=Lazy("food_tasks.benchmarks.worldcuisines.tables:HOOK_TABLES"),
    published="worldcuisines.json",
)
