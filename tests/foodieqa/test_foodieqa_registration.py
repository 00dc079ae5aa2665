"""FoodieQA tasks and groups are indexed by lmms-eval with no flag, and every hook the YAML names resolves."""

from __future__ import annotations

import importlib
from pathlib import Path

import pytest
import yaml

YAML_DIR = Path(__file__).resolve().parents[2] / "yaml_tasks" / "foodieqa"
GROUPS = {
    "foodieqa",
    "foodieqa_mivqa_zh",
    "foodieqa_mivqa_en",
    "foodieqa_sivqa_zh",
    "foodieqa_sivqa_en",
    "foodieqa_textqa_zh",
    "foodieqa_sivqa_zh_dishname",
    "foodieqa_sivqa_zh_dishname_noimage",
    "foodieqa_sample",
    "foodieqa_noimage",
    "foodieqa_mivqa_zh_noimage",
    "foodieqa_mivqa_en_noimage",
    "foodieqa_sivqa_zh_noimage",
    "foodieqa_sivqa_en_noimage",
    "foodieqa_sample_noimage",
}
CIRCULAR_GROUPS = {
    "foodieqa_circular",
    "foodieqa_sample_circular",
    "foodieqa_mivqa_zh_circular",
    "foodieqa_mivqa_en_circular",
    "foodieqa_sivqa_zh_circular",
    "foodieqa_sivqa_en_circular",
}


@pytest.mark.slow  # indexes lmms-eval's 3,700 YAMLs unless the session already did
def test_task_manager_indexes_every_foodieqa_task_and_group():
    import lmms_eval.models  # noqa: F401
    from lmms_eval.tasks import TaskManager

    ours = {n for n in TaskManager("ERROR").all_tasks if n.startswith("foodieqa")}
    tasks = {
        f"foodieqa_{s}_p{k}"
        for s in (
            "mivqa_zh",
            "mivqa_en",
            "sivqa_zh",
            "sivqa_en",
            "textqa_zh",
            "sivqa_zh_dishname",
            "sivqa_zh_dishname_noimage",
            "mivqa_zh_noimage",
            "mivqa_en_noimage",
            "sivqa_zh_noimage",
            "sivqa_en_noimage",
        )
        for k in range(4)
    }
    samples = {
        "foodieqa_mivqa_zh_sample_p1",
        "foodieqa_sivqa_en_sample_p3",
        "foodieqa_textqa_zh_sample_p2",
        "foodieqa_mivqa_zh_sample_noimage_p1",
        "foodieqa_sivqa_en_sample_noimage_p3",
    }
    circular = {
        f"foodieqa_{s}_circular_p{k}" for s in ("mivqa_zh", "mivqa_en", "sivqa_zh", "sivqa_en") for k in range(4)
    }
    circular |= {"foodieqa_mivqa_zh_sample_circular_p1", "foodieqa_sivqa_en_sample_circular_p3"}
    assert ours == tasks | samples | GROUPS | circular | CIRCULAR_GROUPS  # 44 + 5 + 15 + 18 + 6


def test_every_foodieqa_hook_resolves():
    class _Loader(getattr(yaml, "CSafeLoader", yaml.SafeLoader)):  # libyaml: ten times faster on our 276 YAMLs
        pass

    refs: list[str] = []
    _Loader.add_constructor("!function", lambda loader, node: refs.append(loader.construct_scalar(node)))
    for path in YAML_DIR.iterdir():
        if path.suffix == ".yaml" or path.name.endswith("_yaml"):
            yaml.load(path.read_text(), Loader=_Loader)
    assert len(refs) > 300
    for ref in set(refs):
        module, name = ref.rsplit(".", 1)
        assert callable(getattr(importlib.import_module(module), name)), ref
