"""Outputs that ran out of tokens: the ``truncated`` field of every record and the ``truncated_rate`` metric.

A reasoning model that spends its whole ``max_new_tokens`` thinking never answers; scored as an answer, its output
is one more unparsed or wrong document. :func:`truncated` says which outputs these are, so that a run can say how
often it happened (:data:`food_tasks.hooks.convention.TRUNCATED_RATE`, in every task's table):

* reasoning that never closed: an opening ``<think>``, ``<thinking>`` or ``<analysis>`` tag (any case; the tags of
  lmms-eval's ``StripThinkingFilter`` and of its ``--reasoning_tags`` default) without a later closing tag of the
  same name, paired as :func:`food_tasks.hooks.parsing.strip_reasoning` pairs them. lmms-eval 0.7.3 leaves such a
  tag in place when it strips reasoning (``lmms_eval.api.reasoning.strip_reasoning_tags``), and our tasks read the
  raw output (``reasoning_tags: none``), so the tag is there to see either way;
* an output that used the whole budget: lmms-eval 0.7.3 records a request's ``output_tokens`` where the backend
  reports it (``token_counts`` in the samples file) but does not hand it to ``process_results``;
  :func:`food_tasks.lmms.harness.install_budget` reads it with the request's ``max_new_tokens`` and marks an answer
  that used them all as :class:`Spent` before it is scored. Without counts (a backend that reports none, a cached
  response) only unclosed reasoning is counted; so it is where lmms-eval's ``reasoning_tags`` stripping (a new
  string) comes between, which our tasks turn off.

Anything that is not a string (and a request the backend reports as failed, scored as ``""``) is not truncated.
Linear in the length of the output.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any

from food_tasks.hooks.outputs import NoAnswer
from food_tasks.stats.metrics import mean

FIELD = "truncated"
# lmms-eval 0.7.3's reasoning tags: <think>/<thinking> (filters/transformation.py), <analysis> (--reasoning_tags).
REASONING_TAG_RE = re.compile(r"<(/?)(think(?:ing)?|analysis)\s*>", re.IGNORECASE)


def unclosed_reasoning(output: Any) -> bool:
    """Whether ``output`` opens a reasoning block that it never closes (False for anything that is not a string).

    Tags pair as :func:`food_tasks.hooks.parsing.strip_reasoning` pairs them: an opening tag with the first later
    closing tag of its name (the tags between them are inside the block); a closing tag without an opening one
    ends whatever came before it. The reasoning never closed when an opening tag is left after the last such
    closing tag. One pass over the tags, after one backwards pass that finds each one's next closing tag."""
    if not isinstance(output, str) or "<" not in output:
        return False
    tags = [(m.group(1) == "/", m.group(2).lower()) for m in REASONING_TAG_RE.finditer(output)]
    following: dict[str, int] = {}
    next_close = [0] * len(tags)  # index of the next closing tag of the same name, -1 without one
    for i in range(len(tags) - 1, -1, -1):
        is_close, name = tags[i]
        next_close[i] = following.get(name, -1)
        if is_close:
            following[name] = i
    left_open, i = False, 0
    while i < len(tags):
        is_close, _ = tags[i]
        if is_close:  # a closing tag left over: what came before it is reasoning
            left_open, i = False, i + 1
        elif next_close[i] == -1:  # an opening tag that nothing closes
            left_open, i = True, i + 1
        else:  # a whole block: skip to the tag after its closing tag
            i = next_close[i] + 1
    return left_open


def spent(output_tokens: Any, max_new_tokens: Any) -> bool:
    """Whether ``output_tokens`` (lmms-eval's ``token_counts[i]["output_tokens"]``) is exactly ``max_new_tokens``;
    False when either is unknown or not a positive integer. More tokens than the task's budget mean the engine had
    a larger one (lmms-eval's vllm model sends the larger of the task's and its own ``max_new_tokens``:
    docs/cluster.md), so the task's budget did not cut that answer."""
    known = all(isinstance(v, int) and not isinstance(v, bool) for v in (output_tokens, max_new_tokens))
    return known and max_new_tokens > 0 and output_tokens == max_new_tokens


def budget_of(arguments: Sequence[Any]) -> Any:
    """The ``max_new_tokens`` of a request's arguments (its generation kwargs: the first dict that holds one), or
    None. Reads a live request's ``args`` and a samples file's ``arguments`` alike."""
    if not isinstance(arguments, (list, tuple)):
        return None
    return next((a["max_new_tokens"] for a in arguments if isinstance(a, Mapping) and "max_new_tokens" in a), None)


def spent_in(arguments: Sequence[Any], counts: Any) -> bool:
    """Whether a request used its whole budget: :func:`spent` of its token counts (lmms-eval's ``TokenCounts``, or
    the dict a samples file's ``token_counts`` holds; None when the backend reported none) against
    :func:`budget_of` its ``arguments``."""
    tokens = counts.get("output_tokens") if isinstance(counts, Mapping) else getattr(counts, "output_tokens", None)
    return spent(tokens, budget_of(arguments))


class Spent(str):
    """An answer that used its whole ``max_new_tokens``: the same text, marked (as
    :class:`food_tasks.hooks.outputs.NoAnswer` marks a failed request). The harness marks the answer before it is
    scored (:func:`food_tasks.lmms.harness.install_budget`), in a re-score too (``food-tasks rescore``: the replay
    model reports the token counts the samples file recorded)."""

    def __reduce__(self) -> tuple[type[Spent], tuple[str]]:
        return (Spent, (str(self),))

    def strip(self, chars: str | None = None) -> Spent:
        """The stripped text, still marked: lmms-eval 0.7.3's ``ConfigurableTask.process_results`` strips each
        generated answer (``str.strip``, which would return a plain ``str``) before our ``process_results``."""
        return Spent(str.strip(self, chars))


def mark(output: Any, used_whole_budget: bool) -> Any:
    """``output`` as a :class:`Spent` answer when ``used_whole_budget`` and it is a plain string; else unchanged."""
    if used_whole_budget and type(output) is str:
        return Spent(output)
    return output


def truncated(output: Any) -> bool:
    """Whether the model ran out of tokens on ``output``: unclosed reasoning, or the whole budget used (a
    :class:`Spent` answer). Never raises; not a string: False."""
    if not isinstance(output, str) or isinstance(output, NoAnswer):
        return False
    return isinstance(output, Spent) or unclosed_reasoning(output)


def value(record: Mapping[str, Any]) -> float | None:
    """A record's :data:`FIELD` as 0 or 1 (a record scored without it, outside ``results_hook``: 0); None for a
    document whose image could not be loaded (``image_missing``: left out of every metric, as in every benchmark)."""
    return None if record.get("image_missing") else float(bool(record.get(FIELD)))


def rate(records: Sequence[Mapping[str, Any]]) -> float:
    """Percent of the records whose :data:`FIELD` is true, documents without their image left out (0.0 without
    any)."""
    return 100.0 * mean([v for v in map(value, records) if v is not None])
