"""One truth per unit (issue 19.9): each benchmark's units sentence agrees with the scales its metrics declare,
and docs/benchmarks.md and the benchmark's README repeat it verbatim."""

from __future__ import annotations

import importlib
from pathlib import Path

import pytest

from food_tasks import units
from food_tasks.benchmarks import BENCHMARKS
from food_tasks.hooks import Metric, MetricTable

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


def test_readme_units_list_is_the_records_sentences():
    assert units.units_paragraph(BENCHMARKS) in (REPO / "docs" / "benchmarks.md").read_text(encoding="utf-8")


def test_the_check_catches_a_wrong_or_missing_unit():
    tables = {
        "caption": MetricTable(
            Metric("bleu4", len, scale="score"),
            Metric("clipscore", len, scale="score"),
            Metric("sla_accurate", len),
            Metric("parse_fail_rate", len, False, "fraction"),
        )
    }
    assert (
        units.problems(
            "`bleu4` x 100; `clipscore` in [0, 1]; `sla_*` in percent; `parse_fail_rate` a fraction.", tables
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
        "no unit phrase (percent, x 100, [0, 1], fraction, kcal, words)"
    )
    assert units.expand("ctc{,_ki}{,_official}") == ["ctc", "ctc_official", "ctc_ki", "ctc_ki_official"]
