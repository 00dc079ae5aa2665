#!/usr/bin/env python
"""Parity check of our FoodieQA prompts, parsers and paper-protocol accuracy against the official code.

Opt-in: run by tests/parity/test_parity_foodieqa.py when ``FOOD_TASKS_PARITY_FOODIEQA`` names a local
copy, or as a script (usage below). It needs a local copy of github.com/lyan62/FoodieQA (commit 4d726407). It
*imports* the official modules from ``model-eval/scripts`` and calls their functions (the entry script
``get_accuracy.py`` is not runnable as a script, its functions are); none of their code is reproduced
here and no official data is needed: documents and model outputs are synthetic (``--seed``).

Checks (ours vs official on the same input, exact):

1. Prompts: ``sivqa_utils.format_question`` + ``format_text_prompt`` (templates 0-3, zh/en, with and
   without the dish-name replacement), ``textqa_utils.format_text_prompt`` and ``get_prompt_qwen``
   (system + user), and ``eval_mivqa_en.get_prompt_phi`` (zh/en, templates 0-3; ``<|image_N|>``
   markers at our image positions, the assistant prefill of template 3).
2. Parsers, on handwritten adversarial outputs plus ``--n`` random ones: ``parse_res``, ``parse_yi_res``,
   ``parse_phi3v_res``, ``parse_qwen_res`` (templates 0-3), ``parse_textqa_res`` (0-3), ``utils.parse_mantis``,
   ``parse_idefics``, ``parse_idefics_sivqa``, ``parse_qwen_sivqa``. The official ``random`` is replaced by
   a stub whose ``choice`` returns a sentinel, and exceptions count as that sentinel (callers fall back
   to a random choice), so "fell back" is compared exactly with our ``None``.
3. Accuracy: ``get_accuracy.get_accuracy`` with ``parse_yi_res`` after one ``random.seed(42)`` (VQA) and
   with ``parse_textqa_res`` (text QA) vs our ``acc_paper_protocol`` on synthetic files of outputs.
4. Not a check, a measurement: the spread of the released, unseeded VQA score over 200 random states on
   one synthetic task (printed beside ``acc_paper_protocol`` and the ``parse_phi3v_res`` variant).

Usage::

    python tests/parity/parity_foodieqa.py --official /path/to/FoodieQA [--seed 0] [--n 3000]

Exit status 0 when everything matches, 1 on any mismatch (examples printed), 2 when the official code
cannot be loaded.
"""

from __future__ import annotations

import argparse
import contextlib
import importlib
import io
import random
import sys
import types
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from food_tasks.benchmarks.foodieqa import parsing as fq_parsing
from food_tasks.benchmarks.foodieqa import prompts as fq_prompts
from food_tasks.benchmarks.foodieqa import scoring as fq_scoring

FALLBACK = "<fallback>"
PIECES = [
    "A",
    "B",
    "C",
    "D",
    "E",
    "a",
    "c",
    "Ａ",
    "Ｃ",
    " ",
    "\n",
    "Answer: ",
    "Answer:",
    "Option (",
    "(",
    ")",
    "（",
    "）",
    "图",
    "图B",
    "\nAssistant:",
    "\nAssistant: ",
    "Assistant: I would select",
    "my answer would be",
    "Please select one of the options as your answer",
    "我选择",
    "选择一个正确答案",
    "答案为：",
    "<think>",
    "</think>",
    "Based on",
    "I think",
    "第二张",
    "Liangpi.",
    "新疆菜",
    "京菜",
    "Picture 5",
    ".",
    "，",
    "：",
    "Human: ",
    "智能助手：",
    "Ｂ）",
    "",
    "\t",
    "d",
    "Dish",
]
HANDWRITTEN = [
    "Answer: B",
    "Option (E)\nPicture 5: the dish is …",
    "Based on the image, C",
    "Ｃ",
    "I think (c)",
    "<think>The options A and B look alike…</think> C",
    "C",
    "A.",
    "A",
    "Liangpi.",
    "Rice.",
    "",
    " ",
    "\nAssistant: 图B",
    "User: x\nAssistant: C",
    "User: x\nAssistant: ",
    "为（C",
    "我选择（D）",
    "选择一个正确答案，为（B",
    "Assistant: I would select (A",
    "my answer would be (D)",
    "图",
    "\nAssistant:",
    "（",
    "我选择",
    "选择一个正确答案",
]


def load_official(path: Path) -> dict[str, types.ModuleType]:
    scripts = path / "model-eval" / "scripts"
    if not (scripts / "get_accuracy.py").is_file():
        raise SystemExit(f"{scripts}/get_accuracy.py not found: pass --official <checkout of lyan62/FoodieQA>")
    sys.path.insert(0, str(scripts))
    mods = {name: importlib.import_module(name) for name in ("get_accuracy", "utils", "sivqa_utils", "textqa_utils")}
    try:
        import transformers

        # transformers 5 dropped this alias; eval_mivqa_en only imports it (the prompt builders do not use it).
        if not hasattr(transformers, "AutoModelForVision2Seq"):
            transformers.AutoModelForVision2Seq = transformers.AutoModelForImageTextToText
        mods["eval_mivqa_en"] = importlib.import_module("eval_mivqa_en")
    except Exception as err:  # noqa: BLE001 - needs torch/transformers; prompts of mivqa are then skipped
        print(f"warning: eval_mivqa_en not importable ({err}); mivqa prompt checks skipped")
    return mods


class Report:
    def __init__(self, examples: int) -> None:
        self.counts: dict[str, list[int]] = {}
        self.examples = examples
        self.shown: dict[str, int] = {}

    def check(self, name: str, ours, theirs, context) -> None:  # type: ignore[no-untyped-def]
        n = self.counts.setdefault(name, [0, 0])
        n[0] += 1
        if ours != theirs:
            n[1] += 1
            if self.shown.get(name, 0) < self.examples:
                self.shown[name] = self.shown.get(name, 0) + 1
                print(f"MISMATCH {name}: {context!r}\n  ours:     {ours!r}\n  official: {theirs!r}")

    def summary(self) -> int:
        total = sum(c for c, _ in self.counts.values())
        bad = sum(m for _, m in self.counts.values())
        for name, (c, m) in sorted(self.counts.items()):
            print(f"{name:<34} {c:>7} comparisons  {m:>4} mismatches")
        print(f"TOTAL {total} comparisons, {bad} mismatches")
        return 1 if bad else 0


@contextlib.contextmanager
def stub_random(*modules: types.ModuleType):
    """Official fallbacks return FALLBACK instead of a random option."""
    stub = types.SimpleNamespace(choice=lambda seq: FALLBACK, seed=lambda *a, **k: None)
    saved = [m.random for m in modules]
    for m in modules:
        m.random = stub
    try:
        yield
    finally:
        for m, r in zip(modules, saved):
            m.random = r


def official_call(fn, *args) -> str:  # type: ignore[no-untyped-def]
    try:
        with contextlib.redirect_stdout(io.StringIO()):
            return fn(*args)
    except Exception:  # noqa: BLE001 - the official callers turn exceptions into a random choice
        return FALLBACK


def ours(value: str | None) -> str:
    return FALLBACK if value is None else value


def random_outputs(rng: random.Random, n: int) -> list[str]:
    return [("".join(rng.choice(PIECES) for _ in range(rng.randint(0, 8)))) for _ in range(n)]


def check_parsers(off, report: Report, outputs: list[str]) -> None:  # type: ignore[no-untyped-def]
    ga, ut = off["get_accuracy"], off["utils"]
    with stub_random(ga, ut):
        for text in outputs:
            report.check(
                "parse_res",
                ours(fq_parsing.after_assistant(text)),
                official_call(ga.parse_res, {"response": [text]}),
                text,
            )
            report.check(
                "parse_yi_res",
                ours(fq_parsing.first_letter(text.strip())),
                official_call(ga.parse_yi_res, {"response": text}),
                text,
            )
            report.check(
                "parse_phi3v_res",
                ours(fq_parsing.first_letter(text)),
                official_call(ga.parse_phi3v_res, {"response": text}),
                text,
            )
            for k in range(4):
                report.check(
                    "parse_qwen_res",
                    ours(fq_parsing.qwen_en(text, k)),
                    official_call(ga.parse_qwen_res, {"response": text}, k),
                    (k, text),
                )
                report.check(
                    "parse_textqa_res",
                    ours(fq_parsing.textqa(text, k)),
                    official_call(ga.parse_textqa_res, {"response": text}, k),
                    (k, text),
                )
            report.check(
                "utils.parse_mantis",
                ours(fq_parsing.mantis(text)),
                official_call(ut.parse_mantis, {"response": [text]}),
                text,
            )
            report.check(
                "utils.parse_idefics",
                ours(fq_parsing.idefics(text)),
                official_call(ut.parse_idefics, {"response": [text]}),
                text,
            )
            report.check(
                "utils.parse_idefics_sivqa",
                ours(fq_parsing.idefics_sivqa(text)),
                official_call(ut.parse_idefics_sivqa, {"response": [text]}, 0),
                text,
            )
            report.check(
                "utils.parse_qwen_sivqa",
                ours(fq_parsing.qwen_sivqa(text)),
                official_call(ut.parse_qwen_sivqa, {"response": text}),
                text,
            )
            # the paper protocol's parse = parse_yi_res (VQA) / parse_textqa_res (text QA)
            report.check(
                "parse_paper(vqa)",
                ours(None if (p := fq_parsing.parse_paper(text, "sivqa", 0)) is None else str(p)),
                official_call(ga.parse_yi_res, {"response": text}),
                text,
            )


# Braces in questions and options: the official .format() copies them verbatim ({c} in a question is not the options).
QUESTIONS = [
    "图片中的食物通常属于哪个菜系?",
    " 图片中的食物的口味是? ",
    "What is the food in the picture?",
    "以下哪道菜是{甜}的？",
    "以上哪道菜最辣？",
    "图片中的食物是{c}还是{q}？",
    "Which {} is {0}{{x}}}?",
]
CHOICES = [
    ["京菜", "徽菜", " 新疆菜 ", "桂菜"],
    ["Sweet", "Sour", "Salty", "Spicy"],
    ["a{b}", "c", "d", "e"],
    ["{q}", "{c}", "{}", "}{"],
]


def synthetic_docs(rng: random.Random, n: int) -> list[dict]:
    docs = []
    for i in range(n):
        q, q_en = rng.choice(QUESTIONS), rng.choice(QUESTIONS)
        docs.append(
            {
                "question": q,
                "question_en": q_en,
                "choices": rng.choice(CHOICES),
                "choices_en": rng.choice(CHOICES),
                "answer": str(rng.randrange(4)),
                "food_name": rng.choice(["麻婆豆腐", "烤羊肉串"]),
                "food_meta": {"food_file": f"images/{i}.jpeg"},
                "images": [f"images/{i}_{k}.jpeg" for k in range(4)],
            }
        )
    return docs


def check_prompts(off, report: Report, docs: list[dict]) -> None:  # type: ignore[no-untyped-def]
    su, tu = off["sivqa_utils"], off["textqa_utils"]
    for doc in docs:
        for lang in ("zh", "en"):
            for dish in (False, True):
                q, _, choices_str = su.format_question(doc, lang=lang, show_food_name=dish)
                for k in range(4):
                    theirs = su.format_text_prompt(q, choices_str, k, lang=lang)
                    p = fq_prompts.build(doc, "sivqa", lang, k, dishname=dish)
                    mine = p.parts[1] if p.prefill is None else [p.parts[1], p.prefill]
                    report.check("sivqa prompts", mine, theirs, (lang, dish, k, doc["question"]))
        for k in range(4):
            tdoc = doc | {"food_meta": {"food_file": "x"}}
            q, _, choices_str = tu.format_question(tdoc)
            p = fq_prompts.build(doc, "textqa", "zh", k)
            report.check(
                "textqa prompts",
                fq_prompts.user_text(p),
                tu.format_text_prompt(q, choices_str, k, lang="zh"),
                (k, doc["question"]),
            )
            if hasattr(tu, "get_prompt_qwen"):  # format_question returns 3 values there: the release's helper is broken
                msgs = fq_prompts.to_messages(p, [])
                theirs = [
                    {"role": "system", "content": "你是一个智能助手。"},
                    {
                        "role": "user",
                        "content": tu.format_text_prompt(q, choices_str, k, lang="zh").replace(
                            "你是一个智能助手，", ""
                        ),
                    },
                ]
                report.check(
                    "textqa qwen2 wrapping",
                    [{"role": m["role"], "content": m["content"][0]["text"]} for m in msgs],
                    theirs,
                    k,
                )
        if "eval_mivqa_en" in off:
            for lang in ("zh", "en"):
                for k in range(4):
                    theirs = off["eval_mivqa_en"].get_prompt_phi(doc, "/data", template=k, lang=lang)
                    p = fq_prompts.build(doc, "mivqa", lang, k)
                    user = "".join(x if isinstance(x, str) else f"<|image_{x + 1}|>" for x in p.parts)
                    mine = [{"role": "user", "content": user}] + (
                        [{"role": "assistant", "content": p.prefill}] if p.prefill else []
                    )
                    report.check("mivqa prompts (get_prompt_phi)", mine, theirs, (lang, k, doc["question"]))


def check_accuracy(off, report: Report, rng: random.Random, files: int) -> None:  # type: ignore[no-untyped-def]
    ga = off["get_accuracy"]
    for f in range(files):
        n = rng.randint(1, 60)
        golds = [str(rng.randrange(4)) for _ in range(n)]
        outputs = random_outputs(rng, n)
        for task, fn, k in (("sivqa", ga.parse_yi_res, 0), ("textqa", ga.parse_textqa_res, rng.randrange(4))):
            data = [{"answer": g} for g in golds]
            res = [{"response": o} for o in outputs]
            random.seed(fq_scoring.PAPER_SEED)
            with contextlib.redirect_stdout(io.StringIO()):
                theirs = ga.get_accuracy(
                    data, res, lambda r, fn=fn, k=k: fn(r, k) if fn is ga.parse_textqa_res else fn(r)
                )
            records = [
                {
                    "index": i,
                    "gold": int(g),
                    "paper": fq_parsing.parse_paper(o, task, k),
                    "paper_fallback": 0 if task == "textqa" else None,
                }
                for i, (g, o) in enumerate(zip(golds, outputs))
            ]
            report.check(
                f"acc_paper_protocol ({task})",
                round(fq_scoring.acc_paper_protocol(records), 9),
                round(100 * theirs, 9),
                f,
            )


def unseeded_spread(off, rng: random.Random, n: int = 40, seeds: int = 200) -> None:  # type: ignore[no-untyped-def]
    """What the released script gives without a seed: ``get_accuracy`` with ``parse_yi_res`` on one synthetic
    VQA task, its random state set to each of ``seeds`` values (an unseeded run starts from any of them), beside
    ``acc_paper_protocol`` (one seed 42) and ``parse_phi3v_res`` (reseeds 42 per call: every fallback is A)."""
    ga = off["get_accuracy"]
    golds = [str(rng.randrange(4)) for _ in range(n)]
    outputs = random_outputs(rng, n)
    data, res = [{"answer": g} for g in golds], [{"response": o} for o in outputs]
    scores = []
    for seed in range(seeds):
        random.seed(seed)
        with contextlib.redirect_stdout(io.StringIO()):
            scores.append(100 * ga.get_accuracy(data, res, ga.parse_yi_res))
    with contextlib.redirect_stdout(io.StringIO()):
        phi = 100 * ga.get_accuracy(data, res, ga.parse_phi3v_res)
    records = [
        {"index": i, "gold": int(g), "paper": fq_parsing.parse_paper(o, "sivqa", 0), "paper_fallback": None}
        for i, (g, o) in enumerate(zip(golds, outputs))
    ]
    fallbacks = sum(r["paper"] is None for r in records)
    print(
        f"unseeded official score (parse_yi_res, {n} questions, {fallbacks} random fallbacks) over {seeds} seeds: "
        f"min {min(scores):.1f}, max {max(scores):.1f}, mean {sum(scores) / len(scores):.2f}; "
        f"acc_paper_protocol (seed 42 once) {fq_scoring.acc_paper_protocol(records):.1f}; "
        f"parse_phi3v_res (fallback always A) {phi:.1f}"
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--official", type=Path, required=True, help="local checkout of github.com/lyan62/FoodieQA")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--n", type=int, default=3000, help="random outputs per parser")
    parser.add_argument("--examples", type=int, default=3)
    args = parser.parse_args(argv)
    try:
        off = load_official(args.official)
    except SystemExit:
        raise
    except Exception as err:  # noqa: BLE001 - any import failure is reported as such
        print(f"cannot import the official code: {err}")
        return 2
    rng = random.Random(args.seed)
    report = Report(args.examples)
    check_parsers(off, report, HANDWRITTEN + random_outputs(rng, args.n))
    check_prompts(off, report, synthetic_docs(rng, 40))
    check_accuracy(off, report, rng, 200)
    unseeded_spread(off, random.Random(args.seed))
    return report.summary()


if __name__ == "__main__":
    sys.exit(main())
