"""FAM-Bench parsers and metric reducers, with hand-computed expected values.

Official behaviour: anonymous-research-artifact123/Food-as-medicine@abfaf02 ``code/task1/run_task1.py`` and
``run_q2.py`` (Task 1), ``code/task2/evaluate.py`` (Task 2); robust parsers: yaml_tasks/fambench/README.md.
"""

from __future__ import annotations

import math

import pytest

from food_tasks.benchmarks.fambench import data as fb_data
from food_tasks.benchmarks.fambench import parsing as fb_parsing
from food_tasks.benchmarks.fambench import scoring as fb_scoring
from food_tasks.stats import metrics

NR, R = fb_parsing.NOT_REC, fb_parsing.REC

# ------------------------------------------------- Task 1 official parser (run_task1._parse_output, run_q2 helpers)

OFFICIAL_T1 = [
    ('{"decision": "not_recommend", "rationale_ingredients": []}', None, False),  # underscore not accepted
    ("Decision: Not Recommended. The dish is high in sodium.", R, False),  # the regex alternation bug
    ("I recommend against this dish.", R, False),
    ('<think>Schema: {"decision": "recommend|not recommend"} ...</think>{"decision": "not recommend"}', R, False),
    ('{"decision": "Recommend.", "rationale_ingredients": [{"condition": "x", "ingredients": ["y"]}]}', R, False),
    ('Here you go:\n```json\n{"decision": "not recommend"}\n```\nHope this helps.', NR, True),  # via first object
    ('{"decision": "no"}', NR, True),
    ('```json\n{"decision": "Not  Recommended"}\n```', NR, True),  # whitespace collapsed
    ('{"decision": ["recommend"]}', R, False),  # list value is not a word; the loose regex still finds one
    ("", None, False),
    (
        '{"verdict": "fine"} then {"decision": "avoid"}',
        NR,
        False,
    ),  # first object parses, lacks decision; loose regex finds no word
]


@pytest.mark.parametrize("raw,decision,strict", OFFICIAL_T1)
def test_task1_official_parser(raw, decision, strict):
    out = fb_parsing.parse_task1_official(raw)
    assert (out["decision"], out["strict_json"]) == (decision, strict)


def test_task1_official_parser_rationale_only_with_strict_json():
    out = fb_parsing.parse_task1_official(
        '{"decision": "Recommend.", "rationale_ingredients": [{"condition": "a", "ingredients": ["b"]}]}'
    )
    assert out["rationale"] == []  # loose fallback drops the rationale
    out = fb_parsing.parse_task1_official(
        'noise {"decision": "recommend", "rationale_ingredients": '
        '[{"condition": "Type_2-Diabetes", "ingredients": ["Soy-Sauce!", "soy sauce", ""]}, '
        '{"condition": "", "ingredients": ["x"]}]}'
    )
    assert out == {
        "decision": R,
        "strict_json": True,
        "rationale": [{"condition": "type 2 diabetes", "ingredients": ["soy sauce"]}],
    }


# --------------------------------------------------------------------------- Task 1 robust parser

ROBUST_T1 = [
    ('{"decision": "not_recommend"}', NR, True),
    ("Decision: Not Recommended. The dish is high in sodium.", NR, False),
    ("I recommend against this dish.", None, False),  # free prose is invalid, never guessed
    ('<think>Schema: {"decision": "recommend|not recommend"}</think>{"decision": "not recommend"}', NR, True),
    ('<think>unterminated {"decision": "recommend"}', None, False),
    ('{"decision": "Recommend."}', R, True),
    ('{"decision": "Don\'t recommend"}', NR, True),
    ('{"decision": "ｎｏｔ ｒｅｃｏｍｍｅｎｄ"}', NR, True),  # NFKC
    ('Draft {"decision": "recommend"} ... final answer:\n```json\n{"decision": "not recommend",}\n```', NR, True),
    ('{"decision": "recommend"} and then I changed my mind {"decision": "unsuitable"}', NR, True),  # last object wins
    ('{"decision": "maybe"}', None, True),
    ("After weighing everything.\nFinal decision: **recommend**", R, False),
    ("", None, False),
]


@pytest.mark.parametrize("raw,decision,json_found", ROBUST_T1)
def test_task1_robust_parser(raw, decision, json_found):
    out = fb_parsing.parse_task1(raw)
    assert (out["decision"], out["json"]) == (decision, json_found)


# ---------------- Task 2 parsers (official: evaluate._parse_json_ranking, _parse_decision_payload, _parse_letter)

OFFICIAL_RANK = [
    ("Ranking (best to worst): B > A > D > C", list("ABDC")),  # letters of RANKING and BEST come first
    ("Based on the analysis, C is best, then A, B, D.", list("BADC")),
    ('{"ranking": ["B","A","D"], "best_option": "B"}', []),
    ('{"ranking": ["Option B","Option A","Option D","Option C"], "best_option": "B"}', list("BADC")),
    ('{"ranking": ["b","a","d","c"]}', list("BADC")),
    ('```json\n{"ranking": ["C", "D", "A", "B"], "best_option": "C"}\n```', list("CDAB")),
    ("I think A is best.", []),
]


@pytest.mark.parametrize("raw,expected", OFFICIAL_RANK)
def test_ranking_official(raw, expected):
    assert fb_parsing.parse_ranking_official(raw) == expected


ROBUST_RANK = [
    ("Ranking (best to worst): B > A > D > C", list("BADC")),
    ("Based on the analysis, C is best, then A, B, D.", None),  # no explicit sequence: invalid
    ('{"ranking": ["B","A","D"], "best_option": "B"}', None),
    (
        '{"ranking": ["Option B","(A)","D.","ｃ"], "best_option": "A"}',
        list("BADC"),
    ),  # best_option conflict: ranking kept
    ('{"ranking": ["b","a","d","c"]}', list("BADC")),
    ("<think>maybe A > B > C > D</think>\nFinal: D, C, B, A", list("DCBA")),
    ("1. C\n2. Option A\n3. B\n4. D", list("CABD")),
    ("A then B then C then D", list("ABCD")),
    ('{"ranking": ["A", "A", "B", "C"]}', None),
    ("", None),
]


@pytest.mark.parametrize("raw,expected", ROBUST_RANK)
def test_ranking_robust(raw, expected):
    assert fb_parsing.parse_ranking(raw) == expected


def test_decisions_official_all_or_nothing():
    ok = (
        '{"option_decisions": {"A": {"decision": "Recommend"}, "b": {"decision": "not recommend"}, '
        '"C": {"decision": "not-recommend"}, "D": {"decision": "recommend", "risk_level": "extreme"}}}'
    )
    assert fb_parsing.parse_decisions_official(ok) == {
        "A": "recommend",
        "B": "not_recommend",
        "C": "not_recommend",
        "D": "recommend",
    }
    one_bad = ok.replace('"not-recommend"', '"avoid"')
    assert fb_parsing.parse_decisions_official(one_bad) is None
    assert fb_parsing.parse_decisions_official('{"option_decisions": {"A": {"decision": "recommend"}}}') is None
    assert fb_parsing.parse_decisions_official("prose only") is None


def test_decisions_robust_per_option():
    raw = (
        '<think>{"option_decisions": {}}</think>{"option_decisions": {"A": {"decision": "Not Recommended"}, '
        '"option b": {"decision": "recommend"}, "C": "avoid", "D": {"decision": "maybe"}}}'
    )
    assert fb_parsing.parse_decisions(raw) == {"A": "not_recommend", "B": "recommend", "C": "not_recommend", "D": None}
    assert fb_parsing.parse_decisions("nothing") == dict.fromkeys("ABCD")


# --------------------------------------------------------------------------- metrics


def test_rationale_counts_hand_computed():
    pred = [{"condition": "type 2 diabetes", "ingredients": ["bulgur wheat", "olive oil"]}]
    gold = [{"condition": "type 2 diabetes", "ingredients": ["bulgur wheat", "sweet potato"]}]
    assert fb_scoring.rationale_counts(pred, gold) == {
        "tp": 1,
        "fp": 1,
        "fn": 1,
        "precision": 0.5,
        "recall": 0.5,
        "f1": 0.5,
    }
    # "diabetes" != "type 2 diabetes": exact match after normalisation, as officially.
    assert fb_scoring.rationale_counts([{"condition": "diabetes", "ingredients": ["bulgur wheat"]}], gold)["tp"] == 0
    # Empty prediction and empty gold: F1 0 (official convention), not 1.
    assert fb_scoring.rationale_counts([], [])["f1"] == 0.0
    assert fb_scoring.rationale_counts([], gold) == {
        "tp": 0,
        "fp": 0,
        "fn": 2,
        "precision": 0.0,
        "recall": 0.0,
        "f1": 0.0,
    }


def test_micro_and_macro_by_condition_hand_computed():
    rows = [
        {"tp": 1, "fp": 1, "fn": 1, "focal": ["type 2 diabetes"]},
        {"tp": 2, "fp": 1, "fn": 0, "focal": ["type 2 diabetes", "hypertension"]},
        {"tp": 0, "fp": 0, "fn": 2, "focal": ["hypertension"]},
        {"tp": 0, "fp": 0, "fn": 0, "focal": ["ibs"]},
    ]
    # pooled: tp 3, fp 2, fn 3 -> P 3/5, R 1/2, F1 = 0.6 / 1.1
    assert metrics.micro_prf(rows) == pytest.approx((0.6, 0.5, 6 / 11))
    # diabetes: tp 3 fp 2 fn 1 -> P .6 R .75 F1 2/3; hypertension: tp 2 fp 1 fn 2 -> P 2/3 R 1/2 F1 4/7; ibs: 0
    value, per = fb_scoring.macro_f1_by_condition(rows, list(fb_data.CONDITIONS))
    assert per == pytest.approx({"type 2 diabetes": 2 / 3, "hypertension": 4 / 7, "ibs": 0.0})
    assert value == pytest.approx((2 / 3 + 4 / 7) / 3)


def test_map_conditions():
    assert fb_data.map_conditions("Is this dish suitable for someone managing diabetes?") == ["type 2 diabetes"]
    assert fb_data.map_conditions("heart failure") == ["heart failure"]
    assert fb_data.map_conditions("Type-2 Diabetes & hypertension") == ["hypertension", "type 2 diabetes"]
    assert fb_data.map_conditions("CKD") == ["chronic kidney disease"]
    assert fb_data.map_conditions("gout") == []


def test_reciprocal_rank_and_kendall():
    assert metrics.reciprocal_rank(list("BACD"), "A") == 0.5
    assert metrics.reciprocal_rank(None, "A") == 0.0
    assert metrics.kendall_tau(list("ABDC"), list("ABCD")) == pytest.approx(4 / 6)
    assert metrics.kendall_tau(list("DCBA"), list("ABCD")) == -1.0
    assert metrics.kendall_tau(list("ABC"), list("ABCD")) == 0.0
    assert metrics.kendall_tau(list("ABCDE"), list("DCBA")) == 0.0  # not the same items
    assert metrics.kendall_tau([3, 1, 2], [1, 2, 3]) == pytest.approx(-1 / 3)  # generic: (1 - 2) / 3 pairs


def test_consistency_pairs_and_ctc():
    # rec {A, C}, not {B, D}; ranking C > B > A > D: C>B yes, C>D yes, A>B no, A>D yes.
    assert fb_scoring.consistency_pairs(
        list("CBAD"), {"A": "recommend", "B": "not_recommend", "C": "recommend", "D": "not_recommend"}
    ) == (3, 4)
    # All options recommended: no discriminating pair.
    assert fb_scoring.consistency_pairs(list("ABCD"), dict.fromkeys("ABCD", "recommend")) == (0, 0)
    assert fb_scoring.ctc([(3, 4), (0, 0), (1, 3)]) == pytest.approx(4 / 7)  # micro, not the mean of 3/4 and 1/3
    assert math.isnan(fb_scoring.ctc([(0, 0)]))


def _rank(qid, mode, ranking, official=None, missing=False, letter=False):  # type: ignore[no-untyped-def]
    official = official if official is not None else (ranking or [])
    return {
        "question_id": qid,
        "kind": "rank",
        "mode": mode,
        "image_missing": missing,
        "ranking": ranking,
        "ranking_official": official,
        "parsed_official": bool(official) or letter,
    }


def _dec(qid, mode, decisions, official="same", missing=False, letter=False):  # type: ignore[no-untyped-def]
    decisions = dict(zip("ABCD", decisions)) if decisions else dict.fromkeys("ABCD")
    official = decisions if official == "same" else official
    return {
        "question_id": qid,
        "kind": "decision",
        "mode": mode,
        "image_missing": missing,
        "decisions": decisions,
        "decisions_official": official,
        "parsed_official": bool(official) or letter,
    }


def test_ctc_intersection_pool_over_modes():
    rec, nrec = "recommend", "not_recommend"
    records = [
        # q1 valid in both modes
        _rank("Q1", "baseline", list("ABCD")),
        _dec("Q1", "baseline", [rec, nrec, rec, nrec]),  # A>B A>D C>D ok, C>B no: 3/4
        _rank("Q1", "cot", list("DCBA")),
        _dec("Q1", "cot", [rec, rec, nrec, nrec]),  # A,B below C,D: 0/4
        # q2 valid in baseline only -> outside the shared pool, inside the baseline-only pool
        _rank("Q2", "baseline", list("ABCD")),
        _dec("Q2", "baseline", [rec, nrec, nrec, nrec]),  # 3/3
        _rank("Q2", "cot", None),
        _dec("Q2", "cot", [rec, nrec, nrec, nrec]),
        # q3 valid in both but its images are missing
        _rank("Q3", "baseline", list("ABCD"), missing=True),
        _dec("Q3", "baseline", [rec, nrec, nrec, nrec], missing=True),
        _rank("Q3", "cot", list("ABCD"), missing=True),
        _dec("Q3", "cot", [rec, nrec, nrec, nrec], missing=True),
    ]
    values, pool, pairs = fb_scoring.ctc_table(records, ("baseline", "cot"))
    assert pool == 1 and values == {"baseline": 0.75, "cot": 0.0} and pairs == {"baseline": 4, "cot": 4}
    values, pool, _ = fb_scoring.ctc_table(records, ("baseline",))
    assert pool == 2 and values["baseline"] == pytest.approx(6 / 7)
    assert fb_scoring.ctc_value(records, ("baseline", "cot"), "cot") == 0.0
    assert fb_scoring.ctc_value([r for r in records if r["mode"] == "baseline"], field="pool") == 2
    assert fb_scoring.image_missing(records) == 1


def test_task2_rank_metrics_denominators():
    records = [
        {**_rank("Q1", "baseline", list("ABDC")), "gold_letter": "A", "gold_ranking": list("ABCD")},
        {**_rank("Q2", "baseline", None, official=list("BADC")), "gold_letter": "C", "gold_ranking": list("CADB")},
        {**_rank("Q3", "baseline", list("BADC")), "gold_letter": "B", "gold_ranking": list("BDAC")},
        {**_rank("Q4", "baseline", list("ABCD"), missing=True), "gold_letter": "D", "gold_ranking": list("DCBA")},
        {**_rank("Q5", "baseline", None, official=[]), "gold_letter": "A", "gold_ranking": list("ABCD")},
        {**_rank("Q6", "baseline", list("CBAD")), "gold_letter": "A", "gold_ranking": list("ABCD")},
        {**_rank("Q7", "baseline", None, official=[], letter=True), "gold_letter": "A", "gold_ranking": list("ABCD")},
    ]
    # Evaluated: Q1, Q2, Q3, Q5, Q6, Q7 (Q4 image missing). Robust RR: 1, 0, 1, 0, 1/3, 0.
    assert fb_scoring.t2_topk(records) == pytest.approx(200 / 6)
    assert fb_scoring.t2_topk(records, k=3) == pytest.approx(50.0)
    assert fb_scoring.t2_mrr(records) == pytest.approx((2 + 1 / 3) / 6)  # paper: all questions
    assert fb_scoring.t2_mrr(records, parsed_only=True) == pytest.approx(
        (2 + 1 / 3) / 3
    )  # official denominator, robust parse
    # Official: Q1 1, Q2 1/4, Q3 1, Q6 round(1/3, 6), Q7 0 (a bare letter makes the row "parsed");
    # Q5 unparsed (outside the denominator).
    assert fb_scoring.t2_mrr_official(records) == round((1 + 0.25 + 1 + 0.333333) / 5, 6)
    assert fb_scoring.t2_topk(records, official=True) == 33.33
    assert fb_scoring.t2_valid_rate(records) == pytest.approx(3 / 6)
    # official answer_rate_pct: the 5 "parsed" rows (4 rankings and Q7's bare letter) of 6, rounded to 2
    assert fb_scoring.t2_answer_rate_official(records) == 83.33
    # Kendall tau over robust-parsed rows: Q1 4/6, Q3 4/6, Q6 (CBAD vs ABCD) 0.
    assert fb_scoring.t2_kendall(records) == pytest.approx((4 / 6 + 4 / 6 + 0) / 3)


def test_task2_decision_metrics():
    rec, nrec = "recommend", "not_recommend"
    gold = {"A": rec, "B": nrec, "C": nrec, "D": nrec}
    records = [
        {**_dec("Q1", "baseline", [rec, nrec, nrec, nrec]), "gold_labels": gold},  # 4/4
        {
            **_dec("Q2", "baseline", [rec, rec, None, nrec], official=None, letter=True),
            "gold_labels": gold,
        },  # robust 2/4, official 0/4
        {**_dec("Q3", "baseline", [nrec, rec, rec, nrec]), "gold_labels": {**gold, "D": ""}},  # 0/3 labelled
    ]
    assert fb_scoring.t2_option_acc(records) == pytest.approx(100 * 6 / 11)
    assert fb_scoring.t2_option_acc(records, official=True) == round(100 * 4 / 11, 2)
    assert fb_scoring.t2_exact_match(records) == pytest.approx(100 / 3)
    assert fb_scoring.t2_false_recommend(records) == pytest.approx(100 * 3 / 11)  # Q2 B, Q3 B and C
    assert fb_scoring.t2_valid_rate(records, kind="decision") == pytest.approx(2 / 3)
    # official answer_rate_pct: Q2 has no payload but an answer letter, so all three rows are "parsed"
    assert fb_scoring.t2_answer_rate_official(records, kind="decision") == 100.0
    assert fb_scoring.t2_answer_rate_official(records[2:], kind="decision") == 100.0
    assert fb_scoring.t2_answer_rate_official([{**records[1], "parsed_official": False}], kind="decision") == 0.0


def test_official_letter_fallback_marks_rank_rows_parsed():
    assert fb_parsing.parse_letter_official(" c ") == "C"
    assert fb_parsing.parse_letter_official("A or B? B") == "A"
    assert fb_parsing.parse_letter_official("Ｃ") == ""  # full-width: unparsed officially
    assert (
        fb_parsing.rank_parsed_official("I think A is best.")
        and fb_parsing.parse_ranking_official("I think A is best.") == []
    )
    assert not fb_parsing.rank_parsed_official("no letters here")
    assert fb_parsing.rank_parsed_official('{"ranking": ["B","B","B","B"], "best_option": "B"}')  # "B" stands alone


def test_official_percentages_round_like_the_official_code():
    # round((23 / 160) * 100, 2) = 14.37, while round(100 * 23 / 160, 2) = 14.38: the operation order matters.
    assert fb_scoring.pct_official(23, 160) == 14.37
    assert fb_scoring.pct_official(2007, 4000) == 50.18  # 100 * 2007 / 4000 would round to 50.17
    assert fb_scoring.pct_official(1, 0) == 0.0


@pytest.mark.parametrize(
    "raw",
    [
        "[" * 5000,
        '{"decision": "recommend", "deep": ' + "[" * 5000 + "]" * 5000 + "}",
        '{"ranking": ' + "[" * 5000 + "]" * 5000 + "}",
    ],
)
def test_deeply_nested_output_never_crashes(raw):
    # A model stuck repeating "[" nests past Python's recursion limit; every parser must survive it.
    assert fb_parsing.parse_task1(raw)["decision"] in (None, R)
    assert fb_parsing.parse_task1_official(raw)["decision"] in (None, R)
    assert fb_parsing.parse_ranking(raw) is None and fb_parsing.parse_ranking_official(raw) == []
    assert fb_parsing.parse_decisions_official(raw) is None and fb_parsing.parse_decisions(raw) == dict.fromkeys("ABCD")
