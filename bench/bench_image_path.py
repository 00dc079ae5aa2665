#!/usr/bin/env python
"""The image path at realistic image sizes: what each benchmark's documents cost us, and what they cost
lmms-eval's message builders (a script, not a test; nothing is asserted).

Synthetic mirrors in each benchmark's official layout, with photo-like JPEGs of realistic size and weight
(every file has distinct bytes; a JPEG comment segment tells copies of one generated photo apart):

* FoodieQA (multi-image VQA, 4 images per question) and DiningBench (classification, 4 views): phone photos,
  4032x3024, quality 92, with EXIF (about 3 MB each);
* WorldCuisines: food-kb thumbnails as Wikimedia serves them, 1600x1200, quality 88 (about 0.35 MB);
* FAM-Bench Task 1: recipe-site photos, 1200x800; Food-500 Cap: ISIA Food-500-like web photos, 640x480.

Each measurement runs in a fresh process (its peak resident memory is its own), on the documents as our
``process_docs`` builds them, and reports documents per second:

1. ``messages``: our ``doc_to_messages`` alone (decode included), 1 thread and several (lmms-eval's vLLM
   class calls it from up to ``WORKERS`` = 32 threads);
2. ``vllm``: lmms-eval 0.7.3's chat vLLM class, ``generate_until`` run for real against an engine that answers
   at once (``make_one_request`` in its thread pool: our hook, then ``ChatMessages.to_openai_messages``, which
   encodes every image as a data URL); ``LMMS_IMAGE_ENCODE_FORMAT`` PNG (lmms-eval's default) and JPEG;
3. ``openai``: lmms-eval's chat OpenAI-compatible class against a client that answers at once (it builds each
   request's payload in its main thread, then sends it from ``num_concurrent`` threads).

Then one image of each size through the pieces (our strict decode; PNG and JPEG encoding, base64), the
JPEG round trip's fidelity (PSNR against the decoded original), and the payload with ``max_pixels`` set.

``--memory``: peak resident memory of one rank while a 60,000-document WorldCuisines run prepares its
documents (four subtasks, 30 languages) and serves them through ``doc_to_messages``, with a food-kb of
realistic size (2,400 dishes, one to eight 1600x1200 JPEGs each). Not run by default (about 15 minutes on
two cores; the mirror takes a few GB under ``--workdir``).

Usage::

    python bench/bench_image_path.py [--json out.json] [--workdir DIR]
    python bench/bench_image_path.py --benchmarks worldcuisines --docs 16 --threads 1,4
    python bench/bench_image_path.py --memory --workdir /tmp/wc_memory [--memory-docs 60000]
"""

from __future__ import annotations

import argparse
import base64
import io
import json
import os
import platform
import random
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

OFFLINE_ENV = {
    "HF_HUB_OFFLINE": "1",
    "HF_DATASETS_OFFLINE": "1",
    "HF_DATASETS_DISABLE_PROGRESS_BARS": "1",
    "TOKENIZERS_PARALLELISM": "false",
    "OPENAI_API_KEY": "bench",
}
PHONE, KB, RECIPE, ISIA = (4032, 3024), (1600, 1200), (1200, 800), (640, 480)

# name -> (image size, JPEG quality, images per document, the lmms-eval task it stands for)
BENCHMARKS = {
    "foodieqa": (PHONE, 92, 4, "foodieqa_mivqa_zh_p1"),
    "diningbench": (PHONE, 92, 4, "diningbench_cls_en_v4"),
    "worldcuisines": (KB, 88, 1, "worldcuisines_mcq_1a_nocontext"),
    "fambench": (RECIPE, 90, 1, "fambench_task1"),
    "food500cap": (ISIA, 90, 1, "food500cap_caption"),
}


# --------------------------------------------------------------------------------------------- images


def photo_jpeg(size: tuple[int, int], seed: int, quality: int) -> bytes:
    """A photo-like JPEG: smooth structure, objects, blur and sensor-like noise; EXIF as a phone writes it."""
    import numpy as np
    from PIL import Image, ImageDraw, ImageFilter

    w, h = size
    rng, npr = random.Random(seed), np.random.default_rng(seed)
    small = (npr.random((h // 48 + 1, w // 48 + 1, 3)) * 200 + 30).astype(np.uint8)
    image = Image.fromarray(small).resize((w, h), Image.BICUBIC)
    draw = ImageDraw.Draw(image)
    for _ in range(30):
        cx, cy, r = rng.uniform(0, w), rng.uniform(0, h), rng.uniform(w / 40, w / 8)
        draw.ellipse([cx - r, cy - r * 0.7, cx + r, cy + r * 0.7], fill=tuple(rng.randint(20, 240) for _ in range(3)))
    image = image.filter(ImageFilter.GaussianBlur(2))
    pixels = np.asarray(image, dtype=np.int16) + npr.normal(0, 6, (h, w, 3)).astype(np.int16)
    image = Image.fromarray(np.clip(pixels, 0, 255).astype(np.uint8))
    exif = image.getexif()
    exif[0x010F], exif[0x0110] = "PhoneMaker", "Phone 12"
    buf = io.BytesIO()
    image.save(buf, "JPEG", quality=quality, exif=exif.tobytes())
    return buf.getvalue()


def unique(jpeg: bytes, tag: str) -> bytes:
    """The same JPEG with a comment segment after its start marker: other bytes, same pixels, same decode cost."""
    payload = tag.encode()
    return jpeg[:2] + b"\xff\xfe" + (len(payload) + 2).to_bytes(2, "big") + payload + jpeg[2:]


class PhotoPool:
    """A few generated photos per (size, quality), cached on disk; :meth:`take` hands out distinct files' bytes."""

    def __init__(self, cache: Path, size: tuple[int, int], quality: int, distinct: int) -> None:
        self.photos = []
        for i in range(distinct):
            path = cache / f"photo_{size[0]}x{size[1]}_q{quality}_{i}.jpg"
            if not path.is_file():
                path.parent.mkdir(parents=True, exist_ok=True)
                path.write_bytes(photo_jpeg(size, 1000 + i, quality))
            self.photos.append(path.read_bytes())
        self.count = 0

    def take(self) -> bytes:
        self.count += 1
        return unique(self.photos[self.count % len(self.photos)], f"food-tasks bench {self.count}")


# --------------------------------------------------------------------------------------------- mirrors


def build(name: str, root: Path, docs: int, cache: Path) -> None:
    """Write ``docs`` documents of benchmark ``name`` in its official layout under ``root``."""
    size, quality, _, _ = BENCHMARKS[name]
    pool = PhotoPool(cache, size, quality, distinct=6 if size == PHONE else 12)
    if name == "foodieqa":
        from food_tasks.benchmarks.foodieqa import layout

        images = {f"images/u{i // 4}/{i}_IMG.jpeg": pool.take() for i in range(4 * docs)}
        paths = sorted(images, key=lambda p: int(p.rsplit("/", 1)[1].split("_")[0]))
        mivqa = [
            layout.mivqa_row(
                f"q{i}",
                "以下哪道菜需要放入馕坑烤制？",
                "Which of the following dishes is baked in a tandoor?",
                paths[4 * i : 4 * i + 4],
                i % 4,
                "cooking-skills",
                "新疆",
            )
            for i in range(docs)
        ]
        # The other two tasks (not measured) as in the packaged sample.
        layout.write_unpacked(root, {**layout.sample_tables(), "mivqa": mivqa}, images | layout.sample_images())
    elif name == "diningbench":
        from food_tasks.benchmarks.diningbench import layout

        rows, images = [], {}
        for i in range(docs):
            views = [f"images/cls{i}/std.jpg"] + [f"images/cls{i}/u{k}.jpg" for k in range(1, 4)]
            images.update({v: pool.take() for v in views})
            rows.append(
                {
                    "id": i,
                    "prompt": "Options:\nA. Noodles\nB. Dumplings\nAnswer with the letter.",
                    "ground_truth": "A",
                    "standard_image": views[0],
                    "user_images": views[1:],
                }
            )
        files = {
            n: []
            for n in ("classification.jsonl", "nutrition.jsonl", "nutrition_en.jsonl", "vqa.jsonl", "vqa_en.jsonl")
        }
        layout.write_mirror(root, files | {"classification_en.jsonl": rows}, images, extracted=True)
    elif name == "worldcuisines":
        from food_tasks.benchmarks.worldcuisines import layout

        url = "https://upload.wikimedia.org/wikipedia/commons/{}.jpg?download".format
        layout.write_wc_kb(
            root, [{"food_id": str(i), "name": f"dish {i}", "images": [(url(i), pool.take())]} for i in range(docs)]
        )
        item = layout.WcItem  # qa_id, food_id, prompt_id, prompt_type, question, options, answer_id, image_url, task
        question = "What is this culinary dish called?"
        items = [
            item(str(400 + i), str(i), "9", "1", question, list("ABCDE"), 1, url(i), "large_task1") for i in range(docs)
        ]
        layout.write_wc_vqa(root, layout.item_rows(items, ["en"]))
    elif name == "fambench":
        from food_tasks.benchmarks.fambench import data as fb_data
        from food_tasks.data import mirror

        url = "https://recipes.example.org/photos/{}.jpg".format
        rows = [
            {
                "title": f"Dish {i}",
                "question": "Is this dish suitable for someone managing hypertension?",
                "ingredients": ["1 cup rice", "2 tbsp soy sauce"],
                "nutrition": {"calories": "313 kcal"},
                "image_url": url(i),
                "standard answer": {"decision": "recommend", "rationale_ingredients": []},
            }
            for i in range(docs)
        ]
        mirror.write_github_repo(root, fb_data.REPO, {fb_data.TASK1_FILE: rows})
        mirror.write_url_images(root, {url(i): pool.take() for i in range(docs)})
    elif name == "food500cap":
        from food_tasks.benchmarks.food500cap import data as fc_data
        from food_tasks.benchmarks.food500cap import layout

        rows = [
            {"cat": "Abalone", "filename": f"Abalone/Abalone_{i:04d}.jpg", "caption": "Steamed abalone on ice."}
            for i in range(docs)
        ]
        layout.write_captions(root, {fc_data.TEST_FILE: rows, fc_data.TRAIN_FILE: rows[:1]})
        layout.write_images(root, {r["filename"]: pool.take() for r in rows})


def documents(name: str, root: Path):  # type: ignore[no-untyped-def]
    """(the documents as our process_docs builds them, their doc_to_messages hook)."""
    if name == "foodieqa":
        import food_tasks.utils.foodieqa as hooks

        return hooks._docs("mivqa_zh_p1", None, root=root), hooks.doc_to_messages
    if name == "diningbench":
        import food_tasks.utils.diningbench as hooks

        return hooks._docs("cls", "en", (0, 1, 2, 3), False, None, root=root), hooks.doc_to_messages
    if name == "worldcuisines":
        import food_tasks.utils.worldcuisines as hooks

        return hooks._docs("large", "1a_nocontext", None, root=root, languages=("en",)), hooks.doc_to_messages_mcq
    if name == "fambench":
        import food_tasks.utils.fambench as hooks

        return hooks._docs("task1", ("baseline",), "textimage", (), None, root=root), hooks.doc_to_messages_task1
    import food_tasks.utils.food500cap as hooks
    from food_tasks.benchmarks.food500cap import data as fc_data

    return fc_data.prepare_docs("test", root), hooks.doc_to_messages


# --------------------------------------------------------------------------------------------- memory


class Memory:
    """Peak resident memory of this process while running: anonymous (what it holds) and file-backed (mapped
    files such as Arrow caches, shared with other ranks through the page cache), sampled every 20 ms."""

    def __init__(self) -> None:
        self.peak = {"rss": 0, "anon": 0, "file": 0}
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    @staticmethod
    def now() -> dict[str, int]:
        fields = {"VmRSS": "rss", "RssAnon": "anon", "RssFile": "file"}
        out = {}
        for line in Path("/proc/self/status").read_text().splitlines():
            key = line.split(":", 1)[0]
            if key in fields:
                out[fields[key]] = int(line.split()[1]) // 1024
        return out

    def _run(self) -> None:
        while not self._stop.is_set():
            for key, value in self.now().items():
                self.peak[key] = max(self.peak[key], value)
            self._stop.wait(0.02)

    def __enter__(self) -> Memory:
        self._thread.start()
        return self

    def __exit__(self, *exc) -> None:  # type: ignore[no-untyped-def]
        self._stop.set()
        self._thread.join()
        for key, value in self.now().items():
            self.peak[key] = max(self.peak[key], value)


# --------------------------------------------------------------------------------------------- lmms-eval builders

FAKE_VLLM = '''"""An engine that answers at once (the benchmark measures what happens before the engine)."""
from types import SimpleNamespace
STATS = {"conversations": 0, "image_chars": 0, "images": 0}


class SamplingParams:
    def __init__(self, **kwargs):
        self.kwargs = kwargs


class LLM:
    def __init__(self, model, **kwargs):
        pass

    def chat(self, messages, sampling_params=None, chat_template=None, **kwargs):
        conversations = messages if messages and isinstance(messages[0], list) else [messages]
        for conversation in conversations:
            STATS["conversations"] += 1
            for message in conversation:
                for part in message["content"]:
                    if part.get("type") == "image_url":
                        STATS["images"] += 1
                        STATS["image_chars"] += len(part["image_url"]["url"])
        return [SimpleNamespace(outputs=[SimpleNamespace(text="A", token_ids=[])], prompt=None) for _ in conversations]

    def get_metrics(self):
        return []
'''


class _FakeOpenAI:
    """``client.chat.completions.create(**payload)`` answering at once; counts what it was sent."""

    def __init__(self) -> None:
        from types import SimpleNamespace

        self.stats = {"conversations": 0, "image_chars": 0, "images": 0}
        self._lock = threading.Lock()
        self.chat = SimpleNamespace(completions=SimpleNamespace(create=self.create))
        self._answer = SimpleNamespace(choices=[SimpleNamespace(message=SimpleNamespace(content="A"))], usage=None)

    def create(self, **payload):  # type: ignore[no-untyped-def]
        with self._lock:
            self.stats["conversations"] += 1
            for message in payload["messages"]:
                for part in message["content"]:
                    if part.get("type") == "image_url":
                        self.stats["images"] += 1
                        self.stats["image_chars"] += len(part["image_url"]["url"])
        return self._answer


def _instances(task: str, docs, hook, gen_kwargs: dict):  # type: ignore[no-untyped-def]
    from lmms_eval.api.instance import Instance

    return [
        Instance(
            request_type="generate_until",
            arguments=("", hook, dict(gen_kwargs), i, task, "test"),
            idx=0,
            metadata={"task": task, "doc_id": i, "repeats": 1},
        )
        for i in range(len(docs))
    ]


def run_builder(kind: str, task: str, docs, hook, workdir: Path, batch_size: int, extra: dict) -> dict:  # type: ignore[no-untyped-def]
    """lmms-eval's chat vLLM or OpenAI class, ``generate_until`` over every document; returns its time and what
    reached the engine."""
    gen_kwargs = {"max_new_tokens": 16, "temperature": 0, "until": []}
    if kind == "vllm":
        fake = workdir / "fake_vllm"
        (fake / "vllm").mkdir(parents=True, exist_ok=True)
        (fake / "vllm" / "__init__.py").write_text(FAKE_VLLM)
        sys.path.insert(0, str(fake))
        import vllm  # the fake
        from lmms_eval.models.chat.vllm import VLLM

        model = VLLM(model="bench", batch_size=batch_size, max_new_tokens=1, disable_log_stats=True, **extra)
        stats = vllm.STATS
    else:
        from lmms_eval.models.chat.openai import OpenAICompatible

        model = OpenAICompatible(model="bench", max_retries=1, **extra)
        model.client = _FakeOpenAI()
        stats = model.client.stats
    model.task_dict = {task: {"test": docs}}
    model.generate_until(_instances(task, docs, hook, gen_kwargs)[:1])  # warm-up: lazy imports, first-call set-up
    for key in stats:
        stats[key] = 0
    requests = _instances(task, docs, hook, gen_kwargs)
    start, cpu = time.perf_counter(), time.process_time()
    model.generate_until(requests)
    return {"seconds": time.perf_counter() - start, "cpu_s": time.process_time() - cpu, **stats}


# --------------------------------------------------------------------------------------------- child processes


def child(spec: dict) -> dict:
    """One measurement in this (fresh) process."""
    os.environ.update(
        OFFLINE_ENV
        | {
            "FOOD_TASKS_DATA_DIR": spec["root"],
            "FOOD_TASKS_CACHE_DIR": str(Path(spec["root"]) / "_cache"),
            "HF_HOME": str(Path(spec["root"]) / "_hf"),
            "LMMS_IMAGE_ENCODE_FORMAT": spec.get("format", "PNG"),
        }
    )
    from loguru import logger

    logger.remove()  # lmms-eval's progress logging would dominate the figures' console output
    root = Path(spec["root"])
    name, mode = spec["benchmark"], spec["mode"]
    ds, hook = documents(name, root)
    n = min(spec["docs"], len(ds))
    ds = ds.select(range(n))
    out: dict = {"docs": n, "base_mib": Memory.now()}  # after imports and document preparation
    with Memory() as memory:
        if mode == "messages":
            from concurrent.futures import ThreadPoolExecutor

            threads = spec["threads"]
            hook(ds[0])  # warm-up: lazy imports, the image index, first-call set-up
            start, cpu = time.perf_counter(), time.process_time()
            if threads == 1:
                counts = [sum(p["type"] == "image" for m in hook(ds[i]) for p in m["content"]) for i in range(n)]
            else:
                with ThreadPoolExecutor(threads) as pool:
                    counts = list(
                        pool.map(
                            lambda i: sum(p["type"] == "image" for m in hook(ds[i]) for p in m["content"]), range(n)
                        )
                    )
            out["seconds"], out["cpu_s"] = time.perf_counter() - start, time.process_time() - cpu
            out["images"] = sum(counts)
        else:
            out.update(
                run_builder(
                    mode,
                    BENCHMARKS[name][3],
                    ds,
                    hook,
                    Path(spec["root"]),
                    spec.get("batch_size", 64),
                    spec.get("extra", {}),
                )
            )
    out["docs_per_s"] = n / out["seconds"]
    out["cpu_ms_per_doc"] = out["cpu_s"] / n * 1e3  # all threads' CPU time: what a document costs, whatever the load
    out["peak_mib"] = memory.peak
    return out


def run_child(spec: dict, workdir: Path, code: Path | None = None) -> dict:
    env = os.environ | OFFLINE_ENV
    if code is not None:  # another checkout of food-tasks (the figures before a change), first on the path
        env["PYTHONPATH"] = os.pathsep.join(p for p in (str(code), env.get("PYTHONPATH", "")) if p)
    proc = subprocess.run(
        [sys.executable, __file__, "--_child", json.dumps(spec)],
        env=env,
        capture_output=True,
        text=True,
        check=False,
        cwd=workdir,
    )
    lines = [ln for ln in proc.stdout.splitlines() if ln.startswith("RESULT ")]
    if proc.returncode != 0 or not lines:
        sys.stderr.write(proc.stdout[-3000:] + proc.stderr[-3000:])
        raise SystemExit(f"measurement {spec} failed (rc={proc.returncode})")
    return json.loads(lines[-1][len("RESULT ") :])


# --------------------------------------------------------------------------------------------- pieces


def pieces(cache: Path) -> dict:
    """One image of each size through the pieces of the path, and the JPEG round trip's fidelity."""
    import numpy as np
    from lmms_eval.models.model_utils.media_encoder import encode_image_to_base64
    from PIL import Image

    from food_tasks.data import images

    out = {}
    for label, size, quality in (
        ("phone 4032x3024", PHONE, 92),
        ("kb 1600x1200", KB, 88),
        ("recipe 1200x800", RECIPE, 90),
        ("isia 640x480", ISIA, 90),
    ):
        data = PhotoPool(cache, size, quality, 1).photos[0]
        row: dict = {"jpeg_mib": len(data) / 2**20}
        t = time.perf_counter()
        for _ in range(3):
            image = images.rgb(images.decode(data, "bench"))
        row["our_decode_ms"] = (time.perf_counter() - t) / 3 * 1e3
        t = time.perf_counter()
        Image.open(io.BytesIO(data)).convert("RGB")
        row["pillow_open_convert_ms"] = (time.perf_counter() - t) * 1e3
        for fmt, quality_kw in (("PNG", None), ("JPEG", 85)):
            t = time.perf_counter()
            b64 = encode_image_to_base64(image, image_format=fmt, convert_rgb=fmt == "JPEG", quality=quality_kw)
            row[f"lmms_{fmt.lower()}_data_url_ms"] = (time.perf_counter() - t) * 1e3
            row[f"lmms_{fmt.lower()}_data_url_mib"] = len(b64) / 2**20
            if fmt == "JPEG":
                back = np.asarray(Image.open(io.BytesIO(base64.b64decode(b64))).convert("RGB"), dtype=np.float64)
                mse = float(np.mean((back - np.asarray(image, dtype=np.float64)) ** 2))
                row["jpeg85_psnr_db"] = 10 * np.log10(255**2 / mse) if mse else float("inf")
                row["jpeg85_max_abs_diff"] = int(np.max(np.abs(back - np.asarray(image, dtype=np.float64))))
        out[label] = row
    return out


# --------------------------------------------------------------------------------------------- 60k WorldCuisines memory


def memory_child(spec: dict) -> dict:
    """Prepare the four subtasks (all 30 languages) and serve every document through doc_to_messages."""
    os.environ.update(OFFLINE_ENV | {"FOOD_TASKS_DATA_DIR": spec["root"], "HF_DATASETS_CACHE": spec["hf_cache"]})
    os.environ.pop("FOOD_TASKS_WORLDCUISINES_LANGS", None)
    from concurrent.futures import ThreadPoolExecutor

    from loguru import logger

    logger.remove()
    out: dict = {"start_mib": Memory.now()}
    with Memory() as prep:
        import food_tasks.utils.worldcuisines as hooks

        t = time.perf_counter()
        subtasks = {
            s: hooks._docs("large", s, None)
            for s in ("1a_nocontext", "1b_contextualized", "1c_adversarial", "2_location")
        }
        out["prepare_s"] = time.perf_counter() - t
    out["prepare_peak_mib"] = dict(prep.peak)
    out["after_prepare_mib"] = Memory.now()
    budget = spec["docs"]
    served = images = 0
    t = time.perf_counter()
    with Memory() as serve:
        with ThreadPoolExecutor(spec["threads"]) as pool:
            for ds in subtasks.values():
                n = min(len(ds), budget - served)
                if n <= 0:
                    break
                # lmms-eval reads each document from the task's dataset, then calls the hook (in threads).
                images += sum(
                    pool.map(lambda i, ds=ds: len(hooks.doc_to_messages_mcq(ds[i])[0]["content"]) - 1, range(n))
                )
                served += n
    out["serve_s"] = time.perf_counter() - t
    out["served_docs"] = served
    out["served_images"] = images
    out["serve_peak_mib"] = dict(serve.peak)
    out["end_mib"] = Memory.now()
    return out


def build_memory_mirror(root: Path, cache: Path, dishes: int) -> dict:
    """worldcuisines/vqa test_large (60,000 rows, bench_worldcuisines' generator) and a food-kb of ``dishes``
    rows with one to eight 1600x1200 JPEGs each (distinct bytes), written as parquet shards of 200 dishes
    (as the hub repository shards it: ``data/main-*.parquet``) so that the writer never holds it all."""
    sys.path.insert(0, str(ROOT / "bench"))
    import bench_worldcuisines as bw
    import datasets

    from food_tasks.benchmarks.worldcuisines import layout

    pool = PhotoPool(cache, KB, 88, distinct=24)
    features = datasets.Features(
        {"food_id": datasets.Value("string"), "name": datasets.Value("string")}
        | {f"image{i}": datasets.Image() for i in range(1, 9)}
        | {f"image{i}_url": datasets.Value("string") for i in range(1, 9)}
    )

    def write_kb(root: Path, dishes: list[dict]) -> list[int]:
        repo = root / layout.KB_REPO
        (repo / "data").mkdir(parents=True, exist_ok=True)
        shards = [dishes[i : i + 200] for i in range(0, len(dishes), 200)]
        sizes = []
        for n, shard in enumerate(shards):
            columns: dict[str, list] = {"food_id": [d["food_id"] for d in shard], "name": [d["name"] for d in shard]}
            for i in range(1, 9):
                data = [pool.take() if i <= len(d["urls"]) else None for d in shard]
                sizes += [len(x) for x in data if x is not None]
                columns[f"image{i}"] = [{"bytes": x, "path": None} if x is not None else None for x in data]
                columns[f"image{i}_url"] = [d["urls"][i - 1] if i <= len(d["urls"]) else None for d in shard]
            path = repo / "data" / f"main-{n:05d}-of-{len(shards):05d}.parquet"
            datasets.Dataset.from_dict(columns, features=features).to_parquet(str(path))
        (repo / "README.md").write_text(layout.KB_CARD, encoding="utf-8")
        return sizes

    return bw.build_mirror(root, 60000, kb_dishes=dishes, images_per_dish=(1, 8), kb_writer=write_kb)


# --------------------------------------------------------------------------------------------- main


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--benchmarks", default=",".join(BENCHMARKS), help="comma-separated: " + ", ".join(BENCHMARKS))
    parser.add_argument(
        "--docs", type=int, default=8, help="documents per measurement (phone-size benchmarks; x8 for the others)"
    )
    parser.add_argument(
        "--png-docs",
        type=int,
        default=2,
        help="documents for lmms-eval's default PNG encoding of phone photos (x8 for the others)",
    )
    parser.add_argument("--threads", default="1,8", help="thread counts for doc_to_messages")
    parser.add_argument("--modes", default="messages,vllm,openai", help="which of messages, vllm, openai to measure")
    parser.add_argument(
        "--code", type=Path, help="measure another checkout of food-tasks (e.g. `git archive <commit>` unpacked)"
    )
    parser.add_argument("--memory", action="store_true", help="only the 60,000-document WorldCuisines memory run")
    parser.add_argument("--memory-docs", type=int, default=60000)
    parser.add_argument("--memory-threads", type=int, default=2)
    parser.add_argument("--memory-dishes", type=int, default=2400)
    parser.add_argument("--json", type=Path)
    parser.add_argument("--workdir", type=Path, help="keep mirrors and generated photos here")
    parser.add_argument("--_child", help=argparse.SUPPRESS)
    parser.add_argument("--_memory-child", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args._child:
        print("RESULT " + json.dumps(child(json.loads(args._child))), flush=True)
        return 0
    if args._memory_child:
        print("RESULT " + json.dumps(memory_child(json.loads(args._memory_child))), flush=True)
        return 0

    workdir = args.workdir or Path(tempfile.mkdtemp(prefix="bench_image_path_"))
    workdir.mkdir(parents=True, exist_ok=True)
    cache = workdir / "photos"
    figures: dict = {
        "machine": (
            f"{platform.processor() or platform.machine()}, {os.cpu_count()} CPUs, Python {platform.python_version()}"
        ),
        "date": time.strftime("%Y-%m-%d"),
    }
    try:
        if args.memory:
            root = workdir / "wc_memory"
            if not (root / "worldcuisines").is_dir():
                t = time.perf_counter()
                figures["mirror"] = build_memory_mirror(root, cache, args.memory_dishes)
                figures["mirror"]["build_s"] = time.perf_counter() - t
            spec = {
                "root": str(root),
                "hf_cache": str(workdir / "hf_datasets"),
                "docs": args.memory_docs,
                "threads": args.memory_threads,
            }
            env = os.environ | OFFLINE_ENV
            proc = subprocess.run(
                [sys.executable, __file__, "--_memory-child", json.dumps(spec)],
                env=env,
                capture_output=True,
                text=True,
                check=False,
                cwd=workdir,
            )
            lines = [ln for ln in proc.stdout.splitlines() if ln.startswith("RESULT ")]
            if proc.returncode != 0 or not lines:
                sys.stderr.write(proc.stdout[-3000:] + proc.stderr[-3000:])
                return 1
            figures["memory"] = json.loads(lines[-1][len("RESULT ") :])
        else:
            if args.code is None:
                figures["pieces"] = pieces(cache)
                print(json.dumps(figures["pieces"], indent=1), flush=True)
            threads = [int(x) for x in args.threads.split(",")]
            for name in [b for b in args.benchmarks.split(",") if b]:
                size = BENCHMARKS[name][0]
                scale = 1 if size == PHONE else 8
                docs, png_docs = args.docs * scale, args.png_docs * scale
                root = workdir / name
                if not root.is_dir():
                    build(name, root, docs, cache)
                base = {"benchmark": name, "root": str(root)}
                rows = {}
                modes = args.modes.split(",")
                for t in threads if "messages" in modes else ():
                    rows[f"doc_to_messages, {t} thread(s)"] = run_child(
                        base | {"mode": "messages", "threads": t, "docs": docs}, workdir, args.code
                    )
                for fmt, n in (("JPEG", docs), ("PNG", png_docs)):
                    for kind in ("vllm", "openai"):
                        if kind in modes:
                            rows[f"lmms-eval {kind}, {fmt}"] = run_child(
                                base | {"mode": kind, "format": fmt, "docs": n}, workdir, args.code
                            )
                if "vllm" in modes:
                    rows["lmms-eval vllm, JPEG, max_pixels=200704"] = run_child(
                        base | {"mode": "vllm", "format": "JPEG", "docs": docs, "extra": {"max_pixels": 200704}},
                        workdir,
                        args.code,
                    )
                figures[name] = rows
                for label, row in rows.items():
                    print(
                        f"{name:14s} {label:42s} {row['docs_per_s']:8.2f} docs per s {row['cpu_ms_per_doc']:9.1f} "
                        "CPU ms/doc  "
                        f"peak RSS {row['peak_mib']['rss']:6d} MiB"
                        + (
                            f"  {row['image_chars'] / max(1, row['images']) / 2**20:6.2f} MiB/image sent"
                            if "image_chars" in row
                            else ""
                        ),
                        flush=True,
                    )
    finally:
        if args.json:
            args.json.write_text(json.dumps(figures, indent=1, default=str))
        if args.workdir is None:
            shutil.rmtree(workdir, ignore_errors=True)
    if args.memory:
        print(json.dumps(figures, indent=1, default=str))
    return 0


if __name__ == "__main__":
    sys.exit(main())
