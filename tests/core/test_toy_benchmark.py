"""A sixth benchmark from CONTRIBUTING's recipe alone (issue 34.4): a toy with two tasks and sample data, and a rotated
variant of one, written in a temporary folder in the recipe's layout (its package, hook module and YAML generator),
registered by its one line in ``food_tasks.benchmarks.PACKAGES``, checked by the core's derived registries and run
through lmms-eval.

Only the files the recipe names are written; no core module, core test or shared document is edited for it.
"""

from __future__ import annotations

import importlib
import json
import runpy
import sys

import pytest
from conftest import run_lmms_eval

import food_tasks.benchmarks
import food_tasks.utils
from food_tasks.stats import units
from food_tasks.tasks import catalogue, registry, taskgen

# food_tasks/benchmarks/toy/__init__.py: the record.
INIT = '''"""Toy: two question sets, a benchmark written from CONTRIBUTING's recipe by a test."""

from food_tasks.tasks.registry import Benchmark

SIZES = {"toy_colour": 3, "toy_shape": 2}


def documents(task: str) -> int | None:
    """Questions per task: colours 3, shapes 2."""
    return SIZES.get(task)


BENCHMARK = Benchmark(
    name="toy",
    title="Toy",
    paper="none (a test)",
    source="the packaged sample",
    licence="CC0",
    units="`acc` and `parse_fail_rate` in percent (0-100).",
    documents=documents,
    sample_tasks=("toy_colour", "toy_shape"),
)
'''
# food_tasks/benchmarks/toy/data.py and tables.py: documents and the metric table.
DATA = '''"""The toy's documents: the packaged sample beside this module."""

import json
from pathlib import Path

SAMPLE = Path(__file__).resolve().parent / "sample.jsonl"


def rows(task: str) -> list[dict]:
    """The questions of one task, in file order."""
    lines = SAMPLE.read_text(encoding="utf-8").splitlines()
    return [row for row in map(json.loads, lines) if row["task"] == task]
'''
TABLES = '''"""The toy's metric table."""

from functools import partial

from food_tasks.stats import metrics

from food_tasks.hooks import rotation

from food_tasks.stats import uncertainty as stats
from food_tasks.hooks.convention import Metric, MetricTable

TABLES = {
    "qa": MetricTable(
        Metric("acc", partial(metrics.percent_true, field="correct")),
        Metric("parse_fail_rate", partial(metrics.percent_true, field="unparsed"), higher_is_better=False),
        version=1.0,
        key=stats.column("id"),
    )
}
# The rotated task's table (food_tasks.hooks.rotation.Circular): the same metrics, the circular ones, by question.
CIRCULAR_TABLE = MetricTable(
    *TABLES["qa"].values(),
    *rotation.circular_metrics(stats.field("correct")),
    version=1.0,
    key=stats.column("id", "rotation"),
    cluster=stats.column("id"),
)
'''
# food_tasks/benchmarks/toy/circular.py: how the toy rotates its options.
CIRCULAR = '''"""The toy with rotated options: the options shift, the gold index follows its option."""

import datasets

from food_tasks.hooks import rotation


def rotate_doc(doc: dict, offset: int) -> dict:
    gold = rotation.rotated_gold(doc["gold"], offset, len(doc["options"]))
    return {**doc, "options": rotation.rotate(doc["options"], offset), "gold": gold}


def expand(ds: datasets.Dataset) -> datasets.Dataset:
    rows = rotation.expand(ds.to_list(), lambda d: len(d["options"]), rotate_doc, lambda d: d["id"])
    return datasets.Dataset.from_list(rows)
'''
# utils/toy.py: the hook module.
HOOKS = '''"""lmms-eval hooks of the toy (installed as ``food_tasks.utils.toy``)."""

from functools import partial

import datasets

from food_tasks.hooks import rotation
from food_tasks.benchmarks.toy import circular, data
from food_tasks.benchmarks.toy.tables import CIRCULAR_TABLE, TABLES
from food_tasks.hooks.convention import results_hook


def _docs(task: str, dataset: object) -> datasets.Dataset:
    return datasets.Dataset.from_list(data.rows(task))


docs_colour = partial(_docs, "colour")
docs_shape = partial(_docs, "shape")


def doc_to_visual(doc: dict, lmms_eval_specific_kwargs: dict | None = None) -> list:
    return []


def doc_to_text(doc: dict, lmms_eval_specific_kwargs: dict | None = None) -> str:
    options = [f"{i}. {option}" for i, option in enumerate(doc["options"], start=1)]
    return "\\n".join([doc["question"], *options, "Answer with the option's number."])


def doc_to_messages(doc: dict, lmms_eval_specific_kwargs: dict | None = None) -> list[dict]:
    return [{"role": "user", "content": [{"type": "text", "text": doc_to_text(doc)}]}]


def score(doc: dict, output: object) -> dict:
    text = output.strip() if isinstance(output, str) else ""
    numbers = [str(i) for i in range(1, len(doc["options"]) + 1)]
    chosen = numbers.index(text) if text in numbers else None
    return {"id": doc["id"], "correct": chosen == doc["gold"], "unparsed": chosen is None}


process_results = results_hook(score, TABLES["qa"])
CIRCULAR = rotation.Circular(circular.expand, score, CIRCULAR_TABLE)
process_results_circular = CIRCULAR.process_results
docs_colour_circular = CIRCULAR.docs(docs_colour)
'''
# yaml_tasks/toy/_generate_configs.py: the YAML generator.
GENERATOR = '''"""Generate the toy's task YAML files."""

from food_tasks.tasks import taskgen
from food_tasks.utils import toy as hooks

HOOKS = "food_tasks.utils.toy"
TASKS = {"toy_colour": ("docs_colour", "Toy colours"), "toy_shape": ("docs_shape", "Toy shapes")}


def render() -> dict[str, str]:
    files = {
        "_stub.jsonl": taskgen.stub_line("food_tasks.benchmarks.toy.data"),
        "_toy_yaml": taskgen.template(
            about=["Template of the toy tasks."],
            hooks=HOOKS,
            visual="doc_to_visual",
            text_hook="doc_to_text",
            messages="doc_to_messages",
            target="gold",
            budget=8,
            reasoning_note=["Raw output reaches process_results."],
            process_results="process_results",
            table=hooks.TABLES["qa"],
        ),
    }
    for name, (docs, alias) in TASKS.items():
        files[f"{name}.yaml"] = taskgen.task(include="_toy_yaml", name=name, alias=alias, docs=f"{HOOKS}.{docs}")
    files["toy_colour_circular.yaml"] = taskgen.circular_task(
        files["toy_colour.yaml"], "toy_colour_circular", alias="Toy colours, circular", table=hooks.CIRCULAR.table
    )
    return files


if __name__ == "__main__":
    taskgen.main(render, __file__)
'''
COLOURS, SHAPES = ["red", "green", "white"], ["round", "square", "triangle"]
SAMPLE = [
    {"task": "colour", "id": "c1", "question": "Colour of a ripe tomato?", "options": COLOURS, "gold": 0},
    {"task": "colour", "id": "c2", "question": "Colour of a lime?", "options": COLOURS, "gold": 1},
    {"task": "colour", "id": "c3", "question": "Colour of milk?", "options": COLOURS, "gold": 2},
    {"task": "shape", "id": "s1", "question": "Shape of a pizza?", "options": SHAPES, "gold": 0},
    {"task": "shape", "id": "s2", "question": "Shape of a sandwich cut diagonally?", "options": SHAPES, "gold": 2},
]
# The replay model's answers by document position: colours right, wrong, empty; shapes right, right; the rotated
# colours (three rotations of each question, in order) always "1".
ANSWERS = {"toy_colour": ["1", "3", ""], "toy_shape": ["1", " 3"], "toy_colour_circular": ["1"] * 9}


@pytest.fixture
def toy(tmp_path, monkeypatch):
    """The toy written in the recipe's layout under ``tmp_path`` and registered by its one ``PACKAGES`` line."""
    package = tmp_path / "food_tasks" / "benchmarks" / "toy"
    package.mkdir(parents=True)
    (package / "__init__.py").write_text(INIT, encoding="utf-8")
    (package / "data.py").write_text(DATA, encoding="utf-8")
    (package / "tables.py").write_text(TABLES, encoding="utf-8")
    (package / "circular.py").write_text(CIRCULAR, encoding="utf-8")
    (package / "sample.jsonl").write_text("".join(json.dumps(r) + "\n" for r in SAMPLE), encoding="utf-8")
    hooks = tmp_path / "utils"
    hooks.mkdir()
    (hooks / "toy.py").write_text(HOOKS, encoding="utf-8")
    yaml_dir = tmp_path / "yaml_tasks" / "toy"
    yaml_dir.mkdir(parents=True)
    (yaml_dir / "_generate_configs.py").write_text(GENERATOR, encoding="utf-8")
    # Installed where the recipe puts them: food_tasks.benchmarks.toy, food_tasks.utils.toy.
    monkeypatch.setattr(food_tasks.benchmarks, "__path__", [*food_tasks.benchmarks.__path__, str(package.parent)])
    monkeypatch.setattr(food_tasks.utils, "__path__", [*food_tasks.utils.__path__, str(hooks)])
    try:
        record = importlib.import_module("food_tasks.benchmarks.toy").BENCHMARK
        monkeypatch.setattr(food_tasks.benchmarks, "PACKAGES", (*food_tasks.benchmarks.PACKAGES, "toy"))
        monkeypatch.setattr(food_tasks.benchmarks, "BENCHMARKS", (*food_tasks.benchmarks.BENCHMARKS, record))
        taskgen.write(runpy.run_path(str(yaml_dir / "_generate_configs.py"))["render"](), yaml_dir)
        yield record, yaml_dir
    finally:
        for name in [m for m in sys.modules if m.startswith(("food_tasks.benchmarks.toy", "food_tasks.utils.toy"))]:
            del sys.modules[name]


@pytest.mark.e2e
def test_a_toy_benchmark_from_the_recipe_alone_runs_through_lmms_eval(toy, tmp_path):
    record, yaml_dir = toy
    from food_tasks.benchmarks import get
    from food_tasks.utils import toy as hooks

    # The core's derived registries see it: the record, its units sentence against its table, its sizes.
    assert get("toy") is record and units.problems(record.units, hooks.TABLES) == []
    assert {t: record.documents(t) for t in record.sample_tasks} == {"toy_colour": 3, "toy_shape": 2}
    assert sorted(p.name for p in yaml_dir.iterdir()) == [
        "_generate_configs.py",
        "_stub.jsonl",
        "_toy_yaml",
        "toy_colour.yaml",
        "toy_colour_circular.yaml",
        "toy_shape.yaml",
    ]
    # Its rotated task is generated from its base task and declares it (generic rotation: no module of its own).
    assert registry.variant_in(catalogue.load_yaml(yaml_dir / "toy_colour_circular.yaml")["metadata"]) == (
        "circular",
        "toy_colour",
    )
    results_by_task = {}
    for task, answers in ANSWERS.items():
        responses = tmp_path / f"{task}.jsonl"
        responses.write_text("".join(json.dumps({"doc_id": i, "response": a}) + "\n" for i, a in enumerate(answers)))
        proc, results, samples = run_lmms_eval(
            [
                "--model",
                "food_tasks_replay",
                "--model_args",
                f"responses={responses}",
                "--tasks",
                task,
                "--include_path",
                str(yaml_dir),
            ],
            tmp_path / f"out_{task}",
        )
        assert results is not None, proc.stdout[-3000:] + proc.stderr[-3000:]
        assert len(samples[task]) == len(answers)
        results_by_task[task] = results["results"][task]
    # Hand-computed: colours 1 of 3 right, 1 of 3 empty; shapes 2 of 2 right.
    assert results_by_task["toy_colour"]["acc,none"] == pytest.approx(100 / 3)
    assert results_by_task["toy_colour"]["parse_fail_rate,none"] == pytest.approx(100 / 3)
    assert results_by_task["toy_shape"]["acc,none"] == 100.0
    assert results_by_task["toy_shape"]["parse_fail_rate,none"] == 0.0
    # Always "1" over every rotation: each question right only in the rotation that puts its gold first.
    rotated = results_by_task["toy_colour_circular"]
    assert rotated["acc,none"] == pytest.approx(100 / 3) and rotated["parse_fail_rate,none"] == 0.0
    assert rotated["circular_acc,none"] == 0.0 and rotated["rotation_mean_acc,none"] == pytest.approx(100 / 3)
