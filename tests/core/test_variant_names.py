"""No variant is read from, or written into, a task's name outside the task generator (issue 42): a variant (image-free
twin, rotation, packaged sample) is declared, and read from its declaration (:func:`food_tasks.tasks.registry.
variant_in`, a run's facts). Older results files that declare none are read through the one documented mapping
(:data:`food_tasks.tasks.registry.LEGACY_VARIANTS`).

Scanned: every string of the package (f-string parts included, docstrings not) that is a variant suffix alone
(``"_sample"``) or a ``{v}`` name template, outside ``food_tasks/tasks/taskgen.py``. :data:`DEBT` lists, per file,
what is left to replace: the report specs of the benchmarks still spell their packaged-sample tasks through ``{v}``
templates (issue 42 leaves them: the sample tasks declare no ``sample_of`` yet); it may only shrink.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
GENERATOR = "food_tasks/tasks/taskgen.py"
SUFFIX = re.compile(r"^_(circular|noimage|textonly|sample)$")
LEGACY = {"food_tasks/tasks/registry.py": 1}  # LEGACY_VARIANTS: results files written before rotation_of existed
DEBT = {
    "food_tasks/benchmarks/diningbench/report.py": 12,
    "food_tasks/benchmarks/fambench/report.py": 25,
    "food_tasks/benchmarks/food500cap/report.py": 2,
    "food_tasks/benchmarks/foodieqa/report.py": 4,
    "food_tasks/benchmarks/worldcuisines/report.py": 13,
}


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
    new = {name: found[name] for name in counts if name not in LEGACY and name not in DEBT}
    assert new == {}, "declare the variant (taskgen) and read the declaration; never spell its suffix"
    assert {n: c for n, c in counts.items() if n in LEGACY} == LEGACY
    grown = {n: (c, DEBT[n]) for n, c in counts.items() if n in DEBT and c > DEBT[n]}
    assert grown == {}, "the report specs' {v} templates may only shrink (issue 42)"


def test_the_one_legacy_mapping_is_documented_where_it_stands():
    from food_tasks.tasks import registry

    assert registry.LEGACY_VARIANTS == {"_circular": "circular"}
    assert "older results file" in (registry.legacy_variant.__doc__ or "") and registry.legacy_variant(
        "a_circular_1", {"x": 1}
    ) == (
        "circular",
        "a_1",
    )
    assert registry.legacy_variant("a_circular_1", {"metadata": {"rotation_of": "b"}}) is None  # declared: no rule
    assert registry.legacy_variant("a_circular_1", {}) is None  # no config at all: nothing to read
