"""Tests of food_tasks.data.remote with a fake HTTP session: nothing here touches the network."""

from __future__ import annotations

import hashlib
import io
import threading
import time
from pathlib import Path

import pytest
import requests
from PIL import Image

from food_tasks.data import remote
from food_tasks.data.hub import DataAccessError

REPO, COMMIT, PATH = "anon-review/food-bench", "0123abcd", "data/items.json"


def image_bytes(fmt: str = "PNG", mode: str = "RGB", color=(200, 120, 40), size: int = 16) -> bytes:
    buf = io.BytesIO()
    if mode == "P":
        Image.new("RGB", (size, size), color).convert("P").save(buf, fmt)
    else:
        Image.new(mode, (size, size), color).save(buf, fmt)
    return buf.getvalue()


class FakeResponse:
    def __init__(self, status: int = 200, body: bytes = b"", headers: dict | None = None):
        self.status_code, self.body, self.headers = status, body, headers or {}

    def iter_content(self, chunk_size: int = 1):
        for i in range(0, len(self.body), chunk_size):
            yield self.body[i : i + chunk_size]

    def close(self) -> None:
        pass


class FakeSession:
    """Per URL, a list of outcomes (a FakeResponse or an exception); the last one repeats."""

    def __init__(self, routes: dict | None = None, delay: float = 0.0):
        self.routes = {url: list(v) if isinstance(v, list) else [v] for url, v in (routes or {}).items()}
        self.calls: list[str] = []
        self.kwargs: list[dict] = []
        self.delay = delay
        self._lock = threading.Lock()

    def get(self, url: str, **kwargs):
        with self._lock:
            self.calls.append(url)
            self.kwargs.append(kwargs)
            outcomes = self.routes.get(url, [FakeResponse(404)])
            outcome = outcomes.pop(0) if len(outcomes) > 1 else outcomes[0]
        time.sleep(self.delay)
        if isinstance(outcome, BaseException):
            raise outcome
        return outcome


@pytest.fixture
def online(monkeypatch, tmp_path):
    for name in remote.OFFLINE_ENVS:
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("FOOD_TASKS_CACHE_DIR", str(tmp_path / "cache"))
    sleeps: list[float] = []
    monkeypatch.setattr(remote, "_sleep", sleeps.append)
    return sleeps


def raw_url(path: str = PATH) -> str:
    return f"https://raw.githubusercontent.com/{REPO}/{COMMIT}/{path}"


# ---------------------------------------------------------------- environment


def test_cache_root_and_offline(monkeypatch, tmp_path):
    monkeypatch.delenv("FOOD_TASKS_CACHE_DIR", raising=False)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    assert remote.cache_root() == tmp_path / "xdg" / "food_tasks"
    monkeypatch.setenv("FOOD_TASKS_CACHE_DIR", str(tmp_path / "mine"))
    assert remote.cache_root() == tmp_path / "mine"
    for name in remote.OFFLINE_ENVS:
        monkeypatch.delenv(name, raising=False)
    assert not remote.offline()
    for value, expected in (("TRUE", True), ("yes", True), ("1", True), ("0", False), ("", False)):
        monkeypatch.setenv("FOOD_TASKS_OFFLINE", value)
        assert remote.offline() is expected


# ---------------------------------------------------------------- github_file


def test_github_mirror_hit_uses_no_network(monkeypatch, tmp_path):
    local = tmp_path / "mirror" / "github" / REPO / PATH
    local.parent.mkdir(parents=True)
    local.write_text("[]")
    monkeypatch.setenv("FOOD_TASKS_DATA_DIR", str(tmp_path / "mirror"))
    session = FakeSession()
    assert remote.github_file(REPO, COMMIT, PATH, session=session) == local
    assert remote.github_file(REPO, COMMIT, PATH, root=tmp_path / "mirror", session=session) == local
    assert session.calls == []


def test_github_mirror_miss_names_the_path(online, tmp_path):
    session = FakeSession({raw_url(): FakeResponse(200, b"[]")})
    with pytest.raises(DataAccessError) as err:
        remote.github_file(REPO, COMMIT, PATH, root=tmp_path / "m", session=session)
    message = str(err.value)
    assert str(tmp_path / "m" / "github" / REPO / PATH) in message
    assert "git clone https://github.com/" in message and COMMIT in message and "FOOD_TASKS_DATA_DIR" in message
    assert session.calls == []


def test_github_cache_hit(online, tmp_path):
    cached = tmp_path / "cache" / "github" / REPO / COMMIT / PATH
    cached.parent.mkdir(parents=True)
    cached.write_text("cached")
    session = FakeSession()
    assert remote.github_file(REPO, COMMIT, PATH, session=session) == cached
    assert session.calls == []


def test_github_offline_miss(monkeypatch, tmp_path):
    monkeypatch.setenv("FOOD_TASKS_CACHE_DIR", str(tmp_path / "cache"))
    session = FakeSession()
    with pytest.raises(DataAccessError) as err:  # conftest sets HF_HUB_OFFLINE=1
        remote.github_file(REPO, COMMIT, PATH, session=session)
    assert raw_url() in str(err.value) and str(tmp_path / "cache") in str(err.value)
    assert "FOOD_TASKS_DATA_DIR" in str(err.value) and session.calls == []


def test_github_download_is_atomic_and_cached(online, tmp_path):
    session = FakeSession({raw_url(): FakeResponse(200, b'{"a": 1}' * 10000)})
    path = remote.github_file(REPO, COMMIT, PATH, session=session)
    assert path == tmp_path / "cache" / "github" / REPO / COMMIT / PATH
    assert path.read_bytes() == b'{"a": 1}' * 10000
    assert sorted(p.name for p in path.parent.iterdir()) == ["items.json", "items.json.lock"]  # no tmp file left
    assert session.kwargs[0]["timeout"] == (10, 60) and session.kwargs[0]["stream"] is True
    assert remote.github_file(REPO, COMMIT, PATH, session=session) == path
    assert session.calls == [raw_url()]


def test_github_lfs_pointer_is_resolved_through_the_media_host(online, tmp_path):
    pointer = b"version https://git-lfs.github.com/spec/v1\noid sha256:abc\nsize 12\n"
    media = f"https://media.githubusercontent.com/media/{REPO}/{COMMIT}/{PATH}"
    session = FakeSession({raw_url(): FakeResponse(200, pointer), media: FakeResponse(200, b'[{"row": 1}]')})
    path = remote.github_file(REPO, COMMIT, PATH, session=session)
    assert path.read_bytes() == b'[{"row": 1}]' and session.calls == [raw_url(), media]


@pytest.mark.parametrize("status", [404, 403])
def test_github_missing_file_is_not_retried(online, tmp_path, status):
    session = FakeSession({raw_url(): FakeResponse(status)})
    with pytest.raises(DataAccessError, match="not in the repository at that commit") as err:
        remote.github_file(REPO, COMMIT, PATH, session=session)
    assert "de-anonymised" in str(err.value)
    assert len(session.calls) == 1 and online == []
    assert not (tmp_path / "cache" / "github" / REPO / COMMIT / PATH).exists()


def test_github_retries_5xx_then_succeeds(online):
    outcomes = [FakeResponse(500), requests.ConnectionError("reset"), FakeResponse(503), FakeResponse(200, b"ok")]
    session = FakeSession({raw_url(): outcomes})
    assert remote.github_file(REPO, COMMIT, PATH, session=session).read_bytes() == b"ok"
    assert len(session.calls) == 4 and online == [1, 2, 4]


def test_github_gives_up_after_four_attempts(online):
    session = FakeSession({raw_url(): FakeResponse(502)})
    with pytest.raises(DataAccessError, match="after 4 attempts"):
        remote.github_file(REPO, COMMIT, PATH, session=session)
    assert len(session.calls) == 4


@pytest.mark.parametrize("repo,path", [("owner", PATH), (REPO, "../secrets"), (REPO, "a//b"), ("a/../b", PATH)])
def test_github_rejects_escaping_paths(online, repo, path):
    with pytest.raises(ValueError):
        remote.github_file(repo, COMMIT, path, session=FakeSession())


# ---------------------------------------------------------------- local_relpath


def test_local_relpath_layout():
    query_hash = hashlib.sha256(b"download").hexdigest()[:12]
    assert remote.local_relpath("https://upload.wikimedia.org/wikipedia/commons/x/422.jpg?download") == (
        f"upload.wikimedia.org/wikipedia/commons/x/422.jpg__q{query_hash}"
    )
    assert remote.local_relpath("https://Example.com/a%20b.png#frag") == "example.com/a b.png"
    assert remote.local_relpath("https://example.com") == "example.com/index"
    assert remote.local_relpath("https://example.com/dir/") == "example.com/dir/index"
    assert remote.local_relpath("http://example.com:8080/x.png") == "example.com_8080/x.png"


@pytest.mark.parametrize(
    "url",
    [
        "https://e.com/a/../../../etc/passwd",
        "https://e.com/%2E%2E/%2e%2e/x",
        "https://e.com/a%2F..%2F..%2Fx",
        "https://e.com//./x",
        "https://../x.png",
    ],
)
def test_local_relpath_never_escapes(tmp_path, url):
    rel = remote.local_relpath(url)
    parts = rel.split("/")
    assert all(p not in {"", ".", ".."} for p in parts)
    base = tmp_path / "urls"
    assert (base / rel).resolve().is_relative_to(base.resolve())


# ---------------------------------------------------------------- UrlImageStore

URL = "https://upload.wikimedia.org/wikipedia/commons/x/422.jpg?download"


def make_store(tmp_path: Path, session: FakeSession, **kwargs) -> remote.UrlImageStore:
    kwargs.setdefault("allow_network", True)
    store = remote.UrlImageStore(cache_dir=tmp_path / "cache", session=session, **kwargs)
    store.sleeps = []
    store._sleep = store.sleeps.append
    return store


def test_store_downloads_into_documented_layout(tmp_path):
    png = image_bytes()
    session = FakeSession({URL: FakeResponse(200, png)})
    store = make_store(tmp_path, session)
    img = store.get(URL)
    assert img.mode == "RGB" and img.getpixel((0, 0)) == (200, 120, 40)
    assert (tmp_path / "cache" / remote.local_relpath(URL)).read_bytes() == png
    assert "Mozilla" in session.kwargs[0]["headers"]["User-Agent"] and session.kwargs[0]["timeout"] == 20.0
    fresh = make_store(tmp_path, FakeSession())  # a new process: served from the disk cache
    assert fresh.get_bytes(URL) == png and fresh._session.calls == []
    assert store.get_bytes(URL) == png and len(session.calls) == 1


def test_store_defaults_follow_environment(monkeypatch, tmp_path):
    monkeypatch.setenv("FOOD_TASKS_CACHE_DIR", str(tmp_path / "c"))
    monkeypatch.setenv("FOOD_TASKS_DATA_DIR", str(tmp_path / "m"))
    remote.default_image_store.cache_clear()
    try:
        store = remote.default_image_store()
        assert store is remote.default_image_store()
        assert store.cache_dir == tmp_path / "c" / "urls" and store.mirror == tmp_path / "m" / "urls"
        assert store.allow_network is False  # conftest sets HF_HUB_OFFLINE=1
    finally:
        remote.default_image_store.cache_clear()


def test_store_retries_then_succeeds(tmp_path):
    outcomes = [requests.ConnectTimeout("slow"), FakeResponse(503), FakeResponse(429), FakeResponse(200, image_bytes())]
    store = make_store(tmp_path, FakeSession({URL: outcomes}))
    assert store.get(URL) is not None and store.sleeps == [0.5, 1, 2] and URL not in store.failures


def test_store_timeout_exhausted(tmp_path):
    session = FakeSession({URL: requests.ReadTimeout("read timed out")})
    store = make_store(tmp_path, session)
    assert store.get(URL) is None
    assert store.failures[URL] == "timeout after 4 attempts" and len(session.calls) == 4
    assert store.get(URL) is None and len(session.calls) == 4  # failures are memoised


def test_store_invalid_url_is_a_failure(tmp_path):
    store = make_store(tmp_path, FakeSession())
    assert store.get("http://example.com:notaport/x.png") is None
    assert store.failures["http://example.com:notaport/x.png"].startswith("invalid url")


def test_store_404_not_retried(tmp_path):
    session = FakeSession({URL: FakeResponse(404)})
    store = make_store(tmp_path, session)
    assert store.get_bytes(URL) is None and store.failures[URL] == "http 404" and len(session.calls) == 1


@pytest.mark.parametrize("headers", [{}, {"Content-Length": "5000"}])
def test_store_rejects_large_bodies(tmp_path, headers):
    store = make_store(tmp_path, FakeSession({URL: FakeResponse(200, b"\0" * 5000, headers)}), max_bytes=1000)
    assert store.get(URL) is None and store.failures[URL] == "too large (> 1000 bytes)"
    assert not (tmp_path / "cache").exists()


def test_store_rejects_html(tmp_path):
    session = FakeSession({URL: FakeResponse(200, b"<html><body>Please enable cookies</body></html>")})
    store = make_store(tmp_path, session)
    assert store.get(URL) is None
    assert store.failures[URL].startswith("not an image: cannot identify image file")
    assert not (tmp_path / "cache").exists() and len(session.calls) == 1


@pytest.mark.parametrize(
    "fmt,mode,color",
    [
        ("PNG", "RGBA", (10, 20, 30, 0)),
        ("PNG", "P", (10, 20, 30)),
        ("JPEG", "CMYK", (0, 0, 0, 0)),
        ("PNG", "L", 128),
        ("WEBP", "RGB", (10, 20, 30)),
        ("JPEG", "RGB", (10, 20, 30)),
    ],
)
def test_store_converts_to_rgb(tmp_path, fmt, mode, color):
    store = make_store(tmp_path, FakeSession({URL: FakeResponse(200, image_bytes(fmt, mode, color))}))
    img = store.get(URL)
    assert img is not None and img.mode == "RGB" and img.size == (16, 16)
    if mode == "RGBA":
        assert img.getpixel((0, 0)) == (255, 255, 255)  # fully transparent -> white


def test_store_offline_miss(tmp_path):
    session = FakeSession({URL: FakeResponse(200, image_bytes())})
    store = make_store(tmp_path, session, allow_network=False)
    assert store.get(URL) is None and store.failures[URL] == "offline: not in cache or mirror"
    assert session.calls == []


def test_store_mirror_hit_and_corrupt_mirror(tmp_path):
    other = "https://example.org/food/serabi.png"
    mirror = tmp_path / "mirror"
    (mirror / remote.local_relpath(URL)).parent.mkdir(parents=True)
    (mirror / remote.local_relpath(URL)).write_bytes(b"\xff\xd8 truncated")
    (mirror / remote.local_relpath(other)).parent.mkdir(parents=True)
    (mirror / remote.local_relpath(other)).write_bytes(image_bytes())
    session = FakeSession({URL: FakeResponse(200, image_bytes())})
    store = make_store(tmp_path, session, mirror=mirror)
    assert store.get(other).getpixel((0, 0)) == (200, 120, 40)
    assert store.get(URL) is None
    assert store.failures[URL] == f"corrupt cached file {mirror / remote.local_relpath(URL)}"
    assert session.calls == []  # a bad mirror file is never silently replaced by a download
    assert store.available(other) and not store.available(URL)


def test_store_refetches_corrupt_cache_once(tmp_path):
    cached = tmp_path / "cache" / remote.local_relpath(URL)
    cached.parent.mkdir(parents=True)
    cached.write_bytes(b"garbage")
    assert make_store(tmp_path, FakeSession(), allow_network=False).get(URL) is None
    session = FakeSession({URL: FakeResponse(200, image_bytes())})
    assert make_store(tmp_path, session).get(URL) is not None
    assert cached.read_bytes() == image_bytes() and len(session.calls) == 1


def test_store_prefetch_summary(tmp_path):
    urls = [f"https://example.org/{i}.png" for i in range(3)]
    session = FakeSession({urls[0]: FakeResponse(200, image_bytes()), urls[1]: FakeResponse(200, image_bytes("JPEG"))})
    store = make_store(tmp_path, session)
    summary = store.prefetch([*urls, urls[0], urls[2]], workers=4)
    assert summary == {"total": 3, "available": 2, "missing": {urls[2]: "http 404"}}
    assert len(session.calls) == 3


def test_store_concurrent_gets_download_once(tmp_path):
    session = FakeSession({URL: FakeResponse(200, image_bytes())}, delay=0.05)
    store = make_store(tmp_path, session)
    barrier, results = threading.Barrier(8), []

    def worker():
        barrier.wait()
        results.append(store.get(URL))

    threads = [threading.Thread(target=worker) for _ in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(session.calls) == 1
    assert len(results) == 8 and all(r is not None and r.getpixel((0, 0)) == (200, 120, 40) for r in results)


def test_store_keeps_few_decoded_images(tmp_path, monkeypatch):
    monkeypatch.setattr(remote.UrlImageStore, "MAX_DECODED", 4)
    urls = [f"https://example.org/{i}.png" for i in range(10)]
    store = make_store(tmp_path, FakeSession({u: FakeResponse(200, image_bytes()) for u in urls}))
    for u in urls:
        img = store.get(u)
        img.putpixel((0, 0), (0, 0, 0))  # callers may mutate what they get
    assert len(store._images) == 4
    assert store.get(urls[-1]).getpixel((0, 0)) == (200, 120, 40)


def test_github_rechecks_cache_after_taking_the_lock(online, tmp_path):
    from filelock import FileLock

    dest = tmp_path / "cache" / "github" / REPO / COMMIT / PATH
    dest.parent.mkdir(parents=True)
    session, result = FakeSession({raw_url(): FakeResponse(200, b"mine")}), []
    other_rank = FileLock(f"{dest}.lock")
    other_rank.acquire()
    waiter = threading.Thread(target=lambda: result.append(remote.github_file(REPO, COMMIT, PATH, session=session)))
    waiter.start()
    time.sleep(0.2)
    dest.write_bytes(b"theirs")  # the other rank finishes its download while we wait
    other_rank.release()
    waiter.join(10)
    assert result == [dest] and dest.read_bytes() == b"theirs" and session.calls == []
