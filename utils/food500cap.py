"""lmms-eval hooks for Food-500 Cap (installed as ``food_tasks.utils.food500cap``).

Thin mapping from YAML hooks onto :mod:`food_tasks.benchmarks.food500cap`; see that package and
yaml_tasks/food500cap/README.md for what is implemented. ``METRICS`` is the single source of the YAML
``metric_list`` entries (``yaml_tasks/food500cap/_generate_configs.py`` reads it).
"""

from __future__ import annotations

from functools import partial

from food_tasks.benchmarks.food500cap import data as fc_data
from food_tasks.benchmarks.food500cap import prompts as fc_prompts
from food_tasks.benchmarks.food500cap import scoring as fc_scoring
from food_tasks.data import stop_run_on_data_error
from food_tasks.messages import build_messages
from food_tasks.outputs import model_output
from food_tasks.sample_data import SAMPLE_ROOT


@stop_run_on_data_error
def docs_test(dataset):  # type: ignore[no-untyped-def]
    """``process_docs``: the YAML's stub dataset is replaced by the documents of evaluation_data.json."""
    return fc_data.prepare_docs("test")


@stop_run_on_data_error
def docs_all(dataset):  # type: ignore[no-untyped-def]
    return fc_data.prepare_docs("all")


@stop_run_on_data_error
def docs_sample(dataset):  # type: ignore[no-untyped-def]
    return fc_data.prepare_docs("test", root=SAMPLE_ROOT)


def doc_to_visual(doc):  # type: ignore[no-untyped-def]
    image = fc_data.load_image(doc)
    return [image] if image is not None else []


def doc_to_text(doc, lmms_eval_specific_kwargs=None):  # type: ignore[no-untyped-def]
    return fc_prompts.prompt_for(lmms_eval_specific_kwargs)


def doc_to_messages(doc, lmms_eval_specific_kwargs=None):  # type: ignore[no-untyped-def]
    # One user turn [image, text], no system prompt (shared spec section 4.2).
    return build_messages(doc_to_visual(doc), doc_to_text(doc, lmms_eval_specific_kwargs))


METRICS = {
    **{name: partial(fc_scoring.coco_metric, name=name) for name in ("bleu4", "meteor", "rouge_l", "cider")},
    **{f"sla_{f}": partial(fc_scoring.sla_metric, field=f) for f in fc_scoring.SLA_FIELDS},
    "clipscore": partial(fc_scoring.clipscore),
    "mean_caption_words": partial(fc_scoring.mean_words),
    "reference_mean_words": partial(fc_scoring.mean_words, which="ref"),
    **{name: partial(fc_scoring.coco_metric, name=name) for name in ("bleu1", "bleu2", "bleu3")},
    **{name: partial(fc_scoring.coco_metric, name=name) for name in ("bleu4_pytok", "rouge_l_pytok", "cider_pytok")},
    "parse_fail_rate": partial(fc_scoring.parse_fail_rate),
    "empty_rate": partial(fc_scoring.empty_rate),
    "image_missing": partial(fc_scoring.image_missing),
    "per_category": partial(fc_scoring.per_category),
    "per_region": partial(fc_scoring.per_region),
}
LOWER_IS_BETTER = ("parse_fail_rate", "empty_rate", "image_missing")
for _metric, _fn in METRICS.items():
    globals()[f"agg_{_metric}"] = _fn


def process_results(doc, results):  # type: ignore[no-untyped-def]
    record = fc_scoring.score_doc(doc, model_output(results))
    return dict.fromkeys(METRICS, record)
