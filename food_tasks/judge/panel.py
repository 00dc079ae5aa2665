"""Several judges on one run: the panel of a task, its requests, and what its judging cost.

``FOOD_TASKS_JUDGE_MODEL=a,b`` is a panel of two judges (:func:`food_tasks.judge.client.judges_from_env`: each its
endpoint and key, ``FOOD_TASKS_JUDGE_REPEATS`` and ``FOOD_TASKS_JUDGE_TEMPERATURE`` for all); the first is the
headline judge. :meth:`Panel.ask` sends every prompt to every judge, each ``repeats`` times, through each judge's
own client (:func:`food_tasks.judge.client.client_for`: the same cache, retries and failure accounting as one judge);
the official request goes to the headline judge only, once, as the benchmark sends it. :meth:`Panel.usage` counts
a task's requests and tokens per judge from that task's own results, and turns tokens into a cost with
``FOOD_TASKS_JUDGE_PRICE=<in>,<out>`` (USD per million prompt / completion tokens; ``<in>,<out>;<in>,<out>`` for one
price per judge).

A judge's usage counts every request a task sent it: the task's records and its susceptibility probes
(:mod:`food_tasks.judge.probes`), the probes' own share apart in the entry's ``probes`` part (:func:`with_probes`).
A cached answer costs no new tokens. Tokens are read from the response's ``usage``; when any request answered over
HTTP came without it, the judge's tokens (and cost) are None: "tokens unknown", never 0. A request that failed after
every attempt returned no completion and is counted in ``failed``, with no tokens.
"""

from __future__ import annotations

import math
import os
import textwrap
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from food_tasks.judge.client import (
    JudgeClient,
    JudgeConfig,
    JudgeResult,
    JudgeSettingsInvalid,
    client_for,
    judges_from_env,
    request_body,
)
from food_tasks.judge.protocol import mode_from_env

PRICE_ENV = "FOOD_TASKS_JUDGE_PRICE"
WIDTH = 120  # the console width of our lines

Answers = list[list[list[JudgeResult]]]  # [judge][repeat][i]


def price_from_env(n: int) -> list[tuple[float, float]] | None:
    """``(in, out)`` USD per million prompt / completion tokens of each of ``n`` judges from :data:`PRICE_ENV`
    (one pair: every judge; pairs separated by ``;``, aligned with the judges), None when unset.

    Raises:
        JudgeNotConfigured: a value that is not two non-negative numbers, or a count of pairs that is not 1 or ``n``.
    """
    raw = os.environ.get(PRICE_ENV, "").strip()
    if not raw:
        return None
    pairs = []
    for part in raw.split(";"):
        values = part.split(",")
        try:
            pair = tuple(float(v) for v in values)
        except ValueError:
            pair = ()
        if len(pair) != 2 or not all(math.isfinite(v) and v >= 0 for v in pair):
            raise JudgeSettingsInvalid(
                f"{PRICE_ENV}={raw!r}: {part.strip()!r} is not a price; write <in>,<out> in USD per million prompt and "
                f"completion tokens, e.g. {PRICE_ENV}=2.5,10 (one pair per judge separated by ';', or one for all)"
            )
        pairs.append(pair)
    if len(pairs) not in (1, n):
        raise JudgeSettingsInvalid(
            f"{PRICE_ENV}={raw!r} has {len(pairs)} prices for {n} judges: write one <in>,<out> pair per judge "
            "(separated by ';') or one for all"
        )
    return pairs * n if len(pairs) == 1 else pairs


def _flat(value: Any) -> Iterable[JudgeResult]:
    """The :class:`JudgeResult` in a nested list (any depth)."""
    if isinstance(value, JudgeResult):
        yield value
    elif isinstance(value, (list, tuple)):
        for item in value:
            yield from _flat(item)


@dataclass
class Panel:
    """The judges of a task, the first the headline judge; ``prices``: each judge's ``(in, out)`` USD per million
    tokens (None: no cost)."""

    configs: list[JudgeConfig]
    prices: list[tuple[float, float]] | None = None
    _clients: list[JudgeClient] | None = field(default=None, repr=False)

    @property
    def headline(self) -> JudgeConfig:
        """The first judge: ``judge_acc`` and ``_official`` are its."""
        return self.configs[0]

    @property
    def clients(self) -> list[JudgeClient]:
        """One client per judge (:func:`food_tasks.judge.client.client_for`: shared with the process's other tasks)."""
        if self._clients is None:
            self._clients = [client_for(c) for c in self.configs]
        return self._clients

    def ask(
        self,
        prompts: Sequence[str],
        *,
        temperature: float,
        max_tokens: int,
        official: bool = False,
        response_format: dict[str, Any] | None = None,
        judges: Sequence[int] | None = None,
    ) -> Answers:
        """Every judge's answers to ``prompts``, ``[judge][repeat][i]`` aligned with ``prompts``.

        ``official``: the headline judge only, once, at ``temperature`` (the benchmark's request, byte for byte:
        ``[[answers]]``). Else every judge, :attr:`JudgeConfig.repeats` times, at the judge's configured temperature
        when set, else ``temperature``. Each judge's requests go out in prompt order, judge after judge; a judge
        that is down yields failed results (``text`` None), the others' stand. ``response_format``: added to every
        body (the judge protocol's JSON verdict, :mod:`food_tasks.judge.protocol`); ``judges``: only these judges
        (indices, in that order).
        """
        out: Answers = []
        pairs = list(zip(self.configs, self.clients))
        chosen = pairs[:1] if official else pairs if judges is None else [pairs[j] for j in judges]
        for config, client in chosen:
            heat = temperature if official or config.temperature is None else config.temperature
            bodies = [request_body(config, p, temperature=heat, max_tokens=max_tokens) for p in prompts]
            if response_format is not None:
                bodies = [{**b, "response_format": response_format} for b in bodies]
            repeats = 1 if official else config.repeats
            out.append([client.complete_many(bodies, repeat=r) if bodies else [] for r in range(repeats)])
        return out

    def usage(self, *results: Any) -> dict[str, dict[str, Any]]:
        """What judging cost, per judge (by model name, in panel order), from the given :meth:`ask` answers only
        (this task's own; several ``ask`` outputs may be given, judge ``j`` of each counted for judge ``j``).

        Each judge: ``model``, ``endpoint`` (host and port), ``requests`` (distinct requests not answered from the
        disk cache), ``attempts`` (the HTTP attempts made for them: retries included; a request whose every attempt
        failed to connect reached no server), ``failed_attempts`` and ``failure_reasons`` (why each failed attempt
        failed: ``connection refused``, ``http 429`` ..., most frequent first), ``cached`` (from the cache: no new
        tokens), ``failed`` (no answer after every attempt),
        ``prompt_tokens`` and ``completion_tokens`` of the requests answered over HTTP (None: tokens unknown, some
        answer came without ``usage``), ``cost`` in USD (None without :data:`PRICE_ENV` or with tokens unknown).
        A request another task of the same process made first is counted in both (as
        :func:`food_tasks.judge.client.summarize`).
        """
        out: dict[str, dict[str, Any]] = {}
        for j, config in enumerate(self.configs):
            mine = [r for answers in results if j < len(answers) for r in _flat(answers[j])]
            distinct = list({r.key or id(r): r for r in mine}.values())
            answered = [r for r in distinct if r.text is not None and not r.cached]
            known = all(r.usage is not None for r in answered)
            tokens = {
                k: sum(r.usage[k] for r in answered) if known else None  # type: ignore[index]
                for k in ("prompt_tokens", "completion_tokens")
            }
            price = self.prices[j] if self.prices else None
            cost = (
                (tokens["prompt_tokens"] * price[0] + tokens["completion_tokens"] * price[1]) / 1e6
                if price is not None and known
                else None
            )
            reasons: dict[str, int] = {}
            for r in distinct:
                for reason in r.reasons:
                    reasons[reason] = reasons.get(reason, 0) + 1
            out[config.model] = {
                "model": config.model,
                "endpoint": config.endpoint_host,
                "requests": sum(not r.cached for r in distinct),
                "attempts": sum(r.attempts for r in distinct),
                "failed_attempts": sum(len(r.reasons) for r in distinct),
                "failure_reasons": dict(sorted(reasons.items(), key=lambda kv: (-kv[1], kv[0]))),
                "cached": sum(r.cached for r in distinct),
                "failed": sum(r.text is None for r in distinct),
                **tokens,
                "cost": cost,
            }
        return out


def panel_from_env(purpose: str = "this task") -> Panel | None:
    """The panel configured in the environment; None when judging is explicitly off (``FOOD_TASKS_JUDGE_MODEL=none``).

    Raises:
        JudgeNotConfigured: no judge, a malformed list or number (:func:`food_tasks.judge.client.judges_from_env`),
            or a bad :data:`PRICE_ENV`.
    """
    configs = judges_from_env(purpose)
    if not configs:
        return None
    mode_from_env()  # a bad FOOD_TASKS_JUDGE_VERDICT stops the run before generation
    return Panel(list(configs), price_from_env(len(configs)))


COUNTS = ("requests", "attempts", "failed_attempts", "cached", "failed")
SUMS = ("prompt_tokens", "completion_tokens", "cost")  # None in any part: None in the sum (unknown stays unknown)


def _add(total: dict[str, Any], entry: dict[str, Any]) -> None:
    """``entry``'s counts, failure reasons, tokens and cost added into ``total`` (None in either: None)."""
    for key in COUNTS:
        value = entry.get(key)
        total[key] += value if type(value) is int else 0
    reasons = entry.get("failure_reasons")
    for reason, n in reasons.items() if isinstance(reasons, dict) else ():
        if isinstance(reason, str) and type(n) is int:
            total.setdefault("failure_reasons", {})[reason] = total.get("failure_reasons", {}).get(reason, 0) + n
    for key in SUMS:
        value = entry.get(key)
        ok = isinstance(value, (int, float)) and not isinstance(value, bool) and total[key] is not None
        total[key] = total[key] + value if ok else None


def total_usage(usages: Iterable[Any]) -> dict[str, dict[str, Any]]:
    """The per-judge sum of several tasks' :meth:`Panel.usage` (a run's), by model in order of appearance: counts
    added, tokens and cost None where any task's are None (tokens unknown; no price); the ``probes`` parts
    (:func:`with_probes`) summed alike into the total's ``probes``. Entries that are not such mappings are skipped
    (a results file is input)."""
    out: dict[str, dict[str, Any]] = {}
    for usage in usages:
        for entry in usage.values() if isinstance(usage, dict) else ():
            model = entry.get("model") if isinstance(entry, dict) else None
            if not isinstance(model, str):
                continue
            total = out.setdefault(model, {"model": model, **dict.fromkeys(COUNTS, 0), **dict.fromkeys(SUMS, 0)})
            _add(total, entry)
            if isinstance(entry.get("probes"), dict):
                part = total.setdefault("probes", {**dict.fromkeys(COUNTS, 0), **dict.fromkeys(SUMS, 0)})
                _add(part, entry["probes"])
    return out


def with_probes(usage: Any, probes: Any) -> Any:
    """A task's :meth:`Panel.usage` with its probes' usage (:meth:`Panel.usage` of the probe requests) counted in:
    per judge the sum of both (:func:`total_usage`: requests, attempts, cached, failed, tokens and cost; the
    entry's ``endpoint`` kept) and a ``probes`` part, the probes' own counts, tokens and cost (included in the
    totals). ``usage`` as given where there are no probe figures (probes off; a client that keeps no usage)."""
    if not isinstance(usage, dict) or not isinstance(probes, dict) or not probes:
        return usage
    summed = total_usage([usage, probes])
    out = {}
    for model, entry in usage.items():
        part = probes.get(model)
        if not isinstance(entry, dict) or not isinstance(part, dict) or model not in summed:
            out[model] = entry
            continue
        own = {k: part.get(k) for k in (*COUNTS, *SUMS)}
        if part.get("failure_reasons"):
            own["failure_reasons"] = part["failure_reasons"]
        merged = {k: v for k, v in summed[model].items() if k != "probes"}
        if "failure_reasons" in merged:  # most frequent first, as Panel.usage orders them
            merged["failure_reasons"] = dict(sorted(merged["failure_reasons"].items(), key=lambda kv: (-kv[1], kv[0])))
        out[model] = {**entry, **merged, "probes": own}
    return out


def usage_line(total: dict[str, dict[str, Any]]) -> str | None:
    """One line of what judging cost (:func:`total_usage`), None without a judge: per judge its prompt + completion
    tokens ("tokens unknown" where a sent request came without ``usage``; "no new tokens (n cached)" where nothing was
    asked), the requests asked (the judge probes included, their number said: "40 asked, 34 of them probes") and
    the HTTP attempts they took (retries included: "30 asked in 150 attempts", where
    the results say), cached and failed requests with the commonest reasons of the failed attempts, and the cost when
    priced."""
    parts = []
    for model, t in total.items():
        if t["requests"] == 0:  # every answer from the cache: nothing sent, no new tokens (known or not)
            parts.append(f"{model} no new tokens ({t['cached']} cached)")
            continue
        known = t["prompt_tokens"] is not None and t["completion_tokens"] is not None
        tokens = f"{t['prompt_tokens']:,} + {t['completion_tokens']:,} tokens" if known else "tokens unknown"
        cost = f", ${t['cost']:.4f}" if t["cost"] is not None and known else ""
        tried = f" in {t['attempts']:,} attempts" if t.get("attempts") else ""
        probes = t.get("probes")
        some = f", {probes['requests']:,} of them probes" if isinstance(probes, dict) and probes.get("requests") else ""
        parts.append(
            f"{model} {tokens} ({t['requests']:,} asked{tried}{some}, {t['cached']} cached, {t['failed']} failed"
            f"{why_failed(t.get('failure_reasons'))}){cost}"
        )
    if not parts:
        return None
    line = f"Judge usage: {'; '.join(parts)}"
    if len(line) <= WIDTH:
        return line
    ends = [";"] * (len(parts) - 1) + [""]  # too long for one line: a judge a line, each wrapped
    return "\n".join(
        ["Judge usage:"]
        + [textwrap.fill(p + e, WIDTH, initial_indent="  ", subsequent_indent="    ") for p, e in zip(parts, ends)]
    )


def why_failed(reasons: Any, most: int = 2) -> str:
    """``: failed attempts connection refused x150, http 500 x3`` (the ``most`` commonest reasons), or ""."""
    shown = reasons_text(reasons, most)
    return f": failed attempts {shown}" if shown else ""


def reasons_text(reasons: Any, most: int = 3) -> str:
    """``connection refused x150, http 500 x3`` (the ``most`` commonest reasons of failed attempts), or ""."""
    if not isinstance(reasons, dict) or not reasons:
        return ""
    ranked = sorted(reasons.items(), key=lambda kv: (-kv[1], str(kv[0])))
    shown = ", ".join(f"{str(reason)[:60]} x{n}" for reason, n in ranked[:most])
    return shown + (", ..." if len(ranked) > most else "")


def attempt_warnings(label: str, usage: dict[str, dict[str, Any]]) -> list[str]:
    """One warning per judge of :meth:`Panel.usage` whose attempts failed (retried or not): how many of how many, and
    why, so that a judge that answers only after failing leaves a trace and a failing one says why."""
    lines = []
    for model, u in usage.items():
        if not u.get("failed_attempts"):
            continue
        what = (
            f"{u['failed']} of {u['requests']} requests got no answer after every attempt"
            if u.get("failed")
            else "every request was answered in the end"
        )
        why = reasons_text(u.get("failure_reasons"))
        lines.append(
            f"{label}: judge {model!r}: {u['failed_attempts']} of {u['attempts']} attempts failed ({why}); {what}."
        )
    return lines
