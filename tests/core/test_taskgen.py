"""The shared YAML generator library (food_tasks.tasks.taskgen)."""

from __future__ import annotations

import pytest
import yaml

from food_tasks.hooks.convention import Metric, MetricTable
from food_tasks.tasks import taskgen

TABLE = MetricTable(Metric("acc", len), Metric("invalid_rate", len, higher_is_better=False), version=1.2)


class _Loader(getattr(yaml, "CSafeLoader", yaml.SafeLoader)):  # libyaml: ten times faster on our 276 YAMLs
    pass


_Loader.add_constructor("!function", lambda loader, node: "!function " + loader.construct_scalar(node))


def test_aliases_are_short_and_present():
    """Every generated task and group has a display alias of at most ALIAS_WIDTH characters (one naming rule)."""
    assert 'task_alias: "short"' in taskgen.task(include="_t_yaml", name="t", alias="short", docs="m.d")
    for alias in ("", "  ", "x" * (taskgen.ALIAS_WIDTH + 1)):
        with pytest.raises(ValueError, match="alias"):
            taskgen.task(include="_t_yaml", name="t", alias=alias, docs="m.d")
        with pytest.raises(ValueError, match="alias"):
            taskgen.group("g", alias, ["t"])


def test_template_writes_the_tables_metrics_and_version():
    text = taskgen.template(
        about=["About."],
        hooks="food_tasks.utils.x",
        visual="v",
        text_hook="t",
        messages="m",
        target="gold",
        budget=64,
        reasoning_note=["Why."],
        process_results="process_results_k",
        table=TABLE,
        extra=["lmms_eval_specific_kwargs:", "  default: {}"],
        metadata=["note: 1"],
    )
    assert text.startswith(taskgen.HEADER + "\n# About.\n")
    config = yaml.load(text, Loader=_Loader)
    assert config["metric_list"] == [
        {"metric": "acc", "aggregation": "!function food_tasks.hooks.convention.aggregate", "higher_is_better": True},
        {
            "metric": "invalid_rate",
            "aggregation": "!function food_tasks.hooks.convention.aggregate",
            "higher_is_better": False,
        },
    ]
    assert config["metadata"] == {"version": 1.2, "note": 1} and config["reasoning_tags"] == "none"
    assert config["generation_kwargs"] == {
        "max_new_tokens": 64,
        "temperature": 0,
        "do_sample": False,
        "num_beams": 1,
        "until": [],
    }
    assert config["process_results"] == "!function food_tasks.utils.x.process_results_k"
    assert config["dataset_kwargs"] == {"data_files": {"test": "_stub.jsonl"}}
    assert "metric_list" not in yaml.load(
        taskgen.template(
            about=[],
            hooks="h",
            visual="v",
            text_hook="t",
            messages="m",
            target="g",
            budget=1,
            reasoning_note=[],
            process_results="p",
            table=TABLE,
            with_metrics=False,
        ),
        Loader=_Loader,
    )


def test_group_reductions():
    config = yaml.load(
        taskgen.group(
            "g", "G", ["a", "b"], metrics=[("acc", "mean"), ("acc_best", "max"), ("acc_official", "official")]
        ),
        Loader=_Loader,
    )
    assert config["task"] == ["a", "b"] and config["metadata"] == {"version": 1.0}
    assert [m["aggregation"] for m in config["aggregate_metric_list"]] == [
        "mean",
        "!function food_tasks.stats.metrics.group_max",
        "!function food_tasks.stats.metrics.group_mean_official",
    ]
    assert "aggregate_metric_list" not in yaml.load(taskgen.group("g", "G", ["a"]), Loader=_Loader)
    with pytest.raises(ValueError, match="reduction 'median'"):
        taskgen.group("g", "G", ["a"], metrics=[("acc", "median")])


def test_task_and_write(tmp_path):
    text = taskgen.task(
        include="_t_yaml", name="t1", alias="T 1", docs="food_tasks.utils.x.docs_t1", extra=taskgen.generation_kwargs(8)
    )
    config = yaml.load(text, Loader=_Loader)
    assert (
        config["include"] == "_t_yaml"
        and config["task_alias"] == "T 1"
        and config["generation_kwargs"]["max_new_tokens"] == 8
    )
    taskgen.write({"t1.yaml": text}, tmp_path / "out")
    assert (tmp_path / "out" / "t1.yaml").read_text(encoding="utf-8") == text


def test_rotated_and_image_free_tasks_have_their_own_alias():
    """Issue 29.4: a `_circular` or `_noimage` task's alias is not its base task's (the printed table and the report
    show aliases: a circular task run alone read as its base task)."""
    from pathlib import Path

    aliases = {}
    for path in sorted((Path(__file__).resolve().parents[2] / "yaml_tasks").glob("*/*.yaml")):
        config = yaml.load(path.read_text(encoding="utf-8"), Loader=_Loader) or {}
        name = config.get("task") or config.get("group")
        if isinstance(name, str):
            aliases[name] = config.get("task_alias") or config.get("group_alias")
    pairs = [
        (name, base)
        for name in aliases
        for variant in ("_circular", "_noimage")
        if variant in name and (base := name.replace(variant, "")) in aliases
    ]
    assert len(pairs) > 50 and "worldcuisines_mcq_circular_1a_nocontext" in dict(pairs)
    assert [(name, aliases[name]) for name, base in pairs if aliases[name] == aliases[base]] == []
    assert aliases["worldcuisines_mcq_circular_1a_nocontext"] == "1a. Dish Name (No-Context), circular"
    assert aliases["foodieqa_sivqa_zh_dishname_noimage_p0"] == "p0, no image"


# --------------------------------------------------------------------------- declared variants (issue 34.2)


def test_circular_task_is_derived_from_its_base_task_file():
    """The rotated task is its base task's file under its own name, with the base hook module's rotated hooks, the
    table's metric list and ``metadata: rotation_of``; the base file's metric list gives way."""
    base = taskgen.task(
        include="_t_yaml",
        name="bench_t",
        alias="T",
        docs="food_tasks.utils.bench.docs_t",
        extra=["doc_to_visual: !function food_tasks.utils.bench.visual_sample", *taskgen.metric_list(TABLE)],
    )
    made = taskgen.circular_task(base, "bench_t_circular", alias="T, circular", table=TABLE, metadata=["mode: x"])
    assert made == taskgen.text(
        [
            "include: _t_yaml",
            "task: bench_t_circular",
            'task_alias: "T, circular"',
            "process_docs: !function food_tasks.utils.bench.docs_t_circular",
            "doc_to_visual: !function food_tasks.utils.bench.visual_sample",
            "process_results: !function food_tasks.utils.bench.process_results_circular",
            *taskgen.metric_list(TABLE),
            "metadata:",
            "  version: 1.2",
            "  mode: x",
            "  rotation_of: bench_t",
        ]
    )
    assert yaml.load(made, Loader=_Loader)["metadata"]["rotation_of"] == "bench_t"
    with_metadata = base + "metadata:\n  version: 1.0\n"
    for bad in (with_metadata, base.replace("process_docs", "other"), base + base):
        with pytest.raises(ValueError, match="circular_task"):
            taskgen.circular_task(bad, "x_circular", alias="X", table=TABLE)


def test_every_rotated_task_declares_its_base_task_and_reads_its_documents():
    """Each shipped task with ``metadata: rotation_of`` rotates that task's documents through the base hook
    module's CIRCULAR (one generic hook), and scores with its process_results and table; a task is rotated
    exactly when it declares so (the name is never read)."""
    import importlib

    from food_tasks.hooks.rotation import Circular
    from food_tasks.tasks import catalogue

    index = catalogue.index()
    rotated = {}
    for name, path in index.items():
        metadata = catalogue.yaml_key(path, "metadata") or {}
        if taskgen.ROTATION_OF in metadata:
            rotated[name] = metadata[taskgen.ROTATION_OF]
    assert len(rotated) == 8 + 3 + 18
    for name, base in rotated.items():
        path, base_path = index[name], index[base]
        docs, base_docs = catalogue.yaml_key(path, "process_docs"), catalogue.yaml_key(base_path, "process_docs")
        module_name = base_docs.removeprefix("!function ").rpartition(".")[0]
        hooks = importlib.import_module(module_name)
        assert isinstance(hooks.CIRCULAR, Circular), name
        rotated_docs = catalogue.function(docs)
        assert rotated_docs.args == (hooks.CIRCULAR.expand, catalogue.function(base_docs)), name
        assert catalogue.function(catalogue.yaml_key(path, "process_results")) is hooks.CIRCULAR.process_results
        metrics = [m["metric"] for m in catalogue.yaml_key(path, "metric_list")]
        assert metrics == list(hooks.CIRCULAR.table), name
        assert catalogue.yaml_key(path, "task_alias") != catalogue.yaml_key(base_path, "task_alias"), name
