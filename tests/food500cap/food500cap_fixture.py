"""A small Food-500 Cap mirror in the official layout (caption files as in aaronma2020/Food500-Cap, generated
images in the ISIA Food-500 folder layout), built by code. Captions and outputs are invented; the expected
values in test_food500cap*.py are hand-computed from them.

Test file: six images; Bún riêu stored in decomposed Unicode (NFD) as in the real file; the Çiğ köfte image
is absent from the image root. Train file: one new image, one image shared with the test file (same
caption, as the 88 real overlaps) and a lower-case category spelling variant (``kebab``).
"""

from __future__ import annotations

import json
import unicodedata
from pathlib import Path

from food_tasks.benchmarks.food500cap import data as fc_data
from food_tasks.benchmarks.food500cap import layout as fc_layout


def _row(cat: str, number: int, caption: str, form: str = "NFC") -> dict:
    cat = unicodedata.normalize(form, cat)
    return {"cat": cat, "filename": f"{cat}/{cat}_{number:04d}.jpg", "caption": caption}


TEST = [
    _row("Abalone", 81, "Two steamed abalone on crushed ice on a white plate."),
    _row("Abalone", 83, "Sliced abalone over rice in a shell."),
    _row("Chicken_and_waffles", 89, "Crispy chicken and waffles with cream in the middle."),
    _row("Ambrosia_(fruit_salad)", 5, "A glass bowl of ambrosia with marshmallows and oranges."),
    _row("Bún_riêu", 7, "A bowl of bún riêu with crab and tomato.", form="NFD"),
    _row("Çiğ_köfte", 2, "Çiğ köfte on lettuce leaves."),
]
TRAIN = [
    _row("Abalone", 90, "Grilled abalone with garlic."),
    _row("Abalone", 83, "Sliced abalone over rice in a shell."),
    _row("kebab", 1, "Lamb kebab on skewers."),
]
MISSING = {"Çiğ_köfte/Çiğ_köfte_0002.jpg"}

# Scripted outputs by replay key (NFC filename). Hand-computed per image (scored = all but Çiğ köfte):
#   caption after clean-up                 words accurate relaxed nostop acc_unacc rel_unacc
#   T1 "Two abalones on crushed ice."        5      0       0       0       0         0
#   T2 "Sliced abalone over rice in a shell." 7     1       1       1       1         1
#   T3 "Pancakes and syrup on a plate."      6      0       0       1 (and) 0         0
#   T4 "Ambrosia salad with marshmallows"    4      1       1       1       1         1
#   T5 "A bowl of bun rieu crab noodle soup." 8     0       0       0       1         1
OUTPUTS = {
    "Abalone/Abalone_0081.jpg": "<think>Shellfish on ice.</think>Caption: **Two abalones** on crushed ice.",
    "Abalone/Abalone_0083.jpg": "Sliced abalone over rice in a shell.",
    "Chicken_and_waffles/Chicken_and_waffles_0089.jpg": "Pancakes and syrup on a plate.",
    "Ambrosia_(fruit_salad)/Ambrosia_(fruit_salad)_0005.jpg": '"Ambrosia salad with marshmallows"',
    "Bún_riêu/Bún_riêu_0007.jpg": "A bowl of bun rieu crab noodle soup.",
    "Çiğ_köfte/Çiğ_köfte_0002.jpg": "Çiğ köfte on lettuce.",
    "Abalone/Abalone_0090.jpg": "Grilled abalone with garlic.",
    # kebab/kebab_0001.jpg: no recorded output (the replay model answers "")
}
CLEANED = {
    "Abalone/Abalone_0081.jpg": "Two abalones on crushed ice.",
    "Chicken_and_waffles/Chicken_and_waffles_0089.jpg": "Pancakes and syrup on a plate.",
    "Ambrosia_(fruit_salad)/Ambrosia_(fruit_salad)_0005.jpg": "Ambrosia salad with marshmallows",
}
EXPECTED_TEST = {
    "sla_accurate": 40.0,
    "sla_relaxed": 40.0,
    "sla_relaxed_nostop": 60.0,
    "sla_accurate_unaccented": 60.0,
    "sla_relaxed_unaccented": 60.0,
    "mean_caption_words": 30 / 5,
    "reference_mean_words": (10 + 7 + 9 + 9 + 9) / 5,
    "parse_fail_rate": 0.0,
    "empty_rate": 0.0,
    "image_missing": 1,
}
REGIONS = {"Abalone": "Seafood", "chicken and waffles": "Western", "Ambrosia_(fruit_salad)": "Western"}


def colour(i: int) -> tuple[int, int, int]:
    return (40 * i % 256, 90 + 20 * i % 160, 200 - 15 * i % 200)


def build_mirror(root: Path, *, images: bool = True) -> Path:
    fc_layout.write_captions(root, {fc_data.TEST_FILE: TEST, fc_data.TRAIN_FILE: TRAIN})
    if images:
        rows = {unicodedata.normalize("NFC", r["filename"]): None for r in TEST + TRAIN}
        fc_layout.write_images(
            root, {f: fc_layout.jpeg_bytes(colour(i), 32) for i, f in enumerate(rows) if f not in MISSING}
        )
    return root


def hook_environment(root: Path) -> dict[str, str]:
    """A mirror under ``root`` that every Food-500 Cap task's ``process_docs`` reads (``FOOD_TASKS_DATA_DIR=root``),
    and the other environment variables it needs (the region file): tests/core/test_adversarial_outputs.py calls
    it."""
    build_mirror(root)
    regions = root / "regions.json"
    regions.write_text(json.dumps(REGIONS))
    return {"FOOD_TASKS_FOOD500CAP_REGIONS": str(regions)}
