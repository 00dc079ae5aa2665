"""food_tasks.reset(): one function forgets every module-level cache of the package, listed by
``food_tasks.caches()`` (the core's ``_CACHES`` and each benchmark module's ``CACHES``), as a fresh process has
none. tests/pins/test_pins.py checks, after real runs, a report and a comparison, that the list names every cache
those filled."""

from __future__ import annotations

import functools
import importlib

import package_caches

import food_tasks


def test_every_cache_named_for_reset_exists():
    package_caches.import_all()  # a benchmark module's CACHES count once it is imported
    assert any(m.startswith("food_tasks.benchmarks.") for m, _ in food_tasks.caches())
    assert not any(m.startswith("food_tasks.benchmarks.") for m, _ in food_tasks._CACHES)  # the core names none
    for module_name, name in food_tasks.caches():
        module = importlib.import_module(module_name)
        assert hasattr(module, name), f"food_tasks._CACHES names {module_name}.{name}, which no longer exists"
        value = getattr(module, name)
        assert (
            isinstance(value, functools._lru_cache_wrapper)
            or type(value) in (dict, list, set)
            or (name == "reset" and callable(value))
        ), f"{module_name}.{name} is neither a memoised function, a container nor a reset function"
    assert len(set(food_tasks.caches())) == len(food_tasks.caches())


def test_after_reset_no_cache_holds_anything():
    from food_tasks.data import images
    from food_tasks.hooks import parsing
    from food_tasks.report import spec
    from food_tasks.tasks import catalogue

    package_caches.import_all()
    # Some caches of each kind filled: a task index, parsed YAML, compiled label sets, the report specs, an image
    # record, a memoised loader.
    catalogue.index()
    assert parsing.extract_choice("Answer: B", ("A", "B", "C")) == 1
    spec.registry()
    assert images.load("bad.png", lambda: images.decode(b"not an image", "bad.png"), "test") is None
    filled = {key for key, size in package_caches.state().items() if size and key in package_caches.listed()}
    assert {("food_tasks.tasks.catalogue", "_INDEX"), ("food_tasks.hooks.parsing", "_LABEL_SETS")} <= filled
    assert {("food_tasks.report.spec", "_LOADED"), ("food_tasks.data.images", "_status")} <= filled

    food_tasks.reset()

    held = {key: size for key, size in package_caches.state().items() if size and key in package_caches.listed()}
    assert held == {}
