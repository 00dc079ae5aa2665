"""Shared fixtures: small WorldCuisines mirrors in the official layout, built by code, and helpers
to run the real lmms-eval CLI offline.

The suite writes only into temporary folders: before anything imports ``datasets`` or
``huggingface_hub`` (which read their cache paths at import), :mod:`sandbox` points ``HOME`` and every
cache variable (``HF_HOME``, ``HF_DATASETS_CACHE``, ``XDG_CACHE_HOME``, ``FOOD_TASKS_CACHE_DIR``,
``MPLCONFIGDIR``) into one folder per session, which lmms-eval subprocesses inherit. At the end of the
session the hooks below fail the run when the clone gained files or our code wrote into the session's
home anyway (a path built from ``~`` instead of the cache variables).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING

import inprocess
import pytest
import sandbox  # noqa: I001  (first: the cache variables must be set before datasets is imported)

from food_tasks.benchmarks import BENCHMARKS
from food_tasks.benchmarks.worldcuisines import layout as wc_layout
from food_tasks.data import mirror

# Each benchmark's test folder goes on sys.path here, not in test files: its fixture module
# (tests/<bench>/<bench>_fixture.py) is then importable from every test folder, as this folder's helpers are (pytest
# puts the rootdir conftest's folder on it).
_TESTS = Path(__file__).resolve().parent
for _folder in (_TESTS / b.name for b in BENCHMARKS):
    if _folder.is_dir() and str(_folder) not in sys.path:
        sys.path.append(str(_folder))

if TYPE_CHECKING:
    from pycocoevalcap.meteor.meteor import Meteor

LANGS = ("en", "zh_cn", "nan")  # "nan" is Hokkien: it must never become a missing value
ZH = {"Serabi": "煎饼", "Kenchin-jiru": "建长汁", "Melktert": "牛奶挞", "Goetta": "猪肉燕麦饼"}
# prompt_type -> two items: (qa_id, food_id, prompt_id, options, gold id)
ITEMS = {
    "1": [
        ("400", "422", "9", ["Serabi", "Terang Bulan", "Syrniki", "Murtabak", "Sapin-sapin"], 1),
        ("401", "1614", "9", ["Sayur asem", "Draw soup", "Kenchin-jiru", "Agedashi dofu", "Egg drop soup"], 3),
    ],
    "3": [
        ("402", "949", "46", ["Pastel de nata", "Melktert", "Custard tart", "Bougatsa"], 2),
        ("403", "422", "46", ["Murtabak", "Serabi", "Syrniki", "Terang Bulan", "Sapin-sapin"], 2),
    ],
    "4": [
        ("404", "1614", "79", ["Kenchin-jiru", "Draw soup", "Sayur asem", "Goetta", "Egg drop soup"], 1),
        ("405", "949", "79", ["Bougatsa", "Custard tart", "Pastel de nata", "Goetta", "Melktert"], 5),
    ],
    "2": [
        ("1900", "422", "23", ["Thailand", "Indonesia", "Canada", "Brazil", "Croatia"], 2),
        ("1901", "1614", "23", ["Japan", "Italy", "Brazil", "Thailand", "Canada"], 1),
    ],
}
QUESTIONS = {
    "1": "What is this culinary dish called?",
    "3": "How do people in Italy identify this dish?",
    "4": "My friend went to Netherlands and sent me this photo. What is the name of this food?",
    "2": "Which country is this dish associated with?",
}
URL = "https://upload.wikimedia.org/wikipedia/commons/x/{}.jpg?download"


def wc_items(size: str = "large", qa_offset: int = 0) -> list[wc_layout.WcItem]:
    """The fixture's questions (ITEMS) in English, for the ``test_<size>`` split."""
    return [
        wc_layout.WcItem(
            str(int(qa_id) + qa_offset),
            food_id,
            prompt_id,
            prompt_type,
            QUESTIONS[prompt_type],
            options,
            gold,
            URL.format(food_id),
            f"{size}_task2" if prompt_type == "2" else f"{size}_task1",
        )
        for prompt_type, items in ITEMS.items()
        for qa_id, food_id, prompt_id, options, gold in items
    ]


def _localize(item: wc_layout.WcItem, lang: str) -> tuple[str, list[str]]:
    # zh_cn rows: translated dish names, and the leading spaces that exist in the data; Hokkien rows keep English
    # option strings (lang_status "mixed"), as in the data.
    if lang != "zh_cn":
        return item.question, list(item.options)
    return "  " + item.question, [ZH.get(o, o) for o in item.options]


def wc_rows(size: str = "large", qa_offset: int = 0) -> list[dict]:
    return wc_layout.item_rows(wc_items(size, qa_offset), LANGS, _localize)


def wc_kb() -> list[dict]:
    return [
        {"food_id": f, "name": n, "images": [(URL.format(f), mirror.png_bytes(c, 24))]}
        for f, n, c in (
            ("422", "Serabi", (200, 120, 40)),
            ("1614", "Kenchin-jiru", (90, 60, 30)),
            ("949", "Melktert", (230, 210, 140)),
        )
    ]


def build_wc_mirror(root: Path, *, with_card: bool = True, small: bool = True) -> Path:
    rows = wc_rows("large")
    if small:
        # The HF test_small rows are re-sampled: other qa_ids, same (food_id, prompt_id, image_url)
        # for the first item of each subtask only.
        rows += [r for r in wc_rows("small", qa_offset=-400) if r["qa_id"] in {"0", "2", "4", "1500"}]
    wc_layout.write_wc_vqa(root, rows, with_card=with_card)
    wc_layout.write_wc_kb(root, wc_kb())
    return root


# The folder of test_large task1's language files in a mirror.
WC_TASK1 = "worldcuisines/vqa/hf_prompt/large_eval_task1"


def build_all_languages_mirror(root: Path) -> Path:
    """The fixture's questions in all 30 WorldCuisines languages (English text everywhere), test_large only: the
    full language requirement."""
    from food_tasks.benchmarks.worldcuisines.data import LANGUAGES

    wc_layout.write_wc_vqa(root, wc_layout.item_rows(wc_items(), LANGUAGES))
    wc_layout.write_wc_kb(root, wc_kb())
    return root


def corrupt_wc_kb(root: Path, food_id: str = "949") -> str:
    """Rewrite food-kb with undecodable bytes for one dish; return its URL."""
    dishes = [
        dict(d, images=[(url, b"\x89PNG\r\n\x1a\n not really a png")]) if d["food_id"] == food_id else d
        for d in wc_kb()
        for url, _ in d["images"]
    ]
    wc_layout.write_wc_kb(root, dishes)
    return next(url for d in dishes if d["food_id"] == food_id for url, _ in d["images"])


NOT_AN_IMAGE = b"\xff\xd8\xff\xe0<html>Please enable cookies</html>"  # a JPEG signature, then not an image


def truncated_jpeg(size: tuple[int, int] = (96, 72), keep: float = 0.6) -> bytes:
    """A photo-like JPEG cut after ``keep`` of its bytes (an interrupted copy or download): the header is
    intact, so only decoding finds the damage; under lmms-eval's lenient Pillow setting it would decode
    silently grey-filled."""
    import io

    import numpy as np
    from PIL import Image

    pixels = (np.random.default_rng(7).random((size[1], size[0], 3)) * 255).astype("uint8")
    buf = io.BytesIO()
    Image.fromarray(pixels).save(buf, format="JPEG", quality=90)
    data = buf.getvalue()
    return data[: int(len(data) * keep)]


@pytest.fixture(scope="session")
def wc_root(tmp_path_factory) -> Path:
    return build_wc_mirror(tmp_path_factory.mktemp("wc_mirror"))


@pytest.fixture(autouse=True, scope="session")
def _no_probes_by_default():
    """The judge probes are off for the fixtures of every scope too (a module-scoped judged run starts before the
    function-scoped :func:`_offline`): the judge tests count their own requests and tokens."""
    before = os.environ.get("FOOD_TASKS_JUDGE_PROBES")
    os.environ["FOOD_TASKS_JUDGE_PROBES"] = "0"
    yield
    if before is None:
        os.environ.pop("FOOD_TASKS_JUDGE_PROBES", None)
    else:
        os.environ["FOOD_TASKS_JUDGE_PROBES"] = before


@pytest.fixture(autouse=True)
def _offline(monkeypatch, tmp_path_factory):
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    monkeypatch.setenv("HF_DATASETS_OFFLINE", "1")
    monkeypatch.delenv("FOOD_TASKS_DATA_DIR", raising=False)
    # The fixture mirror holds 3 of WorldCuisines' 30 languages: select them, as a user evaluating a
    # subset does (without a selection, every language file must be present). Tests of the full
    # requirement delete this variable.
    monkeypatch.setenv("FOOD_TASKS_WORLDCUISINES_LANGS", ",".join(LANGS))
    # The judge probes (food_tasks.judge.probes: 34 requests per judge in judge_info) are off unless a test turns
    # them on (tests/core/test_judge_probes.py): the other judge tests count their own requests.
    monkeypatch.setenv("FOOD_TASKS_JUDGE_PROBES", "0")
    # Each test starts with no record of undecodable images (food_tasks.data.images keeps one per process).
    from food_tasks.data import images

    images.reset()


def run_lmms_eval(
    args: list[str],
    out_dir: Path,
    env: dict | None = None,
    python: str = sys.executable,
    timeout: int = 900,
    cwd: Path | None = None,
    console: bool = False,
    unset: tuple[str, ...] = (),
    as_user: bool = False,
):
    """Run the lmms-eval CLI offline; return (completed process, results dict or None, samples by task).

    By default the CLI's entry function runs in this process (:mod:`inprocess`: no 15-20 s interpreter start), a
    ``PYTHONPATH`` in ``env`` (stand-in modules) included. ``console=True``, another ``python`` or a ``cwd`` start
    the real ``python -m lmms_eval`` in a subprocess:
    the tests that prove the console script itself (entry points of a fresh interpreter, exit status, a
    clone's sys.path). ``cwd`` defaults to a folder outside the repository; pass the repository root to run as
    a user in a clone does. ``unset`` names variables the run must not inherit (``PYTHONPATH`` for a fresh venv).
    ``as_user=True`` runs exactly what a user's shell would: the ``lmms-eval`` console script beside ``python`` (or
    ``python -m lmms_eval`` where there is none, a venv without pip), without the session's speedups
    (:func:`sandbox.as_user`: lmms-eval's real ``import evaluate`` and its own task index, built afresh)."""
    full_env = dict(
        os.environ, HF_HUB_OFFLINE="1", HF_DATASETS_OFFLINE="1", TOKENIZERS_PARALLELISM="false", **(env or {})
    )
    for name in unset:
        full_env.pop(name, None)
    if as_user:
        full_env = sandbox.as_user(full_env)
    cli_args = [*args, "--output_path", str(out_dir), "--log_samples"]
    script = Path(python).with_name("lmms-eval")
    if as_user and script.is_file():
        cmd = [str(script), *cli_args]
    else:
        cmd = [python, "-m", "lmms_eval", *cli_args]
    if as_user or console or python != sys.executable or cwd is not None:
        # cwd outside the repository: `python -m` puts the cwd first on sys.path, which would shadow the installed
        # package.
        proc = subprocess.run(
            cmd, env=full_env, capture_output=True, text=True, timeout=timeout, cwd=cwd or out_dir.parent
        )
    else:
        out_dir.parent.mkdir(parents=True, exist_ok=True)
        proc = inprocess.run(cli_args, full_env, out_dir.parent)
    found = sorted(out_dir.rglob("*_results.json"))
    results = json.loads(found[-1].read_text()) if found else None
    samples = {}
    for path in out_dir.rglob("*_samples_*.jsonl"):
        task = path.name.split("_samples_")[1].rsplit(".", 1)[0]
        samples[task] = [json.loads(line) for line in path.read_text().splitlines() if line.strip()]
    return proc, results, samples


@pytest.fixture(scope="session")
def tiny_bert(tmp_path_factory) -> Path:
    """A tiny random BERT with a local WordPiece vocabulary, for BERTScore tests (nothing downloaded)."""
    import torch
    from transformers import BertConfig, BertModel, BertTokenizerFast

    path = tmp_path_factory.mktemp("tiny_bert")
    chars = "abcdefghijklmnopqrstuvwxyz0123456789"
    vocab = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]", *chars, *("##" + c for c in chars)]
    (path / "vocab.txt").write_text("\n".join(vocab) + "\n")
    BertTokenizerFast(vocab_file=str(path / "vocab.txt"), model_max_length=64).save_pretrained(path)
    torch.manual_seed(0)
    config = BertConfig(
        vocab_size=len(vocab), hidden_size=32, num_hidden_layers=2, num_attention_heads=2, intermediate_size=64
    )
    BertModel(config).save_pretrained(path)
    return path


@pytest.fixture(scope="session")
def toolkit_meteor() -> Iterator[Meteor]:
    """The COCO caption toolkit's own ``Meteor()`` wrapper, for the tests that compare our METEOR with it: one JVM
    (seconds of paraphrase tables) for the session; each ``compute_score`` call is independent of the others."""
    from pycocoevalcap.meteor.meteor import Meteor

    meteor = Meteor()
    yield meteor
    del meteor


@pytest.fixture(scope="session")
def tiny_qwen2_vl() -> Path:
    """The tiny random Qwen2-VL of ``food-tasks demo``, built once per session where the demo looks for it
    (``$FOOD_TASKS_CACHE_DIR/tiny-qwen2-vl``, inside the session folder)."""
    from food_tasks.data.remote import cache_root
    from food_tasks.lmms.tiny_model import build_tiny_qwen2_vl

    return build_tiny_qwen2_vl(cache_root() / "tiny-qwen2-vl")


# --- writes outside the temporary folders fail the session (issue 19.8) -------------------------------------------


def pytest_runtest_setup(item):  # type: ignore[no-untyped-def]
    # One index of lmms-eval's own task folder per session (7 s of YAML per TaskManager), once a test imported it.
    if "lmms_eval.tasks" in sys.modules:
        inprocess.cache_lmms_eval_task_index()


def _xdist_worker(config: pytest.Config) -> bool:
    # Set in a pytest-xdist worker process only (not inherited by a pytest session a test starts).
    return hasattr(config, "workerinput")


@pytest.hookimpl(optionalhook=True)  # only pytest-xdist defines this hook
def pytest_xdist_auto_num_workers(config: pytest.Config) -> int:
    """Workers for ``-n auto`` (pyproject's addopts): one per core, at most 4. Each worker imports lmms-eval and
    torch and builds its own task index, so more workers cost more memory than they save time."""
    return max(1, min(4, os.cpu_count() or 1))


# Test files that use one per-process resource costing seconds of CPU to build run in one worker, so that it is built
# once (``--dist loadfile`` otherwise sends each file to whichever worker is free): the toolkit's METEOR jar of
# :func:`toolkit_meteor` (about 10 CPU-seconds to load its tables) and the one-process replay run every serving test
# compares with (``serving_harness.replay_reference_run``, cached per process).
TOGETHER = {
    "tests/core/test_cocoeval.py": "toolkit_meteor",
    "tests/food500cap/test_food500cap_scoring.py": "toolkit_meteor",
    "tests/serving/test_serving_openai.py": "replay_reference_run",
    "tests/serving/test_serving_processes.py": "replay_reference_run",
    "tests/serving/test_serving_vllm.py": "replay_reference_run",
}


@pytest.hookimpl(optionalhook=True, tryfirst=True)  # only pytest-xdist defines this hook; before its own scheduler
def pytest_xdist_make_scheduler(config, log):  # type: ignore[no-untyped-def]
    """``--dist loadfile`` (pyproject's addopts) with the files of :data:`TOGETHER` as one unit each group."""
    if config.getvalue("dist") != "loadfile":
        return None
    from xdist.scheduler import LoadFileScheduling

    class Scheduling(LoadFileScheduling):
        def _split_scope(self, nodeid: str) -> str:
            path = super()._split_scope(nodeid)
            return TOGETHER.get(path, path)

    return Scheduling(config, log)


def pytest_sessionstart(session):  # type: ignore[no-untyped-def]
    session.config._food_tasks_before = sandbox.snapshot(clone=not _xdist_worker(session.config))
    session.config._food_tasks_workers_outside = []


@pytest.hookimpl(optionalhook=True)
def pytest_testnodedown(node, error):  # type: ignore[no-untyped-def]
    # pytest-xdist's controlling process: a worker's findings (its exit status does not reach the run's).
    outside = getattr(node, "workeroutput", {}).get("food_tasks_outside", [])
    node.config._food_tasks_workers_outside.extend(outside)


def pytest_sessionfinish(session, exitstatus):  # type: ignore[no-untyped-def]
    config = session.config
    before = getattr(config, "_food_tasks_before", None)
    if before is None:
        return
    worker = _xdist_worker(config)
    outside = sandbox.written_outside(before, sandbox.snapshot(clone=not worker))
    if worker:
        config.workeroutput["food_tasks_outside"] = outside
        return
    config._food_tasks_outside = outside + config._food_tasks_workers_outside
    if config._food_tasks_outside and exitstatus == 0:
        session.exitstatus = pytest.ExitCode.TESTS_FAILED


def pytest_terminal_summary(terminalreporter, exitstatus, config):  # type: ignore[no-untyped-def]
    outside = getattr(config, "_food_tasks_outside", None)
    if outside:
        terminalreporter.section("written outside the temporary folders", red=True)
        for line in outside:
            terminalreporter.line(line)


def pytest_unconfigure(config):  # type: ignore[no-untyped-def]
    sandbox.remove()


def joined_entries(lines: list[str]) -> list[str]:
    """Wrapped lines joined back into entries (a continuation line is indented by four spaces)."""
    entries: list[str] = []
    for line in lines:
        if line.startswith("    ") and entries:
            entries[-1] += " " + line.strip()
        else:
            entries.append(line)
    return entries
