"""Zero-flag registration with lmms-eval, the wheel layout, the CLI and the YAML generator.

If a newer lmms-eval breaks the hook, these tests fail loudly (the pin in pyproject.toml says why).
"""

from __future__ import annotations

import importlib
import inspect
import os
import re
import runpy
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest
import sandbox

from food_tasks import registration
from food_tasks.benchmarks import BENCHMARKS
from food_tasks.tasks import catalogue
from food_tasks.tasks.catalogue import names as yaml_names

REPO = Path(__file__).resolve().parents[2]
NAMES = [b.name for b in BENCHMARKS]
# Every task and group name of ours starts with a benchmark's name, or with food_tasks (the root sample group).
# Each benchmark's own tests pin its names and count (tests/<bench>/test_<bench>_tasks.py, ..._registration.py).
PREFIXES = (*NAMES, "food_tasks")


def test_lmms_eval_still_has_what_the_hook_wraps():
    from lmms_eval.models.registry_v2 import ModelRegistryV2
    from lmms_eval.tasks import TaskManager

    params = inspect.signature(TaskManager.initialize_tasks).parameters
    assert {"include_path", "include_defaults"} <= set(params), "TaskManager.initialize_tasks changed: update the hook"
    assert list(inspect.signature(TaskManager.load_task_or_group).parameters)[1:] == ["task_list", "task_type"]
    assert "group" in inspect.signature(ModelRegistryV2.load_entrypoint_manifests).parameters


def test_entry_point_is_declared_and_installs_hook_idempotently():
    from importlib.metadata import entry_points

    from food_tasks.lmms import harness

    eps = [ep for ep in entry_points(group="lmms_eval.models") if ep.name == "food_tasks"]
    assert eps and eps[0].value == "food_tasks.registration:lmms_eval_plugin"
    manifests = eps[0].load()()
    assert [m.model_id for m in manifests] == ["food_tasks_replay"]
    task_dir = str(registration.task_dir())
    assert harness.install(task_dir, registration.our_names) and harness.install(task_dir, registration.our_names)


@pytest.mark.slow  # indexes lmms-eval's 3,700 YAMLs unless the session already did
def test_task_manager_indexes_our_tasks_without_include_path_and_keeps_builtins_first():
    import inprocess
    import lmms_eval.models  # noqa: F401  (what the CLI imports before building its TaskManager)
    from lmms_eval.tasks import TaskManager

    inprocess.cache_lmms_eval_task_index()  # lmms-eval's own folder indexed once per process (ours afresh)

    tm = TaskManager("ERROR")
    ours = {n for n in tm.all_tasks if n.startswith(PREFIXES)}
    declared = {name for name, _, _ in yaml_names()}  # every task and group our YAML files declare
    assert ours == declared, (sorted(declared - ours), sorted(ours - declared))
    assert {t for b in BENCHMARKS for t in b.sample_tasks} <= ours
    assert {bench for _, _, bench in yaml_names()} == set(NAMES)  # one YAML folder per registered benchmark
    from food_tasks.lmms.harness import with_dir

    assert with_dir(None, str(registration.task_dir())) == [str(registration.task_dir())]
    # Built-ins are indexed first and win any clash; none of our names collides with one.
    builtin_dir = Path(inspect.getfile(TaskManager)).parent
    builtin = TaskManager("ERROR", include_defaults=True, include_path=None)._get_task_and_group(str(builtin_dir) + "/")
    assert not ours & set(builtin)
    assert "mme" in tm.all_tasks


def test_the_sessions_index_cache_sits_beneath_our_task_index_wrapper():
    """The test session's cache of lmms-eval's own task index (tests/speedups/lmms_eval_index.py) wraps lmms-eval's
    public ``TaskManager.initialize_tasks`` beneath our plugin's wrapper, installed when ``lmms_eval.tasks`` is
    imported: the wrapper sees the whole index (lmms-eval's tasks and ours), as in a user's process."""
    import lmms_eval.models  # noqa: F401  (its entry point is our plugin, which wraps initialize_tasks)
    from lmms_eval.tasks import TaskManager

    registration.lmms_eval_plugin()
    outer = TaskManager.initialize_tasks
    inner = getattr(outer, "__wrapped__", None)
    assert inner is not None and "food_tasks_tests_cache" in vars(inner)  # the cache, beneath the plugin's wrapper
    assert getattr(inner, "__wrapped__", None) is None  # and lmms-eval's own method beneath the cache


@pytest.mark.slow  # PyYAML's pure-Python loader on our folder: seconds
def test_our_folder_indexed_through_libyaml_is_the_index_lmms_eval_builds():
    """harness.fast_index parses our YAMLs with libyaml while lmms-eval indexes: the index is the one lmms-eval's
    own loader gives, and lmms-eval's loader is back afterwards."""
    import lmms_eval.utils
    from lmms_eval.tasks import TaskManager

    from food_tasks.lmms import harness

    folder = str(registration.task_dir())
    manager = TaskManager("ERROR", include_defaults=False)
    calls = []
    original = lmms_eval.utils.load_yaml_config

    def counting(*args, **kwargs):  # type: ignore[no-untyped-def]
        calls.append(kwargs.get("yaml_config") is not None)
        return original(*args, **kwargs)

    lmms_eval.utils.load_yaml_config = counting
    try:
        slow = manager._get_task_and_group(folder)
        with harness.fast_index(folder):
            fast = manager._get_task_and_group(folder)
            assert lmms_eval.utils.load_yaml_config is not counting
    finally:
        lmms_eval.utils.load_yaml_config = original
    assert fast == slow and len(slow) >= len(yaml_names())
    # Without it, lmms-eval parsed every file itself; with it, each of our files came parsed.
    assert calls.count(True) >= len(yaml_names()) and calls.count(False) >= len(yaml_names())


def test_a_yaml_parsed_once_is_handed_out_fresh_and_parsed_again_when_it_changes(tmp_path):
    """harness._parsed keeps each parsed file per process: lmms-eval edits what it gets (it deletes ``include``
    and reverses the include list), so every call gets its own dicts and lists; an edited file is read again."""
    import lmms_eval.utils

    from food_tasks.lmms import harness

    loader = harness._simple_loader(lmms_eval.utils.ignore_constructor)
    path = tmp_path / "t.yaml"
    path.write_text("include: [a.yaml, b.yaml]\ntask: t\nprocess_results: !function utils.p\n")
    first = harness._parsed(str(path), loader)
    first["include"].reverse()
    del first["task"]
    second = harness._parsed(str(path), loader)
    assert second["include"] == ["a.yaml", "b.yaml"] and second["task"] == "t"
    assert second["process_results"].tag == "!function"  # what lmms-eval's index reads a !function as (a node)
    path.write_text("task: renamed\n")
    os.utime(path, ns=(1, 1))  # a different size and modification time
    assert harness._parsed(str(path), loader) == {"task": "renamed"}


# What `python -m lmms_eval --tasks list` does, then whether each lmms-eval name our hook wraps is wrapped: one fresh
# interpreter per setting of FOOD_TASKS_AUTOREGISTER (entry points are read once per process) proves both.
FRESH_LIST = """
import runpy, sys
sys.argv = ["lmms-eval", "--tasks", "list"]
try:
    runpy.run_module("lmms_eval", run_name="__main__", alter_sys=True)
    code = 0
except SystemExit as stop:
    code = stop.code
import lmms_eval.models
from food_tasks.lmms import harness
names = [(m, p) for m, p, why in harness.HARNESS_API if why.startswith("wrapped")]
print("wrapped:", [getattr(harness.resolve(m, p), harness._MARKER, False) for m, p in names])
sys.exit(code)
"""


@pytest.fixture(scope="module")
def fresh_listings(tmp_path_factory) -> dict[str, tuple[str, str, int]]:
    """``FOOD_TASKS_AUTOREGISTER`` value -> (stdout, stderr, exit status) of :data:`FRESH_LIST` run afresh."""
    cwd = tmp_path_factory.mktemp("fresh_list")
    env = dict(os.environ, HF_HUB_OFFLINE="1")
    values = ("1", "0")
    # Started together: half the wait on 2 cores.
    procs = [
        subprocess.Popen(
            [sys.executable, "-c", FRESH_LIST],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            env={**env, "FOOD_TASKS_AUTOREGISTER": value},
            cwd=cwd,
        )
        for value in values
    ]
    return {value: (*p.communicate(timeout=300), p.returncode) for value, p in zip(values, procs)}


@pytest.mark.e2e
def test_cli_lists_our_tasks_with_no_flag_and_can_be_disabled(fresh_listings):
    # One task of each benchmark (its first in file order): listed with no flag, gone when switched off.
    first = {}
    for name, kind, bench in yaml_names():
        if kind == "task":
            first.setdefault(bench, name)
    assert set(first) == set(NAMES)
    (on_out, on_err, on_code), (off_out, off_err, off_code) = fresh_listings["1"], fresh_listings["0"]
    assert on_code == 0 and off_code == 0, on_err[-2000:] + off_err[-2000:]
    assert all(name in on_out + on_err for name in first.values()), first
    assert not any(name in off_out + off_err for name in first.values()), first


@pytest.mark.e2e
def test_opt_out_installs_no_wrap(fresh_listings):
    from food_tasks.lmms import harness

    assert sum(why.startswith("wrapped") for _, _, why in harness.HARNESS_API) == 12
    for value, expected in (("0", [False] * 12), ("1", [True] * 12)):
        out, err, _ = fresh_listings[value]
        assert out.strip().splitlines()[-1] == f"wrapped: {expected}", err[-2000:]


# WorldCuisines full-size circular tasks: 4 or 5 rotations per question, known only from the data.
SUBTASKS = ("1a_nocontext", "1b_contextualized", "1c_adversarial", "2_location")


def test_food_tasks_cli_path_and_list(capsys):
    from food_tasks import cli

    assert cli.main(["path"]) == 0
    assert Path(capsys.readouterr().out.strip()) == registration.task_dir()
    assert cli.main(["list"]) == 0
    listing = capsys.readouterr().out.splitlines()
    rows = yaml_names()
    assert len(listing) == 5 + len(rows) + len(BENCHMARKS) and listing[len(rows) + 1].startswith("docs: ")
    samples = cli._samples(catalogue.entries())
    groups = {name: members for name, kind, _, members in catalogue.entries() if kind == "group"}
    sizes = {}
    sources = listing[len(rows) + 4 :]
    for (name, kind, bench), line in zip(rows, listing[1:]):
        assert line.split()[:3] == [name, kind, bench], line
        record = next((b for b in BENCHMARKS if b.name == bench), None)
        if record is not None:  # each task's size and every row's source come from its benchmark's record
            # Issue 19.6: packaged samples need neither network nor access; they do not show the remote source.
            # Issue 29.3: the source is named once, in the legend below the table (the rows fit 120 columns).
            assert line.split()[-1] == ("sample" if name in samples else bench), line
            shown = line.split()[3]
            sizes[name] = None if shown == "?" else int(shown)  # "?": the record cannot count it without the data
            if kind == "task":
                assert sizes[name] == record.documents(name), line
                assert sizes[name] is not None or name.endswith(tuple(f"_circular_{s}" for s in SUBTASKS)), line
    assert any(
        line.split()[:1] == ["sample:"] and cli.SAMPLE_SOURCE.startswith(" ".join(line.split()[1:])) for line in sources
    )
    legend = " ".join(sources)
    assert all(" ".join(b.source.split()) in " ".join(legend.split()) for b in BENCHMARKS), sources
    assert max(map(len, listing)) <= 120
    assert {t for b in BENCHMARKS for t in b.sample_tasks} < samples and "foodieqa_textqa_zh_sample_p2" in samples
    assert not any(s in samples for s in ("worldcuisines_mcq", "foodieqa_textqa_zh_p2", "fambench_task1"))
    for group, members in groups.items():  # issue 19.6: a group's documents are its tasks' (an empty column before)
        known = [sizes[m] for m in members]
        assert sizes[group] == (None if None in known else sum(known)), group
    assert "foodieqa_sivqa_en_sample_circular_p3" in samples and "worldcuisines_mcq_sample_circular" in samples


@pytest.mark.parametrize("bench", NAMES)
def test_generated_yaml_matches_committed(tmp_path, bench):
    from food_tasks.tasks import taskgen

    gen = REPO / "yaml_tasks" / bench / "_generate_configs.py"
    taskgen.write(runpy.run_path(str(gen), run_name="not_main")["render"](), tmp_path)
    for path in tmp_path.iterdir():
        committed = REPO / "yaml_tasks" / bench / path.name
        assert committed.read_text() == path.read_text(), f"{path.name} drifted: rerun {gen}"
    generated = {p.name for p in tmp_path.iterdir()}
    committed = {
        p.name for p in (REPO / "yaml_tasks" / bench).iterdir() if p.suffix == ".yaml" or p.name.endswith("_yaml")
    }
    assert not committed - generated, (
        f"committed YAML files the generator no longer writes: {sorted(committed - generated)}"
    )


def _function_refs(paths) -> list[str]:  # type: ignore[no-untyped-def]
    import yaml

    class _Loader(getattr(yaml, "CSafeLoader", yaml.SafeLoader)):  # libyaml: ten times faster on our 276 YAMLs
        pass

    refs: list[str] = []
    _Loader.add_constructor("!function", lambda loader, node: refs.append(loader.construct_scalar(node)))
    for path in paths:
        yaml.load(path.read_text(), Loader=_Loader)
    return refs


def test_every_yaml_hook_resolves_and_has_one_definition_grep_finds():
    """Every `!function` target of our YAML exists and is defined by name (``def name`` or ``name =``) in its
    module's source: no hook minted through globals() or a module __getattr__."""
    paths = [p for p in (REPO / "yaml_tasks").rglob("*") if p.suffix == ".yaml" or p.name.endswith("_yaml")]
    refs = sorted(set(_function_refs(paths)))
    assert len(refs) > 150
    for ref in refs:
        module_name, name = ref.rsplit(".", 1)
        module = importlib.import_module(module_name)
        assert callable(getattr(module, name)), ref
        source = Path(inspect.getsourcefile(module)).read_text(encoding="utf-8")
        assert len(re.findall(rf"^(?:def {name}\(|class {name}\b|{name} = )", source, re.M)) == 1, (
            f"{ref}: no single definition"
        )


def test_every_metric_aggregates_through_the_one_hook():
    paths = [p for p in (REPO / "yaml_tasks").rglob("*") if p.suffix == ".yaml" or p.name.endswith("_yaml")]
    aggregations = [
        r
        for r in _function_refs(paths)
        if r.startswith(("food_tasks.hooks.convention.", "food_tasks.utils."))
        and not r.rsplit(".", 1)[1].startswith(("docs_", "doc_to_", "process_results"))
    ]
    assert set(aggregations) == {"food_tasks.hooks.convention.aggregate"}


def test_sample_data_matches_its_generator(tmp_path):
    from food_tasks.sample_data import SAMPLE_ROOT, build

    build.build(tmp_path)
    written = [p for p in tmp_path.rglob("*") if p.is_file() and p.suffix in (".jsonl", ".json", ".png")]
    assert len(written) > 20
    for path in written:
        assert (SAMPLE_ROOT / path.relative_to(tmp_path)).read_bytes() == path.read_bytes(), path


def test_demo_runs_every_benchmarks_sample_tasks():
    """`food-tasks demo` runs the packaged sample tasks of the registry records (a new benchmark's record is
    enough: no shared task list to edit)."""
    from food_tasks.cli import demo_tasks

    expected = [t for b in BENCHMARKS for t in b.sample_tasks]
    assert demo_tasks().split(",") == expected and len(set(expected)) == len(expected)
    assert set(expected) <= {name for name, _, _ in yaml_names()}
    assert not (REPO / "yaml_tasks" / "_food_tasks_sample.yaml").exists()


@pytest.mark.e2e
def test_wheel_has_one_top_level_name_and_runs_in_a_fresh_venv(tmp_path):
    # Built from a copy: setuptools writes build/ and *.egg-info/ into the source folder (never into the clone).
    source = tmp_path / "source"
    shutil.copytree(
        REPO,
        source,
        ignore=shutil.ignore_patterns(
            ".git",
            ".venv",
            "build",
            "*.egg-info",
            "__pycache__",
            ".pytest_cache",
            "food_tasks_demo",
            "food_tasks_report",
            "results",
            "report",
        ),
    )
    subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "wheel",
            "--no-deps",
            "--no-build-isolation",
            "-q",
            "-w",
            str(tmp_path),
            str(source),
        ],
        check=True,
        capture_output=True,
    )
    wheel = next(tmp_path.glob("food_tasks-*.whl"))
    names = zipfile.ZipFile(wheel).namelist()
    assert {n.split("/")[0] for n in names if not n.split("/")[0].endswith(".dist-info")} == {"food_tasks"}
    # Every benchmark's package, hook module and published numbers; every file of the task directory and of the
    # packaged sample data (YAML templates, stubs, images, archives).
    for bench in BENCHMARKS:
        assert (
            f"food_tasks/benchmarks/{bench.name}/__init__.py" in names and f"food_tasks/utils/{bench.name}.py" in names
        )
        assert bench.published is None or f"food_tasks/report_data/{bench.published}" in names
    shipped = {
        "food_tasks/yaml_tasks": REPO / "yaml_tasks",
        "food_tasks/sample_data": REPO / "food_tasks" / "sample_data",
    }
    for prefix, folder in shipped.items():
        files = [p for p in folder.rglob("*") if p.is_file() and "__pycache__" not in p.parts]
        assert len(files) > 20
        missing = [
            str(p.relative_to(folder)) for p in files if f"{prefix}/{p.relative_to(folder).as_posix()}" not in names
        ]
        assert not missing, f"not in the wheel: {missing}"

    # A fresh venv that sees lmms-eval & co. through a .pth file but has only the wheel of our package.
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True)
    site = next((venv / "lib").glob("python*/site-packages"))
    outer = [p for p in sys.path if p.endswith("site-packages")]
    (site / "outer.pth").write_text("\n".join(outer) + "\n")
    with zipfile.ZipFile(wheel) as zf:
        zf.extractall(site)
    python = str(venv / "bin" / "python")
    # The venv sees only the wheel: a PYTHONPATH of the test process (a clone's source folders) must not leak in.
    fresh = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    where = subprocess.run(
        [python, "-c", "import food_tasks.utils.worldcuisines as m; print(m.__file__)"],
        capture_output=True,
        text=True,
        check=True,
        cwd=tmp_path,
        env=fresh,
    )
    assert where.stdout.startswith(str(site))

    from conftest import run_lmms_eval

    responses = tmp_path / "r.jsonl"
    responses.write_text('{"lang": "en", "response": "1"}\n')  # other languages get default=1
    proc, results, _ = run_lmms_eval(
        [
            "--model",
            "food_tasks_replay",
            "--model_args",
            f"responses={responses},keys=lang,default=1",
            "--tasks",
            "worldcuisines_mcq_sample_1a_nocontext",
        ],
        tmp_path / "out",
        python=python,
        unset=("PYTHONPATH",),
        as_user=True,  # as a user's process: lmms-eval indexes its own tasks and imports `evaluate` itself
    )
    assert results is not None, proc.stdout[-2000:] + proc.stderr[-2000:]
    assert results["results"]["worldcuisines_mcq_sample_1a_nocontext"]["acc,none"] == pytest.approx(
        100 / 3
    )  # gold 1 for one of 3 items

    assert "food_tasks/yaml_tasks/replay_example.jsonl" in names  # the documented food_tasks_replay example (README.md)

    # From the clone root (issue 8.1): `python -m` puts the cwd first on sys.path, so the source folder
    # ./food_tasks is imported instead of the wheel; it must resolve food_tasks.utils / .yaml_tasks itself.
    where = subprocess.run(
        [
            python,
            "-c",
            "import food_tasks.utils.worldcuisines as m, food_tasks.yaml_tasks as y; print(m.__file__, y.__file__)",
        ],
        capture_output=True,
        text=True,
        cwd=REPO,
        env=fresh,
    )
    assert where.stdout.split() == [
        str(REPO / "utils" / "worldcuisines.py"),
        str(REPO / "yaml_tasks" / "__init__.py"),
    ], where.stderr
    proc, results, _ = run_lmms_eval(
        [
            "--model",
            "food_tasks_replay",
            "--model_args",
            f"responses={responses},keys=lang,default=1",
            "--tasks",
            "worldcuisines_mcq_sample_1a_nocontext",
        ],
        tmp_path / "out_root",
        python=python,
        cwd=REPO,
        # lmms-eval sees one folder besides the venv: tests/speedups, whose sitecustomize gives it the session's
        # index of lmms-eval's own tasks (tests/sandbox.py); it holds no module of ours. (The run above is a user's.)
        env={"PYTHONPATH": str(sandbox.SPEEDUPS)},
    )
    assert results is not None, proc.stdout[-2000:] + proc.stderr[-2000:]
    assert results["results"]["worldcuisines_mcq_sample_1a_nocontext"]["acc,none"] == pytest.approx(100 / 3)


def test_each_hooks_tables_are_declared_on_its_benchmarks_record():
    """Issue 42: a run read back resolves a task's metric tables from its benchmark's record
    (``Benchmark.tables``), never by importing the hook module its YAML names; the declared tables are the hook's own
    (the same objects), for every task YAML we ship."""
    import subprocess
    import sys

    from food_tasks.lmms.facts import tables_for
    from food_tasks.tasks import catalogue

    checked = 0
    for name, path in sorted(catalogue.index().items()):
        hook = catalogue.function(catalogue.yaml_key(path, "process_results"))
        if hook is not None:
            assert [id(t) for t in tables_for(name)] == [id(t) for t in hook.tables], name
            checked += 1
    assert checked > 100
    code = (
        "import sys\nfrom food_tasks.tasks import catalogue\nfrom food_tasks.lmms.facts import tables_for\n"
        "assert all(tables_for(n) for n in catalogue.index() if catalogue.yaml_key(catalogue.index()[n], "
        "'process_results'))\nprint(sorted(m for m in sys.modules if m.startswith('food_tasks.utils.')))"
    )
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300, check=False)
    assert proc.returncode == 0 and proc.stdout.strip() == "[]", proc.stdout + proc.stderr[-2000:]
