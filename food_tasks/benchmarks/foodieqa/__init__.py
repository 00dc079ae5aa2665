"""FoodieQA: multi-image, single-image and text QA on regional Chinese food culture (four options each).

Paper: Li et al., "FoodieQA: A Multimodal Dataset for Fine-Grained Understanding of Chinese Food
Culture", EMNLP 2024 (arXiv:2406.11030).

Data: the gated Hugging Face dataset ``lyan62/FoodieQA`` (``FoodieQA.zip``: ``mivqa_tidy.json``,
``sivqa_tidy.json``, ``textqa_tidy.json`` and ``images/``), downloaded once and extracted into the cache,
or a ``FOOD_TASKS_DATA_DIR`` mirror (the zip, or its unpacked contents, under ``lyan62/FoodieQA/``).

Official code mirrored: github.com/lyan62/FoodieQA @4d726407 ``model-eval/scripts``: the prompt templates
of ``eval_mivqa_en.py::get_prompt_phi``, ``sivqa_utils.py`` and ``textqa_utils.py`` (verbatim), and the
answer parsers of ``get_accuracy.py`` / ``utils.py`` (reproduced in :mod:`.parsing` for the
``acc_paper_protocol`` metric and the parity script).

Modules: :mod:`.data` (download, extraction, documents, images), :mod:`.prompts` (templates, image
placement, prefill), :mod:`.parsing` (robust and official parsers), :mod:`.scoring` (records and
aggregation), :mod:`.layout` (writers of the published layout for fixtures and the packaged sample).
:mod:`.sample` (the packaged sample data), :mod:`.report` (the ``food-tasks report`` tables and breakdowns).
The registry record :data:`BENCHMARK` below is what the core reads.
"""

from __future__ import annotations

from food_tasks.tasks.registry import SAMPLE, Benchmark, Lazy, in_sample, variant

SIZES = {"mivqa": 403, "sivqa": 256, "textqa": 705}


def documents(task: str) -> int | None:
    """Questions per task: multi-image 403, single-image 256, text 705 (every template); the sample 2 (the record's
    sample tasks: :func:`food_tasks.tasks.registry.in_sample`). A rotated task asks each question 4 times (once per
    rotation of its options); an image-free twin: its twin's (both read from the variant's declaration,
    :func:`food_tasks.tasks.registry.variant`)."""
    kind, base = variant(task) or ("", task)
    if kind and kind != SAMPLE:  # a packaged sample (sample_of) has documents of its own
        count = documents(base)
        return 4 * count if kind == "circular" and count is not None else count
    parts = task.split("_")
    return 2 if in_sample(task, BENCHMARK.sample_tasks) else SIZES.get(parts[1]) if len(parts) > 1 else None


def prefetch(workers: int = 16, report: str | None = None) -> int:
    """The gated zip, extracted.

    Download (gated: needs a token) and extract ``FoodieQA.zip`` once, before ranks start.
    """
    from food_tasks.benchmarks.foodieqa import data as fq_data

    # A DataAccessError (gated, offline, missing) reaches `food-tasks`, which prints it wrapped and exits 1.
    counts = {task: len(fq_data.load_docs(task)) for task in fq_data.FILES}
    print(f"food-tasks prefetch: FoodieQA: {counts} questions, data folder {fq_data.data_folder()}")
    return 0


BENCHMARK = Benchmark(
    name="foodieqa",
    title="FoodieQA",
    paper=(
        'Li et al., "FoodieQA: A Multimodal Dataset for Fine-Grained Understanding of Chinese Food Culture", '
        "EMNLP 2024 (arXiv:2406.11030)"
    ),
    source="hf.co/datasets/lyan62/FoodieQA (gated: FoodieQA.zip)",
    licence=(
        "CC BY-NC-ND 4.0 and the dataset's terms: research only, evaluation only, never training; downloaded into "
        "the local cache, never redistributed"
    ),
    units=(
        "`acc*`, `invalid_rate`, `parse_fail_rate` and `paper_fallback_rate` in percent (0-100), as the paper's "
        "Table 3."
    ),
    documents=documents,
    sample_tasks=("foodieqa_sample",),
    write_sample=Lazy("food_tasks.benchmarks.foodieqa.sample:write"),
    prefetch=prefetch,
    report=Lazy("food_tasks.benchmarks.foodieqa.report:SPEC"),
    tables=Lazy("food_tasks.benchmarks.foodieqa.tables:HOOK_TABLES"),
    published="foodieqa.json",
)
