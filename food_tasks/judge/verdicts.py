"""Judging records with a panel of judges: every judge, every repeat, one verdict code each, and the figures of
agreement between them (:mod:`food_tasks.stats.agreement`) with clustered intervals. One implementation for every
judged task (a benchmark's judged task, the regional open-answer tasks).

Use::

    items = [Item(id, cluster, question, gold, prediction), ...]        # in the order the requests should go out
    judged = judge(items, prompt_of, panel, temperature=0.0, max_tokens=100, parse=parse)
    judged.codes            # (n, judges, repeats): CORRECT, WRONG, UNREADABLE, FAILED, NOT_ASKED
    judged.value("judge_agreement")  # NaN where undefined (one judge, one repeat, nothing judged)
    judged.rows("judge_kappa")       # (n, k) rows of an Estimator (stats.uncertainty: clustered intervals)
    judged.info(scale=100.0)         # per-judge accuracy (Wilson interval), verdict counts, usage, disagreements

``prompt_of(item) -> str`` builds a judge prompt; ``parse(text, item) -> bool | None`` reads a judge's reply (None:
unreadable; give it the item so it can read the judge's own words only, without copies of ``item.prediction``). An
item whose ``prediction`` is None or empty is not sent (:data:`NOT_ASKED`: wrong for every judge, in no agreement
figure; counted in ``not_asked``). A failed call (``text`` None after retries) is :data:`FAILED`: out of that judge's
accuracy (undefined where every call failed), and the record out of the figures between judges (counted in
``agreement_left_out``); an unreadable reply is :data:`UNREADABLE`: wrong in that judge's accuracy, out of the figures
between judges.
"""

from __future__ import annotations

import logging
import math
from collections.abc import Callable, Hashable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from food_tasks.judge import injection, protocol
from food_tasks.stats import agreement as A
from food_tasks.stats.confidence import wilson

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
    mode: str | None = None  # the protocol's verdict format (protocol.MODES); None: no protocol
    ways: np.ndarray | None = None  # (n, judges, repeats) index in protocol.WAYS (-1: no reply); None: no protocol
    refused: Any = None  # the answers a judge refused (response format): counted in its usage, replaced in answers

    @property
    def all_answers(self) -> tuple:
        """Every :meth:`Panel.ask` output behind these verdicts (the refused requests too), for :meth:`Panel.usage`."""
        return (self.answers,) if self.refused is None else (self.answers, self.refused)

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
        return A.kappa_combine() if name == "judge_kappa" else A.RATE(scale)

    def value(self, name: str, judge: int = 0, scale: float = 100.0) -> float:
        """A figure's value (NaN where undefined)."""
        rows = self.rows(name, judge)
        if name == "judge_kappa" and len(self.judges) < 2:
            return math.nan
        return A.value(rows, self.combine(name, scale))

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

    def counts(self, judge: int) -> dict[str, int]:
        """One judge's repeat-0 verdicts by kind: ``correct``, ``wrong``, ``unreadable`` (answered, neither yes nor
        no: wrong in its accuracy), ``failed`` (no answer after retries: out of its accuracy), ``not_asked`` (an
        empty answer: wrong without a call)."""
        column = self.codes[:, judge, 0]
        kinds = {"correct": A.CORRECT, "wrong": A.WRONG, "unreadable": A.UNREADABLE, "failed": A.FAILED}
        return {
            **{k: int(np.sum(column == c)) for k, c in kinds.items()},
            "not_asked": int(np.sum(column == A.NOT_ASKED)),
        }

    def read_ways(self, judge: int) -> dict[str, int] | None:
        """How one judge's repeat-0 replies were read (:data:`food_tasks.judge.protocol.WAYS`: ``schema``,
        ``final_line``, ``fallback``, ``unreadable``; they add up to its answered calls); None without the protocol."""
        if self.ways is None:
            return None
        column = self.ways[:, judge, 0]
        return {way: int(np.sum(column == k)) for k, way in enumerate(protocol.WAYS)}

    def unparsed_rate(self, judge: int, scale: float = 100.0) -> dict[str, Any]:
        """One judge's unreadable replies over its answered calls (repeat 0), as ``judge_unparsed_rate`` is the
        headline judge's: ``{"value", "interval", "n"}`` with a 95 % Wilson interval; None where nothing was
        answered."""
        column = self.codes[:, judge, 0]
        num, den = float(np.sum(column == A.UNREADABLE)), float(np.sum(column >= A.UNREADABLE))
        bounds = wilson(num, den)
        return {
            "value": scale * num / den if den else None,
            "interval": None if bounds is None else [scale * bounds[0], scale * bounds[1]],
            "n": int(den),
        }

    def proportion(self, name: str, judge: int = 0, scale: float = 100.0) -> dict[str, Any]:
        """``{"value", "interval", "n"}`` of one judge's rate (``judge_acc_of`` or ``judge_flip_rate``): the 95 %
        Wilson interval on the ``n`` records it counts (never outside 0 to ``scale``); value and interval None where
        undefined (no verdict at all, one repeat)."""
        num, den = (float(v) for v in self.rows(name, judge).sum(axis=0))
        bounds = wilson(num, den)
        return {
            "value": scale * num / den if den else None,
            "interval": None if bounds is None else [scale * bounds[0], scale * bounds[1]],
            "n": int(den),
        }

    def failures(self, label: str, start: int = 0) -> list[str]:
        """One warning line per judge from the ``start``-th with failed calls (repeat 0): the judge, its failure
        count, and what it means."""
        lines = []
        for j, model in enumerate(self.judges[start:], start):
            counts = self.counts(j)
            if not counts["failed"]:
                continue
            sent = counts["failed"] + counts["correct"] + counts["wrong"] + counts["unreadable"]
            what = (
                "its accuracy is undefined (no verdict)" if sent == counts["failed"] else "its accuracy leaves them out"
            )
            lines.append(
                f"{label}: the judge {model!r} failed on {counts['failed']} of {sent} records after retries; {what}, "
                "and the figures between judges leave those records out. Re-run to retry them (judged records come "
                "from the cache)."
            )
        return lines

    def info(self, scale: float = 100.0, usage: dict | None = None) -> dict[str, Any]:
        """What a task's ``judge_info`` shows of its panel: each judge's accuracy (repeat 0; null where it gave no
        verdict at all) and flip rate with their Wilson intervals (:meth:`proportion`) and its verdict counts
        (:meth:`counts`: ``failed`` and ``unreadable`` apart), the figures between judges (value and the records
        and clusters they rest on; their standard errors are the results keys' own) or why they are undefined, the
        verdict table (:meth:`verdict_table`), the records not asked about (``not_asked``: empty answers) and those
        left out of the figures between judges, the majority's ties, up to :data:`EXAMPLES` disagreements, and
        ``usage`` (:meth:`Panel.usage`; computed from :attr:`answers` when not given)."""
        first = self.codes[:, :, 0]
        per_judge = {}
        for j, model in enumerate(self.judges):
            flip = self.proportion("judge_flip_rate", j, scale) if self.repeats > 1 else ONE_REPEAT
            per_judge[model] = {"judge_acc": self.proportion("judge_acc_of", j, scale), "flip_rate": flip}
            per_judge[model].update(self.counts(j))
            per_judge[model]["unparsed_rate"] = self.unparsed_rate(j, scale)
            ways = self.read_ways(j)
            if ways is not None:
                per_judge[model]["read"] = ways
        out: dict[str, Any] = {"judges": list(self.judges), "repeats": self.repeats, "per_judge": per_judge}
        out["not_asked"] = A.not_asked(first)
        if len(self.judges) < 2:
            out["agreement"] = ONE_JUDGE
        else:
            out["agreement"] = {
                name: self.figure(name, scale) for name in ("judge_agreement", "judge_kappa", "judge_majority_acc")
            }
            out["verdict_table"] = self.verdict_table()
            out["agreement_left_out"] = A.left_out(first)
            out["majority_ties"] = A.ties(first)
            out["disagreements"] = self.disagreements()
        if self.ways is not None:
            out["protocol"] = {"version": protocol.VERSION, "verdict": self.mode}
        if usage is None and self.panel is not None:
            usage = self.panel.usage(*self.all_answers)
        if usage is not None:
            out["usage"] = usage
        return out

    def figure(self, name: str, scale: float = 100.0) -> dict[str, Any]:
        """``{"value", "n", "clusters"}`` of a figure between judges (value None where undefined): what it rests on.
        Its standard error is the results key's (a clustered estimate), not repeated here."""
        value = self.value(name, 0, scale)
        rows = self.rows(name)
        counted = np.any(rows != 0, axis=1) if name == "judge_kappa" else rows[:, 1] != 0
        clusters = len({self.items[int(i)].cluster for i in np.flatnonzero(counted)})
        return {"value": None if math.isnan(value) else value, "n": int(counted.sum()), "clusters": clusters}


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


def judge_robust(
    items: Sequence[Item],
    fill: Callable[[Item, str], str],
    panel: Any,
    *,
    temperature: float,
    max_tokens: int,
    mode: str | None = None,
) -> Judged:
    """:func:`judge` through the judge protocol (:mod:`food_tasks.judge.protocol`): each request is
    :func:`protocol.prompt` around the task's text ``fill(item, block)`` (the task's template with the data block where
    the answer goes), in the verdict format ``mode`` (default :func:`protocol.mode_from_env`), with its
    ``response_format``; each reply is read by :func:`protocol.read` and the way it was read kept (:attr:`Judged.ways`).
    A judge that refuses the response format (:func:`protocol.refused`) is asked those requests again with the final
    line (a warning names it), and the refused answers are kept for its usage (:attr:`Judged.refused`)."""
    mode = mode or protocol.mode_from_env()
    items = list(items)
    asked = [i for i, item in enumerate(items) if isinstance(item.prediction, str) and item.prediction]

    def prompts(how: str, todo: Sequence[int]) -> list[str]:
        return [
            protocol.prompt(
                lambda block, it=items[i]: fill(it, block), items[i].question, items[i].gold, items[i].prediction, how
            )
            for i in todo
        ]

    fmt = protocol.response_format(mode)
    extra = {"response_format": fmt} if fmt is not None else {}
    answers = panel.ask(prompts(mode, asked), temperature=temperature, max_tokens=max_tokens, **extra)
    refused = None
    if fmt is not None:
        answers, refused = _ask_again(panel, answers, prompts("line", asked), temperature, max_tokens)
    judged = _collect(items, asked, panel, answers, lambda text, item: protocol.read(text, item.prediction))
    judged.refused, judged.mode = refused, mode
    return judged


def _ask_again(panel: Any, answers: Any, lines: list[str], temperature: float, max_tokens: int) -> tuple[Any, Any]:
    """``answers`` with each request a judge refused (:func:`protocol.refused`) asked again as ``lines`` (the final-line
    format), judge by judge, only those; and the refused answers per judge (None when none was)."""
    refused: list = [[] for _ in answers]
    merged = [[list(results) for results in by_repeat] for by_repeat in answers]
    for j, by_repeat in enumerate(answers):
        todo = sorted({k for results in by_repeat for k, x in enumerate(results) if protocol.refused(x.error)})
        if not todo:
            continue
        logging.getLogger(__name__).warning(
            f"food-tasks judge: the judge {panel.configs[j].model!r} refused {len(todo)} requests with the JSON "
            "verdict format\n  (response_format); they were asked for a final line instead "
            f"({protocol.VERDICT_ENV}=line skips the refused try)."
        )
        again = panel.ask([lines[k] for k in todo], temperature=temperature, max_tokens=max_tokens, judges=[j])[0]
        for r, results in enumerate(by_repeat):
            refused[j].append([x for x in results if protocol.refused(x.error)])
            for pos, k in enumerate(todo):
                if protocol.refused(results[k].error) and r < len(again):
                    merged[j][r][k] = again[r][pos]
    return (merged, refused) if any(refused) else (answers, None)


def _collect(
    items: list[Item], asked: list[int], panel: Any, answers: Any, read: Callable[[str, Item], protocol.Reading]
) -> Judged:
    """The :class:`Judged` of ``answers`` (``[judge][repeat][k]`` for ``items[asked[k]]``), each reply read by
    ``read`` (its way kept)."""
    judges = [c.model for c in panel.configs]
    repeats = max((len(a) for a in answers), default=1) or 1
    codes = np.full((len(items), len(judges), repeats), A.NOT_ASKED, dtype=np.int64)
    ways = np.full(codes.shape, -1, dtype=np.int64)
    texts: list[list[list[str | None]]] = [[[None] * len(items) for _ in range(repeats)] for _ in judges]
    for j, by_repeat in enumerate(answers):
        for r, results in enumerate(by_repeat):
            for i, result in zip(asked, results):
                texts[j][r][i] = result.text
                if result.text is None:
                    codes[i, j, r] = A.FAILED
                    continue
                reading = read(result.text, items[i])
                ways[i, j, r] = protocol.WAYS.index(reading.way)
                verdict = reading.verdict
                codes[i, j, r] = A.UNREADABLE if verdict is None else (A.CORRECT if verdict else A.WRONG)
    return Judged(items, judges, codes, texts, answers, panel, ways=ways)


def _code(text: str | None, item: Item, parse: Callable[[str, Item], bool | None]) -> int:
    if text is None:
        return A.FAILED
    verdict = parse(text, item)
    return A.UNREADABLE if verdict is None else (A.CORRECT if verdict else A.WRONG)


def suspects(
    items: Sequence[Item],
    outputs: Sequence[object],
    markers: Sequence[str] = (),
    limit: int = EXAMPLES,
    known: Sequence[Any] | None = None,
) -> tuple[list[bool], list[dict[str, Any]]]:
    """Injection suspects (:mod:`food_tasks.judge.injection`) among the model ``outputs`` aligned with ``items``:
    each output's flag, and up to ``limit`` examples (the item, and what was found). ``known``: the signals already
    found in each output when it was scored (a list; anything else: the detector runs), so an aggregation does not
    run the detector again on every output."""
    flags, examples = [], []
    for k, (item, output) in enumerate(zip(items, outputs)):
        given = known[k] if known is not None and k < len(known) else None
        found = list(given) if isinstance(given, list) else injection.signals(output, markers)
        flags.append(bool(found))
        if found and len(examples) < limit:
            examples.append({**example(item), "signals": found})
    return flags, examples
