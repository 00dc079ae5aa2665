"""FoodieQA data: the published zip extracted once (also with concurrent callers), unpacked mirrors,
clear errors for gated access, offline use and malformed records; nothing touches the network."""

from __future__ import annotations

import json
import threading
import zipfile

import pytest
from foodieqa_fixture import IMG, build, tables

from food_tasks.benchmarks.foodieqa import data as fq_data
from food_tasks.data.archive import MARKER
from food_tasks.data.hub import DataAccessError


@pytest.fixture(autouse=True)
def _fresh(monkeypatch, tmp_path):
    monkeypatch.setenv("HF_HOME", str(tmp_path / "hf_home"))
    fq_data._data_folder.cache_clear()
    fq_data._load_docs.cache_clear()
    yield
    fq_data._data_folder.cache_clear()
    fq_data._load_docs.cache_clear()


@pytest.mark.parametrize("folder", ["FoodieQA", ""])
def test_zip_mirror_is_extracted_once_into_the_cache(tmp_path, folder):
    root = build(tmp_path / "mirror", folder=folder)
    docs = fq_data.load_docs("mivqa", root)
    assert [d["qid"] for d in docs] == [r["question_id"] for r in tables()["mivqa"]]  # file order
    assert (
        docs[0]["images"] == [IMG(0), IMG(1), IMG(2), IMG(3)]
        and docs[0]["answer"] == "1"
        and docs[0]["category"] == "新疆"
    )
    extracted = fq_data.data_folder(root)
    assert extracted.is_relative_to(tmp_path / "hf_home" / "food_tasks" / "foodieqa")
    stamp = (extracted.parent if folder else extracted) / MARKER
    mtime = stamp.stat().st_mtime_ns
    fq_data._data_folder.cache_clear()
    assert fq_data.data_folder(root) == extracted and stamp.stat().st_mtime_ns == mtime  # not extracted again
    sivqa = fq_data.load_docs("sivqa", root)
    assert sivqa[0]["images"] == [IMG(0)] and sivqa[0]["category"] == "新疆菜" and sivqa[0]["food_name"] == "烤羊肉串"
    textqa = fq_data.load_docs("textqa", root)
    assert textqa[1]["qid"] == "textqa-1" and textqa[1]["images"] == []
    assert fq_data.load_image(IMG(2), root).getpixel((0, 0)) == (0, 0, 250)


def test_concurrent_extraction_is_safe(tmp_path):
    root = build(tmp_path / "mirror")
    zip_path = root / fq_data.REPO / fq_data.ZIP_NAME
    results, errors = [], []

    def run():
        try:
            results.append(fq_data.extract_zip(zip_path, tmp_path / "cache"))
        except Exception as err:  # noqa: BLE001  # pragma: no cover - reported below
            errors.append(err)

    threads = [threading.Thread(target=run) for _ in range(6)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors and len(set(results)) == 1
    assert sorted(p.name for p in (tmp_path / "cache").iterdir() if not p.name.endswith(".lock")) == [results[0].name]


def test_concurrent_ranks_extract_once(tmp_path):
    """Four processes (as ranks started together by accelerate) share one extraction."""
    import multiprocessing

    root = build(tmp_path / "mirror")
    zip_path = root / fq_data.REPO / fq_data.ZIP_NAME
    with multiprocessing.get_context("spawn").Pool(4) as pool:
        folders = pool.starmap(fq_data.extract_zip, [(zip_path, tmp_path / "cache")] * 4)
    assert len(set(folders)) == 1
    assert len([p for p in (tmp_path / "cache").iterdir() if not p.name.endswith(".lock")]) == 1
    assert len(json.loads((folders[0] / "FoodieQA" / "mivqa_tidy.json").read_text())) == 4


def test_unpacked_mirror(tmp_path):
    root = build(tmp_path / "mirror", zipped=False)
    assert fq_data.data_folder(root) == root / fq_data.REPO
    assert len(fq_data.load_docs("textqa", root)) == 4


def test_unsafe_zip_member_is_refused(tmp_path):
    path = tmp_path / "m" / fq_data.REPO / fq_data.ZIP_NAME
    path.parent.mkdir(parents=True)
    with zipfile.ZipFile(path, "w") as archive:
        archive.writestr("../evil.json", "[]")
    with pytest.raises(DataAccessError, match="unsafe member path"):
        fq_data.data_folder(tmp_path / "m")


def test_missing_token_says_where_to_request_access(monkeypatch):
    import huggingface_hub
    from huggingface_hub.errors import LocalEntryNotFoundError

    def not_cached(**kwargs):
        assert kwargs.get("local_files_only"), "must not download without a token"
        raise LocalEntryNotFoundError("not cached")

    monkeypatch.delenv("HF_HUB_OFFLINE", raising=False)
    monkeypatch.setattr(huggingface_hub, "hf_hub_download", not_cached)
    monkeypatch.setattr(huggingface_hub, "get_token", lambda: None)
    with pytest.raises(DataAccessError) as err:
        fq_data.load_docs("mivqa")
    text = str(err.value)
    assert "no Hugging Face token" in text and "https://huggingface.co/datasets/lyan62/FoodieQA" in text
    assert "hf auth login" in text and "HF_TOKEN" in text and "FOOD_TASKS_DATA_DIR" in text


def test_refused_access_is_explained(monkeypatch):
    import huggingface_hub
    from huggingface_hub.errors import GatedRepoError, LocalEntryNotFoundError

    def download(**kwargs):
        if kwargs.get("local_files_only"):
            raise LocalEntryNotFoundError("not cached")
        import httpx

        response = httpx.Response(403, request=httpx.Request("GET", "https://huggingface.co/datasets/lyan62/FoodieQA"))
        raise GatedRepoError("403 Client Error: access to lyan62/FoodieQA is restricted", response=response)

    monkeypatch.delenv("HF_HUB_OFFLINE", raising=False)
    monkeypatch.setattr(huggingface_hub, "hf_hub_download", download)
    monkeypatch.setattr(huggingface_hub, "get_token", lambda: "hf_fake")
    from food_tasks.data import remote

    monkeypatch.setattr(remote, "unreachable", lambda url, timeout=0: None)  # the Hub answers (with a refusal)
    with pytest.raises(DataAccessError, match="has not been granted access.*Request access.*lyan62/FoodieQA"):
        fq_data.load_docs("sivqa")


def test_offline_without_cache(monkeypatch):
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    with pytest.raises(DataAccessError, match="not in the Hugging Face cache and HF_HUB_OFFLINE is set"):
        fq_data.load_docs("textqa")


def test_cached_zip_is_used_offline(monkeypatch, tmp_path):
    import huggingface_hub

    zip_path = build(tmp_path / "dl") / fq_data.REPO / fq_data.ZIP_NAME
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    monkeypatch.setattr(huggingface_hub, "hf_hub_download", lambda **kw: str(zip_path))
    assert len(fq_data.load_docs("sivqa")) == 3


def test_mirror_root_without_the_dataset(tmp_path):
    with pytest.raises(DataAccessError, match="lyan62/FoodieQA does not exist"):
        fq_data.load_docs("mivqa", tmp_path)


@pytest.mark.parametrize(
    "task,mutate,message",
    [
        ("mivqa", lambda r: r.update(answer="B"), "record 0: answer 'B' is not one of"),
        ("mivqa", lambda r: r.update(images=r["images"][:3]), "record 0: 'images' must list 4"),
        ("mivqa", lambda r: r.pop("question_en"), r"record 0: missing field\(s\) \['question_en'\]"),
        ("sivqa", lambda r: r["food_meta"].pop("food_file"), "food_meta.food_file"),
        ("textqa", lambda r: r.update(choices=["a", "b"]), "'choices' must hold 4 options"),
        (
            "mivqa",
            lambda r: r["images"].__setitem__(2, "images/missing.jpeg"),
            "image 'images/missing.jpeg' does not exist",
        ),
    ],
)
def test_malformed_records_name_file_and_record(tmp_path, task, mutate, message):
    root = build(tmp_path / "mirror", zipped=False)
    path = root / fq_data.REPO / fq_data.FILES[task]
    rows = json.loads(path.read_text())
    mutate(rows[0])
    path.write_text(json.dumps(rows, ensure_ascii=False))
    with pytest.raises(DataAccessError, match=message) as err:
        fq_data.load_docs(task, root)
    assert fq_data.FILES[task] in str(err.value)


def test_task_variant_specs():
    assert fq_data.parse_spec("sivqa_zh_dishname_noimage_p2") == {
        "fq_task": "sivqa",
        "fq_lang": "zh",
        "fq_variant": "dishname_noimage",
        "fq_template": 2,
    }
    with pytest.raises(ValueError, match="unknown task variant"):
        fq_data.parse_spec("sivqa_fr_p0")


def test_cli_prefetch_extracts_once_or_explains(tmp_path, monkeypatch, capsys):
    from food_tasks import cli

    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    assert cli.main(["prefetch", "foodieqa"]) == 1
    assert "https://huggingface.co/datasets/lyan62/FoodieQA" in capsys.readouterr().err
    monkeypatch.setenv("FOOD_TASKS_DATA_DIR", str(build(tmp_path / "mirror")))
    assert cli.main(["prefetch", "foodieqa"]) == 0
    assert "{'mivqa': 4, 'sivqa': 3, 'textqa': 4} questions" in capsys.readouterr().out
