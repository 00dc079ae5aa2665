"""WorldCuisines on damaged copies of a mirror in the official layout: every case either stops before
generation with a message naming the file (and line), or is scored with the damage counted.

Unit level here; the lmms-eval CLI runs (stop message as the last line of stderr, image_missing in the
results file) are in test_worldcuisines_damaged_e2e.py.
"""

from __future__ import annotations

import json
from pathlib import Path

import datasets
import pytest
from conftest import WC_TASK1, build_all_languages_mirror, build_wc_mirror, corrupt_wc_kb, wc_kb

from food_tasks.benchmarks.worldcuisines import data as wc_data
from food_tasks.benchmarks.worldcuisines import layout as wc_layout
from food_tasks.benchmarks.worldcuisines import scoring as wc_scoring
from food_tasks.data import hub as data


def _lines(path: Path) -> list[str]:
    return path.read_text(encoding="utf-8").splitlines()


def test_all_thirty_languages_are_required_without_a_selection(tmp_path, monkeypatch):
    monkeypatch.delenv(wc_data.LANGS_ENV)
    root = build_all_languages_mirror(tmp_path)
    ds = wc_data.prepare_docs("large", "1a_nocontext", root=root)
    assert len(ds) == 30 * 2 and len(set(ds["lang"])) == 30


def test_missing_language_file_stops_and_names_the_file(tmp_path, monkeypatch):
    monkeypatch.delenv(wc_data.LANGS_ENV)
    root = build_all_languages_mirror(tmp_path)
    (root / WC_TASK1 / "yo_large_eval_task1.jsonl").unlink()
    with pytest.raises(data.DataAccessError) as err:
        wc_data.prepare_docs("large", "1b_contextualized", root=root)
    message = str(err.value)
    assert (
        f"{root / WC_TASK1 / 'yo_large_eval_task1.jsonl'}" in message
        and "1 of the 30 expected language files" in message
    )
    assert "FOOD_TASKS_WORLDCUISINES_LANGS" in message and "hf download worldcuisines/vqa" in message
    # Task 2 lives in another folder and is complete: it still loads.
    assert len(wc_data.prepare_docs("large", "2_location", root=root)) == 60


def test_explicit_language_selection_may_leave_files_out(tmp_path, monkeypatch):
    root = build_all_languages_mirror(tmp_path)
    (root / WC_TASK1 / "yo_large_eval_task1.jsonl").unlink()
    monkeypatch.setenv(wc_data.LANGS_ENV, "en,ar")
    ds = wc_data.prepare_docs("large", "1a_nocontext", root=root)
    assert sorted(set(ds["lang"])) == ["ar", "en"]


def test_empty_language_file_counts_as_missing(tmp_path):
    root = build_wc_mirror(tmp_path)
    (root / WC_TASK1 / "nan_large_eval_task1.jsonl").write_text("")
    with pytest.raises(data.DataAccessError, match=r"missing or empty in the mirror: .*nan_large_eval_task1\.jsonl"):
        wc_data.prepare_docs("large", "1a_nocontext", root=root)


def test_missing_split_folder_stops_and_names_it(tmp_path):
    root = build_wc_mirror(tmp_path, small=False)
    with pytest.raises(data.DataAccessError, match=r"split folder .*hf_prompt/small_eval_task1 is missing"):
        wc_data.prepare_docs("small", "1a_nocontext", root=root)
    with pytest.raises(data.DataAccessError, match=r"split folder .*hf_prompt/small_eval_task1 is missing"):
        wc_data.prepare_docs("smallref", "1a_nocontext", root=root)


def test_truncated_language_file_names_the_language_and_items(tmp_path):
    root = build_wc_mirror(tmp_path)
    path = root / WC_TASK1 / "zh_cn_large_eval_task1.jsonl"
    path.write_text("\n".join(line for line in _lines(path) if '"qa_id": "401"' not in line) + "\n", encoding="utf-8")
    with pytest.raises(
        data.DataAccessError,
        match=r"language 'zh_cn' lacks 1 of the 2 items .*qa_id 401.*zh_cn_large_eval_task1\.jsonl is truncated",
    ):
        wc_data.prepare_docs("large", "1a_nocontext", root=root)


def test_file_of_an_unknown_language_is_refused(tmp_path):
    root = build_wc_mirror(tmp_path)
    rows = [json.loads(line) for line in _lines(root / WC_TASK1 / "en_large_eval_task1.jsonl")]
    (root / WC_TASK1 / "xx_large_eval_task1.jsonl").write_text(
        "".join(json.dumps(dict(r, lang="xx")) + "\n" for r in rows)
    )
    with pytest.raises(data.DataAccessError, match=r"language\(s\) \['xx'\] that the benchmark does not have"):
        wc_data.prepare_docs("large", "1a_nocontext", root=root)


def test_duplicated_rows_are_refused(tmp_path):
    root = build_wc_mirror(tmp_path)
    path = root / WC_TASK1 / "en_large_eval_task1.jsonl"
    path.write_text(path.read_text(encoding="utf-8") * 2, encoding="utf-8")
    with pytest.raises(data.DataAccessError, match=r"qa_id 400 appears twice for language 'en'"):
        wc_data.prepare_docs("large", "1a_nocontext", root=root)


@pytest.mark.parametrize("bad", ['{"qa_id": "401", garbage', "\x00\x01 binary garbage", '["a", "list"]'])
def test_broken_jsonl_line_names_file_and_line(tmp_path, bad):
    root = build_wc_mirror(tmp_path)
    path = root / WC_TASK1 / "zh_cn_large_eval_task1.jsonl"
    lines = _lines(path)
    path.write_text("\n".join(lines[:3] + [bad] + lines[3:]) + "\n", encoding="utf-8")
    with pytest.raises(data.DataAccessError) as err:
        wc_data.prepare_docs("large", "1c_adversarial", root=root)
    assert f"{path} line 4 " in str(err.value) and "JSON Lines" in str(err.value)


def test_truncated_kb_parquet_stops_before_generation(tmp_path):
    root = build_wc_mirror(tmp_path)
    parquet = root / "worldcuisines/food-kb/data/main-00000-of-00001.parquet"
    parquet.write_bytes(parquet.read_bytes()[:-200])
    with pytest.raises(data.DataAccessError, match=rf"{parquet} is damaged or truncated"):
        wc_data.prepare_docs("large", "2_location", root=root)


def test_published_item_counts_are_checked_on_hub_data(wc_root):
    ds = wc_data.load_split("task2", "test_large", wc_root)
    with pytest.raises(
        data.DataAccessError,
        match=r"2 items per language; the published benchmark has 500 per language with qa_ids 1900-2399",
    ):
        wc_data.check_documents(ds, "large", "2_location", ("en", "zh_cn", "nan"), from_hub=True)
    rows = [{"qa_id": str(q), "lang": lang} for q in [*range(1900, 2399), 7] for lang in ("en", "zh_cn")]
    full = datasets.Dataset.from_list(rows)
    with pytest.raises(
        data.DataAccessError, match=r"500 items per language, 1 qa_id\(s\) outside 1900-2399 \(first: 7\)"
    ):
        wc_data.check_documents(full, "large", "2_location", ("en", "zh_cn"), from_hub=True)
    ok = datasets.Dataset.from_list([{"qa_id": str(q), "lang": "en"} for q in range(1900, 2400)])
    wc_data.check_documents(ok, "large", "2_location", ("en",), from_hub=True)
    wc_data.check_documents(ds, "large", "2_location", ("en", "zh_cn", "nan"), from_hub=False)


# ------------------------------------------------------------------ images that do not load


def test_corrupt_image_is_counted_and_leaves_the_denominators(tmp_path):
    root = build_wc_mirror(tmp_path)
    bad_url = corrupt_wc_kb(root)
    ds = wc_data.prepare_docs("large", "1b_contextualized", root=root)  # qa 402 uses dish 949, qa 403 dish 422
    docs = {(d["qa_id"], d["lang"]): d for d in ds}
    bad, good = docs[("402", "en")], docs[("403", "en")]
    assert bad["image_url"] == bad_url
    assert wc_data.doc_images(bad) == [] and wc_data.image_missing(bad)
    assert len(wc_data.doc_images(good)) == 1 and not wc_data.image_missing(good)

    # qa 402 (gold 2) answered right in every language, qa 403 (gold 2) answered wrong: without the
    # exclusion 50 %; with it, only qa 403 counts -> 0 % in every language, 3 documents missing.
    records = [
        wc_scoring.score_mcq(d, "2" if d["qa_id"] == "402" else "5", image_missing=wc_data.image_missing(d)) for d in ds
    ]
    assert wc_scoring.image_missing(records) == 3
    assert wc_scoring.macro("correct", records) == 0.0
    assert wc_scoring.macro_official("correct_official", records) == 0.0
    assert wc_scoring.invalid_rate(records) == 0.0
    assert wc_scoring.per_language_mcq(records)["en"] == {"n": 1, "acc": 0.0, "acc_official": 0.0, "invalid_rate": 0.0}


def test_url_absent_from_kb_is_announced_and_counted(tmp_path):
    root = build_wc_mirror(tmp_path)
    kb = [d for d in wc_kb() if d["food_id"] != "1614"]
    wc_layout.write_wc_kb(root, kb)
    ds = wc_data.prepare_docs("large", "1a_nocontext", root=root)  # qa 401 shows dish 1614
    missing = [d for d in ds if wc_data.image_missing(d)]
    assert {d["qa_id"] for d in missing} == {"401"} and len(missing) == 3


def test_oeq_aggregates_exclude_missing_images(tmp_path):
    docs = [
        {"qa_id": q, "lang": "en", "answer": "Serabi", "answer_en": "Serabi", "answers_all": ["Serabi"]}
        for q in ("1", "2")
    ]
    records = [wc_scoring.score_oeq(docs[0], "serabi", image_missing=True), wc_scoring.score_oeq(docs[1], "no idea")]
    assert wc_scoring.image_missing(records) == 1
    assert wc_scoring.macro("multi", records) == 0.0 and wc_scoring.macro_official_oeq("multi_official", records) == 0.0
    assert wc_scoring.per_language_oeq(records)["en"]["n"] == 1


def test_sample_tasks_check_their_own_three_languages(monkeypatch):
    from food_tasks.sample_data import SAMPLE_ROOT
    from food_tasks.utils import worldcuisines as hooks

    monkeypatch.delenv(wc_data.LANGS_ENV)
    ds = hooks.docs_sample_1a(None)
    assert sorted(set(ds["lang"])) == sorted(hooks.SAMPLE_LANGUAGES)
    assert set(ds["kb_root"]) == {str(SAMPLE_ROOT)}


def test_hook_turns_data_errors_into_a_run_stop(tmp_path, monkeypatch):
    from food_tasks.utils import worldcuisines as hooks

    monkeypatch.setenv(data.DATA_DIR_ENV, str(tmp_path))
    with pytest.raises(data.RunStopped) as err:
        hooks.docs_large_1a(None)
    assert not isinstance(err.value, Exception)  # lmms-eval's retry and its `except Exception` let it through
    assert str(err.value.code).startswith("food-tasks: data error") and "does not exist" in str(err.value.code)
