"""Regional food tasks: their settings, documents, images and scoring (no lmms-eval import).

A contributor's YAML is an ordinary lmms-eval task file whose ``class`` is :class:`RegionalTask` and
whose ``metadata.regional`` block says what the columns mean (see CONTRIBUTING.md)::

    task: regional_example_mcq
    class: !function food_tasks.regional.RegionalTask
    dataset_path: json                 # json | csv | parquet (local file) or a hub dataset id
    dataset_kwargs:
      data_files: {test: dishes.jsonl}   # relative to the YAML (lmms-eval resolves it)
    test_split: test
    metadata:
      version: 1.0
      regional:
        format: mcq                    # mcq | multi | open | numeric
        id: id
        image: image                   # path relative to the data file, absolute path, URL or hub Image
        question: question
        options: options               # a list column, or a list of column names [opt_a, opt_b, ...]
        answer: answer                 # an option label (B) or the exact text of one option
        slices: [region, language]     # per-slice accuracy tables

lmms-eval hooks receive no task configuration (``process_docs`` and ``process_results`` see only the
data), so the settings are bound to the hooks in the task class (:mod:`food_tasks.regional`), from the YAML's own
config.
Scoring reuses the core: :func:`food_tasks.hooks.parsing.extract_choice` (MCQ), :func:`text_key` matching
(open-ended), :mod:`food_tasks.stats.metrics` reducers, and the one hook convention of
:mod:`food_tasks.hooks.convention`
(``process_results`` through :func:`food_tasks.hooks.outputs.model_output`, so a failed backend request is no
answer).

The ``metadata.regional`` keys and their checks are in :mod:`food_tasks.regional_tasks.settings` (re-exported here),
several correct options and numbers in :mod:`food_tasks.regional_tasks.answers`, slices in
:mod:`food_tasks.regional_tasks.slices`. This module holds what the task, the error bars and the checker share; the
task class is in :mod:`food_tasks.regional` (the path YAMLs name) and the ``food-tasks validate`` checker in
:mod:`food_tasks.regional_tasks.check`; the checks of local data files in :mod:`food_tasks.regional_tasks.files`.
"""

from __future__ import annotations

import io
import json
import math
import os
from collections.abc import Mapping, Sequence
from functools import lru_cache, partial
from pathlib import Path
from typing import TYPE_CHECKING, Any

from food_tasks.data import images
from food_tasks.hooks.convention import TRUNCATED_RATE, Metric, MetricTable
from food_tasks.hooks.parsing import extract_choice, normalize_chars, option_key, strip_reasoning
from food_tasks.judge import injection
from food_tasks.regional_tasks import answers, judged, slices
from food_tasks.regional_tasks.judged import ANSWER_JOIN, judge_metrics
from food_tasks.regional_tasks.settings import (  # noqa: F401  (public here too: the task, validate and tests read them)
    CHOICE_FORMATS,
    DEFAULT_GENERATION,
    DEFAULT_LABELS,
    FORMATS,
    MCQ_PROMPT,
    MULTI_PROMPT,
    NUMERIC_PROMPT,
    OPEN_PROMPT,
    OPTION_LINE,
    SETTING_KEYS,
    RegionalConfigError,
    RegionalDataError,
    Settings,
    data_base_dir,
    settings_problems,
)
from food_tasks.stats import metrics
from food_tasks.stats import uncertainty as stats

if TYPE_CHECKING:  # PIL, datasets and the URL store load only when a task needs them
    import datasets
    from PIL.Image import Image

    from food_tasks.data.remote import UrlImageStore

# --------------------------------------------------------------------------- documents


def cell_text(value: Any) -> str:
    """A data cell as text (``None`` and NaN are empty)."""
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return ""
    return str(value)


def doc_options(settings: Settings, doc: Mapping[str, Any]) -> list[str]:
    """The options of one row: a list column (a JSON list in CSV files), or the named option columns."""
    if isinstance(settings.options, tuple):
        return [cell_text(doc.get(c)) for c in settings.options if cell_text(doc.get(c)).strip()]
    value = doc.get(settings.options) if settings.options else None
    if isinstance(value, str) and value.strip().startswith("["):
        try:
            value = json.loads(value)
        except ValueError:
            return []
    if hasattr(value, "tolist"):
        value = value.tolist()
    return [cell_text(v) for v in value] if isinstance(value, (list, tuple)) else []


def gold_index(settings: Settings, doc: Mapping[str, Any]) -> int | None:
    """Index of the correct option: the answer is a label (case-insensitive) or one option's exact text."""
    answer = cell_text(doc.get(settings.answer)).strip()
    options = doc_options(settings, doc)
    labels = [lab.upper() for lab in settings.labels[: len(options)]]
    if answer.upper() in labels:
        return labels.index(answer.upper())
    matches = [i for i, option in enumerate(options) if option.strip() == answer]
    return matches[0] if len(matches) == 1 else None


def gold_answers(settings: Settings, doc: Mapping[str, Any]) -> list[str]:
    """Accepted open-ended answers: the answer cell, or each element when it is a list (or JSON list)."""
    value = doc.get(settings.answer)
    if isinstance(value, str) and value.strip().startswith("["):
        try:
            value = json.loads(value)
        except ValueError:
            pass
    if hasattr(value, "tolist"):
        value = value.tolist()
    values = value if isinstance(value, (list, tuple)) else [value]
    return [cell_text(v) for v in values if cell_text(v).strip()]


def answer_problem(settings: Settings, doc: Mapping[str, Any]) -> str | None:
    """Why a row's answer cannot be scored (``missing answer``, an MCQ answer that is no label nor option text, a
    numeric answer that is no number), or None."""
    if settings.format == "open":
        return None if gold_answers(settings, doc) else "missing answer"
    cell = doc.get(settings.answer)
    if not answers.as_list(cell) or not any(cell_text(v).strip() for v in answers.as_list(cell)):
        return "missing answer"
    if settings.format == "numeric":
        return None if answers.parse_number(cell) is not None else f"answer {cell_text(cell)!r} is not a number"
    if settings.format == "multi":
        options = doc_options(settings, doc)
        _, bad = answers.gold_set(cell, settings.labels, options)
        labels = "/".join(settings.labels[: len(options)])
        if not bad:
            return None
        hint = ' (several answers are a list: ["A", "C"])' if any("," in b for b in bad) else ""
        return f"answer {', '.join(map(repr, bad))}: neither a label ({labels}) nor the text of one option{hint}"
    if len(answers.as_list(cell)) > 1:
        return f"answer {cell_text(cell)!r}: several answers; a task with several correct options is format: multi"
    if gold_index(settings, doc) is None:
        labels = "/".join(settings.labels[: len(doc_options(settings, doc))])
        answer = cell_text(doc.get(settings.answer))
        return f"answer {answer!r} is neither a label ({labels}) nor the text of one option"
    return None


def doc_text(settings: Settings, doc: Mapping[str, Any]) -> str:
    """The prompt: ``prompt`` with ``{question}``, ``{options}`` (one line per option) and any column."""
    fields = {k: cell_text(v) for k, v in doc.items() if isinstance(v, (str, int, float)) or v is None}
    fields["question"] = cell_text(doc.get(settings.question))
    if settings.format in CHOICE_FORMATS:
        lines = [
            settings.option_format.format(label=lab, option=opt)
            for lab, opt in zip(settings.labels, doc_options(settings, doc))
        ]
        fields["options"] = "\n".join(lines)
    return settings.prompt.format_map(_Missing(fields))


class _Missing(dict):
    def __missing__(self, key: str) -> str:
        raise RegionalConfigError(f"metadata.regional.prompt: {{{key}}} is neither a data column nor question/options")


def image_refs(settings: Settings, doc: Mapping[str, Any]) -> list[Any]:
    """The row's image cell(s) as a list (a list column gives several images)."""
    if not settings.image:
        return []
    value = doc.get(settings.image)
    if hasattr(value, "tolist"):
        value = value.tolist()
    values = value if isinstance(value, (list, tuple)) else [value]
    return [v for v in values if v is not None and v != ""]


def load_image(ref: Any, base_dir: str, store: UrlImageStore | None = None) -> Image:
    """One image as RGB PIL: a PIL image, a hub Image dict, a URL, or a path (relative to ``base_dir``).
    Decoded strictly: a file cut short fails (:func:`food_tasks.data.images.decode`).

    Raises:
        FileNotFoundError / ValueError: with the reference and what to check (a
        :class:`food_tasks.data.hub.CorruptImageError`, a ValueError, for bytes that do not decode).
    """
    from PIL import Image

    if isinstance(ref, Image.Image):
        return images.rgb(ref)
    if isinstance(ref, Mapping):
        if ref.get("bytes"):
            return images.rgb(images.decode(ref["bytes"], f"image {ref.get('path') or '(bytes)'}"))
        ref = ref.get("path") or ""
    ref = str(ref)
    if ref.startswith(("http://", "https://")):
        store = store or url_store()
        image = store.get(ref)
        if image is None:
            raise FileNotFoundError(f"image {ref}: {store.failures.get(ref, 'unavailable')}")
        return image
    missing = missing_image_file(ref, base_dir)
    if missing:
        raise FileNotFoundError(missing)
    return images.rgb(images.decode_file(_image_path(ref, base_dir), f"image {ref}"))


def _image_path(ref: str, base_dir: str) -> Path:
    return Path(ref) if os.path.isabs(ref) else Path(base_dir) / ref


def missing_image_file(ref: Any, base_dir: str) -> str | None:
    """Why a reference to a local image file cannot be used: no file at its path (relative to ``base_dir``); None
    when the file is there or the reference is no path (a URL, bytes, a decoded image). A stat, no decoding."""
    if isinstance(ref, Mapping):
        if ref.get("bytes"):
            return None
        ref = ref.get("path") or ""
    if not isinstance(ref, (str, int, float)):  # a decoded image
        return None
    ref = str(ref)
    if ref.startswith(("http://", "https://")):
        return None
    path = _image_path(ref, base_dir)
    return None if path.is_file() else f"image {ref}: no file {path} (paths are relative to the data file)"


def image_key(ref: Any, base_dir: str) -> str | None:
    """What identifies an image in :mod:`food_tasks.data.images`' record: its URL, file path or bytes' digest
    (None for an image already decoded, which cannot fail)."""
    if isinstance(ref, Mapping):
        if ref.get("bytes"):
            import hashlib

            return "bytes:" + hashlib.sha1(ref["bytes"]).hexdigest()
        ref = ref.get("path") or ""
    if not isinstance(ref, str):
        return None
    return ref if ref.startswith(("http://", "https://")) else str(_image_path(ref, base_dir))


def _probe(ref: Any, base_dir: str) -> str | None:
    """Why an image the model never asked for cannot be used (None: usable): no decoding for files and bytes."""
    from PIL import Image

    if isinstance(ref, Mapping) and ref.get("bytes"):
        try:
            Image.open(io.BytesIO(ref["bytes"])).close()
        except Exception as err:  # noqa: BLE001
            return str(err)
        return None
    ref = (ref.get("path") or "") if isinstance(ref, Mapping) else str(ref)
    if ref.startswith(("http://", "https://")):
        store = url_store()
        return None if store.available(ref) else store.failures.get(ref, "unavailable")
    return missing_image_file(ref, base_dir) or images.probe_file(_image_path(ref, base_dir))


def doc_images(settings: Settings, doc: Mapping[str, Any], label: str) -> list:
    """The row's images that load (an image that cannot be loaded is left out and recorded:
    docs/failure_accounting.md)."""
    out = []
    for ref in image_refs(settings, doc):
        key = image_key(ref, settings.base_dir)
        image = (
            load_image(ref, settings.base_dir)
            if key is None
            else images.load(key, partial(load_image, ref, settings.base_dir), label)
        )
        if image is not None:
            out.append(image)
    return out


IMAGE_KEYS = "_food_tasks_image_keys"  # column added to hub datasets with an Image feature (see undecoded_images)


def doc_image_missing(settings: Settings, doc: Mapping[str, Any], label: str = "regional task") -> bool:
    """True when an image of the row could not be given to the model (or, never asked for, fails a cheap check).

    lmms-eval scores documents without their ``Image`` feature columns (unless ``--process_with_media``): the
    keys :func:`undecoded_images` stored then stand for them, and an image never asked for counts as present."""
    if settings.image not in doc and IMAGE_KEYS in doc:
        return images.missing(list(doc[IMAGE_KEYS] or []), lambda key: None, label)
    refs = {key: ref for ref in image_refs(settings, doc) if (key := image_key(ref, settings.base_dir)) is not None}
    return images.missing(list(refs), lambda key: _probe(refs[key], settings.base_dir), label)


def undecoded_images(column: str, dataset: datasets.Dataset) -> datasets.Dataset:
    """``process_docs`` of a task whose image column is a hub ``Image`` feature (or a list of them): the
    images stay undecoded bytes until the model asks for them, so that one that cannot be decoded is found
    by our strict decoding there (``datasets`` would decode it on every row access, leniently under lmms-eval,
    and raise inside the model for bytes that are no image), and each row keeps its images' keys."""
    import datasets

    feature = getattr(dataset, "features", {}).get(column)
    if isinstance(feature, datasets.Image):
        cast = datasets.Image(decode=False)
    elif isinstance(getattr(feature, "feature", None), datasets.Image):
        cast = type(feature)(datasets.Image(decode=False))
    else:
        return dataset
    dataset = dataset.cast_column(column, cast)
    values = dataset.with_format("arrow")[column].to_pylist()
    keys = [[image_key(v, ".") for v in (value if isinstance(value, list) else [value]) if v] for value in values]
    return dataset.add_column(IMAGE_KEYS, [[k for k in row if k] for row in keys])


@lru_cache(maxsize=1)
def url_store() -> UrlImageStore:
    """One image store per process: URLs are fetched once into the shared cache."""
    from food_tasks.data import remote

    return remote.default_image_store()


# --------------------------------------------------------------------------- scoring


def score(settings: Settings, doc: Mapping[str, Any], output: object, label: str = "regional task") -> dict[str, Any]:
    """One record per document: correct / parsed flags, the slice values, whether an image was missing."""
    record: dict[str, Any] = {
        "id": cell_text(doc.get(settings.id)) if settings.id else None,
        "slices": {s: slices.record_slice(doc.get(s), settings.slice_fill) for s in settings.slices},
    }
    if settings.cluster:
        record["cluster"] = cell_text(doc.get(settings.cluster))
    if settings.image:
        record["image_missing"] = doc_image_missing(settings, doc, label)
    if settings.image_optional:
        record["text_only"] = not image_refs(settings, doc)
    where = f"row {record['id']}" if settings.id else "a row"
    if settings.format in ("multi", "numeric"):
        if problem := answer_problem(settings, doc):  # bad data is an error, never a silent zero
            raise RegionalConfigError(f"{where}: {problem}; run `food-tasks validate` on the task YAML")
        record.update(_scored(settings, doc, output))
        return record
    if settings.format == "mcq":
        options = doc_options(settings, doc)
        labels = settings.labels[: len(options)]
        pred = extract_choice(output, labels, options=options)
        gold = gold_index(settings, doc)
        if gold is None:  # bad data is an error, never a silent zero
            problem = answer_problem(settings, doc)
            raise RegionalConfigError(f"{where}: {problem}; run `food-tasks validate` on the task YAML")
        record.update(
            parsed=pred is not None,
            correct=pred is not None and pred == gold,
            pred=labels[pred] if pred is not None else None,
        )
        return record
    text = strip_reasoning(output)
    golds = [option_key(normalize_chars(g)) for g in gold_answers(settings, doc)]
    if not any(golds):
        raise RegionalConfigError(f"{where}: missing answer; run `food-tasks validate` on the task YAML")
    out = option_key(normalize_chars(text)) if text else ""
    record.update(
        parsed=bool(out), exact=bool(out) and out in golds, correct=bool(out) and any(g and g in out for g in golds)
    )
    if settings.judge is not None:  # what the judge is shown, judged when the task aggregates (judged.py)
        prediction = text.strip() if isinstance(text, str) else ""
        # text addressed to the judge (food_tasks.judge.injection): flagged per row, as a benchmark's judged records
        # are, and counted in judge_injection_suspect_rate (rows with an image missing are not); never altered
        signals = injection.signals(prediction, judge_markers(settings.judge.prompt))
        record.update(
            question=cell_text(doc.get(settings.question)),
            gold=ANSWER_JOIN.join(gold_answers(settings, doc)),
            prediction=prediction,
            injection_suspect=bool(signals),
            injection_signals=signals,
        )
    return record


def _scored(settings: Settings, doc: Mapping[str, Any], output: object) -> dict[str, Any]:
    """``parsed``, ``correct`` and ``pred`` of a ``multi`` row (exact set match), and ``abs_error`` of a ``numeric``
    one (None when unparsed) (:mod:`food_tasks.regional_tasks.answers`)."""
    cell = doc.get(settings.answer)
    if settings.format == "multi":
        options = doc_options(settings, doc)
        labels = settings.labels[: len(options)]
        chosen = answers.extract_choices(output, labels, options)
        gold, _ = answers.gold_set(cell, settings.labels, options)
        pred = ",".join(labels[i] for i in sorted(chosen)) if chosen is not None else None
        return {"parsed": chosen is not None, "correct": chosen == gold, "pred": pred}
    number, gold = answers.extract_number(output), answers.parse_number(cell)
    assert gold is not None  # answer_problem refused it otherwise
    tolerance = {"absolute": settings.tolerance[0], "relative": settings.tolerance[1]}
    return {
        "parsed": number is not None,
        "correct": number is not None and answers.within(number, gold, tolerance),
        "pred": number,
        "abs_error": abs(number - gold) if number is not None else None,
    }


@lru_cache(maxsize=8)
def judge_markers(prompt: str) -> tuple[str, ...]:
    """The judge prompt's field markers an answer could fake (:func:`food_tasks.regional_tasks.judged.markers`),
    worked out once per prompt."""
    return judged.markers(prompt)


def _present(records: Sequence[Mapping[str, Any]]) -> list[Mapping[str, Any]]:
    """The records every metric counts: rows whose images all reached the model."""
    return [r for r in records if not r.get("image_missing")]


def micro(field_name: str, records: Sequence[Mapping[str, Any]]) -> float:
    """Percentage of documents whose ``field_name`` is true."""
    return metrics.percent_true(_present(records), field_name)


def unparsed_rate(records: Sequence[Mapping[str, Any]]) -> float:
    """Percentage of outputs that give no answer (unparseable MCQ letter, empty open answer)."""
    records = _present(records)
    return 100.0 - metrics.percent_true(records, "parsed") if records else 0.0


def image_missing(records: Sequence[Mapping[str, Any]]) -> int:
    """Rows left out of every metric because an image could not be loaded."""
    return sum(bool(r.get("image_missing")) for r in records)


def by_slice(column: str, records: Sequence[Mapping[str, Any]]) -> dict[str, float]:
    """Accuracy (%) per value of one slice column, values sorted (a row in several slices counts in each:
    :mod:`food_tasks.regional_tasks.slices`)."""
    return slices.by_slice(column, records)


def slice_sizes(column: str, records: Sequence[Mapping[str, Any]]) -> dict[str, int]:
    """Documents per value of one slice column, values sorted (the group sizes behind ``acc_by_<column>``: rows
    with an image that could not be loaded are not in them; a row in several slices counts in each)."""
    return slices.slice_sizes(column, records)


def text_only(records: Sequence[Mapping[str, Any]]) -> int:
    """Rows asked with their text alone (``image_optional``: an empty image cell), counted in every metric."""
    return sum(bool(r.get("text_only")) for r in records)


def mean_abs_error(records: Sequence[Mapping[str, Any]]) -> float:
    """Mean absolute error of the parsed numeric answers (rows whose images all loaded); NaN (null) when none."""
    errors = [r["abs_error"] for r in _present(records) if r.get("abs_error") is not None]
    return sum(sorted(errors)) / len(errors) if errors else math.nan


def metric_table(settings: Settings) -> MetricTable:
    """The task's metrics: accuracy (exact match too for open answers, the mean absolute error for numbers), the
    unparsed and truncated rates, and per slice column its accuracy per value and the number of documents per value;
    a judged task's judge figures (per slice too), first when ``judge.headline`` is true.

    Error bars: each row is a document (its ``id``); with ``metadata.regional.cluster`` naming a column (the
    dish, the image), rows sharing its value are resampled together.
    """
    table = [Metric("acc", partial(micro, "correct"), estimator=_mean("correct"))]
    if settings.format == "open":
        table.append(Metric("exact_match", partial(micro, "exact"), estimator=_mean("exact")))
    if settings.format == "numeric":  # over the parsed answers; an unparsed one is in parse_fail_rate
        error = stats.mean(stats.field("abs_error", unless="image_missing"))
        table.append(Metric("abs_error", mean_abs_error, higher_is_better=False, scale="native", estimator=error))
    table.append(
        Metric("parse_fail_rate", unparsed_rate, higher_is_better=False, estimator=_mean("parsed", test="not"))
    )
    table.append(TRUNCATED_RATE)  # every task's: outputs that ran out of tokens (food_tasks.hooks.truncation)
    for column in settings.slices:
        table += [
            Metric(f"acc_by_{column}", partial(by_slice, column), scale="breakdown"),
            Metric(f"n_by_{column}", partial(slice_sizes, column), scale="breakdown"),
        ]
    if settings.image:
        table.append(Metric("image_missing", image_missing, higher_is_better=False, scale="count"))
    if settings.image_optional:
        table.append(Metric("text_only", text_only, scale="count"))
    headline = None
    if settings.judge is not None:  # judged when the task aggregates, by every judge configured (judged.py)
        judge = judge_metrics(settings.judge)
        for column in settings.slices:
            judge += [
                Metric(f"judge_acc_by_{column}", slices.JudgeBySlice(settings.judge, column), scale="breakdown"),
                Metric(f"judge_n_by_{column}", slices.JudgeBySlice(settings.judge, column, True), scale="breakdown"),
            ]
        if settings.judge_headline:  # the judge's figures lead: the table, compare's headline, the slice charts
            table, headline = [*judge, *table], "judge_acc"
        else:
            table += judge
    key = stats.column("id") if settings.id else None
    # the results JSON's <metric>_stderr_method names the data column: "3 values of column dish", not "(cluster)"
    cluster = stats.column("cluster", noun=f"values of column {settings.cluster}") if settings.cluster else key
    return MetricTable(*table, version=1.0, key=key, cluster=cluster, headline=headline)


def _mean(name: str, test: str | None = None) -> stats.Ratio:
    """A percentage over the rows whose images all loaded (those with ``image_missing`` do not count)."""
    return stats.mean(stats.field(name, unless="image_missing", test=test), 100.0, binary=True)
