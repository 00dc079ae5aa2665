"""Beyond accuracy, read back from runs, one at a time (the report): the image gain of a task over its image-free
twin, and a run's per-unit values of a consistency measure; the statistics are :mod:`food_tasks.stats.comparison`'s.

* **Image gain** (MMStar's multi-modal gain, Chen et al. 2024, arXiv:2403.20330): a task and its image-free twin
  (declared in its results file's config: the run's facts, :meth:`food_tasks.runs.run.Run.variant`) score the same
  documents (the twin reads them with the task's own ``process_docs``), so they are paired by document identity;
  ``image_gain`` is the task's headline metric with the image minus without it on the shared documents, clustered
  like the metric, and ``answerable_without_image`` the image-free score on those documents, with its clustered
  standard error (:func:`food_tasks.stats.paired.paired_gain`, the function a run writes them with). Each model's
  tasks are paired with that model's own twins (:func:`gain_pairs`, in ``compare`` and the report).
* **Measures of two runs** (:data:`MEASURES`): :func:`food_tasks.stats.comparison.measure_row`.
"""

from __future__ import annotations

from typing import Any

from food_tasks.runs.run import Run, gain_pairs, gain_read, twin_pairs
from food_tasks.stats import uncertainty as stats
from food_tasks.stats.comparison import (
    MEASURES,
    Read,
)
from food_tasks.stats.comparison import (
    gain_missing_reason as _reason,
)
from food_tasks.stats.comparison import (
    image_gain as _image_gain,
)
from food_tasks.stats.comparison import (
    xling_units as _xling_units,
)
from food_tasks.stats.paired import ImageGain, paired_means

__all__ = [
    "MEASURES",
    "ImageGain",
    "gain_missing_reason",
    "gain_pairs",
    "image_gain",
    "paired_means",
    "shares",
    "twin_pairs",
]


def image_gain(
    with_run: Run, without_run: Run, task: str, twin: str, iters: int = stats.DEFAULT_ITERS
) -> ImageGain | None:
    """The image gain of ``task`` (in ``with_run``) over ``twin`` (in ``without_run``); None without both samples
    files, a headline metric, or a shared document, or for a judge's headline figure."""
    return _image_gain(gain_read(with_run, without_run, task, twin), iters)


def gain_missing_reason(with_run: Run, without_run: Run, task: str, twin: str) -> str:
    """Why there is no image gain of ``task`` over ``twin``: the samples file it lacks and that the run needs
    ``--log_samples``, or that no document was scored by both (what compare and the report say)."""
    return _reason(gain_read(with_run, without_run, task, twin))


def xling_units(run: Run, name: str, what: str) -> list[tuple[Any, Any, float]] | None:
    """A run's per-item values of ``xling_<what>`` for task ``name`` (:func:`food_tasks.stats.comparison.xling_units`:
    its family pooled over the run's tasks, as a run pools them); None when the task declares no consistency view."""
    if name not in run.tasks:
        return None
    records = {(0, t): found for t in run.tasks if (found := run.task(t)) is not None}
    return _xling_units(Read(name, None, ({}, {}), (), records, pooled=True), 0, what)


def shares(breakdown: Any) -> dict[str, tuple[float, float]]:
    """``{position: (chosen share, gold share)}`` of a ``position_bias`` breakdown ({} for anything else)."""
    if not isinstance(breakdown, dict):
        return {}
    return {
        str(k): (float(v["chosen_share"]), float(v["gold_share"]))
        for k, v in breakdown.items()
        if isinstance(v, dict) and {"chosen_share", "gold_share"} <= v.keys()
    }
