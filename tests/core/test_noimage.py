"""Image-free twins (issue 28, item 3; :mod:`food_tasks.tasks.noimage`): every ``_noimage`` task is its twin with no
image, and every pair can be found from the YAML (and the results JSON) as well as from the names.

Checked for every benchmark's YAML files: the link (``metadata.image_twin``, the naming rule, the twin exists), the
configuration (everything but the name, alias, the ``noimage`` switch and the link is the twin's: same
``process_docs``, hooks, parser, metrics, generation), and, on the packaged samples, the documents (equal keys),
the prompt (the twin's text less its image placeholders) and that no image is sent. One end-to-end run of a
packaged pair with the replay model.
"""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path

import pytest
from conftest import run_lmms_eval

from food_tasks.registration import task_dir
from food_tasks.tasks import noimage, registry
from food_tasks.tasks.catalogue import names as yaml_names

NAMES = {name: kind for name, kind, _ in yaml_names()}
TWINNED = sorted(n for n in NAMES if noimage.image_twin(n))
# FoodieQA's paper ablation (dish name, no image) builds its own documents without the image: linked, not switched.
ABLATION = {f"foodieqa_sivqa_zh_dishname_noimage_p{k}" for k in range(4)}
NOIMAGE_TASKS = sorted(n for n in TWINNED if noimage.is_noimage(n) and NAMES[n] == "task" and n not in ABLATION)
SAMPLE_PAIRS = [n for n in NOIMAGE_TASKS if "_sample_" in f"{n}_"]
# Placeholders a simple model's text carries where an image goes (FoodieQA's multi-image prompts); the twin
# without images drops them and nothing else.
PLACEHOLDER = "<image>"


@cache
def _files() -> dict[str, Path]:
    import yaml

    class _Loader(getattr(yaml, "CSafeLoader", yaml.SafeLoader)):  # libyaml: ten times faster on our 276 YAMLs
        pass

    _Loader.add_constructor("!function", lambda loader, node: None)
    found = {}
    for path in sorted(task_dir().rglob("*.yaml")):
        raw = yaml.load(path.read_text(), Loader=_Loader) or {}
        name = raw.get("task") if isinstance(raw.get("task"), str) else raw.get("group")
        if name:
            found[name] = path
    return found


@cache
def config(name: str) -> dict:
    """The task's configuration as lmms-eval builds it (includes merged, hooks imported)."""
    from lmms_eval.utils import load_yaml_config

    return load_yaml_config(yaml_path=str(_files()[name]), mode="full")


def kwargs(name: str) -> dict:
    return dict(config(name).get("lmms_eval_specific_kwargs", {}).get("default", {}))


def test_the_naming_rule():
    assert noimage.image_twin("worldcuisines_mcq_noimage_1a_nocontext") == "worldcuisines_mcq_1a_nocontext"
    assert noimage.image_twin("foodieqa_sivqa_zh_dishname_noimage_p0") == "foodieqa_sivqa_zh_dishname_p0"
    assert noimage.image_twin("diningbench_cls_sample_noimage") == "diningbench_cls_sample"
    assert noimage.image_twin("fambench_task2_decision_textonly_cot") == "fambench_task2_decision_cot"
    assert not noimage.is_noimage("fambench_task1_textonly")
    for name in ("worldcuisines_mcq", "fambench_task1_imageonly", "x_noimagery", "x_imagenoimage"):
        assert noimage.image_twin(name) is None, name
    assert (
        noimage.images_wanted(None)
        and noimage.images_wanted({"prompt": "p"})
        and not noimage.images_wanted({"noimage": True})
    )


def test_the_issue_names_its_twins_and_they_exist():
    for name in (
        "worldcuisines_mcq_noimage",
        "worldcuisines_oeq_noimage",
        "foodieqa_noimage",
        "diningbench_noimage",
        "food500cap_noimage",
        "worldcuisines_mcq_sample_noimage",
        "foodieqa_sample_noimage",
        "diningbench_cls_sample_noimage",
        "food500cap_caption_sample_noimage",
        "fambench_task1_textonly",
    ):
        assert name in NAMES, name
    # Counted from what the YAML declares, not by hand (issue 34.4: a new benchmark's twins need no edit here): every
    # task that switches its images off declares its image twin, the one the naming rule finds.
    from food_tasks.tasks import catalogue, registry

    switched = sorted(
        name
        for name, path in catalogue.index().items()
        if NAMES.get(name) == "task"
        and ((catalogue.yaml_key(path, "lmms_eval_specific_kwargs") or {}).get("default") or {}).get(noimage.KWARG)
    )
    assert switched == NOIMAGE_TASKS and len(NOIMAGE_TASKS) >= 4
    assert all(registry.variant(name) == ("noimage", noimage.image_twin(name)) for name in NOIMAGE_TASKS)
    assert SAMPLE_PAIRS and set(SAMPLE_PAIRS) < set(NOIMAGE_TASKS)


@pytest.mark.parametrize("name", TWINNED)
def test_each_twin_names_its_image_twin_in_its_metadata(name):
    twin, declared = noimage.image_twin(name), config(name).get("metadata", {}).get(noimage.METADATA_KEY)
    if NAMES[name] == "group":
        # Linked when the members pair one to one; not when the images' group holds more (foodieqa: text QA) or none
        # exists.
        members = [noimage.image_twin(m) for m in config(name)["task"]]
        assert declared == (twin if twin in NAMES and config(twin)["task"] == members else None)
        return
    assert NAMES.get(twin) == "task" and declared == twin


@pytest.mark.parametrize("name", NOIMAGE_TASKS)
def test_a_noimage_task_is_its_twin_but_for_the_images(name):
    twin = noimage.image_twin(name)
    mine, theirs = dict(config(name)), dict(config(twin))
    assert kwargs(name) == {**kwargs(twin), noimage.KWARG: True}
    # the twin declares its image twin in place of the variant that task declares of another (a sample's sample_of)
    declared = {k: v for k, v in theirs.pop("metadata").items() if k not in registry.VARIANT_KEYS}
    assert mine.pop("metadata") == {**declared, noimage.METADATA_KEY: twin}
    for key in ("task", "task_alias", "lmms_eval_specific_kwargs"):
        mine.pop(key, None), theirs.pop(key, None)
    assert mine == theirs  # process_docs (so the documents), hooks, parser, metric list, generation


@pytest.mark.parametrize("name", SAMPLE_PAIRS)
def test_sample_documents_prompts_and_no_image_sent(name):
    twin = noimage.image_twin(name)
    cfg, on, off = config(twin), kwargs(twin), kwargs(name)
    docs = list(cfg["process_docs"](None))
    assert docs == list(config(name)["process_docs"](None)) and docs  # equal documents, so equal keys
    shown = 0
    for doc in docs:
        assert cfg["doc_to_visual"](doc, off) == []
        assert cfg["doc_to_text"](doc, off) == cfg["doc_to_text"](doc, on).replace(PLACEHOLDER, "")
        with_images, without = cfg["doc_to_messages"](doc, on), cfg["doc_to_messages"](doc, off)
        assert [m["role"] for m in without] == [m["role"] for m in with_images]
        for a, b in zip(with_images, without):
            assert all(part["type"] == "text" for part in b["content"])
            assert [p for p in a["content"] if p["type"] == "text"] == b["content"]
        shown += len(cfg["doc_to_visual"](doc, on))
    assert shown >= len(docs)  # the twin does send its images


def test_fambench_text_only_mode_pairs_with_its_full_task_by_document():
    from food_tasks.benchmarks.fambench import data as fb_data
    from food_tasks.sample_data import SAMPLE_ROOT

    full, text = (fb_data.task1_docs("baseline", i, root=SAMPLE_ROOT) for i in ("textimage", "textonly"))
    assert [d["index"] for d in full] == [d["index"] for d in text] and all(not d["image_urls"] for d in text)


@pytest.mark.e2e
def test_a_packaged_pair_runs_with_no_flag_and_scores_alike(tmp_path):
    # The same answers for both: the same parser and metrics give the same numbers on the same documents.
    pair = ["diningbench_cls_sample", "diningbench_cls_sample_noimage"]
    responses = tmp_path / "responses.jsonl"
    responses.write_text("\n".join(json.dumps({"doc_id": i, "response": r}) for i, r in enumerate(["A", "B"])) + "\n")
    args = [
        "--model",
        "food_tasks_replay",
        "--model_args",
        f"responses={responses},load_images=true",
        "--tasks",
        ",".join(pair),
    ]
    proc, results, samples = run_lmms_eval(args, tmp_path / "out")
    assert results is not None, proc.stderr[-3000:]
    twin, mine = (results["results"][t] for t in pair)
    # the same answers with and without the image: the same scores, and an image gain of 0 in the task's row
    gain = ("image_gain", "answerable_without_image")
    assert {k: v for k, v in mine.items() if k != "alias"} == {
        k: v for k, v in twin.items() if k != "alias" and not k.startswith(gain)
    }
    assert twin["image_gain,none"] == 0.0 and "image_gain,none" not in mine
    assert results["configs"][pair[1]]["metadata"][noimage.METADATA_KEY] == pair[0]
    assert results["configs"][pair[1]]["lmms_eval_specific_kwargs"]["default"][noimage.KWARG] is True
    # The document identities `food-tasks compare` pairs runs on (each record's table key) are the twin's.
    from food_tasks.utils.diningbench import TABLES

    keys = [sorted(TABLES["cls"].key(s["acc"]) for s in samples[t]) for t in pair]
    assert keys[0] == keys[1] and len(set(keys[0])) == 2


# --------------------------------------------------------------------------- pairs found by declaration (issue 34.2)


def _results_file(tmp_path: Path, configs: dict) -> Path:
    path = tmp_path / "results.json"
    results = {task: {"alias": task, "acc,none": 50.0} for task in configs}
    path.write_text(json.dumps({"results": results, "configs": configs}), encoding="utf-8")
    return path


def test_a_read_back_run_pairs_twins_by_their_declaration_not_their_names(tmp_path):
    from food_tasks.runs.measures import twin_pairs
    from food_tasks.runs.run import load_run

    configs = {
        "dish": {"metadata": {"version": 1}},
        "dish_without_pictures": {"metadata": {"version": 1, "image_twin": "dish"}},  # declared: paired
        "soup": {"metadata": {"version": 1}},
        "soup_noimage": {"metadata": {"version": 1}},  # named like a twin, declares none: not paired
        "soup_circular": {"metadata": {"version": 1, "rotation_of": "soup"}},
    }
    run = load_run(_results_file(tmp_path, configs))
    assert twin_pairs(run, run) == [("dish", "dish_without_pictures")]
    assert run.variant("dish_without_pictures") == ("noimage", "dish")
    assert run.variant("soup_noimage") is None and run.variant("dish") is None
    assert run.variant("soup_circular") == ("circular", "soup")


def test_a_results_file_from_before_rotation_was_declared_falls_back_to_the_shipped_declaration(tmp_path):
    # Written before `rotation_of` existed: a task we ship is read through the declaration its YAML carries today;
    # a task we do not ship that declares nothing is a base task whatever its name (the old name rule read
    # `mcq_circular_1a` as a rotation of `mcq_1a`: an independent check's case, issue 42).
    configs = {
        "diningbench_cls_en_circular": {"metadata": {"version": 0.1}},
        "mcq_circular_1a": {"metadata": {"version": 0.1}},
        "mcq_1a": {"metadata": {"version": 0.1}},
    }
    from food_tasks.runs.run import load_run

    run = load_run(_results_file(tmp_path, configs))
    assert run.variant("diningbench_cls_en_circular") == ("circular", "diningbench_cls_en")
    assert run.variant("mcq_circular_1a") is None and run.variant("mcq_1a") is None


def _in_run(tasks: dict[str, dict | None]) -> dict:
    """What a run writes into each task's row for the packaged DiningBench sample scored under several names
    (name -> its config's metadata): lmms-eval's aggregation through our hooks, then errorbars.finish."""
    from sample_records import scored

    from food_tasks.hooks import convention as hooks
    from food_tasks.lmms import errorbars

    table, records = scored("diningbench_cls_sample")
    per_doc = [table.payloads(r) for r in records]
    results = {}
    for task, metadata in tasks.items():
        sample_metrics = {(name, "none"): [p[name] for p in per_doc] for name in table}
        row = {f"{name},none": hooks.aggregate(items) for (name, _), items in sample_metrics.items()}
        errorbars.task_statistics(task, sample_metrics, row, 50, metadata=metadata)
        results[task] = row
    errorbars.finish(results, {}, None, 50)
    return results


def test_a_run_pairs_twins_by_the_task_configs_declaration_not_their_names():
    declared = _in_run({"cls": {"version": 1}, "cls_without_pictures": {"version": 1, "image_twin": "cls"}})
    # the same answers with and without the image: a gain of 0, in the row of the task with the image only
    assert declared["cls"]["image_gain,none"] == 0.0 and "answerable_without_image,none" in declared["cls"]
    assert not any(k.startswith("image_gain") for k in declared["cls_without_pictures"])
    named = _in_run({"cls": {"version": 1}, "cls_noimage": {"version": 1}})  # named like a twin, declares none
    assert not any(k.startswith("image_gain") for k in named["cls"])
