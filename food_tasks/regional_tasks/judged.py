"""Open-answer regional tasks graded by an LLM judge (``metadata.regional.judge``): the block's settings and checks,
and the task's judge metrics.

The judge model and its endpoint come from the environment, as for every judged task (``FOOD_TASKS_JUDGE_MODEL``,
several judges ``a,b``: docs/judge.md); the YAML chooses the prompt (fields ``{question}``, ``{answer}``,
``{prediction}``; default :data:`JUDGE_PROMPT`), ``max_tokens`` and ``temperature``. Every record is judged by every
judge through the one judge client (cache, retries, failure accounting) when the task aggregates.
"""

from __future__ import annotations

import hashlib
import string
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import TYPE_CHECKING, Any

import numpy as np

from food_tasks.judge import protocol
from food_tasks.stats.agreement import FAILED, NOT_ASKED, UNREADABLE, kappa_combine
from food_tasks.stats.estimators import Estimator, ratio_combine

if TYPE_CHECKING:
    from food_tasks.hooks.convention import Metric
    from food_tasks.judge.panel import Panel
    from food_tasks.judge.verdicts import Item, Judged

JUDGE_KEYS = ("prompt", "max_tokens", "temperature", "headline")  # headline: read and checked in settings.py
JUDGE_FIELDS = ("question", "answer", "prediction")
# The default judge prompt of an open-answer task (metadata.regional.judge without a prompt): English, yes/no.
JUDGE_PROMPT = (
    "You are grading an answer to a question about food. Decide whether the candidate answer means the same as "
    "the reference answer; wording, spelling and language may differ.\n\n"
    "Question:\n{question}\n\n"
    "Reference answer:\n{answer}\n\n"
    "Candidate answer:\n{prediction}\n\n"
    "Is the candidate answer correct? Reply with one word: yes or no."
)
JUDGE_MAX_TOKENS = 16
ANSWER_JOIN = " / "  # several accepted answers in one {answer}


@dataclass(frozen=True)
class JudgeSettings:
    """The ``metadata.regional.judge`` block of an open-answer task: its prompt template (fields ``{question}``,
    ``{answer}``, ``{prediction}``) and the request's ``max_tokens`` and ``temperature``. The judge model and its
    endpoint come from the environment, as for every judged task (``FOOD_TASKS_JUDGE_MODEL``: docs/judge.md).
    ``task``: the task's name, for its warnings (empty where the settings were rebuilt from a results file)."""

    prompt: str = JUDGE_PROMPT
    max_tokens: int = JUDGE_MAX_TOKENS
    temperature: float = 0.0
    task: str = ""

    @property
    def label(self) -> str:
        """What the task's warnings start with: ``regional task <name>``."""
        return f"regional task {self.task}" if self.task else "regional task"

    @property
    def prompt_sha256(self) -> str:
        """The first 12 hex digits of the prompt template's SHA-256 (UTF-8): two runs' prompts told apart."""
        return hashlib.sha256(self.prompt.encode("utf-8")).hexdigest()[:12]

    @classmethod
    def from_block(cls, block: Any) -> JudgeSettings | None:
        """None for no judge (no ``judge`` key, or ``false``); the block is checked by :func:`settings_problems`."""
        if block is None or block is False:
            return None
        block = block if isinstance(block, Mapping) else {}
        return cls(
            prompt=block.get("prompt") or JUDGE_PROMPT,
            max_tokens=int(block.get("max_tokens") or JUDGE_MAX_TOKENS),
            temperature=float(block.get("temperature") or 0.0),
        )

    def fill(self, question: str, answer: str, prediction: str) -> str:
        """The prompt of one row (the values are not scanned for fields again: braces in an answer stay)."""
        return self.prompt.format(question=question, answer=answer, prediction=prediction)


def judge_problems(judge: Any, fmt: Any) -> list[str]:
    """What is wrong with ``metadata.regional.judge``: not a mapping (or ``true``), a task that is not open-answer,
    an unknown key, a prompt with a field other than {question}, {answer}, {prediction} or without {prediction},
    a ``max_tokens`` that is not a positive integer, a ``temperature`` that is not a number from 0 to 2."""
    where = "metadata.regional.judge"
    if judge is not True and not isinstance(judge, Mapping):
        return [f"{where}: give a mapping (prompt, max_tokens, temperature, headline; each optional) or `true`"]
    problems = [] if fmt != "mcq" else [f"{where}: only open-answer tasks (format: open) are judged; remove it"]
    judge = judge if isinstance(judge, Mapping) else {}
    problems += [f"{where}.{k}: unknown key (known: {', '.join(JUDGE_KEYS)})" for k in judge if k not in JUDGE_KEYS]
    prompt = judge.get("prompt")
    if prompt is not None and not isinstance(prompt, str):
        problems.append(f"{where}.prompt: must be a string")
    elif isinstance(prompt, str):
        try:
            parts = [(f, spec, conv) for _, f, spec, conv in string.Formatter().parse(prompt) if f is not None]
        except ValueError as err:
            return [*problems, f"{where}.prompt: {err} (write literal braces as {{{{ }}}})"]
        known = ", ".join(f"{{{f}}}" for f in JUDGE_FIELDS)
        for field, spec, conversion in dict.fromkeys(parts):
            written = "{" + field + (f"!{conversion}" if conversion else "") + (f":{spec}" if spec else "") + "}"
            base = field.split("[", 1)[0].split(".", 1)[0]
            if base not in JUDGE_FIELDS:
                problems.append(f"{where}.prompt: {written} is not one of {known} (write literal braces as {{{{ }}}})")
            elif field != base or spec or conversion:  # {prediction!r}, {prediction[0]}, {prediction:>10}
                problems.append(f"{where}.prompt: {written}: write {{{base}}} alone (no index, conversion or format)")
        if "prediction" not in {f.split("[", 1)[0].split(".", 1)[0] for f, _, _ in parts}:
            problems.append(f"{where}.prompt: must contain {{prediction}} (the model's answer the judge grades)")
    tokens = judge.get("max_tokens")
    if tokens is not None and (isinstance(tokens, bool) or not isinstance(tokens, int) or tokens < 1):
        problems.append(f"{where}.max_tokens: {_yaml(tokens)} is not a positive integer")
    temperature = judge.get("temperature")
    if temperature is not None and (
        isinstance(temperature, bool) or not isinstance(temperature, (int, float)) or not 0 <= temperature <= 2
    ):
        problems.append(f"{where}.temperature: {_yaml(temperature)} is not a number from 0 to 2")
    return problems


def _yaml(value: Any) -> str:
    """A setting's value as its YAML was written (``true``, not Python's ``True``)."""
    return "true" if value is True else "false" if value is False else "null" if value is None else repr(value)


def judge_from_env(purpose: str) -> Panel | None:
    """The judges the environment configures for ``purpose`` (:func:`food_tasks.judge.panel.panel_from_env`; None:
    judging is off, ``FOOD_TASKS_JUDGE_MODEL=none``).

    Raises:
        JudgeNotConfigured: no judge is configured (the message says how), as for every judged task.
    """
    from food_tasks.judge.panel import panel_from_env

    return panel_from_env(purpose)


PURPOSE = "a judged regional task"


def read_verdict(text: str, item: Item) -> bool | None:
    """The judge's yes / no on one answer, read by the judge protocol every judged task shares
    (:func:`food_tasks.judge.protocol.read`): the JSON verdict or the final ``VERDICT:`` line, else the fallback
    reader's closing verdict (a near-verbatim copy of the answer never gives it); None (unreadable) otherwise."""
    return protocol.read(text, item.prediction).verdict


def fill_block(settings: JudgeSettings) -> Callable[[Item, str], str]:
    """The task's text of one robust request: the task's prompt template with the question, the reference answer and,
    in place of ``{prediction}``, the protocol's data block (:func:`food_tasks.judge.protocol.prompt` adds the data
    notice before it and the verdict instruction after it)."""
    return lambda item, block: settings.fill(item.question, item.gold, block)


def markers(prompt: str) -> tuple[str, ...]:
    """The field markers of a judge prompt that an answer could fake: its ``【...】`` and ``[...]`` labels
    (:func:`food_tasks.judge.injection.field_markers`) and the label before ``{answer}`` and ``{prediction}`` (the
    text before the field on its line, else the line above: ``Reference answer:``)."""
    from food_tasks.judge.injection import field_markers

    labels = []
    for name in ("answer", "prediction"):
        at = prompt.find("{" + name + "}")
        if at < 0:
            continue
        before = prompt[:at].rstrip(" ")
        line = before.rsplit("\n", 1)[-1].strip() or before.rstrip("\n").rsplit("\n", 1)[-1].strip()
        if 3 <= len(line) <= 40:
            labels.append(line)
    return tuple(dict.fromkeys([*field_markers(prompt), *labels]))


def items(records: Sequence[Mapping[str, Any]]) -> tuple[list[int], list[Item]]:
    """The judged rows (those whose images all reached the model) as the judge sees them, by position in
    ``records``, ordered by id (requests go out in the same order whatever the documents' order)."""
    from food_tasks.judge.verdicts import Item

    rows = [i for i, r in enumerate(records) if not r.get("image_missing") and "prediction" in r]
    rows.sort(key=lambda i: (str(records[i].get("id") if records[i].get("id") is not None else ""), i))
    out = []
    for i in rows:
        r = records[i]
        key = r.get("id") if r.get("id") is not None else i
        out.append(Item(key, r.get("cluster", key), str(r["question"]), str(r["gold"]), r["prediction"] or None))
    return rows, out


def judged(settings: JudgeSettings, records: Sequence[Mapping[str, Any]]) -> tuple[list[int], Judged] | None:
    """Every judge's verdicts on the task's rows (None: judging is off); through the judges' caches, so the metrics
    and error bars of one task send each request once."""
    from food_tasks.judge.verdicts import judge_robust

    panel = judge_from_env(PURPOSE)
    if panel is None:
        return None
    rows, todo = items(records)
    verdicts = judge_robust(
        todo, fill_block(settings), panel, temperature=settings.temperature, max_tokens=settings.max_tokens
    )
    return rows, verdicts


def suspect_flags(settings: JudgeSettings, records: Sequence[Mapping[str, Any]]) -> list[bool]:
    """Each record's output is an injection suspect (:mod:`food_tasks.judge.injection`), aligned with ``records``:
    the flag ``score`` put in the record (the detector runs once per output, not once per aggregation and error bar),
    else (a record written without it) the detector on its prediction."""
    from food_tasks.judge.injection import suspect

    found = markers(settings.prompt)
    return [
        not r.get("image_missing")
        and (bool(r["injection_suspect"]) if "injection_suspect" in r else suspect(r.get("prediction"), found))
        for r in records
    ]


FIGURES = (
    "judge_acc",
    "judge_error_rate",
    "judge_unparsed_rate",
    "judge_agreement",
    "judge_kappa",
    "judge_majority_acc",
    "judge_flip_rate",
    "judge_injection_suspect_rate",
)
LOWER_IS_BETTER = ("judge_error_rate", "judge_unparsed_rate", "judge_flip_rate", "judge_injection_suspect_rate")


class JudgeFigure(Estimator):
    """One judge figure of a regional task: its value (call it on the records: the metric's reducer) and its error
    bar (an :class:`~food_tasks.stats.estimators.Estimator` whose rows are those of
    :meth:`food_tasks.judge.verdicts.Judged.rows`, put back at the records' places; a row with a missing image is
    zeros). Percent, but ``judge_kappa`` (Cohen's for two judges, Fleiss' for more). ``judge_acc`` is the headline
    judge's: an unreadable reply and an empty answer count wrong, a failed call is left out (NaN where every call
    failed); ``judge_unparsed_rate`` its unreadable replies over its answered calls, ``judge_error_rate`` its failed
    calls over its calls (as every judged task's). NaN (null) with judging off or one judge (agreement, kappa,
    majority), one repeat (flip rate). Picklable: the settings and the name only. ``from_samples``: False but for
    ``judge_injection_suspect_rate`` (read from the answers): the verdicts are not in the samples files, so
    ``food-tasks compare`` gives no paired difference of the others (:mod:`food_tasks.runs.paired`)."""

    def __init__(self, settings: JudgeSettings, name: str) -> None:
        self.settings, self.name = settings, name
        self.from_samples = name == "judge_injection_suspect_rate"

    def __call__(self, records: Sequence[Mapping[str, Any]]) -> float:
        return float(self.combine(self.rows(records).sum(axis=0)))

    def rows(self, records: Sequence[Mapping[str, Any]]) -> np.ndarray:
        """Each record's share of the figure (numerator, denominator; kappa: its verdict table's cells, and with
        three or more judges the judges' number: :func:`food_tasks.stats.agreement.kappa_rows`)."""
        out = np.zeros((len(records), 4 if self.name == "judge_kappa" else 2))
        if self.name == "judge_injection_suspect_rate":
            present = [not r.get("image_missing") for r in records]
            out[:] = np.stack([suspect_flags(self.settings, records), present], axis=1)
            return out
        found = _judged_or_warn(self.settings, records)
        if found is None:
            return out
        rows, verdicts = found
        first = verdicts.codes[:, 0, 0]
        if self.name == "judge_error_rate":  # the headline judge's failed calls over the rows it was sent
            values = np.stack([first == FAILED, first != NOT_ASKED], axis=1).astype(float)
        elif self.name == "judge_unparsed_rate":  # its unreadable replies over its answered calls
            values = np.stack([first == UNREADABLE, first >= UNREADABLE], axis=1).astype(float)
        elif self.name in ("judge_agreement", "judge_kappa", "judge_majority_acc") and len(verdicts.judges) < 2:
            return out
        else:
            values = verdicts.rows("judge_acc_of" if self.name == "judge_acc" else self.name)
        out = np.zeros((len(records), values.shape[1]))
        if len(rows):
            out[rows] = values
        return out

    def combine(self, sums: np.ndarray) -> np.ndarray:
        """The figure from the column sums of :meth:`rows` (kappa from its table, a rate in percent otherwise)."""
        return kappa_combine()(sums) if self.name == "judge_kappa" else ratio_combine(100.0)(sums)

    def counted(self, rows: np.ndarray) -> np.ndarray:
        """Which records count in the figure's denominator (for the number of units an interval rests on)."""
        return np.any(rows != 0, axis=1) if self.name == "judge_kappa" else rows[:, 1] != 0


def _judged_or_warn(settings: JudgeSettings, records: Sequence[Mapping[str, Any]]) -> tuple[list[int], Judged] | None:
    """:func:`judged`; None, with a warning once, where no judge is configured at all (outside a run: ``food-tasks
    compare`` never asks, :attr:`JudgeFigure.from_samples`)."""
    from food_tasks.judge.client import JudgeNotConfigured

    try:
        return judged(settings, records)
    except JudgeNotConfigured as err:
        _warn_once(f"{settings.label}: no value or error bar for the judge metrics: {err}")
        return None


@lru_cache(maxsize=4)
def _warn_once(message: str) -> None:
    from loguru import logger

    logger.warning(message)


@dataclass(frozen=True)
class JudgeInfo:
    """``judge_info`` of a regional task: the headline judge and its endpoint, the prompt (``default`` or
    ``custom``, and ``prompt_sha256``: :attr:`JudgeSettings.prompt_sha256`, which tells two runs' prompts apart),
    every judge's accuracy, flip rate and usage, the figures between judges with their verdict table and
    disagreements (:meth:`food_tasks.judge.verdicts.Judged.info`), the injection suspects' count and up to 5 of them,
    as a benchmark's judged task's ``judge_info`` has them."""

    settings: JudgeSettings

    def __call__(self, records: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
        from food_tasks.judge.client import summarize
        from food_tasks.judge.panel import attempt_warnings, with_probes
        from food_tasks.judge.probes import take_usage
        from food_tasks.judge.verdicts import suspects

        found = _judged_or_warn(self.settings, records)
        if found is None:
            return {"model": None, "note": "judging disabled (FOOD_TASKS_JUDGE_MODEL=none) or not configured"}
        rows, verdicts = found
        for line in verdicts.failures(self.settings.label):
            _warn_once(line)
        headline = verdicts.panel.headline
        flags, examples = suspects(
            verdicts.items,
            [i.prediction for i in verdicts.items],
            markers(self.settings.prompt),
            known=[records[i].get("injection_signals") for i in rows],  # found by score(): not run again
        )
        info = verdicts.info(scale=100.0)
        probed = probe_info(self.settings, verdicts.panel)
        probe_usage = take_usage(probed)
        if "usage" in info:  # the probes' requests counted in
            info["usage"] = with_probes(info["usage"], probe_usage)
        for line in attempt_warnings(self.settings.label, info.get("usage") or {}):  # why, and retries that answered
            _warn_once(line)
        sent = [r for by_repeat in verdicts.answers[:1] for rs in by_repeat for r in rs]
        return {
            **summarize(headline, sent),  # the headline judge's attempts, failures and why, as a benchmark's has them
            "prompt": "default" if self.settings.prompt == JUDGE_PROMPT else "custom",
            "prompt_sha256": self.settings.prompt_sha256,
            "evaluated": len(rows),
            **info,
            "injection_suspects": sum(flags),
            "injection_examples": examples,
            "probes": probed,
        }


def probe_info(settings: JudgeSettings, panel: Any) -> dict[str, Any]:
    """``judge_info["probes"]``: the susceptibility probes (:mod:`food_tasks.judge.probes`) judged by every judge of
    ``panel`` through this task's own robust request (its prompt template, the protocol, its settings)."""
    from food_tasks.judge import probes
    from food_tasks.judge.verdicts import judge_robust

    def ask(items: list[Item]) -> Judged:
        return judge_robust(
            items, fill_block(settings), panel, temperature=settings.temperature, max_tokens=settings.max_tokens
        )

    return probes.run(ask, settings.label, _warn_once)


def judge_metrics(settings: JudgeSettings) -> list[Metric]:
    """The judge metrics of a judged open-answer task: :data:`FIGURES` (each with its error bar), then
    ``judge_info``."""
    from food_tasks.hooks.convention import Metric

    out = [
        Metric(
            name,
            JudgeFigure(settings, name),
            higher_is_better=name not in LOWER_IS_BETTER,
            scale="score" if name == "judge_kappa" else "percent",
            estimator=JudgeFigure(settings, name),
        )
        for name in FIGURES
    ]
    return [*out, Metric("judge_info", JudgeInfo(settings), scale="info")]
