"""Offline ``food-tasks prefetch``: one request to the host, then the clear message (issue 29 item 7).

No request is made at all: the hosts are named as a closed port on this machine and the probe's one request
(``requests.head``) is replaced by a refusal; the download functions are replaced by ones that fail the test
if called: the probe, not a retrying download, must give the answer.
"""

from __future__ import annotations

import pytest

from food_tasks import cli
from food_tasks.data import remote

CLOSED = "http://127.0.0.1:9"  # the discard port: nothing listens on it here


@pytest.fixture(autouse=True)
def online_but_unreachable(monkeypatch):
    import huggingface_hub
    from huggingface_hub import constants

    for var in ("HF_HUB_OFFLINE", "HF_DATASETS_OFFLINE", "FOOD_TASKS_OFFLINE", "FOOD_TASKS_DATA_DIR"):
        monkeypatch.delenv(var, raising=False)
    monkeypatch.setattr(constants, "HF_HUB_OFFLINE", False)
    monkeypatch.setattr(constants, "ENDPOINT", CLOSED)
    monkeypatch.setattr(remote, "GITHUB_RAW", CLOSED)
    real = huggingface_hub.hf_hub_download

    def cache_only(*args, **kwargs):
        assert kwargs.get("local_files_only"), "a download was attempted although the host does not answer"
        return real(*args, **kwargs)

    monkeypatch.setattr(huggingface_hub, "hf_hub_download", cache_only)
    monkeypatch.setattr(huggingface_hub, "get_token", lambda: "hf_placeholder")  # FoodieQA asks for a token first
    monkeypatch.setattr(remote, "_github_get", lambda *a, **k: pytest.fail("GitHub download attempted"))

    def refused(url, **kwargs):
        assert url.startswith(CLOSED), url  # only the named hosts are asked
        raise remote.requests.ConnectionError(f"{url}: [Errno 111] Connection refused")

    monkeypatch.setattr(remote.requests, "head", refused)
    remote._probe.cache_clear()
    yield
    remote._probe.cache_clear()


@pytest.mark.parametrize(
    "bench,what",
    [("diningbench", "meituan/DiningBench"), ("foodieqa", "lyan62/FoodieQA"), ("fambench", "Food-as-medicine")],
)
def test_unreachable_host_fails_at_once_with_the_message(bench, what, capsys):
    assert cli.main(["prefetch", bench]) == 1
    captured = capsys.readouterr()
    assert not captured.out
    lines = [line for line in captured.err.splitlines() if line.strip()]
    # Only our message, no retry chatter before it: its first line, then its continuation lines (wrapped at 120
    # columns, indented).
    assert lines[0].startswith("food-tasks prefetch:") and all(line.startswith("  ") for line in lines[1:]), lines
    assert all(len(line) <= 120 or len(line.split()) == 1 for line in lines), lines  # a URL longer is kept whole
    message = " ".join(line.strip() for line in lines)
    assert what in message and ("cannot be reached" in message or "cannot reach" in message)
    assert "127.0.0.1" in message


def test_probe_asks_once_per_host(monkeypatch):
    calls = []
    monkeypatch.setattr(remote.requests, "head", lambda url, **kw: calls.append(url))
    assert remote.unreachable(f"{CLOSED}/a/b.json") is None
    assert remote.unreachable(f"{CLOSED}/c.json") is None
    assert calls == [f"{CLOSED}/"]


def test_prefetch_help_explains_its_arguments(capsys):
    with pytest.raises(SystemExit):
        cli.main(["prefetch", "--help"])
    out = capsys.readouterr().out
    assert "which benchmark's files to fetch" in out and "--workers" in out and "parallel downloads" in out
    assert max(len(line) for line in out.splitlines()) <= 120
