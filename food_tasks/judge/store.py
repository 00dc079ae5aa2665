"""The judge's disk cache: one JSON file per request, ``<dir>/<key[:2]>/<key>.json``.

- **Written whole or not at all**: an entry is written to ``<key>.json.tmp-<pid>-<thread>`` and renamed into place,
  so a killed process never leaves a damaged entry. What such a kill leaves is the temporary file: one whose process
  is gone (on this host) and that is older than :data:`STALE_AFTER` seconds, or any older than :data:`ABANDONED_AFTER`
  (a process on another host sharing the folder), is removed the first time a process uses its folder.
- **Paid once across processes**: a request is sent under an exclusive lock on ``<key>.lock`` (``fcntl.flock``, waited
  for by polling, so Ctrl-C still stops a waiter), and the cache is read again once the lock is held: two runs sharing
  one cache send each request once, the second reads what the first wrote. The lock file is removed with the lock
  held once its entry is written (a process that takes the lock afterwards finds the entry). Where locks are not
  available (no ``fcntl``, a read-only folder) requests go unlocked, as before.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import math
import os
import re
import threading
import time
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Any

try:
    import fcntl
except ImportError:  # not POSIX: no lock, requests go unlocked
    fcntl = None  # type: ignore[assignment]

STALE_AFTER = 60.0  # seconds: a temporary file of a process that is gone is that old at least before it is removed
ABANDONED_AFTER = 24 * 3600.0  # seconds: a temporary file this old is removed whoever wrote it
_TMP = re.compile(r"\.json\.tmp-(\d+)-\d+$")


def _alive(pid: int) -> bool:
    if pid == os.getpid():
        return True
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except (PermissionError, OSError):
        return True  # someone else's process, or unknown: alive
    return True


class Store:
    """The entries under ``root`` (None: no disk cache); ``warn(message)`` is told once when the folder cannot be
    written."""

    def __init__(self, root: Path | None, warn: Callable[[str], Any]) -> None:
        self.root, self._warn = root, warn
        self._warned = False
        self._swept: set[str] = set()
        self._lock = threading.Lock()

    def path(self, key: str) -> Path | None:
        """The entry file of ``key`` (None without a disk cache)."""
        return None if self.root is None else self.root / key[:2] / f"{key}.json"

    def sweep(self, folder: Path, now: float | None = None) -> int:
        """Remove the stale temporary files of ``folder`` (see the module docstring), once per process; how many."""
        with self._lock:
            if str(folder) in self._swept:
                return 0
            self._swept.add(str(folder))
        now = time.time() if now is None else now
        removed = 0
        try:
            entries = list(os.scandir(folder))
        except OSError:
            return 0
        for entry in entries:
            match = _TMP.search(entry.name)
            if match is None:
                continue
            with contextlib.suppress(OSError):
                age = now - entry.stat(follow_symlinks=False).st_mtime
                if age > ABANDONED_AFTER or (age > STALE_AFTER and not _alive(int(match.group(1)))):
                    os.unlink(entry.path)
                    removed += 1
        return removed

    def get(self, key: str) -> tuple[str, Any] | None:
        """``(text, usage as stored)`` of an entry, else None (a damaged entry is a miss, rewritten later)."""
        path = self.path(key)
        if path is None:
            return None
        self.sweep(path.parent)
        try:
            entry = json.loads(path.read_text(encoding="utf-8"))
            value = entry["response"]
        except (OSError, ValueError, KeyError, TypeError):
            return None
        return (value, entry.get("usage")) if isinstance(value, str) else None

    def put(self, key: str, entry: dict[str, Any]) -> None:
        """Write ``entry`` (JSON) as the entry of ``key``: whole, through a temporary file renamed into place."""
        path = self.path(key)
        if path is None:
            return
        tmp = path.with_name(f"{path.name}.tmp-{os.getpid()}-{threading.get_ident()}")
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            tmp.write_text(json.dumps(entry, ensure_ascii=False), encoding="utf-8")
            os.replace(tmp, path)
        except OSError as err:  # a full or read-only disk: the verdict stands, only the cache entry is lost
            why = f"{type(err).__name__}: {err}"
            self._tell(f"cannot write the cache under {self.root} ({why}); verdicts are not cached.")
        finally:
            with contextlib.suppress(OSError):
                tmp.unlink(missing_ok=True)

    def _tell(self, message: str) -> None:
        if not self._warned:
            self._warned = True
            self._warn(message)

    @contextlib.asynccontextmanager
    async def locked(self, key: str, patience: float = math.inf) -> AsyncIterator[None]:
        """Hold the lock of ``key`` (polled, so a cancelled waiter stops at once); no lock where none can be had, or
        after ``patience`` seconds of waiting (a holder that stopped without dying: the request goes unlocked)."""
        path = self.path(key)
        handle = None
        if path is not None and fcntl is not None:
            try:
                path.parent.mkdir(parents=True, exist_ok=True)
                handle = open(path.with_suffix(".lock"), "a+b")  # noqa: SIM115 - held across awaits
            except OSError:
                handle = None
        try:
            delay, deadline = 0.01, time.monotonic() + patience
            while handle is not None:
                try:
                    fcntl.flock(handle.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
                    break
                except BlockingIOError:
                    if time.monotonic() > deadline:
                        handle.close()
                        handle = None
                        break
                    await asyncio.sleep(delay)
                    delay = min(delay * 2, 0.25)
                except OSError:  # a file system without locks
                    handle.close()
                    handle = None
            yield
        finally:
            if handle is not None:
                with contextlib.suppress(OSError):
                    if path is not None and path.is_file():  # written: nobody needs the lock file any more
                        os.unlink(path.with_suffix(".lock"))
                handle.close()  # releases the lock
