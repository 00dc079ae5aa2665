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
"""
