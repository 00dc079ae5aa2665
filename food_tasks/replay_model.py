"""``food_tasks_replay``: an lmms-eval model that answers from a predictions file.

Uses: re-scoring outputs produced elsewhere (for example the official
WorldCuisines prediction files) with our tasks, and deterministic end-to-end
tests whose expected scores are known exactly.

    lmms-eval --model food_tasks_replay \\
        --model_args responses=preds.jsonl,keys=qa_id+lang --tasks worldcuisines_mcq_smallref

``responses`` is a JSON Lines file; each line holds the answer text under
``response`` (or ``prediction``; ``null`` or ``NaN`` there is the empty
answer), optionally ``task`` (restricts the line to one task), and the
document fields named by ``keys`` (``+``-separated; default ``doc_id``, the
document's position in its task). A document without a line
gets ``default`` (empty string unless set) and is counted; the count is logged.
"""

from __future__ import annotations

import json
import math
from pathlib import Path

import torch
from loguru import logger

from lmms_eval.api.model import lmms


class ReplayModel(lmms):
    """Answer each document with the response recorded for it."""

    def __init__(self, responses: str, keys: str = "doc_id", default: str = "", **kwargs) -> None:
        super().__init__()
        self._keys = tuple(k for k in str(keys).split("+") if k)
        self._default = str(default)
        self._answers: dict[tuple, str] = {}
        self.missing = 0
        path = Path(responses)
        if not path.is_file():
            raise FileNotFoundError(f"food_tasks_replay: responses file {path} does not exist")
        with path.open(encoding="utf-8") as fh:
            for number, line in enumerate(fh, start=1):
                if not line.strip():
                    continue
                try:
                    row = json.loads(line)
                    text = row["response"] if "response" in row else row["prediction"]
                    key = tuple(str(row[k]) for k in self._keys)
                except (ValueError, KeyError) as err:
                    raise ValueError(f"food_tasks_replay: {path}:{number}: need 'response' and fields {self._keys}: {err}") from err
                # null or NaN (pandas writes missing outputs as NaN) is no answer, not the text "nan".
                missing = text is None or (isinstance(text, float) and math.isnan(text))
                self._answers[(row.get("task"), key)] = "" if missing else str(text)

    @property
    def device(self) -> torch.device:
        # Under several processes the evaluator gathers per-rank request counts on `lm.device`
        # (after giving the model an Accelerator); one process never asks.
        accelerator = getattr(self, "accelerator", None)
        return accelerator.device if accelerator is not None else torch.device("cpu")

    def _lookup(self, task: str, doc_id: int, doc: dict) -> str:
        key = tuple(str(doc_id) if k == "doc_id" else str(doc[k]) for k in self._keys)
        for candidate in ((task, key), (None, key)):
            if candidate in self._answers:
                return self._answers[candidate]
        self.missing += 1
        return self._default

    def generate_until(self, requests) -> list[str]:  # type: ignore[no-untyped-def]
        out = []
        for request in requests:
            _, _, _, doc_id, task, split = request.args
            out.append(self._lookup(task, doc_id, self.task_dict[task][split][doc_id]))
        if self.missing:
            logger.warning(f"food_tasks_replay: {self.missing} document(s) had no recorded response; answered {self._default!r}")
        return out

    def generate_until_multi_round(self, requests) -> list[str]:  # type: ignore[no-untyped-def]
        return self.generate_until(requests)

    def loglikelihood(self, requests):  # type: ignore[no-untyped-def]
        raise NotImplementedError("food_tasks_replay only replays generated text")
