"""Image-free twins: the same task with no image sent, and how each finds its image twin.

An image-free task (``<...>_noimage<...>``) reads its twin's documents with its twin's ``process_docs``
(so the document keys are equal by construction), sends the twin's prompt text and scores with the twin's
parser and metrics; only the images stay out. The difference between the two runs, document by document,
is the model's gain from the image (MMStar's multi-modal gain, Chen et al. 2024, arXiv:2403.20330).

How a task says it is image-free: its ``lmms_eval_specific_kwargs`` carry ``noimage: true``; every hook
module's ``doc_to_visual`` then returns no image, ``doc_to_messages`` holds no image part and a simple model's
``doc_to_text`` no image placeholder (:func:`images_wanted`).

How a task finds its image twin: its YAML declares ``metadata: image_twin: <task>``, which lmms-eval copies into
the results JSON (``configs.<task>.metadata.image_twin``); groups whose members pair one to one carry it too. The
code reads only the declaration: :func:`food_tasks.tasks.registry.variant` (our YAML), the task config in a run
(:func:`food_tasks.lmms.errorbars.task_statistics`) and :meth:`food_tasks.runs.run.Run.variant` (a results file).

The names follow a convention that the generator and the tests check against the declaration, and that nothing
reads to find a twin: :func:`image_twin` drops the ``_noimage`` token (or a paper's own text-only mode,
``_textonly``); tests/core/test_noimage.py checks that both say the same for every YAML file. A group that gathers
image-free tasks whose image twins share no group of their own (a benchmark's ``<bench>_noimage``) has no
``image_twin``: the convention then names a group that does not exist.

Documents whose image cannot be read stay out of the image-free run's denominators as they do out of the
twin's (``image_missing`` is decided by the image file, not by whether it was sent): both score the same
documents.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

TOKEN = "noimage"
# A benchmark's own text-only input mode, paired like a `_noimage` twin (the paper's ablation).
TEXT_ONLY = "textonly"
KWARG = "noimage"
METADATA_KEY = "image_twin"
_TOKEN_RE = re.compile(rf"_(?:{TOKEN}|{TEXT_ONLY})(?=_|$)")


def image_twin(name: str) -> str | None:
    """The task or group that the naming convention pairs ``name`` with; None when the name has no image-free token.
    A check of names against their declaration (taskgen, tests), never the way to find a twin: read the declared
    ``image_twin`` (:func:`food_tasks.tasks.registry.variant`, :meth:`food_tasks.runs.run.Run.variant`)."""
    twin = _TOKEN_RE.sub("", name, count=1)
    return twin if twin != name else None


def is_noimage(name: str) -> bool:
    """True for a task or group of ours with the ``_noimage`` token (a paper's ``_textonly`` mode excluded)."""
    return re.search(rf"_{TOKEN}(?=_|$)", name) is not None


def images_wanted(lmms_eval_specific_kwargs: Mapping[str, Any] | None) -> bool:
    """False when the task's ``lmms_eval_specific_kwargs`` mark it image-free (``noimage: true``)."""
    return not (lmms_eval_specific_kwargs or {}).get(KWARG)
