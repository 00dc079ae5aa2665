#!/usr/bin/env python
"""Parity of our DiningBench ``_official`` metrics with the official scorers, on the same outputs.

Opt-in: run by tests/parity/test_parity_diningbench.py when ``FOOD_TASKS_PARITY_DININGBENCH`` names a
local checkout, or as a script (usage below). It needs a local checkout of github.com/meituan/DiningBench
(commit 9c9bdf7) and *imports* ``eval_classification.py``, ``eval_nutrition.py`` and ``eval_vqa.py`` from it at run time
(nothing of them is reproduced here). Datasets, model outputs and judge verdicts are synthetic
(``--seed``): handwritten adversarial cases plus ``--n`` random ones per check.

Checks (exact equality of integers and floats):

1. ``clean_thinking_by_model`` (all three copies) vs our ``clean_official``, every model-name branch.
2. Classification: the official pipeline (``clean_thinking_by_model`` at inference, then
   ``evaluate_predictions`` on the prediction JSONL) vs ``score_cls`` + ``cls_acc(official=True)`` /
   ``cls_unreadable_official``: the printed ``matched`` and ``cannot_read_option_count`` integers, per row
   (one official call per row) and per batch.
3. Nutrition: the dict returned by the official ``evaluate_predictions`` (MAE/RMSE/MAPE per component,
   unrounded floats) and its printed parse-failure count vs ``component_metric(official=True)`` /
   ``nutrition_parse_fail_rate(official=True)``, per batch; random gold values include Chinese and
   English keys, JSON-string gold, zeros and unconvertible values.
4. VQA: ``evaluate_predictions_with_model`` with the judge replayed (``openai.OpenAI`` replaced by a
   recorder that answers scripted verdicts; failures raise so the official retries end in
   ``__EVAL_ERROR__``) vs ``judge_outcomes`` with the same verdicts: the judge prompts sent (byte
   equality with ``prompts.judge_prompt``) and the printed ``model_evaluate_correct`` / ``total``;
   plus ``parse_eval_result`` vs ``verdict_official`` on every verdict.

Usage::

    python tests/parity/parity_diningbench.py --official /path/to/DiningBench [--seed 0] [--n 2000]

Exit status 0 when everything matches, 1 on a mismatch (examples printed), 2 when the official code
cannot be loaded.
"""

from __future__ import annotations

import argparse
import contextlib
import importlib.util
import io
import json
import random
import re
import sys
import tempfile
import types
from pathlib import Path

from food_tasks.benchmarks.diningbench import parsing as P
from food_tasks.benchmarks.diningbench import prompts as PR
from food_tasks.benchmarks.diningbench import scoring as S
from food_tasks.judge.client import JudgeConfig, JudgeResult

MODELS = ["", "judge", "gpt-4o", *P.OFFICIAL_MODEL_NAMES]
PIECES = [
    "<think>",
    "</think>",
    "</THINK>",
    "\n\n",
    "\n",
    " ",
    "  ",
    "A",
    "B",
    "c",
    "H",
    "Z",
    "答案：",
    "选项",
    "Ｃ",
    "（Ｃ）",
    "<analysis>",
    "</analysis>",
    "<answer>",
    "</answer>",
    "\\boxed{",
    "\\text{",
    "}",
    "{",
    "```",
    "```json",
    "json",
    "Answer: ",
    "The answer is ",
    "**",
    "(",
    ")",
    ".",
    "__INFER_ERROR__",
    "é",
    "ß",
    "ﬁ",
    "1",
    "\t",
    "Roasted Pumpkin",
]
CLS_HANDWRITTEN = [
    "Answer: C",
    "The answer is C",
    "Based on the image, F.",
    "答案：C",
    "选项C",
    "Ｃ",
    "<think>x</think>C",
    "\\boxed{\\text{C}}",
    "Roasted Pumpkin Chicken Salad",
    "**C**",
    "(C)",
    "C.",
    "C. Roasted",
    "",
    "   ",
    "__INFER_ERROR__: timeout",
    "123",
    "ß",
    "ﬁ",
    "<think>a</think>\n\nB",
    "reasoning</think>\n\nD",
    "<analysis>a</analysis><answer>E</answer>",
    "\\boxed{G}",
    "\\boxed{ h }",
    "ⓒ",
    "Ⅻ",
    "ǅ",
]
NUT_KEYS = [["calories", "protein", "carbohydrates", "fat"], ["卡路里", "蛋白质", "碳水化合物", "脂肪"]]
NUT_HANDWRITTEN = [
    '{"calories": 580, "protein": 24, "carbohydrates": 80, "fat": 18}',
    'Estimate: {"calories": 400, "protein": 1, "carbohydrates": 2, "fat": 3}',
    '{"calories": "580 kcal", "protein": 24, "carbohydrates": 80, "fat": 18}',
    "580",
    '{"calories": 1, "protein": 2, "carbohydrates": 3, "fat": 4,}',
    (
        '```json\n{"calories": 1, "protein": 2, "carbohydrates": 3, "fat": 4}\n```\n'
        '```json\n{"calories": 9, "protein": 9, "carbohydrates": 9, "fat": 9}\n```'
    ),
    '{"calories": true, "protein": 24, "carbohydrates": 80, "fat": 18}',
    '{"calories": NaN, "protein": 24, "carbohydrates": 80, "fat": 18}',
    '{"卡路里": "580", "蛋白质": 24, "碳水化合物": 80, "脂肪": 18, "calories": 1}',
    "```\n{'calories': 1}\n```",
    "__INFER_ERROR__: x",
    'text ``` {"calories": 1, "protein": 2, "carbohydrates": 3, "fat": 4} ``` tail',
    '```a``` {"calories": 1, "protein": 2, "carbohydrates": 3, "fat": 4} x }',
    '{"calories": Infinity, "protein": 1, "carbohydrates": 1, "fat": 1}',
    '{"calories": [1], "protein": 1, "carbohydrates": 1, "fat": 1}',
    '\\boxed{{"calories": 1, "protein": 2, "carbohydrates": 3, "fat": 4}}',
    "[" * 5000,
    "{" * 3000,
    '{"calories": "1e3", "protein": "0x10", "carbohydrates": " 7 ", "fat": "١٢"}',
]
VERDICTS = [
    "是",
    "否",
    "是，虽然表述不同但语义一致",
    "Yes, not a contradiction",
    "Yes — noodles match",
    "Unknown",
    "是否",
    "不正确",
    "No.",
    "The prediction is correct.",
    "**是**",
    "Yes",
    "YES",
    "正确",
    "错误",
    "一致",
    "相同",
    "不同",
    "",
    "  是  ",
    "true",
    "等价",
]


def load_official(path: Path) -> dict[str, types.ModuleType]:
    mods = {}
    for name in ("eval_classification", "eval_nutrition", "eval_vqa"):
        spec = importlib.util.spec_from_file_location(f"official_{name}", path / f"{name}.py")
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        mods[name] = module
    return mods


class Tally:
    def __init__(self, examples: int) -> None:
        self.counts: dict[str, list[int]] = {}
        self.examples = examples
        self.shown: dict[str, int] = {}

    def check(self, name: str, ours: object, theirs: object, context: object) -> None:
        same = ours == theirs or (
            isinstance(ours, float) and isinstance(theirs, float) and ours != ours and theirs != theirs
        )
        entry = self.counts.setdefault(name, [0, 0])
        entry[0] += 1
        if not same:
            entry[1] += 1
            if self.shown.get(name, 0) < self.examples:
                self.shown[name] = self.shown.get(name, 0) + 1
                print(f"MISMATCH {name}: ours={ours!r} official={theirs!r} input={str(context)[:300]!r}")

    def report(self) -> int:
        width = max(len(n) for n in self.counts)
        print(f"\n{'check':<{width}}  comparisons  mismatches")
        for name, (n, bad) in self.counts.items():
            print(f"{name:<{width}}  {n:>11}  {bad:>10}")
        total, bad = sum(v[0] for v in self.counts.values()), sum(v[1] for v in self.counts.values())
        print(f"{'TOTAL':<{width}}  {total:>11}  {bad:>10}")
        return 1 if bad else 0


def quiet(fn, *args, **kwargs):  # type: ignore[no-untyped-def]
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        value = fn(*args, **kwargs)
    return value, out.getvalue()


def printed_int(text: str, label: str) -> int:
    return int(re.search(rf"^{re.escape(label)}: (\d+)", text, re.MULTILINE).group(1))


def random_text(rng: random.Random) -> str:
    return "".join(rng.choice(PIECES) for _ in range(rng.randint(0, 12)))


def write_preds(path: Path, preds: list[dict]) -> None:
    path.write_text("".join(json.dumps(p, ensure_ascii=False) + "\n" for p in preds), encoding="utf-8")


# --------------------------------------------------------------------------- checks


def check_clean(mods, tally, rng, n):  # type: ignore[no-untyped-def]
    texts = CLS_HANDWRITTEN + NUT_HANDWRITTEN + [random_text(rng) for _ in range(n)]
    for text in texts:
        for model in MODELS:
            for name, mod in mods.items():
                tally.check(
                    f"clean_thinking_by_model ({name})",
                    P.clean_official(text, model),
                    mod.clean_thinking_by_model(text, model),
                    (model, text),
                )


def check_classification(mods, tally, rng, n, tmp):  # type: ignore[no-untyped-def]
    official = mods["eval_classification"]
    prompt = "Options:\n" + "\n".join(f"{x}. Dish {x}" for x in "ABCDEFGH")
    for model in MODELS:
        outputs = CLS_HANDWRITTEN + [random_text(rng) for _ in range(n // len(MODELS))]
        golds = [rng.choice(["A", "B", "C", "D", "E", "F", "G", "H", " c ", "h"]) for _ in outputs]
        dataset = [{"id": i, "prompt": prompt, "ground_truth": g} for i, g in enumerate(golds)]
        preds, records = [], []
        for i, (raw, gold) in enumerate(zip(outputs, golds)):
            model_pred = raw if "__INFER_ERROR__" in raw else official.clean_thinking_by_model(raw, model)
            preds.append({"idx": i, "gt_answer": gold.strip().upper(), "model_pred": model_pred})
            doc = {"idx": i, "prompt": prompt, "gold_json": json.dumps(gold), "model_name": model, "cot": False}
            records.append(S.score_cls(doc, raw))
            path = tmp / "row.jsonl"
            write_preds(path, [{**preds[-1], "idx": 0}])
            _, text = quiet(official.evaluate_predictions, [dataset[i]], str(path))
            tally.check(
                "classification row: matched",
                int(records[-1]["correct_official"]),
                printed_int(text, "matched"),
                (model, raw, gold),
            )
            tally.check(
                "classification row: cannot_read",
                int(records[-1]["unreadable_official"]),
                printed_int(text, "cannot_read_option_count"),
                (model, raw),
            )
        path = tmp / "batch.jsonl"
        write_preds(path, preds)
        _, text = quiet(official.evaluate_predictions, dataset, str(path))
        matched, total = printed_int(text, "matched"), printed_int(text, "total_eval")
        tally.check("classification batch: acc", S.cls_acc(records, official=True), matched / total, model)
        tally.check(
            "classification batch: cannot_read_ratio",
            S.cls_unreadable_official(records),
            printed_int(text, "cannot_read_option_count") / total,
            model,
        )


def random_gold(rng: random.Random):  # type: ignore[no-untyped-def]
    keys = rng.choice(NUT_KEYS)
    values = {}
    for k in keys:
        values[k] = rng.choice(
            [0, 0.0, rng.randint(0, 900), round(rng.uniform(0, 80), 1), str(rng.randint(1, 90)), "x", None, "12.5"]
        )
    if rng.random() < 0.1:
        values.pop(rng.choice(keys))
    if rng.random() < 0.1:
        values["备注"] = "extra"
    kind = rng.random()
    if kind < 0.2:
        return json.dumps(values, ensure_ascii=False)
    if kind < 0.23:
        return rng.choice(["not json", "", {}, "[1, 2]"])
    return values


def random_nutrition_output(rng: random.Random) -> str:
    keys = rng.choice(NUT_KEYS + [["Calories", "protein", "carbs", "fat"]])
    values = {
        k: rng.choice(
            [
                rng.randint(0, 900),
                round(rng.uniform(0, 90), 2),
                f"{rng.randint(1, 90)}",
                f"{rng.randint(1, 90)} g",
                True,
                None,
                -3,
                "NaN",
            ]
        )
        for k in keys
    }
    if rng.random() < 0.15:
        values.pop(rng.choice(keys))
    body = json.dumps(values, ensure_ascii=False)
    if rng.random() < 0.1:
        body = body.replace('"NaN"', "NaN")
    wrap = rng.choice(
        [
            "{b}",
            "```json\n{b}\n```",
            "```\n{b}\n```",
            "Here: {b}",
            "{b} done",
            '<think>{{"calories": 1}}</think>\n\n{b}',
            "```json {b}``` and ```json {b}```",
            "\\boxed{{{b}}}",
            "{b},",
            "```json\n{b}",
        ]
    )
    return wrap.format(b=body)


def check_nutrition(mods, tally, rng, n, tmp):  # type: ignore[no-untyped-def]
    official = mods["eval_nutrition"]
    batches = [
        (model, NUT_HANDWRITTEN + [random_nutrition_output(rng) for _ in range(n // len(MODELS))]) for model in MODELS
    ]
    for model, outputs in batches:
        golds = [random_gold(rng) for _ in outputs]
        # Gold values that the official float() would reject with OverflowError crash the official scorer: none
        # generated.
        dataset = [{"id": i, "prompt": "p", "ground_truth": g} for i, g in enumerate(golds)]
        preds, records = [], []
        for i, (raw, gold) in enumerate(zip(outputs, golds)):
            model_pred = raw if "__INFER_ERROR__" in raw else official.clean_thinking_by_model(raw, model)
            preds.append({"idx": i, "model_pred": model_pred})
            records.append(
                S.score_nutrition(
                    {"idx": i, "gold_json": json.dumps(gold, ensure_ascii=False), "model_name": model, "cot": False},
                    raw,
                )
            )
        path = tmp / "nut.jsonl"
        write_preds(path, preds)
        results, text = quiet(official.evaluate_predictions, dataset, str(path))
        for key in P.COMPONENTS:
            for stat in ("mae", "rmse", "mape"):
                tally.check(
                    f"nutrition batch: {stat}",
                    S.component_metric(records, key, stat, official=True),
                    results[key][stat],
                    (model, key),
                )
        fails = int(re.search(r"Failed to parse prediction result ratio: [\d.]+ \((\d+)/", text).group(1))
        tally.check(
            "nutrition batch: parse failures",
            sum(r["pred_official"] is None and r["gold"] is not None for r in records),
            fails,
            model,
        )
        # per-row parse decisions through single-row official calls
        for i in range(len(outputs)):
            if golds[i] in ("not json", "[1, 2]"):
                continue
            write_preds(path, [{**preds[i], "idx": 0}])
            _, row_text = quiet(official.evaluate_predictions, [dataset[i]], str(path))
            row_fail = int(re.search(r"Failed to parse prediction result ratio: [\d.]+ \((\d+)/", row_text).group(1))
            tally.check(
                "nutrition row: parse failure", int(records[i]["pred_official"] is None), row_fail, (model, outputs[i])
            )


class _Recorder:
    """Stands in for ``openai.OpenAI`` inside the official ``evaluate_api_call``."""

    prompts: list[str] = []
    verdict_for: dict[str, str] = {}
    down: set[str] = set()

    def __init__(self, base_url=None, api_key=None):  # type: ignore[no-untyped-def]
        self.chat = types.SimpleNamespace(completions=types.SimpleNamespace(create=self._create))

    def _create(self, model, messages, temperature, max_tokens):  # type: ignore[no-untyped-def]
        content = messages[0]["content"]
        _Recorder.prompts.append(content)
        if content in _Recorder.down:
            raise RuntimeError("judge down")
        message = types.SimpleNamespace(content=_Recorder.verdict_for[content])
        return types.SimpleNamespace(choices=[types.SimpleNamespace(message=message)])


def check_vqa(mods, tally, rng, n, tmp):  # type: ignore[no-untyped-def]
    import openai

    official = mods["eval_vqa"]
    for verdict in VERDICTS + [random_text(rng) for _ in range(n)]:
        tally.check("parse_eval_result", P.verdict_official(verdict), official.parse_eval_result(verdict), verdict)
    official.time.sleep = lambda s: None  # the official retry pause
    openai.OpenAI = _Recorder
    questions = ["这道菜是否经过油炸？", "Is it vegan?", "  spaced  ", "无结尾的问题", "Q {gt_answer} {x}"]
    endings = [P.VQA_ENDING_ZH, P.VQA_ENDING_EN, "", P.VQA_ENDING_EN + " ", "\n" + P.VQA_ENDING_ZH]
    answers = [
        "是",
        "经历了油炸",
        "<think>嗯</think>\n\n是",
        "",
        "   ",
        "__INFER_ERROR__: x",
        "\\boxed{否}",
        "Does not comply {pred}",
        "Chicken",
    ]
    for model in MODELS:
        rows, outputs = [], []
        for i in range(max(30, n // len(MODELS))):
            rows.append(
                {
                    "id": i,
                    "prompt": rng.choice(questions) + rng.choice(endings),
                    "ground_truth": rng.choice(["是", "否", "", "Pork", "不适合"]),
                    "images": [f"images/{i:05d}.jpg"],
                }
            )
            outputs.append(rng.choice(answers + [random_text(rng)]))
        preds = [
            {"idx": i, "model_pred": o if "__INFER_ERROR__" in o else official.clean_thinking_by_model(o, model)}
            for i, o in enumerate(outputs)
        ]
        records = [
            S.score_vqa(
                {
                    "idx": i,
                    "prompt": r["prompt"],
                    "gold_json": json.dumps(r["ground_truth"], ensure_ascii=False),
                    "model_name": model,
                    "cot": False,
                },
                o,
            )
            for i, (r, o) in enumerate(zip(rows, outputs))
        ]
        # Scripted judge: a verdict per distinct prompt; some prompts fail every attempt.
        expected_prompts = [
            PR.judge_prompt(r["question"], r["gold"], r["pred_official"])
            for r in records
            if r["gold"] and not r["error_official"]
        ]
        _Recorder.prompts, _Recorder.verdict_for, _Recorder.down = [], {}, set()
        for prompt in set(expected_prompts) | {
            PR.judge_prompt(r["question"], r["gold"], r["pred"]) for r in records if r["pred"]
        }:
            if rng.random() < 0.1:
                _Recorder.down.add(prompt)
            _Recorder.verdict_for[prompt] = rng.choice(VERDICTS)
        path, out = tmp / "vqa.jsonl", tmp / "vqa_eval.jsonl"
        out.unlink(missing_ok=True)
        write_preds(path, preds)
        _, text = quiet(
            official.evaluate_predictions_with_model,
            rows,
            str(path),
            "http://unused",
            "k",
            "judge-x",
            4,
            None,
            str(out),
        )
        sent = sorted(set(_Recorder.prompts))
        tally.check("vqa: judge prompts sent", sent, sorted(set(expected_prompts)), model)

        class Client:
            config = JudgeConfig(model="judge-x")

            def complete_many(self, bodies):  # type: ignore[no-untyped-def]
                out = []
                for body in bodies:
                    prompt = body["messages"][0]["content"]
                    out.append(
                        JudgeResult(None, "down")
                        if prompt in _Recorder.down
                        else JudgeResult(_Recorder.verdict_for[prompt].strip())
                    )
                return out

        got = S.judge_outcomes(records, Client())
        correct, total = printed_int(text, "model_evaluate_correct"), printed_int(text, "model_evaluate_total")
        tally.check("vqa: evaluated rows", got["evaluated"], total, model)
        tally.check("vqa: judge_acc_official", got["judge_acc_official"], correct / total if total else 0.0, model)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--official", required=True, type=Path, help="local checkout of github.com/meituan/DiningBench")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--n", type=int, default=2000, help="random cases per check")
    parser.add_argument("--examples", type=int, default=3)
    args = parser.parse_args()
    try:
        mods = load_official(args.official)
    except Exception as err:  # noqa: BLE001
        print(f"cannot load the official scripts from {args.official}: {err}", file=sys.stderr)
        return 2
    rng, tally = random.Random(args.seed), Tally(args.examples)
    with tempfile.TemporaryDirectory() as tmp:
        check_clean(mods, tally, rng, args.n)
        check_classification(mods, tally, rng, args.n, Path(tmp))
        check_nutrition(mods, tally, rng, args.n, Path(tmp))
        check_vqa(mods, tally, rng, args.n, Path(tmp))
    # The one official crash we know of: squared errors beyond the float range raise OverflowError.
    try:
        path = Path(tempfile.mkstemp(suffix=".jsonl")[1])
        write_preds(path, [{"idx": 0, "model_pred": '{"calories": 1e200, "protein": 1, "carbohydrates": 1, "fat": 1}'}])
        quiet(
            mods["eval_nutrition"].evaluate_predictions,
            [{"ground_truth": {"calories": 1, "protein": 1, "carbohydrates": 1, "fat": 1}}],
            str(path),
        )
        print("note: the official scorer did not crash on a 1e200 prediction")
    except OverflowError:
        print(
            "note: the official nutrition scorer crashes (OverflowError) on a prediction of 1e200 kcal; ours reports "
            "RMSE = inf"
        )
    return tally.report()


if __name__ == "__main__":
    sys.exit(main())
