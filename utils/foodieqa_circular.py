"""lmms-eval hooks of the FoodieQA ``_circular`` tasks (installed as ``food_tasks.utils.foodieqa_circular``).

Each question is asked once per rotation of its options (:mod:`food_tasks.benchmarks.foodieqa.circular`); images,
prompts and the robust scorer are the task's. A document is (index, rotation); the cluster stays the question (qid).
The paper-protocol metrics are left out: their seeded random fallback is drawn in file order, which rotations of
one question do not have.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import partial

from food_tasks import rotation, stats
from food_tasks.benchmarks.foodieqa import circular
from food_tasks.benchmarks.foodieqa.tables import CLUSTER, TABLES
from food_tasks.data import stop_run_on_data_error
from food_tasks.hooks import Docs, MetricTable, results_hook
from food_tasks.utils import foodieqa as fq


@stop_run_on_data_error
def _docs(base: Callable[[object], Docs], dataset: object) -> Docs:
    """``process_docs``: the base task's documents, one per rotation of each question's options."""
    return circular.expand(base(dataset))


# process_docs per task: the base task's documents, expanded.
docs_mivqa_zh_p0 = partial(_docs, fq.docs_mivqa_zh_p0)
docs_mivqa_zh_p1 = partial(_docs, fq.docs_mivqa_zh_p1)
docs_mivqa_zh_p2 = partial(_docs, fq.docs_mivqa_zh_p2)
docs_mivqa_zh_p3 = partial(_docs, fq.docs_mivqa_zh_p3)
docs_mivqa_en_p0 = partial(_docs, fq.docs_mivqa_en_p0)
docs_mivqa_en_p1 = partial(_docs, fq.docs_mivqa_en_p1)
docs_mivqa_en_p2 = partial(_docs, fq.docs_mivqa_en_p2)
docs_mivqa_en_p3 = partial(_docs, fq.docs_mivqa_en_p3)
docs_sivqa_zh_p0 = partial(_docs, fq.docs_sivqa_zh_p0)
docs_sivqa_zh_p1 = partial(_docs, fq.docs_sivqa_zh_p1)
docs_sivqa_zh_p2 = partial(_docs, fq.docs_sivqa_zh_p2)
docs_sivqa_zh_p3 = partial(_docs, fq.docs_sivqa_zh_p3)
docs_sivqa_en_p0 = partial(_docs, fq.docs_sivqa_en_p0)
docs_sivqa_en_p1 = partial(_docs, fq.docs_sivqa_en_p1)
docs_sivqa_en_p2 = partial(_docs, fq.docs_sivqa_en_p2)
docs_sivqa_en_p3 = partial(_docs, fq.docs_sivqa_en_p3)
docs_mivqa_zh_sample_p1 = partial(_docs, fq.docs_mivqa_zh_sample_p1)
docs_sivqa_en_sample_p3 = partial(_docs, fq.docs_sivqa_en_sample_p3)


_KEEP = (
    "acc",
    "invalid_rate",
    "per_question_type",
    "per_category",
    "image_missing",
    "parse_fail_rate",
    "position_bias",
    "position_bias_p",
    "position_rstd",
)
TABLE = MetricTable(
    *(TABLES["p0"][name] for name in _KEEP),
    *rotation.circular_metrics(stats.field("correct", unless="image_missing")),
    version=TABLES["p0"].version,
    key=stats.column("index", "rotation"),
    cluster=CLUSTER,
)
process_results = results_hook(rotation.with_rotation(fq.score_qa), TABLE)
