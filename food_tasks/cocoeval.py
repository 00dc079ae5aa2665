"""COCO caption metrics (BLEU-1..4, METEOR, ROUGE-L, CIDEr-D) as the COCO caption evaluation toolkit computes them.

The scorers are those of ``pycocoevalcap`` (the maintained PyPI package of the MS-COCO caption evaluation
code): ``Bleu(4)`` (corpus BLEU, "closest" reference length rule), the METEOR 1.5 jar, ``Rouge()`` (ROUGE-L F,
beta 1.2) and ``Cider()`` (CIDEr-D, sigma 6, n 4, document frequencies from the references being scored).
No metric is re-implemented.

Tokenisation is the toolkit's: Stanford CoreNLP 3.4.1 ``PTBTokenizer -preserveLines -lowerCase`` (the jar
shipped in ``pycocoevalcap/tokenizer``) followed by the toolkit's punctuation filter (imported from it).
We call the jar ourselves rather than through ``PTBTokenizer.tokenize`` for three reasons, none of which
changes a token: the toolkit writes its temporary file into the installed package (fails on read-only
installs), it silently mis-aligns captions if a caption contains a line separator other than ``\\n`` (we
collapse all whitespace first, which PTB tokenisation ignores anyway), and Java's default charset follows
the locale (``LANG=C`` turns every non-ASCII letter into ``?``); we pass ``-Dfile.encoding=UTF-8``, which is
what the toolkit does on any UTF-8 system. References and hypotheses are tokenised in one Java call
(tokenisation is line by line, so this equals the toolkit's two calls). Tested against
``PTBTokenizer.tokenize`` in tests/core/test_cocoeval.py.

METEOR is the toolkit's jar started with the toolkit's command line (``java -jar -Xmx2G meteor-1.5.jar - -
-stdio -l en -norm`` in the jar's folder), driven over the jar's standard input/output protocol by
:class:`MeteorProcess` instead of the toolkit's ``Meteor`` class: the same ``SCORE`` and ``EVAL`` lines, so
the same numbers (tested against ``Meteor().compute_score``), but a process we own. The toolkit's class
keeps a lock held when the jar dies (an out-of-memory error on a 48 KB caption, say) and its destructor
then waits on that lock forever; ours has a time limit on every answer (:data:`JAVA_TIMEOUT_S`), kills the
jar on any failure and reports the metric absent. One jar serves every call of the process (its start, a
JVM loading METEOR's paraphrase tables, is most of METEOR's time on a split of a few thousand captions);
it is restarted after a failure and stopped at exit.

Bounded input: a hypothesis reaches the Java tools cut to :data:`MAX_HYP_CHARS` characters and, after
tokenisation, every scorer sees at most :data:`MAX_HYP_TOKENS` tokens of it (:class:`CocoScores` lists
the cut hypotheses in ``cut``). Captions produced within a caption task's token budget are far shorter;
the cut exists for runaway generations, which otherwise exhaust METEOR's 2 GB heap or take minutes.

Java is needed by the tokenizer and by METEOR. Without a working ``java`` on ``PATH`` the Java-dependent
metrics are *absent* and :class:`CocoScores` says why (``absent``); nothing is substituted silently.
A pure-Python tokenizer (:func:`py_tokenize`, an approximation of PTB rules) is offered only under its
own metric names (``*_pytok``); its measured distance to the toolkit is stated in tests/core/test_cocoeval.py.
"""

from __future__ import annotations

import atexit
import functools
import os
import re
import shutil
import subprocess
import tempfile
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Hashable, Mapping, Sequence

__all__ = ["CocoScores", "JAVA_INSTALL_HINT", "METEOR", "MeteorProcess", "coco_scores", "java_problem", "ptb_tokenize",
           "py_tokenize"]  # fmt: skip

JAVA_INSTALL_HINT = (
    "install a Java runtime (8 or newer) and put `java` on PATH, e.g. `apt-get install default-jre-headless`, "
    "`conda install -c conda-forge openjdk` or `brew install openjdk`"
)
METRICS = ("Bleu_1", "Bleu_2", "Bleu_3", "Bleu_4", "METEOR", "ROUGE_L", "CIDEr")
PYTOK_METRICS = ("Bleu_4", "ROUGE_L", "CIDEr")  # the pure-Python-tokenised variants (METEOR needs Java anyway)
# Bounds for runaway generations. A caption within a caption task's default budget (128 new tokens; a model
# token holds at most one PTB token of English text) practically never reaches them; a runaway repetition
# of a caption costs METEOR's aligner (and ROUGE-L's LCS) time that grows faster than its length, and at
# 8,000 words exhausts METEOR's 2 GB heap.
MAX_HYP_CHARS = 2048  # characters of a hypothesis handed to the tokenizer (cut at the last space before)
MAX_HYP_TOKENS = 128  # tokens of a tokenised hypothesis handed to the scorers
# The longest a Java tool may run without answering (start-up included) before it is killed.
JAVA_TIMEOUT_S = 600.0
_WS = re.compile(r"\s+")


@functools.lru_cache(maxsize=4)
def _java_problem(java: str | None) -> str | None:
    if java is None:
        return f"no Java runtime: `java` is not on PATH; {JAVA_INSTALL_HINT}"
    try:
        proc = subprocess.run([java, "-version"], capture_output=True, text=True, timeout=120)
    except (OSError, subprocess.SubprocessError) as err:
        return f"the Java runtime {java} does not run ({err}); {JAVA_INSTALL_HINT}"
    if proc.returncode != 0:
        return f"`{java} -version` failed (exit {proc.returncode}: {proc.stderr.strip()[:200]}); {JAVA_INSTALL_HINT}"
    return None


def java_problem() -> str | None:
    """Why the Java-based toolkit parts cannot run here (``None`` when ``java`` works)."""
    return _java_problem(shutil.which("java"))


def _toolkit_dir(sub: str) -> Path:
    import pycocoevalcap

    return Path(list(pycocoevalcap.__path__)[0]) / sub


def _clean(text: str) -> str:
    return _WS.sub(" ", text).strip()


def ptb_tokenize(captions: Sequence[str]) -> list[str]:
    """The toolkit's tokenisation of each caption (Stanford PTBTokenizer, lower-cased, punctuation removed).

    Raises:
        RuntimeError: Java is missing or the tokenizer failed / returned fewer lines than captions.
    """
    from pycocoevalcap.tokenizer.ptbtokenizer import PUNCTUATIONS, STANFORD_CORENLP_3_4_1_JAR

    problem = java_problem()
    if problem:
        raise RuntimeError(problem)
    if not captions:
        return []
    punct = set(PUNCTUATIONS)
    jar = _toolkit_dir("tokenizer") / STANFORD_CORENLP_3_4_1_JAR
    with tempfile.TemporaryDirectory(prefix="food_tasks_ptb_") as tmp:
        src = Path(tmp) / "captions.txt"
        # "replace": a lone surrogate in a model output must not abort the whole split's scoring.
        src.write_bytes("\n".join(_clean(c) for c in captions).encode("utf-8", "replace"))
        cmd = [shutil.which("java") or "java", "-Dfile.encoding=UTF-8", "-cp", str(jar),
               "edu.stanford.nlp.process.PTBTokenizer", "-preserveLines", "-lowerCase", str(src)]  # fmt: skip
        try:
            proc = subprocess.run(cmd, capture_output=True, timeout=JAVA_TIMEOUT_S)  # run() kills it on time-out
        except subprocess.TimeoutExpired:
            raise RuntimeError(f"PTBTokenizer did not finish within {JAVA_TIMEOUT_S:g} s and was stopped") from None
    if proc.returncode != 0:
        raise RuntimeError(f"PTBTokenizer failed (exit {proc.returncode}): {proc.stderr.decode(errors='replace')[-500:]}")
    lines = proc.stdout.decode("utf-8").split("\n")
    if len(lines) < len(captions):
        raise RuntimeError(f"PTBTokenizer returned {len(lines)} lines for {len(captions)} captions")
    return [" ".join(w for w in line.rstrip().split(" ") if w not in punct) for line in lines[: len(captions)]]


# --------------------------------------------------------------------------- METEOR


class MeteorError(RuntimeError):
    """The METEOR jar failed, timed out or answered out of protocol (it has been stopped)."""


class MeteorProcess:
    """The toolkit's METEOR 1.5 jar in one process of ours, kept for every scoring call of this Python process.

    The jar's ``-stdio`` protocol: for each item we send ``SCORE ||| <reference> ... ||| <hypothesis>`` and
    read one line of statistics; then ``EVAL ||| <statistics> ||| ...`` for all items, and read one score per
    item and the corpus score (METEOR of the summed statistics). We send exactly the lines the toolkit's
    ``Meteor.compute_score`` sends, so the numbers are the toolkit's.

    Every call holds the lock only for work that is bounded: a watchdog stops the jar when it has not
    answered (or not taken our input) for :data:`JAVA_TIMEOUT_S` seconds, which ends any blocked read or
    write. Any failure stops the jar and raises :class:`MeteorError`; the next call starts a new one.
    """

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._proc: subprocess.Popen | None = None
        self._stderr: IO[bytes] | None = None
        self._pid = 0  # the Python process that started the jar (a forked child starts its own)
        self._last_progress = 0.0
        self._stopped_by_watchdog = False
        self.starts = 0  # jars started so far (for tests and the benchmark script)

    @staticmethod
    def command() -> tuple[list[str], Path]:
        """The toolkit's command line for the jar and the folder it runs in (the jar finds its data there)."""
        from pycocoevalcap.meteor import meteor as toolkit

        folder = Path(toolkit.__file__).resolve().parent
        return [shutil.which("java") or "java", "-jar", "-Xmx2G", toolkit.METEOR_JAR, "-", "-", "-stdio", "-l", "en",
                "-norm"], folder  # fmt: skip

    def start(self) -> None:
        """Start the jar now if none is running (its start-up then overlaps with the caller's other work).
        Does nothing while another call uses the jar."""
        if self._lock.acquire(blocking=False):
            try:
                self._ensure()
            finally:
                self._lock.release()

    def _ensure(self) -> subprocess.Popen:
        proc = self._proc
        if proc is not None and (self._pid != os.getpid() or proc.poll() is not None):
            self._discard()
            proc = None
        if proc is None:
            cmd, folder = self.command()
            self._stderr = tempfile.TemporaryFile(prefix="food_tasks_meteor_")
            proc = subprocess.Popen(cmd, cwd=folder, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=self._stderr)
            self._proc, self._pid = proc, os.getpid()
            self.starts += 1
        return proc

    def _discard(self) -> None:
        """Stop the jar (if this process started it) and forget it. Never waits on anything unbounded."""
        proc, stderr = self._proc, self._stderr
        self._proc = self._stderr = None
        if proc is not None and self._pid == os.getpid():
            # Killed before the pipes are closed: a writer thread blocked in a write to a full pipe holds the
            # stream's lock, and close() would wait on it; the kill ends that write at once.
            proc.kill()
            for stream in (proc.stdin, proc.stdout):
                try:
                    if stream:
                        stream.close()
                except (OSError, ValueError):
                    pass
            try:
                proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                pass
        if stderr is not None:
            stderr.close()

    def close(self) -> None:
        """Stop the jar (at exit, or to free its memory); the next call starts a new one."""
        if self._lock.acquire(timeout=5):
            try:
                self._discard()
            finally:
                self._lock.release()
        elif self._proc is not None and self._pid == os.getpid():
            self._proc.kill()  # a call is under way and will fail at once; never wait on it

    def _reason(self, proc: subprocess.Popen, what: str) -> str:
        if self._stopped_by_watchdog:
            return f"the METEOR 1.5 jar did not answer within {JAVA_TIMEOUT_S:g} s and was stopped ({what})"
        try:
            status = f"exit {proc.wait(timeout=2)}"
        except subprocess.TimeoutExpired:
            status = "still running, stopped"
        tail = ""
        if self._stderr is not None:
            self._stderr.seek(0, os.SEEK_END)
            self._stderr.seek(max(0, self._stderr.tell() - 4000))
            lines = self._stderr.read().decode("utf-8", "replace").strip().splitlines()
            errors = [line.strip() for line in lines if "Error" in line or "Exception" in line]
            tail = (errors or lines or [""])[0][:300]
        return f"the METEOR 1.5 jar failed ({what}; {status}{': ' + tail if tail else ''})"

    def _watch(self, proc: subprocess.Popen, done: threading.Event) -> None:
        while not done.wait(0.2):
            if time.monotonic() - self._last_progress > JAVA_TIMEOUT_S:
                self._stopped_by_watchdog = True
                proc.kill()
                return

    def score(self, gts: Mapping[Hashable, Sequence[str]], res: Mapping[Hashable, Sequence[str]]) -> tuple[float, list[float]]:
        """``(corpus score, per-item scores)`` as ``Meteor().compute_score(gts, res)`` returns them.

        A kept jar that has exited since the last call is replaced by a new one; a jar that fails during
        the call is stopped (the next call starts a new one).

        Raises:
            MeteorError: the jar could not be started, died, answered out of protocol or timed out.
        """
        if not self._lock.acquire(timeout=JAVA_TIMEOUT_S):
            raise MeteorError(f"the METEOR 1.5 jar was busy with another call for {JAVA_TIMEOUT_S:g} s")
        try:
            return self._score(gts, res)
        finally:
            self._lock.release()

    def _score(self, gts: Mapping[Hashable, Sequence[str]], res: Mapping[Hashable, Sequence[str]]) -> tuple[float, list[float]]:
        keys = list(gts)
        for key in keys:
            if len(res[key]) != 1:
                raise MeteorError(f"METEOR scores one hypothesis per item, got {len(res[key])} for {key!r}")
        # The protocol's field separator cannot occur in a hypothesis (the toolkit removes it, then halves runs
        # of spaces). Encoded here, before anything is sent: a caption that cannot be encoded fails at once.
        try:
            lines = [(" ||| ".join(("SCORE", " ||| ".join(gts[k]), res[k][0].replace("|||", "").replace("  ", " "))) + "\n").encode()
                     for k in keys]  # fmt: skip
        except UnicodeEncodeError as err:
            raise MeteorError(f"a caption cannot be sent to the METEOR 1.5 jar: {err}") from None
        try:
            proc = self._ensure()
        except OSError as err:
            self._discard()
            raise MeteorError(f"the METEOR 1.5 jar could not be started: {err}") from None
        assert proc.stdin is not None and proc.stdout is not None
        stdin, stdout = proc.stdin, proc.stdout
        done = threading.Event()
        self._stopped_by_watchdog = False
        self._last_progress = time.monotonic()
        threading.Thread(target=self._watch, args=(proc, done), name="food-tasks-meteor-watchdog", daemon=True).start()

        def write_all() -> None:
            # The jar answers SCORE lines in order: sending them all while reading the answers keeps it busy
            # without a round trip per item (which, with the GIL held by other scoring, costs milliseconds).
            try:
                for start in range(0, len(lines), 512):
                    stdin.write(b"".join(lines[start : start + 512]))
                    stdin.flush()
                    self._last_progress = time.monotonic()
            except (OSError, ValueError):
                pass  # the jar is gone: the reader sees it

        def answer() -> bytes:
            line = stdout.readline()
            if not line.endswith(b"\n"):
                raise EOFError("no answer")
            self._last_progress = time.monotonic()
            return line

        writer = threading.Thread(target=write_all, name="food-tasks-meteor-writer", daemon=True)
        what = "starting"
        try:
            writer.start()
            stats = []
            for i in range(len(keys)):
                what = f"item {i + 1} of {len(keys)}"
                stats.append(answer().decode().strip())
            writer.join()  # every line was answered, so every line was written
            what = "corpus evaluation"
            stdin.write(("EVAL" + "".join(f" ||| {line}" for line in stats) + "\n").encode())
            stdin.flush()
            self._last_progress = time.monotonic()
            items = [float(answer().strip()) for _ in keys]
            corpus = float(answer().strip())
        except (OSError, EOFError, ValueError) as err:
            reason = self._reason(proc, what)
            self._discard()
            detail = f": {type(err).__name__}: {err}" if isinstance(err, ValueError) else ""
            raise MeteorError(reason + detail) from None
        except BaseException:
            self._discard()
            raise
        finally:
            done.set()
            if writer.is_alive():
                writer.join(timeout=10)  # ends at once once the jar is stopped
        return corpus, items


# One jar for the whole Python process: every caption task of a run uses it; stopped at exit.
METEOR = MeteorProcess()
atexit.register(METEOR.close)


# --------------------------------------------------------------------------- pure-Python approximation

_PY_QUOTES = str.maketrans({"\u2018": "'", "\u2019": "'", "\u201c": '"', "\u201d": '"', "\u00a0": " ", "\u200b": " ",
                                "\u200c": " ", "\u200d": " ", "\ufeff": " "})
_PY_BRACKETS = {"(": "-lrb-", ")": "-rrb-", "[": "-lsb-", "]": "-rsb-", "{": "-lcb-", "}": "-rcb-"}
_PY_LEAD = set("\"'`([{$#")  # split off the front of a whitespace chunk
_PY_TRAIL = set("\"'`)]}.,;:!?%-_")  # split off the back
# Characters always split from their neighbours: PTB punctuation (not a comma between digits) and any other
# symbol that is not part of words (CJK full stops and commas included); combining marks stay in words.
_PY_SPLIT = re.compile(r"(?<!\d),|,(?!\d)|[^\w\s.,'\-/&$#%`\u0300-\u036f]")
_PY_ABBREV = {"etc.", "e.g.", "i.e.", "vs.", "approx.", "no.", "mr.", "mrs.", "dr.", "st."}
_PY_CLITIC = re.compile(r"^(.+?)(n't|'s|'re|'ve|'ll|'d|'m)$")
# Dropped after tokenisation, as the toolkit drops these tokens (its list, plus the straight double quote
# PTB turns into `` or '').
_PY_DROP = {"''", "'", "``", "`", '"', ".", "?", "!", ",", ":", "-", "--", "...", ";"}


def _py_chunk(chunk: str, out: list[str]) -> None:
    lead, trail = [], []
    i, j = 0, len(chunk)
    while i < j and chunk[i] in _PY_LEAD:
        lead.append(chunk[i])
        i += 1
    while j > i and chunk[j - 1] in _PY_TRAIL and chunk[i:j] not in _PY_ABBREV:
        # PTB keeps the final period of an abbreviation or initial (a period inside the word: e.g., u.s.a.)
        if chunk[j - 1] == "." and "." in chunk[i : j - 1] and chunk[j - 2].isalnum():
            break
        j -= 1
        trail.append(chunk[j])
    core = chunk[i:j]
    out.extend(lead)
    if core:
        m = _PY_CLITIC.match(core) if "'" in core else None
        if m:
            out.extend(m.groups())
        else:  # an apostrophe inside a word that is not a clitic (dong'an) separates two tokens
            out.extend(" ' ".join(core.split("'")).split() if "'" in core.strip("'") else (core,))
    out.extend(reversed(trail))


def py_tokenize(caption: str) -> str:
    """A pure-Python approximation of the toolkit's tokenisation (PTB rules, lower-cased, punctuation dropped).

    Not the toolkit: used only for the ``*_pytok`` metrics. Linear time: each whitespace-separated chunk
    is peeled from both ends once.
    """
    raw: list[str] = []
    for chunk in _PY_SPLIT.sub(r" \g<0> ", caption.translate(_PY_QUOTES).lower()).split():
        if set(chunk) <= {"."} or set(chunk) <= {"-"}:
            raw.append(chunk)
        else:
            _py_chunk(chunk, raw)
    return " ".join(_PY_BRACKETS.get(t, t) for t in raw if t not in _PY_DROP and not (len(t) > 2 and set(t) <= {".", "-"}))


# --------------------------------------------------------------------------- scoring


@dataclass
class CocoScores:
    """Corpus and per-item toolkit scores (toolkit scale, 0-1 for BLEU/METEOR/ROUGE-L, 0-10 for CIDEr).

    ``corpus``/``per_item`` hold what could be computed; ``absent`` maps every metric that could not be
    computed to the reason. Keys of ``per_item`` lists follow ``keys``.
    """

    keys: list = field(default_factory=list)
    corpus: dict[str, float] = field(default_factory=dict)
    per_item: dict[str, list[float]] = field(default_factory=dict)
    absent: dict[str, str] = field(default_factory=dict)
    tokenised: dict = field(default_factory=dict)  # key -> (toolkit-tokenised references, hypothesis)
    cut: list = field(default_factory=list)  # keys whose hypothesis was cut (MAX_HYP_CHARS, MAX_HYP_TOKENS)
    tokenised_pytok: dict = field(default_factory=dict)  # as ``tokenised``, pure-Python tokens (``*_pytok``)
    _bleu: dict = field(default_factory=dict, repr=False)  # suffix -> key -> bleu_statistics (computed once)

    def bleu_statistics(self, suffix: str = "") -> dict:
        """key -> :func:`bleu_statistics` of the item as the BLEU scorer saw it (``suffix="_pytok"``: the
        pure-Python tokens); empty when those tokens were not computed."""
        if suffix not in self._bleu:
            tokens = self.tokenised_pytok if suffix else self.tokenised
            self._bleu[suffix] = {k: bleu_statistics(refs, hyp) for k, (refs, hyp) in tokens.items()}
        return self._bleu[suffix]

    def corpus_bleu(self, keys: Sequence[Hashable], n: int = 4) -> float | None:
        """Corpus BLEU-n of a subset of the items (the toolkit's scorer on its tokens; None without them)."""
        from pycocoevalcap.bleu.bleu import Bleu

        if not self.tokenised or not keys:
            return None
        gts = {k: self.tokenised[k][0] for k in keys}
        res = {k: [self.tokenised[k][1]] for k in keys}
        return float(Bleu(4).compute_score(gts, res, verbose=0)[0][n - 1])


# --------------------------------------------------------------------------- BLEU sufficient statistics

BLEU_N = 4
BLEU_COLUMNS = 2 * BLEU_N + 2  # clipped matches n = 1..4, n-grams n = 1..4, hypothesis length, reference length
_BLEU_TINY, _BLEU_SMALL = 1e-15, 1e-9  # the toolkit's constants (BleuScorer.compute_score), in its places


def _ngram_counts(words: list[str], n: int) -> dict[tuple[str, ...], int]:
    counts: dict[tuple[str, ...], int] = {}
    for k in range(1, n + 1):
        for i in range(len(words) - k + 1):
            gram = tuple(words[i : i + k])
            counts[gram] = counts.get(gram, 0) + 1
    return counts


def bleu_statistics(refs: Sequence[str], hyp: str) -> list[int]:
    """One item's BLEU sufficient statistics, counted as the toolkit's ``Bleu(4)`` counts them.

    Tokens are the space-separated words of the (already tokenised) texts. Returns :data:`BLEU_COLUMNS`
    integers: for n = 1..4 the hypothesis n-grams matched in the references (each clipped to its largest
    count in any one reference), then for n = 1..4 the hypothesis n-gram count, then the hypothesis length
    and the reference length the toolkit sums for the brevity penalty (its ``closest`` rule: the reference
    length nearest the hypothesis length, the shorter on a tie). Column sums give the corpus score
    (:func:`bleu_from_statistics`).
    """
    words = hyp.split()
    ref_max: dict[tuple[str, ...], int] = {}
    lengths = []
    for ref in refs:
        ref_words = ref.split()
        lengths.append(len(ref_words))
        for gram, count in _ngram_counts(ref_words, BLEU_N).items():
            if count > ref_max.get(gram, 0):
                ref_max[gram] = count
    correct = [0] * BLEU_N
    for gram, count in _ngram_counts(words, BLEU_N).items():
        correct[len(gram) - 1] += min(ref_max.get(gram, 0), count)
    guess = [max(0, len(words) - k) for k in range(BLEU_N)]
    closest = min((abs(length - len(words)), length) for length in lengths)[1]
    return [*correct, *guess, len(words), closest]


def bleu_from_statistics(sums, n: int):  # type: ignore[no-untyped-def]
    """Corpus BLEU-``n`` (0-1) from column sums of :func:`bleu_statistics`, vectorised over leading axes.

    The toolkit's corpus formula step by step (its smoothing constants in its places, the brevity penalty
    from the summed lengths), so that the sums of all items give its ``Bleu(4)`` score to the last bits.
    """
    import numpy as np

    sums = np.asarray(sums, dtype=float)
    correct, guess = sums[..., :BLEU_N], sums[..., BLEU_N : 2 * BLEU_N]
    hyp_len, ref_len = sums[..., 2 * BLEU_N], sums[..., 2 * BLEU_N + 1]
    product = np.ones(sums.shape[:-1])
    for k in range(n):
        product = product * ((correct[..., k] + _BLEU_TINY) / (guess[..., k] + _BLEU_SMALL))
    value = product ** (1.0 / n)
    ratio = (hyp_len + _BLEU_TINY) / (ref_len + _BLEU_SMALL)
    with np.errstate(over="ignore", under="ignore", divide="ignore"):
        brevity = np.exp(1 - 1 / ratio)
    return np.where(ratio < 1, value * brevity, value)


def _score_tokenised(keys: list, gts: dict, res: dict, out: CocoScores, suffix: str) -> None:
    from pycocoevalcap.bleu.bleu import Bleu
    from pycocoevalcap.cider.cider import Cider
    from pycocoevalcap.rouge.rouge import Rouge

    bleu, bleu_items = Bleu(4).compute_score(gts, res, verbose=0)
    for n in range(4):
        if suffix == "" or f"Bleu_{n + 1}" in PYTOK_METRICS:
            out.corpus[f"Bleu_{n + 1}{suffix}"] = float(bleu[n])
            out.per_item[f"Bleu_{n + 1}{suffix}"] = [float(x) for x in bleu_items[n]]
    for name, scorer in (("ROUGE_L", Rouge()), ("CIDEr", Cider())):
        score, items = scorer.compute_score(gts, res)
        out.corpus[name + suffix] = float(score)
        out.per_item[name + suffix] = [float(x) for x in items]


def _meteor_in_background(gts: dict, res: dict, out: CocoScores) -> threading.Thread:
    """METEOR in a thread (the jar computes while Python computes the other scorers); join the thread, then
    ``out`` holds METEOR or the reason it is absent. The thread ends: every wait in it is time-limited."""

    def run() -> None:
        try:
            score, items = METEOR.score(gts, res)
            out.corpus["METEOR"], out.per_item["METEOR"] = float(score), [float(x) for x in items]
        except Exception as err:  # noqa: BLE001 - a failed jar is reported as the metric's absence, with the error
            out.absent["METEOR"] = str(err) if isinstance(err, MeteorError) else f"METEOR failed: {type(err).__name__}: {err}"

    thread = threading.Thread(target=run, name="food-tasks-meteor", daemon=True)
    thread.start()
    return thread


def _bounded(caption: str) -> tuple[str, bool]:
    """The hypothesis as handed to a tokenizer: whitespace collapsed, cut to :data:`MAX_HYP_CHARS`.

    Only a prefix of a long caption is cleaned: the cleaned prefix of a raw prefix is a prefix of the
    cleaned caption (short of a final space), so once it is longer than the bound the rest cannot matter.
    """
    window = 4 * MAX_HYP_CHARS
    while True:
        text = _clean(caption[:window])
        if window >= len(caption):
            break
        if len(text) > MAX_HYP_CHARS:
            break
        window *= 4
    if len(text) <= MAX_HYP_CHARS:
        return text, False
    space = text.rfind(" ", 0, MAX_HYP_CHARS + 1)
    return text[: space if space > 0 else MAX_HYP_CHARS], True


def _first_tokens(tokens: str) -> tuple[str, bool]:
    """At most :data:`MAX_HYP_TOKENS` tokens of a tokenised hypothesis (untouched when shorter)."""
    parts = tokens.split(" ")
    if len(parts) <= MAX_HYP_TOKENS:
        return tokens, False
    return " ".join(parts[:MAX_HYP_TOKENS]), True


def coco_scores(refs: Mapping[Hashable, Sequence[str]], hyps: Mapping[Hashable, str], *, meteor: bool = True,
                pytok: bool | None = True) -> CocoScores:  # fmt: skip
    """Score hypotheses against references with the COCO caption toolkit.

    Hypotheses are bounded first (:data:`MAX_HYP_CHARS` characters before tokenisation, then
    :data:`MAX_HYP_TOKENS` tokens); the keys of those that were cut are listed in ``cut``.

    Args:
        refs: key -> one or more reference captions (raw text).
        hyps: key -> one hypothesis caption (raw text; empty allowed); same keys as ``refs``.
        meteor: compute METEOR (the toolkit's jar, 2 GB heap, in the process-wide :data:`METEOR`).
        pytok: also compute ``Bleu_4_pytok``, ``ROUGE_L_pytok``, ``CIDEr_pytok`` with :func:`py_tokenize`;
            ``None``: only when the toolkit's tokenisation is unavailable (they are ``absent`` otherwise).

    Raises:
        ValueError: the key sets differ or a reference list is empty.
    """
    keys = list(refs)
    if set(keys) != set(hyps):
        raise ValueError(f"coco_scores: references and hypotheses have different keys ({len(keys)} vs {len(hyps)})")
    if any(not refs[k] for k in keys):
        raise ValueError("coco_scores: every item needs at least one reference caption")
    out = CocoScores(keys=keys)
    if not keys:
        return out
    flat_refs = [str(r) for k in keys for r in refs[k]]
    bounded = [_bounded(str(hyps[k])) for k in keys]
    cut = {k for k, (_, was_cut) in zip(keys, bounded) if was_cut}
    problem = java_problem()
    tokens: list[str] | None = None
    if problem:
        out.absent.update(dict.fromkeys(METRICS, problem))
    else:
        if meteor:
            try:
                METEOR.start()  # the JVM loads METEOR's tables while the PTB tokenizer runs
            except OSError:
                pass  # reported by the METEOR call below
        try:
            tokens = ptb_tokenize(flat_refs + [text for text, _ in bounded])
        except (RuntimeError, OSError, subprocess.SubprocessError) as err:
            out.absent.update(dict.fromkeys(METRICS, f"the toolkit's PTB tokenizer failed: {err}"))
    if tokens is not None:
        gts, res, i = {}, {}, 0
        for k in keys:
            gts[k] = tokens[i : i + len(refs[k])]
            i += len(refs[k])
        for j, k in enumerate(keys):
            hyp, was_cut = _first_tokens(tokens[len(flat_refs) + j])
            res[k] = [hyp]
            if was_cut:
                cut.add(k)
        out.tokenised = {k: (gts[k], res[k][0]) for k in keys}
        thread = _meteor_in_background(gts, res, out) if meteor else None
        try:
            _score_tokenised(keys, gts, res, out, "")
        finally:
            if thread is not None:
                thread.join()
        if not meteor:
            out.absent["METEOR"] = "not requested"
    if pytok or (pytok is None and tokens is None):
        gts = {k: [py_tokenize(str(r)) for r in refs[k]] for k in keys}
        res = {}
        for k, (text, _) in zip(keys, bounded):
            hyp, was_cut = _first_tokens(py_tokenize(text))
            res[k] = [hyp]
            if was_cut:
                cut.add(k)
        out.tokenised_pytok = {k: (gts[k], res[k][0]) for k in keys}
        _score_tokenised(keys, gts, res, out, "_pytok")
    else:
        out.absent.update(dict.fromkeys((f"{name}_pytok" for name in PYTOK_METRICS),
                                        "not computed: the toolkit's own tokenisation ran"))  # fmt: skip
    out.cut = [k for k in keys if k in cut]
    return out
