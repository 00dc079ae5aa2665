"""The core's layers are its folders, and no circle: the import graph of ``food_tasks/``, built from the modules' own
source (every import statement, those inside functions included), has no cycle, and no core module imports a module
of a higher layer.

The layers (docs/layout.md), lowest first: the package root's base (``food_tasks/__init__.py``, ``errors.py``), then
one folder per layer in :data:`FOLDERS` (each folder's ``__init__`` docstring says what it holds), then the face: the
modules left at the package root (the CLI, the lmms-eval entry point, the regional task class users' YAML names,
the replay model whose class path results files record, and ``parsing``, kept at its old path for users). A module
imports its own folder or lower ones. A new core module needs no entry here: its folder is its layer; a new folder
gets its place in :data:`FOLDERS`.
"""

from __future__ import annotations

import ast
import importlib
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
PACKAGE = REPO / "food_tasks"

# Lowest first. runs/: runs read back from their files (the offline layer), which report/ and compare/ take.
FOLDERS = ["stats", "data", "hooks", "judge", "tasks", "regional_tasks", "lmms", "runs", "report", "compare"]
BASE = {"food_tasks", "food_tasks.errors"}  # the package root (maps utils/ and yaml_tasks/) and our exceptions
NOT_CORE = ("food_tasks.benchmarks", "food_tasks.utils", "food_tasks.sample_data")
FACE = len(FOLDERS) + 1
MAX_LINES = 600
LONG_EXEMPT = {"food_tasks.hooks.cocoeval"}  # the official COCO port
PRIVATE_EXEMPT = {"food_tasks.hooks.cocoeval"}  # imports cocojava._clean; its owner makes it public


def _modules() -> dict[str, Path]:
    """Every module of the package by dotted name: food_tasks/ and the clone's utils/ (food_tasks.utils)."""
    out = {}
    for root, prefix in ((PACKAGE, "food_tasks"), (REPO / "utils", "food_tasks.utils")):
        for path in sorted(root.rglob("*.py")):
            parts = list(path.relative_to(root).with_suffix("").parts)
            if parts[-1] == "__init__":
                parts.pop()
            out[".".join([prefix, *parts])] = path
    return out


MODULES = _modules()
CORE = {name for name in MODULES if not name.startswith(NOT_CORE)}


def layer(module: str) -> int | None:
    """0 for the base, a folder's place in :data:`FOLDERS` (from 1), :data:`FACE` for the other root modules; None
    for a folder FOLDERS lacks (test_every_core_folder_is_a_layer names it)."""
    if module in BASE:
        return 0
    path = MODULES[module].relative_to(PACKAGE)
    if len(path.parts) == 1:
        return FACE
    return FOLDERS.index(path.parts[0]) + 1 if path.parts[0] in FOLDERS else None


LAYERS = {m: n for m in sorted(CORE) if (n := layer(m)) is not None}


def _resolve(name: str) -> str | None:
    """The module an import names: the longest dotted prefix that is one of ours."""
    while name:
        if name in MODULES:
            return name
        name = name.rpartition(".")[0]
    return None


def imports(module: str) -> list[tuple[str, int, str]]:
    """``(imported module, line, imported name)`` of each import of ours in the module's source."""
    path = MODULES[module]
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    out = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            out += [
                (t, node.lineno, "") for a in node.names if (t := _resolve(a.name)) and a.name.startswith("food_tasks")
            ]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join(anchor + ([base] if base else []))
            if not base.startswith("food_tasks"):
                continue
            for alias in node.names:
                target = _resolve(f"{base}.{alias.name}") if f"{base}.{alias.name}" in MODULES else _resolve(base)
                if target:
                    out.append((target, node.lineno, alias.name))
    return [(t, line, n) for t, line, n in out if t != module]


GRAPH = {m: sorted({t for t, _, _ in imports(m)}) for m in MODULES}


def test_every_core_folder_is_a_layer():
    folders = {p.name for p in PACKAGE.iterdir() if p.is_dir() and (p / "__init__.py").exists()}
    folders -= {n.split(".")[1] for n in NOT_CORE}
    assert sorted(folders - set(FOLDERS)) == [], "give each new core folder its place in FOLDERS"
    assert sorted(set(FOLDERS) - folders) == [], "FOLDERS names folders that no longer exist"


def test_the_face_is_small():
    # The package root holds only the base and the face: a new module goes into the folder of its layer.
    face = sorted(m for m, n in LAYERS.items() if n == FACE)
    assert face == [
        "food_tasks.cli",
        "food_tasks.parsing",
        "food_tasks.regional",
        "food_tasks.registration",
        "food_tasks.replay_model",
    ]


def test_no_import_circle():
    cycles, state = [], {}

    def visit(node: str, stack: list[str]) -> None:
        state[node] = "open"
        for nxt in GRAPH.get(node, ()):
            if state.get(nxt) == "open":
                cycles.append(" -> ".join(stack[stack.index(nxt) :] + [nxt]))
            elif nxt not in state:
                visit(nxt, stack + [nxt])
        state[node] = "done"

    for module in sorted(GRAPH):
        if module not in state:
            visit(module, [module])
    assert cycles == []


def test_no_core_module_imports_a_higher_layer():
    wrong = [
        f"{m} (layer {LAYERS[m]}) imports {t} (layer {LAYERS[t]}) at line {line}"
        for m in sorted(CORE & set(LAYERS))
        for t, line, _ in imports(m)
        if t in LAYERS and LAYERS[t] > LAYERS[m]
    ]
    assert wrong == []


def test_only_the_face_imports_the_benchmark_packages():
    # The benchmarks' report modules import food_tasks.report: the report takes the records from the registry
    # (registry.records), beneath both; a benchmark package is no layer of the core (issue 34.1).
    wrong = [
        f"{m} imports {t} at line {line}"
        for m in sorted(CORE & set(LAYERS))
        for t, line, _ in imports(m)
        if t.startswith("food_tasks.benchmarks") and LAYERS[m] < FACE
    ]
    assert wrong == []


def _named(module: str) -> list[tuple[str, int]]:
    """Every dotted name of ours a module's source imports (those inside functions included), as written: a data
    folder such as ``food_tasks.yaml_tasks`` is no module of :data:`MODULES`, so :func:`imports` cannot name it."""
    path = MODULES[module]
    out = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            out += [(a.name, node.lineno) for a in node.names]
        elif isinstance(node, ast.ImportFrom) and not node.level and node.module:
            out += [(f"{node.module}.{a.name}", node.lineno) for a in node.names]
    return [(name, line) for name, line in out if name.startswith("food_tasks")]


def test_nothing_below_imports_the_hook_modules_or_a_data_folder():
    # Issue 42: catalogue imported food_tasks.yaml_tasks (a folder of YAML) to learn its path, and the WorldCuisines
    # official re-scoring imported its hook module, inside functions where the graph of layers did not look. The hook
    # modules (food_tasks.utils) are named by the task YAML alone; the YAML folder is found by food_tasks.folder_of.
    wrong = [
        f"{m} imports {name} at line {line}"
        for m in sorted(MODULES)
        if not m.startswith("food_tasks.utils")
        for name, line in _named(m)
        if name.startswith(("food_tasks.utils", "food_tasks.yaml_tasks"))
    ]
    assert wrong == []


def test_no_benchmark_module_imports_the_face():
    # A benchmark package sits beneath the face (the CLI imports it): its imports, those inside functions included,
    # reach the core and its own package, never a module of the face (official.py imported the replay model's reader).
    wrong = [
        f"{m} imports {t} at line {line}"
        for m in sorted(MODULES)
        if m.startswith("food_tasks.benchmarks")
        for t, line, _ in imports(m)
        if LAYERS.get(t) == FACE
    ]
    assert wrong == []


def test_no_private_name_is_imported_across_core_modules():
    found = [
        f"{m} imports {n} from {t} at line {line}"
        for m in sorted(CORE - PRIVATE_EXEMPT)
        for t, line, n in imports(m)
        if n.startswith("_") and not n.startswith("__") and t != m
    ]
    assert found == []


@pytest.mark.parametrize("module", sorted(CORE - LONG_EXEMPT))
def test_no_core_module_is_over_600_lines(module):
    lines = MODULES[module].read_text(encoding="utf-8").count("\n")
    assert lines <= MAX_LINES, f"{MODULES[module].relative_to(REPO)}: {lines} lines; split it by job"


def test_the_graph_sees_function_level_and_relative_imports(tmp_path):
    # registration imports the harness inside a function: the graph has the edge.
    assert "food_tasks.lmms.harness" in GRAPH["food_tasks.registration"]
    assert "food_tasks.report.spec" in GRAPH["food_tasks.report.build"]


def test_the_names_users_rely_on_stay_importable():
    # Users name these (their regional YAML, CONTRIBUTING, pyproject's entry points); a move keeps them at their path.
    for path in (
        "food_tasks.regional:RegionalTask",
        "food_tasks.parsing:extract_choice",
        "food_tasks.parsing:option_spans",
        "food_tasks:reset",
        "food_tasks.registration:lmms_eval_plugin",
        "food_tasks.cli:main",
    ):
        module, _, name = path.partition(":")
        assert callable(getattr(importlib.import_module(module), name, None)), path
    from food_tasks.hooks import parsing

    assert importlib.import_module("food_tasks.parsing").extract_choice is parsing.extract_choice
