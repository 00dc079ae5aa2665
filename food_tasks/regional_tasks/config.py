"""The top-level keys of a regional task YAML: which the task honours, which it sets itself, which have no effect.

A regional YAML is an lmms-eval task file, so any lmms-eval task key can be written in it; the task class
(:mod:`food_tasks.regional`) builds the prompt, the target and the metrics from ``metadata.regional`` and so
replaces some of those keys. Nothing is dropped without a word: a key it would replace or that lmms-eval would
reject is an error, a key without effect on a zero-shot generation task a warning, in ``food-tasks validate`` and
when lmms-eval loads the task. Also: which YAMLs under a folder define a task name (two YAMLs defining one name
under an ``--include_path``: lmms-eval uses one of them without a word).
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping
from difflib import get_close_matches
from pathlib import Path
from typing import Any

TASK_CLASS = "food_tasks.regional.RegionalTask"

# lmms-eval task keys the regional task honours as lmms-eval does (TaskConfig fields, plus `class` and `include`).
HONOURED = (
    "task",
    "class",
    "include",
    "task_alias",
    "tag",
    "group",
    "group_alias",
    "dataset_path",
    "dataset_name",
    "dataset_kwargs",
    "test_split",
    "generation_kwargs",
    "model_specific_generation_kwargs",
    "repeats",
    "filter_list",
    "reasoning_tags",
    "auto_strip_thinking",
    "process_docs",
    "full_docs",
    "process_results_use_image",
    "output_type",
    "metadata",
)

_PROMPT = "the regional task builds the prompt from metadata.regional (prompt, option_format, system)"
_METRICS = "the regional task sets its own metrics (CONTRIBUTING.md, 5. Metrics)"
_ZERO_SHOT = "regional tasks are zero-shot (no few-shot examples)"
# Keys the regional task sets itself (the YAML's value would be replaced or never read): errors.
REPLACED = {
    "doc_to_visual": "the regional task loads images from metadata.regional.image",
    "doc_to_text": _PROMPT,
    "doc_to_messages": _PROMPT,
    "use_prompt": _PROMPT,
    "description": _PROMPT,
    "lmms_eval_specific_kwargs": _PROMPT + "; pre_prompt and post_prompt are not read",
    "doc_to_target": "the regional task reads the answer from metadata.regional.answer",
    "model_specific_target_kwargs": "the regional task reads the answer from metadata.regional.answer",
    "doc_to_choice": "the regional task reads the options from metadata.regional.options",
    "process_results": _METRICS,
    "metric_list": _METRICS,
    "score_key": _METRICS,
    "cluster_key": "name the cluster column in metadata.regional.cluster",
    "num_fewshot": _ZERO_SHOT,
    "fewshot_config": _ZERO_SHOT,
}
# Keys that change nothing in a zero-shot generation task: warnings.
UNUSED = {
    "training_split": "not read: a regional task evaluates test_split only",
    "validation_split": "not read: a regional task evaluates test_split only",
    "fewshot_split": "not read: " + _ZERO_SHOT,
    "fewshot_delimiter": "not read: " + _ZERO_SHOT,
    "target_delimiter": "not read: " + _ZERO_SHOT,
    "should_decontaminate": "not read by a regional task",
    "doc_to_decontamination_query": "not read by a regional task",
}
# generation_kwargs keys that lmms-eval's models or transformers' generate() read: another key (a typo such as
# `temprature`) is a warning, not an error, since a model may read keys of its own.
GENERATION_KEYS = frozenset(
    "until max_new_tokens max_gen_toks max_tokens max_completion_tokens max_length min_length min_new_tokens "
    "temperature top_p top_k min_p typical_p do_sample num_beams num_beam_groups diversity_penalty early_stopping "
    "repetition_penalty length_penalty no_repeat_ngram_size presence_penalty frequency_penalty bad_words_ids "
    "eos_token_id pad_token_id bos_token_id stop stopping_criteria seed n num_return_sequences use_cache "
    "image_aspect_ratio image_sizes modalities max_pixels min_pixels fps num_frames system_prompt remove_think "
    "enable_thinking thinking_budget reasoning_effort response_format logprobs top_logprobs".split()
)


def generation_problems(kwargs: Any) -> list[str]:
    """One warning line per ``generation_kwargs`` key no model of lmms-eval nor ``generate()`` would read."""
    if not isinstance(kwargs, Mapping):
        return []
    lines = []
    for key in kwargs:
        if str(key) in GENERATION_KEYS:
            continue
        close = get_close_matches(str(key), sorted(GENERATION_KEYS), n=1)
        hint = f" (did you mean {close[0]}?)" if close else ""
        lines.append(f"generation_kwargs.{key}: unknown to models, may be ignored{hint}")
    return lines


def fit(text: str, width: int = 120) -> str:
    """``text`` with each line wrapped to ``width`` columns (continuation lines indented 4 more than the line)."""
    import textwrap

    out = []
    for line in text.splitlines() or [""]:
        if len(line.split()) <= 2:  # a path, or a label and a path: breaking it helps no one
            out.append(line)
            continue
        indent = line[: len(line) - len(line.lstrip())]
        wrap = textwrap.wrap(
            line.strip(),
            width=width,
            initial_indent=indent,
            subsequent_indent=indent + "    ",
            break_long_words=False,
            break_on_hyphens=False,
        )
        out += wrap or [line]
    return "\n".join(out)


def key_problems(config: Mapping[str, Any]) -> tuple[list[str], list[str]]:
    """``(errors, warnings)`` for the top-level keys of a regional task YAML, one ``<key>: <why>`` line each."""
    errors: list[str] = []
    warnings: list[str] = []
    for key, value in config.items():
        if key in REPLACED:
            if key == "num_fewshot" and value in (None, 0):
                continue
            errors.append(f"{key}: {REPLACED[key]}; remove it")
        elif key in UNUSED:
            warnings.append(f"{key}: {UNUSED[key]}; remove it")
        elif key == "generation_kwargs":
            warnings += generation_problems(value)
        elif key == "output_type" and value != "generate_until":
            errors.append(f"output_type: {value!r}: regional tasks generate their answer (generate_until); remove it")
        elif key not in HONOURED:
            close = get_close_matches(str(key), HONOURED, n=1)
            fix = f"did you mean {close[0]}?" if close else "remove it"
            errors.append(f"{key}: not an lmms-eval task key (lmms-eval would stop on it); {fix}")
    return errors, warnings


def task_files(folders: Iterable[str | os.PathLike], names: Iterable[str] | None = None) -> dict[str, list[str]]:
    """Task name -> the YAML files defining it under ``folders`` (walked as lmms-eval walks an ``--include_path``).

    With ``names``: every task YAML defining one of them; without: every regional task YAML. Files are read as
    text first and parsed only when they mention a name (or the regional task class), so a large folder is cheap.
    """
    from food_tasks.tasks import catalogue

    wanted = set(names) if names is not None else None
    found: dict[str, list[str]] = {}
    for folder in folders:
        for root, dirs, files in os.walk(folder):
            dirs[:] = [d for d in dirs if d not in ("__pycache__", ".ipynb_checkpoints")]
            for name in sorted(f for f in files if f.endswith(".yaml")):
                path = os.path.join(root, name)
                try:
                    text = Path(path).read_text(encoding="utf-8")
                    if not (any(n in text for n in wanted) if wanted is not None else TASK_CLASS in text):
                        continue
                    config = catalogue.load_yaml(Path(path))
                except Exception:  # noqa: BLE001  (a file that does not read as YAML: lmms-eval skips it too)
                    continue
                task = config.get("task") if isinstance(config, dict) else None
                if not isinstance(task, str) or (wanted is not None and task not in wanted):
                    continue
                if wanted is None and config.get("class") != f"!function {TASK_CLASS}":
                    continue
                if path not in found.setdefault(task, []):
                    found[task].append(path)
    return {task: sorted(paths) for task, paths in found.items()}


def labelled(path: str | os.PathLike, indexed: str | None) -> str:
    """``path`` as :func:`shown`, after ``indexed:`` when it is the YAML lmms-eval indexed (real path ``indexed``),
    ``ignored:`` when another one is (labels rather than a suffix: a long path keeps its line)."""
    if indexed is None:
        return shown(path)
    return f"{'indexed' if os.path.realpath(path) == indexed else 'ignored'}: {shown(path)}"


def shown(path: str | os.PathLike) -> str:
    """A path as a user reads it: relative to the working directory when it lies below it, else absolute."""
    full = os.path.abspath(path)
    try:
        relative = os.path.relpath(full)
    except ValueError:  # another drive (Windows)
        return full
    return full if relative.startswith(os.pardir) else relative
