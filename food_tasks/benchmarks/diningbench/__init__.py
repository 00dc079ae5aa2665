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
judge prompt), :mod:`.parsing` (official and robust parsers), :mod:`.scoring` (records, metrics,
judge step), :mod:`.layout` (writers of mirrors in the published layout, for tests and samples).
"""
