"""FoodieQA metrics with hand-computed values: robust accuracy, invalid rate, the paper protocol with its
seeded fallback (random.Random(42) draws '0', '0', '2', '1', ... in file order), breakdowns, acc_best."""

from __future__ import annotations

import pytest
from foodieqa_fixture import doc

from food_tasks.benchmarks.foodieqa import scoring
from food_tasks.stats.metrics import group_max


def _records():
    # textqa golds: 0, 1, 2, 0 (fixture); template 3 (official split on 我选择).
    outputs = ["A", "我选择（B）", "不知道", "Answer: D"]
    return [scoring.score(doc("textqa", i), out, "textqa", "zh", 3, "（") for i, out in enumerate(outputs)]


def test_robust_accuracy_and_invalid_rate():
    records = _records()
    assert [r["parsed"] for r in records] == [0, 1, None, 3]
    assert scoring.acc(records) == 50.0  # 2 of 4 correct
    assert scoring.invalid_rate(records) == 25.0  # 1 of 4 unreadable


def test_paper_protocol_seeded_fallback_in_file_order():
    records = _records()
    # official: "A" -> 0 ok; "...（B）" -> 1 ok; "不知道" -> fallback; "Answer: D" -> "A" (0) = gold 0 ok.
    assert [r["paper"] for r in records] == [0, 1, None, 0]
    # Text QA fallback is always "0" (parse_textqa_res reseeds 42 every call): "0" != gold 2 -> 3 of 4.
    assert scoring.acc_paper_protocol(records) == 75.0
    assert [p for _, p in scoring.paper_predictions(records)] == [0, 1, 0, 0]
    assert scoring.paper_fallback_rate(records) == 25.0
    # Order-independent: records arriving shuffled (batches, ranks) give the same number.
    assert scoring.acc_paper_protocol(records[::-1]) == 75.0


def test_vqa_fallback_draws_follow_file_order():
    records = [{"index": i, "gold": g, "paper": None, "paper_fallback": None} for i, g in enumerate([0, 0, 2, 1, 3])]
    # draws '0','0','2','1','1' -> correct on the first four
    assert scoring.acc_paper_protocol(records) == 80.0
    assert [p for _, p in scoring.paper_predictions(records)] == [0, 0, 2, 1, 1]


def test_breakdowns_by_question_type_and_category():
    records = [
        scoring.score(doc("mivqa", i), out, "mivqa", "zh", 0, "图") for i, out in enumerate(["B", "D", "C", "第三张"])
    ]
    # golds 1, 3, 0, 2 -> correct, correct, wrong, correct
    assert scoring.acc(records) == 75.0
    table = scoring.per_question_type(records)
    assert table == {
        "cooking-skills": {"n": 1, "acc": 100.0, "invalid_rate": 0.0},
        "ingredients": {"n": 1, "acc": 0.0, "invalid_rate": 0.0},
        "taste": {"n": 2, "acc": 100.0, "invalid_rate": 0.0},
    }
    assert scoring.per_category(records)["川"] == {"n": 2, "acc": 50.0, "invalid_rate": 0.0}


def test_breakdowns_keep_records_without_a_category_or_type():
    """per_category used to drop records without ann_group / food_meta.food_type; they count under 其他 (where
    the official notebook puts cuisines it has no bucket for), untyped questions under "other"."""
    docs = [doc("sivqa", 0), dict(doc("sivqa", 1), category=""), dict(doc("sivqa", 2), category="", question_type="")]
    records = [scoring.score(d, out, "sivqa", "zh", 0, "（") for d, out in zip(docs, ["C", "D", "B"])]  # golds 2, 3, 0
    assert scoring.per_category(records) == {
        "其他": {"n": 2, "acc": 50.0, "invalid_rate": 0.0},
        "新疆菜": {"n": 1, "acc": 100.0, "invalid_rate": 0.0},
    }
    assert sum(row["n"] for row in scoring.per_category(records).values()) == len(records)
    assert scoring.per_question_type(records)["other"] == {"n": 1, "acc": 0.0, "invalid_rate": 0.0}
    # Text QA has no category at all: no breakdown rather than one bucket holding everything.
    assert scoring.per_category(_records()) == {}


def test_per_question_type_under_the_official_protocol():
    """Paper Fig. 8 was computed with the official parser: the seeded predictions of the whole task, per type."""
    # mivqa golds 1, 3, 0, 2; types cooking-skills, taste, ingredients, taste.
    outputs = ["Answer: B", "D", "图A", "不知道"]  # official reads A (from "Answer"), D, A, fallback
    records = [scoring.score(doc("mivqa", i), out, "mivqa", "zh", 0, "图") for i, out in enumerate(outputs)]
    assert [r["paper"] for r in records] == [0, 3, 0, None]
    # Random(42) draws "0" first for the one fallback (gold 2): wrong.
    assert scoring.per_question_type_paper_protocol(records) == {
        "cooking-skills": {"n": 1, "acc": 0.0, "fallback_rate": 0.0},
        "ingredients": {"n": 1, "acc": 100.0, "fallback_rate": 0.0},
        "taste": {"n": 2, "acc": 50.0, "fallback_rate": 50.0},
    }
    assert scoring.per_question_type(records)["cooking-skills"]["acc"] == 100.0  # the robust parser reads B
    # The breakdown adds up to acc_paper_protocol, whatever order the records arrive in.
    table = scoring.per_question_type_paper_protocol(records[::-1])
    assert sum(r["n"] * r["acc"] for r in table.values()) / len(records) == scoring.acc_paper_protocol(records) == 50.0


def test_sivqa_en_reads_english_option_text():
    record = scoring.score(doc("sivqa"), "Xinjiang cuisine", "sivqa", "en", 0, "(")
    assert record["correct"] and record["paper"] is None  # no capital A-D: the official code guesses


def test_empty_and_group_max():
    assert scoring.acc([]) == 0.0 and scoring.acc_paper_protocol([]) == 0.0 and scoring.paper_fallback_rate([]) == 0.0
    assert group_max([40.0, 52.5, 47.0, 12.0], [4, 4, 4, 4]) == 52.5
    assert group_max([], []) == 0.0


def test_textqa_fallback_is_always_option_a_vqa_fallback_is_the_seeded_stream():
    textqa = [scoring.score(doc("textqa", i), "?", "textqa", "zh", 0, "（") for i in range(3)]
    sivqa = [scoring.score(doc("sivqa", i), "?", "sivqa", "zh", 0, "（") for i in range(3)]
    assert [p for _, p in scoring.paper_predictions(textqa)] == [0, 0, 0]
    assert [p for _, p in scoring.paper_predictions(sivqa)] == [0, 0, 2]  # Random(42): '0', '0', '2'
    # textqa golds 0, 1, 2 -> 1/3; sivqa golds 2, 3, 0 -> 0/3
    assert scoring.acc_paper_protocol(textqa) == pytest.approx(100 / 3) and scoring.acc_paper_protocol(sivqa) == 0.0
