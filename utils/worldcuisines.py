"""lmms-eval hooks for WorldCuisines (installed as ``food_tasks.utils.worldcuisines``).

Thin mapping from YAML hooks onto :mod:`food_tasks.benchmarks.worldcuisines`;
see that module and yaml_tasks/worldcuisines/README.md for what is implemented. ``TABLES``
(:mod:`food_tasks.benchmarks.worldcuisines.tables`) declares every metric of each task kind once;
``yaml_tasks/worldcuisines/_generate_configs.py`` writes the YAML from it.
"""

from __future__ import annotations

from functools import partial
from pathlib import Path

from food_tasks.benchmarks.worldcuisines import circular
from food_tasks.benchmarks.worldcuisines import data as wc_data
from food_tasks.benchmarks.worldcuisines import tables as wc_tables
from food_tasks.benchmarks.worldcuisines.tables import CIRCULAR_TABLE
from food_tasks.data.hub import stop_run_on_data_error
from food_tasks.hooks import rotation
from food_tasks.hooks.convention import Doc, Docs, HookKwargs
from food_tasks.hooks.messages import build_messages
from food_tasks.sample_data import SAMPLE_ROOT
from food_tasks.tasks.noimage import images_wanted

SAMPLE_LANGUAGES = (
    "en",
    "id_formal",
    "ja_formal",
)  # the packaged sample's languages (benchmarks/worldcuisines/sample.py)


@stop_run_on_data_error
def _docs(
    split_kind: str, subtask: str, dataset: object, root: Path | None = None, languages: tuple[str, ...] | None = None
) -> Docs:
    """``process_docs``: the YAML's stub dataset is replaced by the real, checked documents."""
    return wc_data.prepare_docs(split_kind, subtask, root=root, languages=languages)


# process_docs per split and subtask (both MCQ and OEQ tasks use the same documents).
docs_large_1a = partial(_docs, "large", "1a_nocontext")
docs_large_1b = partial(_docs, "large", "1b_contextualized")
docs_large_1c = partial(_docs, "large", "1c_adversarial")
docs_large_2 = partial(_docs, "large", "2_location")
docs_small_1a = partial(_docs, "small", "1a_nocontext")
docs_small_1b = partial(_docs, "small", "1b_contextualized")
docs_small_1c = partial(_docs, "small", "1c_adversarial")
docs_small_2 = partial(_docs, "small", "2_location")
docs_smallref_1a = partial(_docs, "smallref", "1a_nocontext")
docs_smallref_1b = partial(_docs, "smallref", "1b_contextualized")
docs_smallref_1c = partial(_docs, "smallref", "1c_adversarial")
docs_smallref_2 = partial(_docs, "smallref", "2_location")
docs_sample_1a = partial(_docs, "large", "1a_nocontext", root=SAMPLE_ROOT, languages=SAMPLE_LANGUAGES)
docs_sample_1b = partial(_docs, "large", "1b_contextualized", root=SAMPLE_ROOT, languages=SAMPLE_LANGUAGES)
docs_sample_1c = partial(_docs, "large", "1c_adversarial", root=SAMPLE_ROOT, languages=SAMPLE_LANGUAGES)
docs_sample_2 = partial(_docs, "large", "2_location", root=SAMPLE_ROOT, languages=SAMPLE_LANGUAGES)


def doc_to_visual(doc: Doc, lmms_eval_specific_kwargs: HookKwargs = None) -> list:
    """The dish image (one PIL image), or none for an image-free twin or an image that cannot be loaded."""
    if not images_wanted(lmms_eval_specific_kwargs):
        return []  # an image-free twin (food_tasks.tasks.noimage)
    return wc_data.doc_images(doc)  # [] when the image cannot be loaded: counted as image_missing


def doc_to_text_mcq(doc: Doc, lmms_eval_specific_kwargs: HookKwargs = None) -> str:
    """The official multiple-choice prompt, verbatim: leading and double spaces are part of the benchmark."""
    return doc["multi_choice_prompt"]


def doc_to_text_oeq(doc: Doc, lmms_eval_specific_kwargs: HookKwargs = None) -> str:
    """The official open-ended prompt, verbatim."""
    return doc["open_ended_prompt"]


def doc_to_messages_mcq(doc: Doc, lmms_eval_specific_kwargs: HookKwargs = None) -> list[dict]:
    """One user turn, image before text, no system prompt (the official runners' majority layout)."""
    return build_messages(doc_to_visual(doc, lmms_eval_specific_kwargs), doc_to_text_mcq(doc))


def doc_to_messages_oeq(doc: Doc, lmms_eval_specific_kwargs: HookKwargs = None) -> list[dict]:
    """The open-ended prompt in the same layout as :func:`doc_to_messages_mcq`."""
    return build_messages(doc_to_visual(doc, lmms_eval_specific_kwargs), doc_to_text_oeq(doc))


doc_to_visual_sample = doc_to_visual  # the packaged sample's documents carry their data root (kb_root)
doc_to_messages_mcq_sample = doc_to_messages_mcq  # likewise
doc_to_messages_oeq_sample = doc_to_messages_oeq


# --------------------------------------------------------------------------- scoring
# The metric tables, scales and error bars: food_tasks/benchmarks/worldcuisines/tables.py.


# The per-document scorers (image status included) and the tasks' process_results are declared beside the tables,
# where the official re-scoring (food_tasks.benchmarks.worldcuisines.official) takes them too.
TABLES = wc_tables.TABLES  # the metric tables (yaml_tasks/worldcuisines/_generate_configs.py reads them here)
score_mcq, score_oeq = wc_tables.score_mcq, wc_tables.score_oeq
process_results_mcq = wc_tables.process_results_mcq
process_results_oeq = wc_tables.process_results_oeq
process_results_oeq_sample = wc_tables.process_results_oeq_sample

# The _circular MCQ tasks (food_tasks.hooks.rotation.Circular): each document asked once per rotation of its options
# (food_tasks.benchmarks.worldcuisines.circular); images, prompt hook and scorer are the MCQ task's.
CIRCULAR = rotation.Circular(circular.expand, score_mcq, CIRCULAR_TABLE)
process_results_circular = CIRCULAR.process_results  # and each rotated task's process_docs:
docs_large_1a_circular = CIRCULAR.docs(docs_large_1a)
docs_large_1b_circular = CIRCULAR.docs(docs_large_1b)
docs_large_1c_circular = CIRCULAR.docs(docs_large_1c)
docs_large_2_circular = CIRCULAR.docs(docs_large_2)
docs_sample_1a_circular = CIRCULAR.docs(docs_sample_1a)
docs_sample_1b_circular = CIRCULAR.docs(docs_sample_1b)
docs_sample_1c_circular = CIRCULAR.docs(docs_sample_1c)
docs_sample_2_circular = CIRCULAR.docs(docs_sample_2)
