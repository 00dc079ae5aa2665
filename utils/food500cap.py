"""lmms-eval hooks for Food-500 Cap (installed as ``food_tasks.utils.food500cap``).

Thin mapping from YAML hooks onto :mod:`food_tasks.benchmarks.food500cap`; see that package and
yaml_tasks/food500cap/README.md for what is implemented. ``TABLES`` declares every metric once
(:mod:`food_tasks.hooks.convention`); ``yaml_tasks/food500cap/_generate_configs.py`` writes the YAML from it.
"""

from __future__ import annotations

from functools import partial

from food_tasks.benchmarks.food500cap import data as fc_data
from food_tasks.benchmarks.food500cap import prompts as fc_prompts
from food_tasks.benchmarks.food500cap import scoring as fc_scoring
from food_tasks.data.hub import stop_run_on_data_error
from food_tasks.hooks.convention import TRUNCATED_RATE, Doc, Docs, HookKwargs, Metric, MetricTable, results_hook
from food_tasks.hooks.messages import build_messages
from food_tasks.sample_data import SAMPLE_ROOT
from food_tasks.stats import metrics
from food_tasks.stats import uncertainty as stats
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


# Scales: caption metrics are the COCO toolkit's scores x 100 (BLEU-4 4.81 means 0.0481), SLA in percent,
# CLIPScore as computed (2.5 * cosine, not x 100: Table 4's CLIP-S column prints 0.70); rates in percent;
# lengths in words.
# Error bars (yaml_tasks/food500cap/README.md, "Error bars"): every image is its own cluster, identified by its
# filename in the official file; image_missing rows count in no estimator, as in no reported metric.
KEY = stats.column("key")
_COCO_NAMES = ("bleu4", "meteor", "rouge_l", "cider")


def _scored(name: str, scale: float = 1.0, binary: bool = True, test: str | None = None) -> stats.Ratio:
    return stats.mean(stats.field(name, unless="image_missing", test=test), scale=scale, binary=binary)


def _coco(name: str) -> Metric:
    toolkit = fc_scoring.COCO[name]
    estimator = (
        fc_scoring.CocoBleu(int(toolkit[5]), toolkit[6:])
        if toolkit.startswith("Bleu_")
        else fc_scoring.CocoMean(toolkit, to_corpus=toolkit == "METEOR")
    )
    return Metric(name, partial(fc_scoring.coco_metric, name=name), scale="score", estimator=estimator)


_PARSE_FAIL = Metric(
    "parse_fail_rate",
    partial(metrics.percent_of, fc_scoring.parse_fail_rate),
    higher_is_better=False,
    scale="percent",
    estimator=_scored("parse_fail", scale=100.0),
)
TABLES = {
    "caption": MetricTable(
        *(_coco(name) for name in _COCO_NAMES),
        *(
            Metric(f"sla_{f}", partial(fc_scoring.sla_metric, field=f), estimator=_scored(f"sla_{f}", scale=100.0))
            for f in fc_scoring.SLA_FIELDS
        ),
        Metric("clipscore", fc_scoring.clipscore, scale="score", estimator=fc_scoring.ClipMean(), decimals=3),
        Metric("mean_caption_words", fc_scoring.mean_words, scale="count", estimator=_scored("words", binary=False)),
        Metric(
            "reference_mean_words",
            partial(fc_scoring.mean_words, which="ref"),
            scale="count",
            estimator=stats.mean(fc_scoring.reference_words),
        ),
        *(_coco(name) for name in ("bleu1", "bleu2", "bleu3")),
        *(_coco(name) for name in ("bleu4_pytok", "rouge_l_pytok", "cider_pytok")),
        _PARSE_FAIL,
        Metric(
            "empty_rate",
            partial(metrics.percent_of, fc_scoring.empty_rate),
            higher_is_better=False,
            scale="percent",
            estimator=_scored("pred", scale=100.0, test="not"),
        ),
        Metric("captions_cut", fc_scoring.captions_cut, higher_is_better=False, scale="count"),
        Metric("image_missing", fc_scoring.image_missing, higher_is_better=False, scale="count"),
        TRUNCATED_RATE,
        Metric("per_category", fc_scoring.per_category, scale="breakdown"),
        Metric("per_region", fc_scoring.per_region, scale="breakdown"),
        version=1.3,
        key=KEY,
        headline="cider",  # the report's headline column (paper Table 4's CIDEr), not the first metric (BLEU-4)
    ),
}

process_results = results_hook(fc_scoring.score_caption, TABLES["caption"])
