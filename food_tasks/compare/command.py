"""``food-tasks compare`` from end to end: two results files (or folders) in, the text it prints out, in order.

It reads, computes, then formats: :func:`food_tasks.runs.run.read_paths` reads all it needs of both runs (each
file once), :func:`food_tasks.stats.comparison.compared` computes every row (image gains and beyond-accuracy
measures included), and :mod:`.table` writes them (the main table, then the lines beyond accuracy). The command line
only prints what :func:`output` yields.
"""

from __future__ import annotations

import textwrap
from collections.abc import Iterator

from food_tasks.compare import table
from food_tasks.runs.run import read_paths
from food_tasks.stats.comparison import WHY_NOT_PAIRED, compared
from food_tasks.stats.confidence import DEFAULT_ITERS

LINE, WARNING, ERROR = "line", "warning", "error"  # what :func:`output` yields: stdout, stderr, stderr and exit 1


def output(path_a: str, path_b: str, metrics: str = "headline", iters: int | None = None) -> Iterator[tuple[str, str]]:
    """What ``food-tasks compare`` prints of runs A and B, as ``(kind, text)`` in the order it prints it: a
    :data:`LINE` of stdout, a :data:`WARNING` (the same run twice, a judge of the model's own family), an
    :data:`ERROR` (nothing to compare: the last, the command then exits 1). The warnings are yielded before the
    comparison is computed (``metrics``: ``headline``, each task's and group's headline metric, or ``all``;
    ``iters``: bootstrap resamples, :data:`~food_tasks.stats.confidence.DEFAULT_ITERS` when None)."""
    pair = read_paths(path_a, path_b)
    if not pair.shared:
        yield ERROR, table.nothing_in_common(pair.a, pair.b)
        return
    if pair.same:
        yield WARNING, table.same_run(pair.a)
    if pair.family_note is not None:  # a judge of the model's own family: said once
        yield WARNING, pair.family_note
    for problem in pair.judges_differ:  # the report's comparability rule, on the headline judge
        yield WARNING, f"the headline judges differ, so judge figures are not comparable: {problem}"
    found = compared(pair.reads, pair.gains, metrics == "headline", DEFAULT_ITERS if iters is None else iters)
    yield LINE, f"A = {pair.a.label} ({pair.a.path})\nB = {pair.b.label} ({pair.b.path})"
    yield LINE, table.EXPLANATION
    main = table.table_rows(found.rows)
    extra = table.compare_text(found)
    if not main and not extra:
        yield ERROR, "the two runs share no task of ours"
        return
    judged = [f"Judge figures (n/a): {WHY_NOT_PAIRED}."] if found.judged_na else []
    judged += probe_lines(pair.probes)  # each judge's probe figures
    judged = [textwrap.fill(line, table.WIDTH) for line in judged]
    for line in [*(table.lines(main) if main else []), *judged, *extra]:
        yield LINE, line


def probe_lines(probes: list[tuple[int, str, str]]) -> list[str]:
    """The probe figures of :attr:`~food_tasks.runs.run.Pair.probes`, one line each, named by run and task."""
    return [f"{'AB'[side]} {task}: {line}" for side, task, line in probes]
