"""Food-500 Cap scoring: per-document records, COCO caption metrics, SLA, breakdowns and CLIPScore.

``process_results`` returns one record per image for every metric key; each aggregation receives the
records of the whole split. The COCO toolkit runs once per split (results are cached by a digest of the
records), over the images that were found (``image_missing`` ones are excluded from every denominator).

Scales: BLEU-n, METEOR, ROUGE-L and CIDEr x 100 as in the paper's Table 4; SLA in percent as in its Table 3;
CLIPScore as computed, 2.5 * cosine, not x 100 (Table 4's CLIP-S column: 0.70); rates in percent (the metric
tables scale the [0, 1] reducers here); mean caption length in words
(whitespace-separated words of the cleaned caption). An absent metric's value is the string
``"absent: <reason>"``: visible in the results table and JSON, never a substitute number.

The toolkit sees every caption whole up to :data:`food_tasks.hooks.cocoeval.MAX_HYP_CHARS` characters and
:data:`~food_tasks.hooks.cocoeval.MAX_HYP_TOKENS` tokens (the measured bounds of what it scores in bounded time
and memory); a caption past them is cut to them (runaway generations only; counted in ``captions_cut``).
The ``*_pytok`` metrics (pure-Python tokenizer) are computed when the toolkit's tokenizer cannot run, or
when ``FOOD_TASKS_FOOD500CAP_PYTOK=1`` asks for them.
"""

from __future__ import annotations

import functools
import hashlib
import os
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

from food_tasks.benchmarks.food500cap import data, parsing
from food_tasks.hooks import cocoeval
from food_tasks.hooks.outputs import NoAnswer
from food_tasks.stats import uncertainty as stats
from food_tasks.stats.metrics import mean

CACHES = ("_coco", "_clip", "_clip_values")  # what food_tasks.reset() clears in this module

if TYPE_CHECKING:  # pragma: no cover
    from transformers import CLIPModel, CLIPProcessor

Record = Mapping[str, Any]
CLIP_ENV = "FOOD_TASKS_CLIP_MODEL"
PYTOK_ENV = "FOOD_TASKS_FOOD500CAP_PYTOK"
CLIP_PREFIX = "A photo depicts "  # Hessel et al. (2021), as in their reference implementation
CLIP_W = 2.5
# Our metric name -> the toolkit's metric name.
COCO = {
    "bleu1": "Bleu_1",
    "bleu2": "Bleu_2",
    "bleu3": "Bleu_3",
    "bleu4": "Bleu_4",
    "meteor": "METEOR",
    "rouge_l": "ROUGE_L",
    "cider": "CIDEr",
    "bleu4_pytok": "Bleu_4_pytok",
    "rouge_l_pytok": "ROUGE_L_pytok",
    "cider_pytok": "CIDEr_pytok",
}
SLA_FIELDS = ("accurate", "relaxed", "relaxed_nostop", "accurate_unaccented", "relaxed_unaccented")


def absent(reason: str) -> str:
    """The value of a metric that could not be computed: ``"absent: <reason>"`` (a string, never a number)."""
    return f"absent: {reason}"


def score_caption(doc: Mapping[str, Any], output: object) -> dict[str, Any]:
    """The record of one image: cleaned caption, SLA indicators, flags.

    A failed backend request (:class:`food_tasks.hooks.outputs.NoAnswer`) is an unparseable, empty caption.
    """
    caption, failed = ("", True) if isinstance(output, NoAnswer) else parsing.clean_caption(output)
    record = {
        "key": doc["replay_key"],
        "cat": doc["cat"],
        "region": doc.get("region", ""),
        "ref": doc["caption"],
        "pred": caption,
        "parse_fail": failed,
        "image_missing": data.image_missing(dict(doc)),
        "image_path": doc.get("image_path", ""),
        "words": len(caption.split()),
    }
    record.update({f"sla_{k}": v for k, v in parsing.sla(caption, doc["cat"]).items()})
    return record


def scored(records: Sequence[Record]) -> list[Record]:
    """The records every caption metric counts: those whose image reached the model."""
    return [r for r in records if not r["image_missing"]]


def image_missing(records: Sequence[Record]) -> int:
    """Images that were missing or could not be decoded (left out of every other metric)."""
    return sum(1 for r in records if r["image_missing"])


def _digest(rows: Sequence[Record]) -> str:
    h = hashlib.sha1()
    for r in rows:
        h.update(f"{r['key']}\x00{r['ref']}\x00{r['pred']}\x01".encode("utf-8", "surrogatepass"))
    return h.hexdigest()


def pytok_requested() -> bool:
    """``FOOD_TASKS_FOOD500CAP_PYTOK=1``: compute the ``*_pytok`` metrics although the toolkit's tokenizer runs."""
    return os.environ.get(PYTOK_ENV, "").strip().lower() in ("1", "true", "yes")


@functools.lru_cache(maxsize=8)
def _coco(digest: str, rows: tuple, pytok: bool) -> cocoeval.CocoScores:
    return cocoeval.coco_scores({k: [ref] for k, ref, _ in rows}, {k: pred for k, _, pred in rows}, pytok=pytok or None)


def coco(records: Sequence[Record]) -> cocoeval.CocoScores:
    """Toolkit scores of the scored records (computed once per distinct set of records)."""
    rows = scored(records)
    return _coco(_digest(rows), tuple((r["key"], r["ref"], r["pred"]) for r in rows), pytok_requested())


def coco_metric(records: Sequence[Record], name: str) -> float | str:
    """A COCO metric x 100 (``name`` as in :data:`COCO`), or ``"absent: <reason>"``."""
    if not scored(records):
        return absent("no image of the split was found, nothing was scored")
    scores = coco(records)
    toolkit = COCO[name]
    if toolkit in scores.absent:
        hint = f" (set {PYTOK_ENV}=1 to compute it as well)" if toolkit.endswith("_pytok") else ""
        return absent(scores.absent[toolkit] + hint)
    return 100.0 * scores.corpus[toolkit]


def captions_cut(records: Sequence[Record]) -> int:
    """Scored captions the COCO metrics saw cut (longer than the toolkit's input bounds: runaway generations)."""
    return len(coco(records).cut) if scored(records) else 0


def sla_metric(records: Sequence[Record], field: str) -> float:
    """SLA variant ``field`` in percent over the scored images."""
    rows = scored(records)
    return 100.0 * sum(1 for r in rows if r[f"sla_{field}"]) / len(rows) if rows else 0.0


def mean_words(records: Sequence[Record], which: str = "pred") -> float:
    """Mean words per caption of the scored images: the model's (``pred``) or the reference's (``ref``)."""
    rows = scored(records)
    return mean([r["words"] if which == "pred" else len(r["ref"].split()) for r in rows])


def parse_fail_rate(records: Sequence[Record]) -> float:
    """Unusable outputs (not a string, unterminated reasoning, failed backend request) over the scored images."""
    rows = scored(records)
    return sum(1 for r in rows if r["parse_fail"]) / len(rows) if rows else 0.0


def empty_rate(records: Sequence[Record]) -> float:
    """Captions empty after clean-up (empty answers and every parse failure) over the scored images."""
    rows = scored(records)
    return sum(1 for r in rows if not r["pred"]) / len(rows) if rows else 0.0


def per_category(records: Sequence[Record]) -> dict[str, dict[str, float]]:
    """Per category (spellings grouped by :func:`data.category_key`): images, SLA-accurate and -relaxed (%)."""
    groups: dict[str, list[Record]] = {}
    for r in scored(records):
        groups.setdefault(data.category_key(r["cat"]), []).append(r)
    return {
        cat: {"n": len(rows), "sla_accurate": sla_metric(rows, "accurate"), "sla_relaxed": sla_metric(rows, "relaxed")}
        for cat, rows in sorted(groups.items())
    }


def per_region(records: Sequence[Record]) -> dict[str, dict[str, Any]] | str:
    """Per region of the user's mapping: images, SLA (%), and caption metrics x 100.

    BLEU-4 is the corpus BLEU of the region's images; METEOR, ROUGE-L and CIDEr are means of the per-image
    toolkit scores of the whole-split run (CIDEr-D document frequencies from the whole split's references).
    """
    rows = scored(records)
    if not rows or not rows[0]["region"]:
        return absent(
            f"no category-to-region mapping given (the paper's taxonomy is not released; set "
            f"{data.REGIONS_ENV} to a JSON or CSV mapping file)"
        )
    scores = coco(records)
    index = {k: i for i, k in enumerate(scores.keys)}
    groups: dict[str, list[Record]] = {}
    for r in rows:
        groups.setdefault(r["region"], []).append(r)
    out: dict[str, dict[str, Any]] = {}
    for region, members in sorted(groups.items()):
        entry: dict[str, Any] = {
            "n": len(members),
            "sla_accurate": sla_metric(members, "accurate"),
            "sla_relaxed": sla_metric(members, "relaxed"),
        }
        for name, toolkit in (("meteor", "METEOR"), ("rouge_l", "ROUGE_L"), ("cider", "CIDEr")):
            if toolkit in scores.per_item:
                entry[name] = 100.0 * mean([scores.per_item[toolkit][index[r["key"]]] for r in members])
            else:
                entry[name] = absent(scores.absent.get(toolkit, "not computed"))
        bleu = scores.corpus_bleu([r["key"] for r in members])
        entry["bleu4"] = 100.0 * bleu if bleu is not None else absent(scores.absent.get("Bleu_4", "not computed"))
        out[region] = entry
    return out


# --------------------------------------------------------------------------- error bars
#
# Per-image statistics that reproduce each reported value from column sums (food_tasks.stats.uncertainty). The toolkit
# runs once over the whole split (the cached coco()); a resample reuses its per-image results. An image with
# ``image_missing`` is a zero row (not counted), as the reported metrics leave it out.


def _index(records: Sequence[Record], scores: cocoeval.CocoScores) -> list[int | None]:
    """Each record's position in the toolkit's items (None: not scored)."""
    where = {k: i for i, k in enumerate(scores.keys)}
    return [None if r["image_missing"] else where.get(r["key"]) for r in records]


class CocoMean(stats.Ratio):
    """A COCO metric x 100 as the mean of the toolkit's per-image scores (analytic standard error).

    ROUGE-L and CIDEr-D: the toolkit's corpus value is the mean of its per-image scores. CIDEr-D's document
    frequencies (and so each image's score) come from the whole split's references and stay fixed in the
    resamples. ``to_corpus`` (METEOR, whose corpus score pools the statistics of every image and is not a
    mean of image scores): each image's score is multiplied by corpus / mean of image scores, so the full
    set gives the corpus value and a resample's value moves with its mean image score (an approximation: it
    holds that ratio fixed). An absent metric: every row zero, value NaN, no error.
    """

    def __init__(self, toolkit: str, to_corpus: bool = False) -> None:
        super().__init__(num=None, den=None, scale=100.0)  # type: ignore[arg-type]
        self.toolkit, self.to_corpus = toolkit, to_corpus

    def rows(self, records: Sequence[Record]) -> np.ndarray:
        """``(score, 1)`` per scored image (METEOR: rescaled so that the rows' mean is the corpus score)."""
        out = np.zeros((len(records), 2))
        if not scored(records):
            return out
        scores = coco(records)
        items = scores.per_item.get(self.toolkit)
        if items is None:
            return out
        factor = 1.0
        if self.to_corpus and sum(items) > 0:
            factor = scores.corpus[self.toolkit] * len(items) / sum(items)
        for i, j in enumerate(_index(records, scores)):
            if j is not None:
                out[i] = (factor * items[j], 1.0)
        return out

    def score(self, record: Record) -> float | None:
        """None: an image's score exists only once the whole split is scored."""
        return None


class CocoBleu(stats.Estimator):
    """Corpus BLEU-n x 100 from each image's n-gram statistics (cocoeval.bleu_statistics: clipped matches
    and n-gram counts per n, hypothesis length, the toolkit's closest reference length): the sums of all
    images give the toolkit's corpus BLEU; cluster bootstrap."""

    def __init__(self, n: int, suffix: str = "") -> None:
        self.n, self.suffix = n, suffix

    def rows(self, records: Sequence[Record]) -> np.ndarray:
        """Each scored image's BLEU statistics, then 1 in the last column (0 everywhere for the others)."""
        out = np.zeros((len(records), cocoeval.BLEU_COLUMNS + 1))  # the last column: 1 for a counted image
        if not scored(records):
            return out
        scores = coco(records)
        if f"Bleu_{self.n}{self.suffix}" not in scores.corpus:
            return out
        statistics = scores.bleu_statistics(self.suffix)
        for i, r in enumerate(records):
            if not r["image_missing"] and r["key"] in statistics:
                out[i, :-1] = statistics[r["key"]]
                out[i, -1] = 1.0
        return out

    def combine(self, sums: np.ndarray) -> np.ndarray:
        """Corpus BLEU-n x 100 from summed rows (NaN where no image counted)."""
        sums = np.asarray(sums, dtype=float)
        value = 100.0 * cocoeval.bleu_from_statistics(sums[..., :-1], self.n)
        return np.where(sums[..., -1] > 0, value, np.nan)

    def counted(self, rows: np.ndarray) -> np.ndarray:
        """The rows of images that count (last column 1)."""
        return rows[:, -1] != 0


class ClipMean(stats.Ratio):
    """CLIPScore as the mean of the per-image CLIP-S of the images that could be decoded (analytic); NaN
    without a CLIP model (the metric is absent)."""

    def __init__(self) -> None:
        super().__init__(num=None, den=None, scale=1.0)  # type: ignore[arg-type]

    def rows(self, records: Sequence[Record]) -> np.ndarray:
        """``(CLIP-S, 1)`` per image that could be decoded (:func:`clip_values`); zeros without a CLIP model."""
        out = np.zeros((len(records), 2))
        values = clip_values(records)
        if isinstance(values, str):
            return out
        for i, r in enumerate(records):
            value = None if r["image_missing"] else values.get(r["key"])
            if value is not None:
                out[i] = (value, 1.0)
        return out

    def score(self, record: Record) -> float | None:
        """None: CLIP-S is computed at aggregation time."""
        return None


def reference_words(record: Record) -> float | None:
    """Words of the reference caption (None: the image is missing, not counted)."""
    return None if record["image_missing"] else float(len(record["ref"].split()))


# --------------------------------------------------------------------------- CLIPScore


@functools.lru_cache(maxsize=2)
def _clip(path: str) -> tuple[CLIPModel, CLIPProcessor, str]:
    import torch
    from transformers import CLIPModel, CLIPProcessor

    device = "cuda" if torch.cuda.is_available() else "cpu"
    model = CLIPModel.from_pretrained(path, local_files_only=True).to(device).eval()
    return model, CLIPProcessor.from_pretrained(path, local_files_only=True), device


def clip_scores(images: Sequence[Any], captions: Sequence[str], path: str, batch_size: int = 64) -> list[float]:
    """Per-pair CLIP-S = 2.5 * max(cos(image, "A photo depicts " + caption), 0) (Hessel et al., 2021)."""
    import torch

    model, processor, device = _clip(path)
    out: list[float] = []
    for start in range(0, len(images), batch_size):
        texts = [CLIP_PREFIX + c for c in captions[start : start + batch_size]]
        batch = processor(
            text=texts,
            images=list(images[start : start + batch_size]),
            return_tensors="pt",
            padding=True,
            truncation=True,
            max_length=77,
        )
        batch = {k: v.to(device) for k, v in batch.items()}
        with torch.no_grad():  # the forward pass returns L2-normalised projected embeddings (all versions)
            result = model(**batch)
        img, txt = result.image_embeds, result.text_embeds
        out.extend((CLIP_W * torch.clamp((img * txt).sum(-1), min=0)).tolist())
    return out


def clip_values(records: Sequence[Record], which: str = "pred") -> dict[str, float] | str:
    """key -> CLIP-S of each scored image that could be decoded (computed once per set of records), or
    ``"absent: <reason>"``."""
    path = os.environ.get(CLIP_ENV, "").strip()
    if not path:
        return absent(
            f"no CLIP model given (set {CLIP_ENV} to a local CLIP directory, e.g. a download of "
            f"openai/clip-vit-base-patch32)"
        )
    if not os.path.isdir(path):
        return absent(f"{CLIP_ENV}={path} is not a directory")
    rows = scored(records)
    if not rows:
        return absent("no image of the split was found, nothing was scored")
    return _clip_values(
        tuple((r["key"], r["image_path"], r["pred"] if which == "pred" else r["ref"]) for r in rows), path
    )


@functools.lru_cache(maxsize=4)
def _clip_values(rows: tuple, path: str) -> dict[str, float]:
    values: dict[str, float] = {}
    for start in range(0, len(rows), 256):  # decode a slice at a time: the full split does not fit in memory
        pairs = [
            (key, data.load_image({"image_path": image}), caption) for key, image, caption in rows[start : start + 256]
        ]
        pairs = [p for p in pairs if p[1] is not None]
        if pairs:
            values.update(zip([p[0] for p in pairs], clip_scores([p[1] for p in pairs], [p[2] for p in pairs], path)))
    return values


def clipscore(records: Sequence[Record], which: str = "pred") -> float | str:
    """Mean CLIP-S of the scored images (not x 100), or absent when ``$FOOD_TASKS_CLIP_MODEL`` is not set."""
    values = clip_values(records, which)
    if isinstance(values, str):
        return values
    return mean(list(values.values())) if values else absent("no image could be decoded")
