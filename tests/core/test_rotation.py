"""food_tasks.hooks.rotation: option rotation, circular accuracy and position bias, hand-computed."""

from __future__ import annotations

import math
import pickle

import pytest

from food_tasks.data.hub import DataSettingError
from food_tasks.hooks import rotation
from food_tasks.hooks.convention import MetricTable
from food_tasks.stats import uncertainty as stats

LETTERS = ("A", "B", "C", "D")
CHOSEN, GOLD = rotation.position("pred", labels=LETTERS), rotation.position("gold", labels=LETTERS)
CORRECT = stats.field("correct", unless="image_missing")


def _doc(key: str, gold: int) -> dict:
    return {"key": key, "options": ["w", "x", "y", "z"], "answer": gold}


def _rotate_doc(doc: dict, offset: int) -> dict:
    return {
        **doc,
        "options": rotation.rotate(doc["options"], offset),
        "answer": rotation.rotated_gold(doc["answer"], offset, 4),
    }


def _records(answers: dict[str, list[str]]) -> list[dict]:
    """Records of questions whose gold is option 0 ("w"), asked in 4 rotations; ``answers[item][r]`` is the letter
    chosen in rotation r."""
    docs = rotation.expand([_doc(k, 0) for k in answers], lambda d: 4, _rotate_doc, lambda d: d["key"], k=4)
    out = []
    for d in docs:
        pred = answers[d["item"]][d["rotation"]]
        gold = LETTERS[d["answer"]]
        out.append(
            {
                "item": d["item"],
                "rotation": d["rotation"],
                "rotations": d["rotations"],
                "pred": pred,
                "gold": gold,
                "correct": pred == gold,
                "image_missing": False,
            }
        )
    return out


def test_rotation_moves_options_and_gold_together():
    assert rotation.rotate(["w", "x", "y", "z"], 1) == ["x", "y", "z", "w"]
    assert rotation.rotated_gold(0, 1, 4) == 3  # "w" is now at D
    assert rotation.offsets(4) == [0, 1, 2, 3]
    assert (
        rotation.offsets(5, 2) == [0, 2]
        and rotation.offsets(8, 4) == [0, 2, 4, 6]
        and rotation.offsets(4, 9) == [0, 1, 2, 3]
    )
    docs = rotation.expand([_doc("q1", 2)], lambda d: 4, _rotate_doc, lambda d: d["key"], k=4)
    assert [d["rotation"] for d in docs] == [0, 1, 2, 3] and {d["rotations"] for d in docs} == {4}
    for d in docs:  # the gold text never changes; its position does
        assert d["options"][d["answer"]] == "y" and d["item"] == "q1"
    assert [d["answer"] for d in docs] == [2, 1, 0, 3]


def test_rotations_setting(monkeypatch):
    monkeypatch.setenv(rotation.ROTATIONS_ENV, "2")
    docs = rotation.expand([_doc("q", 0)], lambda d: 4, _rotate_doc, lambda d: d["key"])
    assert [d["rotation"] for d in docs] == [0, 2] and docs[0]["rotations"] == 2
    for bad in ("1", "x", "-3"):
        monkeypatch.setenv(rotation.ROTATIONS_ENV, bad)
        with pytest.raises(DataSettingError, match=rotation.ROTATIONS_ENV):  # stops the run before generation
            rotation.rotations_setting()


def test_always_a_model_hand_computed():
    """One 4-option question, 4 rotations, a model that always answers A: right once (when gold is at A)."""
    records = _records({"q1": ["A", "A", "A", "A"]})
    circ, mean = rotation.circular_metrics(CORRECT)
    assert circ(records) == 0.0
    assert mean(records) == 25.0
    bias, p, rstd = rotation.position_metrics(CHOSEN, GOLD, LETTERS)
    assert bias(records) == {
        "A": {"chosen": 4, "gold": 1, "chosen_share": 100.0, "gold_share": 25.0},
        "B": {"chosen": 0, "gold": 1, "chosen_share": 0.0, "gold_share": 25.0},
        "C": {"chosen": 0, "gold": 1, "chosen_share": 0.0, "gold_share": 25.0},
        "D": {"chosen": 0, "gold": 1, "chosen_share": 0.0, "gold_share": 25.0},
    }
    # 4 answers: expected counts (chosen + gold) / 2 <= 2.5, below Cochran's rule: the conditional test. Column
    # sums (5, 1, 1, 1), 4 of the 8 in the chosen row: C(8, 4) = 70 tables; chosen (4, 0, 0, 0) and (1, 1, 1, 1)
    # (5 ways each) give the largest statistic, 4.8; the other 60, 3.2: exact p = 10 / 70 (Monte Carlo, 9,999)
    assert p(records) == pytest.approx(1 / 7, abs=0.01) and p(records) == p(records[::-1])
    # recalls A 1, B 0, C 0, D 0: mean 1/4, variance (9/16 + 3/16) / 4 = 3/16, RStd = 100 sqrt(3) / 4
    assert rstd(records) == pytest.approx(100 * math.sqrt(3) / 4) == pytest.approx(43.30127, abs=1e-5)
    assert rstd.higher_is_better is False and rstd.scale == "percent"


def test_circular_acc_over_questions_with_standard_errors():
    # q1 right in every rotation; q2 right in 3 of 4; q3 always "A" (1 of 4); q4 right in every rotation
    # gold "w" sits at A, D, C, B in rotations 0..3
    answers = {"q1": ["A", "D", "C", "B"], "q2": ["A", "D", "C", "A"], "q3": ["A"] * 4, "q4": ["A", "D", "C", "B"]}
    records = _records(answers)
    circ, mean = rotation.circular_metrics(CORRECT)
    assert circ(records) == 50.0  # 2 of 4 questions
    assert mean(records) == pytest.approx(100 * (1 + 0.75 + 0.25 + 1) / 4)
    table = MetricTable(circ, mean, key=stats.column("item", "rotation"), cluster=stats.column("item"))
    clusters = [table.cluster_of(r) for r in records]
    est = stats.estimate(circ.estimator, records, clusters)
    # per question x = 1, 0, 0, 1: SE = sd(x) / sqrt(4) with ddof 1 = sqrt(1/3) / 2, in percent
    assert est.n == 4 and est.clusters == 4
    assert est.se == pytest.approx(100 * math.sqrt(1 / 3) / 2)
    x = [1, 0.75, 0.25, 1]
    m = sum(x) / 4
    sd = math.sqrt(sum((v - m) ** 2 for v in x) / 3)
    assert stats.estimate(mean.estimator, records, clusters).se == pytest.approx(100 * sd / 2)
    # the value and the SE are functions of the set of documents
    shuffled = records[::-1]
    assert circ(shuffled) == 50.0 and stats.estimate(circ.estimator, shuffled, clusters[::-1]).se == pytest.approx(
        est.se
    )
    # the estimator's combine equals the reported value, and the table pickles (several processes)
    assert float(circ.estimator.combine(circ.estimator.rows(records).sum(0))) == 50.0
    assert pickle.loads(pickle.dumps(table))["circular_acc"](records) == 50.0


def test_incomplete_or_missing_questions_leave_circular_metrics():
    records = _records({"q1": ["A", "D", "C", "B"], "q2": ["A", "D", "C", "B"]})
    records = [r for r in records if not (r["item"] == "q2" and r["rotation"] == 3)]  # q2 lost a rotation
    circ, _ = rotation.circular_metrics(CORRECT)
    assert circ(records) == 100.0 and circ.estimator.rows(records)[:, 1].sum() == 1
    records[0]["image_missing"] = True  # q1's image could not be loaded: no complete question left
    assert math.isnan(circ(records))


def test_position_bias_leaves_unread_answers_out_and_handles_empty_positions():
    records = [
        {"pred": "A", "gold": "A"},
        {"pred": None, "gold": "B"},
        {"pred": "B", "gold": "A"},
        {"pred": "Z", "gold": "B"},
    ]
    bias, p, _ = rotation.position_metrics(CHOSEN, GOLD, LETTERS)
    assert bias(records) == {
        "A": {"chosen": 1, "gold": 2, "chosen_share": 50.0, "gold_share": 100.0},
        "B": {"chosen": 1, "gold": 0, "chosen_share": 50.0, "gold_share": 0.0},
    }
    # 2 answers: chosen (1, 1), gold (2, 0): conditional on the margins (3, 1) the lone B is chosen or gold, with
    # the same statistic either way: p = 1
    assert p(records) == 1.0
    assert "fewer than two positions" in p([{"pred": "A", "gold": "A"}]) and bias([]) == {}
    # no answer read (every one left out): said as such, not as "fewer than two positions"
    assert p([{"pred": None, "gold": "A"}, {"pred": None, "gold": "B"}]).endswith(": no answer could be read")
    # a model that follows the gold distribution exactly: p = 1
    assert rotation.chi_square_p({0: 30, 1: 10}, {0: 30, 1: 10}) == pytest.approx(1.0)
    # by formula: chosen (30, 10) against gold (20, 20), expected (25, 15) in both rows:
    # 2 * (5^2 / 25 + 5^2 / 15) = 16 / 3 on 1 df, p = erfc(sqrt(8 / 3))
    assert rotation.chi_square_p({0: 30, 1: 10}, {0: 20, 1: 20}) == pytest.approx(math.erfc(math.sqrt(8 / 3)))
    # positions read from 1-based ids; booleans and junk are unread
    one_based = rotation.position("parsed", base=1, unless="image_missing")
    assert one_based({"parsed": 3}) == 2 and one_based({"parsed": True}) is None and one_based({"parsed": "x"}) is None
    assert one_based({"parsed": 3, "image_missing": True}) is None


def test_position_chosen_where_no_gold_sits_is_tested_not_zero():
    """A position chosen but never gold gave p = 0 (an expected count of 0 in a goodness-of-fit test)."""
    # chosen (20, 10, 10), gold (20, 20, 0), 40 answers: expected (c + g) / 2 = (20, 15, 5) in both rows;
    # chi-square = 2 * (0 + 5^2 / 15 + 5^2 / 5) = 40 / 3 on 2 df; p = exp(-x / 2) = exp(-20 / 3) = 0.0012726
    p = rotation.chi_square_p({0: 20, 1: 10, 2: 10}, {0: 20, 1: 20})
    assert p == pytest.approx(math.exp(-20 / 3)) == pytest.approx(0.0012726, abs=1e-7)
    # the shipped replay example's case: 8 answers, one on a position where no gold sits (the old test: p = 0).
    # Column sums (9, 6, 1): the lone third answer adds 1.0 to every table's statistic, and 9 cannot split
    # evenly: no table has a smaller statistic than the observed one (1/9 + 1): p = 1
    assert rotation.chi_square_p({0: 4, 1: 3, 2: 1}, {0: 5, 1: 3}) == 1.0
    # a model that always answers A on 42 questions: p at its Monte Carlo floor, 1 / 10,000
    assert rotation.chi_square_p({0: 42}, {0: 9, 1: 9, 2: 9, 3: 9, 4: 6}) == pytest.approx(1e-4)


def test_position_rstd_hand_computed_with_a_clustered_error():
    """RStd (Zheng et al. 2024): the SD over positions of per-position recall, in percent."""
    rows = [("A", "A"), ("A", "A"), ("B", "A"), (None, "A"), ("B", "B"), ("A", "B"), ("C", "C"), ("C", "C")]
    records = [{"pred": c, "gold": g, "q": i // 2} for i, (c, g) in enumerate(rows)]
    _, _, rstd = rotation.position_metrics(CHOSEN, GOLD, LETTERS)
    # recalls: A 2/4 (an unread answer is a miss), B 1/2, C 2/2, D holds no gold (left out)
    # mean 2/3; variance ((1/6)^2 + (1/6)^2 + (1/3)^2) / 3 = 1/18; RStd = 100 / sqrt(18) = 23.570
    assert rstd(records) == pytest.approx(100 / math.sqrt(18)) == pytest.approx(23.5702, abs=1e-4)
    assert float(rstd.estimator.combine(rstd.estimator.rows(records).sum(0))) == pytest.approx(rstd(records))
    assert math.isnan(rstd(records[:4]))  # gold on one position only: no spread to measure
    clusters = [r["q"] for r in records]
    est = stats.estimate(rstd.estimator, records, clusters, iters=200)
    assert est.method == "bootstrap" and est.n == 8 and est.clusters == 4 and est.se > 0
    again = stats.estimate(rstd.estimator, records[::-1], clusters[::-1], iters=200)
    assert again.se == est.se  # a function of the set of documents
    table = MetricTable(rstd, key=stats.column("q", "pred"), cluster=stats.column("q"))
    assert pickle.loads(pickle.dumps(table))["position_rstd"](records) == pytest.approx(rstd(records))


def test_with_rotation_copies_the_fields():
    scored = rotation.with_rotation(lambda doc, out: {"correct": out == "A"})
    assert scored({"item": "q", "rotation": 2, "rotations": 4, "x": 1}, "A") == {
        "correct": True,
        "item": "q",
        "rotation": 2,
        "rotations": 4,
    }


# --------------------------------------------------------------------------- one option-block scan (issue 34.2)


def test_rotation_and_the_answer_parser_read_the_same_option_lines():
    """WorldCuisines: rotation rewrites exactly the lines parse_mcq_options reads (one scan,
    food_tasks.hooks.parsing.option_spans): a question line that starts like an option, an earlier broken run, CRLF
    line ends and an option-like line after the instruction are left alone."""
    from food_tasks.benchmarks.worldcuisines import circular, parsing

    prompt = (
        "1. Look at the photo.\r\n2. Not an option either\r\nWhich dish?\r\n1. Serabi\r\n2. Syrniki\r\n3. Murtabak\r\n"
        "Print only the answer with a single answer id (1,2,3,4,5).\r\n1. after the instruction"
    )
    spans = parsing.mcq_option_spans(prompt)
    assert [(label, prompt[start:end]) for label, start, end in spans] == [
        ("1", "Serabi"),
        ("2", "Syrniki"),
        ("3", "Murtabak"),
    ]
    assert parsing.parse_mcq_options(prompt) == ["Serabi", "Syrniki", "Murtabak"]
    rotated = circular.rotate_prompt(prompt, 1)
    assert rotated == prompt.replace("1. Serabi\r\n2. Syrniki\r\n3. Murtabak", "1. Syrniki\r\n2. Murtabak\r\n3. Serabi")
    assert parsing.parse_mcq_options(rotated) == ["Syrniki", "Murtabak", "Serabi"]
    assert parsing.mcq_option_spans(None) == [] and parsing.mcq_option_spans(42) == []


def test_diningbench_rotation_and_parser_share_the_scan():
    """DiningBench: the first line per letter, read by prompt_options and rotated by the _circular tasks alike."""
    from food_tasks.benchmarks.diningbench import circular, parsing

    prompt = "Which dish?\nA. Noodles\n  B)  Rice  \nA. again\nC、Soup\nAnswer with the letter."
    assert parsing.option_spans(prompt) == [("A", 15, 22), ("B", 29, 33), ("C", 47, 51)]
    assert parsing.prompt_options(prompt) == (["A", "B", "C"], ["Noodles", "Rice", "Soup"])
    assert circular.rotate_prompt(prompt, 2) == (
        "Which dish?\nA. Soup\n  B)  Noodles  \nA. again\nC、Rice\nAnswer with the letter."
    )
    assert parsing.option_spans(["A. x"]) == []


def test_rotate_spans_keeps_every_other_character():
    text = "<1. a|2. bb|3. ccc>"
    spans = [("1", 4, 5), ("2", 9, 11), ("3", 15, 18)]
    assert rotation.rotate_spans(text, spans, 0) == text
    assert rotation.rotate_spans(text, spans, 1) == "<1. bb|2. ccc|3. a>"
    assert rotation.rotate_spans(text, spans, 2) == "<1. ccc|2. a|3. bb>"
    assert rotation.rotate_spans(text, [], 1) == text


def test_option_scan_is_linear_on_a_huge_prompt():
    import time

    from food_tasks.benchmarks.worldcuisines.parsing import MCQ_IDS, OPTION_LINE_RE
    from food_tasks.hooks.parsing import option_spans

    prompt = "1. x\n2. y\n" * 200_000
    start = time.perf_counter()
    assert len(option_spans(prompt, OPTION_LINE_RE, run=MCQ_IDS)) == 2
    assert time.perf_counter() - start < 5
