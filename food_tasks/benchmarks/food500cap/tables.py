"""The Food-500 Cap caption task's metric table: what each metric reduces, its scale, its standard error; the hook
module (``utils/food500cap.py``) scores with it, and a run read back (:mod:`food_tasks.lmms.facts`) reads it here."""

from __future__ import annotations

from functools import partial

from food_tasks.benchmarks.food500cap import scoring as fc_scoring
from food_tasks.hooks.convention import TRUNCATED_RATE, Metric, MetricTable
from food_tasks.stats import metrics
from food_tasks.stats import uncertainty as stats

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

# The tables of each process_results hook the task YAML names (food_tasks.lmms.facts reads them without importing the
# hook module).
HOOK_TABLES = {"process_results": (TABLES["caption"],)}
