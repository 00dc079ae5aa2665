"""First contact (issue 8): the package from the clone root, a results table that fits a terminal,
the replay model's input errors and output folder, the ``food-tasks`` help text."""

from __future__ import annotations

import inspect
import re
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import build_all_languages_mirror, run_lmms_eval

from food_tasks.benchmarks.worldcuisines.data import LANGUAGES
from food_tasks.lmms import results_table

REPO = Path(__file__).resolve().parents[2]


@pytest.mark.slow  # another interpreter
def test_source_tree_resolves_utils_and_yaml_tasks_from_the_clone_root():
    """`python -m ...` from the clone root imports ./food_tasks; its sub-packages resolve to utils/ and yaml_tasks/."""
    code = (
        "import food_tasks.utils.fambench as m, food_tasks.yaml_tasks as y, food_tasks.registration as r; "
        "print(m.__file__, r.task_dir())"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=REPO, timeout=120)
    assert out.stdout.split() == [str(REPO / "utils" / "fambench.py"), str(REPO / "yaml_tasks")], out.stderr


def test_ci_runs_both_readme_commands_verbatim_from_the_clone_root():
    readme = (REPO / "README.md").read_text(encoding="utf-8").splitlines()
    commands = [
        readme[i + 2].strip()
        for i, line in enumerate(readme)
        if line.startswith(("**Run the embedded default**", "**Run the tests**"))
    ]
    assert [c.split(" && ")[-1] for c in commands] == [".venv/bin/food-tasks demo", ".venv/bin/python -m pytest"]
    ci = (REPO / ".ci" / "run").read_text(encoding="utf-8").splitlines()
    assert (
        'cd "$(dirname "$0")/.."' in ci and [line for line in ci if line in commands] == commands
    )  # in the README's order


# --- results table (issue 8.2) ---------------------------------------------------------------------------------


def test_table_note_keeps_scalars_and_summarises_breakdowns():
    assert results_table.note(37.5) == 37.5 and results_table.note(0) == 0 and results_table.note("N/A") == "N/A"
    assert results_table.note({"en": 1.0, "zh_cn": 2.0}) == "[2 keys]"
    assert results_table.note([1, 2, 3]) == "[3 items]"
    assert results_table.note("absent: no CLIP model given (set FOOD_TASKS_CLIP_MODEL to a local CLIP)") == "[absent]"
    assert results_table.note("x" * 30) == "[text]"


def test_compact_touches_only_our_rows_and_never_the_input():
    per_lang = {lang: {"acc": 50.0} for lang in LANGUAGES}
    results = {
        "results": {
            "ours": {"alias": "Ours", "acc,none": 50.0, "per_language,none": per_lang},
            "theirs": {"alias": "Theirs", "detail,none": {"a": 1}},
        },
        "n-shot": {},
    }
    out = results_table.compact(results, "results", {"ours"})
    assert out["results"]["ours"] == {"alias": "Ours", "acc,none": 50.0, "per_language,none": "[30 keys]"}
    assert out["results"]["theirs"] == {"alias": "Theirs", "detail,none": {"a": 1}}
    assert results["results"]["ours"]["per_language,none"] is per_lang and "alias" in results["results"]["ours"]
    assert results_table.compact({"results": {}}, "groups", {"ours"}) == {"results": {}}


def test_lmms_eval_table_function_is_still_what_the_hook_wraps():
    import inspect

    import lmms_eval.models  # noqa: F401  (loads our entry point, which installs the hook)
    import lmms_eval.utils

    from food_tasks.lmms import harness

    assert getattr(lmms_eval.utils.make_table, harness._MARKER, False)
    params = list(inspect.signature(inspect.unwrap(lmms_eval.utils.make_table)).parameters)
    assert params == ["result_dict", "column", "sort_results"], (
        "lmms_eval.utils.make_table changed: update results_table"
    )


@pytest.mark.e2e
def test_30_language_run_prints_a_table_that_fits_a_terminal(tmp_path, monkeypatch):
    monkeypatch.delenv("FOOD_TASKS_WORLDCUISINES_LANGS", raising=False)  # all 30 languages
    root = build_all_languages_mirror(tmp_path / "mirror")
    responses = tmp_path / "r.jsonl"
    responses.write_text('{"lang": "en", "response": "1"}\n')
    proc, results, _ = run_lmms_eval(
        [
            "--model",
            "food_tasks_replay",
            "--model_args",
            f"responses={responses},keys=lang,default=2",
            "--tasks",
            "worldcuisines_mcq",
        ],
        tmp_path / "out",
        env={"FOOD_TASKS_DATA_DIR": str(root)},
    )
    assert results is not None, proc.stdout[-2000:] + proc.stderr[-2000:]
    table = [line for line in proc.stdout.splitlines() if line.startswith("|")]
    assert len(table) > 20 and max(map(len, table)) <= 120, "\n".join(table)
    assert sum("[30 keys]" in line for line in table) == 4  # per_language of the 4 subtasks
    assert results_table.LEGEND in proc.stdout
    # Every row names its group or task (issue 19.1: they all read "see JSON (text)").
    names = {line.split("|")[1].rstrip() for line in table if not line.startswith(("|-", "|  "))}
    assert names == {
        "WorldCuisines MCQ (test_large)",
        " - 1a. Dish Name (No-Context)",
        " - 1b. Dish Name (Contextualized)",
        " - 1c. Dish Name (Adversarial)",
        " - 2. Regional Cuisine",
    }, "\n".join(table)
    # The breakdowns stay in the results JSON. Subtask 1a: gold 1 (qa 400) and 3 (qa 401); English answers
    # "1" (1 of 2 right), every other language the default "2" (0 of 2).
    per_lang = results["results"]["worldcuisines_mcq_1a_nocontext"]["per_language,none"]
    assert set(per_lang) == set(LANGUAGES)
    assert per_lang["en"] == {"n": 2, "acc": 50.0, "acc_official": 50.0, "invalid_rate": 0.0}
    assert per_lang["sc"] == {"n": 2, "acc": 0.0, "acc_official": 0.0, "invalid_rate": 0.0}


# --- food_tasks_replay: input errors, output folder, the shipped example (issue 8.5) -------------------------------


def _replay_error(tmp_path: Path, text: str, keys=("qa_id", "lang"), encoding="utf-8") -> str:
    from food_tasks.replay_model import load_responses

    path = tmp_path / "preds.jsonl"
    path.write_bytes(text.encode(encoding) if isinstance(text, str) else text)
    with pytest.raises(ValueError) as err:
        load_responses(path, keys)
    message = str(err.value)
    assert str(path) in message and "JSON Lines" in message
    return message


def test_replay_errors_name_the_file_line_and_format(tmp_path):
    good = '{"qa_id": "1", "lang": "en", "response": "2"}\n'
    assert "line 3 is not valid JSON (Expecting ',' delimiter, column 15)" in _replay_error(
        tmp_path, good + "\n" + '{"qa_id": "2" "lang": "en"}\n'
    )
    assert "is a JSON array, not JSON Lines; convert it with python -c" in _replay_error(
        tmp_path, '\n[{"qa_id": "1", "lang": "en", "response": "2"}]'
    )
    assert "is a JSON array" in _replay_error(tmp_path, '[\n  {"qa_id": "1", "lang": "en", "response": "2"}\n]\n')
    assert "line 2 is a JSON list, not an object" in _replay_error(tmp_path, good + '["1", "en", "2"]\n')
    assert "line 1 has no 'response' (or 'prediction') field" in _replay_error(
        tmp_path, '{"qa_id": "1", "lang": "en", "answer": "2"}\n'
    )
    assert "line 2 lacks 'lang', named by keys=qa_id+lang" in _replay_error(
        tmp_path, good + '{"qa_id": "1", "response": "2"}\n'
    )
    assert "line 1 is not valid JSON" in _replay_error(
        tmp_path, '{\n  "qa_id": "1", "lang": "en", "response": "2"\n}\n'
    )  # pretty-printed
    assert "line 2 is not UTF-8 text (invalid continuation byte at byte 12 of the line)" in _replay_error(
        tmp_path, (good + '{"qa_id": "é"}\n').encode("latin-1")
    )


def test_replay_refuses_keys_that_do_not_identify_a_document(tmp_path):
    # The shipped example answered by qa_id alone: qa_ids repeat across languages, so a later line would
    # silently overwrite an earlier one (the newcomer check saw acc 100 instead of 77.78).
    rows = '{"qa_id": "1", "lang": "en", "response": "2"}\n{"qa_id": "1", "lang": "zh_cn", "response": "3"}\n'
    message = _replay_error(tmp_path, rows, keys=("qa_id",))
    assert (
        "line 2 repeats the key of line 1 (qa_id='1') with a different answer" in message
        and "keys=qa_id+lang" in message
    )
    from food_tasks.replay_model import load_responses

    same = '{"qa_id": "1", "lang": "en", "response": "2"}\n{"qa_id": "1", "lang": "en", "response": "2"}\n'
    (tmp_path / "same.jsonl").write_text(same)
    assert load_responses(tmp_path / "same.jsonl", ("qa_id", "lang")) == {
        (None, ("1", "en")): "2"
    }  # exact repeats are harmless


def test_replay_reads_bom_null_nan_and_task_scoped_lines(tmp_path):
    from food_tasks.replay_model import load_responses

    path = tmp_path / "preds.jsonl"
    path.write_text(
        '\ufeff{"qa_id": 1, "lang": "en", "response": null}\n\n{"qa_id": "2", "lang": "en", "prediction": NaN}\n'
        '{"task": "t", "qa_id": "3", "lang": "en", "response": 4}\n',
        encoding="utf-8",
    )
    assert load_responses(path, ("qa_id", "lang")) == {
        (None, ("1", "en")): "",
        (None, ("2", "en")): "",
        ("t", ("3", "en")): "4",
    }
    with pytest.raises(FileNotFoundError, match="does not exist.\n  responses= takes a JSON Lines file"):
        load_responses(tmp_path / "nope.jsonl", ("doc_id",))


@pytest.mark.parametrize(
    ("model", "model_args", "folder"),
    [
        (
            "food_tasks_replay",
            "responses=/x/official_preds.jsonl,keys=qa_id+lang",
            "",
        ),  # lmms-eval's rule: no name, no folder
        (
            "food_tasks_replay",
            "responses=preds.jsonl,model_name=Qwen/Qwen2-VL-7B-Instruct",
            "Qwen__Qwen2-VL-7B-Instruct",
        ),
        ("dummy", "responses=preds.jsonl", ""),
    ],
)
def test_replay_results_folder_is_lmms_evals_own_model_name_rule(model, model_args, folder):
    import lmms_eval.models  # noqa: F401  (loads our entry point: it must not change the tracker)
    from lmms_eval.loggers.evaluation_tracker import GeneralConfigTracker

    tracker = GeneralConfigTracker()
    tracker.log_experiment_args(
        model_source=model,
        model_args=model_args,
        system_instruction=None,
        chat_template=None,
        fewshot_as_multiturn=False,
    )
    assert tracker.model_name_sanitized == folder


@pytest.mark.e2e
def test_shipped_replay_example_runs_as_the_readme_says(tmp_path):
    from food_tasks.registration import task_dir

    example = task_dir() / "replay_example.jsonl"
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    assert "responses=$(food-tasks path)/replay_example.jsonl,keys=qa_id+lang,model_name=replay_example" in readme
    proc, results, samples = run_lmms_eval(
        [
            "--model",
            "food_tasks_replay",
            "--model_args",
            f"responses={example},keys=qa_id+lang,model_name=replay_example",
            "--tasks",
            "worldcuisines_mcq_sample_1a_nocontext",
        ],
        tmp_path / "out",
    )
    assert results is not None, proc.stdout[-2000:] + proc.stderr[-2000:]
    assert [p.parent.name for p in (tmp_path / "out").rglob("*_results.json")] == ["replay_example"]
    r = results["results"]["worldcuisines_mcq_sample_1a_nocontext"]
    # Gold 1, 5, 2 for qa 400-402. en: "1", "The answer is 5.", "Melktert" (option text: robust only) -> 3/3,
    # official 2/3; id_formal: "1", "3", null -> 1/3, one invalid; ja_formal: "1", "5", "2" -> 3/3. Macro over the
    # 3 languages.
    assert r["acc,none"] == pytest.approx((100 + 100 / 3 + 100) / 3)
    assert r["acc_official,none"] == pytest.approx(
        round((round(200 / 3, 2) + round(100 / 3, 2) + 100) / 3, 2), abs=0.01
    )
    assert r["invalid_rate,none"] == pytest.approx((0 + 100 / 3 + 0) / 3)
    assert "had no recorded response" not in proc.stdout + proc.stderr  # the example covers every document of 1a


def test_food_tasks_help_has_no_markup(capsys):
    from food_tasks import cli

    for argv in (["--help"], ["demo", "--help"], ["prefetch", "--help"]):
        with pytest.raises(SystemExit):
            cli.main(argv)
        out = capsys.readouterr().out
        assert "``" not in out and "food-tasks" in out


def test_help_fills_in_the_prefetchable_benchmarks(capsys):
    """Issue 29: `food-tasks --help` printed ``({prefetch})`` literally. The prefetch line names the three
    benchmarks with remote files, wrapped under its description column (31: after ``prefetch BENCH`` and spaces)."""
    from food_tasks import cli

    with pytest.raises(SystemExit):
        cli.main(["--help"])
    out = capsys.readouterr().out
    description = out[out.index("food-tasks: ") : out.index("positional arguments")]  # argparse's {path,...} aside
    assert "{" not in description and "}" not in description and not re.search(r"\{\w*\}", out)
    start = out.index("food-tasks prefetch BENCH")
    block = out[start : out.index("food-tasks validate")].splitlines()
    assert all(name in " ".join(block) for name in ("fambench:", "diningbench:", "foodieqa:")), block
    assert len(block) > 1 and all(line.startswith(" " * 31) and line[31] != " " for line in block[1:]), block


def test_help_lists_each_command_once(capsys):
    """Issue 33.8: `food-tasks --help` listed the commands twice (the description's list, then argparse's
    ``{path,list,...}`` with each command's help). Once now; each command's own help keeps its one-line summary."""
    from food_tasks import cli

    with pytest.raises(SystemExit):
        cli.main(["--help"])
    out = capsys.readouterr().out
    # Every command main() defines (rescore was missing from the list).
    commands = tuple(re.findall(r'sub\.add_parser\(\s*"(\w+)"', inspect.getsource(cli._main)))  # main() wraps _main
    assert {"path", "list", "demo", "prefetch", "validate", "report", "compare", "rescore"} <= set(commands)
    for command in commands:
        assert len(re.findall(rf"^\s*(?:food-tasks )?{command}\b", out, re.MULTILINE)) == 1, (command, out)
    assert "{path," not in out and "usage: food-tasks [-h] COMMAND ..." in out
    for command in commands:
        with pytest.raises(SystemExit):
            cli.main([command, "--help"])
        assert capsys.readouterr().out.split("\n\n")[1].strip(), command  # a description under the usage


def test_usage_text_wraps_long_lines_under_their_description_column():
    from food_tasks import cli

    text = "cmd ARG   " + "word " * 6 + "\nshort  line\nnocolumn " + "x " * 8
    assert cli.usage_text(text, width=24).splitlines() == [
        "cmd ARG   word word word",
        "          word word word",
        "short  line",
        "nocolumn x x x x x x x x",
    ]


def test_help_fits_120_columns_on_a_wide_terminal(capsys, monkeypatch):
    """Issue 29.3: no help line over 120 columns, even where the terminal is wider."""
    from food_tasks import cli

    monkeypatch.setenv("COLUMNS", "250")
    for argv in (["--help"], ["prefetch", "--help"], ["validate", "--help"], ["compare", "--help"], ["list", "--help"]):
        with pytest.raises(SystemExit):
            cli.main(argv)
        assert max(map(len, capsys.readouterr().out.splitlines())) <= 120, argv


# --- the demo's own lines (issue 29.1) ----------------------------------------------------------------------------


def _through_bash(lines: list[str], first: str) -> list[str]:
    """The arguments bash reads from a printed command (``first`` stripped from its first line)."""
    text = "\n".join(lines).removeprefix(first)
    out = subprocess.run(["bash", "-c", "printf '%s\\n' " + text], capture_output=True, text=True, check=True)
    return out.stdout.splitlines()


def test_demo_prints_its_own_lines_within_120_columns():
    """The echoed command (~450 columns on one line before), the banner (~160), the epilogue with its "Next"
    command (~280) and the hint about the venv's bin folder (~280) all fit 120 columns."""
    from food_tasks import cli

    model = Path("/home/someone-with-a-long-name/.cache/food_tasks/tiny-qwen2-vl")
    out_dir = Path(cli.DEMO_OUTPUT)
    results = (
        out_dir / "__home__someone-with-a-long-name__.cache__food_tasks__tiny-qwen2-vl/20261126_015500_results.json"
    )
    command = cli.demo_command(model, cli.demo_tasks(), out_dir)
    printed = [
        *cli.demo_banner(command, model, out_dir),
        *cli.demo_epilogue(results, cli.demo_tasks(), hint=cli.path_hint("../some/where/.venv/bin")).splitlines(),
    ]
    assert max(map(len, printed)) <= 120, max(printed, key=len)
    # Both commands stay copy-pastable: what bash reads from the printed lines is the command itself.
    assert (
        _through_bash(printed[: printed.index(next(x for x in printed if not x.endswith("\\"))) + 1], "$ ") == command
    )
    start = next(i for i, x in enumerate(printed) if x.startswith("  lmms-eval "))
    end = next(i for i in range(start, len(printed)) if not printed[i].endswith("\\"))
    assert _through_bash(printed[start : end + 1], "  ") == [
        "lmms-eval",
        "--model",
        "qwen2_vl",
        "--model_args",
        f"pretrained={cli.REAL_MODEL}",
        "--tasks",
        cli.demo_tasks(),
        "--output_path",
        "results/",
        "--log_samples",
    ]
    assert "    source ../some/where/.venv/bin/activate" in printed


def test_demo_epilogue_says_what_the_table_above_shows_in_each_mode(monkeypatch):
    """Issue 29 (demo footnotes): FOOD_TASKS_TABLE=full printed "the table above shows groups and headline
    metrics". The epilogue follows the mode the demo passed to lmms-eval (headline unless the user set one)."""
    from food_tasks import cli
    from food_tasks.lmms.results_table import headline_only

    results, tasks = Path("food_tasks_demo/x/20261126_015500_results.json"), cli.demo_tasks()
    short = cli.demo_epilogue(results, tasks, hint=[], headline=True)
    full = cli.demo_epilogue(results, tasks, hint=[], headline=False)
    assert "groups and headline metrics" in short and "FOOD_TASKS_TABLE=full food-tasks demo" in short
    assert "groups and headline" not in full and "FOOD_TASKS_TABLE" not in full
    assert "the table above shows every task and metric" in full
    assert max(map(len, (short + "\n" + full).splitlines())) <= 120
    # cmd_demo: env.setdefault(TABLE_ENV, "headline"), then headline_only(env) picks the epilogue
    assert headline_only({}) is False and headline_only({"FOOD_TASKS_TABLE": " Headline "}) is True
    assert headline_only({"FOOD_TASKS_TABLE": "full"}) is False
    monkeypatch.setenv("FOOD_TASKS_TABLE", "headline")
    assert headline_only() is True


@pytest.mark.parametrize(
    ("mode", "passed", "says"), [(None, "headline", "groups and headline"), ("full", "full", "every")]
)
def test_demo_passes_the_table_mode_to_lmms_eval_and_its_epilogue_follows_it(
    tmp_path, monkeypatch, capsys, mode, passed, says
):
    """`food-tasks demo` without FOOD_TASKS_TABLE passes ``headline`` to lmms-eval; a user's ``full`` is kept, and
    the epilogue describes the table that mode printed (lmms-eval and the model build replaced by stand-ins)."""
    import json

    from food_tasks import cli
    from food_tasks.lmms import tiny_model

    seen = {}

    def call(command: list[str], env: dict[str, str]) -> int:
        seen["mode"] = env.get(results_table.TABLE_ENV)
        run = tmp_path / "out" / "model"
        run.mkdir(parents=True)
        (run / "20261126_000000_results.json").write_text(json.dumps({"results": {"t": {}}}), encoding="utf-8")
        return 0

    if mode is None:
        monkeypatch.delenv(results_table.TABLE_ENV, raising=False)
    else:
        monkeypatch.setenv(results_table.TABLE_ENV, mode)
    monkeypatch.setattr(cli.subprocess, "call", call)
    monkeypatch.setattr(tiny_model, "build_tiny_qwen2_vl", lambda path: None)
    assert cli.main(["demo", "--tasks", "t", "--output_path", str(tmp_path / "out")]) == 0
    out = capsys.readouterr().out
    assert seen["mode"] == passed and f"(samples beside it; the table above shows {says}" in " ".join(out.split())


def test_demo_reads_the_results_file_its_run_wrote_whatever_its_time(tmp_path, monkeypatch, capsys):
    """Issue 37: the demo kept only results files modified after ``time.time()`` at the start, but a file's time
    comes from the kernel's coarse clock, which lags it: a file written at once could look older than the run
    (the stand-in dates its file a second back, so the lag is certain here). The run's file is the one it created
    or rewrote; an earlier run's file with a later name is not it, and a run that writes none fails."""
    import json
    import os

    from food_tasks import cli
    from food_tasks.lmms import tiny_model

    out = tmp_path / "out"
    stale = out / "model" / "20991231_000000_results.json"  # an earlier run's file (a later name)
    stale.parent.mkdir(parents=True)
    stale.write_text(json.dumps({"results": {}}), encoding="utf-8")
    written: list[Path] = []
    run = {"writes": True}

    def call(command: list[str], env: dict[str, str]) -> int:
        if run["writes"]:
            path = out / "model" / "20261126_000000_results.json"
            path.write_text(json.dumps({"results": {"t": {}}}), encoding="utf-8")
            past = stale.stat().st_mtime - 1
            os.utime(path, (past, past))
            written.append(path)
        return 0

    monkeypatch.setattr(cli.subprocess, "call", call)
    monkeypatch.setattr(tiny_model, "build_tiny_qwen2_vl", lambda path: None)
    assert cli.main(["demo", "--tasks", "t", "--output_path", str(out)]) == 0
    assert str(written[0]) in " ".join(capsys.readouterr().out.split())
    run["writes"] = False  # the next run writes nothing: both earlier files are left as they were
    assert cli.main(["demo", "--tasks", "t", "--output_path", str(out)]) == 1
    assert "lmms-eval wrote no results under" in capsys.readouterr().err


def test_shell_lines_cut_at_argument_boundaries_and_commas_only():
    from food_tasks import cli

    argv = ["prog", "--name", "a b,c", "--list", ",".join(f"item{i:03d}" for i in range(40)), "--flag", "--x", "1"]
    lines = cli.shell_lines(argv, width=60)
    assert _through_bash(lines, "$ ") == argv
    assert max(map(len, lines)) <= 60 and lines[0] == "$ prog --name 'a b,c' \\"  # a quoted word is never cut
    assert lines[1].startswith("    --list item000,") and lines[-1] == "    --flag --x 1"
    # One piece longer than a line (a path) is printed whole: only its line exceeds the width.
    long_path = "/" + "d" * 80
    lines = cli.shell_lines(["prog", "--output_path", long_path, "--log_samples"], width=60)
    assert _through_bash(lines, "$ ") == ["prog", "--output_path", long_path, "--log_samples"]
    assert [len(x) > 60 for x in lines] == [False, True, False]


def test_error_messages_wrap_at_120_columns_and_keep_paths_whole(capsys):
    """Issue 29.2: `food-tasks <cmd>: <error>` was one line (offline prefetch: 415 columns)."""
    from food_tasks import cli

    path = "/data/" + "/".join(["a-rather-long-folder-name"] * 6) + "/classification.jsonl"  # 160 characters
    message = f"meituan/DiningBench: {path} is not in the cache and the Hub cannot be reached; " + "word " * 40
    lines = cli.error_lines("prefetch", message + "\nsecond line: set FOOD_TASKS_DATA_DIR")
    assert lines[0].startswith("food-tasks prefetch: meituan/DiningBench:") and lines[1] == "  " + path
    assert all(line.startswith("  ") for line in lines[1:]) and lines[-1] == "  second line: set FOOD_TASKS_DATA_DIR"
    assert [len(line) <= 120 for line in lines] == [line != "  " + path for line in lines]  # only the path is longer
    assert " ".join(" ".join(lines).split()) == " ".join(f"food-tasks prefetch: {message} second line: set".split()) + (
        " FOOD_TASKS_DATA_DIR"
    )
    # main prints what a command raises that way, on stderr, and exits 1.
    assert cli.main(["compare", "/nowhere/a", "/nowhere/b"]) != 0
    err = capsys.readouterr().err.splitlines()
    assert err[0].startswith("food-tasks compare:") and max(map(len, err)) <= 120
