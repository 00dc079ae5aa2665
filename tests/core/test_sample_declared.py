"""The packaged sample is a declared variant (issue 42, item 4): each generated sample task (and WorldCuisines' sample
groups) declares ``sample_of: <the full-data task it samples>``, the report specs name full-data tasks only, and the
report's "packaged sample" section shows the run's task that declares itself a sample of the full-data task a column
names, never a task found by its name. An older results file (written before the declaration) is read through the
declaration the shipped YAML of the same name carries."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from results_files import write_results

from food_tasks.report import build_report
from food_tasks.report.cells import Placed
from food_tasks.report.spec import Variant
from food_tasks.report.variants import declared_base, measured_by
from food_tasks.runs import load_runs
from food_tasks.tasks import catalogue, registry, taskgen


def _declare(path: Path, task: str, metadata: dict) -> None:
    """Give ``task`` of a results file its config's metadata (as lmms-eval copies the YAML's)."""
    data = json.loads(path.read_text())
    data["configs"][task]["metadata"] = metadata
    path.write_text(json.dumps(data))


def _section(markdown: str, heading: str) -> str:
    """The text under a ``## `` heading, up to the next one ('' when absent)."""
    start = markdown.find(f"## {heading}\n")
    if start < 0:
        return ""
    end = markdown.find("\n## ", start + 1)
    return markdown[start : end if end >= 0 else len(markdown)]


# ------------------------------------------------------------------------------------------- the declarations


def test_every_shipped_sample_declares_the_full_data_task_it_samples():
    wanted = {
        "diningbench_cls_sample": "diningbench_cls_en_v2",  # English, two views (docs_sample_cls)
        "diningbench_nutrition_sample": "diningbench_nutrition_zh_v2",  # Chinese, two views
        "diningbench_vqa_sample": "diningbench_vqa_en",
        "fambench_task1_sample": "fambench_task1",
        "fambench_task2_ctc_sample": "fambench_task2_ctc",
        "food500cap_caption_sample": "food500cap_caption",
        "foodieqa_sivqa_en_sample_p3": "foodieqa_sivqa_en_p3",
        "worldcuisines_oeq_sample_2_location": "worldcuisines_oeq_2_location",
        "worldcuisines_mcq_sample": "worldcuisines_mcq",  # a group: its YAML carries it (no results config)
    }
    for task, base in wanted.items():
        assert registry.variant(task) == ("sample", base), task
        assert base in catalogue.index(), base  # a task we ship
    # The variants derived from a sample declare their own base (the sample), not the full-data task.
    assert registry.variant("diningbench_cls_sample_noimage") == ("noimage", "diningbench_cls_sample")
    assert registry.variant("diningbench_cls_sample_circular") == ("circular", "diningbench_cls_sample")
    # The sample keeps its template's metadata (the version lmms-eval reports) beside the declaration.
    assert catalogue.yaml_key(catalogue.index()["fambench_task1_sample"], "metadata") == {
        "version": catalogue.yaml_key(catalogue.index()["fambench_task1"], "metadata")["version"],
        "sample_of": "fambench_task1",
    }


def test_a_sample_is_still_in_its_benchmark_sample_and_counts_its_own_documents():
    wc, db, fc = (registry.record(n) for n in ("worldcuisines", "diningbench", "food500cap"))
    assert registry.in_sample("worldcuisines_mcq_sample_1b_contextualized", wc.sample_tasks)
    assert not registry.in_sample("worldcuisines_mcq_1b_contextualized", wc.sample_tasks)  # the task it samples
    assert wc.documents("worldcuisines_mcq_sample_1b_contextualized") == 9  # not test_large's 15,000
    assert db.documents("diningbench_nutrition_sample") == 2 and fc.documents("food500cap_caption_sample") == 5
    assert fc.documents("food500cap_caption") == 4940


def test_the_variant_kinds_are_read_from_metadata():
    assert registry.variant_in({"version": 2, "sample_of": "x_full"}) == ("sample", "x_full")
    assert registry.variant_in({"sample_of": ""}) is None  # an empty declaration declares nothing
    # a config that declares a sample is that sample, whatever its name
    assert registry.declared_variant("x_circular_y", {"metadata": {"sample_of": "z"}}) == ("sample", "z")


# ------------------------------------------------------------------------------------------------ the generator


def test_the_generator_writes_the_declaration_after_the_inherited_metadata():
    files = {
        "_kind_yaml": taskgen.text(["output_type: generate_until", "metadata:", "  version: 3.5", "  judged: true"]),
        "tiny.yaml": taskgen.text(["include: _kind_yaml", "task: tiny", "process_docs: !function m.docs"]),
        "tiny_sample.yaml": taskgen.text(["include: _kind_yaml", "task: tiny_sample", "process_docs: !function m.s"]),
        "_grp_sample.yaml": taskgen.group("grp_sample", "Tiny (sample)", ["tiny_sample"]),
    }
    out = taskgen.sampled(files, {"tiny_sample": "tiny", "grp_sample": "grp"})
    assert sorted(out) == ["_grp_sample.yaml", "tiny_sample.yaml"]  # only the samples' files change
    assert taskgen.text_lines(out["tiny_sample.yaml"])[-4:] == [
        "metadata:",
        "  version: 3.5",
        "  judged: true",
        "  sample_of: tiny",
    ]
    assert taskgen.text_lines(out["_grp_sample.yaml"])[-3:] == ["metadata:", "  version: 1.0", "  sample_of: grp"]
    with pytest.raises(ValueError, match="no generated file names"):
        taskgen.sampled(files, {"nowhere": "tiny"})
    with pytest.raises(ValueError, match="must include a generated template"):
        taskgen.sampled({"a.yaml": taskgen.text(["include: _elsewhere_yaml", "task: a"])}, {"a": "b"})


# ------------------------------------------------------------------------------------------------ the report


def test_a_task_declaring_sample_of_fills_the_sample_column_whatever_its_name(tmp_path):
    # "fambench_t1_demo" is no name we ship: only its declaration places it (under FAM-Bench, which claims the prefix)
    full = write_results(tmp_path / "full" / "results.json", "pretrained=m", {"fambench_task1": {"decision_acc": 61.0}})
    mine = write_results(
        tmp_path / "mine" / "results.json", "pretrained=m2", {"fambench_t1_demo": {"decision_acc": 37.5}}
    )
    _declare(mine, "fambench_t1_demo", {"version": 1.2, "sample_of": "fambench_task1"})
    runs = load_runs([full.parent, mine.parent])
    sample = Placed(Variant("packaged sample", kind="sample"))
    assert [sample.task(r, "fambench_task1") for r in runs] == [None, "fambench_t1_demo"]  # the full run: not a sample
    assert [Placed(Variant("full data")).task(r, "fambench_task1") for r in runs] == ["fambench_task1", None]
    markdown = build_report([full.parent, mine.parent], tmp_path / "out", charts=False)["markdown"].read_text()
    in_sample = _section(markdown, "FAM-Bench — packaged sample")
    assert "37.50" in in_sample and "61.00" not in in_sample
    assert "61.00" in _section(markdown, "FAM-Bench — full data") and "37.50" not in _section(
        markdown, "FAM-Bench — full data"
    )


def test_an_older_results_file_is_read_through_the_shipped_declaration_never_a_name(tmp_path):
    # Written before the samples declared sample_of: its config's metadata holds the version only.
    old = write_results(
        tmp_path / "old" / "results.json",
        "pretrained=m",
        {"food500cap_caption_sample": {"cider": 12.25}, "food500cap_caption_mysample": {"cider": 99.5}},
    )
    (run,) = load_runs([old.parent])
    sample = Placed(Variant("packaged sample", fill=(("split", ""),), kind="sample"))
    assert sample.task(run, "food500cap_caption") == "food500cap_caption_sample"  # its shipped YAML declares it
    markdown = build_report([old.parent], tmp_path / "out", charts=False)["markdown"].read_text()
    section = _section(markdown, "Food-500 Cap — packaged sample")
    # "_mysample" holds the word, and declares nothing: never placed by its name
    assert "12.25" in section and "99.50" not in markdown


def test_a_sample_group_without_a_config_is_found_by_its_shipped_declaration(tmp_path):
    path = write_results(
        tmp_path / "a" / "results.json",
        "pretrained=m",
        {"worldcuisines_mcq_sample_1a_nocontext": {"acc": 50.0}},
        groups={"worldcuisines_mcq_sample": {"acc": 40.0}},
    )
    _declare(path, "worldcuisines_mcq_sample_1a_nocontext", {"sample_of": "worldcuisines_mcq_1a_nocontext"})
    (run,) = load_runs([path.parent])
    sample = Placed(Variant("packaged sample", fill=(("split", ""),), kind="sample", tag="sample"))
    assert sample.task(run, sample.name("worldcuisines_mcq{split}")) == "worldcuisines_mcq_sample"
    assert sample.task(run, "worldcuisines_mcq_1a_nocontext") == "worldcuisines_mcq_sample_1a_nocontext"
    assert sample.suffix == "_sample" and Placed(Variant("test_large")).suffix == ""  # chart file names only


def test_the_published_beyond_sentence_follows_declarations_not_a_name_prefix(tmp_path):
    same = measured_by(["worldcuisines_mcq_smallref", "worldcuisines_mcq"])
    assert {"worldcuisines_mcq_2_location", "worldcuisines_mcq_smallref_1a_nocontext"} <= same
    assert "worldcuisines_oeq_2_location" not in same
    path = write_results(
        tmp_path / "a" / "results.json",
        "pretrained=m",
        {"worldcuisines_mcq_sample_noimage_2_location": {"acc": 10.0}, "worldcuisines_mcq_custom": {"acc": 5.0}},
    )
    _declare(path, "worldcuisines_mcq_sample_noimage_2_location", {"image_twin": "worldcuisines_mcq_sample_2_location"})
    (run,) = load_runs([path.parent])
    # twin -> sample (its shipped declaration: this file does not hold the sample) -> the test_large task
    assert declared_base(run, "worldcuisines_mcq_sample_noimage_2_location") == "worldcuisines_mcq_2_location"
    assert declared_base(run, "worldcuisines_mcq_custom") == "worldcuisines_mcq_custom"  # declares nothing

    markdown = build_report([path.parent], tmp_path / "twin", charts=False)["markdown"].read_text()
    assert "are on other documents than these runs: a run of `worldcuisines_mcq_smallref`" in markdown

    alone = write_results(tmp_path / "b" / "results.json", "pretrained=m", {"worldcuisines_mcq_custom": {"acc": 5.0}})
    markdown = build_report([alone.parent], tmp_path / "out", charts=False)["markdown"].read_text()
    # a task named like the family but declaring nothing is no run of those measures (the old prefix rule said so)
    assert "are on other documents than these runs" not in markdown


def test_rescore_never_suggests_the_packaged_sample_to_a_full_data_run():
    from types import SimpleNamespace

    from food_tasks.runs.rescore import more_runs

    lines = more_runs(SimpleNamespace(tasks=["fambench_task1"], data={}), ["fambench_task1"])
    assert lines == ["  image gain: run fambench_task1_textonly"]


def test_a_runs_facts_hold_every_declaration_the_report_places_by():
    """The facts a run is loaded with answer the report's placement alone: a task's config declaration, else (an
    older results file) the declaration of the task we ship under that name, and a group's from its shipped YAML
    (lmms-eval writes no group config); a name we do not ship that declares nothing is a base task."""
    from food_tasks.lmms.facts import facts_of_results

    data = {
        "results": {
            "fambench_task1_sample": {"decision_acc,none": 50.0},
            "regional_mine": {"acc,none": 1.0},
            "worldcuisines_mcq_sample": {"acc,none": 2.0},
        },
        "configs": {"fambench_task1_sample": {"metadata": {"version": 1.2}}, "regional_mine": {"metadata": {}}},
        "group_subtasks": {"worldcuisines_mcq_sample": []},
    }
    facts = facts_of_results(data)
    assert facts["fambench_task1_sample"].variant == ("sample", "fambench_task1")  # older file: the shipped YAML
    assert facts["worldcuisines_mcq_sample"].variant == ("sample", "worldcuisines_mcq")  # a group: its shipped YAML
    assert facts["regional_mine"].variant is None
    data["configs"]["fambench_task1_sample"]["metadata"]["sample_of"] = "fambench_task1_other"  # declared: it wins
    assert facts_of_results(data)["fambench_task1_sample"].variant == ("sample", "fambench_task1_other")
