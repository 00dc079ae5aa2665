"""No aggregation raises on any model output: every metric of every table of every benchmark (and of regional
tasks), through ``process_results`` and ``food_tasks.hooks.convention.aggregate``, on adversarial outputs.

Documents come from each benchmark's own test fixture (a mirror in the published layout), loaded by the
``process_docs`` of the task YAMLs we ship, one task per table. Each adversarial output is given to every
other document (the rest answer plausibly), so each metric sees it beside ordinary rows. What an aggregation
returns must also be what lmms-eval can write: JSON with its fallback for other objects, encodable as UTF-8.
Absent values (NaN, None) are allowed where a metric documents them.
"""

from __future__ import annotations

import json
import math
import pickle
import sys
from collections.abc import Callable
from pathlib import Path

import pytest
import yaml

from food_tasks import regional
from food_tasks.benchmarks import BENCHMARKS
from food_tasks.hooks import convention as hooks
from food_tasks.regional_tasks import check as regional_check
from food_tasks.regional_tasks import files as regional_files
from food_tasks.registration import task_dir

TESTS = Path(__file__).resolve().parents[1]
REPO = TESTS.parent
for folder in (TESTS, *(TESTS / b.name for b in BENCHMARKS)):
    if str(folder) not in sys.path:
        sys.path.insert(0, str(folder))

from judge_server import JudgeServer  # noqa: E402

RUNAWAY = "The answer is B because the dish is fried. " * 24_000  # ~1 MB, the budget of a runaway generation
ADVERSARIAL: dict[str, object] = {
    "lone_surrogate": "Chi\udf20cken Kiev \ud800",
    "nul": "B\x00\x00{\x00}",
    "runaway_1mb": RUNAWAY,
    "runaway_unclosed_think": "<think>" + "hmm " * 50_000,
    "deep_nesting_text": "[" * 100_000 + "{" * 50_000,
    "deep_json": '{"calories": ' * 5_000 + "1" + "}" * 5_000,
    "huge_number": '{"calories": ' + "9" * 5_000 + ', "protein": 1e999, "fat": NaN, "carbohydrates": -Infinity}',
    "mixed_scripts": "答案是 Ｂ ب א\u200f\u202e 𝐀 ⓑ café\u0301 \ufeff\u200d 🍜 Ç",
    "empty": "",
    "whitespace": " \n\t\r\u3000",
    "backend_failure": "[LMMS_EVAL_REQUEST_FAILED after 2 retries] Connection reset",
    "none": None,
    "int": 42,
    "huge_int": 10**5000,  # str() raises ValueError past 4,300 digits
    "nan": math.nan,
    "bytes": b"B",
    "list": ["A", "B"],
    "dict": {"answer": "B"},
    "deep_list": None,  # built below: a 10,000-deep nested list
}
deep: list = []
for _ in range(10_000):
    deep = [deep]
ADVERSARIAL["deep_list"] = deep
PLAUSIBLE = ["B", '{"calories": 500, "protein": 20, "carbohydrates": 60, "fat": 10}', "A dish of fried chicken."]


# --------------------------------------------------------------------------- documents per table


def _yaml_tasks(bench: str) -> list[tuple[str, str, str]]:
    """``(task, process_docs, process_results)`` of every task YAML of ``bench`` (includes resolved)."""

    class Loader(getattr(yaml, "CSafeLoader", yaml.SafeLoader)):  # libyaml: ten times faster on our 276 YAMLs
        pass

    Loader.add_constructor("!function", lambda loader, node: "fn:" + loader.construct_scalar(node))

    def load(path: Path) -> dict:
        config = yaml.load(path.read_text(encoding="utf-8"), Loader=Loader) or {}
        if "include" in config:
            config = {**load(path.parent / config["include"]), **config}
        return config

    out = []
    for path in sorted((task_dir() / bench).glob("*.yaml")):
        config = load(path)
        docs, results = config.get("process_docs"), config.get("process_results")
        if "task" in config and isinstance(docs, str) and isinstance(results, str):
            out.append((config["task"], docs[3:], results[3:]))
    return out


def _function(dotted: str) -> Callable:
    import importlib

    module, _, name = dotted.rpartition(".")
    return getattr(importlib.import_module(module), name)


def _tables(bench: str) -> dict:
    """Every metric table of ``bench``: its hook module's ``TABLES`` and, where the benchmark has ``_circular``
    tasks, its ``CIRCULAR`` table (as ``"circular"``)."""
    import importlib

    hooks = importlib.import_module(f"food_tasks.utils.{bench}")
    tables = dict(hooks.TABLES)
    if getattr(hooks, "CIRCULAR", None) is not None:
        tables["circular"] = hooks.CIRCULAR.table
    return tables


def _builder(bench: str) -> Callable[[Path], dict[str, str]]:
    """``hook_environment(root) -> environment`` of the benchmark's fixture module (tests/<bench>/<bench>_fixture.py):
    builds a mirror under ``root`` that every task's ``process_docs`` reads, and says what else to set."""
    import importlib

    return importlib.import_module(f"{bench}_fixture").hook_environment


def test_every_benchmark_has_a_fixture_builder():
    """Derived from the records (issue 34.4): a new benchmark adds its fixture module, no line here."""
    assert all(callable(_builder(b.name)) for b in BENCHMARKS)


@pytest.fixture(scope="module")
def judge_url():  # type: ignore[no-untyped-def]
    with JudgeServer(lambda prompt: "是") as server:
        yield server.url


@pytest.fixture(scope="module")
def docs_by_table(tmp_path_factory, judge_url, tiny_bert):  # type: ignore[no-untyped-def]
    """``{(bench, kind): (process_results, documents)}`` for every table of every hook module."""
    out: dict[tuple[str, str], tuple[Callable, list]] = {}
    with pytest.MonkeyPatch.context() as mp:
        _environment(mp, tmp_path_factory.mktemp("adv_env"), judge_url, tiny_bert)
        for bench in (b.name for b in BENCHMARKS):
            root = tmp_path_factory.mktemp(f"adv_{bench}")
            for name, value in _builder(bench)(root).items():
                mp.setenv(name, value)
            mp.setenv("FOOD_TASKS_DATA_DIR", str(root))
            tables = _tables(bench)
            seen: set[str] = set()
            for _task, docs_name, results_name in _yaml_tasks(bench):
                if set(tables) <= {k for (b, k) in out if b == bench}:
                    break
                shared = not results_name.rsplit(".", 1)[1].startswith(
                    "process_results_"
                )  # picks its table per document
                if results_name in seen and not shared:
                    continue
                seen.add(results_name)
                process_results = _function(results_name)
                for doc in _function(docs_name)(None):
                    names = set(process_results(doc, ["B"]))  # the table whose metrics these are
                    kind = next(k for k, t in tables.items() if set(t) == names)
                    docs = out.setdefault((bench, kind), (process_results, []))[1]
                    if len(docs) < 12:
                        docs.append(doc)
    return out


def _environment(mp: pytest.MonkeyPatch, work: Path, judge_url: str, tiny_bert: Path) -> None:
    from conftest import LANGS

    settings = {
        "HF_HUB_OFFLINE": "1",
        "HF_DATASETS_OFFLINE": "1",
        "FOOD_TASKS_WORLDCUISINES_LANGS": ",".join(LANGS),
        "FOOD_TASKS_CACHE_DIR": str(work / "cache"),
        "FOOD_TASKS_JUDGE_MODEL": "judge-test",
        "API_TYPE": "openai",
        "OPENAI_API_URL": judge_url,
        "OPENAI_API_KEY": "",
        "FOOD_TASKS_JUDGE_CACHE": str(work / "judge"),
        "FOOD_TASKS_JUDGE_ATTEMPTS": "1",
        "FOOD_TASKS_JUDGE_TIMEOUT": "30",
        "FOOD_TASKS_DININGBENCH_MODEL_NAME": "",
        "FOOD_TASKS_BERTSCORE_MODEL": str(tiny_bert),
        "FOOD_TASKS_BERTSCORE_LAYERS": "2",
    }
    for name, value in settings.items():
        mp.setenv(name, value)


TABLE_IDS = [(b.name, kind) for b in BENCHMARKS for kind in _tables(b.name)]


def _writable(value: object) -> None:
    """What lmms-eval does with an aggregated value: json.dumps (other objects as str), then UTF-8."""
    json.dumps(value, default=str, ensure_ascii=False).encode("utf-8")


def _run(process_results: Callable, docs: list, table_metrics: list[str], output: object) -> dict[str, object]:
    """The adversarial output on every other document of (at most four), plausible answers on the rest."""
    outputs = [output if i % 2 == 0 else PLAUSIBLE[i // 2 % len(PLAUSIBLE)] for i in range(min(len(docs), 4))]
    return _aggregate_all(process_results, docs, table_metrics, outputs)


def _aggregate_all(process_results: Callable, docs: list, table_metrics: list[str], outputs: list) -> dict[str, object]:
    payloads = [process_results(doc, [output]) for doc, output in zip(docs, outputs)]
    for payload in payloads:  # what lmms-eval does with them: gathered across ranks (pickle), written as samples (JSON)
        for value in payload.values():
            pickle.loads(pickle.dumps(value))
            json.dumps(dict(value), default=str, ensure_ascii=False)
    got = {}
    for name in table_metrics:
        value = hooks.aggregate([p[name] for p in payloads])
        _writable(value)
        got[name] = value
    return got


# Tables whose aggregation starts Java tools (about 18 s a run): their text cases run together, several
# adversarial outputs in one aggregation (test_adversarial_outputs_together); non-strings are one empty caption.
JAVA_TABLES = {("food500cap", "caption")}


@pytest.mark.parametrize("case", list(ADVERSARIAL))
@pytest.mark.parametrize(
    "bench,kind",
    [pytest.param(b, k, marks=pytest.mark.slow) if (b, k) in JAVA_TABLES else (b, k) for b, k in TABLE_IDS],
    ids=[f"{b}-{k}" for b, k in TABLE_IDS],
)
def test_no_aggregation_raises_on_any_output(
    docs_by_table, judge_url, tiny_bert, monkeypatch, tmp_path, bench, kind, case
):
    if (bench, kind) in JAVA_TABLES and isinstance(ADVERSARIAL[case], str):
        pytest.skip("covered by test_adversarial_outputs_together (one Java run for several outputs)")
    assert (bench, kind) in docs_by_table, f"no task YAML gives documents of table {kind!r}"
    _environment(monkeypatch, tmp_path, judge_url, tiny_bert)
    process_results, docs = docs_by_table[(bench, kind)]
    table = _tables(bench)[kind]
    got = _run(process_results, docs, list(table), ADVERSARIAL[case])
    assert set(got) == set(table)


@pytest.mark.slow  # Java tools
@pytest.mark.parametrize("bench,kind", sorted(JAVA_TABLES))
def test_adversarial_outputs_together(docs_by_table, judge_url, tiny_bert, monkeypatch, tmp_path, bench, kind):
    _environment(monkeypatch, tmp_path, judge_url, tiny_bert)
    process_results, docs = docs_by_table[(bench, kind)]
    table = _tables(bench)[kind]
    texts = [v for c, v in ADVERSARIAL.items() if isinstance(v, str)]
    for start in range(0, len(texts), len(docs)):
        outputs = (texts[start:] + texts[:start])[: len(docs)]
        assert set(_aggregate_all(process_results, docs, list(table), outputs)) == set(table)


# --------------------------------------------------------------------------- regional tasks


def _regional(name: str):  # type: ignore[no-untyped-def]
    path = REPO / "examples" / "regional" / name
    raw = regional_check.read_yaml(path)
    # lmms-eval anchors relative data_files at the YAML's folder before our hook sees the config; do the same
    # here so the test does not depend on the working directory.
    files = regional_files.local_files(raw, path.parent)
    raw["dataset_kwargs"] = {**raw["dataset_kwargs"], "data_files": {s: [str(p) for p in v] for s, v in files.items()}}
    config = regional._bind(raw)
    rows = regional_check._load_rows(
        config["dataset_path"], config, regional_files.local_files(config, path.parent), config["test_split"]
    )
    table = [m["metric"] for m in config["metric_list"]]
    return config["process_results"], rows[:4], table


@pytest.mark.parametrize("case", list(ADVERSARIAL))
@pytest.mark.parametrize(
    "name",
    [f"regional_example_{k}.yaml" for k in ("mcq", "open", "multi", "numeric", "aliases")],
)
def test_no_regional_aggregation_raises_on_any_output(name, case):
    process_results, docs, table = _regional(name)
    got = _run(process_results, docs, table, ADVERSARIAL[case])
    assert set(got) == set(table)
