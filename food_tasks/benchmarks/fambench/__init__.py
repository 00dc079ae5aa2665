"""FAM-Bench (food as medicine): dish suitability for 13 health conditions (Task 1) and dish ranking (Task 2).

Data: the benchmark's GitHub repository at a pinned commit (``dataset/*.json``, the knowledge base and the
Task 2 rule files), through :func:`food_tasks.remote.github_file` (``FOOD_TASKS_DATA_DIR`` mirror, cache,
download); dish images are third-party URLs fetched through :class:`food_tasks.remote.UrlImageStore`.

Official code mirrored: the repository's v1.0 ``code/task1`` and ``code/task2`` runners (system prompts,
knowledge-injection payloads, JSON parsers, decision/ranking parsers, percentage rounding), reproduced as
``_official`` metrics; robust parsers give the primary metrics.

Modules: :mod:`.data` (files, validation, documents, images), :mod:`.prompts` (verbatim prompts),
:mod:`.parsing` (robust and official parsers, normalisers), :mod:`.scoring` (per-document records,
metrics and aggregation, cross-task consistency).
"""
