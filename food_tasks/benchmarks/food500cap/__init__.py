"""Food-500 Cap (Ma et al., ACM MM 2023, arXiv:2308.03151): fine-grained food image captioning.

Data: the caption files of the official repository ``aaronma2020/Food500-Cap`` at a pinned commit
(``evaluation_data.json``, ``finetune_data.json``) through :func:`food_tasks.remote.github_file`
(``FOOD_TASKS_DATA_DIR`` mirror, cache, download). Images belong to ISIA Food-500 and are never
redistributed: the user points us at a local image root (:mod:`.data`).

Official code mirrored: none was released. Caption metrics are the COCO caption evaluation toolkit's
(``pycocoevalcap``, through :mod:`food_tasks.cocoeval`); Semantic Label Accuracy follows the paper's
definition (section 4.2.2, Table 3) with our own tokenisation and normalisation (design choices, documented
under "SLA rules" in yaml_tasks/food500cap/README.md); CLIPScore follows Hessel et al. (2021) when a local CLIP model is given.

Modules: :mod:`.data` (files, validation, image root, documents, region mapping), :mod:`.prompts`
(the two captioning prompts), :mod:`.parsing` (caption clean-up, label matching), :mod:`.scoring`
(per-document records, corpus metrics, breakdowns, CLIPScore), :mod:`.layout` (fixture/sample writers).
"""
