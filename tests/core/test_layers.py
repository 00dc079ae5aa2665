"""Four layers, no circle: the import graph of ``food_tasks/``, built from the modules' own source (every import
statement, those inside functions included), has no cycle, and no core module imports a module of a higher layer.

The layers (README, "Layout"): 1 leaves (they import nothing of ours but other leaves), 2 the in-run layer (what
lmms-eval calls during a run), 3 the offline layer (reading runs back: compare, report, the regional checker),
4 the face (the CLI and the lmms-eval entry point). A new core module gets its layer in :data:`LAYERS`.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
PACKAGE = REPO / "food_tasks"

LEAVES, IN_RUN, OFFLINE, FACE = 1, 2, 3, 4
LAYERS = {
    "food_tasks": LEAVES,  # the package root: maps utils/ and yaml_tasks/, imports nothing of ours
    # leaves: errors, the YAML catalogue, the run-file reader, statistics, hooks, data and images, parsing ...
    "food_tasks.errors": LEAVES,
    "food_tasks.confidence": LEAVES,
    "food_tasks.catalogue": LEAVES,
    "food_tasks.runfiles": LEAVES,
    "food_tasks.estimators": LEAVES,
    "food_tasks.stats": LEAVES,
    "food_tasks.hooks": LEAVES,
    "food_tasks.outputs": LEAVES,
    "food_tasks.parsing": LEAVES,
    "food_tasks.jsonparse": LEAVES,
    "food_tasks.metrics": LEAVES,
    "food_tasks.units": LEAVES,
    "food_tasks.messages": LEAVES,
    "food_tasks.images": LEAVES,
    "food_tasks.data": LEAVES,
    "food_tasks.archive": LEAVES,
    "food_tasks.mirror": LEAVES,
    "food_tasks.remote": LEAVES,
    "food_tasks.redact": LEAVES,
    "food_tasks.judge": LEAVES,
    "food_tasks.bertscore": LEAVES,
    "food_tasks.cocoeval": LEAVES,
    "food_tasks.cocojava": LEAVES,
    "food_tasks.rotation": LEAVES,
    "food_tasks.consistency": LEAVES,
    "food_tasks.noimage": LEAVES,
    "food_tasks.registry": LEAVES,
    "food_tasks.taskgen": LEAVES,
    "food_tasks.serving": LEAVES,
    "food_tasks.tiny_model": LEAVES,
    "food_tasks.regional_scoring": LEAVES,
    "food_tasks.regional_files": LEAVES,
    "food_tasks.regional_yaml": LEAVES,
    # in-run: called by lmms-eval during a run
    "food_tasks.harness": IN_RUN,
    "food_tasks.errorbars": IN_RUN,
    "food_tasks.results_table": IN_RUN,  # the printed table of a run: reads the metrics' declared scales
    "food_tasks.regional": IN_RUN,
    "food_tasks.replay_model": IN_RUN,
    # offline: runs read back from their files (food_tasks.runs: the one Run, the paired statistics)
    "food_tasks.runs": OFFLINE,
    "food_tasks.runs.run": OFFLINE,
    "food_tasks.runs.paired": OFFLINE,
    "food_tasks.runs.measures": OFFLINE,
    "food_tasks.compare": OFFLINE,
    "food_tasks.beyond": OFFLINE,
    "food_tasks.report.beyond": OFFLINE,
    "food_tasks.regional_check": OFFLINE,
    "food_tasks.report": OFFLINE,
    "food_tasks.report.spec": OFFLINE,
    "food_tasks.report.runs": OFFLINE,
    "food_tasks.report.cells": OFFLINE,
    "food_tasks.report.charts": OFFLINE,
    "food_tasks.report.render": OFFLINE,
    "food_tasks.report.build": OFFLINE,
    "food_tasks.report.uncertainty": OFFLINE,
    # the face
    "food_tasks.cli": FACE,
    "food_tasks.registration": FACE,
}
MAX_LINES = 600
LONG_EXEMPT = {"food_tasks.cocoeval"}  # the official COCO port
PRIVATE_EXEMPT = {"food_tasks.cocoeval"}  # imports cocojava._clean; its owner makes it public


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
CORE = {
    name
    for name, path in MODULES.items()
    if path.parent == PACKAGE or path.parent.parent == PACKAGE and path.parent.name in ("report", "runs")
} - {n for n in MODULES if n.startswith(("food_tasks.benchmarks", "food_tasks.utils", "food_tasks.sample_data"))}


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


def test_every_core_module_has_a_layer():
    assert sorted(CORE - set(LAYERS)) == [], "declare the layer of each new core module in LAYERS"
    assert sorted(set(LAYERS) - CORE) == [], "LAYERS names modules that no longer exist"


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
    assert "food_tasks.harness" in GRAPH["food_tasks.registration"]
    assert "food_tasks.report.spec" in GRAPH["food_tasks.report.build"]
