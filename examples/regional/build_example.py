"""Writes the example regional task's data: dishes.jsonl, dishes_open.csv and generated images/.

    python examples/regional/build_example.py      # rewrites the files next to this script

The images are generated solid-colour PNGs (no third-party photos); the questions are made up by the
food-tasks project for this example. tests/core/test_regional.py checks the committed files match.
"""

from __future__ import annotations

import csv
import io
import json
import sys
from pathlib import Path

from food_tasks.data.mirror import png_bytes

HERE = Path(__file__).resolve().parent
# (id, region, language, colour, question, options, answer label, open answer)
ROWS = [
    (
        "sea-001",
        "Southeast Asia",
        "en",
        (200, 120, 40),
        "Which dish is shown in the photo?",
        ["Rendang", "Pho", "Laksa", "Adobo"],
        "A",
        "rendang",
    ),
    (
        "sea-002",
        "Southeast Asia",
        "id",
        (230, 200, 90),
        "Makanan apa yang ada di foto ini?",
        ["Soto ayam", "Gado-gado", "Nasi goreng", "Sate"],
        "C",
        "nasi goreng",
    ),
    (
        "eas-001",
        "East Asia",
        "en",
        (240, 240, 230),
        "Which dish is shown in the photo?",
        ["Ramen", "Mochi", "Bibimbap", "Xiaolongbao"],
        "D",
        "xiaolongbao",
    ),
    (
        "eas-002",
        "East Asia",
        "zh",
        (180, 40, 30),
        "照片中是哪道菜?",
        ["麻婆豆腐", "北京烤鸭", "宫保鸡丁", "饺子"],
        "A",
        "麻婆豆腐",
    ),
    (
        "waf-001",
        "West Africa",
        "en",
        (220, 90, 30),
        "Which dish is shown in the photo?",
        ["Jollof rice", "Fufu", "Suya", "Egusi soup"],
        "A",
        "jollof rice",
    ),
    (
        "waf-002",
        "West Africa",
        "fr",
        (120, 90, 40),
        "Quel plat voit-on sur la photo ?",
        ["Thieboudienne", "Yassa", "Mafé", "Attiéké"],
        "C",
        "mafé",
    ),
]


def image_bytes(colour: tuple[int, int, int]) -> bytes:
    return png_bytes(colour, 32)


def mcq_lines() -> list[str]:
    return [
        json.dumps(
            {
                "id": i,
                "image": f"images/{i}.png",
                "question": q,
                "options": o,
                "answer": a,
                "region": r,
                "language": lang,
            },
            ensure_ascii=False,
        )
        for i, r, lang, _, q, o, a, _ in ROWS
    ]


def open_csv() -> str:
    buf = io.StringIO()
    writer = csv.writer(buf, lineterminator="\n")
    writer.writerow(["id", "image", "question", "answer", "region"])
    for i, r, _, _, q, _, _, answer in ROWS:
        writer.writerow([i, f"images/{i}.png", q, answer, r])
    return buf.getvalue()


def files() -> dict[str, bytes]:
    """Relative path -> bytes of every generated file."""
    out = {"dishes.jsonl": ("\n".join(mcq_lines()) + "\n").encode(), "dishes_open.csv": open_csv().encode()}
    out.update({f"images/{row[0]}.png": image_bytes(row[3]) for row in ROWS})
    return out


def main(root: Path = HERE) -> int:
    for rel, data in files().items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_bytes(data)
    return 0


if __name__ == "__main__":
    sys.exit(main(Path(sys.argv[1]) if len(sys.argv) > 1 else HERE))
