"""Predictions files (JSON Lines, one answer per document) as the ``food_tasks_replay`` model reads them
(:mod:`food_tasks.replay_model`), and a benchmark's official re-scoring with it: :func:`load_responses`."""

from __future__ import annotations

import json
import math
import shlex
from pathlib import Path

from food_tasks.regional_tasks.config import fit

JSONL_HELP = (
    'responses= takes a JSON Lines file: one JSON object per line, such as {"doc_id": 0, "response": "2"} '
    "(the document fields named by keys=, and the answer under 'response' or 'prediction')"
)


def bad_file(path: Path, message: str) -> ValueError:
    """The error naming a predictions file (on a line of its own), what is wrong, and what the file must hold, in
    lines of at most 120 columns."""
    return ValueError(fit(f"food_tasks_replay: responses file\n  {path}\n  {message}.\n  {JSONL_HELP}."))


def load_responses(responses: str | Path, keys: tuple[str, ...]) -> dict[tuple, str]:
    """Read a predictions file into ``{(task or None, key values): answer text}``.

    Raises:
        FileNotFoundError: the file does not exist.
        ValueError: the file is a JSON array, or a line is not valid JSON, not an object, or lacks the
            answer or a key field; the message names the file and the line number (1-based, in the file).
    """
    path = Path(responses)
    if not path.is_file():
        raise FileNotFoundError(fit(f"food_tasks_replay: responses file {path} does not exist.\n  {JSONL_HELP}."))
    answers: dict[tuple, str] = {}
    first_line: dict[tuple, int] = {}
    seen_content = False
    with path.open("rb") as fh:  # bytes, decoded line by line: a decoding error gets its exact line number
        for number, raw in enumerate(fh, start=1):
            try:
                line = raw.decode("utf-8-sig" if number == 1 else "utf-8")
            except UnicodeDecodeError as err:
                raise bad_file(
                    path, f"line {number} is not UTF-8 text ({err.reason} at byte {err.start + 1} of the line)"
                ) from None
            stripped = line.strip()
            if not stripped:
                continue
            if not seen_content and stripped.startswith("["):
                raise bad_file(
                    path,
                    "is a JSON array, not JSON Lines; convert it with "
                    'python -c "import json,sys; [print(json.dumps(r, ensure_ascii=False)) for r in '
                    'json.load(open(sys.argv[1]))]" '
                    f"{shlex.quote(str(path))} > {shlex.quote(str(path.with_suffix('.jsonl')))}",
                )
            seen_content = True
            try:
                row = json.loads(stripped)
            except ValueError as err:
                raise bad_file(
                    path,
                    f"line {number} is not valid JSON ({getattr(err, 'msg', err)}, column "
                    f"{getattr(err, 'colno', '?')})",
                ) from None
            if not isinstance(row, dict):
                raise bad_file(path, f"line {number} is a JSON {type(row).__name__}, not an object")
            if "response" not in row and "prediction" not in row:
                raise bad_file(path, f"line {number} has no 'response' (or 'prediction') field")
            missing_keys = [k for k in keys if k not in row]
            if missing_keys:
                raise bad_file(
                    path, f"line {number} lacks {', '.join(map(repr, missing_keys))}, named by keys={'+'.join(keys)}"
                )
            text = row["response"] if "response" in row else row["prediction"]
            # null or NaN (pandas writes missing outputs as NaN) is no answer, not the text "nan".
            missing = text is None or (isinstance(text, float) and math.isnan(text))
            key = (row.get("task"), tuple(str(row[k]) for k in keys))
            answer = "" if missing else str(text)
            if key in answers and answers[key] != answer:
                named = ", ".join(f"{k}={v!r}" for k, v in zip(keys, key[1])) + (f", task={key[0]!r}" if key[0] else "")
                raise bad_file(
                    path,
                    f"line {number} repeats the key of line {first_line[key]} ({named}) with a different answer: "
                    f"keys={'+'.join(keys)} does not identify one document; name more fields in keys= "
                    f"(for example keys=qa_id+lang) or add a 'task' field",
                )
            answers[key] = answer
            first_line.setdefault(key, number)
    return answers
