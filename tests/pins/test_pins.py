"""What users see stays what it was: the results JSON, the samples records, the report and the comparison of the
packaged sample tasks equal the golden files in ``tests/pins/golden/`` (lmms-eval's CLI run in the test process).

A change of numbers made on purpose regenerates the golden files in the same commit:
``python tests/pins/make_pins.py`` (its docstring says what is normalised).
"""

from __future__ import annotations

import difflib

import package_caches
import pytest
from make_pins import GOLDEN, produce  # tests/pins is on sys.path (rootdir-relative test module)

import food_tasks

pytestmark = pytest.mark.e2e


@pytest.fixture(scope="module")
def made(tmp_path_factory) -> dict[str, str]:
    package_caches.import_all()
    food_tasks.reset()
    before = package_caches.state()
    out = produce(tmp_path_factory.mktemp("pins"))
    after = package_caches.state()
    _FILLED.update(key for key, size in after.items() if size > before.get(key, 0))
    return out


_FILLED: set[tuple[str, str]] = set()  # the package's caches the runs, the report and the comparison filled


def test_the_golden_files_are_those_made(made):
    assert sorted(made) == sorted(p.name for p in GOLDEN.iterdir())


@pytest.mark.parametrize("name", sorted(p.name for p in GOLDEN.iterdir()))
def test_pinned_output_is_unchanged(made, name):
    golden = (GOLDEN / name).read_text(encoding="utf-8")
    if made.get(name) != golden:
        diff = "".join(
            difflib.unified_diff(
                golden.splitlines(True), (made.get(name) or "").splitlines(True), f"golden/{name}", "made now", n=2
            )
        )
        pytest.fail(
            f"{name} differs from its golden file (regenerate with `python tests/pins/make_pins.py` only for a "
            f"change made on purpose):\n{diff[:20000]}"
        )


def test_reset_forgets_every_cache_the_runs_filled(made):
    """Two lmms-eval runs of every benchmark's sample tasks, a report and a comparison fill the package's caches:
    food_tasks.reset() names each of them (``food_tasks.caches()``), and afterwards none holds anything."""
    assert ("food_tasks.lmms.harness", "_PARSED") in _FILLED and ("food_tasks.tasks.catalogue", "_INDEX") in _FILLED
    assert sorted(_FILLED - package_caches.listed()) == [], "caches that food_tasks.caches() does not name"
    food_tasks.reset()
    held = {key: size for key, size in package_caches.state().items() if size and key in package_caches.listed()}
    assert held == {}
