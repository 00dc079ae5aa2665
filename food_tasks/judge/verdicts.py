"""Judging records with a panel of judges: every judge, every repeat, one verdict code each, and the figures of
agreement between them (:mod:`food_tasks.stats.agreement`) with clustered intervals. One implementation for every
judged task (a benchmark's judged task, the regional open-answer tasks).

Use::

    items = [Item(id, cluster, question, gold, prediction), ...]        # in the order the requests should go out
    judged = judge(items, prompt_of, panel, temperature=0.0, max_tokens=100, parse=parse)
    judged.codes            # (n, judges, repeats): CORRECT, WRONG, UNREADABLE, FAILED, NOT_ASKED
    judged.value("judge_agreement")  # NaN where undefined (one judge, one repeat, nothing judged)
    judged.rows("judge_kappa")       # (n, k) rows of an Estimator (stats.uncertainty: clustered intervals)
    judged.info(scale=100.0)         # per-judge accuracy with its interval, usage, left-out counts, disagreements

``prompt_of(item) -> str`` builds a judge prompt; ``parse(text, item) -> bool | None`` reads a judge's reply (None:
unreadable; give it the item so it can read the judge's own words only, without copies of ``item.prediction``). An
item whose ``prediction`` is None or empty is not sent (:data:`NOT_ASKED`: wrong for every judge, in no agreement
figure). A failed call (``text`` None after retries) is :data:`FAILED`: out of that judge's accuracy, and the record
out of the figures between judges (counted in ``left_out``).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Hashable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from food_tasks.judge import injection
from food_tasks.stats import agreement as A
from food_tasks.stats import uncertainty as U

EXAMPLES = 5  # disagreements and injection suspects kept in a task's judge_info
EXAMPLE_CHARS = 300  # characters of a prediction shown in an example
ONE_JUDGE = "undefined: one judge"
ONE_REPEAT = "undefined: one repeat"


@dataclass(frozen=True)
class Item:
    """One record as a judge sees it: its id and cluster (for intervals), question, gold answer and the model's
    prediction (None or "": nothing to judge)."""

    id: Hashable
    cluster: Hashable
    question: str
    gold: str
    prediction: str | None


# Figures between judges (rows of stats.agreement), their combine and their scale (x 100: percent; kappa as is).
FIGURES = ("judge_agreement", "judge_kappa", "judge_majority_acc", "judge_flip_rate")


@dataclass
class Judged:
    """The verdicts of a panel on ``items``: ``codes[i, j, r]`` of judge ``j``'s repeat ``r`` on item ``i``;
    ``texts[j][r][i]`` the reply (None: failed or not asked); ``answers`` what :meth:`Panel.ask` returned (for
    :meth:`Panel.usage`)."""

    items: list[Item]
    judges: list[str]
    codes: np.ndarray
    texts: list[list[list[str | None]]]
    answers: Any
    panel: Any = None

    @property
    def repeats(self) -> int:
        """Requests per item and judge."""
        return self.codes.shape[2]

    def rows(self, name: str, judge: int = 0) -> np.ndarray:
        """The ``(n, k)`` rows of a figure: one of :data:`FIGURES` (flip rate: of ``judge``) or ``judge_acc_of``
        (``judge``'s accuracy on repeat 0); all zeros (the figure is NaN) where it is undefined."""
        first = self.codes[:, :, 0]
        n = len(self.items)
        if name == "judge_acc_of":
            return A.accuracy_rows(first[:, judge])
        if name == "judge_flip_rate":
            return A.flip_rows(self.codes[:, judge, :])
        if len(self.judges) < 2:
            return np.zeros((n, 4 if name == "judge_kappa" else 2))
        if name == "judge_agreement":
            return A.agreement_rows(first)
        if name == "judge_kappa":
            return A.kappa_rows(first)
        if name == "judge_majority_acc":
            return A.majority_rows(first)
        raise KeyError(name)

    def combine(self, name: str, scale: float = 100.0) -> Callable[[np.ndarray], np.ndarray]:
        """The combine of :meth:`rows` (a picklable callable)."""
        return A.kappa_combine(len(self.judges)) if name == "judge_kappa" else A.RATE(scale)

    def value(self, name: str, judge: int = 0, scale: float = 100.0) -> float:
        """A figure's value (NaN where undefined)."""
        rows = self.rows(name, judge)
        if name == "judge_kappa" and len(self.judges) < 2:
            return math.nan
        return A.value(rows, self.combine(name, scale))

    def interval(self, name: str, judge: int = 0, scale: float = 100.0) -> dict[str, Any]:
        """``{"value", "interval", "se", "n", "clusters"}`` of a figure, clustered on the items' clusters (interval:
        95 % normal, None where the standard error cannot be estimated)."""
        value = self.value(name, judge, scale)
        rows = self.rows(name, judge)
        if not len(rows):
            return {"value": None, "interval": None, "se": None, "n": 0, "clusters": 0}
        if name == "judge_kappa":  # a statistic of the summed table: cluster bootstrap
            estimator: U.Estimator = U.Custom(_stacked, self.combine(name, scale))
        else:  # a rate: analytic clustered standard error, as every judge rate of the tables
            estimator = U.Ratio(_cell(0), _cell(1), scale)
        est = U.estimate(estimator, list(rows), self._clusters())
        bounds = U.interval(value, est.se)
        return {
            "value": None if math.isnan(value) else value,
            "interval": None if bounds is None else [bounds[0], bounds[1]],
            "se": est.se,
            "n": est.n,
            "clusters": est.clusters,
        }

    def _clusters(self) -> list[Hashable]:
        return [item.cluster for item in self.items]

    def disagreements(self, limit: int = EXAMPLES) -> list[dict[str, Any]]:
        """Up to ``limit`` items (in item order) on which the judges' readable repeat-0 verdicts differ."""
        out = []
        first = self.codes[:, :, 0]
        for i in np.flatnonzero(A.complete(first) & np.any(first != first[:, :1], axis=1))[:limit]:
            item = self.items[int(i)]
            out.append(
                {
                    **example(item),
                    "verdicts": {
                        m: "correct" if first[i, j] == A.CORRECT else "wrong" for j, m in enumerate(self.judges)
                    },
                }
            )
        return out

    def verdict_table(self) -> dict[str, Any]:
        """Repeat-0 verdicts on the records every judge answered. Two judges: the 2 x 2 table (``rows``: the first
        judge, ``columns``: the second; cells ``correct_correct``, ``correct_wrong``, ``wrong_correct``,
        ``wrong_wrong``). Three or more: ``versus_majority``, each judge's agreement with the majority verdict on the
        records without a tie (``agree`` of ``n``)."""
        first = self.codes[:, :, 0]
        if len(self.judges) == 2:
            cells = self.rows("judge_kappa").sum(axis=0)
            names = ("correct_correct", "correct_wrong", "wrong_correct", "wrong_wrong")
            return {"rows": self.judges[0], "columns": self.judges[1], **{k: int(v) for k, v in zip(names, cells)}}
        majority = A.majority_rows(first)
        counted = majority[:, 1] == 1
        says = np.where(majority[:, 0] == 1, A.CORRECT, A.WRONG)
        return {
            "versus_majority": {
                m: {"agree": int(np.sum(counted & (first[:, j] == says))), "n": int(counted.sum())}
                for j, m in enumerate(self.judges)
            }
        }

    def info(self, scale: float = 100.0, usage: dict | None = None) -> dict[str, Any]:
        """What a task's ``judge_info`` shows of its panel: each judge's accuracy (repeat 0) with its interval and its
        flip rate, the figures between judges (or why they are undefined), the verdict table (:meth:`verdict_table`),
        the records left out of them, the majority's ties, up to :data:`EXAMPLES` disagreements, and ``usage``
        (:meth:`Panel.usage`; computed from :attr:`answers` when not given)."""
        first = self.codes[:, :, 0]
        per_judge = {}
        for j, model in enumerate(self.judges):
            flip = self.interval("judge_flip_rate", j, scale) if self.repeats > 1 else ONE_REPEAT
            per_judge[model] = {"judge_acc": self.interval("judge_acc_of", j, scale), "flip_rate": flip}
        out: dict[str, Any] = {"judges": list(self.judges), "repeats": self.repeats, "per_judge": per_judge}
        if len(self.judges) < 2:
            out["agreement"] = ONE_JUDGE
        else:
            out["agreement"] = {
                name: self.interval(name, 0, scale) for name in ("judge_agreement", "judge_kappa", "judge_majority_acc")
            }
            out["verdict_table"] = self.verdict_table()
            out["agreement_left_out"] = A.left_out(first)
            out["majority_ties"] = A.ties(first)
            out["disagreements"] = self.disagreements()
        if usage is None and self.panel is not None:
            usage = self.panel.usage(self.answers)
        if usage is not None:
            out["usage"] = usage
        return out


def _stacked(records: Sequence[np.ndarray]) -> np.ndarray:
    return np.asarray(records, dtype=float)


@dataclass(frozen=True)
class _cell:  # noqa: N801  (a rate's numerator (0) or denominator (1) from a row of stats.agreement)
    index: int

    def __call__(self, row: np.ndarray) -> float | None:
        return float(row[self.index]) if row[1] else None


def example(item: Item) -> dict[str, Any]:
    """An item as an example shows it: id, question, gold, the prediction cut to :data:`EXAMPLE_CHARS` characters."""
    prediction = item.prediction if isinstance(item.prediction, str) else None
    return {
        "id": item.id,
        "question": item.question,
        "gold": item.gold,
        "prediction": None if prediction is None else prediction[:EXAMPLE_CHARS],
    }


def judge(
    items: Sequence[Item],
    prompt_of: Callable[[Item], str],
    panel: Any,
    *,
    temperature: float,
    max_tokens: int,
    parse: Callable[[str, Item], bool | None],
) -> Judged:
    """Every judge of ``panel`` (:class:`food_tasks.judge.panel.Panel`), every repeat, on every item with a prediction
    (requests in item order, each distinct body once per judge and repeat, through each judge's cache and retries).
    Returns the :class:`Judged` verdicts; a judge that is down gives :data:`~food_tasks.stats.agreement.FAILED` codes,
    the others' stand."""
    items = list(items)
    asked = [i for i, item in enumerate(items) if isinstance(item.prediction, str) and item.prediction]
    answers = panel.ask([prompt_of(items[i]) for i in asked], temperature=temperature, max_tokens=max_tokens)
    judges = [c.model for c in panel.configs]
    repeats = max((len(a) for a in answers), default=1) or 1
    codes = np.full((len(items), len(judges), repeats), A.NOT_ASKED, dtype=np.int64)
    texts: list[list[list[str | None]]] = [[[None] * len(items) for _ in range(repeats)] for _ in judges]
    for j, by_repeat in enumerate(answers):
        for r, results in enumerate(by_repeat):
            for i, result in zip(asked, results):
                texts[j][r][i] = result.text
                codes[i, j, r] = _code(result.text, items[i], parse)
    return Judged(items, judges, codes, texts, answers, panel)


def _code(text: str | None, item: Item, parse: Callable[[str, Item], bool | None]) -> int:
    if text is None:
        return A.FAILED
    verdict = parse(text, item)
    return A.UNREADABLE if verdict is None else (A.CORRECT if verdict else A.WRONG)


def suspects(
    items: Sequence[Item], outputs: Sequence[object], markers: Sequence[str] = (), limit: int = EXAMPLES
) -> tuple[list[bool], list[dict[str, Any]]]:
    """Injection suspects (:mod:`food_tasks.judge.injection`) among the model ``outputs`` aligned with ``items``:
    each output's flag, and up to ``limit`` examples (the item, and what was found)."""
    flags, examples = [], []
    for item, output in zip(items, outputs):
        found = injection.signals(output, markers)
        flags.append(bool(found))
        if found and len(examples) < limit:
            examples.append({**example(item), "signals": found})
    return flags, examples
