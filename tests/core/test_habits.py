"""Every public function of the package has a docstring and type hints (no ``# type: ignore[no-untyped-def]``).

A public function is a module-level or class-level ``def`` whose name does not start with ``_`` (methods
included, at any class depth); closures inside functions are exempt, and so are hooks assigned as values
(``docs_x = partial(_docs, ...)``). Scanned: ``food_tasks/``, ``utils/`` and the YAML generators.
"""

from __future__ import annotations

import ast
import io
import tokenize
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
UNTYPED = "type: ignore[no-untyped-def]"


def _scanned() -> list[Path]:
    """The checked files: the core package, the hook modules and every benchmark's YAML generator."""
    files = [
        *REPO.glob("food_tasks/**/*.py"),
        *REPO.glob("utils/*.py"),
        *REPO.glob("yaml_tasks/*/_generate_configs.py"),
    ]
    return sorted(p for p in files if "__pycache__" not in p.parts)


def undocumented(source: str) -> list[str]:
    """``name:line`` of each public module- or class-level function of ``source`` without a docstring."""
    out: list[str] = []

    def visit(body: list[ast.stmt], prefix: str) -> None:
        for node in body:
            if isinstance(node, ast.ClassDef):
                visit(node.body, f"{prefix}{node.name}.")
            elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                if not node.name.startswith("_") and ast.get_docstring(node) is None:
                    out.append(f"{prefix}{node.name}:{node.lineno}")

    visit(ast.parse(source).body, "")
    return out


def untyped_ignores(source: str) -> list[int]:
    """Line numbers of the ``# type: ignore[no-untyped-def]`` comments of ``source`` (comments only, not strings)."""
    tokens = tokenize.generate_tokens(io.StringIO(source).readline)
    return [tok.start[0] for tok in tokens if tok.type == tokenize.COMMENT and UNTYPED in tok.string]


def test_checker_finds_what_it_should() -> None:
    """The two detectors on a small source: methods and nested classes count, closures and private names do not."""
    source = (
        "def public(x):  # type: ignore[no-untyped-def]\n"
        "    def closure():\n"
        "        pass\n"
        "    return x\n"
        "def _private():\n"
        "    pass\n"
        "def documented() -> None:\n"
        '    """Has one."""\n'
        "class A:\n"
        "    def method(self) -> None:\n"
        "        pass\n"
        "    def __reduce__(self):\n"
        "        pass\n"
        "    class B:\n"
        "        async def inner(self) -> None:\n"
        "            pass\n"
        "TEXT = '# type: ignore[no-untyped-def] inside a string'\n"
    )
    assert undocumented(source) == ["public:1", "A.method:10", "A.B.inner:15"]
    assert untyped_ignores(source) == [1]


def test_public_functions_have_docstrings_and_type_hints() -> None:
    """No public function without a docstring, no ``# type: ignore[no-untyped-def]``."""
    problems: dict[str, tuple[list[str], list[int]]] = {}
    for path in _scanned():
        rel = path.relative_to(REPO).as_posix()
        source = path.read_text(encoding="utf-8")
        missing, ignores = undocumented(source), untyped_ignores(source)
        if missing or ignores:
            problems[rel] = (missing, ignores)
    report = "\n".join(
        f"  {rel}: {len(missing)} without a docstring, {len(ignores)} '# {UNTYPED}'"
        + (f"; no docstring: {', '.join(missing)}" if missing else "")
        + (f"; ignores at lines {', '.join(map(str, ignores))}" if ignores else "")
        for rel, (missing, ignores) in problems.items()
    )
    assert not problems, (
        f"public functions need a one-line docstring and type hints (CONTRIBUTING), per file:\n{report}"
    )
