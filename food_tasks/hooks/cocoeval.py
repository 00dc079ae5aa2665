"""COCO caption metrics (BLEU-1..4, METEOR, ROUGE-L, CIDEr-D) as the COCO caption evaluation toolkit computes them.

The scorers are those of ``pycocoevalcap`` (the maintained PyPI package of the MS-COCO caption evaluation
code): ``Bleu(4)`` (corpus BLEU, "closest" reference length rule), the METEOR 1.5 jar, ``Rouge()`` (ROUGE-L F,
beta 1.2) and ``Cider()`` (CIDEr-D, sigma 6, n 4, document frequencies from the references being scored).
No metric is re-implemented.

Bounded input: a hypothesis reaches the Java tools cut to :data:`MAX_HYP_CHARS` characters and, after
tokenisation, every scorer sees at most :data:`MAX_HYP_TOKENS` tokens of it (:class:`CocoScores` lists
the cut hypotheses in ``cut``). The bounds are where the toolkit stops scoring in bounded time and memory,
with a margin (measured by a benchmark script, docs/performance.md "length bound"): every hypothesis within
them, and so every caption a model gives within 512 new tokens, gets exactly the toolkit's numbers. Past them (runaway
generations that would exhaust METEOR's 2 GB heap) a hypothesis is scored on its first tokens.

The toolkit's Java programs (the PTB tokenizer and the METEOR jar, with the process that drives METEOR) are
run by :mod:`food_tasks.hooks.cocojava`; their public names are importable from here as well.

Java is needed by the tokenizer and by METEOR. Without a working ``java`` on ``PATH`` the Java-dependent
metrics are *absent* and :class:`CocoScores` says why (``absent``); nothing is substituted silently.
A pure-Python tokenizer (:func:`py_tokenize`, an approximation of PTB rules) is offered only under its
own metric names (``*_pytok``); its measured distance to the toolkit is stated in tests/core/test_cocoeval.py.
"""

from __future__ import annotations

import re
import shutil  # noqa: F401 - tests reach shutil.which through this module
import subprocess
import threading
from collections.abc import Hashable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from food_tasks.hooks.cocojava import (
    JAVA_INSTALL_HINT,
    JAVA_TIMEOUT_S,
    METEOR,
    MeteorError,
    MeteorProcess,
    _clean,
    java_problem,
    ptb_tokenize,
)

if TYPE_CHECKING:  # pragma: no cover
    import numpy as np
    from numpy.typing import ArrayLike

__all__ = [
    "CocoScores",
    "JAVA_INSTALL_HINT",
    "JAVA_TIMEOUT_S",
    "METEOR",
    "MeteorError",
    "MeteorProcess",
    "coco_scores",
    "java_problem",
    "ptb_tokenize",
    "py_tokenize",
]

METRICS = ("Bleu_1", "Bleu_2", "Bleu_3", "Bleu_4", "METEOR", "ROUGE_L", "CIDEr")
PYTOK_METRICS = ("Bleu_4", "ROUGE_L", "CIDEr")  # the pure-Python-tokenised variants (METEOR needs Java anyway)
# Bounds for runaway generations, where the toolkit stops scoring in bounded time and memory (measured
# by a benchmark script: docs/performance.md, "length bound"). Only METEOR breaks, and on tokens: its jar
# scored 10,359 tokens of varied text (6 s, 1.9 GB resident) and a 12,529-token repeated caption (21 s,
# 2.2 GB), and exhausted its 2 GB heap at 41,492 and 50,116; PTB, BLEU, ROUGE-L (its LCS is hypothesis x
# reference tokens) and CIDEr-D took at most 12 s on 1 MiB (166,000-200,000 tokens). The token bound keeps
# a margin of 2.5x below those successes, and 8x above what 512 new tokens give (a model token is about
# one PTB token of text). The character bound only keeps the tokenizer's input bounded (1 MiB took it
# 4 s): 128 characters per model token for 512 tokens, so no caption within 512 new tokens reaches it.
MAX_HYP_CHARS = 65_536  # characters of a hypothesis handed to the tokenizer (cut at the last space before)
MAX_HYP_TOKENS = 4_096  # tokens of a tokenised hypothesis handed to the scorers


# --------------------------------------------------------------------------- pure-Python approximation

_PY_QUOTES = str.maketrans(
    {
        "\u2018": "'",
        "\u2019": "'",
        "\u201c": '"',
        "\u201d": '"',
        "\u00a0": " ",
        "\u200b": " ",
        "\u200c": " ",
        "\u200d": " ",
        "\ufeff": " ",
    }
)
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
    return " ".join(
        _PY_BRACKETS.get(t, t) for t in raw if t not in _PY_DROP and not (len(t) > 2 and set(t) <= {".", "-"})
    )


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


def bleu_from_statistics(sums: ArrayLike, n: int) -> np.ndarray:
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
            out.absent["METEOR"] = (
                str(err) if isinstance(err, MeteorError) else f"METEOR failed: {type(err).__name__}: {err}"
            )

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


def coco_scores(
    refs: Mapping[Hashable, Sequence[str]],
    hyps: Mapping[Hashable, str],
    *,
    meteor: bool = True,
    pytok: bool | None = True,
) -> CocoScores:
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
        out.absent.update(
            dict.fromkeys(
                (f"{name}_pytok" for name in PYTOK_METRICS), "not computed: the toolkit's own tokenisation ran"
            )
        )
    out.cut = [k for k in keys if k in cut]
    return out
