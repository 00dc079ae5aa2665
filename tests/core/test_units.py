"""One truth per unit (issue 19.9): each benchmark's units sentence agrees with the scales its metrics declare,
and the benchmark's README repeats it verbatim (docs/benchmarks.md says where: issue 34.4)."""

from __future__ import annotations

import fnmatch
import importlib
import pkgutil
import re
from pathlib import Path

import pytest

import food_tasks.utils
from food_tasks.benchmarks import BENCHMARKS
from food_tasks.hooks import convention as hooks
from food_tasks.hooks.convention import Metric, MetricTable
from food_tasks.stats import units

REPO = Path(__file__).resolve().parents[2]


def _flat(text: str) -> str:
    return " ".join(text.split())


@pytest.mark.parametrize("bench", BENCHMARKS, ids=lambda b: b.name)
def test_units_sentence_agrees_with_the_declared_scales(bench):
    tables = importlib.import_module(f"food_tasks.utils.{bench.name}").TABLES
    assert units.problems(bench.units, tables) == []


@pytest.mark.parametrize("bench", BENCHMARKS, ids=lambda b: b.name)
def test_benchmark_readme_repeats_the_units_sentence(bench):
    readme = _flat((REPO / "yaml_tasks" / bench.name / "README.md").read_text(encoding="utf-8"))
    assert readme.count(_flat(f"Units: {bench.units}")) == 1


def test_the_docs_point_to_the_records_sentences_and_copy_none():
    """Issue 34.4: a new benchmark's units sentence lives in its record and README only; docs/benchmarks.md says
    where, so adding a benchmark does not edit it."""
    docs = _flat((REPO / "docs" / "benchmarks.md").read_text(encoding="utf-8"))
    assert "registry record's `units`" in docs and "`Units:` line" in docs
    assert not any(_flat(bench.units) in docs for bench in BENCHMARKS)


def test_the_check_catches_a_wrong_or_missing_unit():
    tables = {
        "caption": MetricTable(
            Metric("bleu4", len, scale="score"),
            Metric("clipscore", len, scale="score"),
            Metric("sla_accurate", len),
            Metric("parse_fail_rate", len, False, "percent"),
        )
    }
    assert (
        units.problems(
            "`bleu4` x 100; `clipscore` in [0, 1]; `sla_*` in percent; `parse_fail_rate` in percent (0-100).", tables
        )
        == []
    )
    assert units.problems("`bleu4` and `sla_accurate` x 100; `clipscore` in [0, 1].", tables) == [
        "'`bleu4` and `sla_accurate` x 100': `sla_accurate` is declared 'percent'"
    ]
    assert units.problems("`bleu4` in percent; `clipscore` in [0, 1].", tables) == [
        "'`bleu4` in percent': `bleu4` is declared 'score'"
    ]
    assert units.problems("`clipscore` in [0, 1]; BLEU-4 x 100.", tables) == [
        "metrics whose scale (score) does not give the range are not named: bleu4"
    ]
    assert units.problems("`bleu4` x 100; `clipscore` in [0, 1]; `cider` x 100.", tables) == [
        "'`cider` x 100': `cider` names no metric"
    ]
    assert units.problems("`bleu4` x 100; `clipscore` on the toolkit's scale.", tables)[0].endswith(
        "no unit phrase (percent, x 100, [0, 1], [-1, 1], kcal, words)"
    )
    assert units.expand("ctc{,_ki}{,_official}") == ["ctc", "ctc_official", "ctc_ki", "ctc_ki_official"]


# Issue 29.1: one scale per kind of number across the five benchmarks. An accuracy or a rate by its name (``acc``
# anywhere, or ``rate`` as a word of it); a text-overlap score by its family.
_ACCURACY_OR_RATE = re.compile(r"acc|(^|_)rate(_|$)")
_TEXT_OVERLAP = re.compile(r"^(bleu|meteor|rouge|cider|bertscore)")


def _hook_tables(bench: str) -> list[tuple[str, MetricTable]]:
    """``(module, table)`` of every metric table of the benchmark's hook modules (``<bench>``, ``<bench>_circular``)."""
    found = []
    for info in pkgutil.iter_modules(food_tasks.utils.__path__):
        if info.name != bench and not info.name.startswith(f"{bench}_"):
            continue
        module = importlib.import_module(f"food_tasks.utils.{info.name}")
        for value in vars(module).values():
            if isinstance(value, MetricTable):
                found.append((info.name, value))
            elif isinstance(value, dict) and value and all(isinstance(t, MetricTable) for t in value.values()):
                found.extend((info.name, t) for t in value.values())
    return found


def _clauses_naming(sentence: str, name: str) -> list[str]:
    """The clauses of a units sentence whose backticked patterns match ``name``."""
    return [
        clause
        for clause in sentence.rstrip(".").split(";")
        if any(fnmatch.fnmatch(name, p) for pattern in re.findall(r"`([^`]+)`", clause) for p in units.expand(pattern))
    ]


def test_no_fraction_scale_exists():
    assert "fraction" not in hooks.SCALES
    assert all(phrase != "fraction" and "fraction" not in allowed for phrase, allowed in units.PHRASES)
    with pytest.raises(ValueError, match="fraction"):
        Metric("acc", len, scale="fraction")


@pytest.mark.parametrize("bench", BENCHMARKS, ids=lambda b: b.name)
def test_every_accuracy_and_rate_is_percent_and_text_overlap_x_100(bench):
    tables = _hook_tables(bench.name)
    assert tables, f"no metric table in food_tasks.utils.{bench.name}*"
    wrong = []
    for module, table in tables:
        for name, metric in table.items():
            if metric.scale in ("breakdown", "info", "count"):
                continue
            if _ACCURACY_OR_RATE.search(name) and metric.scale != "percent":
                wrong.append(f"{module}: {name} is {metric.scale!r}, not percent")
            if _TEXT_OVERLAP.match(name):
                clauses = _clauses_naming(bench.units, name)
                if metric.scale != "score" or not clauses or not all("x 100" in c for c in clauses):
                    wrong.append(f"{module}: {name} ({metric.scale}) is not declared x 100 in the units sentence")
    assert wrong == []
