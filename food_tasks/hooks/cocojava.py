"""The COCO caption toolkit's Java programs, run by us: the PTB tokenizer and the METEOR 1.5 jar.

Part of :mod:`food_tasks.hooks.cocoeval` (which re-exports every public name here); split out so that each
module stays small. The process-management API (:class:`MeteorProcess`, the process-wide :data:`METEOR`,
:data:`JAVA_TIMEOUT_S`) is reached as ``food_tasks.hooks.cocoeval.<name>`` or here.

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

Java is needed by the tokenizer and by METEOR: :func:`java_problem` says why it cannot run here.
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
from collections.abc import Hashable, Mapping, Sequence
from pathlib import Path
from typing import IO

__all__ = [
    "JAVA_INSTALL_HINT",
    "JAVA_TIMEOUT_S",
    "METEOR",
    "MeteorError",
    "MeteorProcess",
    "java_problem",
    "ptb_tokenize",
]

JAVA_INSTALL_HINT = (
    "install a Java runtime (8 or newer) and put `java` on PATH, e.g. `apt-get install default-jre-headless`, "
    "`conda install -c conda-forge openjdk` or `brew install openjdk`"
)
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
        cmd = [
            shutil.which("java") or "java",
            "-Dfile.encoding=UTF-8",
            "-cp",
            str(jar),
            "edu.stanford.nlp.process.PTBTokenizer",
            "-preserveLines",
            "-lowerCase",
            str(src),
        ]
        try:
            proc = subprocess.run(cmd, capture_output=True, timeout=JAVA_TIMEOUT_S)  # run() kills it on time-out
        except subprocess.TimeoutExpired:
            raise RuntimeError(f"PTBTokenizer did not finish within {JAVA_TIMEOUT_S:g} s and was stopped") from None
    if proc.returncode != 0:
        raise RuntimeError(
            f"PTBTokenizer failed (exit {proc.returncode}): {proc.stderr.decode(errors='replace')[-500:]}"
        )
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
        return [
            shutil.which("java") or "java",
            "-jar",
            "-Xmx2G",
            toolkit.METEOR_JAR,
            "-",
            "-",
            "-stdio",
            "-l",
            "en",
            "-norm",
        ], folder

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

    def score(
        self, gts: Mapping[Hashable, Sequence[str]], res: Mapping[Hashable, Sequence[str]]
    ) -> tuple[float, list[float]]:
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

    def _score(
        self, gts: Mapping[Hashable, Sequence[str]], res: Mapping[Hashable, Sequence[str]]
    ) -> tuple[float, list[float]]:
        keys = list(gts)
        for key in keys:
            if len(res[key]) != 1:
                raise MeteorError(f"METEOR scores one hypothesis per item, got {len(res[key])} for {key!r}")
        # The protocol's field separator cannot occur in a hypothesis (the toolkit removes it, then halves runs
        # of spaces). Encoded here, before anything is sent: a caption that cannot be encoded fails at once.
        try:
            lines = [
                (
                    " ||| ".join(("SCORE", " ||| ".join(gts[k]), res[k][0].replace("|||", "").replace("  ", " ")))
                    + "\n"
                ).encode()
                for k in keys
            ]
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
