"""Writes the example regional tasks' data: dishes.jsonl, dishes_open.csv, dishes_multi.jsonl, dishes_numeric.csv,
dishes_aliases.jsonl and generated images/.

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


# Several correct options (regional_example_multi.yaml): (id, question, options, correct options, cuisines); the
# cuisine column is a slice whose cell may list several values (the row counts in each).
MULTI = [
    (
        "m-01",
        "Which of these are ingredients of rendang?",
        ["Beef", "Coconut milk", "Cheese", "Chocolate"],
        ["A", "B"],
        ["Indonesia", "Malaysia"],
    ),
    (
        "m-02",
        "Which of these are in a classic Caesar salad?",
        ["Romaine lettuce", "Croutons", "Rice noodles", "Tofu"],
        ["A", "B"],
        ["Mexico", "United States"],
    ),
    (
        "m-03",
        "Which of these are Japanese dishes?",
        ["Sushi", "Ramen", "Paella", "Tempura"],
        ["A", "B", "D"],
        ["Japan"],
    ),
    (
        "m-04",
        "Which of these dishes are deep-fried?",
        ["Tempura", "Sashimi", "Jollof rice", "Puff-puff"],
        ["Tempura", "Puff-puff"],  # option texts work as well as labels
        ["Japan", "Nigeria"],
    ),
]
# Numeric answers, text only (regional_example_numeric.yaml): (id, question, answer, region); an empty region takes
# the YAML's slice_fill.
NUMERIC = [
    ("n-01", "At what temperature in degrees Celsius does water boil at sea level?", "100", ""),
    ("n-02", "How many kilocalories does one gram of fat provide?", "9", ""),
    ("n-03", "How many grams are in one kilogram of flour?", "1000", "Europe"),
    ("n-04", "How many teaspoons make one US tablespoon?", "3", "North America"),
    ("n-05", "How many US cups make one US quart?", "4", "North America"),
]
# Open answers with accepted aliases, an image on some rows only (regional_example_aliases.yaml):
# (id, image or "", question, accepted answers, source)
ALIASES = [
    ("a-01", "images/sea-002.png", "Which dish is shown in the photo?", ["nasi goreng", "fried rice"], "photo"),
    ("a-02", "", "What is raw fish on hand-pressed vinegared rice called in Japan?", ["nigiri", "sushi"], "text"),
    ("a-03", "images/eas-002.png", "Which dish is shown in the photo?", ["mapo tofu", "麻婆豆腐"], "photo"),
    ("a-04", "", "What is the Italian flatbread topped with tomato and mozzarella called?", ["pizza"], "text"),
    ("a-05", "", "Name the Spanish rice dish cooked in a wide, shallow pan.", ["paella"], "text"),
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


def multi_lines() -> list[str]:
    return [
        json.dumps(
            {"id": i, "image": f"images/{ROWS[n][0]}.png", "question": q, "options": o, "answer": a, "cuisine": c},
            ensure_ascii=False,
        )
        for n, (i, q, o, a, c) in enumerate(MULTI)
    ]


def numeric_csv() -> str:
    buf = io.StringIO()
    writer = csv.writer(buf, lineterminator="\n")
    writer.writerow(["id", "question", "answer", "region"])
    writer.writerows(NUMERIC)
    return buf.getvalue()


def alias_lines() -> list[str]:
    return [
        json.dumps({"id": i, "image": im, "question": q, "answer": a, "source": s}, ensure_ascii=False)
        for i, im, q, a, s in ALIASES
    ]


def files() -> dict[str, bytes]:
    """Relative path -> bytes of every generated file."""
    out = {"dishes.jsonl": ("\n".join(mcq_lines()) + "\n").encode(), "dishes_open.csv": open_csv().encode()}
    out["dishes_multi.jsonl"] = ("\n".join(multi_lines()) + "\n").encode()
    out["dishes_numeric.csv"] = numeric_csv().encode()
    out["dishes_aliases.jsonl"] = ("\n".join(alias_lines()) + "\n").encode()
    out.update({f"images/{row[0]}.png": image_bytes(row[3]) for row in ROWS})
    return out


def main(root: Path = HERE) -> int:
    for rel, data in files().items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_bytes(data)
    return 0


if __name__ == "__main__":
    sys.exit(main(Path(sys.argv[1]) if len(sys.argv) > 1 else HERE))
