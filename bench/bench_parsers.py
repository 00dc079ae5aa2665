#!/usr/bin/env python
"""Worst-case cost of every ``process_results`` hook on runaway model outputs (a script, not a test).

FAM-Bench allows 1,024-4,096 new tokens (about 16 KB of text) and models do produce runaway repetition,
so every parser must be linear (or bounded) in the output length. This script feeds each hook of both
benchmarks (FAM-Bench Task 1, rank, decision, CTC, CTC-all; WorldCuisines MCQ, OEQ, OEQ-sample) the
runaway shapes of issue 10 and more (unclosed fences with whitespace runs, unbalanced braces, ``decision:``
and answer words followed by whitespace, newline runs, repeated ``<think>`` tags, deep nesting, oversized
integers, literal control characters in JSON strings...) at each size, and prints the slowest call per
hook and per shape. Documents come from the packaged sample data (no network).

Each shape runs in a child process with a time limit (``--limit``, seconds per shape for all hooks): a
regular expression stuck in C cannot be interrupted otherwise; a shape that does not finish is reported
as ``> limit``. Non-string outputs (None, numbers, lists, dicts) are checked too: a hook that raises is
reported as ``RAISED``.

    python bench/bench_parsers.py [--sizes 16384,1048576] [--limit 60] [--repeat 3] [--json out.json]
        [--shapes TEXT] [--hooks TEXT]   (only the shapes / hooks whose name contains TEXT)

Nothing is asserted; the goal (issue 10) is no hook call above 50 ms on any output of up to 16 KB.
"""

from __future__ import annotations

import argparse
import json
import multiprocessing as mp
import os
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

os.environ.setdefault("FOOD_TASKS_OFFLINE", "1")  # the sample documents are packaged: nothing to fetch
ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))


def shapes(size: int) -> dict[str, str]:
    """Runaway outputs of about ``size`` characters."""

    def rep(unit: str) -> str:
        return unit * max(1, size // len(unit))

    big = "9" * max(4400, size - 40)
    return {
        "``` + spaces": "```" + " " * size,
        "```json + tabs/spaces": "```json" + rep(" \t"),
        "``` + newlines": "```" + "\n" * size,
        "backticks": "`" * size,
        "{ x n": "{" * size,
        "{ x n, } x n (nested braces)": "{" * (size // 2) + "}" * (size // 2),
        '{"a" x n, } x n': '{"a" ' * (size // 6) + "}" * (size // 6),
        '{" x n': rep('{"'),
        '{\\" x n': rep('{\\"'),
        '"{ x n': rep('"{'),
        '{"a": x n (deep)': rep('{"a": '),
        "[ x n (deep)": "[" * size,
        '{"a": x n, error, } x n': '{"a":' * (size // 6) + "1 2" + "}" * (size // 6),
        '{"a": x n, valid, } x n': '{"a":' * (size // 6) + "1" + "}" * (size // 6) + " x",
        "} x n": "}" * size,
        "decision: + spaces": "decision:" + " " * size,
        '"decision": + spaces': '{"decision":' + " " * size,
        "not + spaces": "not" + " " * size + "x",
        "newlines": "\n" * size,
        "1. + newlines": "1." + "\n" * size,
        "A + spaces": "A" + " " * size + "x",
        "Answer: + spaces": "Answer:" + " " * size,
        "spaces": " " * size,
        "<think> x n": rep("<think>"),
        "</think> x n": rep("</think>"),
        "<think></think> x n": rep("<think> </think>"),
        "<thinking><think> x n": rep("<thinking><think>"),
        "JSON answer x n": rep('{"ranking": ["A", "B", "C", "D"], "best_option": "A"} '),
        "fenced JSON x n": rep('```json\n{"decision": "recommend"}\n```\n'),
        "decision JSON x n": rep('{"option_decisions": {"A": {"decision": "recommend"}}} '),
        "sentence x n": rep("The answer is A because it is low in sodium. "),
        "A > B > x n": rep("A > B > "),
        "(1, 2, 3, 4, 5) x n": rep("(1, 2, 3, 4, 5) "),
        "1 - 5 x n": rep("1 - 5 "),
        "答案是 x n": rep("答案是"),
        "digits": "9" * size,
        "JSON + oversized int": '{"ranking": ["A", "B", "C", "D"], "x": ' + big + "}",
        "JSON + literal tabs/newlines": '{"reasoning": "' + rep("\t\n step ") + '", "ranking": ["A", "B", "C", "D"]}',
        "control characters": rep("\x00\x1c\x85\u2028\u200b"),
        "lone surrogates": rep("\ud800A"),
    }


NON_STRINGS: dict[str, Any] = {
    "None": None,
    "int": 5,
    "float nan": float("nan"),
    "list": ["A"],
    "dict": {"a": 1},
    "bytes": b"A",
}


def hooks() -> dict[str, tuple[Callable, dict]]:
    """hook name -> (process_results function, one document)."""
    from food_tasks.utils import fambench as fb
    from food_tasks.utils import worldcuisines as wc

    task1 = fb.docs_sample_task1(None)[0]
    ctc = fb.docs_sample_ctc(None)
    rank = next(d for d in ctc if d["kind"] == "rank")
    decision = next(d for d in ctc if d["kind"] == "decision")
    mcq = dict(wc.docs_sample_1a(None)[0])
    return {
        "fambench task1": (fb.process_results_task1, task1),
        "fambench rank": (fb.process_results_rank, rank),
        "fambench decision": (fb.process_results_decision, decision),
        "fambench ctc (rank doc)": (fb.process_results_ctc, rank),
        "fambench ctc_all (decision doc)": (fb.process_results_ctc_all, decision),
        "worldcuisines mcq": (wc.process_results_mcq, mcq),
        "worldcuisines oeq": (wc.process_results_oeq, mcq),
        "worldcuisines oeq_sample": (wc.process_results_oeq_sample, mcq),
    }


def _run_shape(output: Any, repeat: int, conn: Any, only: str = "") -> None:
    """Child: every hook on one output; sends (hook, seconds or error) as each finishes. Per-output caches
    are cleared before every call (a repeated call must not measure a cache hit)."""
    from food_tasks.hooks import parsing

    for name, (fn, doc) in hooks().items():
        if only not in name:
            continue
        best = None
        try:
            fn(doc, ['warm-up <think>x</think> {"ranking": ["A"]}'])  # first-call costs are not the output's
            for _ in range(repeat):
                parsing._strip_tagged.cache_clear()
                start = time.perf_counter()
                fn(doc, [output])
                elapsed = time.perf_counter() - start
                best = elapsed if best is None else min(best, elapsed)
            conn.send((name, best))
        except Exception as exc:  # noqa: BLE001 - reported
            conn.send((name, f"RAISED {type(exc).__name__}: {exc}"[:120]))
    conn.send(None)


def measure(output: Any, repeat: int, limit: float, only: str = "") -> dict[str, Any]:
    ctx = mp.get_context("fork")
    parent, child = ctx.Pipe(duplex=False)
    proc = ctx.Process(target=_run_shape, args=(output, repeat, child, only))
    proc.start()
    child.close()
    results: dict[str, Any] = {}
    deadline = time.monotonic() + limit
    while True:
        left = deadline - time.monotonic()
        if left <= 0 or not parent.poll(left):
            proc.kill()
            for name in hooks():
                if only in name:
                    results.setdefault(name, f"> {limit:g} s")
            break
        try:
            item = parent.recv()
        except EOFError:
            break
        if item is None:
            break
        results[item[0]] = item[1]
    proc.join()
    return results


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", default="16384,1048576", help="output lengths in characters, comma-separated")
    parser.add_argument("--limit", type=float, default=60.0, help="seconds per shape (all hooks) before giving up")
    parser.add_argument("--repeat", type=int, default=3, help="calls per hook and shape (the fastest is kept)")
    parser.add_argument("--json", type=Path, default=None, help="write all figures here")
    parser.add_argument("--shapes", default="", help="only the shapes whose name contains this text")
    parser.add_argument("--hooks", default="", help="only the hooks whose name contains this text")
    args = parser.parse_args(argv)
    hooks()  # build the sample documents once in the parent (cached files for the children)
    report: dict[str, Any] = {}
    print("non-string outputs (every hook must treat them as unparseable, never raise):")
    for label, value in NON_STRINGS.items():
        got = measure(value, 1, args.limit, args.hooks)
        raised = {k: v for k, v in got.items() if isinstance(v, str)}
        print(f"  {label:<10} {'OK' if not raised else raised}")
        report[f"non-string {label}"] = got
    for size in (int(x) for x in args.sizes.split(",")):
        print(f"\n=== outputs of ~{size:,} characters (fastest of {args.repeat} calls per hook; ms)")
        worst: dict[str, tuple[float, str]] = {}
        table: dict[str, dict[str, Any]] = {}
        for shape, text in shapes(size).items():
            if args.shapes not in shape:
                continue
            got = measure(text, args.repeat, args.limit, args.hooks)
            table[shape] = got
            slowest = max(got.items(), key=lambda kv: kv[1] if isinstance(kv[1], float) else float("inf"))
            cell = f"{slowest[1] * 1000:9.1f}" if isinstance(slowest[1], float) else f"{slowest[1]:>9}"
            print(f"  {shape:<30} slowest hook {cell}  ({slowest[0]})")
            for hook, value in got.items():
                seconds = value if isinstance(value, float) else float("inf")
                if seconds >= worst.get(hook, (-1.0, ""))[0]:
                    worst[hook] = (seconds, shape if isinstance(value, float) else f"{shape}: {value}")
        print(f"\n  worst case per hook at ~{size:,} characters:")
        for hook, (seconds, shape) in worst.items():
            cell = f"{seconds * 1000:9.1f} ms" if seconds != float("inf") else "      n/a   "
            print(f"    {hook:<32} {cell}  on {shape}")
        report[str(size)] = table
    if args.json:
        args.json.write_text(json.dumps(report, indent=1, default=str), encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
