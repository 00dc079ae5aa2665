"""COCO caption metrics (food_tasks.hooks.cocoeval) against the toolkit's own numbers on a small fixed corpus.

EXPECTED was obtained by running the toolkit's own pipeline on cocoeval_corpus.py, exactly as
lmms-eval's coco_cap task does: ``PTBTokenizer().tokenize`` on references and hypotheses, then
``Bleu(4).compute_score``, ``Meteor()``, ``Rouge()``, ``Cider()`` (pycocoevalcap 1.2, OpenJDK 17,
LANG=C.UTF-8). The corpus has one empty hypothesis, parentheses (toolkit keeps "-lrb-"), a clitic ("it 's"),
an inner apostrophe ("dong an"), non-ASCII letters and an abbreviation ("e.g.").
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import pytest
from cocoeval_corpus import HYPS, REFS

from food_tasks.hooks import cocoeval, cocojava

if TYPE_CHECKING:
    from pycocoevalcap.meteor.meteor import Meteor

EXPECTED = {
    "Bleu_1": 0.36763278880981287,
    "Bleu_2": 0.2438600042226016,
    "Bleu_3": 0.17483371586317012,
    "Bleu_4": 0.12448298524133254,
    "METEOR": 0.2042401551212142,
    "ROUGE_L": 0.43476340941856645,
    "CIDEr": 1.3446544406446275,
}
# Meteor().compute_score's per-image scores on the toolkit's tokens of the fixed corpus.
METEOR_ITEMS = [
    0.30514181005374524,
    0.19504336199384686,
    0.14515622868639183,
    0.28357823456099446,
    0.0,
    0.33374299529944146,
]
needs_java = pytest.mark.skipif(cocoeval.java_problem() is not None, reason="no Java runtime")


@pytest.fixture()
def no_java(monkeypatch):
    monkeypatch.setattr(cocoeval.shutil, "which", lambda name: None)


@needs_java
@pytest.mark.slow  # a JVM
def test_scores_equal_the_toolkit_pipeline_on_the_fixed_corpus():
    scores = cocoeval.coco_scores(REFS, HYPS)
    assert scores.absent == {}
    for name, value in EXPECTED.items():
        assert scores.corpus[name] == pytest.approx(value, abs=1e-12), name
    assert scores.keys == list(REFS) and len(scores.per_item["CIDEr"]) == len(REFS)
    assert scores.per_item["METEOR"] == pytest.approx(METEOR_ITEMS, abs=1e-12)
    assert (
        scores.per_item["CIDEr"][list(REFS).index("Dong'an_chicken/Dong'an_chicken_0010.jpg")] == 0.0
    )  # empty hypothesis


@needs_java
@pytest.mark.slow  # a JVM
def test_our_jar_call_tokenises_like_the_toolkit_tokenizer():
    from pycocoevalcap.tokenizer.ptbtokenizer import PTBTokenizer

    captions = (
        [c for refs in REFS.values() for c in refs] + list(HYPS.values()) + ["A plate\nof rice\r\nwith\u2028egg", "  "]
    )
    ours = cocoeval.ptb_tokenize(captions)
    theirs = PTBTokenizer().tokenize(
        {i: [{"caption": c.replace("\r", " ").replace("\u2028", " ")}] for i, c in enumerate(captions)}
    )
    assert ours == [theirs[i][0] for i in range(len(captions))]
    # A lone "\r" or U+2028 would shift the toolkit's lines; our whitespace collapsing keeps them aligned.
    assert ours[-2:] == ["a plate of rice with egg", ""]


def test_pytok_distance_to_the_toolkit_is_stated():
    # Measured distance of py_tokenize to the toolkit's tokenisation (bench/bench_food500cap.py --tokenizers):
    # on all 24,820 reference captions of both official files, 24,818 tokenise identically (2 differ:
    # "pig‘s" -> toolkit "pig s", ours "pig 's"; "rou jia mo." -> toolkit keeps "mo."); on the 4,940-image
    # test split scored with same-category captions as hypotheses, BLEU-4 / ROUGE-L / CIDEr differ by 0.00.
    # On the fixed corpus every caption tokenises identically, so the *_pytok scores equal the toolkit's.
    tokens = {c: cocoeval.py_tokenize(c) for refs in REFS.values() for c in refs}
    assert tokens[
        "Çiğ köfte (raw meatballs) wrapped in lettuce leaves, served with lemon wedges on a wooden board."
    ] == ("çiğ köfte -lrb- raw meatballs -rrb- wrapped in lettuce leaves served with lemon wedges on a wooden board")
    assert tokens["A plate of Dong'an chicken with shredded ginger and red peppers; it's spicy."] == (
        "a plate of dong an chicken with shredded ginger and red peppers it 's spicy"
    )
    assert cocoeval.py_tokenize("A bowl of beef noodle soup with herbs and lime, e.g. basil.") == (
        "a bowl of beef noodle soup with herbs and lime e.g. basil"
    )
    assert (
        cocoeval.py_tokenize('Don\'t eat it -- "fresh" 3.5 cm slices, etc.') == "do n't eat it fresh 3.5 cm slices etc."
    )
    # A known difference, pinned: the toolkit turns the left single quote into its own token.
    assert cocoeval.py_tokenize("crystal pig\u2018s ears") == "crystal pig 's ears"
    scores = cocoeval.coco_scores(REFS, HYPS, meteor=False)
    if not scores.absent:
        for name in cocoeval.PYTOK_METRICS:
            assert scores.corpus[f"{name}_pytok"] == pytest.approx(scores.corpus[name], abs=1e-12)
    else:  # without Java the pure-Python variants still exist, under their own names
        assert scores.corpus["Bleu_4_pytok"] == pytest.approx(EXPECTED["Bleu_4"], abs=1e-12)


def test_without_java_the_java_metrics_are_absent_with_the_reason(no_java):
    scores = cocoeval.coco_scores(REFS, HYPS)
    assert set(scores.absent) == set(cocoeval.METRICS)
    assert (
        "no Java runtime" in scores.absent["METEOR"]
        and "apt-get install default-jre-headless" in scores.absent["METEOR"]
    )
    assert set(scores.corpus) == {"Bleu_4_pytok", "ROUGE_L_pytok", "CIDEr_pytok"}
    assert scores.corpus["CIDEr_pytok"] == pytest.approx(EXPECTED["CIDEr"], abs=1e-12)
    with pytest.raises(RuntimeError, match="no Java runtime"):
        cocoeval.ptb_tokenize(["a caption"])


def test_a_failing_tokenizer_makes_the_java_metrics_absent_with_the_error(monkeypatch):
    def broken(captions):
        raise RuntimeError("PTBTokenizer failed (exit 1): java.lang.OutOfMemoryError")

    monkeypatch.setattr(cocoeval, "java_problem", lambda: None)
    monkeypatch.setattr(cocoeval, "ptb_tokenize", broken)
    scores = cocoeval.coco_scores(REFS, HYPS)
    assert (
        scores.absent["CIDEr"]
        == "the toolkit's PTB tokenizer failed: PTBTokenizer failed (exit 1): java.lang.OutOfMemoryError"
    )
    assert set(scores.absent) == set(cocoeval.METRICS) and "CIDEr_pytok" in scores.corpus


def test_input_validation():
    with pytest.raises(ValueError, match="different keys"):
        cocoeval.coco_scores({"a": ["x"]}, {"b": "x"})
    with pytest.raises(ValueError, match="at least one reference"):
        cocoeval.coco_scores({"a": []}, {"a": "x"})
    assert cocoeval.coco_scores({}, {}).corpus == {}


def test_py_tokenize_handles_runaway_output():
    # 16 KB+ of repetition, brackets, clitics and periods: one pass per whitespace chunk (no backtracking).
    text = "delicious " * 2000 + "(((((" * 2000 + "'s" * 2000 + "." * 5000
    out = cocoeval.py_tokenize(text).split()
    assert out[:2] == ["delicious", "delicious"] and out.count("-lrb-") == 10000


# --------------------------------------------------------------------------- METEOR process, bounds, time limits

# A stand-in for the METEOR jar speaking its -stdio protocol (statistics "1 2" per SCORE line; per-item
# scores 0.5 and corpus 0.25 per EVAL line), or misbehaving as asked: "hang" reads and never answers,
# "garbled" answers bytes that are not UTF-8 and then stops reading, "oom" dies on the first line as the
# jar does when its heap is exhausted.
FAKE_JAR = """
import sys, time
mode = sys.argv[1]
for line in sys.stdin:
    if mode == "hang":
        time.sleep(3600)
    if mode == "garbled":
        sys.stdout.buffer.write(b"\\xff\\xfe\\n")
        sys.stdout.flush()
        time.sleep(3600)
    if mode == "oom":
        sys.stderr.write('Exception in thread "main" java.lang.OutOfMemoryError: Java heap space\\n')
        sys.exit(1)
    if line.startswith("SCORE"):
        print("1 2", flush=True)
    else:
        for _ in range(line.count("|||")):
            print("0.5")
        print("0.25", flush=True)
"""


@pytest.fixture()
def fake_meteor(tmp_path, monkeypatch):
    """``fake_meteor(mode)``: a fresh process-wide METEOR whose jar is the stand-in above."""
    import sys

    script = tmp_path / "fake_meteor.py"
    script.write_text(FAKE_JAR)
    monkeypatch.setattr(cocoeval, "java_problem", lambda: None)
    monkeypatch.setattr(cocoeval, "ptb_tokenize", lambda captions: [" ".join(c.lower().split()) for c in captions])
    made = []

    def make(mode: str) -> cocoeval.MeteorProcess:
        meteor = cocoeval.MeteorProcess()
        meteor.command = lambda: ([sys.executable, str(script), mode], tmp_path)
        monkeypatch.setattr(cocoeval, "METEOR", meteor)
        made.append(meteor)
        return meteor

    yield make
    for meteor in made:
        meteor.close()


def test_the_meteor_protocol_is_driven_and_one_jar_serves_every_call(fake_meteor):
    meteor = fake_meteor("ok")
    first = cocoeval.coco_scores(REFS, HYPS, pytok=None)
    assert first.corpus["METEOR"] == 0.25 and first.per_item["METEOR"] == [0.5] * len(REFS)
    second = cocoeval.coco_scores({"a": ["one dish"]}, {"a": "a dish"})
    assert second.corpus["METEOR"] == 0.25 and meteor.starts == 1
    meteor._proc.kill()  # a kept jar that died meanwhile is replaced
    meteor._proc.wait()
    assert cocoeval.coco_scores({"a": ["one dish"]}, {"a": "a dish"}).corpus["METEOR"] == 0.25 and meteor.starts == 2


def test_a_hung_jar_is_stopped_and_the_metric_absent(fake_meteor, monkeypatch):
    import time

    meteor = fake_meteor("hang")
    monkeypatch.setattr(cocojava, "JAVA_TIMEOUT_S", 1.0)
    started = time.monotonic()
    scores = cocoeval.coco_scores(REFS, HYPS)
    assert time.monotonic() - started < 30
    assert scores.absent == {"METEOR": "the METEOR 1.5 jar did not answer within 1 s and was stopped (item 1 of 6)"}
    assert scores.corpus["CIDEr"] >= 0 and meteor._proc is None  # the other metrics stand; the jar is gone


def test_a_dead_or_killed_jar_is_the_metric_absent_with_the_reason(fake_meteor):
    import threading

    fake_meteor("oom")
    scores = cocoeval.coco_scores(REFS, HYPS)
    assert scores.absent["METEOR"] == (
        'the METEOR 1.5 jar failed (item 1 of 6; exit 1: Exception in thread "main" '
        "java.lang.OutOfMemoryError: Java heap space)"
    )
    meteor = fake_meteor("hang")
    meteor.start()
    threading.Timer(1.0, meteor._proc.kill).start()  # killed from outside while we wait for its answer
    assert cocoeval.coco_scores(REFS, HYPS).absent["METEOR"] == "the METEOR 1.5 jar failed (item 1 of 6; exit -9)"
    assert fake_meteor("ok") and cocoeval.coco_scores(REFS, HYPS).corpus["METEOR"] == 0.25  # nothing stays locked


@pytest.mark.slow  # waits for a stand-in jar (another interpreter) to block
def test_a_garbled_answer_with_the_writer_blocked_fails_at_once(fake_meteor, monkeypatch):
    import time

    # Enough SCORE lines to fill the pipe: the writer thread is blocked in a write when the reader fails,
    # and stopping the jar must end that write without waiting for the watchdog.
    refs = {f"k{i}": [f"a bowl of noodle soup with beef number {i}"] for i in range(4000)}
    hyps = {k: "a bowl of rice" for k in refs}
    fake_meteor("garbled")
    monkeypatch.setattr(cocojava, "JAVA_TIMEOUT_S", 60.0)
    started = time.monotonic()
    scores = cocoeval.coco_scores(refs, hyps)
    assert time.monotonic() - started < 30
    assert scores.absent["METEOR"].startswith(
        "the METEOR 1.5 jar failed (item 1 of 4000; still running, stopped): UnicodeDecodeError"
    )
    assert not [t for t in __import__("threading").enumerate() if t.name == "food-tasks-meteor-writer"]


def test_runaway_hypotheses_are_cut_before_the_java_tools(fake_meteor, monkeypatch):
    seen = []
    tokenize = cocoeval.ptb_tokenize
    monkeypatch.setattr(cocoeval, "ptb_tokenize", lambda captions: seen.extend(captions) or tokenize(captions))
    # Past the bounds (the 48 KB repetition, 8,000 tokens; one word longer than the character bound),
    # and exactly at the token bound (not cut).
    at_bound = "rice " * cocoeval.MAX_HYP_TOKENS
    hyps = {
        **HYPS,
        "Abalone/Abalone_0081.jpg": "plate " * 8000,
        "Agedashi_tofu/Agedashi_tofu_0001.jpg": at_bound,
        "Pho/Pho_0002.jpg": "x" * (cocoeval.MAX_HYP_CHARS + 10_000),
    }
    fake_meteor("ok")
    scores = cocoeval.coco_scores(REFS, hyps, pytok=True)
    assert scores.cut == ["Abalone/Abalone_0081.jpg", "Pho/Pho_0002.jpg"]
    assert max(len(c) for c in seen) == cocoeval.MAX_HYP_CHARS  # "xxx..." cut hard (no space before the bound)
    assert "plate " * 8000 == seen[-6] + " "  # 48,000 characters: within the character bound, whole
    assert len(scores.tokenised["Abalone/Abalone_0081.jpg"][1].split()) == cocoeval.MAX_HYP_TOKENS
    assert scores.tokenised["Agedashi_tofu/Agedashi_tofu_0001.jpg"][1] == at_bound.strip()
    assert scores.corpus["METEOR"] == 0.25 and "CIDEr_pytok" in scores.corpus
    untouched = cocoeval.coco_scores(REFS, HYPS, pytok=True)
    assert untouched.cut == [] and {k: v[1] for k, v in untouched.tokenised.items()} == {
        k: " ".join(h.lower().split()) for k, h in HYPS.items()
    }


def test_pytok_metrics_are_computed_without_java_unasked(no_java):
    auto = cocoeval.coco_scores(REFS, HYPS, pytok=None)
    assert set(auto.absent) == set(cocoeval.METRICS)
    assert auto.corpus["CIDEr_pytok"] == pytest.approx(EXPECTED["CIDEr"], abs=1e-12)


def test_pytok_metrics_are_absent_when_the_toolkit_tokenizer_ran(fake_meteor):
    fake_meteor("ok")
    auto = cocoeval.coco_scores(REFS, HYPS, pytok=None)
    assert {k for k in auto.absent} == {"Bleu_4_pytok", "ROUGE_L_pytok", "CIDEr_pytok"}
    assert auto.absent["CIDEr_pytok"] == "not computed: the toolkit's own tokenisation ran"
    asked = cocoeval.coco_scores(REFS, HYPS, pytok=True)
    assert asked.absent == {} and asked.corpus["CIDEr_pytok"] == pytest.approx(EXPECTED["CIDEr"], abs=1e-12)


@needs_java
@pytest.mark.slow  # a JVM
def test_our_meteor_process_equals_the_toolkit_wrapper(toolkit_meteor: Meteor) -> None:
    tokens = cocoeval.coco_scores(REFS, HYPS, meteor=False, pytok=False).tokenised
    gts = {k: refs for k, (refs, _) in tokens.items()}
    res = {k: [hyp] for k, (_, hyp) in tokens.items()}
    res["Abalone/Abalone_0081.jpg"] = ["two  abalone ||| on   ice"]  # the protocol's separator and double spaces
    assert cocoeval.METEOR.score(gts, res) == toolkit_meteor.compute_score(gts, res)


def _runaway(caption: str, chars: int) -> str:
    """``caption`` repeated (space-separated) while the result stays within ``chars`` characters."""
    return " ".join([caption] * max(1, (chars + 1) // (len(caption) + 1))) if caption else ""


def _toolkit_pipeline(refs: dict, hyps: dict, meteor: Meteor) -> tuple[dict, dict]:
    """The toolkit's standard pipeline (``COCOEvalCap.evaluate`` without SPICE) with its ``meteor`` (a ``Meteor()``):
    corpus and per-item scores."""
    from pycocoevalcap.bleu.bleu import Bleu
    from pycocoevalcap.cider.cider import Cider
    from pycocoevalcap.rouge.rouge import Rouge
    from pycocoevalcap.tokenizer.ptbtokenizer import PTBTokenizer

    tokenizer = PTBTokenizer()
    gts = tokenizer.tokenize({k: [{"caption": r} for r in refs[k]] for k in refs})
    res = tokenizer.tokenize({k: [{"caption": hyps[k]}] for k in refs})
    corpus, items = {}, {}
    scorers = ((Bleu(4), cocoeval.METRICS[:4]), (meteor, ["METEOR"]), (Rouge(), ["ROUGE_L"]), (Cider(), ["CIDEr"]))
    for scorer, names in scorers:
        score, per_item = scorer.compute_score(gts, res)
        if len(names) == 1:
            score, per_item = [score], [per_item]
        corpus.update(zip(names, (float(s) for s in score)))
        items.update(zip(names, ([float(x) for x in s] for s in per_item)))
    return corpus, items


@needs_java
@pytest.mark.slow  # two JVMs (the toolkit's METEOR and tokenizer)
def test_captions_within_512_new_tokens_get_the_toolkit_numbers_exactly(toolkit_meteor: Meteor) -> None:
    import random

    # Runaway repetitions as a model gives them within 512 new tokens (about 400 words, 2-3 KB), and one
    # non-repetitive 512-word caption: all well inside the bounds, so every number is the toolkit's.
    words = " ".join(c for refs in REFS.values() for c in refs).split()
    hyps = {k: _runaway(h, 2048 + 400 * i) for i, (k, h) in enumerate(HYPS.items())}
    hyps["Pho/Pho_0002.jpg"] = " ".join(random.Random(5).choices(words, k=512))
    assert max(len(h) for h in hyps.values()) >= 3000 and min(len(h) for h in hyps.values() if h) > 2000
    ours = cocoeval.coco_scores(REFS, hyps, pytok=False)
    corpus, items = _toolkit_pipeline(REFS, hyps, toolkit_meteor)
    assert ours.cut == [] and ours.absent == {
        "Bleu_4_pytok": ours.absent["Bleu_4_pytok"],
        "ROUGE_L_pytok": ours.absent["ROUGE_L_pytok"],
        "CIDEr_pytok": ours.absent["CIDEr_pytok"],
    }
    assert {name: ours.corpus[name] for name in cocoeval.METRICS} == corpus
    assert {name: ours.per_item[name] for name in cocoeval.METRICS} == items
