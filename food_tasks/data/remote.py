"""Files from GitHub repositories and images from third-party URLs, cached on disk.

Two kinds of remote data are read here, both with the same overrides as :mod:`food_tasks.data.hub`:

* :func:`github_file` returns one file of a GitHub repository at a fixed commit. With a mirror
  (``$FOOD_TASKS_DATA_DIR``) it is read from ``<mirror>/github/<owner>/<name>/<path>`` and the
  network is never used; otherwise it is downloaded once from ``raw.githubusercontent.com`` into
  ``<cache>/github/<owner>/<name>/<commit>/<path>``.
* :class:`UrlImageStore` fetches images that benchmarks reference by URL. Lookups go mirror
  (``<mirror>/urls/<local_relpath(url)>``), then cache (``<cache>/urls/<local_relpath(url)>``),
  then network. Failures never raise: they return None and record a reason.

The cache root is ``$FOOD_TASKS_CACHE_DIR``, else ``$XDG_CACHE_HOME/food_tasks`` (default
``~/.cache/food_tasks``). ``FOOD_TASKS_OFFLINE``, ``HF_HUB_OFFLINE`` or ``HF_DATASETS_OFFLINE`` set
to 1/true/yes turn the network off. Writes take a file lock and replace the target atomically,
so several ranks started at once share one cache safely.
"""

from __future__ import annotations

import functools
import hashlib
import os
import threading
import time
from collections import OrderedDict, defaultdict
from collections.abc import Callable, Iterable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import TYPE_CHECKING, Any
from urllib.parse import unquote, urlsplit

import requests
from filelock import FileLock

from food_tasks.data.hub import DATA_DIR_ENV, DataAccessError, mirror_root

if TYPE_CHECKING:  # pragma: no cover
    from PIL import Image as PILImage

CACHE_DIR_ENV = "FOOD_TASKS_CACHE_DIR"
OFFLINE_ENVS = ("FOOD_TASKS_OFFLINE", "HF_HUB_OFFLINE", "HF_DATASETS_OFFLINE")
LFS_POINTER = b"version https://git-lfs.github.com/spec/"
GITHUB_MEDIA = "https://media.githubusercontent.com/media"  # serves the content of Git LFS files
GITHUB_RAW = "https://raw.githubusercontent.com"
GITHUB_TIMEOUT = (10, 60)  # (connect, read) seconds
GITHUB_ATTEMPTS = 4
USER_AGENT = (
    "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0 Safari/537.36 food-tasks/0.1"
)
_RETRYABLE = (requests.ConnectionError, requests.Timeout, requests.exceptions.ChunkedEncodingError)
_sleep = time.sleep  # github_file's back-off; tests replace it


def cache_root() -> Path:
    """Return ``$FOOD_TASKS_CACHE_DIR``, else ``$XDG_CACHE_HOME/food_tasks`` (default ``~/.cache``)."""
    value = os.environ.get(CACHE_DIR_ENV, "").strip()
    if value:
        return Path(value).expanduser()
    xdg = os.environ.get("XDG_CACHE_HOME", "").strip()
    return (Path(xdg).expanduser() if xdg else Path.home() / ".cache") / "food_tasks"


def offline() -> bool:
    """True when any of ``FOOD_TASKS_OFFLINE``, ``HF_HUB_OFFLINE``, ``HF_DATASETS_OFFLINE`` is 1/true/yes."""
    return any(os.environ.get(name, "").strip().lower() in {"1", "true", "yes"} for name in OFFLINE_ENVS)


def _checked_parts(value: str, what: str, count: int | None = None) -> list[str]:
    """Split ``value`` on "/" and refuse components that could leave a directory."""
    parts = value.split("/")
    if any(p in {"", ".", ".."} or "\\" in p for p in parts) or (count is not None and len(parts) != count):
        raise ValueError(f"invalid {what} {value!r}")
    return parts


def _replace_write(dest: Path, data: bytes) -> None:
    """Write ``data`` to ``<dest>.tmp-<pid>-<thread>``, then ``os.replace`` it onto ``dest``."""
    tmp = dest.with_name(f"{dest.name}.tmp-{os.getpid()}-{threading.get_ident()}")
    try:
        tmp.write_bytes(data)
        os.replace(tmp, dest)
    finally:
        tmp.unlink(missing_ok=True)


def _atomic_write(dest: Path, data: bytes) -> None:
    """:func:`_replace_write` under ``FileLock(<dest>.lock)``, unless another process wrote ``dest`` first."""
    dest.parent.mkdir(parents=True, exist_ok=True)
    with FileLock(f"{dest}.lock"):
        if not dest.is_file():
            _replace_write(dest, data)


def _http_get(
    session: Any,
    url: str,
    *,
    attempts: int,
    first_delay: float,
    sleep: Callable[[float], Any],
    max_bytes: int | None = None,
    **kwargs: Any,
) -> tuple[bytes | None, int, str]:
    """GET ``url``, retrying timeouts, connection errors, 5xx and 429 with exponential back-off.

    Returns:
        ``(body, status, "")`` on success, else ``(None, last status or 0, short reason)``.
    """
    last, status = "", 0
    too_large = f"too large (> {max_bytes} bytes)"
    for attempt in range(attempts):
        if attempt:
            sleep(first_delay * 2 ** (attempt - 1))
        try:
            resp = session.get(url, stream=True, **kwargs)
            try:
                status = resp.status_code
                if status == 429 or status >= 500:
                    last = f"http {status}"
                    continue
                if status >= 400:
                    return None, status, f"http {status}"
                length = str(resp.headers.get("Content-Length", ""))
                if max_bytes is not None and length.isdigit() and int(length) > max_bytes:
                    return None, status, too_large
                body = bytearray()
                for chunk in resp.iter_content(chunk_size=1 << 16):
                    body += chunk
                    if max_bytes is not None and len(body) > max_bytes:
                        return None, status, too_large
            finally:
                resp.close()
        except requests.Timeout:
            last = "timeout"
            continue
        except _RETRYABLE as exc:
            last = f"connection error ({type(exc).__name__})"
            continue
        except requests.RequestException as exc:
            return None, 0, f"request failed: {type(exc).__name__}: {exc}"
        return bytes(body), status, ""
    return None, status, f"{last} after {attempts} attempts"


PROBE_TIMEOUT = 3.0  # seconds for the one request that tells whether a host answers at all


@functools.lru_cache(maxsize=16)
def _probe(origin: str, timeout: float) -> str | None:
    try:
        requests.head(origin, timeout=timeout, allow_redirects=False)
    except requests.RequestException as exc:
        cause: BaseException = exc
        while cause.__context__ is not None and cause.__context__ is not cause:  # the resolver's own words
            cause = cause.__context__
        return f"{type(exc).__name__}: {cause}"
    return None


def unreachable(url: str, timeout: float = PROBE_TIMEOUT) -> str | None:
    """Why the host of ``url`` cannot be reached (one request, no retry), or None when it answers at all.

    Any HTTP answer counts as reachable (a 404 or 401 is for the download to explain). The answer is kept per
    host for the process, so a prefetch of many files asks once. Called only where a download would follow:
    offline, a download fails in seconds with the clear message first instead of after minutes of retries.
    """
    parts = urlsplit(url)
    return _probe(f"{parts.scheme}://{parts.netloc}/", timeout)


def _github_get(session: Any, url: str) -> tuple[bytes | None, int, str]:
    """``_http_get`` with the GitHub retry policy, on ``session`` or a short-lived one."""
    own = requests.Session() if session is None else None
    try:
        return _http_get(
            session if session is not None else own,
            url,
            attempts=GITHUB_ATTEMPTS,
            first_delay=1,
            sleep=_sleep,
            timeout=GITHUB_TIMEOUT,
        )
    finally:
        if own is not None:
            own.close()


def github_file(repo: str, commit: str, path: str, *, root: Path | None = None, session: Any = None) -> Path:
    """Return a local path to file ``path`` of GitHub repository ``repo`` at ``commit``.

    Args:
        repo: ``owner/name``.
        commit: commit hash (or tag) the file is pinned to.
        path: file path inside the repository, "/"-separated.
        root: mirror root; defaults to :func:`food_tasks.data.hub.mirror_root`.
        session: requests-like object with ``get(url, timeout=, stream=)``; default ``requests.Session()``.

    Raises:
        DataAccessError: the mirror lacks the file, the network is off and the file is not cached,
            or the download failed; the message says how to provide the file.
        ValueError: ``repo``, ``commit`` or ``path`` contains empty, "." or ".." components.
    """
    owner_name, rel = _checked_parts(repo, "repo", 2), _checked_parts(path, "path")
    _checked_parts(commit, "commit", 1)
    root = root if root is not None else mirror_root()
    if root is not None:
        local = Path(root, "github", *owner_name, *rel)
        if local.is_file():
            return local
        repo_dir = Path(root, "github", *owner_name)
        raise DataAccessError(
            f"{repo}@{commit}: {path}: the mirror root {root} is set, but {local} is not a file. Copy the "
            f"repository there with its own relative paths, e.g. `git clone https://github.com/{repo} {repo_dir} "
            f"&& git -C {repo_dir} checkout {commit}`, or unset {DATA_DIR_ENV} to download it from GitHub."
        )
    dest = cache_root().joinpath("github", *owner_name, commit, *rel)
    if dest.is_file():
        return dest
    url = f"{GITHUB_RAW}/{repo}/{commit}/{path}"
    mirror_hint = (
        f"copy the repository to <dir>/github/{repo} with its own relative paths (checked out at "
        f"{commit}) and set {DATA_DIR_ENV}=<dir>"
    )
    if offline():
        raise DataAccessError(
            f"{url} is needed but the network is off ({'/'.join(OFFLINE_ENVS)}) and it is not "
            f"cached at {dest}. Go online once, or {mirror_hint}."
        )
    dest.parent.mkdir(parents=True, exist_ok=True)
    with FileLock(f"{dest}.lock"):
        if dest.is_file():  # another rank finished while we waited
            return dest
        reason = unreachable(url) if session is None else None
        if reason is not None:
            raise DataAccessError(
                f"{url}: cannot reach {urlsplit(url).netloc} ({reason}). Check the network, or {mirror_hint}."
            )
        body, status, reason = _github_get(session, url)
        if body is None and 400 <= status < 500 and status != 429:
            raise DataAccessError(
                f"{url} returned HTTP {status}: the file is not in the repository at that commit. The repository "
                f"may have moved (the anonymous review repository will be de-anonymised); to provide a mirror, "
                f"{mirror_hint}."
            )
        if body is not None and body.startswith(LFS_POINTER):  # raw.githubusercontent serves LFS pointers as is
            url = f"{GITHUB_MEDIA}/{repo}/{commit}/{path}"
            body, status, reason = _github_get(session, url)
        if body is None:
            raise DataAccessError(f"{url}: download failed ({reason}); retry later, or {mirror_hint}.")
        _replace_write(dest, body)
    return dest


def _safe_component(part: str) -> str:
    part = part.replace("\x00", "").replace("/", "%2F").replace("\\", "%5C")
    part = {"": "_", ".": "_.", "..": "_.."}.get(part, part)
    if len(part.encode()) > 200:  # stay under common file-name limits
        part = part[:80] + "__h" + hashlib.sha256(part.encode()).hexdigest()[:12]
    return part


def local_relpath(url: str) -> str:
    """Return the mirror/cache path of ``url``, relative to the store's directory.

    ``<host>/<percent-decoded path>``; a query string adds ``__q<12 hex of sha256(query)>`` to the last
    component; an empty path or one ending in "/" ends in ``index``; empty, "." and ".." components
    are replaced so that the result never leaves the directory.
    """
    parts = urlsplit(url)
    host = parts.hostname or ""
    if parts.port is not None:
        host = f"{host}_{parts.port}"
    comps = parts.path.split("/")[1:] if parts.path.startswith("/") else parts.path.split("/")
    if not parts.path or parts.path.endswith("/"):
        comps = [*comps[:-1], "index"]
    comps = [unquote(c) for c in comps]
    if parts.query:
        comps[-1] += "__q" + hashlib.sha256(parts.query.encode()).hexdigest()[:12]
    return "/".join(_safe_component(c) for c in [host, *comps])


def _decode(data: bytes) -> tuple[PILImage.Image | None, str | None]:
    """Fully decode ``data``; return (image, None) or (None, reason). A truncated download fails even under
    lmms-eval's lenient Pillow setting (:func:`food_tasks.data.images.decode`)."""
    from food_tasks.data.images import decode
    from food_tasks.errors import CorruptImageError

    try:
        return decode(data, "image"), None
    except CorruptImageError as exc:
        return None, getattr(exc, "reason", str(exc))


def _to_rgb(img: PILImage.Image) -> PILImage.Image:
    """Convert to RGB; transparent pixels become white rather than black."""
    from PIL import Image

    if img.mode == "RGB":
        return img
    if img.mode in {"RGBA", "LA", "PA"} or "transparency" in img.info:
        rgba = img.convert("RGBA")
        out = Image.new("RGB", rgba.size, (255, 255, 255))
        out.paste(rgba, mask=rgba.getchannel("A"))
        return out
    return img.convert("RGB")


class UrlImageStore:
    """Fetch-and-cache of third-party images, safe under concurrent threads and processes.

    Args:
        cache_dir: download cache; default ``cache_root() / "urls"``.
        mirror: read-only mirror; default ``mirror_root() / "urls"`` when a mirror root is set.
        timeout: seconds per request.
        retries: extra attempts after a timeout, connection error, 5xx or 429.
        max_bytes: larger bodies are refused.
        allow_network: default ``not offline()``.
        session: requests-like object with ``get(url, timeout=, stream=, headers=)``.

    Attributes:
        failures: URL -> short reason for each URL that could not be provided.
    """

    MAX_DECODED = (
        64  # decoded images kept in memory (for documents that share them, such as two prompts of one question)
    )
    MAX_DECODED_BYTES = 256 * 1024 * 1024  # and at most this many bytes of pixels, whatever the images' size

    def __init__(
        self,
        *,
        cache_dir: Path | None = None,
        mirror: Path | None = None,
        timeout: float = 20.0,
        retries: int = 3,
        max_bytes: int = 10 * 1024 * 1024,
        allow_network: bool | None = None,
        session: Any = None,
    ) -> None:
        self.cache_dir = Path(cache_dir) if cache_dir is not None else cache_root() / "urls"
        root = mirror_root() if mirror is None else None
        self.mirror = Path(mirror) if mirror is not None else (root / "urls" if root is not None else None)
        self.timeout, self.retries, self.max_bytes = timeout, retries, max_bytes
        self.allow_network = (not offline()) if allow_network is None else allow_network
        self.failures: dict[str, str] = {}
        self._session = session
        self._sleep = time.sleep
        self._lock = threading.Lock()
        self._url_locks: defaultdict[str, threading.Lock] = defaultdict(threading.Lock)
        self._paths: dict[str, Path] = {}  # URL -> verified local file
        self._images: OrderedDict[str, PILImage.Image] = OrderedDict()
        self._image_bytes = 0

    def get_bytes(self, url: str) -> bytes | None:
        """Return the verified image bytes of ``url``, or None (reason in ``failures[url]``)."""
        return self._load(url)[0]

    def available(self, url: str) -> bool:
        """Whether ``url`` can be provided (cheap after the first check: no re-read, no decode)."""
        with self._lock:
            if url in self._paths:
                return True
        return self._load(url)[0] is not None

    def get(self, url: str) -> PILImage.Image | None:
        """Return ``url`` as an RGB image, or None (reason in ``failures[url]``)."""
        with self._lock:
            if url in self._images:
                self._images.move_to_end(url)
                return self._images[url].copy()
        data, img = self._load(url)
        if data is None:
            return None
        if img is None:
            img, reason = _decode(data)
            if img is None:
                return self._fail(url, f"not an image: {reason}")[0]
        try:
            rgb = _to_rgb(img)
        except Exception as exc:  # noqa: BLE001 - an image mode Pillow cannot convert: no image, never a crash
            return self._fail(url, f"not an RGB-convertible image: {exc}")[0]
        size = rgb.width * rgb.height * 3
        with self._lock:
            if url not in self._images:
                self._images[url] = rgb
                self._image_bytes += size
            while self._images and (len(self._images) > self.MAX_DECODED or self._image_bytes > self.MAX_DECODED_BYTES):
                _, old = self._images.popitem(last=False)
                self._image_bytes -= old.width * old.height * 3
        return rgb.copy()

    def prefetch(self, urls: Iterable[str], workers: int = 16) -> dict:
        """Make ``urls`` available locally; return ``{"total", "available", "missing": {url: reason}}``."""
        unique = list(dict.fromkeys(urls))
        with ThreadPoolExecutor(max_workers=max(1, workers)) as pool:
            found = list(pool.map(lambda u: self._load(u)[0] is not None, unique))
        missing = {u: self.failures.get(u, "unknown") for u, ok in zip(unique, found) if not ok}
        return {"total": len(unique), "available": sum(found), "missing": missing}

    def _fail(self, url: str, reason: str) -> tuple[None, None]:
        self.failures[url] = reason
        return None, None

    def _load(self, url: str) -> tuple[bytes | None, PILImage.Image | None]:
        """Resolve ``url`` (mirror -> cache -> network) once per instance; never raises."""
        with self._lock:
            url_lock = self._url_locks[url]
        with url_lock:
            if url in self.failures:
                return None, None
            if url in self._paths:
                try:
                    return self._paths[url].read_bytes(), None
                except OSError:
                    del self._paths[url]
            try:
                rel = local_relpath(url)
            except ValueError as exc:  # e.g. a malformed port or IPv6 host
                return self._fail(url, f"invalid url: {exc}")
            candidates = [(self.mirror / rel, False)] if self.mirror is not None else []
            for path, refetchable in [*candidates, (self.cache_dir / rel, self.allow_network)]:
                try:
                    if not path.is_file():
                        continue
                    data = path.read_bytes()
                except OSError:
                    continue
                img, _ = _decode(data)
                if img is not None:
                    self._paths[url] = path
                    return data, img
                if not refetchable:
                    return self._fail(url, f"corrupt cached file {path}")
                path.unlink(missing_ok=True)  # corrupt cache entry: fetch it again
            if not self.allow_network:
                return self._fail(url, "offline: not in cache or mirror")
            data, img, reason = self._download(url)
            if data is None:
                return self._fail(url, reason)
            try:
                _atomic_write(self.cache_dir / rel, data)
                self._paths[url] = self.cache_dir / rel
            except OSError:
                pass  # unwritable cache: still serve the bytes
            return data, img

    def _get_session(self) -> Any:
        with self._lock:
            if self._session is None:
                self._session = requests.Session()
                adapter = requests.adapters.HTTPAdapter(pool_connections=16, pool_maxsize=32)
                self._session.mount("https://", adapter)
                self._session.mount("http://", adapter)
            return self._session

    def _download(self, url: str) -> tuple[bytes | None, PILImage.Image | None, str]:
        """Fetch ``url``; return ``(data, image, "")`` or ``(None, None, reason)``."""
        headers = {"User-Agent": USER_AGENT, "Accept": "image/avif,image/webp,image/*,*/*;q=0.8"}
        body, _, reason = _http_get(
            self._get_session(),
            url,
            attempts=self.retries + 1,
            first_delay=0.5,
            sleep=self._sleep,
            max_bytes=self.max_bytes,
            timeout=self.timeout,
            headers=headers,
        )
        if body is None:
            return None, None, reason
        img, error = _decode(body)
        return (body, img, "") if img is not None else (None, None, f"not an image: {error}")


@functools.cache
def default_image_store() -> UrlImageStore:
    """The process-wide :class:`UrlImageStore`, configured from the environment on first use."""
    return UrlImageStore()
