#!/usr/bin/env python
"""Where the COCO caption toolkit stops scoring a runaway caption in bounded time and memory (prints figures).

For one runaway hypothesis of growing length (1 KiB .. 1 MiB of text, three kinds) against one reference,
in a corpus of 50 ordinary items (so that CIDEr-D has document frequencies), it times each part of the
toolkit as food_tasks.hooks.cocoeval drives it:

* PTB tokenizer: the toolkit's Stanford jar (:func:`food_tasks.hooks.cocoeval.ptb_tokenize`), all captions in one call;
* BLEU-1..4, ROUGE-L (its LCS table is hypothesis tokens x reference tokens), CIDEr-D: pycocoevalcap in Python;
* METEOR 1.5: the toolkit's jar with the toolkit's command line (``-Xmx2G``) in our
  :class:`food_tasks.hooks.cocoeval.MeteorProcess`, one jar per kind, started and warmed up before the first timed
  call (as a run keeps it); the time of the one call, whether the jar failed (out of memory, time limit)
  and the jar's peak resident memory (VmHWM, the peak over the kind's lengths so far).

Kinds: ``repeat`` (a caption of the same dish repeated: what a runaway generation looks like, and the worst
case for METEOR's aligner, every word matching many reference words), ``varied`` (seeded random words, half
food words that occur in the reference, half made-up words: non-repetitive text), ``word`` (one word of the
reference repeated, ``bowl bowl ...``), ``oneword`` (one run of letters without spaces). Once METEOR fails
or passes a quarter of ``--timeout`` for a kind, longer hypotheses of that kind skip METEOR. Nothing is asserted.

    python bench/bench_food500cap_bound.py [--sizes 1,2,4,...,1024] [--kinds repeat,varied,word,oneword]
                                             [--timeout 300] [--json out.json]
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import time

REFERENCE = "A bowl of pho with thin beef slices, rice noodles, fresh basil, bean sprouts and a lime wedge."
RUNAWAY = "Pho with beef slices, rice noodles, basil and lime in a white bowl. "
FOOD = (
    "bowl plate pho beef slices rice noodles fresh basil bean sprouts lime wedge soup broth herbs chili "
    "sauce white green red brown fried grilled steamed pork chicken egg onion garlic served with on in and a "
    "of the"
).split()
SYLLABLES = ("ka ro mi tu se na po li ve do ga ri zu be ko sa te mo fu ha ji ne bu ra wi yo pe chi to").split()
CORPUS = [
    ("A plate of fried rice with egg and green onion number {i}.", "Fried rice with egg on a plate."),
    ("Grilled chicken skewers with peanut sauce, item {i}.", "Chicken skewers and a sauce."),
    ("A slice of chocolate cake with cream on a white plate {i}.", "A piece of cake on a plate."),
]


def hypothesis(kind: str, chars: int, rng: random.Random) -> str:
    """A runaway hypothesis of ``kind`` with exactly ``chars`` characters."""
    if kind == "repeat":
        text = RUNAWAY * (chars // len(RUNAWAY) + 1)
    elif kind == "oneword":
        text = "x" * chars
    elif kind == "word":
        text = "bowl " * (chars // 5 + 1)
    else:
        words: list[str] = []
        size = 0
        while size <= chars:
            word = rng.choice(FOOD) if rng.random() < 0.5 else "".join(rng.choices(SYLLABLES, k=rng.randint(2, 4)))
            words.append(word)
            size += len(word) + 1
        text = " ".join(words)
    return text[:chars]


def peak_rss_mib(pid: int) -> float | None:
    """Peak resident memory of a process (Linux /proc VmHWM), MiB."""
    try:
        with open(f"/proc/{pid}/status") as fh:
            for line in fh:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1]) / 1024
    except OSError:
        return None
    return None


def measure(kind: str, kib: int, meteor, timeout: float) -> dict[str, object]:  # type: ignore[no-untyped-def]
    """One hypothesis of ``kib`` KiB: each part's seconds, token count, METEOR's outcome (``meteor``: the
    kind's :class:`MeteorProcess`, None to skip METEOR)."""
    from pycocoevalcap.bleu.bleu import Bleu
    from pycocoevalcap.cider.cider import Cider
    from pycocoevalcap.rouge.rouge import Rouge

    from food_tasks.hooks import cocoeval

    rng = random.Random(kib)
    hyp = hypothesis(kind, kib * 1024, rng)
    refs = {f"n{i}": [ref.format(i=i)] for i, (ref, _) in enumerate(CORPUS * 17)}
    hyps = {f"n{i}": h for i, (_, h) in enumerate(CORPUS * 17)}
    refs["runaway"], hyps["runaway"] = [REFERENCE], hyp
    keys = list(refs)
    row: dict[str, object] = {"kind": kind, "kib": kib, "chars": len(hyp), "words": len(hyp.split())}
    started = time.perf_counter()
    tokens = cocoeval.ptb_tokenize([refs[k][0] for k in keys] + [hyps[k] for k in keys])
    row["ptb_s"] = time.perf_counter() - started
    gts = {k: [tokens[i]] for i, k in enumerate(keys)}
    res = {k: [tokens[len(keys) + i]] for i, k in enumerate(keys)}
    row["tokens"] = len(res["runaway"][0].split())
    for name, scorer in (("bleu", Bleu(4)), ("rouge_l", Rouge()), ("cider", Cider())):
        started = time.perf_counter()
        scorer.compute_score(gts, res) if name != "bleu" else scorer.compute_score(gts, res, verbose=0)
        row[f"{name}_s"] = time.perf_counter() - started
    if meteor is None:
        row["meteor"] = "skipped (failed or too slow at a shorter length)"
        return row
    sys.modules[cocoeval.MeteorProcess.__module__].JAVA_TIMEOUT_S = timeout
    if meteor._proc is None:
        meteor.score({"w": [gts["n0"][0]]}, {"w": [res["n0"][0]]})  # start-up and warm-up, not timed
    started = time.perf_counter()
    try:
        meteor.score({"runaway": gts["runaway"]}, {"runaway": res["runaway"]})
        row["meteor"] = "ok"
    except cocoeval.MeteorError as err:
        row["meteor"] = str(err)
    row["meteor_s"] = time.perf_counter() - started
    row["meteor_rss_mib"] = peak_rss_mib(meteor._proc.pid) if meteor._proc is not None else None
    return row


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--sizes", default="1,2,4,8,16,32,64,128,256,512,1024", help="hypothesis sizes, KiB")
    parser.add_argument("--kinds", default="repeat,varied,word,oneword")
    parser.add_argument("--timeout", type=float, default=300.0, help="METEOR time limit per call, s")
    parser.add_argument("--json", default="")
    args = parser.parse_args()
    from food_tasks.hooks import cocoeval

    problem = cocoeval.java_problem()
    if problem:
        print(problem)
        return 1
    rows = []
    print(
        f"{'kind':8} {'KiB':>5} {'tokens':>7} {'PTB s':>6} {'BLEU s':>7} {'ROUGE s':>8} {'CIDEr s':>8} "
        f"{'METEOR s':>9} {'RSS MiB':>8}  METEOR"
    )
    for kind in args.kinds.split(","):
        # One jar per kind, as a run keeps one (start-up is not in the figures); its peak memory is the
        # peak over this kind's lengths so far, which grow.
        meteor = cocoeval.MeteorProcess()
        for kib in (int(s) for s in args.sizes.split(",")):
            row = measure(kind, kib, meteor, args.timeout)
            rows.append(row)
            meteor_s = row.get("meteor_s")
            if row["meteor"] != "ok" or (isinstance(meteor_s, float) and meteor_s > args.timeout / 4):
                if meteor is not None:
                    meteor.close()
                meteor = None  # the next length would take 2x or more: fail, or run past the time limit
        if meteor is not None:
            meteor.close()
            rss = row.get("meteor_rss_mib")
            print(
                f"{kind:8} {kib:>5} {row['tokens']:>7} {row['ptb_s']:>6.2f} {row['bleu_s']:>7.2f} "
                f"{row['rouge_l_s']:>8.2f} {row['cider_s']:>8.2f} "
                f"{meteor_s if meteor_s is None else format(meteor_s, '.2f'):>9} "
                f"{'-' if rss is None else format(rss, '.0f'):>8}  {row['meteor'][:90]}",
                flush=True,
            )
    if args.json:
        with open(args.json, "w") as fh:
            json.dump(rows, fh, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
