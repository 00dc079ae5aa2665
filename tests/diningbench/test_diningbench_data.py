"""DiningBench data: published layout, one-time lock-safe extraction, official view selection, errors."""

from __future__ import annotations

import json
import multiprocessing
import os
import tarfile

import diningbench_fixture as F
import pytest

from food_tasks.benchmarks.diningbench import data as D
from food_tasks.data.archive import MARKER
from food_tasks.data.hub import DataAccessError


@pytest.fixture
def mirror(tmp_path, monkeypatch):  # type: ignore[no-untyped-def]
    base = F.build(tmp_path / "mirror")
    monkeypatch.setenv("FOOD_TASKS_DATA_DIR", str(tmp_path / "mirror"))
    monkeypatch.setenv("FOOD_TASKS_CACHE_DIR", str(tmp_path / "cache"))
    return base


ROW = {"standard_image": "s.jpg", "user_images": ["u1.jpg", "u2.jpg"]}


@pytest.mark.parametrize(
    "kind,row,views,expected",
    [
        ("cls", ROW, (0,), ["s.jpg"]),
        ("cls", ROW, (0, 1, 2, 3), ["s.jpg", "u1.jpg", "u2.jpg"]),  # index 3 does not exist: dropped
        ("cls", ROW, (5,), ["s.jpg"]),  # nothing left: the first image
        (
            "cls",
            {"standard_image": "", "user_images": ["u1.jpg", "u2.jpg"]},
            (0, 1),
            ["u1.jpg", "u2.jpg"],
        ),  # list indexing
        (
            "nutrition",
            {"standard_image": "", "user_images": ["u1.jpg", "u2.jpg"]},
            (0, 1),
            ["u1.jpg"],
        ),  # separate indexing
        ("nutrition", ROW, (0, 1, 2, 3), ["s.jpg", "u1.jpg", "u2.jpg"]),
        ("nutrition", {"standard_image": "", "user_images": ["u1.jpg"]}, (3,), ["u1.jpg"]),
        ("cls", {"standard_image": "s.jpg", "user_images": "u1.jpg"}, (0, 1), ["s.jpg", "u1.jpg"]),
    ],
)
def test_official_view_selection(kind, row, views, expected):
    assert D.select_views(row, views, kind) == expected


def test_vqa_image_fallback():
    assert D.vqa_images({"images": ["a.jpg", "b.jpg"], "id": 3}) == ["a.jpg", "b.jpg"]
    assert D.vqa_images({"id": 3}) == ["images/00003.jpg"] and D.vqa_images({"id": "12"}) == ["images/00012.jpg"]
    assert D.vqa_images({"id": "x"}) == [] and D.vqa_images({}) == []


def test_docs_keep_row_order_and_verbatim_prompts(mirror):
    docs = D.build_docs("cls", "zh", (0, 1))
    rows = [json.loads(line) for line in (mirror / "classification.jsonl").read_text(encoding="utf-8").splitlines()]
    assert [d["idx"] for d in docs] == list(range(len(rows))) and [d["prompt"] for d in docs] == [
        r["prompt"] for r in rows
    ]
    assert [d["text"] for d in docs] == [r["prompt"] for r in rows]
    assert docs[0]["images"][0].endswith("images/cls0/std.jpg") and docs[0]["images"][1].endswith("images/cls0/u1.jpg")
    assert all(os.path.isfile(p) for d in docs for p in d["images"])
    cot = D.build_docs("vqa", "en", cot=True)[0]["text"]
    assert cot.endswith(
        "3. Comprehensive Answer: Answer the question based on the original image content and the observations and "
        "breakdown above."
    )
    assert cot.startswith("Is this dish fried?\nOutput only the final answer")


def test_extracted_mirror_is_used_in_place(tmp_path, monkeypatch):
    base = F.build(tmp_path / "m", extracted=True)
    monkeypatch.setenv("FOOD_TASKS_DATA_DIR", str(tmp_path / "m"))
    monkeypatch.setenv("FOOD_TASKS_CACHE_DIR", str(tmp_path / "cache"))
    docs = D.build_docs("nutrition", "en", (0, 1, 2, 3))
    assert docs[0]["images"][0] == str(base / "images/nut0/std.jpg") and docs[0]["views"] == 4
    assert not (tmp_path / "cache").exists()


def _extract(args):  # type: ignore[no-untyped-def]
    archive, dest = args
    return str(D.extract_archive(archive, dest))


def test_concurrent_extraction_happens_once(mirror, tmp_path):
    dest = tmp_path / "x" / "images-1"
    with multiprocessing.get_context("spawn").Pool(4) as pool:
        out = pool.map(_extract, [(mirror / D.ARCHIVE, dest)] * 4)
    assert set(out) == {str(dest)} and (dest / MARKER).is_file()
    assert sorted(p.name for p in (tmp_path / "x").iterdir()) == [
        "images-1",
        "images-1.lock",
    ]  # no temporary trees left


def test_interrupted_extraction_is_never_trusted(mirror, tmp_path):
    dest = tmp_path / "y" / "images-1"
    (dest / "images").mkdir(parents=True)
    (dest / "images" / "half.jpg").write_bytes(b"")  # a half tree without the completion marker
    D.extract_archive(mirror / D.ARCHIVE, dest)
    assert not (dest / "images" / "half.jpg").exists() and (dest / "images" / "cls0" / "std.jpg").is_file()


def test_corrupt_archive_and_missing_files_are_clear_errors(mirror, tmp_path):
    bad = tmp_path / "bad.tar.gz"
    bad.write_bytes(b"\x1f\x8b not really gzip")
    with pytest.raises(DataAccessError, match="cannot extract"):
        D.extract_archive(bad, tmp_path / "z")
    assert not (tmp_path / "z").exists()
    (mirror / "vqa_en.jsonl").unlink()
    with pytest.raises(DataAccessError, match="vqa_en.jsonl does not exist in the mirror"):
        D.build_docs("vqa", "en")


def test_unsafe_archive_member_is_refused(tmp_path):
    import io

    archive = tmp_path / "evil.tar.gz"
    with tarfile.open(archive, "w:gz") as tar:
        info = tarfile.TarInfo("../escape.jpg")
        info.size = 1
        tar.addfile(info, io.BytesIO(b"x"))
    with pytest.raises(DataAccessError):
        D.extract_archive(archive, tmp_path / "out" / "images-1")
    assert not (tmp_path / "out" / "escape.jpg").exists()


def test_bad_rows_and_missing_images_name_the_file_and_line(mirror):
    path = mirror / "classification.jsonl"
    lines = path.read_text(encoding="utf-8").splitlines()
    path.write_text("\n".join(lines[:2] + ["{not json"] + lines[2:]) + "\n", encoding="utf-8")
    with pytest.raises(DataAccessError, match=r"classification.jsonl:3: not valid JSON"):
        D.build_docs("cls", "zh")
    row = json.loads(lines[0])
    row["standard_image"] = "images/nowhere.jpg"
    path.write_text(json.dumps(row) + "\n", encoding="utf-8")
    with pytest.raises(DataAccessError, match=r"1 selected image\(s\) do not exist.*classification.jsonl:1"):
        D.build_docs("cls", "zh")
    path.write_text(json.dumps({"ground_truth": "A", "standard_image": "x"}) + "\n", encoding="utf-8")
    with pytest.raises(DataAccessError, match=r"classification.jsonl:1: missing 'prompt'"):
        D.build_docs("cls", "zh")


def test_offline_without_mirror_says_what_to_do(monkeypatch, tmp_path):
    monkeypatch.setenv("HF_HOME", str(tmp_path / "hf"))  # empty hub cache; HF_HUB_OFFLINE=1 from conftest
    with pytest.raises(DataAccessError, match=r"FOOD_TASKS_DATA_DIR/meituan/DiningBench/"):
        D.build_docs("cls", "zh")


def test_offline_switch_sends_no_request_whatever_huggingface_hub_read_at_import(monkeypatch, tmp_path):
    """Our offline switches are read at call time: with HF_HUB_OFFLINE=1 set after huggingface_hub was imported
    (its constant still False) or only FOOD_TASKS_OFFLINE=1, the cache miss is an error at once, never a download
    (which retried for 23 s in a worker whose huggingface_hub was imported while a test had unset the variable)."""
    import huggingface_hub
    from huggingface_hub import constants
    from huggingface_hub.errors import LocalEntryNotFoundError

    def download(*args, local_files_only=False, **kwargs):  # type: ignore[no-untyped-def]
        assert local_files_only, "a download was attempted although offline mode is on"
        raise LocalEntryNotFoundError("not in the cache")

    monkeypatch.setattr(huggingface_hub, "hf_hub_download", download)
    monkeypatch.setattr(constants, "HF_HUB_OFFLINE", False)
    monkeypatch.setenv("HF_HOME", str(tmp_path / "hf"))
    for switch in ("HF_HUB_OFFLINE", "FOOD_TASKS_OFFLINE"):
        for name in ("HF_HUB_OFFLINE", "HF_DATASETS_OFFLINE", "FOOD_TASKS_OFFLINE"):
            monkeypatch.delenv(name, raising=False)
        monkeypatch.setenv(switch, "1")
        with pytest.raises(DataAccessError, match=r"offline mode is on .*FOOD_TASKS_DATA_DIR/meituan/DiningBench/"):
            D.build_docs("cls", "zh")


def test_cot_answer_segment():
    from food_tasks.benchmarks.diningbench import parsing as P

    assert (
        P.answer_segment("1. Visual Observation: A bowl.\n3. **Comprehensive Answer**: 是，经过油炸") == "是，经过油炸"
    )
    assert P.answer_segment("no marker") == "no marker" and P.answer_segment(None) is None


def test_messages_put_every_view_before_the_verbatim_prompt(mirror):
    from food_tasks.utils import diningbench as hooks

    doc = D.build_docs("cls", "en", (0, 1, 2, 3))[0]
    messages = hooks.doc_to_messages(doc)
    assert len(messages) == 1 and messages[0]["role"] == "user"
    content = messages[0]["content"]
    assert [part["type"] for part in content] == ["image"] * 4 + ["text"]
    visuals = hooks.doc_to_visual(doc)
    assert [part["url"].tobytes() for part in content[:4]] == [image.tobytes() for image in visuals]
    assert content[-1]["text"] == hooks.doc_to_text(doc) == F.files()["classification_en.jsonl"][0]["prompt"]
    assert visuals[0].mode == "RGB" and visuals[0].size == (24, 24)


def test_prefetch_cli_downloads_and_extracts_once(mirror, capsys):
    from food_tasks import cli

    assert cli.main(["prefetch", "diningbench"]) == 0
    out = capsys.readouterr().out
    assert "classification.jsonl: " in out and "images: " in out
    images = out.split("images: ", 1)[1].strip()
    assert os.path.isfile(os.path.join(images, MARKER))


def test_official_model_name_is_recorded_in_documents(mirror, monkeypatch):
    monkeypatch.setenv(D.MODEL_NAME_ENV, "qwen-3-vl-8b-thinking")
    assert {d["model_name"] for d in D.build_docs("cls", "en")} == {"qwen-3-vl-8b-thinking"}
    monkeypatch.delenv(D.MODEL_NAME_ENV)
    assert {d["model_name"] for d in D.build_docs("cls", "en")} == {""}
