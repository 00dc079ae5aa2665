"""Issue 33 leftover: sentences that send the reader to a README section must name one that exists. The report's
Uncertainty note said "(clustered as the README says)" and an image warning "(README: Failure accounting)" after
those sections had moved to docs/error_bars.md and docs/failure_accounting.md."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
HEADINGS = {m.group(1).strip().lower() for m in re.finditer(r"^#+\s+(.+)$", (ROOT / "README.md").read_text(), re.M)}
# "(README: Section)", "the README's "Section" section", or a pointer to no section at all ("as the README says")
POINTER = re.compile(r"README: ([A-Z][\w ]+)\)|README's [\"“]([^\"”]+)[\"”]")
VAGUE = re.compile(r"as the README says|see the README\b", re.I)


def _texts() -> list[tuple[Path, str]]:
    files = [*(ROOT / "food_tasks").rglob("*.py"), *(ROOT / "docs").glob("*.md")]
    return [(f, f.read_text(encoding="utf-8")) for f in files]


def test_every_pointer_to_a_readme_section_names_one_that_exists():
    wrong = [
        f"{path.relative_to(ROOT)}: {m.group(0)}"
        for path, text in _texts()
        for m in POINTER.finditer(text)
        if (m.group(1) or m.group(2)).strip().lower() not in HEADINGS
    ]
    vague = [f"{path.relative_to(ROOT)}: {m.group(0)}" for path, text in _texts() for m in VAGUE.finditer(text)]
    assert not wrong and not vague


def test_the_reports_uncertainty_note_points_at_the_error_bars_doc():
    from food_tasks.report.uncertainty import POWER_NOTE

    assert "docs/error_bars.md" in POWER_NOTE and "README" not in POWER_NOTE
    assert (ROOT / "docs" / "error_bars.md").is_file()


def test_contributing_lists_every_file_of_the_regional_example():
    """CONTRIBUTING.md's listing of examples/regional/ names each of its files (images as ``images/*.png``): it
    left out ``regional_example_open_judged.yaml`` (issue 35 follow-up)."""
    text = (ROOT / "CONTRIBUTING.md").read_text(encoding="utf-8")
    listing = text.split("```\nexamples/regional/\n", 1)[1].split("```", 1)[0]
    listed = set(listing.split())
    folder = ROOT / "examples" / "regional"
    files = {p.name for p in folder.iterdir() if p.is_file() and not p.name.startswith(".")}
    assert files - listed == set() and "images/*.png" in listed
    assert {p.suffix for p in (folder / "images").iterdir()} == {".png"}
