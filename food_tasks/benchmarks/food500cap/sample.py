"""The packaged Food-500 Cap sample: synthetic captions in the official file layout (the real captions are
downloaded, never shipped) and generated JPEGs in the ISIA Food-500 folder layout; one file name in decomposed
Unicode (NFD) as in the official test file. Deterministic.
"""

from __future__ import annotations

import unicodedata
from pathlib import Path

from food_tasks.benchmarks.food500cap import data as fc_data
from food_tasks.benchmarks.food500cap import layout as fc_layout

FOOD500CAP_TEST = [  # (cat, image number, caption, colour)
    ("Abalone", 81, "Two steamed abalones in their shells on crushed ice on a white plate.", (200, 190, 170)),
    ("Abalone", 83, "Sliced abalone on rice with green onions in a black bowl.", (180, 170, 150)),
    (
        "Agedashi_tofu",
        12,
        "Golden agedashi tofu cubes in a light broth with scallions in a round bowl.",
        (230, 190, 90),
    ),
    (
        "Chicken_and_waffles",
        89,
        "Crispy fried chicken on a waffle with syrup and cream on a white plate.",
        (190, 120, 50),
    ),
    ("B\u00fan_ri\u00eau", 7, "A bowl of red crab noodle soup with tomatoes and herbs.", (210, 80, 60)),
]
FOOD500CAP_TRAIN = [("Abalone", 90, "Grilled abalones with garlic butter on a slate board.", (150, 140, 120))]


def caption_files() -> tuple[dict[str, list[dict]], dict[str, bytes]]:
    """The test and train caption files (``data.TEST_FILE``, ``data.TRAIN_FILE``) and the images by path (NFC)."""
    files: dict[str, list[dict]] = {}
    images: dict[str, bytes] = {}
    for name, rows, form in (
        (fc_data.TEST_FILE, FOOD500CAP_TEST, "NFD"),
        (fc_data.TRAIN_FILE, FOOD500CAP_TRAIN, "NFC"),
    ):
        records = []
        for cat, number, caption, colour in rows:
            cat_form = unicodedata.normalize(form, cat)
            filename = f"{cat_form}/{cat_form}_{number:04d}.jpg"
            records.append({"cat": cat_form, "filename": filename, "caption": caption})
            images[unicodedata.normalize("NFC", filename)] = fc_layout.jpeg_bytes(colour)
        files[name] = records
    return files, images


def write(root: Path) -> None:
    """Writes the sample under ``root``: the caption files and the image folder."""
    files, images = caption_files()
    fc_layout.write_captions(root, files)
    fc_layout.write_images(root, images)
