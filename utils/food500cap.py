"""lmms-eval hooks for Food-500 Cap (installed as ``food_tasks.utils.food500cap``).

Thin mapping from YAML hooks onto :mod:`food_tasks.benchmarks.food500cap`; see that package and
yaml_tasks/food500cap/README.md for what is implemented. ``TABLES`` declares every metric once
(:mod:`food_tasks.hooks.convention`); ``yaml_tasks/food500cap/_generate_configs.py`` writes the YAML from it.
"""

from __future__ import annotations

from food_tasks.benchmarks.food500cap import data as fc_data
from food_tasks.benchmarks.food500cap import prompts as fc_prompts
from food_tasks.benchmarks.food500cap import scoring as fc_scoring
from food_tasks.benchmarks.food500cap.tables import KEY, TABLES  # noqa: F401  (KEY: the hooks' document key)
from food_tasks.data.hub import stop_run_on_data_error
from food_tasks.hooks.convention import Doc, Docs, HookKwargs, results_hook
from food_tasks.hooks.messages import build_messages
from food_tasks.sample_data import SAMPLE_ROOT
from food_tasks.tasks.noimage import images_wanted


@stop_run_on_data_error
def docs_test(dataset: object) -> Docs:
    """``process_docs``: the YAML's stub dataset is replaced by the documents of evaluation_data.json."""
    return fc_data.prepare_docs("test")


@stop_run_on_data_error
def docs_all(dataset: object) -> Docs:
    """``process_docs`` of the ``_all`` task: the test and train files together."""
    return fc_data.prepare_docs("all")


@stop_run_on_data_error
def docs_sample(dataset: object) -> Docs:
    """``process_docs`` of the packaged sample: its test split, from food_tasks/sample_data."""
    return fc_data.prepare_docs("test", root=SAMPLE_ROOT)


def doc_to_visual(doc: Doc, lmms_eval_specific_kwargs: HookKwargs = None) -> list:
    """The dish photo as a PIL image; none for an image-free twin or a photo that cannot be decoded."""
    if not images_wanted(lmms_eval_specific_kwargs):
        return []  # an image-free twin (food_tasks.tasks.noimage)
    image = fc_data.load_image(doc)
    return [image] if image is not None else []


def doc_to_text(doc: Doc, lmms_eval_specific_kwargs: HookKwargs = None) -> str:
    """The captioning instruction (``lmms_eval_specific_kwargs["prompt"]`` when given, else the generic one)."""
    return fc_prompts.prompt_for(lmms_eval_specific_kwargs)


def doc_to_messages(doc: Doc, lmms_eval_specific_kwargs: HookKwargs = None) -> list[dict]:
    """One user turn [image, text], no system prompt (a design choice: yaml_tasks/food500cap/README.md)."""
    return build_messages(doc_to_visual(doc, lmms_eval_specific_kwargs), doc_to_text(doc, lmms_eval_specific_kwargs))


# The metric table, scales and error bars: food_tasks/benchmarks/food500cap/tables.py.
process_results = results_hook(fc_scoring.score_caption, TABLES["caption"])
