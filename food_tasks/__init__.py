"""food-tasks: food-domain vision-language benchmarks as an lmms-eval task pack.

The package has three parts, all under the single import name ``food_tasks``:

* ``food_tasks`` itself: the shared core (data access, parsing, metrics,
  registration, CLI), pure and unit-tested;
* ``food_tasks.utils`` (``utils/`` in the repository): one thin hook module per
  benchmark, referenced from YAML as ``!function food_tasks.utils.<bench>.<fn>``;
* ``food_tasks.yaml_tasks`` (``yaml_tasks/`` in the repository): the task
  directory that lmms-eval indexes.

In an installed wheel the two sub-packages sit inside this folder. In a clone
they are the top-level folders ``utils/`` and ``yaml_tasks/``; when this module
is imported from a clone (``python -m lmms_eval`` or ``food-tasks demo`` run
from the repository root put the current directory first on ``sys.path``, so
``./food_tasks`` is found before any installed copy), :class:`_SourceTreeFinder`
maps those two names to the top-level folders, so the source tree is the whole
package whatever the install kind (wheel, editable or none).
"""

from __future__ import annotations

import importlib.abc as _abc
import importlib.util as _util
import sys as _sys
from pathlib import Path as _Path
from typing import TYPE_CHECKING as _TYPE_CHECKING

if _TYPE_CHECKING:  # pragma: no cover
    import types as _types
    from collections.abc import Sequence as _Sequence
    from importlib.machinery import ModuleSpec as _ModuleSpec

__version__ = "0.1.0"

_SUBPACKAGES = ("utils", "yaml_tasks")


class _SourceTreeFinder(_abc.MetaPathFinder):
    """Resolve ``food_tasks.utils`` and ``food_tasks.yaml_tasks`` to a clone's top-level folders."""

    def __init__(self, root: _Path) -> None:
        self.root = root

    def find_spec(
        self, fullname: str, path: _Sequence[str] | None = None, target: _types.ModuleType | None = None
    ) -> _ModuleSpec | None:
        """A ModuleSpec loading ``food_tasks.utils`` or ``food_tasks.yaml_tasks`` from the clone's folder; else None."""
        package, _, name = fullname.partition(".")
        if package != __name__ or name not in _SUBPACKAGES:
            return None
        folder = self.root / name
        return _util.spec_from_file_location(fullname, folder / "__init__.py", submodule_search_locations=[str(folder)])


def _map_source_tree() -> None:
    here = _Path(__file__).resolve().parent
    root = here.parent
    if all((here / name).is_dir() for name in _SUBPACKAGES):
        return  # installed layout: nothing to map
    if not (root / "pyproject.toml").is_file() or not all(
        (root / name / "__init__.py").is_file() for name in _SUBPACKAGES
    ):
        return
    if not any(isinstance(f, _SourceTreeFinder) and f.root == root for f in _sys.meta_path):
        # Appended: the import system's own finders (and an editable install's, which maps the same folders) go first.
        _sys.meta_path.append(_SourceTreeFinder(root))


_map_source_tree()


def folder_of(name: str) -> _Path:
    """The folder of ``food_tasks.utils`` or ``food_tasks.yaml_tasks`` (``name``): inside the package when installed,
    the clone's top-level folder otherwise (as :class:`_SourceTreeFinder` maps them), found without importing it."""
    if name not in _SUBPACKAGES:
        raise ValueError(f"{name!r} is not one of {_SUBPACKAGES}")
    here = _Path(__file__).resolve().parent
    return here / name if (here / name).is_dir() else here.parent / name


# Every module-level cache the package keeps, in one place: (module, name). A function memoised by ``functools``
# is cleared with ``cache_clear``; a dict, list or set is emptied; anything else is the module's own reset function,
# called. A module that is not imported has nothing cached. tests/core/test_reset.py fails when a module of the
# package keeps a cache this list does not name, or when a name here no longer exists.
_CACHES = (
    # run state: what one lmms-eval run collects for its tables and notes
    ("food_tasks.lmms.errorbars", "_RUN"),
    ("food_tasks.lmms.results_table", "RUN_NOTES"),
    (
        "food_tasks.lmms.harness",
        "GROUP_ENTRIES",
    ),  # the aggregate_metric_list of this run's groups outside our catalogue
    ("food_tasks.data.images", "reset"),  # which images could not be decoded, and how many warnings were printed
    # task folders and YAML
    ("food_tasks.tasks.catalogue", "_INDEX"),
    ("food_tasks.tasks.catalogue", "yaml_loader"),
    ("food_tasks.lmms.harness", "_PARSED"),
    ("food_tasks.lmms.harness", "_simple_loader"),
    ("food_tasks.report.spec", "_LOADED"),
    # data, images and remote services
    ("food_tasks.data.hub", "hub_image_store"),
    ("food_tasks.data.remote", "_probe"),
    ("food_tasks.data.remote", "default_image_store"),
    ("food_tasks.regional_tasks.scoring", "url_store"),
    ("food_tasks.judge.redact", "_configured"),
    ("food_tasks.judge.client", "client_for"),
    ("food_tasks.judge.probes", "_COUNTED"),  # the probe requests whose usage a task of this process counted
    ("food_tasks.hooks.cocojava", "_java_problem"),
    ("food_tasks.hooks.bertscore", "_scorer"),
    ("food_tasks.hooks.bertscore", "_f1"),
    # compiled patterns
    ("food_tasks.hooks.parsing", "_LABEL_SETS"),
    ("food_tasks.hooks.parsing", "_strip_tagged"),
    ("food_tasks.hooks.jsonparse", "_MARK_PATTERNS"),
)


def caches() -> tuple[tuple[str, str], ...]:
    """Every cache :func:`reset` clears, as ``(module, name)``: the core's ``_CACHES`` and, of each benchmark module
    imported, the names its ``CACHES`` declares (a benchmark keeps its own list, so the core names no benchmark)."""
    declared = sorted(
        (module_name, name)
        for module_name, module in list(_sys.modules.items())
        if module_name.startswith(f"{__name__}.benchmarks.") and module is not None
        for name in getattr(module, "CACHES", ())
    )
    return _CACHES + tuple(declared)


def reset() -> None:
    """Forget everything the package keeps between calls in this process (every cache of :func:`caches`): memoised
    data, indexes of task folders, parsed YAML, image stores and clients, compiled patterns and the state of a run.

    A fresh process starts with none of it; a process that runs lmms-eval, ``food-tasks`` commands or the scoring
    functions more than once (a notebook, a test session) calls this between runs to start each as a fresh process
    would: a changed data folder, environment variable or task file is then read again. Imports nothing."""
    for module_name, name in caches():
        module = _sys.modules.get(module_name)
        if module is None:
            continue  # never imported: nothing cached
        value = getattr(module, name)
        if callable(getattr(value, "cache_clear", None)):
            value.cache_clear()
        elif isinstance(value, (dict, list, set)):
            value.clear()
        else:
            value()
