"""The published models' beyond-accuracy measures (scripts/published_beyond_worldcuisines.py,
food_tasks.benchmarks.worldcuisines.official): a tiny official repository built here (the official layout: 30
language files per prompt folder, one model's smallref MCQ prediction files), offline. Its numbers equal what a
``worldcuisines_mcq_smallref`` run reports for the same predictions (the task's process_results, lmms-eval's
aggregation hooks and the pack's end-of-run statistics), and a few are computed by hand.
"""

from __future__ import annotations

import importlib.util
import json
import math
import os
from pathlib import Path

import pytest
from conftest import run_lmms_eval, wc_items

from food_tasks.benchmarks.worldcuisines import layout as wc_layout
from food_tasks.benchmarks.worldcuisines import official
from food_tasks.benchmarks.worldcuisines.data import LANGUAGES

REPO_ROOT = Path(__file__).resolve().parents[2]
MODEL = "toy-vlm"
TASKS = {sub: f"worldcuisines_mcq_smallref_{sub}" for sub in official.SUBTASKS}
GROUP = "worldcuisines_mcq_smallref"


def _answer(qa_id: str, lang: str) -> object:
    """The toy model's answers (gold: 400 -> 1, 401 -> 3, 402 -> 2, 403 -> 2, 404 -> 1, 405 -> 5, 1900 -> 2,
    1901 -> 1): 1a right except qa 400 in Hokkien (no answer, NaN) and Yoruba; 1b right except qa 403 in Yoruba;
    1c's qa 404 (dish 1614) right in English only, qa 405 right; Task 2 right, English answering with the text."""
    if qa_id == "400":
        return math.nan if lang == "nan" else "2" if lang == "yo" else " 1"
    if qa_id == "403" and lang == "yo":
        return "1"
    if qa_id == "404":
        return "1" if lang == "en" else "2"
    if qa_id == "1901" and lang == "en":
        return "Japan"
    return {"401": "3", "402": "2", "403": "2", "405": "5", "1900": "2", "1901": "1"}[qa_id]


def build_official_repo(root: Path) -> Path:
    """The official layout: prompts of test_large and test_small in all 30 languages (the fixture's items; every
    test_small item has its test_large twin), and the toy model's smallref MCQ predictions (official field order,
    Hokkien's code written as NaN as pandas wrote it)."""
    rows = wc_layout.item_rows(wc_items("large"), LANGUAGES) + wc_layout.item_rows(wc_items("small", -400), LANGUAGES)
    staging = wc_layout.write_wc_vqa(root / "staging", rows, with_card=False)
    prompts = root / "repo" / official.PROMPT_DIR
    prompts.parent.mkdir(parents=True)
    (staging / "hf_prompt").rename(prompts)
    result = root / "repo" / official.RESULT_DIR / "small"
    result.mkdir(parents=True)
    for config in ("task1", "task2"):
        lines = []
        for row in (r for r in rows if r["task"] == f"large_{config}"):
            lang = math.nan if row["lang"] == "nan" else row["lang"]
            pred = {"qa_id": row["qa_id"], "prediction": _answer(row["qa_id"], row["lang"]), "lang": lang}
            lines.append(json.dumps(pred | {"multi_choice_answer": row["multi_choice_answer"]}, ensure_ascii=False))
        (root / "repo" / official.pred_path("small", config, "mcq", MODEL)).write_text("\n".join(lines) + "\n")
    return root / "repo"


def _script():
    spec = importlib.util.spec_from_file_location(
        "published_beyond", REPO_ROOT / "scripts/published_beyond_worldcuisines.py"
    )
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    """The reference data of the toy model, as the script builds it, and its work folder (mirror, replay file)."""
    root = tmp_path_factory.mktemp("wc_official")
    repo = build_official_repo(root)
    return _script().build(repo, [MODEL], root / "work"), root / "work"


def test_hand_computed_measures(built):
    data, _ = built
    model = data["models"][0]
    assert model["model"] == MODEL and data["comparable_with"] == GROUP
    task = model["tasks"][TASKS["1a_nocontext"]]
    # 1a: qa 400 wrong in nan (NaN: no answer) and yo, qa 401 right everywhere: 28 languages at 100 %, two at 50 %.
    assert task["acc"]["value"] == pytest.approx((28 * 100 + 50 + 50) / 30)
    assert task["acc"]["n"] == 60 and task["acc"]["clusters"] == 2
    # all languages right: qa 401 only; same option everywhere: qa 401 only (400 has no answer in nan, 2 in yo).
    assert task["xling_all_correct"]["value"] == 50.0 and task["xling_all_correct"]["n"] == 2
    assert task["xling_agreement"]["value"] == 50.0
    # the largest gaps to English: nan and yo, (0 - 1 + 1 - 1) / 2 items = -50 points; then 0, the first by name
    gaps = task["xling_gap_to_en_largest"]
    assert [(g["lang"], g["value"]) for g in gaps] == [("nan", -50.0), ("yo", -50.0), ("ar", 0.0)]
    # Task 2: "Japan" read as option 1 by the robust parser (the official scorer finds no digit)
    assert model["tasks"][TASKS["2_location"]]["acc"]["value"] == 100.0
    assert model["tasks"][TASKS["2_location"]]["acc_official"] == pytest.approx(round((29 * 100 + 50) / 30, 2))
    group = model["group"][GROUP]
    # misled: dish 1614 right in 1a in all 30 languages, wrong in 1c except English -> 29 of 30
    assert group["misled_rate"]["value"] == pytest.approx(100 * 29 / 30) and group["misled_rate"]["n"] == 30
    # hint gain: dish 422 wrong in 1a in nan and yo; in 1b right in nan, wrong in yo -> 1 of 2
    assert group["hint_gain"]["value"] == 50.0 and group["hint_gain"]["n"] == 2
    assert model["files"][0] == {
        "path": f"evaluation/result/small/task1_mc_{MODEL}_pred_small.jsonl",
        "commit": "work tree",
        "url": f"{official.REPOSITORY} (evaluation/result/small/task1_mc_{MODEL}_pred_small.jsonl)",
    }


def _run_results(work: Path) -> dict:
    """What a ``worldcuisines_mcq_smallref`` run of the replay file reports: each document through the task's
    process_results (documents by its process_docs), lmms-eval's per-metric aggregation hook, the pack's
    standard-error step and its end-of-run statistics (food_tasks.lmms.errorbars, as lmms-eval calls them)."""
    from food_tasks.hooks.convention import aggregate
    from food_tasks.lmms import errorbars
    from food_tasks.replay_model import load_responses
    from food_tasks.utils import worldcuisines as hooks

    answers = load_responses(work / f"replay_{MODEL}.jsonl", ("qa_id", "lang"))
    results: dict = {GROUP: {}}
    iters = errorbars.bootstrap_iters(errorbars.LMMS_EVAL_DEFAULT_ITERS)
    process_docs = (hooks.docs_smallref_1a, hooks.docs_smallref_1b, hooks.docs_smallref_1c, hooks.docs_smallref_2)
    for docs_of, task in zip(process_docs, TASKS.values()):
        docs = list(reversed(docs_of(None)))  # any order: the run's numbers do not depend on it
        payloads = [hooks.process_results_mcq(d, [answers[(task, (d["qa_id"], d["lang"]))]]) for d in docs]
        sample_metrics = {(name, "none"): [p[name] for p in payloads] for name in payloads[0]}
        row = {f"{name},none": aggregate(items) for (name, _), items in sample_metrics.items()}
        errorbars.task_statistics(task, sample_metrics, row, iters)
        results[task] = row
    errorbars.finish(results, {GROUP: ({}, list(TASKS.values()))}, None, iters)
    return results


def _same(a: float, b: float) -> bool:
    """Equal, an undefined measure (NaN: RStd where the gold answers sit on one position) equal to itself."""
    return a == b or (math.isnan(a) and math.isnan(b))


def _se(stat: dict) -> object:
    """A standard error as the results file writes it ("N/A" where none)."""
    return stat["se"] if stat["se"] is not None else "N/A"


def test_equal_to_what_a_smallref_run_reports(built, monkeypatch):
    data, work = built
    monkeypatch.setenv("FOOD_TASKS_DATA_DIR", str(work / "mirror"))
    monkeypatch.delenv("FOOD_TASKS_WORLDCUISINES_LANGS", raising=False)
    run = _run_results(work)
    model = data["models"][0]
    for task in TASKS.values():
        ours, row = model["tasks"][task], run[task]
        for name in official.TASK_MEASURES:
            assert _same(ours[name]["value"], row[f"{name},none"]), (task, name)
            assert _se(ours[name]) == row[f"{name}_stderr,none"], (task, name)
            assert (ours[name]["n"], ours[name]["clusters"]) == (row[f"{name}_n,none"], row[f"{name}_clusters,none"])
        assert ours["acc_official"] == row["acc_official,none"]
        assert ours["position_bias_p"] == row["position_bias_p,none"]
        assert ours["position_bias"] == row["position_bias,none"]
        gaps = row["xling_gap_to_en,none"]
        assert ours["xling_gap_to_en_largest"] == [
            {"lang": g["lang"], **gaps[g["lang"]]} for g in ours["xling_gap_to_en_largest"]
        ]
        assert sorted(g["value"] for g in gaps.values())[:3] == [g["value"] for g in ours["xling_gap_to_en_largest"]]
    for name in official.GROUP_MEASURES:
        stat = model["group"][GROUP][name]
        assert _same(stat["value"], run[GROUP][f"{name},none"]), name  # NaN: no pair asked with both hints
        assert _se(stat) == run[GROUP][f"{name}_stderr,none"]
        assert stat["n"] == run[GROUP][f"{name}_n,none"]


@pytest.mark.e2e
def test_equal_to_a_real_lmms_eval_run_of_the_replay_file(built, tmp_path):
    """The same replay file through the lmms-eval CLI (food_tasks_replay, the smallref group, the script's mirror):
    the results file holds the reference data's numbers."""
    data, work = built
    proc, results, _ = run_lmms_eval(
        [
            "--model",
            "food_tasks_replay",
            "--model_args",
            f"responses={work / f'replay_{MODEL}.jsonl'},keys=qa_id+lang",
            "--tasks",
            GROUP,
        ],
        tmp_path / "out",
        env={"FOOD_TASKS_DATA_DIR": str(work / "mirror")},
        unset=("FOOD_TASKS_WORLDCUISINES_LANGS",),  # every language, as the script scores them
    )
    assert results is not None, proc.stdout[-3000:] + proc.stderr[-3000:]
    model, rows = data["models"][0], results["results"]
    for task in TASKS.values():
        for name in official.TASK_MEASURES:
            value = rows[task][f"{name},none"]
            assert _same(model["tasks"][task][name]["value"], math.nan if value is None else value), (task, name)
            assert _se(model["tasks"][task][name]) == rows[task][f"{name}_stderr,none"], (task, name)
        assert model["tasks"][task]["position_bias_p"] == rows[task]["position_bias_p,none"]
    for name in official.GROUP_MEASURES:
        value = rows[GROUP][f"{name},none"]
        assert _same(model["group"][GROUP][name]["value"], math.nan if value is None else value), name
        assert _se(model["group"][GROUP][name]) == rows[GROUP][f"{name}_stderr,none"]


def test_missing_predictions_fail_naming_the_model(tmp_path, capsys, monkeypatch):
    script = _script()
    # main() sets the script's offline variables and private datasets cache in os.environ (it runs as a process):
    # registered here first, they are restored after the test instead of leaking into the session's later tests;
    # datasets reads its cache variable once, on import: imported first, it keeps the session's sandboxed cache.
    import datasets.config  # noqa: F401

    for name in [*script.OFFLINE_ENV, "HF_DATASETS_CACHE", "FOOD_TASKS_WORLDCUISINES_LANGS"]:
        monkeypatch.setenv(name, os.environ.get(name, "")) if name in os.environ else monkeypatch.delenv(name, False)
    repo = build_official_repo(tmp_path)
    (repo / official.pred_path("small", "task2", "mcq", MODEL)).unlink()
    out = tmp_path / "beyond.json"
    code = script.main([str(repo), "--models", MODEL, "-o", str(out), "--workdir", str(tmp_path / "work")])
    assert code == 1 and not out.exists()
    err = capsys.readouterr().err
    assert MODEL in err and "task2_mc_toy-vlm_pred_small.jsonl absent" in err


def test_a_model_without_small_files_is_read_from_its_test_large_files_restricted(built, tmp_path, monkeypatch):
    """A model of official.FROM_LARGE (Qwen2-VL-72B, NVLM-D-72B: no _pred_small files) is read from its test_large
    prediction files, keeping the smallref documents' rows only: rows of other items and languages are dropped, and
    the measures are those of the same rows given as small files."""
    data, _ = built
    root = tmp_path / "large_only"
    repo = build_official_repo(root)
    for config in ("task1", "task2"):
        small = repo / official.pred_path("small", config, "mcq", MODEL)
        rows = small.read_text(encoding="utf-8").splitlines()
        # not smallref documents: an item of no prompt file, and a language the subset does not hold
        extra = [
            json.dumps({"qa_id": "99999", "prediction": "1", "lang": "en", "multi_choice_answer": 1}),
            json.dumps({"qa_id": json.loads(rows[0])["qa_id"], "prediction": "1", "lang": "xx"}),
        ]
        (repo / official.pred_path("large", config, "mcq", MODEL)).write_text("\n".join(extra + rows) + "\n")
        small.unlink()
    monkeypatch.setattr(official, "FROM_LARGE", frozenset({MODEL}))
    script = _script()
    restricted = script.build(repo, [MODEL], root / "work")["models"][0]
    assert [f["path"] for f in restricted["files"]] == [
        f"evaluation/result/{c}_mc_{MODEL}_pred.jsonl" for c in ("task1", "task2")
    ]
    assert all(f["rows"] == "the smallref rows (restricted)" for f in restricted["files"])
    same = script.strict(data["models"][0])  # NaN (an undefined RStd) as null: compared as the file stores it
    assert script.strict(restricted["tasks"]) == same["tasks"] and script.strict(restricted["group"]) == same["group"]


def test_restriction_keeps_rows_in_file_order_by_official_language():
    rows = [
        {"qa_id": "7", "lang": "en", "prediction": "1"},
        {"qa_id": 8, "lang": math.nan, "prediction": "2"},  # Hokkien read by pandas as a missing value
        {"qa_id": "9", "lang": "en", "prediction": "3"},
        {"qa_id": "7", "lang": "fr", "prediction": "4"},
    ]
    kept = official.restrict(rows, {("7", "fr"), ("8", "nan"), ("7", "en")})
    assert [r["prediction"] for r in kept] == ["1", "2", "4"]


def test_restriction_of_real_test_large_rows_is_the_small_file():
    """Rows cut from the official files of GPT-4o (task 1, commit d4d1c44; tests/data/worldcuisines_restrict/README.md):
    its test_large rows of three smallref items and two other items in every language, restricted to the smallref
    documents' keys (built by the smallref tasks' process_docs from the official prompts), are exactly its small
    file's rows of those items."""
    folder = REPO_ROOT / "tests/data/worldcuisines_restrict"
    large = official.parse_jsonl((folder / "task1_mc_gpt-4o-2024-08-06_pred.jsonl").read_bytes())
    small = official.parse_jsonl((folder / "task1_mc_gpt-4o-2024-08-06_pred_small.jsonl").read_bytes())
    keys = {tuple(k) for k in json.loads((folder / "smallref_keys.json").read_text(encoding="utf-8"))}
    kept = official.restrict(large, keys)
    assert len(large) > len(kept) == len(small) > 0

    def key(row: dict) -> tuple:
        return str(row["qa_id"]), official.official_lang(row.get("lang")), row.get("prediction")

    assert sorted(map(key, kept)) == sorted(map(key, small))


def test_shipped_reference_data_names_its_sources():
    """The committed file: the paper's 18 models (16 from their small prediction files, Qwen2-VL-72B and NVLM-D-72B
    from their test_large files restricted to the smallref rows), each with its two prediction files at the
    repository's commit, every task measure with an interval, and the misled rate's control."""
    from food_tasks.tasks.registry import PUBLISHED_DIR

    data = json.loads((PUBLISHED_DIR / "worldcuisines_beyond.json").read_text(encoding="utf-8"))
    assert [m["name"] for m in data["models"]] == list(official.PUBLISHED_MODELS)
    commit = data["source"]["commit"]
    assert len(commit) == 40
    for model in data["models"]:
        assert [f["url"] for f in model["files"]] == [
            f"{official.REPOSITORY}/blob/{commit}/{official.source_path(model['name'], c)}" for c in ("task1", "task2")
        ]
        for task in TASKS.values():
            assert all(model["tasks"][task][m]["se"] is not None for m in official.TASK_MEASURES)
        assert set(model["group"][GROUP]) == set(official.GROUP_MEASURES)
    assert len(data["models"]) == 18 and {"qwen2-vl-72b", "nvlm"} <= {m["name"] for m in data["models"]}


def _report_blocks(tmp_path: Path, metrics: dict, stderr: dict, units: dict) -> list:
    from food_tasks.report.beyond import beyond_blocks
    from food_tasks.report.charts import Charts
    from food_tasks.report.runs import Run
    from food_tasks.report.spec import spec_for

    run = Run("mine", [tmp_path], metrics, stderr=stderr, units=units)
    return beyond_blocks(spec_for(next(iter(metrics))), [run], Charts(tmp_path, enabled=False))


def _tables(blocks: list) -> dict[str, tuple]:
    """Each table by the bold title just above it."""
    return {
        title[1].strip("*"): table
        for title, table in zip(blocks, blocks[1:])
        if title[0] == "p" and title[1].startswith("**") and table[0] == "table"
    }


def test_report_places_a_smallref_run_among_the_published_models(tmp_path):
    task, group = TASKS["1a_nocontext"], GROUP
    gaps = {"yo": {"value": -20.0, "se": 2.0, "clusters": 100}, "fr": {"value": -5.0, "se": 1.0, "clusters": 100}}
    metrics = {
        task: {"xling_all_correct": 40.0, "xling_gap_to_en": gaps, "position_rstd": 3.0, "position_bias_p": 0.2},
        group: {"misled_rate": 25.0},
    }
    stderr = {task: {"xling_all_correct": 5.0, "position_rstd": 1.0}, group: {"misled_rate": 2.0}}
    units = {task: {"xling_all_correct": 100, "position_rstd": 100}, group: {"misled_rate": 90}}
    blocks = _report_blocks(tmp_path, metrics, stderr, units)
    assert ("h", 3, "Beside the published models (paper predictions on the smallref subset)") in blocks
    tables = _tables(blocks)
    # only the measures the run has: no agreement table, no hint gain column
    assert not any("xling_agreement" in t for t in tables)
    header, rows = tables["All languages right (xling_all_correct) % ± 95%"][1:]
    assert header == ["Model", "Source", "1a", "1b", "1c", "2"]
    assert rows[0] == ["**mine**", "this run", "40.00 ± 9.80", "–", "–", "–"]
    # GPT-4o's 1a in the shipped file: 63 of 100 items right in every language, SE 4.8524 -> ± 9.51
    assert rows[1][:3] == ["GPT-4o (2024-08-06)", "paper predictions", "63.00 ± 9.51"]
    assert len(rows) == 1 + len(official.PUBLISHED_MODELS)
    gap_rows = tables["Largest gaps to English (points ± 95%, the three lowest)"][2]
    assert gap_rows[0][2] == "yo -20.00 ± 3.92; fr -5.00 ± 1.96"
    assert gap_rows[1][2].startswith("ko_formal -6.00 ± 6.12; ru_formal -4.00 ± 4.76")
    assert tables["Position bias: RStd % ± 95% (p, chi-square)"][2][0][2] == "3.00 ± 1.96 (p 0.200)"
    context = tables["Context sensitivity"]
    assert context[1] == ["Model", "Source", "Misled rate % ± 95%"]
    assert context[2][0] == ["**mine**", "this run", "25.00 ± 3.92"]
    assert context[2][1][2].startswith("16.40 ± 6.02")  # GPT-4o: 16.40 % of the dish-languages right in 1a
    sources = next(b for b in blocks if b[0] == "details")
    commit = "d4d1c4446f468877c06bbf4e516bbe44993246d0"
    assert sources[3][0][1].startswith(
        f"[task1_mc_gpt-4o-2024-08-06_pred_small.jsonl]({official.REPOSITORY}/blob/{commit}/evaluation/result/small/"
    )


def test_report_shows_no_published_rows_beside_other_variants(tmp_path):
    """The published values are on the smallref items: a packaged-sample (or test_large) run gets no published row,
    only one line naming the task whose run would be placed among them."""
    task = "worldcuisines_mcq_sample_1a_nocontext"
    blocks = _report_blocks(tmp_path, {task: {"xling_all_correct": 40.0}}, {task: {"xling_all_correct": 5.0}}, {})
    assert not any(b[0] == "table" and "paper predictions" in str(b) for b in blocks)
    (line,) = [b for b in blocks if "published models" in str(b)]
    assert line[0] == "p" and "a run of `worldcuisines_mcq_smallref` is placed among them" in line[1]
    assert "18 published models" in line[1]


def test_shipped_misled_rates_beside_their_control():
    """Issue 44's independent check on the published predictions: of the pairs right without context, the share a
    correct hint turns wrong (context loss) against the share a misleading one does (misled rate)."""
    from food_tasks.tasks.registry import PUBLISHED_DIR

    data = json.loads((PUBLISHED_DIR / "worldcuisines_beyond.json").read_text(encoding="utf-8"))
    group = {m["name"]: m["group"][GROUP] for m in data["models"]}
    for name, loss, misled in (("molmoe-1b", 58.6, 65.6), ("qwen-vl-2b", 41.1, 30.8), ("molmo-7b-o", 37.0, 35.8)):
        assert round(group[name]["context_loss_rate"]["value"], 1) == loss, name
        assert round(group[name]["misled_rate"]["value"], 1) == misled, name
        excess = group[name]["misled_excess"]
        assert excess["n"] == group[name]["misled_rate"]["n"]  # every pair right in 1a was asked with both hints
        assert excess["value"] == pytest.approx(misled - loss, abs=0.1)
        assert excess["low"] < 0 < excess["high"]  # no detectable pull of the misleading hint beyond the loss
    # the two models read from their test_large files, restricted: their official small scores, exactly
    for name, scores in (("qwen2-vl-72b", (76.13, 81.63, 67.23, 56.73)), ("nvlm", (75.50, 78.20, 54.67, 54.13))):
        model = next(m for m in data["models"] if m["name"] == name)
        assert tuple(model["tasks"][TASKS[sub]]["acc_official"] for sub in official.SUBTASKS) == scores, name
