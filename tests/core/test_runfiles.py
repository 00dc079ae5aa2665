"""The newest-file rule of :mod:`food_tasks.lmms.runfiles`: the file name decides (lmms-eval's date prefix), ties
by full path; modification times never choose (a copy or checkout changes them, a name does not)."""

from __future__ import annotations

import os

from food_tasks.lmms import runfiles


def _touch(path, mtime):
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text('{"results": {}}')
    os.utime(path, (mtime, mtime))
    return path


def test_newest_is_the_last_name_not_the_last_modified(tmp_path):
    old = _touch(tmp_path / "m" / "20261101_090000_results.json", mtime=2_000_000_000)  # modified later
    new = _touch(tmp_path / "m" / "20261125_090000_results.json", mtime=1_000_000_000)
    assert runfiles.newest_results(tmp_path) == new
    assert runfiles.newest([old, new]) == runfiles.newest([new, old]) == new  # order of the candidates: no effect
    assert runfiles.newest([]) is None


def test_equal_names_are_broken_by_the_full_path(tmp_path):
    a = _touch(tmp_path / "model_a" / "20261125_090000_results.json", mtime=2_000_000_000)
    b = _touch(tmp_path / "model_b" / "20261125_090000_results.json", mtime=1_000_000_000)
    assert runfiles.newest_results(tmp_path) == b == runfiles.newest([b, a])


def test_a_snapshot_narrows_the_candidates_to_the_files_written_since(tmp_path):
    """Issue 37: the demo's own results file is the one its run created or rewrote, whatever the file's time says
    (a file's time comes from the kernel's coarse clock and can lag ``time.time()``: here it lies in the past)."""
    older = _touch(tmp_path / "m" / "20261125_090000_results.json", mtime=1_000)
    kept = _touch(tmp_path / "m" / "20261120_090000_results.json", mtime=1_000)
    before = runfiles.results_snapshot(tmp_path)
    assert set(before) == {older, kept}
    assert runfiles.newest_results(tmp_path, before=before) is None  # nothing written since
    mine = _touch(tmp_path / "m" / "20261101_090000_results.json", mtime=500)  # an earlier name and an earlier time
    assert runfiles.newest_results(tmp_path) == older
    assert runfiles.newest_results(tmp_path, before=before) == mine
    kept.write_text('{"results": {"t": {}}}')  # rewritten in place (same name and inode), dated as before
    os.utime(kept, (1_000, 1_000))
    assert runfiles.newest_results(tmp_path, before=before) == kept
    assert runfiles.results_snapshot(tmp_path / "absent") == {}
    assert runfiles.newest_results(tmp_path / "absent", before={}) is None


def test_samples_file_of_a_folder_follows_the_same_rule(tmp_path):
    _touch(tmp_path / "m" / "20261101_090000_samples_t.jsonl", mtime=2_000_000_000)
    last = _touch(tmp_path / "m" / "20261125_090000_samples_t.jsonl", mtime=1_000)
    assert runfiles.samples_file(tmp_path, "t") == last
