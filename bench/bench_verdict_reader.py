"""Time of the judge protocol's readers (food_tasks.judge.protocol.read and the fallback reader
food_tasks.judge.reading.verdict_robust) on judge replies of growing size and adversarial shape, with a candidate
answer of the same size: the figures behind docs/judge.md's "linear time". Prints seconds per reply; asserts nothing.

    python bench/bench_verdict_reader.py [--sizes 2000,16384,131072,1048576] [--repeat 3]
"""

from __future__ import annotations

import argparse
import time

from food_tasks.judge.protocol import read
from food_tasks.judge.reading import verdict_robust

SHAPES = {
    "prose, verdict last": lambda n: (
        ("The crust is crisp and the sauce glossy. " * (n // 41 + 1))[:n] + "\nVerdict: no"
    ),
    "Chinese, verdict last": lambda n: ("口感酥脆，酱汁浓郁。" * (n // 10 + 1))[:n] + "判定为“否”",
    "verdict words only": lambda n: ("yes no " * (n // 7 + 1))[:n],
    "the answer quoted": lambda n: ("Yes, it is fried. " * (n // 18 + 1))[:n] + "No.",
    "one long sentence": lambda n: "correct " * (n // 8) + "but not correct",
    "quotes and colons": lambda n: ('"是"：“否”，' * (n // 8 + 1))[:n],
    "no separators": lambda n: "x" * n,
}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sizes", default="2000,16384,131072,1048576", help="reply sizes in characters")
    parser.add_argument("--repeat", type=int, default=3, help="runs per case (the best is printed)")
    args = parser.parse_args()
    sizes = [int(s) for s in args.sizes.split(",")]
    print(f"{'shape':24} " + " ".join(f"{n:>12,}" for n in sizes))
    for name, make in SHAPES.items():
        cells = []
        for n in sizes:
            reply, answer = make(n), "Yes, it is fried. " * (n // 18 + 1)
            best = min(_time(lambda r=reply, a=answer: read(r, a)) for _ in range(args.repeat))
            cells.append(f"{best:>11.3f}s")
        print(f"{name:24} " + " ".join(cells))
    reply = "Yes, it is fried. " * 1000 + "No."
    best = min(_time(lambda: verdict_robust(reply, ("Yes, it is fried",))) for _ in range(args.repeat))
    print(f"fallback reader alone, 18 KB quoting reply: {best * 1000:.1f} ms")


def _time(call) -> float:  # type: ignore[no-untyped-def]
    start = time.perf_counter()
    call()
    return time.perf_counter() - start


if __name__ == "__main__":
    main()
