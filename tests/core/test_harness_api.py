"""Every lmms-eval name food-tasks relies on, in one place (food_tasks.lmms.harness.HARNESS_API).

An lmms-eval upgrade that renames or removes one fails here first, with the name. Our code uses public names
only: no private attribute (``._x``), no stack walking; every lmms-eval import is listed.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from food_tasks.lmms import harness

REPO = Path(__file__).resolve().parents[2]
OUR_CODE = [*sorted((REPO / "food_tasks").rglob("*.py")), *sorted((REPO / "utils").glob("*.py"))]


@pytest.mark.parametrize(("module", "path", "why"), harness.HARNESS_API)
def test_every_name_we_rely_on_exists(module, path, why):
    assert harness.resolve(module, path) is not None, why


def _lmms_eval_names(path: Path) -> set[tuple[str, str]]:
    """(module, name) of every ``from lmms_eval.x import name`` and ``lmms_eval.x.name`` use in a file."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    found = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("lmms_eval"):
            found |= {(node.module, alias.name) for alias in node.names}
        elif isinstance(node, ast.Attribute):
            parts, inner = [], node
            while isinstance(inner, ast.Attribute):
                parts.append(inner.attr)
                inner = inner.value
            if isinstance(inner, ast.Name) and inner.id == "lmms_eval" and len(parts) >= 2:
                parts.reverse()
                found.add(("lmms_eval." + ".".join(parts[:-1]), parts[-1]))
    return found


def test_our_code_uses_only_listed_public_lmms_eval_names():
    listed = {(module, path.split(".")[0]) for module, path, _ in harness.HARNESS_API}
    for path in OUR_CODE:
        for module, name in _lmms_eval_names(path):
            where = f"{path.relative_to(REPO)}: {module}.{name}"
            assert not name.startswith("_") and not any(p.startswith("_") for p in module.split(".")), (
                f"private name: {where}"
            )
            assert (module, name) in listed or module == "lmms_eval.models" and name == "registry_v2", (
                f"{where} is not in food_tasks.lmms.harness.HARNESS_API: add it there (with why we need it)"
            )
        text = path.read_text(encoding="utf-8")
        assert "_getframe" not in text and "f_locals" not in text, f"{path.relative_to(REPO)} walks the call stack"


# test_opt_out_installs_no_wrap: tests/core/test_registration.py (one fresh interpreter per setting).


def test_task_type_is_chat_outside_a_load():
    # Inside TaskManager.load_task_or_group it is the call's task_type: tests/core/test_regional.py
    # (test_task_class_follows_the_model_kind) loads the example regional task both ways.
    assert harness.TASK_TYPE.get() == "chat"
