"""Test sessions only (tests/conftest.py puts this folder on ``PYTHONPATH``): in an lmms-eval subprocess of a
test, lmms-eval's own task folder is indexed once per session (:mod:`lmms_eval_index`), the moment
``lmms_eval.tasks`` is imported. Nothing else of the process changes."""

from __future__ import annotations

import importlib.abc
import importlib.util
import os
import sys

if os.environ.get("FOOD_TASKS_TESTS_INDEX"):

    class _AfterImport(importlib.abc.MetaPathFinder):
        """Finds nothing itself: lets the normal finders load ``lmms_eval.tasks``, then installs the cache."""

        def find_spec(self, name, path, target=None):  # type: ignore[no-untyped-def]
            if name != "lmms_eval.tasks":
                return None
            sys.meta_path.remove(self)
            spec = importlib.util.find_spec(name)
            if spec is None or spec.loader is None:
                return spec
            run = spec.loader.exec_module

            def exec_module(module):  # type: ignore[no-untyped-def]
                run(module)
                import lmms_eval_index

                lmms_eval_index.install(module.TaskManager, os.path.dirname(os.path.abspath(module.__file__)))

            spec.loader.exec_module = exec_module  # type: ignore[method-assign]
            return spec

    sys.meta_path.insert(0, _AfterImport())
