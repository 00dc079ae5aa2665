"""Scored records of every benchmark's packaged sample tasks, for the tests of estimators and their order
(tests/core/test_error_bars_tables.py, test_error_bars_order.py).

Outputs are each document's own target (right, twice), another document's target (mostly wrong) and three junk
outputs (empty, a refusal, a bare label, a failed request, None, unfinished reasoning).
"""

from __future__ import annotations

import random
from functools import cache

from food_tasks.benchmarks import BENCHMARKS
from food_tasks.hooks.convention import MetricTable
from food_tasks.tasks import catalogue

JUNK = [
    "",
    "I cannot tell.",
    "A",
    "B",
    "3",
    "{}",
    "[LMMS_EVAL_REQUEST_FAILED after 2 retries] 500",
    None,
    "<think>unfinished",
]


def leaf_tasks(name: str) -> list[str]:
    """The tasks of ``name`` (itself, or every leaf of a group)."""
    path = catalogue.index()[name]
    listed = catalogue.yaml_key(path, "task")
    if isinstance(listed, list):  # a group
        return [leaf for child in listed for leaf in leaf_tasks(child)]
    return [name]


@cache
def scored(task: str) -> tuple[MetricTable, list]:
    """The task's metric table and its records: six outputs per sample document, in document order."""
    path = catalogue.index()[task]
    docs = list(catalogue.function(catalogue.yaml_key(path, "process_docs"))(None))
    process = catalogue.function(catalogue.yaml_key(path, "process_results"))
    target = catalogue.yaml_key(path, "doc_to_target")
    rng = random.Random(7)
    targets = [str(d.get(target, "")) for d in docs]
    outputs_per_doc = []
    for t in targets:
        outputs_per_doc.append([t, t, rng.choice(targets), *rng.sample(JUNK, 3)])
    payloads = [process(doc, [out]) for doc, outs in zip(docs, outputs_per_doc) for out in outs]
    table = next(iter(payloads[0].values())).table
    return table, [next(iter(p.values())).record for p in payloads]


SAMPLE_TASKS = sorted({leaf for b in BENCHMARKS for t in b.sample_tasks for leaf in leaf_tasks(t)})
