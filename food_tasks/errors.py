"""Our exceptions, in one leaf that imports nothing: data, images, judge, runs and reports raise them.

``food_tasks.data.hub`` re-exports the data errors under their old names (``food_tasks.data.hub.DataAccessError`` ...).
"""

from __future__ import annotations


class DataAccessError(RuntimeError):
    """Data is missing, gated or unreachable; the message says what to do."""


class SetupError(RuntimeError):
    """A configuration problem that no retry can fix (for example an LLM judge that is not configured)."""

    label = "setup error"


class CorruptImageError(DataAccessError):
    """An image exists but cannot be decoded; the message names row, column and URL."""


class DataSettingError(DataAccessError, ValueError):
    """An environment setting that selects data is invalid (e.g. an unknown language code)."""


class RunStopped(SystemExit):
    """Stops an lmms-eval run with our message as the last line of stderr and exit status 1.

    lmms-eval 0.7.3 loads a task's documents (``process_docs``) inside ``Task.download``, which a
    tenacity ``@retry`` repeats on any ``Exception`` (5 attempts, 2 s apart), and its CLI catches
    every ``Exception``, prints ``Error during evaluation: RetryError[...]``, writes no results and
    exits 0. A ``SystemExit`` is neither retried nor caught: Python prints its message and exits 1.
    Raise it only at the lmms-eval boundary (the ``utils`` hooks), via :func:`stop_run_on_data_error`.
    """


class ReportInputError(ValueError):
    """Bad report input; the message names the path and what to pass."""
