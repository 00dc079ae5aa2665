"""No variant is read from, or written into, a task's name outside the task generator (issue 42): a variant (image-free
twin, rotation, packaged sample) is declared, and read from its declaration (:func:`food_tasks.tasks.registry.
variant_in`, a run's facts). Older results files that declare none are read through the one documented mapping: the
declaration the task we ship under the same name carries (:func:`food_tasks.tasks.registry.declared_variant`); a
task we do not ship that declares nothing is a base task, whatever its name.

Scanned: every string of the package (f-string parts included, docstrings not) that is a variant suffix alone
(``"_sample"``) or a ``{v}`` name template, outside ``food_tasks/tasks/taskgen.py``. The report specs name full-data
tasks only: a packaged-sample task declares ``sample_of: <full-data task>`` (written by the generators,
:func:`food_tasks.tasks.taskgen.sampled`) and the report's sample section finds it by that declaration
(:class:`food_tasks.report.cells.Placed`).
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
GENERATOR = "food_tasks/tasks/taskgen.py"
SUFFIX = re.compile(r"^_(circular|noimage|textonly|sample)$")
LEGACY: dict[str, int] = {}  # no variant suffix spelled anywhere: older results files read through the shipped YAML


def spelled() -> dict[str, list[tuple[int, str]]]:
    """Per file, the ``(line, string)`` of each variant suffix or ``{v}`` template the package spells."""
    found: dict[str, list[tuple[int, str]]] = {}
    for path in sorted((REPO / "food_tasks").rglob("*.py")):
        name = path.relative_to(REPO).as_posix()
        if name == GENERATOR:
            continue
        tree = ast.parse(path.read_text(encoding="utf-8"))
        owners = (ast.Module, ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)
        docs = {
            id(n.body[0].value)
            for n in ast.walk(tree)
            if isinstance(n, owners) and n.body and isinstance(n.body[0], ast.Expr)
        }
        for node in ast.walk(tree):
            if isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in docs:
                if SUFFIX.match(node.value) or "{v}" in node.value:
                    found.setdefault(name, []).append((node.lineno, node.value))
    return found


def test_no_variant_suffix_is_spelled_outside_the_generator():
    found = spelled()
    counts = {name: len(lines) for name, lines in found.items()}
    new = {name: found[name] for name in counts if name not in LEGACY}
    assert new == {}, "declare the variant (taskgen) and read the declaration; never spell its suffix"
    assert {n: c for n, c in counts.items() if n in LEGACY} == LEGACY


def test_the_one_mapping_of_older_files_is_the_shipped_declaration_never_a_name():
    """An older results file's task that declares nothing takes the declaration of the task we ship under that name
    (a rotation written before rotation_of, a sample before sample_of); any other task that declares nothing is a base
    task, however its name reads (the independent check's case: ``diningbench_cls_x_circular`` was read as a
    rotation of ``diningbench_cls_x``)."""
    from food_tasks.tasks import registry

    assert not hasattr(registry, "LEGACY_VARIANTS") and not hasattr(registry, "legacy_variant")
    assert "older results file" in (registry.declared_variant.__doc__ or "") or "results file written before" in (
        registry.declared_variant.__doc__ or ""
    )
    assert registry.declared_variant("diningbench_cls_x_circular", {"metadata": {"version": 1}}) is None
    assert registry.declared_variant("my_task_circular", {"metadata": {}}) is None
    assert registry.declared_variant("diningbench_cls_en_circular", {"metadata": {"version": 1}}) == (
        "circular",
        "diningbench_cls_en",
    )  # shipped: its YAML declares rotation_of
    assert registry.declared_variant("my_task_circular", {"metadata": {"rotation_of": "my_task"}}) == (
        "circular",
        "my_task",
    )  # declared: read
