"""The newest-file rule of :mod:`food_tasks.runfiles`: the file name decides (lmms-eval's date prefix), ties
by full path; modification times never choose (a copy or checkout changes them, a name does not)."""

from __future__ import annotations

import os

from food_tasks import runfiles


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


def test_since_only_narrows_the_candidates(tmp_path):
    older = _touch(tmp_path / "m" / "20261125_090000_results.json", mtime=1_000)
    mine = _touch(tmp_path / "m" / "20261101_090000_results.json", mtime=5_000)  # an earlier name, written by this run
    assert runfiles.newest_results(tmp_path) == older
    assert runfiles.newest_results(tmp_path, since=4_000) == mine
    assert runfiles.newest_results(tmp_path, since=9_000) is None


def test_samples_file_of_a_folder_follows_the_same_rule(tmp_path):
    _touch(tmp_path / "m" / "20261101_090000_samples_t.jsonl", mtime=2_000_000_000)
    last = _touch(tmp_path / "m" / "20261125_090000_samples_t.jsonl", mtime=1_000)
    assert runfiles.samples_file(tmp_path, "t") == last
