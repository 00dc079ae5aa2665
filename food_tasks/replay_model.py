"""``food_tasks_replay``: an lmms-eval model that answers from a predictions file.

Uses: re-scoring outputs produced elsewhere (for example a benchmark's official
prediction files) with our tasks, and deterministic end-to-end
tests whose expected scores are known exactly.

    lmms-eval --model food_tasks_replay \\
        --model_args responses=preds.jsonl,keys=qa_id+lang --tasks TASK

``responses`` is a JSON Lines file; each line holds the answer text under
``response`` (or ``prediction``; ``null`` or ``NaN`` there is the empty
answer), optionally ``task`` (restricts the line to one task), and the
document fields named by ``keys`` (``+``-separated; default ``doc_id``, the
document's position in its task). ``keys`` names fields of the *documents* (the task's data), which each line
repeats; a line's ``task`` field is compared with the task's name and is not a key.

Every request is looked up before any is answered. A document without a line stops the run before generation
(exit status 1): the message gives the count, a few unmatched documents with their ``keys`` values, and the
fields of the file's first line. With ``default=<answer>`` (``default=`` for the empty answer) such documents
are answered ``<answer>`` instead, and counted: the count is logged and said once under the printed table.
A line that is not a JSON object with those fields stops the run before generation
(exit status 1) with an error naming the file and line (a JSON array is refused
with the one-line conversion).

``load_images=true`` makes the model ask each task for its images (``doc_to_visual``) as a model that reads
them does, and drop them: the image path of a run (decoding, undecodable images counted in ``image_missing``)
is then exercised without a model, by tests and benchmark scripts. By default no image is loaded.

``keys=identity`` (``food-tasks rescore``, :mod:`food_tasks.runs.rescore`): each line carries ``task``,
``identity`` (the document columns of the task's key and the record's values), ``doc_id`` and optionally
``image_missing``; a document is matched by those columns (by position only for a task that declares no key). Per
task, documents without a line (new, or their identity changed) and lines without a document (gone) are counted;
past 1 % of the task the run stops naming the task and both kinds; else the new ones are left out of the task's
scoring (not scored as an answer) and the counts are written to ``rescore_matching.json`` beside the responses
file. A recorded ``image_missing`` is kept: each document's images are marked as the source run found them
(:func:`food_tasks.data.images.recorded`), none is decoded. A line's ``token_counts`` (lmms-eval's, one per
request) are reported with the answer as a backend reports them (lmms-eval's ``GenerationResult``), so the harness
marks an answer that used its whole ``max_new_tokens`` (``truncated_rate``) as in the source run.
``rescore_of=<results file>`` names the source run under the printed table.

Results go to ``<output_path>/<model name>/`` when ``model_name`` is given (lmms-eval's own option:
``model_name=Qwen/Qwen2-VL-7B-Instruct`` gives ``Qwen__Qwen2-VL-7B-Instruct``); without it lmms-eval
writes them into ``<output_path>`` itself, and the model says so once.

Example: ``$(food-tasks path)/replay_example.jsonl`` holds predictions for a
packaged sample task (README.md, "food_tasks_replay") keyed by ``qa_id+lang``::

    {"qa_id": "400", "lang": "en", "response": "1"}
    {"qa_id": "401", "lang": "en", "response": "The answer is 5."}
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING

import torch
from lmms_eval.api.instance import GenerationResult, TokenCounts
from lmms_eval.api.model import lmms
from loguru import logger

from food_tasks.data import images
from food_tasks.errors import RunStopped
from food_tasks.lmms.predictions import JSONL_HELP, bad_file, load_responses
from food_tasks.lmms.results_table import RUN_NOTES
from food_tasks.regional_tasks.config import fit
from food_tasks.runs import rescore

if TYPE_CHECKING:  # pragma: no cover
    from lmms_eval.api.instance import Instance


MODEL_ID = "food_tasks_replay"
SHOWN = 3  # unmatched documents named in the message that stops a run
_NO_FIELD = object()  # a keys= field the document does not have
NOT_SCORED = -1  # keys=identity: the doc_id of a request whose document the source run did not answer


def _identity_lines(path: Path) -> dict[str, list[dict]]:
    """``keys=identity``: the lines by task, each checked to hold ``task`` and ``identity`` (an object)."""
    if not path.is_file():
        raise FileNotFoundError(fit(f"food_tasks_replay: responses file {path} does not exist.\n  {JSONL_HELP}."))
    out: dict[str, list[dict]] = {}
    with path.open(encoding="utf-8-sig") as fh:
        for number, line in enumerate(fh, start=1):
            if not line.strip():
                continue
            try:
                row = json.loads(line)
            except ValueError as err:
                raise bad_file(path, f"line {number} is not valid JSON ({err})") from None
            if (
                not isinstance(row, dict)
                or not isinstance(row.get("task"), str)
                or not isinstance(row.get("identity"), dict)
            ):
                raise bad_file(path, f"line {number} lacks 'task' or an 'identity' object, named by keys=identity")
            out.setdefault(row["task"], []).append(row)
    return out


def counted(text: str, token_counts: object, idx: object) -> str | GenerationResult:
    """``text`` with the token counts recorded for request ``idx`` (entry ``idx`` of a samples file's
    ``token_counts``: a dict of ``input_tokens``, ``output_tokens``, ``reasoning_tokens``) as lmms-eval's
    ``GenerationResult``; ``text`` itself where none was recorded. A count that is not an integer is left out."""
    entry = None
    if isinstance(token_counts, list) and isinstance(idx, int) and 0 <= idx < len(token_counts):
        entry = token_counts[idx]
    if not isinstance(entry, dict):
        return text
    names = ("input_tokens", "output_tokens", "reasoning_tokens")
    fields = {n: entry[n] for n in names if isinstance(entry.get(n), int) and not isinstance(entry[n], bool)}
    return GenerationResult(text, TokenCounts(**fields))


def first_line(responses: str | Path) -> dict:
    """The first JSON object of a predictions file that :func:`load_responses` read ({} when it has none)."""
    with Path(responses).open(encoding="utf-8-sig") as fh:
        for line in fh:
            if line.strip():
                row = json.loads(line)
                return row if isinstance(row, dict) else {}
    return {}


def _fields(row: dict) -> str:
    """A line's fields in a message: ``name=value, ...``."""
    return ", ".join(f"{k}={_shown(v)}" for k, v in row.items())


def _shown(value: object, width: int = 60) -> str:
    """A field's value in a message: its repr, cut to ``width`` characters."""
    text = "<no such field>" if value is _NO_FIELD else repr(value)
    return text if len(text) <= width else text[: width - 3] + "..."


class ReplayModel(lmms):
    """Answer each document with the response recorded for it."""

    def __init__(
        self,
        responses: str,
        keys: str = "doc_id",
        default: str | None = None,
        model_name: str = "",
        load_images: bool | str = False,
        rescore_of: str = "",
        **kwargs,
    ) -> None:
        super().__init__()
        self._rescore_of = str(rescore_of).replace("%2C", ",")
        self._identity: dict[str, dict] | None = None  # keys=identity: task -> its lines (see _identity_lines)
        self._responses = Path(responses)
        self._keys = tuple(k for k in str(keys).split("+") if k)
        self._default = None if default is None else str(default)  # None: a document without a line stops the run
        self._load_images = str(load_images).strip().lower() in ("1", "true", "yes", "on")
        self.missing = 0
        self.documents = 0  # documents looked up (all ranks): the note says "<missing> of <documents>"
        RUN_NOTES.pop(MODEL_ID, None)  # a note of an earlier run in this process
        try:
            if self._keys == ("identity",):
                self._answers, self._identity = {}, _identity_lines(Path(responses))
            else:
                self._answers = load_responses(responses, self._keys)
        except (OSError, ValueError) as err:
            # lmms-eval catches every Exception of model construction, prints it and exits 0.
            raise RunStopped(f"food-tasks: replay model error, the run stops before generation:\n{err}") from None
        if not model_name:
            logger.info(
                "food_tasks_replay: add model_name=<name> to --model_args to get results/<name>/\n"
                "  (lmms-eval's own option); without it the files go into --output_path itself"
            )

    @property
    def device(self) -> torch.device:
        """The accelerator's device when lmms-eval gave the model one, else the CPU."""
        # Under several processes the evaluator gathers per-rank request counts on `lm.device`
        # (after giving the model an Accelerator); one process never asks.
        accelerator = getattr(self, "accelerator", None)
        return accelerator.device if accelerator is not None else torch.device("cpu")

    def _key(self, doc_id: int, doc: dict) -> tuple:
        """The document's values of the ``keys`` fields (``_NO_FIELD`` for a field it lacks)."""
        return tuple(str(doc_id) if k == "doc_id" else str(doc[k]) if k in doc else _NO_FIELD for k in self._keys)

    def _find(self, task: str, key: tuple) -> str | None:
        """The recorded answer for a document of ``task`` with ``key`` (a line for the task first); None if none."""
        for candidate in ((task, key), (None, key)):
            if candidate in self._answers:
                return self._answers[candidate]
        return None

    def _all_ranks(self, count: int) -> int:
        """``count`` summed over the processes of the run (each rank answers its own share of the requests)."""
        dist = torch.distributed
        if dist.is_available() and dist.is_initialized() and dist.get_world_size() > 1:
            total = torch.tensor([count], device=self.device)
            dist.all_reduce(total)
            return int(total.item())
        return count

    def _unmatched(self, total: int, unmatched: dict[tuple, tuple], docs: dict[str, dict]) -> str:
        """The message that stops a run in which ``total`` documents have no line (``unmatched``: this rank's)."""
        keys = "+".join(self._keys)
        first = first_line(self._responses)
        lines = [
            f"food_tasks_replay: no line for {total} document(s) with keys={keys} in",
            f"  {self._responses}",
            f"  A line answers a document when its {', '.join(map(repr, self._keys))} field(s) equal the document's"
            + (" and its 'task' field, if it has one, is the task's name." if "task" not in self._keys else "."),
            f"  {total} unmatched document(s), the first {min(SHOWN, len(unmatched))}:",
        ]
        for (task, doc_id), key in sorted(unmatched.items(), key=lambda item: (item[0][0], item[0][1]))[:SHOWN]:
            values = ", ".join(f"{k}={_shown(v)}" for k, v in zip(self._keys, key))
            lines.append(f"    task {task}, document {doc_id}: {values}")
        lines.append(f"  the file's first line: {_fields(first)}")
        for task, doc in sorted(docs.items()):
            absent = [k for k in self._keys if k != "doc_id" and k not in doc]
            if absent:
                lines.append(
                    f"  the documents of {task} have no field {', '.join(map(repr, absent))}; their fields: "
                    + ", ".join(map(str, list(doc)[:20]))
                    + (" ..." if len(doc) > 20 else "")
                )
        if "task" in self._keys:
            lines.append(
                "  'task' in keys= is a document field; a line's 'task' field is matched to the task by itself"
            )
        lines.append(
            "Name in keys= the fields that identify a document (default doc_id, its position in the task), or add "
            "default=<answer> to --model_args to answer those documents with <answer> (counted in the table's note)."
        )
        return fit("\n".join(lines))

    def _by_identity(self, requests: list[Instance]) -> list[str | GenerationResult]:
        """``keys=identity``: each request's recorded answer, matched by the task's key fields (else ``doc_id``),
        with its recorded token counts (:func:`counted`); stops the run when a task's documents gone or new pass
        :data:`food_tasks.runs.rescore.MAX_SHARE`.

        A document without a recorded answer (new) is answered ``''`` but left out of the task's scoring: its
        requests get the ``doc_id`` :data:`NOT_SCORED`, which lmms-eval's scoring loop never asks for (a document
        without requests is skipped there, as in a partial rerun). Documents sharing an identity take the recorded
        answers of that identity in their recorded order."""
        lines = self._identity or {}
        fields: dict[str, tuple[str, ...]] = {}
        index: dict[str, dict[tuple, list[dict]]] = {}
        recorded: dict[str, int] = {}
        taken: dict[tuple[str, int], dict] = {}  # (task, doc_id) -> its line: a document's repeats share one
        answers, used, new = [], {}, {}
        matched: dict[str, set[tuple]] = {}  # the identities that answered a document, per task
        for request in requests:
            _, _, doc_to_visual, doc_id, task, split = request.args
            doc = self.task_dict[task][split][doc_id]
            if task not in fields:  # the document columns the lines name (the task's key)
                fields[task] = tuple(lines[task][0]["identity"]) if lines.get(task) else ()
                index[task] = {}
                for line in lines.get(task, []):
                    row = {**{k: str(v) for k, v in line["identity"].items()}, "doc_id": line.get("doc_id")}
                    index[task].setdefault(rescore.doc_identity(fields[task], row), []).append(line)
                recorded[task] = len(lines.get(task, []))
            key = rescore.doc_identity(fields[task], doc if fields[task] else {"doc_id": doc_id})
            line = taken.get((task, doc_id))
            if line is None and index[task].get(key):
                line = taken[(task, doc_id)] = index[task][key].pop(0)
                used[task] = used.get(task, 0) + 1
                matched.setdefault(task, set()).add(key)
            if line is None:
                new.setdefault(task, {})[doc_id] = "+".join(key)
                request.doc_id = NOT_SCORED
                answers.append("")
                continue
            if "image_missing" in line and callable(doc_to_visual):
                with images.recorded("undecodable in the re-scored run" if line["image_missing"] else None):
                    doc_to_visual(doc)
            text = line["response"] if isinstance(line["response"], str) else ""
            answers.append(counted(text, line.get("token_counts"), request.idx))
        report = {}
        for task in sorted(fields):
            # A recorded answer left over for an identity that answered a document is that document's answer
            # recorded once more (a samples file edited or damaged), not a document gone from the task.
            left = [(k, "+".join(k)) for k, rest in index[task].items() for _ in rest]
            twice = sorted(text for k, text in left if k in matched.get(task, ()))
            gone = sorted(text for k, text in left if k not in matched.get(task, ()))
            added = sorted(new.get(task, {}).values())
            total = max(recorded[task], 1)
            named = "+".join(fields[task]) or "doc_id (by position: the task declares no document key)"
            if (len(gone) + len(twice) + len(added)) / total > rescore.MAX_SHARE:
                repeated = (
                    f"; {len(twice)} document(s) recorded twice (more recorded answers than documents of that "
                    f"identity: {', '.join(twice[:SHOWN])}), the samples file was edited or damaged"
                    if twice
                    else ""
                )
                raise RunStopped(
                    "food-tasks rescore: the run stops before scoring:\n"
                    + fit(
                        f"task {task}: {len(added)} document(s) have no recorded answer (new, or their identity "
                        f"changed: {', '.join(added[:SHOWN]) or '-'}) and {len(gone)} recorded answer(s) match no "
                        f"document (gone: {', '.join(gone[:SHOWN]) or '-'}){repeated}, of {recorded[task]} "
                        f"recorded; identity fields: {named}. More than {rescore.MAX_SHARE:.0%} differs: the task's "
                        "data changed since the run, or its samples file did; re-run the evaluation instead."
                    )
                )
            report[task] = {
                "documents": recorded[task],
                "matched": used.get(task, 0),
                "identity": list(fields[task]) or ["doc_id"],
                "new": added,
                "gone": gone,
                **({"twice": twice} if twice else {}),
            }
        (self._responses.parent / rescore.MATCHING).write_text(json.dumps(report, indent=1), encoding="utf-8")
        return answers

    def generate_until(self, requests: list[Instance]) -> list[str | GenerationResult]:
        """The recorded response of each request's document; every request is looked up before any is answered.

        A document without a line stops the run (:class:`RunStopped`) unless ``default`` was given."""
        if self._identity is not None:
            if self._rescore_of:
                RUN_NOTES[MODEL_ID] = f"food-tasks rescore (no model was run): a re-score of\n  {self._rescore_of}"
            return self._by_identity(requests)
        found: list[str | None] = []
        unmatched: dict[tuple, tuple] = {}  # (task, doc_id) -> key: documents, not requests (repeats, padding)
        docs: dict[str, dict] = {}  # task -> one of its documents: its fields, for the message
        for request in requests:
            _, _, _, doc_id, task, split = request.args
            doc = self.task_dict[task][split][doc_id]
            key = self._key(doc_id, doc)
            answer = self._find(task, key) if _NO_FIELD not in key else None
            if answer is None:
                unmatched[(task, doc_id)] = key
                docs.setdefault(task, doc)
            found.append(answer)
        total = self._all_ranks(len(unmatched))
        self.documents += self._all_ranks(len({(r.args[4], r.args[3]) for r in requests}))
        if total and self._default is None:
            raise RunStopped(
                "food-tasks: replay model error, the run stops before generation:\n"
                + self._unmatched(total, unmatched, docs)
            )
        out = []
        for request, answer in zip(requests, found):
            _, _, doc_to_visual, doc_id, task, split = request.args
            if self._load_images and callable(doc_to_visual):
                doc_to_visual(self.task_dict[task][split][doc_id])  # decoded and dropped, as a model's input
            out.append(self._default if answer is None else answer)
        self.missing += total
        if total:
            logger.warning(
                f"food_tasks_replay: {total} document(s) had no recorded response; answered {self._default!r}"
            )
            keys = "+".join(self._keys)
            RUN_NOTES[MODEL_ID] = fit(
                f"food_tasks_replay: {self.missing} of {self.documents} document(s) had no line in "
                f"{self._responses.name} (keys={keys}); each was answered default={self._default!r} and scored."
                + (
                    f" No document matched: keys={keys} is likely wrong (the file's first line: "
                    f"{_fields(first_line(self._responses))})."
                    if self.missing == self.documents
                    else ""
                )
            )
        return out

    def generate_until_multi_round(self, requests: list[Instance]) -> list[str | GenerationResult]:
        """The recorded responses, as :meth:`generate_until` (a replay has one round)."""
        return self.generate_until(requests)

    def loglikelihood(self, requests: list[Instance]) -> list[tuple[float, bool]]:
        """Not supported: a replay has only generated text; raises NotImplementedError."""
        raise NotImplementedError("food_tasks_replay only replays generated text")
