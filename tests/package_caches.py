"""What the package keeps in module-level state, seen from outside: for the tests of :func:`food_tasks.reset`.

A cache is a function memoised by ``functools`` defined in a module of the package, or a module-level dict, list or
set; :func:`state` gives each one's size, so that two calls around some work show what the work filled.
"""

from __future__ import annotations

import functools
import importlib
import pkgutil
import sys

import food_tasks


def import_all() -> None:
    """Import every module of the package (its hook modules included), as a long-lived process may have."""
    for package in ("food_tasks", "food_tasks.utils"):
        module = importlib.import_module(package)
        for info in pkgutil.walk_packages(module.__path__, f"{package}."):
            importlib.import_module(info.name)


def state() -> dict[tuple[str, str], int]:
    """``(module, name) -> size`` of every memoised function and module-level dict, list or set of the package's
    imported modules (a memoised function: its number of cached calls)."""
    sizes = {}
    for module_name, module in list(sys.modules.items()):
        if module is None or not (module_name == "food_tasks" or module_name.startswith("food_tasks.")):
            continue
        for name, value in vars(module).items():
            if isinstance(value, functools._lru_cache_wrapper) and value.__module__ == module_name:
                sizes[module_name, name] = value.cache_info().currsize
            elif type(value) in (dict, list, set) and not name.startswith("__"):
                sizes[module_name, name] = len(value)
    return sizes


def listed() -> set[tuple[str, str]]:
    """The caches :func:`food_tasks.reset` clears; a module's own reset function stands for its containers."""
    out = set(food_tasks.caches())
    for module_name, name in food_tasks.caches():
        value = getattr(sys.modules.get(module_name), name, None)
        if name == "reset" and callable(value):
            module = sys.modules[module_name]
            out |= {(module_name, n) for n, v in vars(module).items() if type(v) in (dict, list, set)}
    return out
