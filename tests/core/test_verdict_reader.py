"""The fallback reader of judge replies (food_tasks.judge.reading.verdict_robust, issue 41) measured against the
official keyword rule (DiningBench's parse_eval_result) on a labelled set of judge replies kept apart from the code
(tests/data/judge_replies.jsonl: category, reply, the candidate answer it may quote, label = should the answer be
credited; "must": "none" where the reply says both and must be unreadable). Unreadable counts as not credited.

Run with ``-s`` to see the measured accuracies; docs/judge.md prints the same figures (checked here)."""

from __future__ import annotations

import json
from collections import defaultdict
from pathlib import Path

import pytest

from food_tasks.benchmarks.diningbench.parsing import verdict_official
from food_tasks.judge.reading import verdict_robust

ROOT = Path(__file__).resolve().parents[2]
DATA = ROOT / "tests" / "data" / "judge_replies.jsonl"
CATEGORIES = (
    "short_en",
    "short_zh",
    "reasoning",
    "quoted",
    "negation",
    "contradiction",
    "official_forms",
    "long",
    "protocol_json",
    "final_line",
    "garbage",
)


BLIND = ROOT / "tests" / "data" / "judge_replies_blind.jsonl"  # written after the reader, measured once (docs)
# found by an independent check (219/222 on its own 222 replies; these three were its misses), then fixed: not blind
INDEPENDENT = ROOT / "tests" / "data" / "judge_replies_independent.jsonl"


def _rows(path: Path = DATA) -> list[dict]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def _robust(row: dict) -> bool | None:
    return verdict_robust(row["reply"], (row["answer"], "Is it the dish of the reference?", "reference"))


def measure(rows: list[dict]) -> dict[str, tuple[int, int, int]]:
    """Per category (and ``all``): replies, credited right by the fallback reader, by the official rule."""
    out: dict[str, list[int]] = defaultdict(lambda: [0, 0, 0])
    for row in rows:
        robust = _robust(row) is True
        official = verdict_official(row["reply"])
        for key in (row["category"], "all"):
            out[key][0] += 1
            out[key][1] += robust == row["label"]
            out[key][2] += official == row["label"]
    return {k: (n, r, o) for k, (n, r, o) in out.items()}


def table(figures: dict[str, tuple[int, int, int]]) -> list[str]:
    """The Markdown rows docs/judge.md shows: category, replies, fallback reader, official rule (right / n, %)."""
    lines = []
    for key in (*CATEGORIES, "all"):
        n, r, o = figures[key]
        lines.append(f"| {key} | {n} | {r}/{n} ({100 * r / n:.1f} %) | {o}/{n} ({100 * o / n:.1f} %) |")
    return lines


def test_the_set_is_labelled_by_category():
    rows = _rows()
    assert len(rows) >= 150
    assert {r["category"] for r in rows} == set(CATEGORIES)
    assert all(isinstance(r["label"], bool) and isinstance(r["reply"], str) for r in rows)
    long = [r for r in rows if r["category"] == "long"]
    assert all(len(r["reply"]) > 2000 for r in long)


def test_never_less_accurate_than_the_official_rule_overall_and_per_category():
    figures = measure(_rows())
    print("\n".join(["| category | replies | fallback reader | official rule |", *table(figures)]))
    for key, (_, robust, official) in figures.items():
        assert robust >= official, key


@pytest.mark.parametrize("path", [DATA, BLIND, INDEPENDENT], ids=["set", "blind", "independent"])
def test_right_wherever_the_official_rule_is_right(path):
    # stronger than the totals: reply by reply, the official rule is never right where the fallback reader is wrong
    rows = _rows(path)
    worse = [r["reply"][:80] for r in rows if verdict_official(r["reply"]) == r["label"] != (_robust(r) is True)]
    assert worse == []


@pytest.mark.parametrize("path", [DATA, BLIND, INDEPENDENT], ids=["set", "blind", "independent"])
def test_never_credits_a_reply_whose_verdict_is_no(path):
    credited = [r["reply"][:80] for r in _rows(path) if not r["label"] and _robust(r) is True]
    assert credited == []


def test_the_blind_set():
    n, robust, official = measure(_rows(BLIND))["all"]
    assert (n, robust, official) == (40, 40, 32)  # docs/judge.md: measured once at 39/40, its miss then fixed


def test_the_independent_checks_misses():
    """Read as None, None and no before the fix (a closing "so ... correct" after a clause with "different"; "nothing
    wrong" read as "wrong"); docs/judge.md."""
    rows = _rows(INDEPENDENT)
    assert {r["category"] for r in rows} == {"independent_check"}
    assert [_robust(r) for r in rows] == [r["label"] for r in rows] == [True, True, True]


@pytest.mark.parametrize(
    "reply, verdict",
    [
        ("The names differ in spelling; therefore the prediction is correct.", True),
        ("配料相同，因此判定为不正确。", False),  # the conclusion decides, whatever the reasons said
        ("It looks right at first, so I consider it wrong.", False),
        ("Yes, so the prediction is incorrect.", None),  # a bare yes opening against the conclusion: says both
        ("我认为正确，综上所述，预测答案错误。", False),
        ("There is nothing correct about the prediction.", False),
        ("Nothing is wrong with the prediction.", True),
        ("The dish is not so different from the reference, and it is correct.", True),  # "so" inside a phrase
    ],
)
def test_a_closing_conclusion_and_nothing_as_a_negator(reply, verdict):
    assert verdict_robust(reply, ("Pad Thai with shrimp", "Q?", "gold")) is verdict


def test_a_reply_that_says_both_is_unreadable():
    both = [r for r in _rows() if r.get("must") == "none"]
    assert len(both) >= 10
    assert [r["reply"] for r in both if _robust(r) is not None] == []


def test_docs_show_the_measured_figures():
    docs = (ROOT / "docs" / "judge.md").read_text(encoding="utf-8")
    for line in table(measure(_rows())):
        assert line in docs, line


# Near-verbatim quotes, written here (not the data file's): a wrong answer that opens with a yes word, quoted by the
# judge with punctuation dropped, in bold, lower-cased, cut at a clause, in quotes, before (or after) its own no.
WRONG_ANSWERS = (
    "Yes, this is a Hainanese chicken rice, poached and served with ginger sauce.",
    "Correct: the soup is made with miso and contains tofu.",
    "是的，这道菜是用猪肉做的，而且是红烧的。",
    "对，这是四川的麻婆豆腐，非常辣。",
    "True. It is a vegetarian dish without any meat.",
)


def _variants(answer: str) -> list[str]:
    first_clause = answer.replace("，", ",").replace(":", ",").split(",")[0]
    return [
        answer,
        answer.rstrip(".。"),
        answer.replace(",", "").replace("，", "").replace(".", ""),
        f"**{answer}**",
        answer.lower(),
        answer.replace(",", ";").replace("，", "；"),
        first_clause,
        answer.rsplit(",", 1)[0].rsplit("，", 1)[0],
        f"“{answer.rstrip('.。')}”",
    ]


CLOSINGS_NO = ("No", "No.", "Verdict: no", "**No**", "否", "判定：否", "判定为“否”", "不正确。", "Incorrect.", "错误")


@pytest.mark.parametrize("answer", WRONG_ANSWERS)
def test_a_near_verbatim_quote_never_beats_the_closing_no(answer):
    replies = []
    for variant in _variants(answer):
        for closing in CLOSINGS_NO:
            replies += [f"{variant}\n{closing}", f"{variant} {closing}", f"The candidate wrote: {variant}\n{closing}"]
            replies += [f"{closing}\n{variant}", f"{closing} The candidate said {variant}"]  # the quote after the no
    credited = [r for r in replies if verdict_robust(r, (answer, "Q?", "gold")) is True]
    assert credited == []
    # read as no, but where the quote is cut to a bare verdict word ("Yes\n否": says both, unreadable)
    read = {v: verdict_robust(f"{v}\n否", (answer, "Q?", "gold")) for v in _variants(answer)}
    assert {v: r for v, r in read.items() if r is not False} == {
        v: None for v in read if v.strip("*“”.").lower() in ("yes", "correct", "是的", "对", "true")
    }


@pytest.mark.parametrize(
    "reply, verdict",
    [
        ("是否正确：否", False),  # the label holds 正确; its value is the verdict
        ("是否一致：是", True),
        ("最终判定为“是”。", True),
        ("预测答案“糖醋排骨”与标准答案不一致。", False),
        ("The candidate is not correct about the sauce.", False),
        ("This is incorrect; the reference is a soup.", False),
        ("预测答案并不正确", False),
        ("They don't match at all.", False),
        ("Yes, but the candidate is wrong.", None),  # says both
        ("是，但预测答案错误。", None),
        ("No, it is correct.", None),
        ("This dish can be judged as Sichuan cuisine.", None),  # no verdict on the answer
        ("这道菜可以判定为是川菜。", None),
        ("Is the prediction correct? Yes, it is.", True),  # the question is not the verdict
    ],
)
def test_negations_labels_and_contradictions(reply, verdict):
    assert verdict_robust(reply, ("some answer", "Q?", "gold")) is verdict


def test_a_verdict_anywhere_in_a_long_reply():
    reasoning = "The sauce looks glossy and the crust looks crisp; " * 200  # 10,400 characters without a verdict
    assert verdict_robust(reasoning + "\n\nVerdict: no", ("x",)) is False
    assert verdict_robust(reasoning + "\n\n所以预测答案正确。", ("x",)) is True
    assert verdict_robust("Yes.\n" + reasoning, ("x",)) is True  # the verdict first, reasoning after
    big = "口感酥脆，" * 200_000 + "判定：否"  # 1 MB: read to its end (bench/bench_verdict_reader.py: the time)
    assert verdict_robust(big, ("口感酥脆" * 50_000,)) is False


def test_what_is_not_a_reply_is_unreadable():
    for value in (None, 3, b"yes", ["yes"], "", "   ", "<think>yes"):
        assert verdict_robust(value, ("x",)) is None


# A negative quantifier as the subject ("Nothing in the prediction is wrong") negates its predicate however far it
# stands; a verdict of part of the answer ("partly right", "partly wrong", "部分错误") is never a yes. Hand-labelled.
QUANTIFIED_AND_PARTIAL = [
    ("Nothing in the prediction is wrong.", True),
    ("Nothing in the candidate's answer is incorrect, so it is correct.", True),
    ("None of the details in the answer are wrong.", True),
    ("None of it is right.", False),
    ("No part of the answer is correct.", False),
    ("Not a single element of the prediction is accurate.", False),
    ("There is nothing wrong with the answer.", True),
    ("Nothing wrong.", True),
    ("The candidate is partly right, partly wrong.", False),
    ("The answer is only partially correct.", False),
    ("It is half right.", False),
    ("The prediction is partly wrong.", False),
    ("答案部分错误。", False),
    ("预测部分正确。", False),
    ("That is right.", True),
    ("The answer is not right.", False),
    # the third independent check's misses (2026-11-28), then fixed: a doubt's own negation is not counted twice, and
    # a quantifier between a negation and its predicate is skipped
    ("不能说不对，应判为正确。", True),
    ("没有任何错误，判定：是。", True),
    ("I can't say it is wrong.", True),
    ("有一处错误。", False),
]


@pytest.mark.parametrize(("reply", "label"), QUANTIFIED_AND_PARTIAL)
def test_a_quantified_or_partial_verdict_is_read_as_it_says(reply, label):
    assert verdict_robust(reply, ("Mapo tofu", "What dish is this?", "Mapo tofu")) is label
