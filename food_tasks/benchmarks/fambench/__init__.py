"""FAM-Bench (food as medicine): dish suitability for 13 health conditions (Task 1) and dish ranking (Task 2).

Data: the benchmark's GitHub repository at a pinned commit (``dataset/*.json``, the knowledge base and the
Task 2 rule files), through :func:`food_tasks.data.remote.github_file` (``FOOD_TASKS_DATA_DIR`` mirror, cache,
download); dish images are third-party URLs fetched through :class:`food_tasks.data.remote.UrlImageStore`.

Official code mirrored: the repository's v1.0 ``code/task1`` and ``code/task2`` runners (system prompts,
knowledge-injection payloads, JSON parsers, decision/ranking parsers, percentage rounding), reproduced as
``_official`` metrics; robust parsers give the primary metrics.

Modules: :mod:`.data` (files, validation, documents, images), :mod:`.prompts` (verbatim prompts),
:mod:`.parsing` (robust and official parsers, normalisers), :mod:`.scoring` (per-document records,
metrics and aggregation, cross-task consistency).
:mod:`.sample` (the packaged sample data), :mod:`.report` (the ``food-tasks report`` tables and breakdowns).
The registry record :data:`BENCHMARK` below is what the core reads.
"""

from __future__ import annotations

from food_tasks.tasks.registry import Benchmark, Lazy

SIZES = {
    "fambench_task1": 1500,
    "fambench_task2": 1000,
    "fambench_task2_ctc": 2000,
    "fambench_task2_ctc_all": 8000,
    "fambench_task1_sample": 4,
    "fambench_task2_ctc_sample": 4,
}


def documents(task: str) -> int | None:
    """Task 1: 1,500 rows; Task 2: 1,000 questions; CTC: 2,000 pairs (8,000 over the four modes); samples: 4."""
    if task in SIZES:
        return SIZES[task]
    stem = (
        "fambench_task2_ctc_all"
        if task.endswith("ctc_all")
        else next((s for s in ("fambench_task2_ctc", "fambench_task2", "fambench_task1") if task.startswith(s)), None)
    )
    return SIZES.get(stem) if stem else None


def prefetch(workers: int = 16, report: str | None = None) -> int:
    """Repository files and third-party images.

    Images are fetched in parallel (``workers``) into the image cache; ``report`` names a file for the coverage
    summary (JSON). Exit status 0 even when images are missing: they are listed, and excluded at evaluation.
    """
    import json
    from pathlib import Path

    from food_tasks.benchmarks.fambench import data as fb_data
    from food_tasks.data import remote

    urls = [r.get("image_url") or "" for r in fb_data.load_task1()]
    urls += [o.get("image_url") or "" for q in fb_data.load_task2() for o in q["options"]]
    fb_data.task1_kb(), fb_data.task2_rules()
    store = remote.default_image_store()
    summary = store.prefetch([u for u in urls if u], workers=workers)
    print(
        f"food-tasks prefetch: images: {summary['available']}/{summary['total']} available in {store.cache_dir} "
        f"(mirror: {store.mirror})"
    )
    for url, reason in sorted(summary["missing"].items()):
        print(f"food-tasks prefetch:   missing {url}: {reason}")
    if report:
        Path(report).write_text(json.dumps(summary, indent=2, sort_keys=True))
    return 0


BENCHMARK = Benchmark(
    name="fambench",
    title="FAM-Bench",
    paper=(
        'Mao et al., "FAM-Bench: A Multimodal Benchmark for Condition-Aware Food-as-Medicine Reasoning", 2026 '
        "(under review)"
    ),
    source="github.com/anonymous-research-artifact123/Food-as-medicine@abfaf02 + recipe-site image URLs",
    licence=(
        "dataset/ and knowledge_base/: CC BY 4.0 (code MIT); recipe images are third-party web images, fetched "
        "from their URLs and never redistributed"
    ),
    units=(
        "`decision_acc*`, `option_decision_acc*`, `top{1,2,3}_acc*`, `all_options_exact_match*`, "
        "`false_recommend_rate*` and `answer_rate_official` in percent (0-100); `rationale_*`, `mrr*`, "
        "`kendall_tau` and `ctc{,_baseline,_cot,_ki,_cot_ki}{,_official_parsers}` in [0, 1], as the paper's "
        "tables; `json_parse_rate*` in percent (0-100), as every rate of every benchmark: the official code prints "
        "a fraction, ours is x 100; our diagnostic rates `invalid_rate`, `parse_fail_rate`, `empty_rationale_rate`, "
        "`valid_ranking_rate` and `valid_decision_rate` in percent (0-100), as in every benchmark."
    ),
    documents=documents,
    sample_tasks=("fambench_task1_sample", "fambench_task2_ctc_sample"),
    write_sample=Lazy("food_tasks.benchmarks.fambench.sample:write"),
    prefetch=prefetch,
    report=Lazy("food_tasks.benchmarks.fambench.report:SPEC"),
    tables=Lazy("food_tasks.benchmarks.fambench.tables:HOOK_TABLES"),
    published="fambench.json",
)
