"""lmms-eval hooks of the DiningBench ``_circular`` classification tasks (installed as
``food_tasks.utils.diningbench_circular``).

Each record is asked once per rotation of its options (:mod:`food_tasks.benchmarks.diningbench.circular`);
everything else (images, prompt, scorer, metrics) is the classification task's, plus the circular metrics. A
document is (row, rotation); the cluster is the row, so standard errors resample records, never rotations.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import partial

from food_tasks import rotation, stats
from food_tasks.benchmarks.diningbench import circular
from food_tasks.benchmarks.diningbench import scoring as db_scoring
from food_tasks.benchmarks.diningbench.tables import TABLES
from food_tasks.data import stop_run_on_data_error
from food_tasks.hooks import Docs, MetricTable, results_hook
from food_tasks.utils import diningbench as db


@stop_run_on_data_error
def _docs(base: Callable[[object], Docs], dataset: object) -> Docs:
    """``process_docs``: the base task's documents, one per rotation of each record's options."""
    return circular.expand(base(dataset))


# process_docs per task: the base task's documents, expanded.
docs_cls_zh = partial(_docs, db.docs_cls_zh)
docs_cls_en = partial(_docs, db.docs_cls_en)
docs_sample_cls = partial(_docs, db.docs_sample_cls)

TABLE = MetricTable(
    *TABLES["cls"].values(),
    *rotation.circular_metrics(stats.field("correct", unless="image_missing")),
    version=TABLES["cls"].version,
    key=stats.column("idx", "rotation"),
    cluster=stats.column("idx"),
)
process_results = results_hook(rotation.with_rotation(db._with_images(db_scoring.score_cls)), TABLE)
