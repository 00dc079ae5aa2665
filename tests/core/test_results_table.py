"""The printed results table (issue 19.1, 19.2): every row of ours names its task or group, breakdowns are
short notes (regional tasks too), and a run of any benchmark's tasks fits a 120-column terminal."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from food_tasks.lmms import results_table
from food_tasks.lmms.results_table import LABEL_WIDTH, compact, label, note, ours_in, render
from food_tasks.registration import task_dir
from food_tasks.tasks import taskgen


class _Loader(getattr(yaml, "CSafeLoader", yaml.SafeLoader)):  # libyaml: ten times faster on our 276 YAMLs
    pass


_Loader.add_constructor("!function", lambda loader, node: None)


def _config(path: Path) -> dict:
    """A shipped YAML with its ``include:`` template merged in (the file's own keys win)."""
    config = yaml.load(path.read_text(encoding="utf-8"), Loader=_Loader) or {}
    if "include" in config:
        base = _config(path.parent / config.pop("include"))
        base.update(config)
        config = base
    return config


def shipped() -> dict[str, dict]:
    """name -> {"alias", "metrics", "members", "benchmark"} for every task and group YAML we ship."""
    out = {}
    for path in sorted(task_dir().rglob("*.yaml")):
        config = _config(path)
        if "group" in config:
            members = config.get("task") if isinstance(config.get("task"), list) else [config.get("task")]
            out[config["group"]] = {
                "alias": config.get("group_alias"),
                "members": [m for m in members if isinstance(m, str)],
                "metrics": [m["metric"] for m in config.get("aggregate_metric_list") or []],
                "benchmark": path.parent.name,
            }
        elif "task" in config:
            out[config["task"]] = {
                "alias": config.get("task_alias"),
                "members": [],
                "benchmark": path.parent.name,
                "metrics": [m["metric"] for m in config.get("metric_list") or []],
            }
    return out


def _depth(name: str, rows: dict[str, dict]) -> int:
    """How deep lmms-eval nests ``name`` in a run of all its benchmark's groups (the longest chain of parents)."""
    parents = [g for g, row in rows.items() if name in row["members"]]
    return 1 + max(_depth(p, rows) for p in parents) if parents else 0


def test_note_keeps_scalars_and_summarises_breakdowns_in_brackets():
    assert note(37.5) == 37.5 and note(0) == 0 and note("N/A") == "N/A"
    assert note({"en": 1.0, "zh_cn": 2.0}) == "[2 keys]" and note([1, 2, 3]) == "[3 items]"
    assert note("absent: no CLIP model given (set FOOD_TASKS_CLIP_MODEL to a local CLIP)") == "[absent]"
    assert note("x" * 30) == "[text]"
    assert all(len(line) <= 120 for line in results_table.LEGEND.splitlines())


@pytest.mark.parametrize(
    ("name", "alias", "shown"),
    [
        ("worldcuisines_mcq_1a_nocontext", " - 1a. Dish Name (No-Context)", " - 1a. Dish Name (No-Context)"),
        ("worldcuisines_mcq", "WorldCuisines MCQ (test_large)", "WorldCuisines MCQ (test_large)"),
        # The two prompts of the food500cap group: aliases longer than the column give way to the names.
        ("food500cap_caption", " - Food-500 Cap captioning (test split, generic prompt)", " - food500cap_caption"),
        (
            "food500cap_caption_food",
            " - Food-500 Cap captioning (test split, food-aware prompt)",
            " - food500cap_caption_food",
        ),
        (
            "diningbench_nutrition_zh_cot",
            "DiningBench nutrition estimation (Chinese, 1 view: reference photo, CoT (non-official))",
            "diningbench_nutrition_zh_cot",
        ),
        (
            "regional_example_mcq",
            "regional_example_mcq",
            "regional_example_mcq",
        ),  # lmms-eval's alias of an unaliased task
        ("t", "  - x" * 20, "  - t"),  # deeper tree marks kept
        ("t", None, "t"),
        ("t", "", "t"),
    ],
)
def test_label_is_the_alias_when_short_else_the_name(name, alias, shown):
    assert label(name, alias) == shown


def test_compact_names_rows_and_notes_breakdowns_of_ours_only():
    per_lang = {str(i): {"acc": 50.0} for i in range(30)}
    results = {
        "results": {
            "ours": {
                "alias": "Ours, with an alias much longer than the column allows",
                "acc,none": 50.0,
                "per_language,none": per_lang,
            },
            "theirs": {"alias": "Theirs, with an alias much longer than the column allows", "detail,none": {"a": 1}},
        },
        "n-shot": {},
    }
    out = compact(results, "results", {"ours"})
    assert out["results"]["ours"] == {"alias": "ours", "acc,none": 50.0, "per_language,none": "[30 keys]"}
    assert out["results"]["theirs"] == results["results"]["theirs"]  # not ours: as lmms-eval prints it
    assert results["results"]["ours"]["per_language,none"] is per_lang and results["results"]["ours"][
        "alias"
    ].startswith("Ours")
    assert compact({"results": {}}, "groups", {"ours"}) == {"results": {}}


def test_regional_tasks_and_groups_made_of_ours_are_ours():
    # Regional tasks live in the user's folders (--include_path): their config's metadata.regional says so.
    results = {
        "results": {
            "my_group": {"alias": "my_group", "acc,none": 40.0},
            "dishes_mcq": {"alias": " - dishes_mcq", "acc,none": 40.0, "acc_by_language,none": {"en": 33.3, "fr": 0.0}},
            "mixed": {"alias": "mixed", "acc,none": 1.0},
            "other": {"alias": "other", "acc_by,none": {"a": 1}},
        },
        "configs": {
            "dishes_mcq": {"task": "dishes_mcq", "metadata": {"version": 1.0, "regional": {"format": "mcq"}}},
            "other": {"task": "other", "metadata": {"version": 1.0}},
        },
        "group_subtasks": {
            "my_group": ["dishes_mcq", "worldcuisines_mcq"],
            "mixed": ["dishes_mcq", "other"],
            "dishes_mcq": [],
        },
        "n-shot": {},
    }
    assert ours_in(results, {"worldcuisines_mcq"}) == {"worldcuisines_mcq", "dishes_mcq", "my_group"}
    table = render(__import__("lmms_eval.utils").utils.make_table, results, "results", False, {"worldcuisines_mcq"})
    rows = [line for line in table.splitlines() if line.startswith("|")]
    assert any(r.startswith("| - dishes_mcq") and "acc_by_language" in r and "[2 keys]" in r for r in rows), table
    assert any("acc_by" in r and "{'a': 1}" in r for r in rows)  # not ours: inline, as lmms-eval prints it
    assert table.endswith(results_table.LEGEND)


def test_no_legend_without_notes():

    results = {"results": {"t": {"alias": "t", "acc,none": 1.0}}, "n-shot": {}}
    assert "[N keys]" not in render(_lmms_eval_make_table(), results, "results", False, {"t"})


@pytest.mark.slow  # lmms-eval renders hundreds of rows: seconds
@pytest.mark.parametrize("benchmark", sorted({row["benchmark"] for row in shipped().values()}))
def test_a_run_of_every_task_of_a_benchmark_names_each_row_and_fits_a_terminal(benchmark):
    """Every task and group of one benchmark in one table, each metric of its YAML with the widest note a
    breakdown prints: each row shows its alias or its name, within 120 characters."""

    rows = shipped()
    names = [n for n, row in rows.items() if row["benchmark"] == benchmark]
    results: dict = {"results": {}, "n-shot": {}, "group_subtasks": {n: rows[n]["members"] for n in names}}
    expected = {}
    for name in names:
        depth = _depth(name, rows)
        alias = (" " * depth + "- " if depth else "") + (rows[name]["alias"] or name)
        results["results"][name] = {
            "alias": alias,
            **{f"{m},none": {str(k): 1.0 for k in range(30)} for m in rows[name]["metrics"]},
        }
        expected[name] = label(name, alias)
        assert expected[name].strip(" -") in (rows[name]["alias"], name)
        assert len(expected[name].strip(" -")) <= max(LABEL_WIDTH, len(name))
    table = render(_lmms_eval_make_table(), results, "results", False, set(rows))
    lines = [line for line in table.splitlines() if line.startswith("|")][2:]
    assert lines and {line.split("|")[1].rstrip() for line in lines} == {
        expected[n] for n in names if rows[n]["metrics"]
    }
    wide = [line for line in table.splitlines() if len(line) > 120]
    assert not wide, "\n".join(wide[:5])


def test_every_shipped_task_and_group_prints_its_alias():
    """One naming rule for every row: each task and group we ship has an alias of at most LABEL_WIDTH characters,
    so the table shows aliases only (a row under its raw name is a regional task's long alias)."""
    rows = shipped()
    assert LABEL_WIDTH == taskgen.ALIAS_WIDTH
    missing = sorted(n for n, row in rows.items() if not row["alias"] or label(n, row["alias"]) != row["alias"])
    assert not missing, missing[:10]


def test_members_of_each_shipped_group_print_distinct_labels():
    """A group's rows are told apart by their labels (the Food-500 Cap group's two prompts, for example)."""
    rows = shipped()
    for group, row in rows.items():
        shown = [label(m, rows[m]["alias"] or m) for m in row["members"] if m in rows]
        assert len(set(shown)) == len(shown), (group, shown)


GOLDEN_SAMPLE_RUN = Path(__file__).resolve().parents[1] / "pins" / "golden" / "A_results.json"


def _lmms_eval_make_table():  # type: ignore[no-untyped-def]
    """lmms-eval's own make_table: the function itself, not our wrap of it (food_tasks.lmms.harness.install_table puts
    the wrap in place once any test of this worker has loaded our plugin, and render would then run twice)."""
    import lmms_eval.utils

    return getattr(lmms_eval.utils.make_table, "__wrapped__", lmms_eval.utils.make_table)


def _sample_table(monkeypatch, mode: str) -> str:
    import json

    from food_tasks.registration import our_names

    monkeypatch.setenv(results_table.TABLE_ENV, mode)
    data = json.loads(GOLDEN_SAMPLE_RUN.read_text(encoding="utf-8"))
    return "\n".join(
        render(_lmms_eval_make_table(), data, column, False, our_names()) for column in ("results", "groups")
    )


def test_counts_breakdowns_and_diagnostics_print_no_arrow(monkeypatch):
    """Issue 29.1: arrows on scores only (a Metric scale of count, breakdown or info prints none)."""
    rows = {
        (c[1].strip(), c[4].strip()): c[5].strip()
        for c in (line.split("|") for line in _sample_table(monkeypatch, "full").splitlines())
        if len(c) > 6
    }
    metric = {m: arrow for (_, m), arrow in rows.items()}
    for name in (
        "mean_caption_words",
        "reference_mean_words",
        "image_missing",
        "ctc_pairs",
        "per_condition",
        "per_language",
    ):
        assert metric[name] == "", name
    assert metric["acc"] == "↑" and metric["calories_mae"] == "↓" and metric["parse_fail_rate"] == "↓"


def test_every_score_prints_its_arrow_the_context_measures_too(monkeypatch):
    """Issue 29 (arrows): misled_rate (a share misled: lower is better) and hint_gain (a share helped: higher is
    better) are computed across a group's tasks, in no metric_list: lmms-eval printed them without an arrow.
    Every metric of the full sample table now has an arrow unless its scale is a count, breakdown or info."""
    arrows: dict[str, set[str]] = {}
    for c in (line.split("|") for line in _sample_table(monkeypatch, "full").splitlines()):
        if len(c) > 6 and c[4].strip() not in ("Metric", "") and not set(c[4]) <= set("-:"):
            arrows.setdefault(c[4].strip(), set()).add(c[5].strip())
    for name in ("misled_rate", "misled_rate_same_image"):
        assert arrows[name] == {"↓"}, name
    for name in ("hint_gain", "hint_gain_same_image"):
        assert arrows[name] == {"↑"}, name
    # Scales count, breakdown or info (food_tasks.hooks.convention.Metric.scale): no arrow.
    no_arrow = set(
        "captions_cut ctc_pairs ctc_pool gold_missing image_missing mean_caption_words range_values"
        " reference_mean_words per_category per_condition per_language per_question_type"
        " per_question_type_paper_protocol per_region position_bias position_bias_p xling_by_lang_status"
        " xling_gap_to_en".split()
    )
    assert {m for m, shown in arrows.items() if shown == {""}} == no_arrow


def test_a_declared_direction_never_overrides_lmms_evals_own():
    """The context measures' direction fills a gap only: a direction lmms-eval has for a row is kept."""
    results = {
        "results": {"g": {"alias": "g", "misled_rate,none": 10.0, "hint_gain,none": 5.0}},
        "higher_is_better": {"g": {"hint_gain": False}},
    }
    assert compact(results, "results", {"g"})["higher_is_better"]["g"] == {"hint_gain": False, "misled_rate": False}


def test_the_demo_table_is_groups_and_headlines_within_a_screen(monkeypatch):
    """Issue 29.3: FOOD_TASKS_TABLE=headline (what `food-tasks demo` passes) prints groups and each task's headline
    metric: the packaged sample run in a screen, no line over 120 columns, and says where the rest is."""
    full, short = _sample_table(monkeypatch, "full"), _sample_table(monkeypatch, "headline")
    assert len(full.splitlines()) > 150 and len(short.splitlines()) <= 30, short
    assert max(map(len, short.splitlines())) <= 120 and results_table.HEADLINE_NOTE in short
    assert "| - " not in short and "calories_mae" in short and "acc_official" not in short


def _rate_first(row: dict) -> dict:
    """``row`` with its ``invalid_rate`` keys first, as lmms-eval orders a WorldCuisines MCQ group row."""
    first = {k: v for k, v in row.items() if k.startswith("invalid_rate")}
    return {**first, **{k: v for k, v in row.items() if k not in first}}


def _cells(table: str, label_: str) -> list[list[str]]:
    return [[c.strip() for c in line.split("|")[1:-1]] for line in table.splitlines() if line.startswith(f"|{label_}")]


def test_a_group_headline_is_its_declared_first_aggregate_metric_whatever_the_row_order(monkeypatch):
    """Issue 29 (demo table): a group row whose first key is ``invalid_rate`` (lmms-eval's order in the demo) shows
    ``acc``, the first of ``_worldcuisines_mcq_sample.yaml``'s aggregate_metric_list, as `food-tasks compare` does;
    WorldCuisines OEQ shows ``acc_multi`` (its list's first), not ``acc_dual`` (the alphabetically first)."""
    import json

    from food_tasks.registration import our_names

    monkeypatch.setenv(results_table.TABLE_ENV, "headline")
    data = json.loads(GOLDEN_SAMPLE_RUN.read_text(encoding="utf-8"))
    data["groups"]["worldcuisines_mcq_sample"] = _rate_first(data["groups"]["worldcuisines_mcq_sample"])
    assert next(iter(data["groups"]["worldcuisines_mcq_sample"])) == "invalid_rate,none"
    table = render(_lmms_eval_make_table(), data, "groups", False, our_names())
    # The golden group row: acc 11.1111 (4 of 36 documents right: 100 * 4 / 36), standard error 5.7135.
    assert _cells(table, "WorldCuisines MCQ (sample)") == [
        ["WorldCuisines MCQ (sample)", "none", "", "acc", "↑", "11.1111", "±", "5.7135"]
    ]
    assert [c[3] for c in _cells(table, "WorldCuisines OEQ (sample)")] == ["acc_multi"]
    assert results_table.group_headline("worldcuisines_mcq_sample", data) == "acc"


def test_a_group_not_shipped_takes_its_first_member_tasks_headline():
    """A user's group over our tasks has no YAML of ours: its headline is its first member's (``acc`` for the MCQ
    task, whatever the order of the group row), never the row's first key."""
    results = {
        "groups": {"my_group": {"alias": "my_group", "invalid_rate,none": 50.0, "acc,none": 25.0}},
        "results": {"worldcuisines_mcq_sample_1a_nocontext": {"acc,none": 25.0, "invalid_rate,none": 50.0}},
        "configs": {"worldcuisines_mcq_sample_1a_nocontext": {"task": "worldcuisines_mcq_sample_1a_nocontext"}},
        "group_subtasks": {"my_group": ["worldcuisines_mcq_sample_1a_nocontext"]},
    }
    names = {"worldcuisines_mcq_sample_1a_nocontext"}
    out = compact(results, "groups", names, only_headline=True)
    assert out["groups"]["my_group"] == {"alias": "my_group", "acc,none": 25.0}


def test_the_headline_note_is_printed_once_and_a_group_row_in_the_groups_table_only(monkeypatch):
    """Issue 29 (demo footnotes): in headline mode the note follows the Groups table only (the last table
    lmms-eval prints), and the three sample groups are rows of the Groups table, not of the Tasks table too.
    The full table keeps lmms-eval's layout (a group heads its tasks in the Tasks table) and prints no note."""
    short, full = _sample_table(monkeypatch, "headline"), _sample_table(monkeypatch, "full")
    assert short.count(results_table.HEADLINE_NOTE) == 1 and short.rstrip().endswith(results_table.HEADLINE_NOTE)
    full_tasks, full_groups = full.split("|          Groups")
    for group in ("FoodieQA (sample)", "WorldCuisines MCQ (sample)", "WorldCuisines OEQ (sample)"):
        assert len(_cells(short, group)) == 1, group
        assert _cells(full_tasks, group) and _cells(full_groups, group), group  # lmms-eval's: in both
    tasks_table = short[: short.index("|          Groups")]
    assert len([line for line in tasks_table.splitlines() if line.startswith("|")]) == 2 + 5  # the 5 lone tasks
    assert results_table.HEADLINE_NOTE not in full


def test_without_a_groups_table_the_note_and_the_groups_stay_under_the_tasks_table(monkeypatch):
    """lmms-eval prints no Groups table when the results have no ``groups`` key: a group row of ours then stays in
    the Tasks table, and the note follows it."""

    monkeypatch.setenv(results_table.TABLE_ENV, "headline")
    results = {
        "results": {
            "my_group": {"alias": "my_group", "invalid_rate,none": 50.0, "acc,none": 25.0},
            "worldcuisines_mcq_sample_1a_nocontext": {"alias": " - 1a", "acc,none": 25.0},
        },
        "group_subtasks": {"my_group": ["worldcuisines_mcq_sample_1a_nocontext"]},
        "n-shot": {},
    }
    table = render(_lmms_eval_make_table(), results, "results", False, {"worldcuisines_mcq_sample_1a_nocontext"})
    assert _cells(table, "my_group") and table.count(results_table.HEADLINE_NOTE) == 1


def test_the_legend_is_printed_once_under_the_last_table(monkeypatch):
    """The Tasks and the Groups tables both print breakdowns ("[N keys]"): the legend follows the Groups table only
    (it was printed under each table, so twice in a run or re-score with groups)."""
    full = _sample_table(monkeypatch, "full")
    tasks_table, groups_table = full.split("|          Groups")
    assert " keys]" in tasks_table and " keys]" in groups_table
    assert full.count(results_table.LEGEND) == 1 and full.rstrip().endswith(results_table.LEGEND)
    # A note in the Tasks table alone still gets the legend, under the Groups table.
    results = {
        "results": {"dishes": {"alias": "dishes", "acc_by_region,none": {"a": 1.0, "b": 0.0}}},
        "groups": {"g": {"alias": "g", "acc,none": 50.0}},
        "group_subtasks": {"g": ["dishes"]},
        "configs": {"dishes": {"task": "dishes", "metadata": {"regional": {"format": "mcq"}}}},
        "n-shot": {},
    }
    tables = [render(_lmms_eval_make_table(), results, c, False, set()) for c in ("results", "groups")]
    assert "[2 keys]" in tables[0] and results_table.LEGEND not in tables[0]
    assert tables[1].endswith(results_table.LEGEND)
