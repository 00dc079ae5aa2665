"""DiningBench metrics with hand-computed expectations (classification, nutrition, ROUGE, judge step)."""

from __future__ import annotations

import json
import math

import diningbench_fixture as F
import pytest
from judge_server import prediction_in

from food_tasks.benchmarks.diningbench import scoring as S


def _doc(idx, prompt, gold, model_name="", cot=False):  # type: ignore[no-untyped-def]
    return {
        "idx": idx,
        "id": str(idx),
        "prompt": prompt,
        "gold_json": json.dumps(gold, ensure_ascii=False),
        "model_name": model_name,
        "cot": cot,
    }


CLS_PROMPT = F.cls_prompt(F.OPTIONS_ZH, "zh")


def test_classification_metrics_hand_computed():
    records = [S.score_cls(_doc(i, CLS_PROMPT, g), out) for i, ((g, _), out) in enumerate(zip(F.CLS_ZH, F.CLS_OUTPUTS))]
    # robust: F, C, A, B correct; "I don't know" invalid -> 4/5. official first letters: F, 答, A, T, I -> 2/5
    assert S.cls_acc(records) == 0.8
    assert S.cls_acc(records, official=True) == 0.4
    assert S.cls_invalid_rate(records) == 0.2
    assert S.cls_unreadable_official(records) == 0.2  # only 答 is outside A-Z
    assert S.cls_acc([]) == 0.0


def test_classification_official_model_name_and_cot():
    think = "<think>A or B</think>\n\nB"
    assert S.score_cls(_doc(0, CLS_PROMPT, "B"), think)["correct_official"] is False  # first letter T
    assert S.score_cls(_doc(0, CLS_PROMPT, "B", "qwen-3-vl-8b-thinking"), think)["correct_official"] is True
    cot = "1. Visual Observation: pumpkin, chicken.\n3. Comprehensive Answer: A is wrong, the answer is F"
    record = S.score_cls(_doc(0, CLS_PROMPT, "F", cot=True), cot)
    assert record["pred"] == "F" and record["pred_official"] == "V"


def nutrition_records():  # type: ignore[no-untyped-def]
    return [
        S.score_nutrition(_doc(i, F.NUT_PROMPT_ZH, g), out) for i, (g, out) in enumerate(zip(F.NUT_ZH, F.NUT_OUTPUTS))
    ]


@pytest.mark.parametrize("metric", sorted(F.NUT_EXPECTED))
def test_nutrition_metrics_hand_computed(metric):
    from food_tasks.utils.diningbench import TABLES

    records = nutrition_records()
    assert TABLES["nutrition"][metric](list(reversed(records))) == pytest.approx(F.NUT_EXPECTED[metric], rel=1e-12)


def test_nutrition_edge_cases():
    gold = {"calories": 100, "protein": 0, "carbohydrates": "x", "fat": None}
    records = [S.score_nutrition(_doc(0, "", gold), "garbage"), S.score_nutrition(_doc(1, "", "not json"), "{}")]
    # protein gt 0: error 0, no APE; carbohydrates and fat skipped; row 2 (unreadable gold) skipped everywhere
    assert S.component_metric(records, "calories", "mape", official=True) == 100.0
    assert S.component_metric(records, "protein", "mae", official=True) == 0.0
    assert S.component_metric(records, "protein", "mape", official=True) == 0.0
    assert S.component_metric(records, "carbohydrates", "rmse") == 0.0
    assert S.nutrition_parse_fail_rate(records, official=True) == 0.5 and S.nutrition_gold_missing(records) == 1
    huge = S.score_nutrition(
        _doc(0, "", {"calories": 1, "protein": 1, "carbohydrates": 1, "fat": 1}),
        '{"calories": 1e200, "protein": 1, "carbohydrates": 1, "fat": 1}',
    )
    assert S.component_metric([huge], "calories", "rmse", official=True) == math.inf  # the official script crashes here


def test_rouge_jieba_tokens():
    assert S.rouge_f("不符合，含有奶酪制品。", "不符合，含有奶酪制品。") == {
        "rouge1": 1.0,
        "rouge2": 1.0,
        "rougeL": 1.0,
    }
    # tokens: [not, vegan, has, cheese] vs [does, not, comply, contains, cheese, products]: P 2/4, R 2/6 -> F 0.4
    assert S.rouge_f("Not vegan: has cheese", "Does not comply, contains cheese products.")["rouge1"] == pytest.approx(
        0.4
    )
    assert S.rouge_f("", "是") == {"rouge1": 0.0, "rouge2": 0.0, "rougeL": 0.0}


class FakeClient:
    """Scripted verdicts by prediction; predictions in ``down`` fail like an exhausted judge."""

    def __init__(self, verdicts, down=()):  # type: ignore[no-untyped-def]
        from food_tasks.judge.client import JudgeConfig

        self.config = JudgeConfig(model="fake-judge")
        self.verdicts, self.down, self.calls = verdicts, set(down), []

    def complete_many(self, bodies):  # type: ignore[no-untyped-def]
        from food_tasks.judge.client import JudgeResult

        out = []
        for body in bodies:
            content = body["messages"][0]["content"]
            pred = prediction_in(content)
            self.calls.append(pred)
            out.append(JudgeResult(None, "http 500") if pred in self.down else JudgeResult(self.verdicts[pred]))
        return out


def test_judge_step_hand_computed():
    outputs = ["经历了油炸", "<think>有奶酪</think>不符合，含有奶酪", "炖", ""]
    records = [
        S.score_vqa(_doc(i, q + F.VQA_ENDING_ZH, g), out) for i, ((q, g, _), out) in enumerate(zip(F.VQA_ZH, outputs))
    ]
    client = FakeClient(
        {
            "经历了油炸": "是",
            "不符合，含有奶酪": "是，虽然表述不同但语义一致",
            "<think>有奶酪</think>不符合，含有奶酪": "否",
        }
    )
    got = S.judge_outcomes(records, client)
    # row 3 has no gold (not evaluated); row 4 is empty (False, no call). official: 1/3; robust: 2/3
    info = got.pop("info")
    assert got == {
        "judge_acc": 2 / 3,
        "judge_acc_official": 1 / 3,
        "judge_error_rate": 0.0,
        "judge_unparsed_rate": 0.0,
        "evaluated": 3,
    }
    assert info["model"] == "fake-judge" and info["failures"] == 0 and info["failure_reasons"] == {}
    assert "炖" not in client.calls and "" not in client.calls
    assert records[0]["question"] == "这道菜是否经过油炸？"


def test_judge_outage_is_counted_not_scored():
    outputs = ["It has been fried", "Not vegan: has cheese", "Chicken"]
    records = [
        S.score_vqa(_doc(i, q + F.VQA_ENDING_EN, g), out) for i, ((q, g, _), out) in enumerate(zip(F.VQA_EN, outputs))
    ]
    client = FakeClient({"It has been fried": "是", "Chicken": "否"}, down={"Not vegan: has cheese"})
    got = S.judge_outcomes(records, client)
    # official: the failed row is __EVAL_ERROR__ (False) -> 1/3; robust: the failed row leaves the denominator -> 1/2
    assert got["judge_acc_official"] == 1 / 3 and got["judge_acc"] == 0.5 and got["judge_error_rate"] == 1 / 3
    assert S.rouge_mean(records, "rouge1") == pytest.approx(0.4 / 3)


def test_judge_entirely_down_gives_no_accuracy():
    records = [S.score_vqa(_doc(0, "Q" + F.VQA_ENDING_EN, "Yes"), "It is fried")]
    got = S.judge_outcomes(records, FakeClient({}, down={"It is fried"}))
    assert math.isnan(got["judge_acc"]) and got["judge_acc_official"] == 0.0 and got["judge_error_rate"] == 1.0


def test_chinese_and_english_rows_pair_on_id_images_and_gold():
    """Cross-lingual consistency (README "Beyond accuracy"), through the real scorer: rows 0-2 exist in both files
    (row 2 with another gold letter in English: not the same item), row 3 only in Chinese."""
    from food_tasks.stats import consistency

    def doc(i, lang, gold, image=None):  # type: ignore[no-untyped-def]
        prompt = F.cls_prompt(F.OPTIONS_ZH if lang == "zh" else F.OPTIONS_EN, lang)
        return {
            **_doc(i, prompt, gold),
            "lang": lang,
            "views": 1,
            "images": [f"/x/images/{image or i:05d}.jpg"],
            "setting": "cls_v1",
        }

    zh = [
        S.score_cls(doc(0, "zh", "A"), "A"),
        S.score_cls(doc(1, "zh", "B"), "B"),
        S.score_cls(doc(2, "zh", "C"), "C"),
        S.score_cls(doc(3, "zh", "D"), "D"),
    ]
    en = [S.score_cls(doc(0, "en", "A"), "A"), S.score_cls(doc(1, "en", "B"), "C"), S.score_cls(doc(2, "en", "D"), "D")]
    found = consistency.family_measures(zh + en, S.CONSISTENCY, scale=1.0)
    # Items 0 (right, A/A) and 1 (zh right B, en wrong C): all correct 1/2, same letter 1/2; zh - en = (0 + 1) / 2.
    assert (found["xling_all_correct"].value, found["xling_all_correct"].n) == (0.5, 2)
    assert found["xling_agreement"].value == 0.5
    assert found["xling_gap_to_en"]["zh"]["value"] == 0.5 and found["xling_gap_to_en"]["zh"]["n"] == 2
    assert {r["setting"] for r in zh + en} == {"cls_v1"}
