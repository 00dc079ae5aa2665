"""Regional answer kinds and slices from the YAML alone (issue 43, items 4 and 5): several correct options, accepted
aliases, numbers with a tolerance, text-only tasks and rows, list-valued and filled slices; each example of
examples/regional/ run through lmms-eval with the replay model and checked against a hand computation."""

from __future__ import annotations

import json
import math
import shutil
import statistics
from pathlib import Path

import pytest

from food_tasks.cli import main as cli_main
from food_tasks.regional_tasks import answers
from food_tasks.regional_tasks import check as regional_check
from food_tasks.regional_tasks import scoring as regional_scoring
from food_tasks.regional_tasks import slices as regional_slices

ROOT = Path(__file__).resolve().parents[2]
EXAMPLE = ROOT / "examples" / "regional"
LABELS = ("A", "B", "C", "D")
OPTIONS = ("Miso", "Dashi", "Kombu", "Rice and beans")


# --------------------------------------------------------------------------- parsers (cases of our own)


@pytest.mark.parametrize(
    "output, chosen",
    [
        ("B, C", {1, 2}),
        ("c and b", {1, 2}),
        ("The correct answers are B and C. A is a soup.", {1, 2}),
        ("Answer: [B] [C]", {1, 2}),
        ("\\boxed{B, D}", {1, 3}),
        ("Ｂ，Ｃ", {1, 2}),  # full-width letters and comma
        ("Dashi; Kombu", {1, 2}),  # option texts
        ("rice and beans", {3}),  # an option text holding a separator, as the whole answer
        ("B, B, C", {1, 2}),  # a repeat counts once
        ("<think>A? no</think>C", {2}),
        ("B or C", None),  # a hedge
        ("Either B, or C", None),
        ("B, E", None),  # E is no option of four
        ("I would say B and C", None),  # a piece that is neither label nor option: never a guess
        ("<think>B, C", None),  # unterminated reasoning
        ("", None),
        (["B"], None),  # not a string
    ],
)
def test_several_options_are_read_as_a_set(output, chosen):
    got = answers.extract_choices(output, LABELS, OPTIONS)
    assert (set(got) if got is not None else None) == chosen


@pytest.mark.parametrize(
    "output, number",
    [
        ("42", 42.0),
        ("About 350 kcal per serving", 350.0),
        ("Answer: 2.5 (roughly 2-3)", 2.5),
        ("The total is 1,250 g.", 1250.0),
        ("\\boxed{-4}", -4.0),
        ("\u22127", -7.0),  # the Unicode minus sign
        ("４２", 42.0),  # full-width digits
        ("٣", 3.0),  # an Arabic-Indic digit
        ("12 or 13", None),  # two different numbers, no statement
        ("Between 1,000 and 2,000", None),
        ("7 and 7", 7.0),  # the same number twice is one answer
        ("no idea", None),
        ("<think>5", None),
        (3.0, None),  # not a string
    ],
)
def test_a_number_is_read_or_refused(output, number):
    assert answers.extract_number(output) == number


def test_tolerance_is_absolute_or_relative():
    tol = {"absolute": 2, "relative": 0.1}
    assert answers.within(102, 100, tol) and answers.within(109.9, 100, tol) and not answers.within(111, 100, tol)
    assert answers.within(4.5, 2, tol) is False and answers.within(4, 2, tol)  # |2| <= 2 (absolute)
    assert answers.within(5, 5, {}) and not answers.within(5.0001, 5, {})  # no tolerance: equal
    assert answers.within(-9.5, -10, {"relative": 0.05})  # relative to |gold|


@pytest.mark.timeout(60)
def test_parsers_are_linear_on_runaway_output():
    for size in (200_000, 400_000):
        assert answers.extract_number("8 " * size) == 8.0
        assert answers.extract_number("-" * size) is None
        assert answers.extract_choices("B, " * size, LABELS, OPTIONS) == frozenset([1])
        assert answers.extract_choices("(" * size, LABELS, OPTIONS) is None


# --------------------------------------------------------------------------- settings: every key named


@pytest.mark.parametrize(
    "extra, problem",
    [
        ({"tolerance": 0.5}, "metadata.regional.tolerance: give a mapping, e.g. {absolute: 0.5, relative: 0.05}"),
        ({"tolerance": {"abs": 1}}, "metadata.regional.tolerance.abs: unknown key (known: absolute, relative)"),
        ({"tolerance": {"relative": -0.1}}, "metadata.regional.tolerance.relative: -0.1 is not a number of at least 0"),
        ({"tolerance": {"absolute": True}}, "metadata.regional.tolerance.absolute: true is not a number of at least 0"),
        ({"image_optional": "yes"}, "metadata.regional.image_optional: 'yes' is not true or false"),
        (
            {"image_optional": True},
            "metadata.regional.image_optional: name the image column in metadata.regional.image",
        ),
        ({"slice_fill": ""}, "metadata.regional.slice_fill: give the slice value of an empty slice cell, e.g. unknown"),
        (
            {"slice_fill": "n/a"},
            "metadata.regional.slice_fill: no slices to fill; name them in metadata.regional.slices",
        ),
    ],
)
def test_new_keys_are_checked_by_name(extra, problem):
    block = {"format": "numeric", "question": "q", "answer": "a", **extra}
    assert problem in "\n".join(regional_scoring.settings_problems({"regional": block}))


def test_tolerance_belongs_to_numeric_tasks_and_headline_to_the_judge():
    open_ = {"format": "open", "question": "q", "answer": "a"}
    assert regional_scoring.settings_problems({"regional": {**open_, "tolerance": {"absolute": 1}}}) == [
        "metadata.regional.tolerance: only numeric tasks (format: numeric) have one; remove it"
    ]
    assert regional_scoring.settings_problems({"regional": {**open_, "judge": {"headline": "yes"}}}) == [
        "metadata.regional.judge.headline: 'yes' is not true or false"
    ]
    s = regional_scoring.Settings.from_metadata({"regional": {**open_, "judge": {"headline": True, "max_tokens": 4}}})
    assert s.judge_headline and s.judge is not None and s.judge.max_tokens == 4
    assert not regional_scoring.Settings.from_metadata({"regional": {**open_, "judge": True}}).judge_headline
    multi = {"format": "multi", "question": "q", "answer": "a"}
    assert regional_scoring.settings_problems({"regional": multi}) == [
        "metadata.regional.options: name a list column, or list two or more option columns"
    ]


def test_default_prompts_of_the_new_kinds():
    multi = regional_scoring.Settings.from_metadata(
        {"regional": {"format": "multi", "question": "q", "answer": "a", "options": "o"}}
    )
    row = {"q": "Which are broths?", "o": ["Miso", "Dashi"], "a": ["B"]}
    assert regional_scoring.doc_text(multi, row) == (
        "Which are broths?\nA. Miso\nB. Dashi\nMore than one option may be correct. Answer with the letters of all "
        "correct options, separated by commas."
    )
    numeric = regional_scoring.Settings.from_metadata(
        {"regional": {"format": "numeric", "question": "q", "answer": "a"}}
    )
    assert regional_scoring.doc_text(numeric, {"q": "How many?", "a": 3}) == "How many?\nAnswer with a number only."


# --------------------------------------------------------------------------- rows: problems and records


def _settings(fmt: str, **extra) -> regional_scoring.Settings:
    block = {"format": fmt, "id": "id", "question": "q", "answer": "a", **extra}
    if fmt in ("mcq", "multi"):
        block.setdefault("options", "o")
    return regional_scoring.Settings.from_metadata({"regional": block})


def test_answer_problems_of_each_kind():
    multi, numeric, mcq = _settings("multi"), _settings("numeric"), _settings("mcq")
    opts = ["Miso", "Dashi", "Kombu"]
    assert regional_scoring.answer_problem(multi, {"o": opts, "a": ["A", "Kombu"]}) is None
    assert regional_scoring.answer_problem(multi, {"o": opts, "a": '["a", "D", "Nori"]'}) == (
        "answer 'D', 'Nori': neither a label (A/B/C) nor the text of one option"
    )
    assert regional_scoring.answer_problem(multi, {"o": opts, "a": []}) == "missing answer"
    assert regional_scoring.answer_problem(multi, {"o": opts, "a": "A, C"}) == (
        'answer \'A, C\': neither a label (A/B/C) nor the text of one option (several answers are a list: ["A", "C"])'
    )
    assert regional_scoring.answer_problem(mcq, {"o": opts, "a": ["A", "C"]}) == (
        "answer \"['A', 'C']\": several answers; a task with several correct options is format: multi"
    )
    assert regional_scoring.answer_problem(numeric, {"a": "12.5"}) is None
    assert regional_scoring.answer_problem(numeric, {"a": "about 12"}) == "answer 'about 12' is not a number"
    assert regional_scoring.answer_problem(numeric, {"a": None}) == "missing answer"
    with pytest.raises(regional_scoring.RegionalConfigError, match=r"row n1: answer 'x' is not a number; run"):
        regional_scoring.score(numeric, {"id": "n1", "q": "?", "a": "x"}, "3")


def test_records_of_the_new_kinds():
    multi = _settings("multi")
    row = {"id": "1", "q": "?", "o": ["Miso", "Dashi", "Kombu"], "a": ["B", "C"]}
    assert regional_scoring.score(multi, row, "C, B") | {} == {
        "id": "1",
        "slices": {},
        "parsed": True,
        "correct": True,
        "pred": "B,C",
    }
    assert regional_scoring.score(multi, row, "B")["correct"] is False  # a subset: no partial credit
    assert regional_scoring.score(multi, row, "A, B, C")["correct"] is False  # a superset
    assert regional_scoring.score(multi, row, "B or C")["parsed"] is False
    numeric = _settings("numeric", tolerance={"relative": 0.1})
    got = regional_scoring.score(numeric, {"id": "2", "q": "?", "a": 200}, "About 215 g")
    assert (got["parsed"], got["correct"], got["pred"], got["abs_error"]) == (True, True, 215.0, 15.0)
    got = regional_scoring.score(numeric, {"id": "2", "q": "?", "a": 200}, "200 or 300")
    assert (got["parsed"], got["correct"], got["abs_error"]) == (False, False, None)


def test_list_valued_and_filled_slices(tmp_path):
    s = _settings("open", slices=["area"], slice_fill="unknown")
    rows = [
        ({"id": "1", "q": "?", "a": "x", "area": ["Asia", "Europe"]}, "x"),
        ({"id": "2", "q": "?", "a": "x", "area": '["Asia"]'}, "y"),  # a JSON list cell (CSV)
        ({"id": "3", "q": "?", "a": "x", "area": None}, "x"),  # empty: the fill value
        ({"id": "4", "q": "?", "a": "x", "area": ["Europe", "", "Europe"]}, "x"),  # empty and repeated values
    ]
    records = [regional_scoring.score(s, d, out) for d, out in rows]
    assert [r["slices"]["area"] for r in records] == [["Asia", "Europe"], ["Asia"], "unknown", ["Europe"]]
    table = regional_scoring.metric_table(s)
    # Asia: rows 1 (right), 2 (wrong) -> 50; Europe: rows 1, 4 (both right) -> 100; unknown: row 3 -> 100
    assert table["acc_by_area"](records) == {"Asia": 50.0, "Europe": 100.0, "unknown": 100.0}
    assert table["n_by_area"](records) == {"Asia": 2, "Europe": 2, "unknown": 1}  # 5 memberships for 4 rows
    assert table["acc"](records) == 75.0  # every row once
    assert regional_slices.slice_values("", None) == [] and regional_slices.slice_values([], "u") == ["u"]


def test_validate_names_an_empty_slice_without_a_fill_and_accepts_one_with_it(tmp_path):
    folder = tmp_path / "t"
    shutil.copytree(EXAMPLE, folder, ignore=shutil.ignore_patterns("*.yaml", "*.py", "group"))
    text = (EXAMPLE / "regional_example_numeric.yaml").read_text(encoding="utf-8")
    (folder / "ok.yaml").write_text(text, encoding="utf-8")
    assert regional_check.validate(folder / "ok.yaml") == []
    (folder / "ok.yaml").unlink()
    (folder / "bad.yaml").write_text(text.replace("    slice_fill: unspecified", ""), encoding="utf-8")
    data = folder / "dishes_numeric.csv"
    assert [p.replace(str(data), "D") for p in regional_check.validate(folder / "bad.yaml")] == [
        "D: row 1 (id n-01), column 'region': empty slice value",
        "D: row 2 (id n-02), column 'region': empty slice value",
    ]


def test_validate_names_an_empty_image_unless_it_is_optional(tmp_path):
    folder = tmp_path / "t"
    shutil.copytree(EXAMPLE, folder, ignore=shutil.ignore_patterns("*.yaml", "*.py", "group"))
    text = (EXAMPLE / "regional_example_aliases.yaml").read_text(encoding="utf-8")
    (folder / "bad.yaml").write_text(text.replace("    image_optional: true", ""), encoding="utf-8")
    data = folder / "dishes_aliases.jsonl"
    assert [p.replace(str(data), "D") for p in regional_check.validate(folder / "bad.yaml")] == [
        f"D: row {n} (id a-0{n}), column 'image': no image" for n in (2, 4, 5)
    ]


def test_validate_the_new_examples(capsys, monkeypatch):
    monkeypatch.chdir(ROOT)
    names = ["multi", "numeric", "aliases", "open_judged_headline"]
    yamls = [f"examples/regional/regional_example_{n}.yaml" for n in names]
    assert cli_main(["validate", *yamls]) == 0
    out = " ".join(capsys.readouterr().out.split())
    assert "format multi, every row has its question, options and answer; 4 image(s) opened; slices: cuisine (6" in out
    assert "format numeric, every row has its question and answer; 0 image(s) opened; slices: region (3 values)" in out
    assert "format open, every row has its question and answer; 2 image(s) opened; slices: source (2 values)" in out


# --------------------------------------------------------------------------- the examples through lmms-eval

MULTI = {"m-01": "A, B", "m-02": "A", "m-03": "Answer: A, B and D.", "m-04": "A or D"}
NUMERIC = {"n-01": "100 °C", "n-02": "9", "n-03": "The answer is 1,050 g.", "n-04": "12", "n-05": "between 3 and 5"}
ALIASES = {
    "a-01": "Fried rice",
    "a-02": "It's called nigiri.",
    "a-03": "ＭＡＰＯ　ＴＯＦＵ",
    "a-04": "Focaccia",
    "a-05": "",
}


@pytest.fixture(scope="module")
def kinds_run(tmp_path_factory):
    from conftest import run_lmms_eval

    tmp = tmp_path_factory.mktemp("kinds")
    lines = [{"id": k, "response": v} for answers_ in (MULTI, NUMERIC, ALIASES) for k, v in answers_.items()]
    preds = tmp / "preds.jsonl"
    preds.write_text("\n".join(json.dumps(x, ensure_ascii=False) for x in lines) + "\n", encoding="utf-8")
    tasks = "regional_example_multi,regional_example_numeric,regional_example_aliases"
    args = ["--model", "food_tasks_replay", "--model_args", f"responses={preds},keys=id", "--include_path"]
    proc, results, samples = run_lmms_eval([*args, str(EXAMPLE), "--tasks", tasks], tmp / "out")
    assert results is not None, proc.stderr[-3000:]
    return proc, results, samples, tmp


def _se(values: list[float]) -> float:
    """The CLT standard error of a mean, each row its own unit (ddof 1)."""
    return statistics.stdev(values) / math.sqrt(len(values))


@pytest.mark.e2e
def test_the_multi_example_by_hand(kinds_run):
    _, results, samples, _ = kinds_run
    got = results["results"]["regional_example_multi"]
    # m-01 {A,B} right; m-02 {A} a subset: wrong; m-03 {A,B,D} right; m-04 "A or D": a hedge, unparsed (wrong)
    right = [1, 0, 1, 0]
    assert got["acc,none"] == pytest.approx(50.0)
    assert got["acc_stderr,none"] == pytest.approx(100 * _se(right))
    assert got["parse_fail_rate,none"] == pytest.approx(25.0)
    # cuisine lists: m-01 Indonesia+Malaysia, m-02 Mexico+United States, m-03 Japan, m-04 Japan+Nigeria
    assert got["acc_by_cuisine,none"] == pytest.approx(
        {"Indonesia": 100.0, "Malaysia": 100.0, "Mexico": 0.0, "United States": 0.0, "Japan": 50.0, "Nigeria": 0.0}
    )
    assert got["n_by_cuisine,none"] == {
        "Indonesia": 1,
        "Japan": 2,
        "Malaysia": 1,
        "Mexico": 1,
        "Nigeria": 1,
        "United States": 1,
    }
    rows = {s["acc"]["id"]: s["acc"] for s in samples["regional_example_multi"]}
    assert rows["m-03"]["pred"] == "A,B,D" and rows["m-04"]["pred"] is None


@pytest.mark.e2e
def test_the_numeric_example_by_hand(kinds_run):
    _, results, _, _ = kinds_run
    got = results["results"]["regional_example_numeric"]
    # tolerance: within 5, or within 10 % of the answer.
    # n-01 100 = 100 right (error 0); n-02 9 = 9 right (0); n-03 1050 vs 1000: error 50 <= 100 (10 %) right;
    # n-04 12 vs 3: error 9 > 5 and > 0.3 wrong; n-05 "between 3 and 5": two numbers, unparsed (wrong)
    right, errors = [1, 1, 1, 0, 0], [0.0, 0.0, 50.0, 9.0]
    assert got["acc,none"] == pytest.approx(60.0)
    assert got["acc_stderr,none"] == pytest.approx(100 * _se(right))
    assert got["abs_error,none"] == pytest.approx(59 / 4)  # over the four parsed answers
    assert got["abs_error_stderr,none"] == pytest.approx(_se(errors))
    assert got["abs_error_n,none"] == 4
    assert got["parse_fail_rate,none"] == pytest.approx(20.0)
    # region: n-01, n-02 empty -> slice_fill "unspecified" (both right); Europe n-03 right; North America n-04, n-05
    assert got["acc_by_region,none"] == pytest.approx({"Europe": 100.0, "North America": 0.0, "unspecified": 100.0})
    assert got["n_by_region,none"] == {"Europe": 1, "North America": 2, "unspecified": 2}
    assert "image_missing,none" not in got  # a text-only task: no image column


@pytest.mark.e2e
def test_the_aliases_example_by_hand(kinds_run):
    _, results, samples, _ = kinds_run
    got = results["results"]["regional_example_aliases"]
    # a-01 "Fried rice" equals the alias "fried rice": exact and right; a-02 "It's called nigiri." contains "nigiri":
    # right, not exact; a-03 full-width "ＭＡＰＯ　ＴＯＦＵ" is "mapotofu" after NFKC, case and spaces: exact;
    # a-04 "Focaccia": wrong; a-05 "": unparsed. Rows a-02, a-04, a-05 have no image: asked with their text alone.
    assert got["acc,none"] == pytest.approx(60.0)
    assert got["exact_match,none"] == pytest.approx(40.0)
    assert got["exact_match_stderr,none"] == pytest.approx(100 * _se([1, 0, 1, 0, 0]))
    assert got["parse_fail_rate,none"] == pytest.approx(20.0)
    assert got["text_only,none"] == 3 and got["image_missing,none"] == 0
    assert got["acc_by_source,none"] == pytest.approx({"photo": 100.0, "text": 100 / 3})
    assert len(samples["regional_example_aliases"]) == 5


@pytest.mark.e2e
def test_the_printed_table_points_to_the_slice_values(kinds_run):
    proc, _, _, _ = kinds_run
    table = [line for line in proc.stdout.splitlines() if line.startswith("|")]
    assert any("acc_by_cuisine" in line and "[6 keys]" in line for line in table)
    assert "food-tasks report" in proc.stdout.split(table[-1], 1)[1]  # the pointer under the table


@pytest.mark.e2e
def test_report_and_compare_read_the_new_kinds(kinds_run, capsys):
    _, results, _, tmp = kinds_run
    out = tmp / "out"
    assert cli_main(["compare", str(out), str(out), "--all"]) == 0
    text = capsys.readouterr().out
    assert "abs_error" in text  # a paired difference of the mean absolute error (0 against itself)
    assert cli_main(["report", str(out), "-o", str(tmp / "report")]) == 0
    md = (tmp / "report" / "report.md").read_text(encoding="utf-8")
    numeric = md.split("\n## Task `regional_example_numeric`\n", 1)[1].split("\n## ", 1)[0]
    row = results["results"]["regional_example_numeric"]
    # 14.75 ± 1.96 se would cross 0 (an absolute error cannot be negative): the report prints the interval the results
    # file stores for it (the cluster bootstrap's percentile interval), within range
    assert 14.75 - 1.959963984540054 * row["abs_error_stderr,none"] < 0
    ci = row["abs_error_stderr_ci,none"]
    assert ci["low"] >= 0 and f"| `abs_error` | 14.75 [{ci['low']:.2f}, {ci['high']:.2f}]" in numeric
    multi = md.split("\n## Task `regional_example_multi`\n", 1)[1].split("\n## ", 1)[0]
    assert "| Japan | 50.00" in multi and "['" not in multi  # one row per cuisine, never a list's Python text


def test_contributing_names_every_key_and_kind():
    text = (ROOT / "CONTRIBUTING.md").read_text(encoding="utf-8")
    for key in sorted(regional_scoring.SETTING_KEYS):
        assert f"`{key}`" in text, key
    for key in ("prompt", "max_tokens", "temperature", "headline", "absolute", "relative"):
        assert f"`{key}`" in text, key
    for fmt in regional_scoring.FORMATS:
        assert f"| `{fmt}` |" in text, fmt  # a row of the answer kinds' table
    for metric in ("abs_error", "text_only", "judge_acc_by_<column>", "judge_n_by_<column>"):
        assert f"`{metric}`" in text, metric
    assert "[docs/judge.md](docs/judge.md)" in text and "FOOD_TASKS_JUDGE_WORKERS" in text
