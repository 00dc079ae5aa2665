"""Zero-flag registration of our task directory with lmms-eval.

lmms-eval 0.7.x has no task entry-point group, and its ``LMMS_EVAL_PLUGINS`` code path appends include
paths only after the ``TaskManager`` was built. What it does read early is the ``lmms_eval.models``
entry-point group: every ``import lmms_eval.models`` (the evaluator imports it before the CLI builds its
``TaskManager``) loads all entry points of that group. Ours, :func:`lmms_eval_plugin`, installs the
harness wraps of :mod:`food_tasks.lmms.harness` (our task directory is indexed after lmms-eval's own, which
therefore keeps priority on any name clash), masks configured credentials in the run's log
(:func:`food_tasks.judge.redact.install_log_mask`) and contributes the ``food_tasks_replay`` model.

Set ``FOOD_TASKS_AUTOREGISTER=0`` to install none of the wraps (then pass
``--include_path "$(food-tasks path)"`` yourself).
"""

from __future__ import annotations

from food_tasks.tasks.catalogue import task_dir  # public here too: `food_tasks.registration.task_dir`


def _warn_about_backend() -> None:
    """Say at run time what the chosen lmms-eval backend changes about our tasks (see
    :mod:`food_tasks.lmms.serving`)."""
    import sys

    from food_tasks.lmms import serving

    try:
        prefixes = [p.name for p in task_dir().iterdir() if p.is_dir() and not p.name.startswith("_")] + ["food_tasks"]
        serving.warn_for_cli(sys.argv, prefixes)
    except Exception as exc:  # a note must never stop a run
        from loguru import logger

        logger.debug(f"food-tasks: backend check skipped: {exc}")


def our_names() -> frozenset[str]:
    """Names of the tasks and groups we ship (read from our YAML without executing hooks)."""
    from food_tasks.tasks import catalogue

    return frozenset(name for name, _, _ in catalogue.names())


def lmms_eval_plugin() -> list:
    """Entry point of the ``lmms_eval.models`` group.

    Installs the harness wraps (:func:`food_tasks.lmms.harness.install`) and returns the model manifests we
    contribute: ``food_tasks_replay``, a model that answers from a predictions file (for re-scoring
    published outputs and for deterministic end-to-end tests).
    """
    from lmms_eval.models.registry_v2 import ModelManifest

    from food_tasks.judge import redact
    from food_tasks.lmms import harness
    from food_tasks.replay_model import MODEL_ID

    redact.install_log_mask()  # before lmms-eval logs its tracker arguments, HF_TOKEN included
    harness.install(str(task_dir()), our_names)
    _warn_about_backend()
    return [ModelManifest(model_id=MODEL_ID, simple_class_path="food_tasks.replay_model.ReplayModel")]
