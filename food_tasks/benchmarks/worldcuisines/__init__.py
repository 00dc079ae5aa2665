"""WorldCuisines (WC-VQA): multilingual dish-name and location VQA, 30 languages, MCQ and open-ended.

Paper: Winata et al., "WorldCuisines: A Massive-Scale Benchmark for Multilingual and Multicultural
Visual Question Answering on Global Cuisines", NAACL 2025 (arXiv:2410.12705).

Data: the Hugging Face datasets ``worldcuisines/vqa`` (questions, configs ``task1``/``task2``, splits
``test_large``/``test_small``) and ``worldcuisines/food-kb`` (images, joined by ``image_url``), or their
``FOOD_TASKS_DATA_DIR`` mirrors.

Official code mirrored: github.com/worldcuisines/worldcuisines ``evaluation/score/score.py`` (MCQ id
parser, OEQ substring matching, per-language averages and their rounding), reproduced as ``_official``
metrics; robust parsers give the primary metrics.

Modules: :mod:`.data` (loading, documents, images), :mod:`.parsing` (robust and official parsers),
:mod:`.scoring` (per-document records and aggregation), :mod:`.layout` (writers of the official
layout for fixtures and the packaged sample).
"""
