"""The shared YAML generator library (food_tasks.taskgen)."""

from __future__ import annotations

import pytest
import yaml

from food_tasks import taskgen
from food_tasks.hooks import Metric, MetricTable

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
        {"metric": "acc", "aggregation": "!function food_tasks.hooks.aggregate", "higher_is_better": True},
        {"metric": "invalid_rate", "aggregation": "!function food_tasks.hooks.aggregate", "higher_is_better": False},
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
        "!function food_tasks.metrics.group_max",
        "!function food_tasks.metrics.group_mean_official",
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
