"""Images for the model: strict decoding, and the one rule for an image that cannot be decoded.

**The rule.** An image that cannot be decoded never ends a run. The hook that hands images to the model
(``doc_to_visual`` / ``doc_to_messages``) leaves it out and records the failure here, under the image's
key; ``process_results`` of the same document asks :func:`missing` and the document is counted in the
task's ``image_missing`` metric, left out of every robust denominator, and scored by each benchmark's
``_official`` metrics as its official code would have scored it (its README says how).

**Where the check happens.** When the model asks for the image, not before generation: the decode the
model needs is the check (decoding a 12 MP JPEG takes about 180 ms; checking every image of a run up
front would decode each twice). Cheap checks (the file exists) still run before generation where the
benchmarks did them. An image that failed once in a process is not decoded again: its other documents
skip it at once.

**Process boundaries.** lmms-eval calls ``doc_to_visual`` / ``doc_to_messages`` and, after generation,
``process_results`` for a document in the same process (each rank generates and scores its own share
of the documents; a tensor-parallel group gathers the built messages, not the hooks' state), so the
record made at generation time is there at scoring time. When the model never asked for the image
(``food_tasks_replay``, answers from lmms-eval's response cache), :func:`missing` falls back to a
cheap check that the caller supplies (a header read, :func:`probe_file`; no decoding, so a body cut
after an intact header passes it).

**Strict decoding without a lock.** lmms-eval sets Pillow's process-wide ``LOAD_TRUNCATED_IMAGES``
(``lmms_eval/api/task.py``), which turns a truncated body into a silently grey-filled image. Pillow's
decoders only ever read past the end of the data when the data is cut short (they stop at the format's
end marker), so :func:`decode` watches for that read instead of switching the process-wide flag: no
lock serialises the decoding threads of lmms-eval's message builders, and other code's decoding is left
as lmms-eval configured it.
"""

from __future__ import annotations

import contextlib
import io
import os
import threading
from collections.abc import Callable, Iterable, Iterator
from typing import TYPE_CHECKING

from loguru import logger

from food_tasks.errors import CorruptImageError

if TYPE_CHECKING:  # pragma: no cover
    from PIL import Image as PILImage

WARN_LIMIT = 20  # undecodable images named in the log per process; later ones are only counted


class _Watched(io.BytesIO):
    """In-memory image bytes that remember whether a reader asked for data past their end."""

    ran_out = False

    def read(self, size: int | None = -1) -> bytes:  # type: ignore[override]
        """``BytesIO.read``, noting a read past the end (the image was truncated)."""
        data = super().read(size)
        if not data and size != 0:
            self.ran_out = True
        return data


def decode(data: bytes, what: str) -> PILImage.Image:
    """Fully decode image bytes, refusing truncated data whatever ``LOAD_TRUNCATED_IMAGES`` says.

    Args:
        data: the encoded image (any format Pillow reads).
        what: the image named for messages (a path, a URL, a row).

    Returns:
        The loaded image in its stored mode (not converted).

    Raises:
        CorruptImageError: the bytes are not an image Pillow can decode, or are cut short.
    """
    from PIL import Image

    source = _Watched(data)
    try:
        image = Image.open(source)
        source.ran_out = False  # identifying the format may probe past the end of a small file
        image.load()
    except Exception as err:  # noqa: BLE001 - any decoder error means "cannot be decoded"
        raise _corrupt(what, str(err).split(" <")[0] or type(err).__name__) from err
    if source.ran_out:
        raise _corrupt(what, "truncated: the data ends before the image does")
    return image


def _corrupt(what: str, reason: str) -> CorruptImageError:
    err = CorruptImageError(f"{what}: cannot decode the image ({reason})")
    err.reason = reason  # type: ignore[attr-defined]
    return err


def decode_file(path: str | os.PathLike, what: str | None = None) -> PILImage.Image:
    """:func:`decode` of a file's bytes (read in one call; an unreadable file is a :class:`CorruptImageError` too)."""
    try:
        with open(path, "rb") as fh:
            data = fh.read()
    except OSError as err:
        raise _corrupt(str(what or path), f"unreadable file: {err}") from err
    return decode(data, what or str(path))


def rgb(image: PILImage.Image) -> PILImage.Image:
    """``image`` as RGB; an RGB image is returned as is (``convert`` would copy its pixels)."""
    return image if image.mode == "RGB" else image.convert("RGB")


def probe_file(path: str | os.PathLike) -> str | None:
    """Why the image file at ``path`` cannot be used, or None when it exists and its header parses.

    Reads the header only (well under a millisecond); a body cut after an intact header passes.
    """
    from PIL import Image

    try:
        with Image.open(path):
            return None
    except Exception as err:  # noqa: BLE001
        return f"{path}: {type(err).__name__}: {err}"


# --------------------------------------------------------------------------- the per-process record

_UNTRIED = object()
_status: dict[str, str | None] = {}  # image key -> None (decoded) or why it could not be decoded
_lock = threading.Lock()
_warned = 0
_forced: list[str | None] = []  # images.recorded(): the status each load records instead of decoding


def _record(key: str, reason: str | None, label: str) -> None:
    global _warned
    with _lock:
        if _status.get(key, _UNTRIED) is not _UNTRIED and _status[key] is not None:
            return  # a failure is final for the process: a later success (a flaky read) does not undo it
        _status[key] = reason
        if reason is None:
            return
        _warned += 1
        count = _warned
    if count <= WARN_LIMIT:
        logger.warning(
            f"{label}: an image cannot be used; the model gets its documents without it and they are counted "
            f"in image_missing (docs/failure_accounting.md): {reason}"
        )
    if count == WARN_LIMIT:
        logger.warning(
            f"{label}: {WARN_LIMIT} undecodable images named above; further ones are counted in image_missing only"
        )


def load(key: str, loader: Callable[[], PILImage.Image], label: str) -> PILImage.Image | None:
    """``loader()``, or None when it fails (the failure is recorded under ``key`` and logged once).

    An image whose key failed before in this process is not loaded again. ``label`` names the benchmark
    in the log.
    """
    if _status.get(key, _UNTRIED) not in (_UNTRIED, None):
        return None
    if _forced:  # a re-score: the status the source run recorded, nothing decoded
        _record(key, _forced[-1], label)
        return None
    try:
        image = loader()
    except Exception as err:  # noqa: BLE001 - no image, however it failed, must end the run
        _record(key, str(err) or type(err).__name__, label)
        return None
    _record(key, None, label)
    return image


@contextlib.contextmanager
def recorded(reason: str | None) -> Iterator[None]:
    """Within it, :func:`load` records ``reason`` (None: decoded) for each key and decodes nothing: a re-score
    (``food-tasks rescore``) keeps each document's image status as its source run recorded it."""
    _forced.append(reason)
    try:
        yield
    finally:
        _forced.pop()


def failure(key: str) -> str | None:
    """Why the image of ``key`` could not be decoded in this process, or None (decoded, or never asked for)."""
    value = _status.get(key)
    return value if isinstance(value, str) else None


def missing(keys: Iterable[str], probe: Callable[[str], str | None], label: str = "food-tasks") -> bool:
    """True when any of ``keys`` could not be provided to the model.

    Keys the model asked for in this process are answered from the record; the others by
    ``probe(key)`` (a reason, or None when usable), run once per key and recorded.
    """
    result = False
    for key in keys:
        state = _status.get(key, _UNTRIED)
        if state is _UNTRIED:
            try:
                reason = probe(key)
            except Exception as err:  # noqa: BLE001
                reason = str(err) or type(err).__name__
            _record(key, reason, label)
            state = _status.get(key)
        result = result or state is not None
    return result


def reset() -> None:
    """Forget every record (tests)."""
    global _warned
    with _lock:
        _status.clear()
        _warned = 0
