"""Core failure handling: damaged files named by file and line, data errors that stop an lmms-eval run
without retries, suggested commands that exist in the installed huggingface_hub CLI, and BERTScore
inputs that one bad sample cannot poison."""

from __future__ import annotations

import math
import os
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from food_tasks.data import hub as data
from food_tasks.hooks import bertscore

REPO = Path(__file__).resolve().parents[2]


# ------------------------------------------------------------------ damaged files


def test_find_damaged_file_names_jsonl_line(tmp_path):
    good = tmp_path / "a.jsonl"
    good.write_text('{"x": 1}\n\n{"x": 2}\n')
    assert data.find_damaged_file([good]) is None
    bad = tmp_path / "b.jsonl"
    bad.write_text('{"x": 1}\n{"x": 2}\n{"x": \n{"x": 4}\n')
    assert data.find_damaged_file([good, bad]) == (
        f"{bad} line 3 is not valid JSON (Expecting value, column 7); the file must be JSON Lines, one object per line"
    )
    array = tmp_path / "c.jsonl"
    array.write_text('[{"x": 1}, {"x": 2}]\n')
    assert "line 1 is a JSON list, not an object" in data.find_damaged_file([array])
    latin = tmp_path / "d.jsonl"
    latin.write_bytes(b'{"x": 1}\n{"x": "\xe9"}\n')
    assert f"{latin} line 2 is not valid UTF-8 JSON" in data.find_damaged_file([latin])


def test_find_damaged_file_json_and_parquet(tmp_path):
    import pyarrow as pa
    import pyarrow.parquet as pq

    doc = tmp_path / "x.json"
    doc.write_text('{"a": [1, 2,\n  3,, 4]}')
    assert data.find_damaged_file([doc]).startswith(f"{doc} is not valid JSON (Expecting value: line 2 column 5")
    table = tmp_path / "t.parquet"
    pq.write_table(pa.table({"a": list(range(100))}), table)
    assert data.find_damaged_file([table]) is None
    table.write_bytes(table.read_bytes()[:-10])
    assert data.find_damaged_file([table]).startswith(f"{table} is damaged or truncated")


def test_mirror_load_failure_names_the_damaged_file(tmp_path):
    repo = tmp_path / "org" / "name"
    (repo / "data").mkdir(parents=True)
    (repo / "data" / "test.jsonl").write_text('{"q": "a"}\n{"q": "b"}\n{"q": \n')
    with pytest.raises(data.DataAccessError, match=r"data/test\.jsonl line 3 is not valid JSON.*hf download org/name"):
        data.load_hub_split("org/name", None, "train", data_files="data/*.jsonl", root=tmp_path)


# ------------------------------------------------------------------ stopping an lmms-eval run


def test_run_stop_is_not_retried_by_lmms_eval_retry_policy():
    """lmms-eval 0.7.3 wraps Task.download (which calls process_docs) in exactly this retry."""
    from tenacity import retry, stop_after_attempt, stop_after_delay, wait_fixed

    calls = []

    @retry(stop=(stop_after_attempt(5) | stop_after_delay(60)), wait=wait_fixed(2))
    @data.stop_run_on_data_error
    def process_docs():
        calls.append(1)
        raise data.DataAccessError("org/name: the mirror directory /x does not exist")

    with pytest.raises(SystemExit) as err:
        process_docs()
    assert calls == [1]
    assert (
        err.value.code
        == "food-tasks: data error, the run stops before generation:\norg/name: the mirror directory /x does not exist"
    )
    assert isinstance(err.value.__cause__, data.DataAccessError)


def test_other_errors_pass_through_unchanged():
    @data.stop_run_on_data_error
    def hook():
        raise KeyError("bug")

    with pytest.raises(KeyError):
        hook()


def test_lmms_eval_still_retries_task_download_as_assumed():
    """If a new lmms-eval stops retrying (or retries SystemExit), revisit RunStopped."""
    import inspect

    from lmms_eval.api.task import ConfigurableTask

    source = inspect.getsource(ConfigurableTask)
    assert (
        "@retry(stop=(stop_after_attempt(5) | stop_after_delay(60)), wait=wait_fixed(2))\n    def download(" in source
    )
    assert "self.config.process_docs(self.dataset[split])" in source


# ------------------------------------------------------------------ suggested commands exist


def _hf() -> str:
    found = Path(sys.executable).with_name("hf")
    return str(found) if found.exists() else (shutil.which("hf") or pytest.skip("no `hf` executable installed"))


@pytest.mark.slow  # another interpreter
def test_suggested_download_command_parses_with_the_installed_hf_cli(tmp_path):
    """Run the exact suggestion offline: a usage error exits 2, a valid command fails on the network."""
    env = dict(os.environ, HF_HUB_OFFLINE="1", HF_HUB_DISABLE_TELEMETRY="1", HF_HOME=str(tmp_path / "hf"))
    with pytest.raises(data.DataAccessError) as err:
        data.hub_mirror_dir("worldcuisines/vqa", tmp_path)
    suggestion = str(err.value).split("`")[1]
    assert suggestion == data.hf_download_command("worldcuisines/vqa", tmp_path / "worldcuisines" / "vqa")
    from food_tasks.benchmarks.worldcuisines import data as wc_data

    with pytest.raises(data.DataAccessError) as err:
        (tmp_path / "worldcuisines" / "vqa").mkdir(parents=True)
        wc_data.check_mirror_files("task1", "test_large", tmp_path, ("en",))
    with_include = str(err.value).split("`")[1]
    for command in (suggestion, with_include):
        argv = shlex.split(command)
        assert argv[0] == "hf"
        proc = subprocess.run([_hf(), *argv[1:]], env=env, capture_output=True, text=True, timeout=120)
        output = proc.stdout + proc.stderr
        assert proc.returncode not in (0, 2), output
        assert "offline" in output.lower() and "No such option" not in output and "Usage:" not in output, output


@pytest.mark.slow  # another interpreter
def test_suggested_login_command_exists():
    proc = subprocess.run(
        [_hf(), *shlex.split(data.HF_LOGIN_COMMAND)[1:], "--help"], capture_output=True, text=True, timeout=120
    )
    assert proc.returncode == 0 and "token" in proc.stdout.lower(), proc.stdout + proc.stderr


def test_no_suggestion_of_the_removed_huggingface_cli():
    files = [
        REPO / "README.md",
        *(REPO / "food_tasks").rglob("*.py"),
        *(REPO / "yaml_tasks").rglob("*.md"),
        *(REPO / "utils").rglob("*.py"),
    ]
    assert [str(f) for f in files if "huggingface-cli" in f.read_text(encoding="utf-8")] == []


# ------------------------------------------------------------------ BERTScore inputs


def test_sanitize_replaces_lone_surrogates_and_non_strings():
    assert bertscore.sanitize("ab\ud800c\udfffd") == "ab\ufffdc\ufffdd"
    assert bertscore.sanitize("Serabi 煎饼 🍜") == "Serabi 煎饼 🍜"
    assert bertscore.sanitize(None) == "" and bertscore.sanitize(3) == ""


def test_lone_surrogate_does_not_erase_the_task_score(monkeypatch, tiny_bert):
    monkeypatch.setenv("FOOD_TASKS_BERTSCORE_MODEL", str(tiny_bert))
    monkeypatch.setenv("FOOD_TASKS_BERTSCORE_LAYERS", "2")
    f1 = bertscore.f1_scores(["serabi", "abc\ud800def", "x" * 20000], ["serabi", "abcdef", "melktert"])
    assert f1 is not None and len(f1) == 3 and all(math.isfinite(v) for v in f1)
    assert f1[0] == pytest.approx(1.0, abs=1e-5)


def test_a_pair_that_cannot_be_scored_counts_zero(monkeypatch, tiny_bert):
    monkeypatch.setenv("FOOD_TASKS_BERTSCORE_MODEL", str(tiny_bert))
    monkeypatch.setenv("FOOD_TASKS_BERTSCORE_LAYERS", "2")
    scorer = bertscore._scorer(str(tiny_bert), 2)
    real = scorer.score

    def flaky(cands, refs, **kwargs):
        if any("boom" in c for c in cands):
            raise RuntimeError("tokenizer refused")
        return real(cands, refs, **kwargs)

    monkeypatch.setattr(scorer, "score", flaky)
    bertscore._f1.cache_clear()
    f1 = bertscore.f1_scores(["serabi", "boom", "melktert"], ["serabi", "goetta", "melktert"])
    assert f1[1] == 0.0 and f1[0] == pytest.approx(1.0, abs=1e-5) and f1[2] == pytest.approx(1.0, abs=1e-5)


# ------------------------------------------------------------------ images in a hub dataset


def test_image_store_probe_checks_the_header_and_get_decodes(tmp_path, monkeypatch):
    import datasets

    from food_tasks.data import mirror

    png = mirror.png_bytes((10, 20, 30), 64)
    rows = {
        "url": ["good", "garbage", "cut", "none"],
        "image": [
            {"bytes": png, "path": None},
            {"bytes": b"\x89PNG\r\n\x1a\nnot a png", "path": None},
            {"bytes": png[: len(png) // 2], "path": None},
            None,
        ],
    }
    ds = datasets.Dataset.from_dict(
        rows, features=datasets.Features({"url": datasets.Value("string"), "image": datasets.Image()})
    )
    store = data.ImageStore(ds, [("url", "image")], source="fixture")
    assert store.probe("good") is None and store.get("good").size == (64, 64)
    assert "cannot read the image at row 1" in store.probe("garbage")
    assert store.probe("cut") is None  # the header is intact: only decoding finds the truncation
    from PIL import ImageFile

    for lenient in (False, True):  # lmms-eval sets LOAD_TRUNCATED_IMAGES=True process-wide
        monkeypatch.setattr(ImageFile, "LOAD_TRUNCATED_IMAGES", lenient)
        with pytest.raises(data.CorruptImageError, match="row 2"):
            store.get("cut")
        assert ImageFile.LOAD_TRUNCATED_IMAGES is lenient
    assert "no image stored for URL 'elsewhere'" in store.probe("elsewhere")
    assert store.probe("none").endswith("(URL 'none') is empty")
    with pytest.raises(data.CorruptImageError, match="row 3"):
        store.get("none")


def test_our_commands_exit_non_zero_with_our_message_last(tmp_path, monkeypatch, capsys):
    from food_tasks import cli

    monkeypatch.setenv(data.DATA_DIR_ENV, str(tmp_path / "empty"))
    assert cli.main(["prefetch", "fambench"]) == 1
    err = capsys.readouterr().err.strip().splitlines()
    # Our message comes last: its first line, then its continuation lines (wrapped at 120 columns, indented).
    first = max(i for i, line in enumerate(err) if not line.startswith("  "))
    assert err[first].startswith("food-tasks prefetch: ") and all(line.startswith("  ") for line in err[first + 1 :])
    assert "is not a file" in " ".join(line.strip() for line in err[first:])


def test_url_image_store_refuses_truncated_images_under_lmms_eval_setting(tmp_path, monkeypatch):
    from PIL import ImageFile

    from food_tasks.data import mirror, remote

    monkeypatch.setattr(ImageFile, "LOAD_TRUNCATED_IMAGES", True)
    png = mirror.png_bytes((10, 20, 30), 64)
    mirror.write_url_images(
        tmp_path, {"https://x.example.org/a.png": png, "https://x.example.org/b.png": png[: len(png) // 2]}
    )
    store = remote.UrlImageStore(mirror=tmp_path / "urls", cache_dir=tmp_path / "cache", allow_network=False)
    assert store.get("https://x.example.org/a.png") is not None
    assert store.get("https://x.example.org/b.png") is None and not store.available("https://x.example.org/b.png")
