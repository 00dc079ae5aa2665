#!/usr/bin/env python
"""Benchmark of the WorldCuisines task pack's own overhead (a script, not a test).

Measures, on synthetic data shaped like ``worldcuisines/vqa`` test_large and
``worldcuisines/food-kb``:

1. per-document hook cost (median / p95 in microseconds, ``time.perf_counter_ns``):
   ``doc_to_text_*``, ``doc_to_messages_mcq`` without image decode,
   ``process_results_*`` on a realistic mix of model outputs, and image decode
   (``doc_to_visual`` through the food-kb ImageStore, ~512x384 JPEG) separately;
2. data preparation (``prepare_docs('large', subtask)`` for the four subtasks)
   in a fresh subprocess, with an empty and then a warm ``HF_DATASETS_CACHE``:
   wall time, peak RSS (``ru_maxrss``) and the time to build the KB image index;
3. aggregation time over all documents (60k by default) for every metric
   except BERTScore (timed separately only when ``FOOD_TASKS_BERTSCORE_MODEL``
   is a local directory);
4. the extra start-up time of ``lmms-eval --tasks list`` with the plugin active
   versus ``FOOD_TASKS_AUTOREGISTER=0``, and of ``import food_tasks.registration``.

Nothing is asserted; figures are printed (and written with ``--json PATH``).
Everything runs offline in a temporary directory::

    HF_HUB_OFFLINE=1 HF_DATASETS_OFFLINE=1 python bench/bench_worldcuisines.py
    python bench/bench_worldcuisines.py --rows 6000 --startup-runs 1   # quick

The synthetic text is not real language: dish names, countries and questions
are generated in the script of each language (Latin with diacritics, Cyrillic,
Arabic, Devanagari, Bengali, Sinhala, Thai, Han, kana, Hangul) with the lengths
of the real prompts, rendered with the official templates (``food_tasks.data.mirror``).
"""

from __future__ import annotations

import argparse
import datetime as _dt
import gc
import io
import json
import math
import os
import platform
import random
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
import unicodedata
from pathlib import Path

OFFLINE_ENV = {
    "HF_HUB_OFFLINE": "1",
    "HF_DATASETS_OFFLINE": "1",
    "HF_DATASETS_DISABLE_PROGRESS_BARS": "1",
    "TOKENIZERS_PARALLELISM": "false",
}
os.environ.update(OFFLINE_ENV)

SUBTASK_NAMES = ("1a_nocontext", "1b_contextualized", "1c_adversarial", "2_location")
TASK1_PROMPT_TYPES = ("1", "3", "4")  # 1a, 1b, 1c
TASK1_FIRST_QA, TASK2_FIRST_QA = 400, 1900
KB_IMAGES = 732
IMAGE_SIZE = (512, 384)
SEED = 20250101

# --------------------------------------------------------------------------------------------
# Synthetic multilingual text
# --------------------------------------------------------------------------------------------

# language -> (script, glyphs per Latin letter: 2 for syllabic/logographic scripts)
LANG_SCRIPT = {
    "en": ("latin", 1),
    "id_formal": ("latin", 1),
    "id_casual": ("latin", 1),
    "su_loma": ("latin", 1),
    "jv_krama": ("latin", 1),
    "jv_ngoko": ("latin", 1),
    "cs": ("latin_dia", 1),
    "es": ("latin_dia", 1),
    "fr": ("latin_dia", 1),
    "yo": ("latin_dia", 1),
    "tl": ("latin", 1),
    "az": ("latin_dia", 1),
    "it": ("latin_dia", 1),
    "sc": ("latin_dia", 1),
    "nan_spoken": ("latin_dia", 1),
    "zh_cn": ("han", 2),
    "yue": ("han", 2),
    "nan": ("han", 2),
    "ja_formal": ("kana", 2),
    "ja_casual": ("kana", 2),
    "ko_formal": ("hangul", 2),
    "ko_casual": ("hangul", 2),
    "ar": ("arabic", 1),
    "hi": ("devanagari", 1),
    "mr": ("devanagari", 1),
    "bn": ("bengali", 1),
    "si_formal_spoken": ("sinhala", 1),
    "th": ("thai", 1),
    "ru_formal": ("cyrillic", 1),
    "ru_casual": ("cyrillic", 1),
}
SCRIPT_RANGES = {
    "cyrillic": (0x0430, 0x044F),
    "arabic": (0x0621, 0x064A),
    "devanagari": (0x0915, 0x0939),
    "bengali": (0x0995, 0x09B9),
    "sinhala": (0x0D9A, 0x0DC6),
    "thai": (0x0E01, 0x0E2E),
    "han": (0x4E00, 0x9FA5),
    "kana": (0x30A1, 0x30FA),
    "hangul": (0xAC00, 0xD7A3),
}
DIACRITICS = str.maketrans({"a": "á", "e": "è", "o": "ô", "u": "ü", "c": "č", "s": "ş", "n": "ñ"})
SYLLABLES = (
    "ka",
    "ra",
    "ma",
    "su",
    "ti",
    "ba",
    "lo",
    "ne",
    "pa",
    "ri",
    "sha",
    "go",
    "mi",
    "to",
    "ku",
    "an",
    "ji",
    "ru",
    "ve",
    "za",
    "ho",
    "bu",
    "ta",
    "chi",
    "da",
    "le",
    "fo",
    "ki",
    "nu",
    "sa",
    "gu",
    "pe",
)
DISH_WORDS = ("soup", "cake", "rice", "stew", "pie", "noodles", "dumplings", "curry", "bread", "salad", "tart", "roll")
COUNTRIES = (
    "Indonesia",
    "Japan",
    "South Africa",
    "Italy",
    "Brazil",
    "Thailand",
    "Canada",
    "Netherlands",
    "Mexico",
    "Peru",
    "India",
    "China",
    "South Korea",
    "Philippines",
    "Vietnam",
    "France",
    "Spain",
    "Portugal",
    "Greece",
    "Turkey",
    "Morocco",
    "Nigeria",
    "Ethiopia",
    "Egypt",
    "Lebanon",
    "Iran",
    "Russia",
    "Poland",
    "Czech Republic",
    "Hungary",
    "Germany",
    "Austria",
    "Sweden",
    "Norway",
    "United Kingdom",
    "Ireland",
    "United States",
    "Argentina",
    "Chile",
    "Colombia",
    "Cuba",
    "Jamaica",
    "Australia",
    "New Zealand",
    "Malaysia",
    "Singapore",
    "Sri Lanka",
    "Bangladesh",
    "Pakistan",
    "Nepal",
    "Azerbaijan",
    "Georgia",
    "Ukraine",
    "Romania",
    "Ghana",
    "Kenya",
    "Senegal",
    "Tunisia",
)
QUESTIONS_EN = {
    "1": (
        "What is this culinary dish called?",
        "What is the name of this dish?",
        "Can you tell me the name of this food?",
        "What do you call this dish?",
    ),
    "3": (
        (
            "This dish is often prepared for family gatherings and festive occasions in {c}, where it is shared among "
            "relatives. How do people in {c} identify this dish?"
        ),
        (
            "I am travelling around {c} and saw this food being sold at a street market near the station. "
            "What is the name of this dish?"
        ),
        (
            "People in {c} commonly eat this dish for breakfast, usually with tea or coffee. What is this dish called "
            "there?"
        ),
    ),
    "4": (
        (
            "My friend went to {c} last month and sent me this photo. She said it is a famous local {w} that everybody "
            "there loves to eat during the holidays. What is the name of this food?"
        ),
        (
            "I was told that this {w} is a traditional speciality of {c}, and that it is served at almost every "
            "wedding "
            "in the capital. Can you tell me what this dish is actually called?"
        ),
        (
            "A restaurant in {c} advertises this as their signature {w}, cooked according to a recipe from the north "
            "of "
            "the country. What is the real name of this dish?"
        ),
    ),
    "2": (
        "Which country is this dish associated with?",
        "Where does this dish come from?",
        "In which country is this food most commonly eaten?",
    ),
}
# Verbose OEQ answers per script family ({a}: the answer).
VERBOSE_OEQ = {
    "latin": "This dish is called {a}. It is a traditional dish, usually served warm with rice and vegetables.",
    "latin_dia": "Este plato se llama {a}. Es un plato tradicional que se sirve caliente con arroz.",
    "cyrillic": "Это блюдо называется {a}. Это традиционное блюдо, которое подают горячим с рисом.",
    "arabic": "هذا الطبق يسمى {a}. إنه طبق تقليدي يقدم ساخنا مع الأرز والخضروات.",
    "devanagari": "इस व्यंजन को {a} कहा जाता है। यह एक पारंपरिक व्यंजन है जिसे चावल के साथ परोसा जाता है।",
    "bengali": "এই খাবারটির নাম {a}। এটি একটি ঐতিহ্যবাহী খাবার যা ভাতের সাথে পরিবেশন করা হয়।",
    "sinhala": "මෙම ආහාරය {a} ලෙස හැඳින්වේ. එය බතින් සමඟ පිරිනමන සාම්ප්‍රදායික ආහාරයකි.",
    "thai": "อาหารจานนี้เรียกว่า{a} เป็นอาหารพื้นบ้านที่เสิร์ฟพร้อมข้าวสวยร้อนๆ",
    "han": "这道菜叫{a}。这是一道传统菜肴，通常配米饭一起食用。",
    "kana": "この料理は{a}です。ご飯と一緒に温かく出される伝統的な料理です。",
    "hangul": "이 음식은 {a}입니다. 보통 밥과 함께 따뜻하게 먹는 전통 음식입니다.",
}
THINK_TEXT = (
    "The image shows a plate with a golden-brown food item, garnished with herbs. The texture looks fried "
    "and the sauce on the side suggests a savoury dish. Looking at the options, two of them are desserts, "
    "so they are unlikely. Between the remaining ones, the shape and colour match best with "
)


def _letters(script: str) -> list[str]:
    low, high = SCRIPT_RANGES[script]
    return [chr(c) for c in range(low, high + 1) if unicodedata.category(chr(c)).startswith("L")]


_LETTERS = {script: _letters(script) for script in SCRIPT_RANGES}


def localize(text: str, lang: str, variant: int = 0) -> str:
    """Render English text in the script of ``lang`` (deterministic, length-preserving per script)."""
    script, per_glyph = LANG_SCRIPT[lang]
    if script == "latin":
        return text if variant % 3 else text.replace("ch", "c").replace("sh", "s")
    if script == "latin_dia":
        return text.translate(DIACRITICS)
    letters = _LETTERS[script]
    out, i, low = [], 0, text.lower()
    while i < len(low):
        ch = low[i]
        if ch.isalpha():
            chunk = low[i : i + per_glyph]
            out.append(letters[(sum(ord(c) * 31**k for k, c in enumerate(chunk)) + variant) % len(letters)])
            i += len(chunk)
        else:
            out.append(ch if script not in ("han", "kana") or ch != " " else "")
            i += 1
    return "".join(out)


def dish_names(rng: random.Random, n: int) -> list[str]:
    names: set[str] = set()
    while len(names) < n:
        words = [
            "".join(rng.choice(SYLLABLES) for _ in range(rng.randint(2, 4))).capitalize()
            for _ in range(rng.randint(1, 2))
        ]
        if rng.random() < 0.35:
            words.append(rng.choice(DISH_WORDS))
        names.add(("-" if rng.random() < 0.2 else " ").join(words))
    return sorted(names)


# --------------------------------------------------------------------------------------------
# Synthetic mirror
# --------------------------------------------------------------------------------------------


def jpeg_bytes(rng: random.Random, np) -> bytes:  # type: ignore[no-untyped-def]
    """A ~512x384 photo-like JPEG: smooth gradients, blobs and sensor-like noise (quality 90)."""
    from PIL import Image, ImageDraw, ImageFilter

    w, h = IMAGE_SIZE
    y, x = np.mgrid[0:h, 0:w].astype(np.float32)
    base = np.stack(
        [
            rng.uniform(60, 200)
            + rng.uniform(-60, 60) * np.sin(x / rng.uniform(40, 160) + rng.uniform(0, 6))
            + rng.uniform(-40, 40) * np.cos(y / rng.uniform(30, 120))
            for _ in range(3)
        ],
        axis=-1,
    )
    image = Image.fromarray(np.clip(base, 0, 255).astype(np.uint8), "RGB")
    draw = ImageDraw.Draw(image)
    for _ in range(rng.randint(8, 20)):
        cx, cy, r = rng.uniform(0, w), rng.uniform(0, h), rng.uniform(10, 90)
        draw.ellipse([cx - r, cy - r * 0.7, cx + r, cy + r * 0.7], fill=tuple(rng.randint(20, 240) for _ in range(3)))
    image = image.filter(ImageFilter.GaussianBlur(1.5))
    noise = np.asarray(image, dtype=np.int16) + np.asarray(
        np.random.default_rng(rng.randint(0, 2**31)).normal(0, 9, (h, w, 3)), dtype=np.int16
    )
    image = Image.fromarray(np.clip(noise, 0, 255).astype(np.uint8), "RGB")
    buf = io.BytesIO()
    image.save(buf, format="JPEG", quality=90)
    return buf.getvalue()


def build_mirror(
    root: Path,
    rows_target: int,
    *,
    kb_dishes: int | None = None,
    images_per_dish: tuple[int, int] = (1, 6),
    kb_writer=None,
) -> dict:  # type: ignore[no-untyped-def]
    """Write a test_large-shaped worldcuisines/vqa mirror and a food-kb mirror under ``root``.

    By default food-kb holds KB_IMAGES generated 512x384 images. ``kb_dishes`` asks for that many dishes of
    ``images_per_dish`` (min, max) images each instead, written by ``kb_writer(root, dishes)`` (each dish a
    ``{"food_id", "name", "urls"}``); bench/bench_image_path.py uses it for a food-kb of realistic size.
    """
    import numpy as np

    from food_tasks.benchmarks.worldcuisines import layout as wc_layout
    from food_tasks.benchmarks.worldcuisines.data import LANGUAGES

    rng = random.Random(SEED)
    t0 = time.perf_counter()
    # food-kb: dishes with 1-6 images each, KB_IMAGES in total.
    names = dish_names(rng, 2600 if kb_dishes is None else kb_dishes + 400)
    dishes, n_images = [], 0
    while n_images < KB_IMAGES if kb_dishes is None else len(dishes) < kb_dishes:
        k = rng.randint(*images_per_dish) if kb_dishes is not None else min(rng.randint(1, 6), KB_IMAGES - n_images)
        food_id = str(len(dishes) * 7 + 11)
        urls = [
            f"https://upload.wikimedia.org/wikipedia/commons/{food_id}/{food_id}_{j}.jpg?download" for j in range(k)
        ]
        dishes.append({"food_id": food_id, "name": names[len(dishes)], "urls": urls})
        n_images += k
    if kb_writer is not None:
        images = kb_writer(root, dishes)  # the images' sizes in bytes
    else:
        images = [jpeg_bytes(rng, np) for _ in range(n_images)]
        it = iter(images)
        wc_layout.write_wc_kb(
            root,
            [
                {"food_id": d["food_id"], "name": d["name"], "images": [(u, next(it)) for u in d["urls"]]}
                for d in dishes
            ],
        )
    t_images = time.perf_counter() - t0

    # vqa: rows_target / 30 qa_ids, three quarters task1 (prompt types 1/3/4), one quarter task2.
    n_qa = max(4, rows_target // len(LANGUAGES))
    n_task1 = (n_qa * 3 // 4) // 3 * 3
    qa_plan = [(str(TASK1_FIRST_QA + i), "task1", TASK1_PROMPT_TYPES[i * 3 // n_task1]) for i in range(n_task1)]
    qa_plan += [(str(TASK2_FIRST_QA + i), "task2", "2") for i in range(n_qa - n_task1)]

    def items():  # drawn one at a time: each question's languages are localised before the next is drawn
        for qa_id, task, prompt_type in qa_plan:
            dish = rng.choice(dishes)
            url = rng.choice(dish["urls"])
            template = rng.choice(QUESTIONS_EN[prompt_type])
            context = rng.choice(COUNTRIES)
            word = rng.choice(DISH_WORDS)
            gold = rng.randint(1, 5)
            if task == "task1":
                options = rng.sample(names[len(dishes) :], 4)
                options.insert(gold - 1, dish["name"])
            else:
                options = rng.sample(COUNTRIES, 5)
            prompt_id = str(10 * int(prompt_type) + QUESTIONS_EN[prompt_type].index(template))
            question = template.format(c=context, w=word)
            yield wc_layout.WcItem(
                qa_id, dish["food_id"], prompt_id, prompt_type, question, options, gold, url, f"large_{task}"
            )

    def in_language(item: wc_layout.WcItem, lang: str) -> tuple[str, list[str]]:
        variant = rng.randint(0, 5)
        # Latin-script languages mostly keep the dish name (as in the real data); others transliterate.
        return localize(item.question, lang), [localize(o, lang, variant) for o in item.options]

    rows = wc_layout.item_rows(items(), LANGUAGES, in_language)
    wc_layout.write_wc_vqa(root, rows)
    mcq_len = [len(r["multi_choice_prompt"]) for r in rows]
    return {
        "rows": len(rows),
        "qa_ids": len(qa_plan),
        "kb_dishes": len(dishes),
        "kb_images": n_images,
        "jpeg_kib_mean": sum(x if isinstance(x, int) else len(x) for x in images) / len(images) / 1024,
        "mcq_prompt_chars_median": statistics.median(mcq_len),
        "mcq_prompt_chars_max": max(mcq_len),
        "build_s": time.perf_counter() - t0,
        "image_gen_s": t_images,
    }


# --------------------------------------------------------------------------------------------
# Realistic model outputs
# --------------------------------------------------------------------------------------------

MCQ_KINDS = ("bare_id", "statement", "id_and_text", "option_text", "verbose", "think", "unparseable")
MCQ_WEIGHTS = (35, 15, 15, 10, 10, 10, 5)
OEQ_KINDS = ("bare_answer", "english_answer", "verbose", "markdown", "think", "wrong")
OEQ_WEIGHTS = (30, 15, 25, 10, 10, 10)


def mcq_output(doc: dict, rng: random.Random) -> tuple[str, str]:
    kind = rng.choices(MCQ_KINDS, MCQ_WEIGHTS)[0]
    gold = int(doc["multi_choice_answer"])
    k = gold if rng.random() < 0.6 else rng.randint(1, len(doc["options"]))
    text = doc["options"][k - 1]
    script = LANG_SCRIPT[doc["lang"]][0]
    if kind == "bare_id":
        out = rng.choice((f"{k}", f"{k}.", f"({k})", f" {k}\n", f"**{k}**"))
    elif kind == "statement":
        if script in ("han", "kana"):
            out = rng.choice((f"答案是{k}", f"答え：{k}", f"正解は{k}です。"))
        elif script == "hangul":
            out = f"정답은 {k}번입니다."
        else:
            out = rng.choice(
                (f"The answer is {k}", f"Answer: {k}", f"La respuesta es {k}.", f"Option {k}: {text}", f"Ответ: {k}")
            )
    elif kind == "id_and_text":
        out = rng.choice((f"{k}. {text}", f"({k}) {text}", f"{k}: {text}"))
    elif kind == "option_text":
        out = rng.choice((text, f"{text}.", text.upper() if text.isascii() else text))
    elif kind == "verbose":
        out = (
            f"The dish in the image appears to be {text}, which matches option {k}. It is recognisable by its shape, "
            f"colour and the way it is served."
        )
    elif kind == "think":
        closed = rng.random() < 0.8
        out = f"<think>\n{THINK_TEXT}{text}, which is option {k}.\n" + (f"</think>\n\n{k}" if closed else "")
    else:
        out = rng.choice(("I cannot determine the dish from this image.", "1, 2 or 4", "It could be 2 or 3.", ""))
    return kind, out


def oeq_output(doc: dict, rng: random.Random) -> tuple[str, str]:
    kind = rng.choices(OEQ_KINDS, OEQ_WEIGHTS)[0]
    correct = rng.random() < 0.5
    answer = doc["answer"] if correct else rng.choice(doc["options"])
    script = LANG_SCRIPT[doc["lang"]][0]
    if kind == "bare_answer":
        out = answer
    elif kind == "english_answer":
        out = doc["answer_en"] if correct else "Fried rice"
    elif kind == "verbose":
        out = VERBOSE_OEQ[script].format(a=answer)
    elif kind == "markdown":
        out = f"**{answer}**"
    elif kind == "think":
        closed = rng.random() < 0.8
        out = f"<think>\n{THINK_TEXT}{answer}.\n" + (f"</think>\n{answer}" if closed else "")
    else:
        out = rng.choice(("I'm not sure what this dish is.", "Pizza", VERBOSE_OEQ[script].format(a="Pasta")))
    return kind, out


# --------------------------------------------------------------------------------------------
# Timing helpers
# --------------------------------------------------------------------------------------------


def pct(values: list[float], q: float) -> float:
    if not values:
        return float("nan")
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, round(q * (len(ordered) - 1))))]


def summarize_ns(samples_ns: list[int]) -> dict:
    us = [s / 1000 for s in samples_ns]
    return {"n": len(us), "median_us": statistics.median(us), "p95_us": pct(us, 0.95), "mean_us": statistics.fmean(us)}


def time_per_doc(fn, args_list: list[tuple], repeat: int) -> list[int]:  # type: ignore[no-untyped-def]
    clock = time.perf_counter_ns
    samples = []
    for _ in range(repeat):
        for args in args_list:
            t0 = clock()
            fn(*args)
            samples.append(clock() - t0)
    return samples


def timer_overhead_ns() -> float:
    clock = time.perf_counter_ns
    samples = []
    for _ in range(20000):
        t0 = clock()
        samples.append(clock() - t0)
    return statistics.median(samples)


def peak_rss_mib() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024  # KiB on Linux


# --------------------------------------------------------------------------------------------
# Part 2 child: data preparation in a fresh process
# --------------------------------------------------------------------------------------------


def vm_hwm_mib() -> float | None:
    """Peak RSS of this process image from /proc (VmHWM; a cross-check of ru_maxrss)."""
    try:
        for line in Path("/proc/self/status").read_text().splitlines():
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) / 1024
    except (OSError, ValueError, IndexError):
        pass
    return None


def child_prepare() -> None:
    # ru_maxrss survives fork+exec (Linux keeps the parent's high-water mark), so the parent
    # must be small when it starts this child: main() runs part 2 before importing anything heavy.
    out: dict = {"rss_start_mib": peak_rss_mib()}
    t0 = time.perf_counter()
    import datasets  # noqa: F401

    from food_tasks.benchmarks.worldcuisines import data as wc_data
    from food_tasks.benchmarks.worldcuisines import scoring as wc_scoring  # noqa: F401 - timed with the imports
    from food_tasks.data import hub as data

    out["import_s"] = time.perf_counter() - t0
    out["rss_after_import_mib"] = peak_rss_mib()
    per, repeat, docs = {}, {}, {}
    t_all = time.perf_counter()
    for subtask in SUBTASK_NAMES:
        t = time.perf_counter()
        ds = wc_data.prepare_docs("large", subtask)
        per[subtask] = time.perf_counter() - t
        docs[subtask] = len(ds)
    out["prepare_total_s"] = time.perf_counter() - t_all
    out["rss_after_prepare_mib"] = peak_rss_mib()
    for subtask in SUBTASK_NAMES:  # the OEQ task of the same subtask calls process_docs again
        t = time.perf_counter()
        wc_data.prepare_docs("large", subtask)
        repeat[subtask] = time.perf_counter() - t
    t = time.perf_counter()
    store = data.hub_image_store(
        wc_data.KB_REPO, wc_data.KB_SPLIT, wc_data.KB_IMAGE_COLUMNS, wc_data.revision(), data.mirror_root()
    )
    out["kb_index_s"] = time.perf_counter() - t
    out["kb_index_urls"] = len(store)
    t = time.perf_counter()
    wc_data.kb_image(next(iter(store._index)))
    out["first_image_s"] = time.perf_counter() - t
    out.update(prepare_s=per, repeat_s=repeat, docs=docs, peak_rss_mib=peak_rss_mib(), vm_hwm_mib=vm_hwm_mib())
    print("RESULT " + json.dumps(out), flush=True)


def run_child(flag: str, env_extra: dict, *extra: str) -> dict:
    env = os.environ | OFFLINE_ENV | env_extra
    env.pop("FOOD_TASKS_WORLDCUISINES_LANGS", None)
    t0 = time.perf_counter()
    proc = subprocess.run(
        [sys.executable, __file__, flag, *extra], env=env, capture_output=True, text=True, check=False
    )
    wall = time.perf_counter() - t0
    lines = [ln for ln in proc.stdout.splitlines() if ln.startswith("RESULT ")]
    if proc.returncode != 0 or not lines:
        sys.stderr.write(proc.stdout[-4000:] + proc.stderr[-4000:])
        raise SystemExit(f"child {flag} failed (rc={proc.returncode})")
    return json.loads(lines[-1][len("RESULT ") :]) | {"process_wall_s": wall}


def run_prepare_child(mirror_root: Path, cache: Path) -> dict:
    return run_child("--_child-prepare", {"FOOD_TASKS_DATA_DIR": str(mirror_root), "HF_DATASETS_CACHE": str(cache)})


# --------------------------------------------------------------------------------------------
# Part 4: start-up
# --------------------------------------------------------------------------------------------


def time_command(cmd: list[str], env: dict, cwd: Path) -> tuple[float, str]:
    t0 = time.perf_counter()
    proc = subprocess.run(cmd, env=env, cwd=cwd, capture_output=True, text=True, check=False)
    wall = time.perf_counter() - t0
    if proc.returncode != 0:
        sys.stderr.write(proc.stderr[-3000:])
        raise SystemExit(f"command failed (rc={proc.returncode}): {' '.join(cmd)}")
    return wall, proc.stdout + proc.stderr


def child_index(repeats: int) -> None:
    """In one process: the task-index work the plugin adds (our directory indexed after lmms-eval's)."""
    from lmms_eval.tasks import TaskManager

    from food_tasks.registration import task_dir

    ours = str(task_dir())
    manager = TaskManager()  # untimed: warms imports and the file cache (the hook is off in this child)
    plain, with_ours, ours_only = [], [], []
    for _ in range(repeats):
        t = time.perf_counter()
        manager.initialize_tasks(include_path=None)
        plain.append(time.perf_counter() - t)
        t = time.perf_counter()
        index = manager.initialize_tasks(include_path=[ours])
        with_ours.append(time.perf_counter() - t)
        t = time.perf_counter()
        own = manager.initialize_tasks(include_path=[ours], include_defaults=False)
        ours_only.append(time.perf_counter() - t)
    print(
        "RESULT "
        + json.dumps(
            {
                "defaults_s": plain,
                "defaults_plus_ours_s": with_ours,
                "ours_only_s": ours_only,
                "entries_total": len(index),
                "entries_ours": len(own),
            }
        ),
        flush=True,
    )


def startup(runs: int, cwd: Path) -> dict:
    lmms = Path(sys.executable).with_name("lmms-eval")
    lmms_cmd = [str(lmms) if lmms.exists() else (shutil.which("lmms-eval") or "lmms-eval"), "--tasks", "list"]
    base = {k: v for k, v in os.environ.items() if not k.startswith("FOOD_TASKS_")} | OFFLINE_ENV
    variants = {"plugin": base, "autoregister_0": base | {"FOOD_TASKS_AUTOREGISTER": "0"}}
    times: dict[str, list[float]] = {k: [] for k in variants}
    listed = {}
    for name, env in variants.items():  # untimed warm-up (page cache, .pyc)
        _, text = time_command(lmms_cmd, env, cwd)
        listed[name] = sum("worldcuisines" in line for line in text.splitlines())
    for _ in range(runs):  # interleaved, so drift affects both sides alike
        for name, env in variants.items():
            times[name].append(time_command(lmms_cmd, env, cwd)[0])
    py = {
        "python -c pass": [sys.executable, "-c", "pass"],
        "import food_tasks.registration": [sys.executable, "-c", "import food_tasks.registration"],
    }
    py_times: dict[str, list[float]] = {k: [] for k in py}
    for cmd in py.values():
        time_command(cmd, base, cwd)
    for _ in range(max(5, runs)):
        for k, cmd in py.items():
            py_times[k].append(time_command(cmd, base, cwd)[0])
    med = {k: statistics.median(v) for k, v in times.items()}
    pmed = {k: statistics.median(v) for k, v in py_times.items()}
    index = run_child("--_child-index", {"FOOD_TASKS_AUTOREGISTER": "0"}, "--startup-runs", str(max(5, runs)))
    return {
        "index_in_process": index
        | {
            k.replace("_s", "_median_s"): statistics.median(index[k])
            for k in ("defaults_s", "defaults_plus_ours_s", "ours_only_s")
        },
        "runs": runs,
        "tasks_list_s": times,
        "tasks_list_median_s": med,
        "plugin_extra_s": med["plugin"] - med["autoregister_0"],
        "worldcuisines_lines_listed": listed,
        "python_s": py_times,
        "python_median_s": pmed,
        "registration_import_extra_s": pmed["import food_tasks.registration"] - pmed["python -c pass"],
    }


# --------------------------------------------------------------------------------------------
# Main
# --------------------------------------------------------------------------------------------


def versions() -> dict:
    from importlib import metadata

    out = {"python": platform.python_version()}
    for dist in ("food-tasks", "lmms_eval", "datasets", "pyarrow", "pillow", "numpy", "torch", "transformers"):
        try:
            out[dist] = metadata.version(dist)
        except metadata.PackageNotFoundError:
            out[dist] = "n/a"
    return out


def cpu_model() -> str:
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown"


def fmt_hook(name: str, s: dict) -> str:
    return f"  {name:<42} median {s['median_us']:9.2f} us   p95 {s['p95_us']:9.2f} us   (n={s['n']})"


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__.split("\n\n")[0], formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument(
        "--rows", type=int, default=60000, help="rows of the synthetic test_large split (default 60000)"
    )
    parser.add_argument("--hook-docs", type=int, default=3000, help="documents sampled for per-doc hook timings")
    parser.add_argument("--repeat", type=int, default=3, help="passes over the sampled documents per hook")
    parser.add_argument("--decode-docs", type=int, default=400, help="documents for the image-decode timing")
    parser.add_argument(
        "--startup-runs", type=int, default=3, help="timed `lmms-eval --tasks list` runs per variant (0: skip)"
    )
    parser.add_argument(
        "--bertscore-docs", type=int, default=2000, help="OEQ records scored when a local BERTScore model is set"
    )
    parser.add_argument("--json", type=Path, help="also write the figures to this JSON file")
    parser.add_argument("--workdir", type=Path, help="keep the synthetic mirror and caches here instead of a temp dir")
    parser.add_argument("--_child-prepare", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--_child-build", type=Path, help=argparse.SUPPRESS)
    parser.add_argument("--_child-index", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args._child_index:
        child_index(args.startup_runs)
        return
    if args._child_prepare:
        child_prepare()
        return
    if args._child_build:
        print("RESULT " + json.dumps(build_mirror(args._child_build, args.rows)), flush=True)
        return

    work = args.workdir or Path(tempfile.mkdtemp(prefix="bench_wc_"))
    work.mkdir(parents=True, exist_ok=True)
    mirror_root, cache_prep, cache_main = work / "mirror", work / "hf_cache_prepare", work / "hf_cache_main"
    for path in (mirror_root, cache_prep, cache_main):
        shutil.rmtree(path, ignore_errors=True)
    # Before anything imports `datasets` (it reads the cache location once).
    os.environ.update({"FOOD_TASKS_DATA_DIR": str(mirror_root), "HF_DATASETS_CACHE": str(cache_main)})
    os.environ.pop("FOOD_TASKS_WORLDCUISINES_LANGS", None)
    results: dict = {
        "date": _dt.datetime.now(_dt.UTC).isoformat(timespec="seconds"),
        "machine": {"cpu": cpu_model(), "cores": os.cpu_count(), "platform": platform.platform()},
        "versions": versions(),
        "args": {k: (str(v) if isinstance(v, Path) else v) for k, v in vars(args).items() if not k.startswith("_")},
    }
    t_start = time.perf_counter()
    try:
        print(f"WorldCuisines task-pack benchmark  {results['date']}")
        print(
            f"machine: {results['machine']['cpu']}, {results['machine']['cores']} cores; "
            + ", ".join(f"{k} {v}" for k, v in results["versions"].items())
        )

        # ---------------------------------------------------------------- synthetic data
        # Built in a subprocess: this process stays small until part 2 is measured (see child_prepare).
        syn = run_child(
            "--_child-build",
            {"HF_DATASETS_CACHE": str(work / "hf_cache_build")},
            str(mirror_root),
            "--rows",
            str(args.rows),
        )
        results["synthetic"] = syn
        print(
            f"\nsynthetic mirror: {syn['rows']} rows ({syn['qa_ids']} qa_ids x 30 languages), MCQ prompt "
            f"{syn['mcq_prompt_chars_median']:.0f} chars median / {syn['mcq_prompt_chars_max']} max; food-kb "
            f"{syn['kb_images']} JPEG {IMAGE_SIZE[0]}x{IMAGE_SIZE[1]} ({syn['jpeg_kib_mean']:.0f} KiB mean) in "
            f"{syn['kb_dishes']} dishes; written in {syn['build_s']:.1f} s"
        )

        # ---------------------------------------------------------------- 2. data preparation
        print(
            f"\n[2] data preparation, fresh subprocess, prepare_docs('large', s) for the 4 subtasks "
            f"(parent RSS at spawn {peak_rss_mib():.0f} MiB)"
        )
        prep = {"cold": run_prepare_child(mirror_root, cache_prep), "warm": run_prepare_child(mirror_root, cache_prep)}
        results["prepare"] = prep
        for label, r in prep.items():
            subs = "  ".join(f"{s.split('_')[0]} {r['prepare_s'][s]:.2f}" for s in SUBTASK_NAMES)
            print(
                f"  {label:<5} total {r['prepare_total_s']:6.2f} s  ({subs} s; docs "
                f"{'/'.join(str(r['docs'][s]) for s in SUBTASK_NAMES)})"
            )
            print(
                f"        repeat call (same process) {sum(r['repeat_s'].values()):.2f} s for all 4; "
                f"KB image index {r['kb_index_s']:.2f} s ({r['kb_index_urls']} URLs); imports {r['import_s']:.2f} s"
            )
            print(
                f"        peak RSS {r['peak_rss_mib']:.0f} MiB (ru_maxrss; VmHWM "
                f"{r['vm_hwm_mib'] or float('nan'):.0f}); after imports "
                f"{r['rss_after_import_mib']:.0f}, after prepare {r['rss_after_prepare_mib']:.0f}; "
                f"process wall {r['process_wall_s']:.1f} s"
            )

        # ---------------------------------------------------------------- 1. per-document hooks
        from food_tasks.benchmarks.worldcuisines import data as wc_data
        from food_tasks.benchmarks.worldcuisines import scoring as wc_scoring
        from food_tasks.utils import worldcuisines as hooks

        docs_by_subtask = {
            s: wc_data.prepare_docs("large", s).to_list() for s in SUBTASK_NAMES
        }  # untimed (main process)
        all_docs = [d for s in SUBTASK_NAMES for d in docs_by_subtask[s]]
        rng = random.Random(SEED + 1)
        mcq_outputs = [mcq_output(d, rng) for d in all_docs]
        oeq_outputs = [oeq_output(d, rng) for d in all_docs]
        sample_idx = rng.sample(range(len(all_docs)), min(args.hook_docs, len(all_docs)))
        sample = [all_docs[i] for i in sample_idx]

        print(
            f"\n[1] per-document hook cost over {len(sample)} sampled docs x {args.repeat} passes "
            f"(timer overhead {timer_overhead_ns():.0f} ns, included)"
        )
        gc.collect()
        hook_stats: dict = {}
        single = [(d,) for d in sample]
        hook_stats["doc_to_text_mcq"] = summarize_ns(time_per_doc(hooks.doc_to_text_mcq, single, args.repeat))
        hook_stats["doc_to_text_oeq"] = summarize_ns(time_per_doc(hooks.doc_to_text_oeq, single, args.repeat))

        # Image decode: doc_to_visual through the KB ImageStore (index built once, timed separately).
        t = time.perf_counter()
        hooks.doc_to_visual(sample[0])
        kb_index_in_process = time.perf_counter() - t
        decode_docs = [(d,) for d in sample[: args.decode_docs]]
        hook_stats["doc_to_visual (image decode)"] = summarize_ns(time_per_doc(hooks.doc_to_visual, decode_docs, 1))

        # doc_to_messages_mcq without decode: doc_to_visual answers from pre-decoded images.
        decoded = {d["image_url"]: hooks.doc_to_visual(d) for d in sample}
        real_visual = hooks.doc_to_visual
        hooks.doc_to_visual = lambda doc, lmms_eval_specific_kwargs=None: decoded[doc["image_url"]]
        try:
            hook_stats["doc_to_messages_mcq (no decode)"] = summarize_ns(
                time_per_doc(hooks.doc_to_messages_mcq, single, args.repeat)
            )
        finally:
            hooks.doc_to_visual = real_visual

        mcq_args = [(all_docs[i], [mcq_outputs[i][1]]) for i in sample_idx]
        oeq_args = [(all_docs[i], [oeq_outputs[i][1]]) for i in sample_idx]
        mcq_ns = time_per_doc(hooks.process_results_mcq, mcq_args, args.repeat)
        oeq_ns = time_per_doc(hooks.process_results_oeq, oeq_args, args.repeat)
        hook_stats["process_results_mcq"] = summarize_ns(mcq_ns)
        hook_stats["process_results_oeq"] = summarize_ns(oeq_ns)
        for name, stats in hook_stats.items():
            print(fmt_hook(name, stats))
        print(f"  KB image index build on first doc_to_visual (warm cache): {kb_index_in_process * 1000:.0f} ms")

        def by_kind(ns: list[int], outputs: list, kinds: tuple[str, ...]) -> dict:
            n = len(sample_idx)
            groups: dict[str, list[int]] = {k: [] for k in kinds}
            for j, value in enumerate(ns):
                groups[outputs[sample_idx[j % n]][0]].append(value)
            return {k: summarize_ns(v) for k, v in groups.items() if v}

        kinds_mcq, kinds_oeq = by_kind(mcq_ns, mcq_outputs, MCQ_KINDS), by_kind(oeq_ns, oeq_outputs, OEQ_KINDS)
        print(
            "  process_results_mcq median by output kind: "
            + ", ".join(f"{k} {v['median_us']:.1f}" for k, v in kinds_mcq.items())
            + " us"
        )
        print(
            "  process_results_oeq median by output kind: "
            + ", ".join(f"{k} {v['median_us']:.1f}" for k, v in kinds_oeq.items())
            + " us"
        )
        results["hooks"] = hook_stats | {
            "kb_index_in_process_s": kb_index_in_process,
            "process_results_mcq_by_kind": kinds_mcq,
            "process_results_oeq_by_kind": kinds_oeq,
        }

        # ---------------------------------------------------------------- 3. aggregation
        print(f"\n[3] aggregation over {len(all_docs)} documents (all 4 subtasks in one list)")
        t = time.perf_counter()
        mcq_records = [wc_scoring.score_mcq(d, o[1]) for d, o in zip(all_docs, mcq_outputs)]
        t_mcq = time.perf_counter() - t
        t = time.perf_counter()
        oeq_records = [wc_scoring.score_oeq(d, o[1]) for d, o in zip(all_docs, oeq_outputs)]
        t_oeq = time.perf_counter() - t
        print(f"  building records (score_* per doc, once): MCQ {t_mcq:.2f} s, OEQ {t_oeq:.2f} s")
        aggregations = {
            **{name: (hooks.TABLES["mcq"][name], mcq_records) for name in ("acc", "acc_official", "invalid_rate")},
            "per_language_mcq": (hooks.TABLES["mcq"]["per_language"], mcq_records),
            **{
                name: (hooks.TABLES["oeq"][name], oeq_records)
                for name in (
                    "acc_multi",
                    "acc_single",
                    "acc_dual",
                    "acc_multi_strict",
                    "acc_multi_official",
                    "acc_single_official",
                    "acc_dual_official",
                )
            },
            "per_language_oeq": (hooks.TABLES["oeq"]["per_language"], oeq_records),
        }
        agg: dict = {}
        values: dict = {}
        for name, (fn, records) in aggregations.items():
            runs = []
            for _ in range(3):
                t = time.perf_counter()
                value = fn(records)
                runs.append(time.perf_counter() - t)
            agg[name] = statistics.median(runs)
            values[name] = value if isinstance(value, float) else f"{len(value)} languages"
        total = sum(agg.values())
        for name, sec in agg.items():
            shown = f"{values[name]:.2f}" if isinstance(values[name], float) else values[name]
            print(f"  {name:<22} {sec * 1000:8.1f} ms   (value {shown})")
        print(f"  {'all of the above':<22} {total * 1000:8.1f} ms")
        bert_model = os.environ.get("FOOD_TASKS_BERTSCORE_MODEL", "").strip()
        if bert_model and Path(bert_model).is_dir():
            subset = oeq_records[: args.bertscore_docs]
            t = time.perf_counter()
            value = hooks.TABLES["oeq"]["bertscore_f1"](subset)
            sec = time.perf_counter() - t
            if math.isnan(value):  # the model could not be used (bertscore logged why)
                bert = {
                    "model": bert_model,
                    "records": len(subset),
                    "error": "BERTScore returned NaN (model not usable)",
                }
                print(f"  bertscore_f1: failed with {bert_model} (NaN; see the error logged above)")
            else:
                bert = {
                    "model": bert_model,
                    "records": len(subset),
                    "seconds": sec,
                    "value": value,
                    "per_doc_ms": 1000 * sec / max(1, len(subset)),
                }
                print(
                    f"  bertscore_f1 ({bert_model}, {len(subset)} records, incl. model load): {sec:.1f} s "
                    f"({bert['per_doc_ms']:.2f} ms/doc, value {value:.2f})"
                )
        else:
            bert = "skipped"
            print("  bertscore_f1: skipped (FOOD_TASKS_BERTSCORE_MODEL is not a local model directory)")
        results["aggregation"] = {
            "records": len(all_docs),
            "build_records_s": {"mcq": t_mcq, "oeq": t_oeq},
            "seconds": agg,
            "total_s": total,
            "bertscore": bert,
        }
        del mcq_records, oeq_records, all_docs, docs_by_subtask

        # ---------------------------------------------------------------- 4. start-up
        if args.startup_runs > 0:
            print(
                f"\n[4] start-up: `lmms-eval --tasks list`, {args.startup_runs} timed runs per variant (after 1 "
                "warm-up)"
            )
            results["startup"] = st = startup(args.startup_runs, work)
            med = st["tasks_list_median_s"]
            print(
                f"  plugin active            median {med['plugin']:.2f} s  runs "
                f"{[f'{x:.2f}' for x in st['tasks_list_s']['plugin']]}"
                f"  ({st['worldcuisines_lines_listed']['plugin']} worldcuisines lines listed)"
            )
            print(
                f"  FOOD_TASKS_AUTOREGISTER=0 median {med['autoregister_0']:.2f} s  runs "
                f"{[f'{x:.2f}' for x in st['tasks_list_s']['autoregister_0']]}  "
                f"({st['worldcuisines_lines_listed']['autoregister_0']} listed)"
            )
            spread = max(max(v) - min(v) for v in st["tasks_list_s"].values())
            print(
                f"  extra start-up with the plugin (difference of medians): {st['plugin_extra_s']:+.2f} s "
                f"(run-to-run spread up to {spread:.2f} s on this machine)"
            )
            ix = st["index_in_process"]
            print(
                f"  in-process TaskManager.initialize_tasks, median of {len(ix['defaults_s'])}: lmms-eval's tasks "
                f"{ix['defaults_median_s']:.2f} s, plus ours {ix['defaults_plus_ours_median_s']:.2f} s; "
                f"our directory alone {ix['ours_only_median_s'] * 1000:.0f} ms ({ix['entries_ours']} entries)"
            )
            pm = st["python_median_s"]
            print(
                f"  python -c pass {pm['python -c pass']:.3f} s; import food_tasks.registration "
                f"{pm['import food_tasks.registration']:.3f} s ({st['registration_import_extra_s'] * 1000:+.0f} ms)"
            )
        else:
            print("\n[4] start-up: skipped (--startup-runs 0)")
        results["total_wall_s"] = time.perf_counter() - t_start
        print(f"\nbenchmark wall time {results['total_wall_s']:.0f} s")
        if args.json:
            args.json.parent.mkdir(parents=True, exist_ok=True)
            args.json.write_text(
                json.dumps(results, indent=2, ensure_ascii=False, default=str) + "\n", encoding="utf-8"
            )
            print(f"figures written to {args.json}")
    finally:
        if args.workdir is None:
            shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
