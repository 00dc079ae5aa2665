"""What users see stays what it was: the results JSON, the samples records, the report and the comparison of the
packaged sample tasks equal the golden files in ``tests/pins/golden/`` (lmms-eval's CLI run in the test process).

A change of numbers made on purpose regenerates the golden files in the same commit:
``python tests/pins/make_pins.py`` (its docstring says what is normalised).
"""

from __future__ import annotations

import difflib

import pytest
from make_pins import GOLDEN, produce  # tests/pins is on sys.path (rootdir-relative test module)

pytestmark = pytest.mark.e2e


@pytest.fixture(scope="module")
def made(tmp_path_factory) -> dict[str, str]:
    return produce(tmp_path_factory.mktemp("pins"))


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
