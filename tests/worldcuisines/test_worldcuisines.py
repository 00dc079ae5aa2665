"""WorldCuisines: document preparation, image join, per-document scoring and aggregation
(hand-computed expectations), on mirrors in the official layout built by tests/conftest.py."""

from __future__ import annotations

import math

import pytest
from conftest import build_wc_mirror

from food_tasks.benchmarks.worldcuisines import data as wc_data
from food_tasks.benchmarks.worldcuisines import scoring as wc_scoring
from food_tasks.data import hub as data
from food_tasks.stats import metrics


def test_prepare_docs_large_selects_subtask_and_keeps_prompts_verbatim(wc_root):
    ds = wc_data.prepare_docs("large", "1a_nocontext", root=wc_root)
    assert len(ds) == 6 and set(ds["prompt_type"]) == {"1"}
    assert sorted(set(ds["lang"])) == ["en", "nan", "zh_cn"]  # Hokkien "nan" stays a string
    zh = next(d for d in ds if d["lang"] == "zh_cn" and d["qa_id"] == "400")
    assert zh["multi_choice_prompt"].startswith("  What is this")  # leading spaces kept
    assert zh["options"] == ["煎饼", "Terang Bulan", "Syrniki", "Murtabak", "Sapin-sapin"]
    assert zh["answers_all"] == ["Serabi", "煎饼"] and zh["answer_en"] == "Serabi"


def test_prepare_docs_task2_uses_config_task2(wc_root):
    ds = wc_data.prepare_docs("large", "2_location", root=wc_root)
    assert sorted(set(ds["qa_id"])) == ["1900", "1901"]


def test_smallref_selects_large_rows_matching_small(wc_root):
    # test_small qa 0 shares (food_id, prompt_id, image_url) with test_large qa 400 only.
    ds = wc_data.prepare_docs("smallref", "1a_nocontext", root=wc_root)
    assert sorted(set(ds["qa_id"])) == ["400"] and len(ds) == 3
    small = wc_data.prepare_docs("small", "1a_nocontext", root=wc_root)
    assert sorted(set(small["qa_id"])) == ["0"]


def test_language_filter_keeps_reference_sets_from_the_whole_split(wc_root, monkeypatch):
    monkeypatch.setenv(wc_data.LANGS_ENV, "zh_cn")
    ds = wc_data.prepare_docs("large", "1a_nocontext", root=wc_root)
    assert set(ds["lang"]) == {"zh_cn"}
    # multi-reference set still holds the English answer although "en" was not selected
    assert ds[0]["answers_all"] == ["Serabi", "煎饼"]


def test_unknown_language_is_a_clear_error(monkeypatch):
    monkeypatch.setenv(wc_data.LANGS_ENV, "en,klingon")
    with pytest.raises(ValueError, match="klingon"):
        wc_data.selected_languages()


def test_mirror_without_dataset_card_falls_back_to_hf_prompt_files(tmp_path):
    root = build_wc_mirror(tmp_path, with_card=False)
    wc_data.load_split.cache_clear()
    ds = wc_data.prepare_docs("large", "1b_contextualized", root=root)
    assert len(ds) == 6


def test_missing_mirror_names_the_expected_path(tmp_path, monkeypatch):
    monkeypatch.setenv(data.DATA_DIR_ENV, str(tmp_path))
    with pytest.raises(
        data.DataAccessError, match=r"worldcuisines/vqa.*does not exist.*`hf download worldcuisines/vqa"
    ):
        wc_data.prepare_docs("large", "1a_nocontext")


def test_missing_split_file_in_mirror_names_the_glob(tmp_path):
    (tmp_path / "worldcuisines" / "vqa").mkdir(parents=True)
    wc_data.load_split.cache_clear()
    with pytest.raises(
        data.DataAccessError, match=r"split folder .*hf_prompt/large_eval_task1 is missing from the mirror"
    ):
        wc_data.prepare_docs("large", "1a_nocontext", root=tmp_path)


def test_images_join_by_exact_url_and_decode_lazily(wc_root):
    image = wc_data.kb_image("https://upload.wikimedia.org/wikipedia/commons/x/422.jpg?download", root=wc_root)
    assert image.mode == "RGB" and image.size == (24, 24)
    with pytest.raises(data.DataAccessError, match="no image stored for URL"):
        wc_data.kb_image("https://upload.wikimedia.org/wikipedia/commons/x/422.jpg", root=wc_root)  # no ?download


def test_corrupt_image_names_row_column_and_url(tmp_path):
    from food_tasks.benchmarks.worldcuisines import layout as wc_layout
    from food_tasks.data import mirror

    wc_layout.write_wc_kb(
        tmp_path,
        [
            {"food_id": "1", "name": "ok", "images": [("u1", mirror.png_bytes((1, 2, 3)))]},
            {"food_id": "2", "name": "bad", "images": [("u0", mirror.png_bytes((1, 2, 3))), ("u2", b"not an image")]},
        ],
    )
    store = data.ImageStore(
        data.load_hub_split(wc_data.KB_REPO, None, "main", root=tmp_path), wc_data.KB_IMAGE_COLUMNS, source="kb"
    )
    assert len(store) == 3 and store.get("u1").size == (32, 32)
    with pytest.raises(data.CorruptImageError, match=r"row 1, column 'image2' \(URL 'u2'\)"):
        store.get("u2")


# ------------------------------------------------------------------ scoring and aggregation

PROMPT = (
    "What is this culinary dish called?\n1. Serabi\n2. Terang Bulan\n3. Syrniki\n4. Murtabak\n\n"
    "Print only the answer with a single answer id (1,2,3,4,5)."
)


def _doc(lang="en", qa_id="400", gold=1, answer="Serabi", answers_all=("Serabi", "煎饼"), answer_en="Serabi"):
    from food_tasks.benchmarks.worldcuisines import parsing as wc_parsing

    return {
        "qa_id": qa_id,
        "lang": lang,
        "multi_choice_prompt": PROMPT,
        "options": wc_parsing.parse_mcq_options(PROMPT),
        "multi_choice_answer": gold,
        "answer": answer,
        "answers_all": list(answers_all),
        "answer_en": answer_en,
    }


@pytest.mark.parametrize(
    ("response", "correct", "official", "invalid"),
    [
        ("1", True, True, False),
        ("Serabi", True, False, False),  # option text: robust reads it, the official scorer never scores it
        ("(1,2,3,4,5) 4", False, True, False),  # echoed instruction: officially the first digit (1) wins
        ("5", False, False, True),  # a 4-option row: 5 is invalid, not merely wrong
        ("", False, False, True),
    ],
)
def test_score_mcq(response, correct, official, invalid):
    record = wc_scoring.score_mcq(_doc(), response)
    assert (record["correct"], record["correct_official"], record["invalid"]) == (correct, official, invalid)


def test_score_oeq_modes():
    # zh_cn row answered in English: multi and dual accept it, single (own language) does not.
    record = wc_scoring.score_oeq(_doc(lang="zh_cn", answer="煎饼"), "Serabi")
    assert (record["multi"], record["single"], record["dual"]) == (True, False, True)
    # A name mentioned only while reasoning counts officially, not in our primary metric.
    record = wc_scoring.score_oeq(_doc(), "<think>serabi?</think>a pancake")
    assert (record["multi"], record["multi_official"]) == (False, True)


def test_mcq_aggregation_macro_over_languages_and_official_rounding():
    # en 2/2, zh_cn 1/2, nan 0/1 correct: micro would be 3/5 = 60.0
    # macro = (100 + 50 + 0) / 3 = 50.0; official: cells 100.0, 50.0, 0.0 -> 50.0
    # official with thirds: en 1/3 -> 33.33, zh_cn 2/3 -> 66.67 -> mean 50.0 exactly
    items = [
        {"lang": "en", "correct": True},
        {"lang": "en", "correct": True},
        {"lang": "zh_cn", "correct": True},
        {"lang": "zh_cn", "correct": False},
        {"lang": "nan", "correct": False},
    ]
    assert wc_scoring.macro("correct", items) == pytest.approx(50.0)
    assert metrics.percent_true(items, "correct") == pytest.approx(60.0)
    thirds = [{"lang": "en", "c": i == 0} for i in range(3)] + [{"lang": "zh_cn", "c": i < 2} for i in range(3)]
    assert metrics.macro_percent_official(thirds, "c", "lang") == (50.0, {"en": 33.33, "zh_cn": 66.67})
    # mean of rounded cells, rounded: (33.33 + 66.67 + 66.67) / 3 = 55.5566.. -> 55.56
    more = thirds + [{"lang": "ar", "c": i < 2} for i in range(3)]
    assert metrics.macro_percent_official(more, "c", "lang")[0] == 55.56
    assert wc_scoring.macro("c", more) == pytest.approx((100 / 3 + 200 / 3 + 200 / 3) / 3)


def test_group_mean_official_rounds_the_mean_of_rounded_subtasks():
    assert metrics.group_mean_official([33.33, 100.0, 0.0, 100.0], [6, 6, 6, 6]) == 58.33  # 58.3325
    assert metrics.group_mean([50.0, 100.0], [1, 3]) == 75.0
    assert metrics.group_mean([50.0, 100.0], [1, 3], weight_by_size=True) == 87.5


def test_per_language_tables():
    items = [wc_scoring.score_mcq(_doc(lang=lang), r) for lang, r in (("en", "1"), ("en", "Serabi"), ("nan", "zzz"))]
    table = wc_scoring.per_language_mcq(items)
    assert table == {
        "en": {"n": 2, "acc": 100.0, "acc_official": 50.0, "invalid_rate": 0.0},
        "nan": {"n": 1, "acc": 0.0, "acc_official": 0.0, "invalid_rate": 100.0},
    }


def test_empty_aggregation_is_zero():
    assert (
        wc_scoring.macro("correct", []) == 0.0
        and wc_scoring.macro_official("correct", []) == 0.0
        and wc_scoring.invalid_rate([]) == 0.0
    )


def test_bertscore_disabled_reports_nan_not_an_exception(monkeypatch):
    monkeypatch.setenv("FOOD_TASKS_BERTSCORE", "0")
    items = [wc_scoring.score_oeq(_doc(), "Serabi")]
    assert math.isnan(wc_scoring.bertscore_f1(items)) and wc_scoring.per_language_bertscore(items) == {}


def test_bertscore_missing_model_reports_nan(monkeypatch, tmp_path):
    monkeypatch.setenv("FOOD_TASKS_BERTSCORE_MODEL", str(tmp_path / "no-such-model"))
    assert math.isnan(wc_scoring.bertscore_f1([wc_scoring.score_oeq(_doc(), "Serabi")]))


def test_bertscore_with_local_model_identical_is_100_and_empty_is_0(monkeypatch, tiny_bert):
    monkeypatch.setenv("FOOD_TASKS_BERTSCORE_MODEL", str(tiny_bert))
    monkeypatch.setenv("FOOD_TASKS_BERTSCORE_LAYERS", "2")
    # en: identical (100) and empty (0) -> 50; zh_cn: identical -> 100; macro = 75
    items = [
        wc_scoring.score_oeq(_doc(lang="en"), "Serabi"),
        wc_scoring.score_oeq(_doc(lang="en", answer="Goetta"), ""),
        wc_scoring.score_oeq(_doc(lang="zh_cn", answer="Syrniki"), "Syrniki"),
    ]
    assert wc_scoring.bertscore_f1(items) == pytest.approx(75.0, abs=1e-3)
    assert wc_scoring.per_language_bertscore(items) == pytest.approx({"en": 50.0, "zh_cn": 100.0}, abs=1e-3)


def test_official_rounding_mcq_python_round_oeq_numpy_round():
    # score_mc rounds Python floats, score_oe rounds numpy.float64: they differ on ties.
    # 70.30 / 4 = 17.575 -> Python round 17.57, numpy.round 17.58 (official llama-3.2-11b small OEQ average).
    assert metrics.group_mean_official([14.37, 19.20, 9.50, 27.23], [1] * 4) == 17.57
    assert metrics.group_mean_official_numpy([14.37, 19.20, 9.50, 27.23], [1] * 4) == 17.58
    import numpy as np

    for value in (17.575, 0.125, 2.675, 33.335, 66.665, 12.345):
        assert metrics.round_numpy(value, 2) == float(np.round(np.float64(value), 2))
