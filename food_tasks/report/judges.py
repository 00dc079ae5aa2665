"""The report's "Judges" section: how far the judges of a judged task can be trusted on the run in front of the reader.

For each task of a run judged by two or more judges (``judge_info`` lists them): the verdict table (two judges: the two
by two table of their verdicts; three or more: each judge against the majority), the figures that are results keys
(``judge_acc``, agreement, kappa, the majority's accuracy, flip rate) with the results file's own value and standard
error, each judge's accuracy and flip rate with their Wilson intervals ("undefined: no verdict" where every call
failed), its unreadable replies and failed calls, and what its judging cost (tokens; "no new tokens (n cached)"
where nothing was sent; "tokens unknown" where a sent request came without ``usage``; a cost with
``FOOD_TASKS_JUDGE_PRICE``), the empty answers no judge was asked about, the injection-suspect count, and the few
records on which the
judges disagree, shown as written (model output: escaped, never rendered). A one-judge task gets no section (its
judge is named in its benchmark's section). Separately, :func:`family_blocks`: one line when a judge shares a family
with the evaluated model (:func:`food_tasks.judge.family.family_matches`).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any

from food_tasks.judge.family import family_matches, judges_of, own_family_note
from food_tasks.judge.probes import notes as probe_notes
from food_tasks.judge.verdicts import EXAMPLES
from food_tasks.report.cells import stored_interval, with_interval
from food_tasks.report.runs import Run
from food_tasks.report.spec import FEW, MARKS_NOTE, Block

TITLE = "Judges"
TOKENS_UNKNOWN = "tokens unknown"
NO_VERDICT = "undefined: no verdict"


def _entry(info: Mapping[str, Any], *keys: str) -> Any:
    """``info[k1][k2]...``, None where a level is missing or not a mapping."""
    value: Any = info
    for key in keys:
        value = value.get(key) if isinstance(value, Mapping) else None
    return value


def _number(value: Any) -> float | None:
    ok = isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)
    return float(value) if ok else None


def _count(value: Any) -> str:
    number = _number(value)
    return "–" if number is None else f"{number:,.0f}"


def _with_interval(figure: Any, decimals: int) -> str:
    """``value [low, high]`` of a judge's own rate in ``judge_info`` (``{"value", "interval"}``: a Wilson interval on
    the records it counts), ``undefined`` without a value (the text says why when the figure is one: "undefined: one
    repeat")."""
    if isinstance(figure, str):
        return figure
    value = _number(_entry(figure, "value")) if isinstance(figure, Mapping) else None
    if value is None:
        return "undefined" if isinstance(figure, Mapping) else "–"
    bounds = figure.get("interval")
    if isinstance(bounds, Sequence) and len(bounds) == 2 and all(_number(v) is not None for v in bounds):
        return f"{value:.{decimals}f} [{bounds[0]:.{decimals}f}, {bounds[1]:.{decimals}f}]"
    return f"{value:.{decimals}f}"


def _figure(run: Run, task: str, metric: str, decimals: int) -> str:
    """A figure that is a results key, as the results file has it: its value and the 95% interval of its own
    standard error (the task's error bar: clustered, a bootstrap for kappa) by the tables' rule
    (:func:`food_tasks.report.cells.with_interval`: ``± half-width`` where it stays within 0-100 %, else the stored or
    Wilson interval; kappa, -1..1, is no proportion); ``undefined`` for NaN or null, ``–`` when absent."""
    value = run.value(task, metric)
    if value is None and metric not in run.metrics.get(task, {}):
        return "–"
    number = _number(value)
    if number is None:
        return "undefined"
    bounds = stored_interval(run, task, metric)
    se = run.se(task, metric)
    if se is None and bounds is None:
        return f"{number:.{decimals}f}"
    few = FEW if run.few(task, metric) else ""
    proportion = metric != "judge_kappa"
    return with_interval(number, se, run.unit_count(task, metric), decimals, 1.0, proportion, bounds) + few


def _tokens(judge: Mapping[str, Any]) -> tuple[str, str, str]:
    """Prompt tokens, completion tokens, cost: "no new tokens (n cached)" where nothing was sent (every answer from
    the cache), "tokens unknown" where a server sent no ``usage`` for a request that was sent, never 0."""
    prompt, completion = _number(judge.get("prompt_tokens")), _number(judge.get("completion_tokens"))
    cost = _number(judge.get("cost"))
    if _number(judge.get("requests")) == 0:
        cached = f"no new tokens ({_count(judge.get('cached'))} cached)"
        return cached, cached, "–" if cost is None else f"{cost:.4f}"
    if prompt is None or completion is None:
        return TOKENS_UNKNOWN, TOKENS_UNKNOWN, "–"
    return f"{prompt:,.0f}", f"{completion:,.0f}", "–" if cost is None else f"{cost:.4f}"


def _verdict_table(info: Mapping[str, Any], names: Sequence[str]) -> list[Block]:
    """``verdict_table`` of ``judge_info`` (:meth:`food_tasks.judge.verdicts.Judged.verdict_table`): two judges, the
    2 x 2 table of their repeat-0 verdicts on the records both judged; three or more, each judge against the
    majority on the records without a tie."""
    table = info.get("verdict_table")
    if not isinstance(table, Mapping):
        return []
    if len(names) == 2 and "correct_correct" in table:
        a, b = str(table.get("rows", names[0])), str(table.get("columns", names[1]))
        cells = [_count(table.get(k)) for k in ("correct_correct", "correct_wrong", "wrong_correct", "wrong_wrong")]
        header = [f"{a} (rows) / {b} (columns)", f"{b}: correct", f"{b}: wrong"]
        return [("table", header, [[f"{a}: correct", *cells[:2]], [f"{a}: wrong", *cells[2:]]])]
    majority = table.get("versus_majority")
    if not isinstance(majority, Mapping):
        return []
    rows = []
    for name in names:
        entry = majority.get(name)
        agree, n = _number(_entry(entry, "agree")), _number(_entry(entry, "n")) if isinstance(entry, Mapping) else None
        if agree is not None and n is not None:
            rows.append([name, _count(agree), _count(n - agree), f"{100 * agree / n:.2f}" if n else "undefined"])
    header = ["Judge", "agrees with the majority", "disagrees", "agreement, %"]
    return [("table", header, rows)] if rows else []


def _judge_row(info: Mapping[str, Any], name: str) -> list[str]:
    """One judge: accuracy ("undefined: no verdict" where every call failed) and flip rate with their Wilson
    intervals, its unreadable replies and failed calls (repeat 0), requests, and what they cost."""
    usage = _entry(info, "usage", name)
    usage = usage if isinstance(usage, Mapping) else {}
    judge = _entry(info, "per_judge", name)
    judge = judge if isinstance(judge, Mapping) else {}
    accuracy = _with_interval(judge.get("judge_acc"), 2)
    failed = judge.get("failed", usage.get("failed"))
    return [
        name,
        NO_VERDICT if accuracy == "undefined" else accuracy,
        _with_interval(judge.get("flip_rate"), 2),
        _count(judge.get("unreadable")),
        _count(failed),
        _count(usage.get("requests")),
        _count(usage.get("cached")),
        *(_tokens(usage) if usage else ("–", "–", "–")),
    ]


def task_blocks(run: Run, task: str) -> list[Block]:
    """The Judges blocks of one task of one run (none for fewer than two judges)."""
    info = run.value(task, "judge_info")
    names = judges_of(info)
    if len(names) < 2:
        return []
    blocks: list[Block] = [("h", 3, f"`{task}` — {run.label}")]
    kappa = "Cohen's" if len(names) == 2 else "Fleiss'"
    figures = [
        f"- Judges: {', '.join(f'`{n}`' for n in names)} (the first is the headline judge: `judge_acc` is its); "
        f"its accuracy, %: {_figure(run, task, 'judge_acc', 2)}.",
        f"- Agreement (all judges give the same verdict), %: {_figure(run, task, 'judge_agreement', 2)}; "
        f"{kappa} kappa: {_figure(run, task, 'judge_kappa', 3)}; the majority verdict's accuracy, %: "
        f"{_figure(run, task, 'judge_majority_acc', 2)} (95% intervals as in the tables).",
    ]
    if (_number(info.get("repeats")) or 1) > 1:
        figures.append(
            f"- The headline judge's flip rate over its repeats, %: {_figure(run, task, 'judge_flip_rate', 2)}."
        )
    left_out, ties = _number(info.get("agreement_left_out")), _number(info.get("majority_ties"))
    empty = _number(info.get("not_asked"))
    if empty:
        figures.append(
            f"- {empty:,.0f} record(s) with an empty answer: no judge was asked; wrong in the accuracies (the "
            "majority's included), out of agreement, kappa and flip rate."
        )
    if left_out:
        figures.append(
            f"- {left_out:,.0f} record(s) left out of the figures between judges: a judge failed on them or gave no "
            "readable verdict."
        )
    if ties:
        figures.append(f"- {ties:,.0f} record(s) with a tie between the judges: out of the majority's accuracy.")
    if run.value(task, "judge_injection_suspect_rate") is not None:
        figures.append(
            "- Injection suspects (outputs that address the judge or carry its prompt's field markers), %: "
            f"{_figure(run, task, 'judge_injection_suspect_rate', 2)}."
        )
    figures += [f"- {line}" for line in probe_notes(info.get("probes"))]  # each judge's susceptibility probes
    blocks.append(("p", "\n".join(figures)))
    blocks += _verdict_table(info, names)
    header = ["Judge", "Accuracy, % [Wilson]", "Flip rate, % [Wilson]", "Unreadable", "Failed", "Requests", "Cached"]
    header += ["Prompt tokens", "Completion tokens", "Cost, USD"]
    blocks.append(("table", header, [_judge_row(info, n) for n in names]))
    suspects = [r for r in info.get("injection_examples") or [] if isinstance(r, Mapping)]
    if suspects:
        blocks.append(
            ("p", f"Injection suspects ({_count(info.get('injection_suspects'))}; the first {len(suspects)}):")
        )
        rows = [
            [*("" if r.get(k) is None else str(r.get(k)) for k in ("id", "question", "prediction")), _signals(r)]
            for r in suspects
        ]
        blocks.append(("verbatim", ["id", "Question", "Prediction", "What was found"], rows))
    shown = [r for r in info.get("disagreements") or [] if isinstance(r, Mapping)]
    if shown:
        blocks.append(
            ("p", f"Records on which the judges disagree ({_shown_of(info, len(shown))}as written, to look at):")
        )
        rows = []
        for record in shown:
            verdicts = record.get("verdicts") if isinstance(record.get("verdicts"), Mapping) else {}
            fields = (record.get(k) for k in ("id", "question", "gold", "prediction"))
            rows.append([*("" if v is None else str(v) for v in fields), *(str(verdicts.get(n, "–")) for n in names)])
        blocks.append(("verbatim", ["id", "Question", "Reference answer", "Prediction", *names], rows))
    return blocks


def _shown_of(info: Mapping[str, Any], shown: int) -> str:
    """How many of the disagreements a table shows: ``the first 5 of 8; `` where it is cut (two judges: the verdict
    table's off-diagonal cells count them all; more judges: the results file keeps at most :data:`EXAMPLES`), ``''``
    where it shows them all."""
    table = info.get("verdict_table") if isinstance(info.get("verdict_table"), Mapping) else {}
    cells = [table.get(k) for k in ("correct_wrong", "wrong_correct")]
    total = sum(cells) if all(isinstance(c, int) for c in cells) else None
    if total is not None and total > shown:
        return f"the first {shown} of {total}; "
    if total is None and shown >= EXAMPLES:
        return f"the first {shown}, the most the results file keeps; "
    return ""


def _signals(record: Mapping[str, Any]) -> str:
    found = record.get("signals")
    return "; ".join(map(str, found)) if isinstance(found, Sequence) and not isinstance(found, str) else ""


def judges_blocks(runs: Sequence[Run]) -> list[Block]:
    """The report's Judges section: every task judged by two or more judges, run by run; none without one."""
    blocks: list[Block] = []
    for run in runs:
        for task in sorted(run.metrics):
            blocks += task_blocks(run, task)
    if not blocks:
        return []
    intro = (
        "How far the judges can be trusted on these runs: their agreement and kappa on the records every judge judged, "
        "each judge's accuracy and cost, and records where they disagree. Answers and questions below are shown as "
        "written (model output). The figures that are results keys (`judge_acc`, agreement, kappa, the majority's "
        "accuracy, flip rate) are the results file's, ± the 95% half-width of its clustered standard error, or [low, "
        "high] (Wilson, or the stored interval) where that would leave 0-100 %, as in the tables; each "
        "judge's own accuracy and flip rate (table) come with the 95% Wilson interval over the records it counts "
        "(taken as independent). Unreadable: replies with no yes or no (wrong in its accuracy); failed: calls with "
        f"no answer after retries (out of its accuracy; every call failed: no verdict). {MARKS_NOTE}"
    )
    return [("h", 2, TITLE), ("p", intro), *blocks]


def family_blocks(runs: Sequence[Run]) -> list[Block]:
    """A warning line when a judge shares a family with the evaluated model; none otherwise."""
    judged = [
        (run, run.model or run.label, judges_of(run.value(t, "judge_info")))
        for run in runs
        for t in sorted(run.metrics)
    ]
    note = own_family_note(family_matches(judged))
    return [("warn", note)] if note else []
