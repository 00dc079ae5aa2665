"""``food-tasks rescore`` (food_tasks.runs.rescore): a ``--log_samples`` run scored again without its model.

One lmms-eval run of every packaged sample task with the replay model (the pins' run A: tests/pins/make_pins.py),
then re-scores of copies of it: the re-score reproduces every value and every standard error of the results file,
also from a results file written before the consistency measures existed; every bad input stops with a clear error.
"""

from __future__ import annotations

import json
import shutil
import sys
from pathlib import Path

import inprocess
import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "pins"))
from make_pins import predictions  # noqa: E402  (tests/pins: the pins' fixed answers)

import food_tasks  # noqa: E402
from food_tasks.cli import demo_tasks, main  # noqa: E402
from food_tasks.runs import rescore  # noqa: E402

pytestmark = pytest.mark.e2e
ENV = {"HF_HUB_OFFLINE": "1", "HF_DATASETS_OFFLINE": "1", "TOKENIZERS_PARALLELISM": "false"}


def in_process(argv: list[str], env: dict[str, str], cwd: Path):
    """The re-score's lmms-eval command run in this process (tests/inprocess.py), less ``python -m lmms_eval``."""
    assert argv[1:3] == ["-m", "lmms_eval"]
    food_tasks.reset()
    return inprocess.run(argv[3:], env, cwd)


@pytest.fixture(scope="module")
def source(tmp_path_factory) -> Path:
    """Run A of the pins: every packaged sample task answered by the replay model; its output folder."""
    work = tmp_path_factory.mktemp("rescore")
    responses = predictions(work / "A.jsonl", 0)
    argv = ["--model", "food_tasks_replay", "--model_args", f"responses={responses},model_name=pins_A"]
    argv += ["--tasks", demo_tasks(), "--batch_size", "1", "--output_path", str(work / "A"), "--log_samples"]
    food_tasks.reset()
    proc = inprocess.run(argv, {**__import__("os").environ, **ENV}, work)
    assert list((work / "A").rglob("*_results.json")), proc.stdout[-3000:] + proc.stderr[-3000:]
    return work / "A"


def copy(run: Path, tmp_path: Path, name: str = "run") -> Path:
    target = tmp_path / name
    shutil.copytree(run, target)
    return target


def results(run: Path) -> Path:
    (found,) = run.rglob("*_results.json")
    return found


def numbers(path: Path) -> dict:
    data = json.loads(path.read_text(encoding="utf-8"))
    return {
        (s, t, k): v for s in ("results", "groups") for t, row in (data.get(s) or {}).items() for k, v in row.items()
    }


def test_rescore_reproduces_every_value_and_error_even_without_the_consistency_measures(source, tmp_path):
    run = copy(source, tmp_path)
    original = numbers(results(source))
    # As written before the consistency measures existed: no xling_* or position_* keys in the results file.
    data = json.loads(results(run).read_text(encoding="utf-8"))
    dropped = 0
    for row in data["results"].values():
        for key in [k for k in row if k.startswith(("xling_", "position_"))]:
            del row[key]
            dropped += 1
    assert dropped > 10
    results(run).write_text(json.dumps(data), encoding="utf-8")
    written = rescore.rescore(run, tmp_path / "out", runner=in_process)
    again = numbers(written)
    assert len(original) > 1000
    assert {k: again.get(k, "absent") for k in original if again.get(k, "absent") != original[k]} == {}
    assert any(k[2].startswith("xling_all_correct") and k[2].endswith("_stderr,none") for k in again)
    info = json.loads(written.read_text(encoding="utf-8"))[rescore.PROVENANCE]
    assert info["source"] == str(results(run).resolve()) and info["source_model"] == "pins_A"
    assert info["food_tasks_version"] == food_tasks.__version__ and info["source_task_versions"]
    # A run records the pack's version (results files from before 2026-11-27 do not: null there).
    assert data["food_tasks_version"] == info["source_food_tasks_version"] == food_tasks.__version__
    assert info["documents"]["worldcuisines_mcq_sample_1a_nocontext"] == {
        "documents": 9,
        "matched": 9,
        "identity": ["qa_id", "lang"],
        "new": [],
        "gone": [],
        "changed": [],
    }
    # Samples files for every task, beside the results file, as lmms-eval writes them: compare reads them.
    assert len(list(written.parent.glob("*_samples_*.jsonl"))) == len(list(results(source).parent.glob("*_samples_*")))
    text = rescore.summary(written, results(run))
    assert f"a re-score of {results(run)}" in text and "image gain: run worldcuisines_mcq_sample_noimage" in text


def test_a_changed_identity_past_the_share_stops_naming_the_task(source, tmp_path):
    run = copy(source, tmp_path)
    (samples,) = run.rglob("*_samples_diningbench_cls_sample.jsonl")
    lines = [json.loads(line) for line in samples.read_text(encoding="utf-8").splitlines()]
    lines[0]["acc"]["idx"] = "no-such-document"
    samples.write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")
    with pytest.raises(rescore.RescoreError, match="exit code 1"):
        rescore.rescore(run, tmp_path / "out", runner=in_process)


def test_the_recorded_image_status_is_kept(source, tmp_path):
    run = copy(source, tmp_path)
    (samples,) = run.rglob("*_samples_diningbench_cls_sample.jsonl")
    lines = [json.loads(line) for line in samples.read_text(encoding="utf-8").splitlines()]
    assert lines[0]["acc"]["image_missing"] is False
    lines[0]["acc"]["image_missing"] = True  # the source run could not decode this document's image
    samples.write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")
    written = rescore.rescore(run, tmp_path / "out", runner=in_process)
    data = json.loads(written.read_text(encoding="utf-8"))
    assert data["results"]["diningbench_cls_sample"]["image_missing,none"] == 1


def test_the_token_budget_half_of_truncated_rate_is_kept(source, tmp_path):
    """A run whose backend reported token counts: the answers that used their task's whole ``max_new_tokens`` are
    truncated in the re-score too (the replay model reports the recorded counts as the backend did)."""
    run = copy(source, tmp_path)
    budget = {"worldcuisines_mcq_sample_1a_nocontext": 50, "fambench_task1_sample": 48}  # their max_new_tokens
    counts = {  # output tokens by doc_id; 51: the engine had a larger budget, the task's did not cut it
        "worldcuisines_mcq_sample_1a_nocontext": {0: 50, 1: 51, 2: 12},
        "fambench_task1_sample": {0: 48, 3: 48},
    }
    for task, tokens in counts.items():  # as a backend that reports counts has lmms-eval write them

        def counted(samples, tokens=tokens):
            return [
                {**s, "token_counts": [{"input_tokens": 7, "output_tokens": tokens[s["doc_id"]]}]}
                if s["doc_id"] in tokens
                else s
                for s in samples
            ]

        edit_samples(run, task, counted)
    data = json.loads(results(run).read_text(encoding="utf-8"))
    data["results"]["worldcuisines_mcq_sample_1a_nocontext"]["truncated_rate,none"] = 100 / 9  # 1 of 9
    data["results"]["fambench_task1_sample"]["truncated_rate,none"] = 50.0  # 2 of 4
    results(run).write_text(json.dumps(data), encoding="utf-8")
    written = rescore.rescore(run, tmp_path / "out", runner=in_process)
    again = json.loads(written.read_text(encoding="utf-8"))
    for task, tokens in counts.items():
        rate = again["results"][task]["truncated_rate,none"]
        assert rate == pytest.approx(data["results"][task]["truncated_rate,none"]), task
        (samples,) = written.parent.glob(f"*_samples_{task}.jsonl")
        lines = [json.loads(line) for line in samples.read_text(encoding="utf-8").splitlines()]
        records = [next(v for v in s.values() if isinstance(v, dict) and "truncated" in v) for s in lines]
        spent = sorted(s["doc_id"] for s, r in zip(lines, records) if r["truncated"])
        assert spent == sorted(d for d, n in tokens.items() if n == budget[task]), task
        # The re-score's samples record the same counts: a re-score of the re-score keeps them too.
        assert {s["doc_id"]: s["token_counts"] for s in lines if s["token_counts"] != [None]} == {
            d: [{"input_tokens": 7, "output_tokens": n}] for d, n in tokens.items()
        }
    assert again["efficiency"]["by_task"]["worldcuisines_mcq_sample_1a_nocontext"]["total_output_tokens"] == 113


# ------------------------------------------------------------------------------- errors: exit 1, nothing written


def fails(argv: list[str], capsys) -> str:
    assert main(["rescore", *argv]) == 1
    return capsys.readouterr().err


def test_no_samples_files_asks_for_log_samples(source, tmp_path, capsys):
    run = copy(source, tmp_path)
    for path in run.rglob("*_samples_*.jsonl"):
        path.unlink()
    err = fails([str(run), "-o", str(tmp_path / "out")], capsys)
    assert "--log_samples" in err and not (tmp_path / "out").exists()


def test_a_damaged_samples_file_is_named_with_its_line(source, tmp_path, capsys):
    run = copy(source, tmp_path)
    (samples,) = run.rglob("*_samples_fambench_task1_sample.jsonl")
    text = samples.read_text(encoding="utf-8").splitlines()
    samples.write_text("\n".join([text[0], text[1][:40], *text[2:]]) + "\n", encoding="utf-8")
    err = fails([str(run), "-o", str(tmp_path / "out")], capsys)
    assert samples.name in err and "line 2" in err


def test_a_truncated_samples_file_is_named(source, tmp_path, capsys):
    run = copy(source, tmp_path)
    (samples,) = run.rglob("*_samples_fambench_task1_sample.jsonl")
    samples.write_text(samples.read_text(encoding="utf-8").splitlines()[0] + "\n", encoding="utf-8")
    err = fails([str(run), "-o", str(tmp_path / "out")], capsys)
    assert samples.name in err and "truncated" in err


def test_a_run_with_several_answers_per_document_is_refused(source, tmp_path, capsys):
    run = copy(source, tmp_path)
    (samples,) = run.rglob("*_samples_fambench_task1_sample.jsonl")
    lines = samples.read_text(encoding="utf-8").splitlines()
    first = json.loads(lines[1])
    first["filtered_resps"] = ["1", "2"]  # a task with repeats: two answers for one document
    samples.write_text("\n".join([lines[0], json.dumps(first), *lines[2:]]) + "\n", encoding="utf-8")
    err = fails([str(run), "-o", str(tmp_path / "out")], capsys)
    assert samples.name in err and "line 2" in err and "2 answers" in err and not (tmp_path / "out").exists()


def test_a_task_the_pack_no_longer_has_is_named(source, tmp_path, capsys):
    run = copy(source, tmp_path)
    path = results(run)
    data = json.loads(path.read_text(encoding="utf-8"))
    for section in ("results", "configs"):
        data[section]["gone_task"] = data[section]["fambench_task1_sample"]
    path.write_text(json.dumps(data), encoding="utf-8")
    err = fails([str(run), "-o", str(tmp_path / "out")], capsys)
    assert "gone_task" in err and "food-tasks list" in err


def test_a_folder_of_several_runs_lists_them(source, tmp_path, capsys):
    run = copy(source, tmp_path)
    path = results(run)
    shutil.copy(path, path.with_name("20990101_000000_results.json"))
    err = fails([str(run), "-o", str(tmp_path / "out")], capsys)
    assert "2 runs" in err and "20990101_000000_results.json" in err


def test_an_out_holding_results_is_refused_and_the_source_always(source, tmp_path, capsys):
    run = copy(source, tmp_path)
    other = copy(source, tmp_path, "other")
    assert "--force" in fails([str(run), "-o", str(other)], capsys)
    for out in (run, results(run).parent):
        assert "source run" in fails([str(run), "-o", str(out), "--force"], capsys)
    assert "source run" in fails([str(results(run)), "-o", str(run), "--force"], capsys)


# ------------------------------------------------------------------------------- identity, never position

REGIONAL = Path(__file__).resolve().parents[2] / "examples" / "regional"
MCQ = {"sea-001": "A", "sea-002": "B", "eas-001": "D", "eas-002": "A", "waf-001": "C", "waf-002": "C"}  # 4 of 6


@pytest.fixture(scope="module")
def keyed(tmp_path_factory) -> Path:
    """A run of the caption sample task and of the regional example whose id column is named ``code`` (not the
    records' ``id``), each document answered its own answer: every caption its reference, the MCQ rows ``MCQ``."""
    from food_tasks.utils.food500cap import docs_sample

    work = tmp_path_factory.mktemp("keyed")
    tasks = shutil.copytree(REGIONAL, work / "tasks", ignore=shutil.ignore_patterns("*open*", "*.py"))
    rows = [json.loads(line) for line in (tasks / "dishes.jsonl").read_text(encoding="utf-8").splitlines()]
    rows = [{"code": r.pop("id"), **r} for r in rows]
    (tasks / "dishes.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    yaml = tasks / "regional_example_mcq.yaml"
    yaml.write_text(yaml.read_text(encoding="utf-8").replace("    id: id", "    id: code"), encoding="utf-8")
    lines = [{"task": "regional_example_mcq", "doc_id": i, "response": MCQ[r["code"]]} for i, r in enumerate(rows)]
    lines += [
        {"task": "food500cap_caption_sample", "doc_id": i, "response": d["caption"]}
        for i, d in enumerate(docs_sample(None))
    ]
    responses = work / "answers.jsonl"
    responses.write_text("".join(json.dumps(x, ensure_ascii=False) + "\n" for x in lines), encoding="utf-8")
    argv = ["--model", "food_tasks_replay", "--model_args", f"responses={responses},model_name=keyed"]
    argv += ["--include_path", str(tasks), "--tasks", "food500cap_caption_sample,regional_example_mcq"]
    argv += ["--batch_size", "1", "--output_path", str(work / "run"), "--log_samples"]
    food_tasks.reset()
    proc = inprocess.run(argv, {**__import__("os").environ, **ENV}, work)
    assert list((work / "run").rglob("*_results.json")), proc.stdout[-3000:] + proc.stderr[-3000:]
    return work / "run"


def edit_samples(run: Path, task: str, edit) -> None:
    """Rewrite the samples file of ``task`` in ``run`` as ``edit(samples)`` returns them."""
    (path,) = run.rglob(f"*_samples_{task}.jsonl")
    lines = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
    path.write_text("".join(json.dumps(x, ensure_ascii=False) + "\n" for x in edit(lines)), encoding="utf-8")


def test_a_reordered_run_is_matched_by_identity_for_the_caption_and_the_regional_task(keyed, tmp_path):
    run = copy(keyed, tmp_path)
    assert numbers(results(keyed))[("results", "regional_example_mcq", "acc,none")] == pytest.approx(400 / 6)
    assert numbers(results(keyed))[("results", "food500cap_caption_sample", "sla_accurate,none")] > 0

    def shuffled(samples):  # the same answers recorded at other positions: position would give each a wrong one
        ids = [s["doc_id"] for s in samples]
        return [{**s, "doc_id": ids[(i + 1) % len(ids)]} for i, s in enumerate(samples)][::-1]

    for task in ("food500cap_caption_sample", "regional_example_mcq"):
        edit_samples(run, task, shuffled)
    written = rescore.rescore(run, tmp_path / "out", runner=in_process)
    original, again = numbers(results(keyed)), numbers(written)
    assert {k: again.get(k, "absent") for k in original if again.get(k, "absent") != original[k]} == {}
    info = json.loads(written.read_text(encoding="utf-8"))[rescore.PROVENANCE]["documents"]
    assert info["regional_example_mcq"]["identity"] == ["code"]
    assert info["food500cap_caption_sample"]["identity"] == ["key"]
    assert info["regional_example_mcq"]["matched"] == 6 and info["food500cap_caption_sample"]["matched"] == 5


def test_a_document_the_run_lacks_is_left_out_not_scored_as_an_empty_answer(keyed, tmp_path, monkeypatch):
    run = copy(keyed, tmp_path)
    # The run has no answer for waf-001 (answered C, wrong) nor for the caption task's first image.
    edit_samples(run, "regional_example_mcq", lambda s: [x for x in s if x["acc"]["id"] != "waf-001"])
    edit_samples(run, "food500cap_caption_sample", lambda s: s[1:])
    data = json.loads(results(run).read_text(encoding="utf-8"))
    for task in ("regional_example_mcq", "food500cap_caption_sample"):
        data["n-samples"][task]["effective"] -= 1
    results(run).write_text(json.dumps(data), encoding="utf-8")
    monkeypatch.setattr(rescore, "MAX_SHARE", 0.5)  # one of 5 or 6 documents: past the 1 % a real run allows
    written = rescore.rescore(run, tmp_path / "out", runner=in_process)
    data = json.loads(written.read_text(encoding="utf-8"))
    assert data["results"]["regional_example_mcq"]["acc,none"] == pytest.approx(80.0)  # 4 of 5, not 4 of 6
    assert data["n-samples"]["regional_example_mcq"]["effective"] == 5
    assert data["n-samples"]["food500cap_caption_sample"]["effective"] == 4
    (samples,) = written.parent.glob("*_samples_food500cap_caption_sample.jsonl")
    assert len(samples.read_text(encoding="utf-8").splitlines()) == 4
    info = data[rescore.PROVENANCE]["documents"]
    assert info["regional_example_mcq"] == {
        "documents": 5,
        "matched": 5,
        "identity": ["code"],
        "new": ["waf-001"],
        "gone": [],
        "changed": [],
    }
    (first,) = info["food500cap_caption_sample"]["new"]
    text = rescore.summary(written, results(run))
    assert "regional_example_mcq: 1 document(s) without a recorded answer, left out (not scored) (waf-001)" in text
    assert f"({first})" in text


def test_a_changed_gold_answer_is_listed_below_the_share_and_stops_the_re_score_past_it(keyed, tmp_path, monkeypatch):
    run = copy(keyed, tmp_path)
    # The task's data edited since the run: waf-001's gold answer B -> C, the answer the run gave (MCQ).
    tasks = shutil.copytree(keyed.parent / "tasks", tmp_path / "tasks")
    rows = [json.loads(line) for line in (tasks / "dishes.jsonl").read_text(encoding="utf-8").splitlines()]
    (row,) = [r for r in rows if r["code"] == "waf-001"]
    assert row["answer"] != "C"
    row["answer"] = "C"
    (tasks / "dishes.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    data = json.loads(results(run).read_text(encoding="utf-8"))
    data["config"]["resolved_cli_args"]["include_path"] = str(tasks)
    results(run).write_text(json.dumps(data), encoding="utf-8")
    # 1 of 6 documents changed: past the 1 % a real re-score allows, it stops; what it wrote goes.
    with pytest.raises(rescore.RescoreError) as stopped:
        rescore.rescore(run, tmp_path / "new" / "out", runner=in_process)
    said = str(stopped.value)
    assert "task regional_example_mcq: 1 document(s) changed their gold answer since the run (waf-001)" in said
    assert "of 6 recorded; identity fields: code" in said and "re-run the evaluation" in said
    assert not (tmp_path / "new").exists()
    monkeypatch.setattr(rescore, "MAX_SHARE", 0.5)
    # A sample that recorded no gold answer has nothing to compare: not counted as changed.
    edit_samples(
        run, "regional_example_mcq", lambda s: [{k: v for k, v in x.items() if k != "target"} for x in s[:1]] + s[1:]
    )
    written = rescore.rescore(run, tmp_path / "out", runner=in_process)
    again = json.loads(written.read_text(encoding="utf-8"))
    assert again["results"]["regional_example_mcq"]["acc,none"] == pytest.approx(500 / 6)  # 5 of 6, was 4 of 6
    info = again[rescore.PROVENANCE]["documents"]
    assert info["regional_example_mcq"]["changed"] == ["waf-001"] and info["regional_example_mcq"]["matched"] == 6
    assert info["food500cap_caption_sample"]["changed"] == []
    text = rescore.summary(written, results(run))
    assert (
        "regional_example_mcq: 1 document(s) changed their gold answer since the run (waf-001): their scores use "
        "the new one" in text
    )
    assert "food500cap_caption_sample: 0" not in text


def test_the_re_score_mirrors_the_run_layout_with_or_without_a_model_folder(keyed, tmp_path):
    run = copy(keyed, tmp_path)  # run/keyed/: lmms-eval's folder for model_name=keyed
    written = rescore.rescore(run, tmp_path / "out", runner=in_process)
    assert written.parent == tmp_path / "out" / "keyed"
    assert json.loads(written.read_text(encoding="utf-8"))["model_name_sanitized"] == "keyed"
    # A run without model_name: lmms-eval wrote it directly into its --output_path (no model folder).
    for path in list((run / "keyed").iterdir()):
        path.rename(run / path.name)
    (run / "keyed").rmdir()
    data = json.loads(results(run).read_text(encoding="utf-8"))
    data["config"]["model_args"] = data["config"]["model_args"].replace(",model_name=keyed", "")
    data["model_name"] = data["model_name_sanitized"] = ""
    results(run).write_text(json.dumps(data), encoding="utf-8")
    written = rescore.rescore(run, tmp_path / "flat", runner=in_process)
    assert written.parent == tmp_path / "flat"  # not flat/food_tasks_replay (answers.jsonl)/
    assert sorted(p.name for p in (tmp_path / "flat").iterdir() if p.is_dir()) == []
    assert len(list((tmp_path / "flat").glob("*_samples_*.jsonl"))) == 2
    again = json.loads(written.read_text(encoding="utf-8"))
    assert again["model_name_sanitized"] == ""
    assert again[rescore.PROVENANCE]["source_model"] == "food_tasks_replay (answers.jsonl)"
    # The default OUT: <--output_path>_rescored, the files directly in it as in the run.
    assert rescore.rescore(run, runner=in_process).parent == tmp_path / "run_rescored"


def _duplicated(samples: list[dict]) -> list[dict]:
    """Line 2 copied over line 3: the second document recorded twice, the third not at all."""
    return [*samples[:2], samples[1], *samples[3:]]


def test_a_duplicated_record_says_recorded_twice_and_stops_removing_what_it_wrote(keyed, tmp_path):
    run = copy(keyed, tmp_path)
    (path,) = run.rglob("*_samples_regional_example_mcq.jsonl")
    ids = [json.loads(line)["acc"]["id"] for line in path.read_text(encoding="utf-8").splitlines()]
    edit_samples(run, "regional_example_mcq", _duplicated)
    seen = []

    def runner(argv, env, cwd):  # type: ignore[no-untyped-def]
        seen.append(in_process(argv, env, cwd))
        return seen[-1]

    # OUT made by this command (its parent too): removed when the re-score fails.
    with pytest.raises(rescore.RescoreError, match="exit code 1"):
        rescore.rescore(run, tmp_path / "new" / "out", runner=runner)
    said = " ".join((seen[0].stdout + seen[0].stderr).split())  # the message is wrapped to the terminal
    assert f"1 document(s) have no recorded answer (new, or their identity changed: {ids[2]})" in said
    assert "0 recorded answer(s) match no document (gone: -)" in said
    assert f"1 document(s) recorded twice (more recorded answers than documents of that identity: {ids[1]})" in said
    assert not (tmp_path / "new").exists()
    # An OUT that was there: only what this command wrote there goes.
    (tmp_path / "mine" / "notes").mkdir(parents=True)
    (tmp_path / "mine" / "notes" / "a.txt").write_text("mine", encoding="utf-8")
    with pytest.raises(rescore.RescoreError, match="exit code 1"):
        rescore.rescore(run, tmp_path / "mine", runner=in_process)
    assert sorted(p.relative_to(tmp_path).as_posix() for p in (tmp_path / "mine").rglob("*")) == [
        "mine/notes",
        "mine/notes/a.txt",
    ]


def test_the_default_out_the_source_date_and_a_duplicate_under_the_share(keyed, tmp_path, monkeypatch):
    from datetime import datetime, timedelta

    run = copy(keyed, tmp_path)  # results in run/keyed/ (model_name=keyed): lmms-eval's --output_path is run/
    (path,) = run.rglob("*_samples_regional_example_mcq.jsonl")
    ids = [json.loads(line)["acc"]["id"] for line in path.read_text(encoding="utf-8").splitlines()]
    edit_samples(run, "regional_example_mcq", _duplicated)
    monkeypatch.setattr(rescore, "MAX_SHARE", 0.5)
    written = rescore.rescore(run, runner=in_process)
    assert written.parent == tmp_path / "run_rescored" / "keyed"  # <--output_path>_rescored/<model folder>/
    info = json.loads(written.read_text(encoding="utf-8"))[rescore.PROVENANCE]
    assert info["documents"]["regional_example_mcq"]["twice"] == [ids[1]]
    assert (
        info["documents"]["regional_example_mcq"]["gone"] == []
        and "twice" not in info["documents"]["food500cap_caption_sample"]
    )
    text = rescore.summary(written, results(run))
    assert f"1 document(s) recorded twice, the extra answer unused ({ids[1]})" in text
    assert "0 recorded answer(s) of documents no longer in the task;" in text
    # lmms-eval stamps its date in the run's --timezone (default Asia/Singapore, UTC+8 all year)
    source = json.loads(results(run).read_text(encoding="utf-8"))
    assert info["source_date"] == source["date"] and info["source_date_timezone"] == "Asia/Singapore"
    utc = datetime.strptime(source["date"], "%Y%m%d_%H%M%S") - timedelta(hours=8)
    assert info["source_date_utc"] == utc.strftime("%Y-%m-%dT%H:%M:%S+00:00")


# ------------------------------------------------------------------------------- WorldCuisines smallref, a judged task

WC_GOLD = {"400": "1", "401": "3", "402": "2", "403": "2", "404": "1", "405": "5", "1900": "2", "1901": "1"}


def wc_answer(qa_id: str, lang: str) -> str:
    """Gold, but qa 400 wrong in Hokkien, qa 404 right in English only (misled), qa 1900 as text in Chinese."""
    if qa_id == "400" and lang == "nan":
        return "2"
    if qa_id == "404" and lang != "en":
        return "3"
    if qa_id == "1900" and lang == "zh_cn":
        return "The answer is Indonesia"
    return WC_GOLD[qa_id]


def test_a_replayed_worldcuisines_smallref_run_is_reproduced_number_for_number(wc_root, tmp_path, monkeypatch):
    from conftest import LANGS

    monkeypatch.setenv("FOOD_TASKS_DATA_DIR", str(wc_root))  # the run's data; the re-score reads the same
    lines = [{"qa_id": q, "lang": lang, "response": wc_answer(q, lang)} for q in WC_GOLD for lang in LANGS]
    responses = tmp_path / "answers.jsonl"
    responses.write_text("".join(json.dumps(x) + "\n" for x in lines), encoding="utf-8")
    argv = ["--model", "food_tasks_replay", "--model_args", f"responses={responses},keys=qa_id+lang,model_name=wc"]
    argv += ["--tasks", "worldcuisines_mcq_smallref", "--batch_size", "1", "--output_path", str(tmp_path / "run")]
    food_tasks.reset()
    proc = inprocess.run([*argv, "--log_samples"], dict(__import__("os").environ, **ENV), tmp_path)
    assert list((tmp_path / "run").rglob("*_results.json")), proc.stdout[-3000:] + proc.stderr[-3000:]
    original = numbers(results(tmp_path / "run"))
    written = rescore.rescore(tmp_path / "run", tmp_path / "out", runner=in_process)
    again = numbers(written)
    assert ("groups", "worldcuisines_mcq_smallref", "misled_rate,none") in original
    assert sum(k[2].endswith("_stderr,none") for k in original) > 40
    assert {k: again.get(k, "absent") for k in original if again.get(k, "absent") != original[k]} == {}
    documents = json.loads(written.read_text(encoding="utf-8"))[rescore.PROVENANCE]["documents"]
    assert all(d["new"] == d["gone"] == [] and d["identity"] == ["qa_id", "lang"] for d in documents.values())


def test_a_judged_task_is_re_scored_from_the_judge_cache_without_a_judge_call(tmp_path, monkeypatch):
    import diningbench_fixture as F
    from judge_server import JudgeServer, prediction_in

    verdicts = {"It has been fried": "是", "Not vegan: has cheese": "否", "Chicken": "否"}
    F.build(tmp_path / "mirror")
    env = {
        "FOOD_TASKS_DATA_DIR": str(tmp_path / "mirror"),
        "FOOD_TASKS_CACHE_DIR": str(tmp_path / "cache"),
        "FOOD_TASKS_JUDGE_MODEL": "judge-test",
        "FOOD_TASKS_JUDGE_CACHE": str(tmp_path / "judge-cache"),
        "OPENAI_API_KEY": "sk-local",
        "API_TYPE": "openai",
        "FOOD_TASKS_DININGBENCH_MODEL_NAME": "",
    }
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    lines = [{"doc_id": i, "response": r} for i, r in enumerate(verdicts)]
    responses = tmp_path / "answers.jsonl"
    responses.write_text("".join(json.dumps(x) + "\n" for x in lines), encoding="utf-8")
    argv = ["--model", "food_tasks_replay", "--model_args", f"responses={responses},model_name=db"]
    argv += ["--tasks", "diningbench_vqa_en", "--batch_size", "1", "--output_path", str(tmp_path / "run")]

    def verdict(prompt: str) -> str:
        return verdicts[prediction_in(prompt)]

    with JudgeServer(verdict) as server:
        monkeypatch.setenv("OPENAI_API_URL", server.url)
        food_tasks.reset()
        proc = inprocess.run([*argv, "--log_samples"], dict(__import__("os").environ, **ENV), tmp_path)
    assert list((tmp_path / "run").rglob("*_results.json")), proc.stdout[-3000:] + proc.stderr[-3000:]
    # each of the 3 answers: the official request and the robust one (the judge protocol's, another body)
    assert len(server.requests) == 6
    assert sum("<answer-" in r["body"]["messages"][-1]["content"] for r in server.requests) == 3
    original = numbers(results(tmp_path / "run"))
    assert original[("results", "diningbench_vqa_en", "judge_acc,none")] == pytest.approx(100 / 3)  # 1 of 3 "是"
    with JudgeServer(verdict) as again_server:
        monkeypatch.setenv("OPENAI_API_URL", again_server.url)
        written = rescore.rescore(tmp_path / "run", tmp_path / "out", runner=in_process)
    assert again_server.requests == []  # every verdict from the judge cache
    again = numbers(written)
    differ = {k: again.get(k, "absent") for k in original if again.get(k, "absent") != original[k]}
    # judge_info says what this run asked the judge: the source run's calls, the re-score's cache hits
    assert set(differ) == {("results", "diningbench_vqa_en", "judge_info,none")}


# ------------------------------------------------------------------------------- the console script


def test_the_console_script_rescores_and_report_and_compare_read_the_result(keyed, tmp_path):
    script = Path(sys.executable).with_name("food-tasks")
    env = {**__import__("os").environ, **ENV}

    def run(*args: str):
        return __import__("subprocess").run(
            [str(script), *args], env=env, cwd=tmp_path, capture_output=True, text=True, timeout=600
        )

    done = run("rescore", str(keyed), "-o", str(tmp_path / "out"))
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    assert f"a re-score of {results(keyed)}" in done.stdout
    report = run("report", str(tmp_path / "out"), "-o", str(tmp_path / "report"))
    assert report.returncode == 0 and (tmp_path / "report" / "report.md").is_file(), report.stderr[-3000:]
    compare = run("compare", "--all", str(keyed), str(tmp_path / "out"))
    assert compare.returncode == 0, compare.stderr[-3000:]
    rows = [line.split() for line in compare.stdout.splitlines() if line.startswith("  ") and "metric" not in line]
    assert len(rows) > 10 and {row[0] for row in rows} >= {"cider", "acc"}, compare.stdout
    # A - B: no difference anywhere (an absent metric, such as CLIPScore without its model, is absent in both)
    assert [row for row in rows if row[3] != "+0.00" and row[1:3] != ["absent", "absent"]] == [], compare.stdout


def test_rescore_reads_each_file_of_the_source_run_once(source, tmp_path, monkeypatch):
    """Issue 42: ``food-tasks rescore`` read the source results file twice and each samples file twice (the re-score,
    then the summary; the responses, then the gold answers); its own new results file twice too."""
    from argparse import Namespace

    from food_tasks.lmms import runfiles

    run = copy(source, tmp_path)
    opened: list[Path] = []
    real_read, real_open = runfiles.read_results, open

    def read_results(path, *args, **kwargs):  # type: ignore[no-untyped-def]
        opened.append(Path(path).resolve())
        return real_read(path, *args, **kwargs)

    def spy_open(path, *args, **kwargs):  # type: ignore[no-untyped-def]
        opened.append(Path(path).resolve())
        return real_open(path, *args, **kwargs)

    monkeypatch.setattr(runfiles, "read_results", read_results)
    monkeypatch.setattr(rescore, "open", spy_open, raising=False)
    monkeypatch.setattr(rescore, "subprocess_runner", in_process)
    assert rescore.main(Namespace(run=str(run), output=str(tmp_path / "out"), force=False)) == 0
    mine = [p for p in opened if run.resolve() in p.parents]
    samples = [p for p in mine if "_samples_" in p.name]
    assert len(samples) > 10 and len(samples) == len(set(samples)), sorted(samples)
    assert mine.count(results(run).resolve()) == 1
    (written,) = (tmp_path / "out").rglob("*_results.json")
    assert opened.count(written.resolve()) == 1  # read once to add the provenance; the summary reads none
