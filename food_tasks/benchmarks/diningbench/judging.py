"""DiningBench VQA's judge step: the official request to the headline judge, every judge of the panel on the robust
prediction (:func:`food_tasks.judge.verdicts.judge`, each repeat), and the judge metrics.

Official (``judge_acc_official``): rows with an empty gold answer are not evaluated; empty or errored predictions are
False without a call; a judge failure is ``__EVAL_ERROR__`` (False); the verdict is read by the official keyword rule;
the request is the official one, byte for byte, to the headline (first) judge, once. Robust (``judge_acc``): the
headline judge's first repeat on the robust prediction, asked and read through the judge protocol
(:mod:`food_tasks.judge.protocol`: the official prompt's rules and data without its output section,
:data:`prompts.JUDGE_PROMPT_ROBUST`, the prediction in a delimited data block, a JSON or final-line verdict; a reply
that follows neither is read by the fallback reader, :func:`food_tasks.judge.reading.verdict_robust`, or is
unreadable; an unreadable reply and an empty prediction count wrong); rows whose judge call
failed are left out of the denominator and counted in ``judge_error_rate`` (every call failed: ``judge_acc`` is NaN,
not 0); ``judge_unparsed_rate`` is the unreadable replies over the headline judge's answered calls; rows with an
undecodable image are not judged robustly.
With several judges (``FOOD_TASKS_JUDGE_MODEL=a,b``) and repeats (``FOOD_TASKS_JUDGE_REPEATS``), every judge judges
every robust prediction every time: ``judge_agreement``, ``judge_kappa``, ``judge_majority_acc`` (null with one
judge), ``judge_flip_rate`` (the headline judge's; null with one repeat); ``judge_rule_disagree_rate`` counts the
headline answers on which the official keyword rule and the robust reading disagree. A one-judge run sends the
official request as before and one robust request (the protocol's) per record.
"""

from __future__ import annotations

import functools
import logging
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from food_tasks.benchmarks.diningbench import parsing, prompts
from food_tasks.judge import injection
from food_tasks.judge.verdicts import Item, Judged, judge_robust
from food_tasks.stats import agreement as A
from food_tasks.stats import uncertainty as stats

CACHES = ("_warn_once",)  # what food_tasks.reset() clears in this module
PURPOSE = "DiningBench VQA"
Record = Mapping[str, Any]

# The judge prompts' field markers (【问题】, 【标准答案】, 【预测答案】, [Question], [Ground Truth],
# [Predicted Answer]): a model output holding one is an injection suspect (food_tasks.judge.injection).
MARKERS = injection.field_markers(prompts.JUDGE_PROMPT_ZH, prompts.JUDGE_PROMPT_EN_UNUSED)
FIGURES = ("judge_agreement", "judge_kappa", "judge_majority_acc", "judge_flip_rate")


def injection_signals(output: object) -> list[str]:
    """What in a model output looks addressed to the judge (:func:`food_tasks.judge.injection.signals`)."""
    return injection.signals(output, MARKERS)


class _OneClient:
    """A one-judge panel around a judge client (what callers that hold a client, such as the parity check, pass)."""

    def __init__(self, client: Any) -> None:
        self.client, self.configs = client, [client.config]

    def ask(
        self,
        texts: Sequence[str],
        *,
        temperature: float,
        max_tokens: int,
        official: bool = False,
        response_format: dict | None = None,
        judges: Sequence[int] | None = None,
    ) -> list:
        """The client's answers, ``[[answers]]`` (one judge, one repeat), as :meth:`Panel.ask` shapes them."""
        from food_tasks.judge.client import request_body

        config = self.client.config
        bodies = [request_body(config, p, temperature=temperature, max_tokens=max_tokens) for p in texts]
        if response_format is not None:
            bodies = [{**b, "response_format": response_format} for b in bodies]
        return [[self.client.complete_many(bodies) if bodies else []]]

    def usage(self, *answers: Any) -> None:
        """None: a bare client keeps no usage per judge."""
        return None


def _fill(item: Item, block: str) -> str:
    """The robust request's task text (:func:`prompts.robust_judge_text`) around the protocol's data block."""
    return prompts.robust_judge_text(item.question, item.gold, block)


@dataclass
class Run:
    """One judging of a task's records: ``rows[i]`` the per-record outcome (None: not evaluated), ``judged`` the
    panel's verdicts on the robust predictions, ``item_of[i]`` a record's item (None: not judged robustly),
    ``official`` the headline judge's answers to the official requests."""

    rows: list[dict[str, bool] | None]
    judged: Judged
    item_of: list[int | None]
    official: list
    panel: Any


def run(records: Sequence[Record], panel: Any) -> Run:
    """Judge ``records`` with ``panel`` (a :class:`food_tasks.judge.panel.Panel`, or one judge client). Requests go
    out in row order (``idx``): the official ones first, then each judge's robust ones."""
    if not hasattr(panel, "ask"):
        panel = _OneClient(panel)
    order = sorted(range(len(records)), key=lambda i: records[i]["idx"])
    rows = [i for i in order if records[i]["gold"]]
    asked = [i for i in rows if not records[i]["error_official"]]
    texts = [
        prompts.judge_prompt(records[i]["question"], records[i]["gold"], records[i]["pred_official"]) for i in asked
    ]
    official = panel.ask(
        texts, temperature=prompts.JUDGE_TEMPERATURE, max_tokens=prompts.JUDGE_MAX_TOKENS, official=True
    )
    official_of = dict(zip(asked, official[0][0] if official else []))
    robust = [i for i in rows if not records[i].get("image_missing")]  # an undecodable image is not judged robustly
    items = [
        Item(
            records[i]["idx"], records[i]["idx"], records[i]["question"], records[i]["gold"], records[i]["pred"] or None
        )
        for i in robust
    ]
    judged = judge_robust(
        items, _fill, panel, temperature=prompts.JUDGE_TEMPERATURE, max_tokens=prompts.JUDGE_MAX_TOKENS
    )
    item_of: list[int | None] = [None] * len(records)
    for k, i in enumerate(robust):
        item_of[i] = k
    out: list[dict[str, bool] | None] = [None] * len(records)
    verdict = A.gave_verdict(judged.codes[:, 0, 0])  # False: every headline call failed, judge_acc is undefined
    for i in rows:
        result, k = official_of.get(i), item_of[i]
        code = int(judged.codes[k, 0, 0]) if k is not None else A.NOT_ASKED
        text = judged.texts[0][0][k] if k is not None else None
        robust_failed = code == A.FAILED
        out[i] = {
            "evaluated": True,
            "correct_official": bool(
                result is not None and result.text is not None and parsing.verdict_official(result.text)
            ),
            "failed": (result is not None and result.text is None) or robust_failed,
            "judged": verdict and not robust_failed and k is not None,
            "correct": code == A.CORRECT,
            "unparsed": code == A.UNREADABLE,
            # the official keyword rule and the robust reading of the same headline answer
            "rule_read": text is not None,
            "rule_disagree": text is not None and parsing.verdict_official(text) != (code == A.CORRECT),
        }
    return Run(out, judged, item_of, official, panel)


def outcomes(records: Sequence[Record], panel: Any) -> dict[str, Any]:
    """The judge rates of a task (fractions), ``evaluated`` and the headline judge's request diagnostics (``info``)."""
    from food_tasks.judge.client import summarize

    done = run(records, panel)
    verdicts = [v for v in done.rows if v is not None]
    kinds = ("correct_official", "correct", "judged", "failed", "unparsed", "rule_read")
    sums = {k: sum(v[k] for v in verdicts) for k in kinds}
    n, judged = len(verdicts), sums["judged"]
    headline = [
        r
        for answers in (done.official[:1], *(a[:1] for a in done.judged.all_answers))
        for by_repeat in answers
        for rs in by_repeat
        for r in rs
    ]
    # Nothing judged because every call failed: no accuracy (NaN), rather than a 0 that looks like a score.
    return {
        "judge_acc": sums["correct"] / judged if judged else (math.nan if n else 0.0),
        "judge_acc_official": sums["correct_official"] / n if n else 0.0,
        "judge_error_rate": sums["failed"] / n if n else 0.0,
        "judge_unparsed_rate": sums["unparsed"] / sums["rule_read"] if sums["rule_read"] else 0.0,
        "evaluated": n,
        "info": summarize(done.panel.configs[0], headline),
        "run": done,
    }


def panel_info(records: Sequence[Record], done: Run, probe_usage: Any = None) -> dict[str, Any]:
    """What ``judge_info`` adds for the panel: :meth:`Judged.info` (per-judge accuracy with its interval and usage,
    the probes' requests counted in: ``probe_usage``, :func:`food_tasks.judge.panel.with_probes`; agreement or why
    it is undefined, disagreements), the rule disagreements and the injection suspects."""
    from food_tasks.judge.panel import with_probes

    usage = with_probes(done.panel.usage(done.official, *done.judged.all_answers), probe_usage)
    info = done.judged.info(100.0, usage)
    for line in done.judged.failures("DiningBench VQA", start=1):  # the headline's: judge_error_rate warns
        _warn_once(line)
    if usage is None:
        info.pop("usage", None)
    rule = [v for v in done.rows if v is not None and v["rule_read"]]
    info["rule_disagreements"] = sum(v["rule_disagree"] for v in rule)
    suspects = [r for r in sorted(records, key=lambda r: r["idx"]) if r.get("injection_suspect")]
    info["injection_suspects"] = len(suspects)
    info["injection_examples"] = [
        {
            "id": r["idx"],
            "question": r["question"],
            "gold": r["gold"],
            "prediction": (r["pred"] or "")[:300],
            "signals": list(r.get("injection_signals") or ()),
        }
        for r in suspects[:5]
    ]
    return info


def probe_info(panel: Any) -> dict[str, Any]:
    """``judge_info["probes"]``: the susceptibility probes (:mod:`food_tasks.judge.probes`) judged by every judge of
    ``panel`` through the task's own robust request."""
    from food_tasks.judge import probes

    def ask(items: list[Item]) -> Judged:
        return judge_robust(
            items, _fill, panel, temperature=prompts.JUDGE_TEMPERATURE, max_tokens=prompts.JUDGE_MAX_TOKENS
        )

    return probes.run(ask, PURPOSE, _warn_once)


def _panel() -> Any:
    from food_tasks.judge.panel import panel_from_env

    return panel_from_env(PURPOSE)


def metric(records: Sequence[Record], name: str) -> Any:
    """One judge metric of a VQA task (NaN when judging is explicitly off, ``FOOD_TASKS_JUDGE_MODEL=none``)."""
    panel = _panel()
    if panel is None:
        return (
            {"model": None, "note": "judging disabled (FOOD_TASKS_JUDGE_MODEL=none)"}
            if name == "judge_info"
            else math.nan
        )
    outcome = outcomes(records, panel)
    if name == "judge_error_rate" and outcome[name]:
        logging.getLogger(__name__).warning(
            f"DiningBench VQA: the judge failed on {outcome[name]:.1%} of {outcome['evaluated']} rows after retries "
            f"({outcome['info']['failure_reasons']}); judge_acc leaves them out, judge_acc_official counts them wrong. "
            "Re-run to retry them (judged rows come from the cache)."
        )
    if name == "judge_info":
        from food_tasks.judge.probes import take_usage

        probed = probe_info(panel)
        return {
            **outcome["info"],
            "prompt": prompts.JUDGE_PROMPT_VERSION,
            "robust_prompt": prompts.JUDGE_PROMPT_ROBUST_VERSION,
            "evaluated": outcome["evaluated"],
            **panel_info(records, outcome["run"], take_usage(probed)),
            "probes": probed,
        }
    if name in FIGURES:
        return outcome["run"].judged.value(name, 0, 1.0)  # a fraction: the table's metric takes it x 100
    if name == "judge_rule_disagree_rate":
        rows = [v for v in outcome["run"].rows if v is not None and v["rule_read"]]
        return sum(v["rule_disagree"] for v in rows) / len(rows) if rows else math.nan
    return outcome[name]


# num, den of each judge rate in run()'s per-row outcome (outcomes() divides their sums)
JUDGE_RATES = {
    "judge_acc": ("correct", "judged"),
    "judge_acc_official": ("correct_official", "evaluated"),
    "judge_error_rate": ("failed", "evaluated"),
    "judge_unparsed_rate": ("unparsed", "rule_read"),  # over the headline judge's answered calls
    "judge_rule_disagree_rate": ("rule_disagree", "rule_read"),
}


def _env_panel(what: str) -> Any:
    """The run's panel for an estimator; None (zeros: no error bar) when judging is off or not configured."""
    from food_tasks.judge.client import JudgeNotConfigured

    try:
        return _panel()
    except JudgeNotConfigured as err:
        _warn_once(f"DiningBench VQA: no error bar for the judge metrics: {err}")
        return None


class JudgeRatio(stats.Ratio):
    """A judge rate as a ratio of per-row sums (analytic, clustered standard error).

    The verdicts exist only once the aggregation has judged the rows, so the rows come from :func:`run` with the run's
    panel (its clients' memory and disk cache: no new requests for rows already judged); a row has no score of its
    own at ``process_results`` time (no ``--repeats`` statistics). With judging off (``FOOD_TASKS_JUDGE_MODEL=none``)
    every row is zero: the value is NaN, with no error; so too, with a warning, where no judge is configured at all.
    Not recoverable from the samples files (``from_samples``): ``food-tasks compare`` gives no paired difference.
    """

    from_samples = False

    def __init__(self, name: str, scale: float = 1.0) -> None:
        super().__init__(num=None, den=None, scale=scale)  # type: ignore[arg-type]
        self.name = name

    def rows(self, records: Sequence[Record]) -> np.ndarray:
        """``(num, den)`` of the rate per row from the run's judge verdicts; zeros without a judge."""
        out = np.zeros((len(records), 2))
        panel = _env_panel(self.name)
        if panel is None:
            return out
        num, den = JUDGE_RATES[self.name]
        for i, verdict in enumerate(run(records, panel).rows):
            if verdict is not None:
                out[i] = (float(verdict[num]), float(verdict[den]))
        return out

    def score(self, record: Record) -> float | None:
        """None: a row is judged only at aggregation time."""
        return None


class JudgeFigure(stats.Estimator):
    """A figure between judges (agreement, kappa, majority accuracy) or the headline judge's flip rate, as rows of
    :mod:`food_tasks.stats.agreement` per record (zeros for a record not judged robustly): a cluster bootstrap on the
    task's clusters. Zeros (no error bar) without a judge, with one judge, or (flip rate) with one repeat. Not
    recoverable from the samples files (``from_samples``), as :class:`JudgeRatio`."""

    from_samples = False

    def __init__(self, name: str, scale: float = 1.0) -> None:
        self.name, self.scale = name, scale

    def rows(self, records: Sequence[Record]) -> np.ndarray:
        """The figure's rows aligned with ``records`` (kappa: :func:`food_tasks.stats.agreement.kappa_rows`)."""
        out = np.zeros((len(records), 4 if self.name == "judge_kappa" else 2))
        panel = _env_panel(self.name)
        if panel is None:
            return out
        done = run(records, panel)
        rows = done.judged.rows(self.name)
        out = np.zeros((len(records), rows.shape[1]))
        for i, k in enumerate(done.item_of):
            if k is not None:
                out[i] = rows[k]
        return out

    def combine(self, sums: np.ndarray) -> np.ndarray:
        """The figure from the column sums (NaN where undefined)."""
        return A.kappa_combine()(sums) if self.name == "judge_kappa" else A.RATE(self.scale)(sums)


@functools.lru_cache(maxsize=4)
def _warn_once(message: str) -> None:
    logging.getLogger(__name__).warning(message)
