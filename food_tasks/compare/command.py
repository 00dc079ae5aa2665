"""``food-tasks compare`` from end to end: two results files (or folders) in, the text it prints out, in order.

The runs and every statistic come from :mod:`food_tasks.runs`; :mod:`.table` writes the main table, :mod:`.beyond`
the lines after it (image gains, beyond-accuracy measures). The command line only prints what :func:`output` yields.
"""

from __future__ import annotations

import textwrap
from collections.abc import Iterator
from typing import Any

from food_tasks.compare import beyond, table
from food_tasks.report.judges import family_matches, family_note
from food_tasks.report.runs import comparability_problems
from food_tasks.runs import load_run
from food_tasks.runs.measures import gain_pairs
from food_tasks.runs.paired import NOT_IN_SAMPLES, WHY_NOT_PAIRED, compare_runs
from food_tasks.stats.confidence import DEFAULT_ITERS

JUDGE_KEY = "judge model"  # the comparability setting of a judged task's headline judge (food_tasks.runs.run)
LINE, WARNING, ERROR = "line", "warning", "error"  # what :func:`output` yields: stdout, stderr, stderr and exit 1


def output(path_a: str, path_b: str, metrics: str = "headline", iters: int | None = None) -> Iterator[tuple[str, str]]:
    """What ``food-tasks compare`` prints of runs A and B, as ``(kind, text)`` in the order it prints it: a
    :data:`LINE` of stdout, a :data:`WARNING` (the same run twice), an :data:`ERROR` (nothing to compare: the last,
    the command then exits 1). Each is yielded as soon as it is known, so a warning comes out before a long
    comparison (``metrics``: ``headline`` or ``all``, :func:`food_tasks.runs.paired.compare_runs`; ``iters``: bootstrap
    resamples, :data:`~food_tasks.stats.confidence.DEFAULT_ITERS` when None)."""
    iters = DEFAULT_ITERS if iters is None else iters
    a, b = load_run(path_a), load_run(path_b)
    pairs = gain_pairs([a, b])  # image gains, across the two runs too
    if (why := table.nothing_in_common(a, b, sum(w.path != wo.path for w, wo, _, _ in pairs))) is not None:
        yield ERROR, why
        return
    if (warning := table.same_run(a, b)) is not None:
        yield WARNING, warning
    if (note := family_note(family_matches([a, b]))) is not None:  # a judge of the model's own family: said once
        yield WARNING, note
    for problem in comparability_problems([a, b], set(a.fingerprints) & set(b.fingerprints)):  # the report's rule
        if problem.startswith(f"{JUDGE_KEY} differs"):
            yield WARNING, f"the headline judges differ, so judge figures are not comparable: {problem}"
    rows = compare_runs(a, b, metrics=metrics, iters=iters)
    yield LINE, f"A = {a.label} ({a.path})\nB = {b.label} ({b.path})"
    yield LINE, table.EXPLANATION
    main = table.table_rows(rows)
    extra = beyond.compare_text(a, b, iters=iters, skip={(r.name, r.metric) for r in rows}, pairs=pairs)
    if not main and not extra:
        yield ERROR, "the two runs share no task of ours"
        return
    judged = [f"Judge figures (n/a): {WHY_NOT_PAIRED}."] if any(r.note == NOT_IN_SAMPLES for r in rows) else []
    judged += probe_lines(a, b)  # each judge's probe figures, as the runs' judge_info have them
    judged = [textwrap.fill(line, table.WIDTH) for line in judged]
    for line in [*(table.lines(main) if main else []), *judged, *extra]:
        yield LINE, line


def probe_lines(*runs: Any) -> list[str]:
    """One line per run, judged task and judge of its probe figures (:func:`food_tasks.judge.probes.notes`)."""
    from food_tasks.judge.probes import notes

    return [
        f"{name} {task}: {line}"
        for name, run in zip("AB", runs)
        for task in sorted(run.metrics)
        for line in notes(_probes(run.value(task, "judge_info")))
    ]


def _probes(info: Any) -> Any:
    return info.get("probes") if isinstance(info, dict) else None
