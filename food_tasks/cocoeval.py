"""COCO caption metrics (BLEU-1..4, METEOR, ROUGE-L, CIDEr-D) as the COCO caption evaluation toolkit computes them.

The scorers are those of ``pycocoevalcap`` (the maintained PyPI package of the MS-COCO caption evaluation
code): ``Bleu(4)`` (corpus BLEU, "closest" reference length rule), ``Meteor()`` (METEOR 1.5 jar),
``Rouge()`` (ROUGE-L F, beta 1.2) and ``Cider()`` (CIDEr-D, sigma 6, n 4, document frequencies from the
references being scored). Nothing is re-implemented. (Driving METEOR's line protocol pipelined instead of
one round trip per image was measured and gave nothing: the time is the JVM start and METEOR itself.)

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

Java is needed by the tokenizer and by METEOR. Without a working ``java`` on ``PATH`` the Java-dependent
metrics are *absent* and :class:`CocoScores` says why (``absent``); nothing is substituted silently.
A pure-Python tokenizer (:func:`py_tokenize`, an approximation of PTB rules) is offered only under its
own metric names (``*_pytok``); its measured distance to the toolkit is stated in tests/core/test_cocoeval.py.
"""

from __future__ import annotations

import functools
import os
import re
import shutil
import subprocess
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Hashable, Mapping, Sequence

__all__ = ["CocoScores", "JAVA_INSTALL_HINT", "coco_scores", "java_problem", "ptb_tokenize", "py_tokenize"]

JAVA_INSTALL_HINT = (
    "install a Java runtime (8 or newer) and put `java` on PATH, e.g. `apt-get install default-jre-headless`, "
    "`conda install -c conda-forge openjdk` or `brew install openjdk`"
)
METRICS = ("Bleu_1", "Bleu_2", "Bleu_3", "Bleu_4", "METEOR", "ROUGE_L", "CIDEr")
PYTOK_METRICS = ("Bleu_4", "ROUGE_L", "CIDEr")  # the pure-Python-tokenised variants (METEOR needs Java anyway)
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
        proc = subprocess.run(cmd, capture_output=True, timeout=3600)
    if proc.returncode != 0:
        raise RuntimeError(f"PTBTokenizer failed (exit {proc.returncode}): {proc.stderr.decode(errors='replace')[-500:]}")
    lines = proc.stdout.decode("utf-8").split("\n")
    if len(lines) < len(captions):
        raise RuntimeError(f"PTBTokenizer returned {len(lines)} lines for {len(captions)} captions")
    return [" ".join(w for w in line.rstrip().split(" ") if w not in punct) for line in lines[: len(captions)]]


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

    def corpus_bleu(self, keys: Sequence[Hashable], n: int = 4) -> float | None:
        """Corpus BLEU-n of a subset of the items (the toolkit's scorer on its tokens; None without them)."""
        from pycocoevalcap.bleu.bleu import Bleu

        if not self.tokenised or not keys:
            return None
        gts = {k: self.tokenised[k][0] for k in keys}
        res = {k: [self.tokenised[k][1]] for k in keys}
        return float(Bleu(4).compute_score(gts, res, verbose=0)[0][n - 1])


def _score_tokenised(keys: list, gts: dict, res: dict, out: CocoScores, suffix: str, meteor: bool) -> None:
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
    if meteor:
        _meteor(gts, res, out)


def _meteor(gts: dict, res: dict, out: CocoScores) -> None:
    from pycocoevalcap.meteor.meteor import Meteor

    scorer = None
    try:
        scorer = Meteor()
        score, items = scorer.compute_score(gts, res)
        out.corpus["METEOR"], out.per_item["METEOR"] = float(score), [float(x) for x in items]
    except Exception as err:  # noqa: BLE001 - a crashed jar is reported as the metric's absence, with the error
        out.absent["METEOR"] = f"the METEOR 1.5 jar failed: {type(err).__name__}: {err}"
    finally:
        del scorer


def coco_scores(refs: Mapping[Hashable, Sequence[str]], hyps: Mapping[Hashable, str], *, meteor: bool = True,
                pytok: bool = True) -> CocoScores:  # fmt: skip
    """Score hypotheses against references with the COCO caption toolkit.

    Args:
        refs: key -> one or more reference captions (raw text).
        hyps: key -> one hypothesis caption (raw text; empty allowed); same keys as ``refs``.
        meteor: compute METEOR (starts a JVM with 2 GB heap, as the toolkit does).
        pytok: also compute ``Bleu_4_pytok``, ``ROUGE_L_pytok``, ``CIDEr_pytok`` with :func:`py_tokenize`.

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
    flat_hyps = [str(hyps[k]) for k in keys]
    problem = java_problem()
    tokens: list[str] | None = None
    if problem:
        out.absent.update(dict.fromkeys(METRICS, problem))
    else:
        try:
            tokens = ptb_tokenize(flat_refs + flat_hyps)
        except (RuntimeError, OSError, subprocess.SubprocessError) as err:
            out.absent.update(dict.fromkeys(METRICS, f"the toolkit's PTB tokenizer failed: {err}"))
    if tokens is not None:
        gts, res, i = {}, {}, 0
        for k in keys:
            gts[k] = tokens[i : i + len(refs[k])]
            i += len(refs[k])
        for j, k in enumerate(keys):
            res[k] = [tokens[len(flat_refs) + j]]
        out.tokenised = {k: (gts[k], res[k][0]) for k in keys}
        _score_tokenised(keys, gts, res, out, "", meteor)
        if not meteor:
            out.absent["METEOR"] = "not requested"
    if pytok:
        gts = {k: [py_tokenize(str(r)) for r in refs[k]] for k in keys}
        res = {k: [py_tokenize(str(hyps[k]))] for k in keys}
        _score_tokenised(keys, gts, res, out, "_pytok", meteor=False)
    return out

