"""DiningBench (ACL 2026): fine-grained dish classification (8-way), nutrition estimation and VQA on
Meituan dining photos, in Chinese and in English translation, with multi-view input.

Data: the Hugging Face dataset ``meituan/DiningBench`` as published (six JSONL files and
``images.tar.gz``), read through :mod:`.data` (``FOOD_TASKS_DATA_DIR`` mirror or the Hub; the archive
is extracted once into the cache). The licence (CC BY-NC-ND 4.0) forbids redistributing derived copies:
nothing is converted or shipped.

Official code mirrored: ``eval_classification.py``, ``eval_nutrition.py`` and ``eval_vqa.py`` of
github.com/meituan/DiningBench at 9c9bdf7 (view selection, model-name-dependent reasoning clean-up,
first-letter option parser, JSON reader and penalties, MAE/RMSE/MAPE, the Chinese judge prompt and its
keyword verdict parser), reproduced as ``_official`` metrics; robust parsers give the primary metrics.

Modules: :mod:`.data` (files, extraction, view selection, documents), :mod:`.prompts` (CoT template,
judge prompt), :mod:`.parsing` (official and robust parsers), :mod:`.scoring` (records, metrics),
:mod:`.judging` (the judge step: the official request, every judge of the panel, agreement), :mod:`.layout`
(writers of mirrors in the published layout, for tests and samples).
:mod:`.sample` (the packaged sample data), :mod:`.report` (the ``food-tasks report`` tables and breakdowns).
The registry record :data:`BENCHMARK` below is what the core reads.
"""

from __future__ import annotations

from food_tasks.tasks.registry import SAMPLE, Benchmark, Lazy, variant

SIZES = {
    "diningbench_cls": 2884,
    "diningbench_nutrition": 1650,
    "diningbench_vqa": 804,
    "diningbench_cls_sample": 2,
    "diningbench_nutrition_sample": 2,
    "diningbench_vqa_sample": 3,
}  # paper Table 1 (each language)


def documents(task: str) -> int | None:
    """Items per language (paper Table 1): classification 2,884, nutrition 1,650, VQA 804; the samples 2 (VQA 3). A
    rotated classification task asks each item 8 times (once per rotation of its 8 options); an image-free twin: its
    twin's (both read from the variant's declaration, :func:`food_tasks.tasks.registry.variant`)."""
    kind, base = variant(task) or ("", task)
    if kind and kind != SAMPLE:  # a packaged sample (sample_of) has documents of its own
        count = documents(base)
        return 8 * count if kind == "circular" and count is not None else count
    return SIZES.get(task) or SIZES.get("_".join(task.split("_")[:2]))


def prefetch(workers: int = 16, report: str | None = None) -> int:
    """JSONL files and the image archive, extracted."""
    from food_tasks.benchmarks.diningbench import data as db_data

    for name, path in db_data.prefetch().items():
        print(f"food-tasks prefetch: {name}: {path}")
    return 0


BENCHMARK = Benchmark(
    name="diningbench",
    title="DiningBench",
    paper=(
        'Jin et al., "DiningBench: A Hierarchical Multi-view Benchmark for Perception and Reasoning in the Dietary '
        'Domain", ACL 2026 (arXiv:2604.10425)'
    ),
    source="hf.co/datasets/meituan/DiningBench (JSONL + images.tar.gz)",
    licence=(
        "CC BY-NC-ND 4.0: non-commercial research use, no derivatives; the original files are loaded and "
        "extracted into the cache, nothing converted or shipped"
    ),
    units=(
        "`acc*`, `judge_acc*`, `cannot_read_rate_official` and `parse_fail_rate_official` in percent (0-100), as in "
        "every benchmark: the paper and the official code print fractions (0.xx), ours are x 100; `rouge{1,2,L}_f` "
        "x 100, as every benchmark's text overlap; `*_mape*` in percent; `*_mae*` and `*_rmse*` in kcal and g; our "
        "diagnostic rates `invalid_rate`, `parse_fail_rate`, `judge_error_rate` and `judge_unparsed_rate` in percent "
        "(0-100), as in every benchmark; the judges' `judge_agreement`, `judge_majority_acc`, `judge_flip_rate`, "
        "`judge_rule_disagree_rate` and `judge_injection_suspect_rate` in percent (0-100); `judge_kappa` in [-1, 1] "
        "(Cohen's or Fleiss' kappa)."
    ),
    documents=documents,
    sample_tasks=("diningbench_cls_sample", "diningbench_nutrition_sample"),
    judged_samples=("diningbench_vqa_sample",),
    write_sample=Lazy("food_tasks.benchmarks.diningbench.sample:write"),
    prefetch=prefetch,
    report=Lazy("food_tasks.benchmarks.diningbench.report:SPEC"),
    tables=Lazy("food_tasks.benchmarks.diningbench.tables:HOOK_TABLES"),
    published="diningbench.json",
)
