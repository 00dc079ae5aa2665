"""Runs read back from lmms-eval's files: the offline layer that ``food-tasks compare``, its beyond-accuracy lines
and ``food-tasks report`` take their runs and statistics from.

* :mod:`food_tasks.runs.run`: the one lazy :class:`Run` (a results file, or one model's results files merged),
  :func:`load_run` and :func:`load_runs`. Every results file is read once per command, by
  :func:`food_tasks.lmms.runfiles.read_results` (the one reader of lmms-eval's files, which a run's ``--baseline`` uses
  too); a task's samples file when first asked for.
* :mod:`food_tasks.runs.paired`: two runs compared on the documents both scored (tasks, groups, best-of bias).
* :mod:`food_tasks.runs.measures`: image gains over image-free twins and the beyond-accuracy measures of two runs.

The statistics are the ones a run computes (:mod:`food_tasks.lmms.errorbars`, :mod:`food_tasks.stats.consistency`),
called on records read back from samples files.
"""

from food_tasks.runs.run import Run, load_run, load_runs, model_label, model_name, short_label

__all__ = ["Run", "load_run", "load_runs", "model_label", "model_name", "short_label"]
