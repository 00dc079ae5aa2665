"""Regional food tasks from one YAML file and one data file, without Python.

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
        format: mcq                    # mcq | open
        id: id
        image: image                   # path relative to the data file, absolute path, URL or hub Image
        question: question
        options: options               # a list column, or a list of column names [opt_a, opt_b, ...]
        answer: answer                 # an option label (B) or the exact text of one option
        slices: [region, language]     # per-slice accuracy tables

lmms-eval hooks receive no task configuration (``process_docs`` and ``process_results`` see only the
data), so the settings are bound to the hooks here, in the task class, from the YAML's own config.
Scoring reuses the core: :func:`food_tasks.parsing.extract_choice` (MCQ), :func:`text_key` matching
(open-ended), :mod:`food_tasks.metrics` reducers, and the one hook convention of :mod:`food_tasks.hooks`
(``process_results`` through :func:`food_tasks.outputs.model_output`, so a failed backend request is no
answer).
"""

from __future__ import annotations

import io
import json
import math
import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from functools import lru_cache, partial
from pathlib import Path
from typing import Any

from food_tasks import images, metrics, stats
from food_tasks.hooks import Metric, MetricTable, aggregate, results_hook
from food_tasks.messages import build_messages
from food_tasks.parsing import extract_choice, normalize_chars, option_key, strip_reasoning

FORMATS = ("mcq", "open")
DEFAULT_LABELS = tuple("ABCDEFGHIJ")
MCQ_PROMPT = "{question}\n{options}\nAnswer with the option's letter from the given choices directly."
OPEN_PROMPT = "{question}\nAnswer the question using a single word or phrase."
OPTION_LINE = "{label}. {option}"
SETTING_KEYS = {"format", "id", "image", "question", "options", "answer", "labels", "slices", "prompt",
                "option_format", "system", "cluster"}  # fmt: skip
MAX_LINE_PROBLEMS = 10  # lines of one kind of data problem shown; the count of the others follows
DEFAULT_GENERATION = {"max_new_tokens": 64, "temperature": 0, "do_sample": False, "num_beams": 1, "until": []}


class RegionalConfigError(ValueError):
    """A regional task YAML is malformed; the message names the key and what to write."""


class RegionalDataError(RegionalConfigError):
    """A regional task's local data file is missing or malformed; the message names the file and line."""


@dataclass(frozen=True)
class Settings:
    """The ``metadata.regional`` block of a regional task YAML, checked."""

    format: str
    question: str
    answer: str
    id: str | None = None
    image: str | None = None
    options: str | tuple[str, ...] | None = None
    labels: tuple[str, ...] = DEFAULT_LABELS
    slices: tuple[str, ...] = ()
    prompt: str = ""
    option_format: str = OPTION_LINE
    system: str | None = None
    cluster: str | None = None  # column whose rows share a context (resampled together for standard errors)
    base_dir: str = "."  # directory of the local data file: relative image paths start there
    columns_used: tuple[str, ...] = field(default=())

    @classmethod
    def from_metadata(cls, metadata: Any, base_dir: str | os.PathLike = ".") -> Settings:
        """Checks ``metadata.regional``; raises :class:`RegionalConfigError` listing every problem."""
        problems = settings_problems(metadata)
        if problems:
            raise RegionalConfigError("food-tasks regional task: " + "; ".join(problems))
        block = dict(metadata["regional"])
        fmt = block["format"]
        options = block.get("options")
        if isinstance(options, list):
            options = tuple(str(o) for o in options)
        labels = tuple(str(x) for x in block.get("labels") or DEFAULT_LABELS)
        slices = tuple(str(s) for s in block.get("slices") or ())
        default = MCQ_PROMPT if fmt == "mcq" else OPEN_PROMPT
        if fmt == "mcq" and all(label.isdigit() for label in labels):
            default = default.replace("option's letter", "option's number")
        prompt = block.get("prompt") or default
        used = [block["question"], block["answer"], *(c for c in (block.get("id"), block.get("image")) if c)]
        used += list(options) if isinstance(options, tuple) else ([options] if options else [])
        return cls(format=fmt, question=str(block["question"]), answer=str(block["answer"]), id=block.get("id"),
                   image=block.get("image"), options=options, labels=labels, slices=slices, prompt=prompt,
                   option_format=block.get("option_format") or OPTION_LINE, system=block.get("system"),
                   cluster=block.get("cluster"), base_dir=str(base_dir),
                   columns_used=tuple(dict.fromkeys([*used, *slices, *([block["cluster"]] if block.get("cluster") else [])])))  # fmt: skip


def settings_problems(metadata: Any) -> list[str]:
    """Every problem of a ``metadata`` mapping's ``regional`` block, one short sentence each."""
    if not isinstance(metadata, Mapping) or not isinstance(metadata.get("regional"), Mapping):
        return ["metadata.regional is missing: add a `regional:` block under `metadata:` (see CONTRIBUTING.md)"]
    block = metadata["regional"]
    problems = [f"metadata.regional.{k}: unknown key (known: {', '.join(sorted(SETTING_KEYS))})" for k in block if k not in SETTING_KEYS]
    cluster = block.get("cluster")
    if cluster is not None and not (isinstance(cluster, str) and cluster):
        problems.append("metadata.regional.cluster: name the data column whose rows share a context (e.g. dish)")
    fmt = block.get("format")
    if fmt not in FORMATS:
        problems.append(f"metadata.regional.format: {fmt!r} is not one of {', '.join(FORMATS)}")
    for key in ("question", "answer"):
        if not isinstance(block.get(key), str) or not block.get(key):
            problems.append(f"metadata.regional.{key}: name the data column holding the {key}")
    options = block.get("options")
    if fmt == "mcq":
        if not (isinstance(options, str) and options) and not (isinstance(options, list) and len(options) >= 2 and all(isinstance(o, str) for o in options)):
            problems.append("metadata.regional.options: name a list column, or list two or more option columns")
        labels = block.get("labels")
        if labels is not None and (not isinstance(labels, list) or len(set(map(str, labels))) != len(labels) or not labels):
            problems.append("metadata.regional.labels: give a list of distinct labels, e.g. [A, B, C, D]")
        n_labels = len(labels) if isinstance(labels, list) else len(DEFAULT_LABELS)
        if isinstance(options, list) and n_labels < len(options):
            problems.append(f"metadata.regional.labels: {n_labels} labels for {len(options)} option columns")
    slices = block.get("slices")
    if slices is not None and (not isinstance(slices, list) or not all(isinstance(s, str) for s in slices)):
        problems.append("metadata.regional.slices: give a list of column names, e.g. [region, language]")
    for key in ("id", "image", "prompt", "option_format", "system"):
        if block.get(key) is not None and not isinstance(block[key], str):
            problems.append(f"metadata.regional.{key}: must be a string")
    prompt = block.get("prompt")
    if isinstance(prompt, str) and "{question}" not in prompt:
        problems.append("metadata.regional.prompt: must contain {question}")
    return problems


def data_base_dir(dataset_kwargs: Any) -> str:
    """Directory of the task's first local data file, absolute.

    lmms-eval anchors ``data_files`` at the YAML's directory as it was given: absolute for an absolute
    ``--include_path``, relative to the working directory for a relative one (``--include_path
    examples/regional``), so a relative path is made absolute here, against the same working directory.
    """
    files = (dataset_kwargs or {}).get("data_files") if isinstance(dataset_kwargs, Mapping) else None
    while isinstance(files, (Mapping, list, tuple)) and files:
        files = next(iter(files.values())) if isinstance(files, Mapping) else files[0]
    return str(Path(os.path.abspath(files)).parent) if isinstance(files, str) else "."


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


def doc_text(settings: Settings, doc: Mapping[str, Any]) -> str:
    """The prompt: ``prompt`` with ``{question}``, ``{options}`` (one line per option) and any column."""
    fields = {k: cell_text(v) for k, v in doc.items() if isinstance(v, (str, int, float)) or v is None}
    fields["question"] = cell_text(doc.get(settings.question))
    if settings.format == "mcq":
        lines = [settings.option_format.format(label=lab, option=opt) for lab, opt in zip(settings.labels, doc_options(settings, doc))]
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


def load_image(ref: Any, base_dir: str, store: Any = None):  # type: ignore[no-untyped-def]
    """One image as RGB PIL: a PIL image, a hub Image dict, a URL, or a path (relative to ``base_dir``).
    Decoded strictly: a file cut short fails (:func:`food_tasks.images.decode`).

    Raises:
        FileNotFoundError / ValueError: with the reference and what to check (a
        :class:`food_tasks.data.CorruptImageError`, a ValueError, for bytes that do not decode).
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
        store = store or _url_store()
        image = store.get(ref)
        if image is None:
            raise FileNotFoundError(f"image {ref}: {store.failures.get(ref, 'unavailable')}")
        return image
    path = _image_path(ref, base_dir)
    if not path.is_file():
        raise FileNotFoundError(f"image {ref}: no file {path} (paths are relative to the data file)")
    return images.rgb(images.decode_file(path, f"image {ref}"))


def _image_path(ref: str, base_dir: str) -> Path:
    return Path(ref) if os.path.isabs(ref) else Path(base_dir) / ref


def image_key(ref: Any, base_dir: str) -> str | None:
    """What identifies an image in :mod:`food_tasks.images`' record: its URL, file path or bytes' digest
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
        store = _url_store()
        return None if store.available(ref) else store.failures.get(ref, "unavailable")
    path = _image_path(ref, base_dir)
    return images.probe_file(path) if path.is_file() else f"image {ref}: no file {path} (paths are relative to the data file)"


def doc_images(settings: Settings, doc: Mapping[str, Any], label: str) -> list:
    """The row's images that load (an image that cannot be loaded is left out and recorded: README "Failure accounting")."""
    out = []
    for ref in image_refs(settings, doc):
        key = image_key(ref, settings.base_dir)
        image = load_image(ref, settings.base_dir) if key is None else images.load(key, partial(load_image, ref, settings.base_dir), label)
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


def undecoded_images(column: str, dataset):  # type: ignore[no-untyped-def]
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
def _url_store():  # type: ignore[no-untyped-def]
    """One image store per process: URLs are fetched once into the shared cache."""
    from food_tasks import remote

    return remote.default_image_store()


# --------------------------------------------------------------------------- scoring


def score(settings: Settings, doc: Mapping[str, Any], output: object, label: str = "regional task") -> dict[str, Any]:
    """One record per document: correct / parsed flags, the slice values, whether an image was missing."""
    record: dict[str, Any] = {"id": cell_text(doc.get(settings.id)) if settings.id else None,
                              "slices": {s: cell_text(doc.get(s)) for s in settings.slices}}  # fmt: skip
    if settings.cluster:
        record["cluster"] = cell_text(doc.get(settings.cluster))
    if settings.image:
        record["image_missing"] = doc_image_missing(settings, doc, label)
    where = f"row {record['id']}" if settings.id else "a row"
    if settings.format == "mcq":
        options = doc_options(settings, doc)
        labels = settings.labels[: len(options)]
        pred = extract_choice(output, labels, options=options)
        gold = gold_index(settings, doc)
        if gold is None:  # bad data is an error, never a silent zero
            raise RegionalConfigError(f"{where}: answer {cell_text(doc.get(settings.answer))!r} is neither a label nor the "
                                      f"text of one option; run `food-tasks validate` on the task YAML")  # fmt: skip
        record.update(parsed=pred is not None, correct=pred is not None and pred == gold,
                      pred=labels[pred] if pred is not None else None)  # fmt: skip
        return record
    text = strip_reasoning(output)
    golds = [option_key(normalize_chars(g)) for g in gold_answers(settings, doc)]
    if not any(golds):
        raise RegionalConfigError(f"{where}: empty answer; run `food-tasks validate` on the task YAML")
    out = option_key(normalize_chars(text)) if text else ""
    record.update(parsed=bool(out), exact=bool(out) and out in golds,
                  correct=bool(out) and any(g and g in out for g in golds))  # fmt: skip
    return record


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
    """Accuracy (%) per value of one slice column, values sorted."""
    groups = metrics.group_records(({**r, "_slice": r["slices"][column]} for r in _present(records)), "_slice")
    return {value: metrics.percent_true(groups[value], "correct") for value in sorted(groups)}


def slice_sizes(column: str, records: Sequence[Mapping[str, Any]]) -> dict[str, int]:
    """Documents per value of one slice column, values sorted (the group sizes behind ``acc_by_<column>``: rows
    with an image that could not be loaded are not in them)."""
    groups = metrics.group_records(({**r, "_slice": r["slices"][column]} for r in _present(records)), "_slice")
    return {value: len(groups[value]) for value in sorted(groups)}


def metric_table(settings: Settings) -> MetricTable:
    """The task's metrics: accuracy (and exact match for open answers), the unparsed rate, and per slice
    column its accuracy per value and the number of documents per value.

    Error bars: each row is a document (its ``id``); with ``metadata.regional.cluster`` naming a column (the
    dish, the image), rows sharing its value are resampled together.
    """
    table = [Metric("acc", partial(micro, "correct"), estimator=_mean("correct"))]
    if settings.format == "open":
        table.append(Metric("exact_match", partial(micro, "exact"), estimator=_mean("exact")))
    table.append(Metric("parse_fail_rate", unparsed_rate, higher_is_better=False, estimator=_mean("parsed", test="not")))
    for column in settings.slices:
        table += [Metric(f"acc_by_{column}", partial(by_slice, column), scale="breakdown"),
                  Metric(f"n_by_{column}", partial(slice_sizes, column), scale="breakdown")]  # fmt: skip
    if settings.image:
        table.append(Metric("image_missing", image_missing, higher_is_better=False, scale="count"))
    key = stats.column("id") if settings.id else None
    cluster = stats.column("cluster") if settings.cluster else key
    return MetricTable(*table, version=1.0, key=key, cluster=cluster)


def _mean(name: str, test: str | None = None) -> stats.Ratio:
    """A percentage over the rows whose images all loaded (those with ``image_missing`` do not count)."""
    return stats.mean(stats.field(name, unless="image_missing", test=test), 100.0, binary=True)


# --------------------------------------------------------------------------- task class


def _task_bases():  # type: ignore[no-untyped-def]
    from lmms_eval.api.task import ConfigurableMessagesTask, ConfigurableTask

    return ConfigurableTask, ConfigurableMessagesTask


def requested_task_type() -> str:
    """``"chat"`` or ``"simple"``: the kind of task object lmms-eval is loading right now.

    lmms-eval builds a ``class:`` task with ``cls(config=...)`` and does not pass the kind it chose for the
    model (chat models need ``ConfigurableMessagesTask`` requests); it passes it to the public
    ``TaskManager.load_task_or_group(task_list, task_type)``, around which :mod:`food_tasks.harness` sets
    :data:`food_tasks.harness.TASK_TYPE`. Outside such a call (or with the harness hooks off): ``"chat"``.
    """
    from food_tasks.harness import TASK_TYPE

    return TASK_TYPE.get()


def _bind(config: dict) -> dict:
    """The task config with our hooks, metric list and defaults filled in from ``metadata.regional``."""
    config = {k: v for k, v in config.items() if k != "class"}
    task = config.get("task", "?")
    try:
        settings = Settings.from_metadata(config.get("metadata"), data_base_dir(config.get("dataset_kwargs")))
    except RegionalConfigError as err:
        raise RegionalConfigError(f"{err} (task {task}; check the YAML with `food-tasks validate <task yaml>`)") from None

    def visual(doc):  # type: ignore[no-untyped-def]
        return doc_images(settings, doc, task)  # an image that cannot be loaded is left out, the row counted in image_missing

    def text(doc, lmms_eval_specific_kwargs=None):  # type: ignore[no-untyped-def]
        return doc_text(settings, doc)

    def messages(doc, lmms_eval_specific_kwargs=None):  # type: ignore[no-untyped-def]
        return build_messages(visual(doc), doc_text(settings, doc), system=settings.system)

    split = str(config.get("test_split") or "test")
    data_name = str(config.get("dataset_path"))
    if data_name in LOCAL_BUILDERS:
        files = _local_files(config, Path(".")).get(split, [])  # lmms-eval anchored them at the YAML's folder
        problems = data_file_problems(data_name, files)
        if problems:
            raise RegionalDataError("\n".join(problems))
        data_name = ", ".join(p.name for p in files)

    def checked_docs(dataset):  # type: ignore[no-untyped-def]
        # A row whose answer cannot be scored would stop the run after generation (in process_results).
        problems = answer_problems(settings, dataset, data_name)
        if problems:
            raise _stop(config, "data error", "\n".join(problems))
        return dataset

    if "process_docs" not in config:
        if settings.image:  # hub Image columns stay undecoded until the model asks (undecoded_images)
            config["process_docs"] = lambda dataset: undecoded_images(settings.image, checked_docs(dataset))
        else:
            config["process_docs"] = checked_docs
    table = metric_table(settings)
    process_results = results_hook(partial(score, settings, label=task), table)

    config.setdefault("output_type", "generate_until")
    config.setdefault("test_split", "test")
    config.setdefault("generation_kwargs", dict(DEFAULT_GENERATION))
    config.setdefault("reasoning_tags", "none")  # extract_choice strips reasoning itself (unterminated = unparsed)
    config.update(doc_to_visual=visual, doc_to_text=text, doc_to_messages=messages, process_results=process_results,
                  doc_to_target=settings.answer,
                  metric_list=[{"metric": m.name, "aggregation": aggregate, "higher_is_better": m.higher_is_better}
                               for m in table.values()])  # fmt: skip
    return config


def answer_problems(settings: Settings, dataset: Any, data_name: str, limit: int = MAX_LINE_PROBLEMS) -> list[str]:
    """Rows whose answer cannot be scored: an MCQ answer that is neither a label nor one option's text, an
    empty open answer (at most ``limit`` lines, then a count). Reads only the columns it needs (no images)."""
    needed = [c for c in (settings.id, settings.answer, *(settings.options if isinstance(settings.options, tuple) else
                                                          (settings.options,) if settings.options else ())) if c]  # fmt: skip
    names = getattr(dataset, "column_names", None)
    rows = dataset.select_columns([c for c in needed if c in names]) if names is not None else dataset
    problems: list[str] = []
    for number, row in enumerate(rows, start=1):
        rid = cell_text(row.get(settings.id)) if settings.id else ""
        at = f"{data_name}: row {number}" + (f" (id {rid})" if rid else "") + f", column '{settings.answer}'"
        if settings.format == "mcq":
            if gold_index(settings, row) is None:
                labels = "/".join(settings.labels[: len(doc_options(settings, row))])
                problems.append(f"{at}: answer {cell_text(row.get(settings.answer))!r} is neither a label ({labels}) nor the text of one option")
        elif not gold_answers(settings, row):
            problems.append(f"{at}: empty answer")
    if len(problems) > limit:
        problems = problems[:limit] + [f"{data_name}: {len(problems) - limit} more row(s) like these"]
    return problems


def _stop(config: Mapping[str, Any], what: str, detail: str):  # type: ignore[no-untyped-def]
    from food_tasks.data import RunStopped

    task = config.get("task", "?")
    hint = "" if "food-tasks validate" in detail else "\nCheck the task with `food-tasks validate <the task's YAML>`."
    return RunStopped(f"food-tasks: regional task {task}: {what}, the run stops before generation:\n{detail}{hint}")


def innermost(err: BaseException) -> BaseException:
    """The error behind ``err``: a tenacity ``RetryError``'s last attempt, a ``datasets``
    ``DatasetGenerationError``'s cause ..., which names the file and what is wrong."""
    seen = set()
    while id(err) not in seen:
        seen.add(id(err))
        last = getattr(err, "last_attempt", None)  # tenacity.RetryError
        inner = last.exception() if last is not None and hasattr(last, "exception") else None
        inner = inner or err.__cause__ or err.__context__
        if inner is None:
            break
        err = inner
    return err


def root_cause(err: BaseException) -> str:
    """``Type: message`` of :func:`innermost`."""
    inner = innermost(err)
    return f"{type(inner).__name__}: {inner}"


def _make_task_classes():  # type: ignore[no-untyped-def]
    base, chat_base = _task_bases()

    class RegionalTask(base):  # type: ignore[misc, valid-type]
        """lmms-eval task class of a regional YAML (``class: !function food_tasks.regional.RegionalTask``)."""

        def __new__(cls, config=None, **kwargs):  # type: ignore[no-untyped-def]
            chosen = RegionalChatTask if cls is RegionalTask and requested_task_type() == "chat" else cls
            return super().__new__(chosen)

        def __init__(self, config=None, **kwargs):  # type: ignore[no-untyped-def]
            # lmms-eval catches every Exception of task loading (retrying the data download 5 times first),
            # prints it and exits 0: a regional task that cannot be built stops the run (exit status 1).
            config = dict(config or {})
            try:
                bound = _bind(config)
            except RegionalConfigError as err:
                raise _stop(config, "data error" if isinstance(err, RegionalDataError) else "configuration error", str(err)) from None
            try:
                super().__init__(config=bound, **kwargs)
            except Exception as err:  # noqa: BLE001  (the data could not be loaded: our message, exit status 1)
                cause = innermost(err)
                if isinstance(cause, RegionalConfigError):  # raised by our hooks (the prompt names no column ...)
                    raise _stop(config, "configuration error", str(cause)) from err
                raise _stop(config, "data error", root_cause(err)) from err

    class RegionalChatTask(RegionalTask, chat_base):  # type: ignore[misc, valid-type]
        """The same task for chat models (requests carry ``doc_to_messages``)."""

    return RegionalTask, RegionalChatTask


def __getattr__(name: str):  # type: ignore[no-untyped-def]
    # lmms-eval is imported only when the task class is asked for (the CLI and validate do not need it).
    if name in ("RegionalTask", "RegionalChatTask"):
        classes = dict(zip(("RegionalTask", "RegionalChatTask"), _make_task_classes()))
        globals().update(classes)
        return classes[name]
    raise AttributeError(name)


# --------------------------------------------------------------------------- validation

LOCAL_BUILDERS = ("json", "csv", "parquet")
TASK_CLASS = "food_tasks.regional.RegionalTask"


def _read_yaml(path: Path) -> dict:
    import yaml

    class _Loader(yaml.SafeLoader):
        pass

    _Loader.add_constructor("!function", lambda loader, node: f"!function {loader.construct_scalar(node)}")
    config = yaml.load(path.read_text(encoding="utf-8"), Loader=_Loader)
    if not isinstance(config, dict):
        raise RegionalConfigError(f"{path}: not a YAML mapping")
    return config


def _local_files(config: dict, yaml_dir: Path) -> dict[str, list[Path]]:
    files = (config.get("dataset_kwargs") or {}).get("data_files")
    if isinstance(files, (str, list)):
        files = {"train": files}
    out: dict[str, list[Path]] = {}
    for split, value in (files or {}).items():
        values = value if isinstance(value, list) else [value]
        out[str(split)] = [Path(v) if os.path.isabs(str(v)) else yaml_dir / str(v) for v in values]
    return out


def data_file_problems(builder: str, files: Sequence[Path]) -> list[str]:
    """What ``datasets`` would report without a line number: a missing local data file, and (``json``) each
    line of a JSON Lines file that is not one JSON object (``<file>: line <n>: <what is wrong>``)."""
    problems: list[str] = []
    for path in files:
        if not path.is_file():
            problems.append(f"{path}: no such data file (relative data_files paths start at the YAML's folder)")
        elif builder == "json":
            problems += json_lines_problems(path)
    return problems


def json_lines_problems(path: Path) -> list[str]:
    """Each line of ``path`` that is not a JSON object, named by its number (1-based); none for a file that
    is one JSON document (a list of objects, which ``datasets`` reads too)."""
    raw = path.read_bytes()
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError as err:
        line = raw[: err.start].count(b"\n") + 1
        return [f"{path.name}: line {line}: not UTF-8 text ({err.reason})"]
    try:
        whole = json.loads(text)
    except ValueError:
        whole = None
    if isinstance(whole, list) and all(isinstance(row, dict) for row in whole):
        return []
    problems: list[str] = []
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        try:
            row = json.loads(line)
        except ValueError as err:
            problems.append(f"{path.name}: line {number}: not valid JSON ({getattr(err, 'msg', err)}, column {getattr(err, 'colno', '?')})")
        else:
            if not isinstance(row, dict):
                problems.append(f"{path.name}: line {number}: a JSON {type(row).__name__}, not an object (one row per line)")
    if len(problems) > MAX_LINE_PROBLEMS:
        problems = problems[:MAX_LINE_PROBLEMS] + [f"{path.name}: {len(problems) - MAX_LINE_PROBLEMS} more line(s) like these"]
    return problems


@dataclass
class Validation:
    """What :func:`check` found: the problems (one line each), and what it checked (:meth:`summary`)."""

    problems: list[str]
    task: str = ""
    data: str = ""  # the data file name(s), or the hub dataset id
    split: str = ""
    rows: int = 0
    format: str = ""
    images: int | None = None  # images opened (None: not opened, --no-images)
    slices: dict[str, int] = field(default_factory=dict)  # slice column -> distinct values

    def summary(self) -> str:
        """One line: the rows, images and slices checked (for a task without problems)."""
        images = "images not opened (--no-images)" if self.images is None else f"{self.images} image(s) opened"
        slices = ", ".join(f"{c} ({n} value{'s' if n != 1 else ''})" for c, n in self.slices.items()) or "none"
        fields = "question, options and answer" if self.format == "mcq" else "question and answer"
        return (f"task {self.task}: {self.rows} row(s) of {self.data} (split {self.split!r}), format {self.format}, every row "
                f"has its {fields}; {images}; slices: {slices}")  # fmt: skip


def validate(yaml_path: str | os.PathLike, *, check_images: bool = True) -> list[str]:
    """Checks a regional task YAML and its data before any model runs.

    Returns:
        One line per problem (``<file>: row <n> (id <id>), column '<c>': <what is wrong>``, or
        ``<file>: line <n>: <what is wrong>`` for a malformed JSON Lines file); empty when valid.
    """
    return check(yaml_path, check_images=check_images).problems


def check(yaml_path: str | os.PathLike, *, check_images: bool = True) -> Validation:
    """:func:`validate`, with what was checked (rows, images, slices) for the success message."""
    path = Path(yaml_path)
    where = str(path)
    if path.is_dir():
        return Validation([f"{where}: is a folder; name the task's YAML file (e.g. {where.rstrip('/')}/<task>.yaml)"])
    if not path.is_file():
        return Validation([f"{where}: no such file"])
    try:
        config = _read_yaml(path)
    except Exception as err:  # noqa: BLE001  (any YAML error is reported, not raised)
        return Validation([f"{where}: cannot read YAML: {err}"])
    problems = []
    if not isinstance(config.get("task"), str) or not config["task"]:
        problems.append(f"{where}: task: give the task a name (lower_snake_case)")
    if config.get("class") != f"!function {TASK_CLASS}":
        problems.append(f"{where}: class: must be `!function {TASK_CLASS}`")
    if not config.get("dataset_path"):
        problems.append(f"{where}: dataset_path: json, csv, parquet or a Hugging Face dataset id")
    problems += [f"{where}: {p}" for p in settings_problems(config.get("metadata"))]
    if problems:
        return Validation(problems)
    split = str(config.get("test_split") or "test")
    builder = str(config["dataset_path"])
    files = _local_files(config, path.parent)
    base_dir = path.parent
    if builder in LOCAL_BUILDERS:
        if split not in files:
            return Validation([f"{where}: dataset_kwargs.data_files: no file for the test split {split!r}"])
        missing = [p for p in files[split] if not p.is_file()]
        if missing:
            return Validation([f"{where}: dataset_kwargs.data_files: {p} does not exist (paths are relative to the YAML)" for p in missing])
        malformed = data_file_problems(builder, files[split])
        if malformed:
            return Validation(malformed)
        base_dir = files[split][0].parent
        data_name = ", ".join(p.name for p in files[split])
    else:
        data_name = builder
    settings = Settings.from_metadata(config["metadata"], base_dir)
    try:
        rows = _load_rows(builder, config, files, split)
    except Exception as err:  # noqa: BLE001
        return Validation([f"{where}: data unreachable ({data_name}, split {split!r}): {root_cause(err)}"])
    if not rows:
        return Validation([f"{data_name}: no rows in split {split!r}"])
    columns = set(rows[0])
    absent = [c for c in settings.columns_used if c not in columns]
    if absent:
        return Validation([f"{data_name}: column '{c}' named in metadata.regional is not in the data (columns: {', '.join(sorted(columns))})" for c in absent])
    try:
        doc_text(settings, rows[0])
    except (ValueError, IndexError) as err:  # RegionalConfigError is a ValueError naming the key itself
        reason = str(err) if isinstance(err, RegionalConfigError) else f"metadata.regional.prompt: {err}"
        return Validation([f"{where}: {reason} (row 1; write literal braces as {{{{ }}}})"])
    problems, images = _row_problems(settings, rows, data_name, check_images)
    return Validation(problems, task=str(config["task"]), data=data_name, split=split, rows=len(rows), format=settings.format,
                      images=images if check_images else None,
                      slices={c: len({cell_text(r.get(c)) for r in rows}) for c in settings.slices})  # fmt: skip


def _load_rows(builder: str, config: dict, files: dict[str, list[Path]], split: str) -> list[dict]:
    import datasets

    kwargs = {k: v for k, v in (config.get("dataset_kwargs") or {}).items() if k != "data_files"}
    if builder in LOCAL_BUILDERS:
        kwargs["data_files"] = {split: [str(p) for p in files[split]]}
    shown = datasets.is_progress_bar_enabled()
    datasets.disable_progress_bars()  # validate prints one line per problem, nothing else
    try:
        ds = datasets.load_dataset(builder, config.get("dataset_name"), split=split, **kwargs)
    finally:
        if shown:
            datasets.enable_progress_bars()
    return [dict(row) for row in ds]


def _row_problems(settings: Settings, rows: list[dict], data_name: str, check_images: bool) -> tuple[list[str], int]:
    """One line per problem of the rows, and the number of images opened (each distinct file or URL once)."""
    problems: list[str] = []
    seen: dict[str, int] = {}
    opened: dict[str, str | None] = {}  # image reference -> problem (each distinct file or URL opened once)
    unnamed = 0  # images embedded in the data (hub Image cells): opened one by one
    store = None
    for number, row in enumerate(rows, start=1):
        rid = cell_text(row.get(settings.id)) if settings.id else ""
        at = f"{data_name}: row {number}" + (f" (id {rid})" if rid else "")
        if settings.id:
            if not rid.strip():
                problems.append(f"{at}, column '{settings.id}': empty id")
            elif rid in seen:
                problems.append(f"{at}, column '{settings.id}': duplicate id (first at row {seen[rid]})")
            else:
                seen[rid] = number
        if not cell_text(row.get(settings.question)).strip():
            problems.append(f"{at}, column '{settings.question}': empty question")
        if settings.format == "mcq":
            options = doc_options(settings, row)
            column = settings.options if isinstance(settings.options, str) else "/".join(settings.options or ())
            if len(options) < 2:
                problems.append(f"{at}, column '{column}': {len(options)} option(s); need at least 2")
            elif len(options) > len(settings.labels):
                problems.append(f"{at}, column '{column}': {len(options)} options but only {len(settings.labels)} labels")
            elif len({o.strip() for o in options}) != len(options):
                problems.append(f"{at}, column '{column}': duplicate option texts")
            elif gold_index(settings, row) is None:
                labels = "/".join(settings.labels[: len(options)])
                problems.append(f"{at}, column '{settings.answer}': answer {cell_text(row.get(settings.answer))!r} is neither a label ({labels}) nor the text of one option")
        elif not gold_answers(settings, row):
            problems.append(f"{at}, column '{settings.answer}': empty answer")
        for column in settings.slices:
            if not cell_text(row.get(column)).strip():
                problems.append(f"{at}, column '{column}': empty slice value")
        if settings.image:
            refs = image_refs(settings, row)
            if not refs:
                problems.append(f"{at}, column '{settings.image}': no image")
            for ref in refs if check_images else ():
                key = ref if isinstance(ref, str) else None
                unnamed += key is None
                if key is None or key not in opened:
                    problem = None
                    try:
                        if isinstance(ref, str) and ref.startswith(("http://", "https://")):
                            store = store or _url_store()
                        load_image(ref, settings.base_dir, store)
                    except Exception as err:  # noqa: BLE001  (any unreadable image is one problem line)
                        problem = str(err)
                    if key is not None:
                        opened[key] = problem
                else:
                    problem = opened[key]
                if problem:
                    problems.append(f"{at}, column '{settings.image}': {problem}")
    return problems, len(opened) + unnamed
