"""lmms-eval hooks of the WorldCuisines ``_circular`` MCQ tasks
(installed as ``food_tasks.utils.worldcuisines_circular``).

Each document is asked once per rotation of its options (:mod:`food_tasks.benchmarks.worldcuisines.circular`);
everything else (images, prompt hook, scorer, metrics) is the MCQ task's, plus the circular metrics. A document is
(qa_id, language, rotation); the cluster stays the dish (food_id), which holds whole questions.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import partial

from food_tasks import rotation, stats
from food_tasks.benchmarks.worldcuisines import circular
from food_tasks.benchmarks.worldcuisines.tables import CLUSTER, TABLES
from food_tasks.data import stop_run_on_data_error
from food_tasks.hooks import Docs, MetricTable, results_hook
from food_tasks.utils import worldcuisines as wc


@stop_run_on_data_error
def _docs(base: Callable[[object], Docs], dataset: object) -> Docs:
    """``process_docs``: the base task's documents, one per rotation of each question's options."""
    return circular.expand(base(dataset))


# process_docs per task: the base task's documents, expanded.
docs_large_1a = partial(_docs, wc.docs_large_1a)
docs_large_1b = partial(_docs, wc.docs_large_1b)
docs_large_1c = partial(_docs, wc.docs_large_1c)
docs_large_2 = partial(_docs, wc.docs_large_2)
docs_sample_1a = partial(_docs, wc.docs_sample_1a)
docs_sample_1b = partial(_docs, wc.docs_sample_1b)
docs_sample_1c = partial(_docs, wc.docs_sample_1c)
docs_sample_2 = partial(_docs, wc.docs_sample_2)

TABLE = MetricTable(
    # The cross-lingual measures read one answer per (item, language): not defined over rotations.
    *TABLES["mcq"].without(*(name for name in TABLES["mcq"] if name.startswith("xling_"))).values(),
    *rotation.circular_metrics(stats.field("correct", unless="image_missing")),
    version=TABLES["mcq"].version,
    key=stats.column("qa_id", "lang", "rotation"),
    cluster=CLUSTER,
)
process_results = results_hook(rotation.with_rotation(wc.score_mcq), TABLE)
