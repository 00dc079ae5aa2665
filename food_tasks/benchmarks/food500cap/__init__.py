"""Food-500 Cap (Ma et al., ACM MM 2023, arXiv:2308.03151): fine-grained food image captioning.

Data: the caption files of the official repository ``aaronma2020/Food500-Cap`` at a pinned commit
(``evaluation_data.json``, ``finetune_data.json``) through :func:`food_tasks.data.remote.github_file`
(``FOOD_TASKS_DATA_DIR`` mirror, cache, download). Images belong to ISIA Food-500 and are never
redistributed: the user points us at a local image root (:mod:`.data`).

Official code mirrored: none was released. Caption metrics are the COCO caption evaluation toolkit's
(``pycocoevalcap``, through :mod:`food_tasks.hooks.cocoeval`); Semantic Label Accuracy follows the paper's
definition (section 4.2.2, Table 3) with our own tokenisation and normalisation (design choices, documented
under "SLA rules" in yaml_tasks/food500cap/README.md); CLIPScore follows Hessel et al. (2021) when a local CLIP
model is given.

Modules: :mod:`.data` (files, validation, image root, documents, region mapping), :mod:`.prompts`
(the two captioning prompts), :mod:`.parsing` (caption clean-up, label matching), :mod:`.scoring`
(per-document records, corpus metrics, breakdowns, CLIPScore), :mod:`.layout` (fixture/sample writers).
:mod:`.sample` (the packaged sample data), :mod:`.report` (the ``food-tasks report`` tables and breakdowns).
The registry record :data:`BENCHMARK` below is what the core reads.
"""

from __future__ import annotations

from food_tasks.tasks.registry import SAMPLE, Benchmark, Lazy, variant

SIZES = {
    "food500cap_caption": 4940,
    "food500cap_caption_food": 4940,
    "food500cap_caption_all": 24732,
    "food500cap_caption_sample": 5,
}


def documents(task: str) -> int | None:
    """Images: the test split 4,940, all images 24,732, the sample 5 (an image-free twin: its twin's)."""
    kind, base = variant(task) or ("", task)
    return SIZES.get(task if kind == SAMPLE else base)  # a packaged sample (sample_of) has documents of its own


BENCHMARK = Benchmark(
    name="food500cap",
    title="Food-500 Cap",
    paper=(
        'Ma et al., "Food-500 Cap: A Fine-Grained Food Caption Benchmark for Evaluating Vision-Language Models", '
        "ACM MM 2023 (arXiv:2308.03151)"
    ),
    source="github.com/aaronma2020/Food500-Cap@a32dfe9 + local ISIA Food-500 images",
    licence=(
        "captions: the official repository has no licence file (downloaded, never shipped); images: ISIA Food-500, "
        "never redistributed (the user points us at a local copy)"
    ),
    units=(
        "`bleu*`, `meteor`, `rouge_l*` and `cider*` x 100 (paper Table 4); `clipscore` as Table 4 prints it (2.5 x "
        "the clipped cosine: at most 2.5, in [0, 1] in practice); `sla_*` in percent "
        "(Table 3); `*_mean_words` and `mean_caption_words` in words; our diagnostic rates `parse_fail_rate` and "
        "`empty_rate` in percent (0-100), as in every benchmark."
    ),
    documents=documents,
    sample_tasks=("food500cap_caption_sample",),
    write_sample=Lazy("food_tasks.benchmarks.food500cap.sample:write"),
    report=Lazy("food_tasks.benchmarks.food500cap.report:SPEC"),
    tables=Lazy("food_tasks.benchmarks.food500cap.tables:HOOK_TABLES"),
    published="food500cap.json",
)
