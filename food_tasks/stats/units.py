"""One truth per unit: a benchmark's units sentence, checked against the scales its metrics declare.

Each registry record states its units in one sentence (:attr:`food_tasks.tasks.registry.Benchmark.units`),
which the benchmark's README repeats verbatim (docs/benchmarks.md says where). The sentence is a list of clauses
separated by ``;``; a clause names metrics in backticks (``fnmatch`` patterns and ``{a,b}`` alternatives allowed:
```mrr*```, ```rouge{1,2,L}_f```) and says their unit with one of the phrases of :data:`PHRASES`::

    `acc*`, `invalid_rate` and `parse_fail_rate` in percent (0-100); `bertscore_f1` x 100 (paper Table 8).

:func:`problems` checks it against the :class:`food_tasks.hooks.convention.Metric` ``scale`` of every metric of the
benchmark's ``TABLES``: each named metric exists and has a scale the phrase allows, and every metric whose
scale alone does not say its range (``score``: x 100 or [0, 1]) is named.
"""

from __future__ import annotations

import fnmatch
import re
from collections.abc import Mapping
from typing import Any

# Unit phrase (as written in a clause) -> the Metric scales it may describe.
PHRASES: tuple[tuple[str, frozenset[str]], ...] = (
    ("percent", frozenset({"percent"})),
    ("x 100", frozenset({"score"})),
    ("[0, 1]", frozenset({"score"})),
    ("[-1, 1]", frozenset({"score"})),  # a kappa
    ("kcal", frozenset({"native"})),
    ("words", frozenset({"native", "count"})),  # mean words per caption: a count, no arrow in the table
)
# Scales whose name does not give the range: every such metric must be named in the sentence.
AMBIGUOUS = frozenset({"score"})
_NAMES = re.compile(r"`([^`]+)`")


def scales(tables: Mapping[str, Any]) -> dict[str, str]:
    """``metric name -> scale`` over every table of a hook module's ``TABLES``."""
    return {name: metric.scale for table in tables.values() for name, metric in table.items()}


def problems(sentence: str, tables: Mapping[str, Any]) -> list[str]:
    """Where ``sentence`` disagrees with ``tables`` (empty when it agrees)."""
    declared = scales(tables)
    found: list[str] = []
    named: set[str] = set()
    for clause in (c.strip() for c in sentence.rstrip(".").split(";")):
        patterns = _NAMES.findall(clause)
        rest = _NAMES.sub("", clause)
        allowed = [scales_ for phrase, scales_ in PHRASES if phrase in rest]
        if not patterns:
            continue
        if not allowed:
            found.append(f"{clause!r}: no unit phrase ({', '.join(p for p, _ in PHRASES)})")
            continue
        for pattern in patterns:
            matched = sorted({n for p in expand(pattern) for n in fnmatch.filter(declared, p)})
            if not matched:
                found.append(f"{clause!r}: `{pattern}` names no metric")
            for name in matched:
                named.add(name)
                if not any(declared[name] in s for s in allowed):
                    found.append(f"{clause!r}: `{name}` is declared {declared[name]!r}")
    missing = sorted(n for n, s in declared.items() if s in AMBIGUOUS and n not in named)
    if missing:
        found.append(
            f"metrics whose scale ({'/'.join(sorted(AMBIGUOUS))}) does not give the range are not named: "
            f"{', '.join(missing)}"
        )
    return found


def expand(pattern: str) -> list[str]:
    """``{a,b}`` alternatives expanded (``ctc{,_ki}`` -> ``ctc``, ``ctc_ki``), left to right."""
    match = re.search(r"\{([^{}]*)\}", pattern)
    if match is None:
        return [pattern]
    return [
        p for alt in match.group(1).split(",") for p in expand(pattern[: match.start()] + alt + pattern[match.end() :])
    ]
