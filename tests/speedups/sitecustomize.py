"""Test sessions only (tests/sandbox.py puts this folder on ``PYTHONPATH``), in the session's interpreters (pytest's
workers and the lmms-eval subprocesses of tests), except those started as a user's process
(``conftest.run_lmms_eval(as_user=True)``: the wheel's fresh venv, the missing-data run):

* lmms-eval's own task folder is indexed once per session (:mod:`lmms_eval_index`), the moment
  ``lmms_eval.tasks`` is imported;
* Hugging Face ``evaluate`` is imported when a public name of it is first read, not when lmms-eval's metric
  registry imports it (``import evaluate as hf_evaluate``, used only to load a metric no task of ours names). Its
  import pulls in transformers' pipelines, torchvision and datasets: about 4 of the 10 CPU-seconds an lmms-eval
  start-up costs here, in each of the suite's dozen fresh interpreters. A run that reads ``hf_evaluate.load``
  imports the real module then, and gets it.

Nothing else of the process changes.
"""

from __future__ import annotations

import importlib
import importlib.util
import os
import sys
import types

if os.environ.get("FOOD_TASKS_TESTS_INDEX"):
    import lmms_eval_index

    lmms_eval_index.install_on_import()

    class _Deferred(types.ModuleType):
        """A module (``evaluate``) until a public name of it is read: then the real module is imported, takes this
        one's place in ``sys.modules``, and lends this object its names (for those who bound it by ``import``)."""

        def __getattr__(self, name: str):  # type: ignore[no-untyped-def]
            if name.startswith("__") and name.endswith("__"):  # warnings' registry scans, copy, pickle, inspect
                raise AttributeError(name)
            module = self.__name__
            if sys.modules.get(module) is self:
                del sys.modules[module]
            real = importlib.import_module(module)
            self.__dict__.update({k: v for k, v in vars(real).items() if not k.startswith("__")})
            return getattr(real, name)

    if "evaluate" not in sys.modules:
        _spec = importlib.util.find_spec("evaluate")
        if _spec is not None:
            # The real module's spec: importlib.util.find_spec("evaluate") reads it while the import is deferred.
            sys.modules["evaluate"] = _Deferred("evaluate")
            sys.modules["evaluate"].__spec__ = _spec
