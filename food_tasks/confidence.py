"""The constants of our intervals and verdicts, without numpy: :mod:`food_tasks.stats` computes with them, the
report and the CLI print them (importing them from here keeps ``food-tasks report`` free of numpy until it
compares runs)."""

from __future__ import annotations

Z95 = 1.959963984540054  # two-sided 95 %
Z80 = 0.8416212335729143  # one-sided 80 % power
DEFAULT_ITERS = 1000  # bootstrap resamples when lmms-eval asks for its default (100,000 is far more than an SE needs)
MIN_UNITS = 30  # fewer independent units (clusters) than this: the normal approximation is not trusted
