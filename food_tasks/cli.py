"""food-tasks: food-domain vision-language benchmarks for lmms-eval.

food-tasks path     print the installed task directory (for --include_path)
food-tasks list     our tasks and groups: benchmark, size, data source
food-tasks demo     run the packaged sample tasks on a tiny local model, offline
food-tasks prefetch BENCH      fetch a benchmark's remote files once into the cache ({prefetch})
food-tasks validate TASK.yaml  check a regional task (YAML + data file) before running a model
food-tasks report DIR|FILE...  Markdown + HTML report (tables beside the papers' numbers, charts)
food-tasks compare RUN_A RUN_B which model differences are real: paired differences, 95% intervals
food-tasks rescore RUN         score a --log_samples run again with this pack, without its model
"""

from __future__ import annotations

import argparse
import os
import re
import shlex
import subprocess
import sys
import textwrap
from collections.abc import Callable
from pathlib import Path

from food_tasks.benchmarks import BENCHMARKS, get
from food_tasks.lmms.runfiles import newest_results, read_results, results_snapshot
from food_tasks.tasks.catalogue import entries as yaml_entries
from food_tasks.tasks.catalogue import names as yaml_names
from food_tasks.tasks.catalogue import task_dir
from food_tasks.tasks.registry import in_sample


def demo_tasks() -> str:
    """What ``food-tasks demo`` runs: every registered benchmark's packaged sample tasks and groups."""
    return ",".join(t for b in BENCHMARKS for t in b.sample_tasks)


class CommandError(Exception):
    """A command's failure in one message: :func:`main` prints it after ``food-tasks <command>:`` and exits 1."""


WIDTH = 120  # the widest line any command prints by default (full texts are in the files it writes)
SAMPLE_SOURCE = "packaged sample (installed with food-tasks; offline, no account needed)"


def _sizes(entries: list[tuple[str, str, str, tuple[str, ...]]]) -> dict[str, int | None]:
    """Documents per task on its data, as its benchmark's record counts them; a group's: the sum over its
    tasks (None when one is unknown)."""
    tasks: dict[str, int | None] = {}
    for name, kind, bench, _ in entries:
        record = get(bench)
        if kind == "task":
            tasks[name] = record.documents(name) if record is not None else None
    groups = {name: members for name, kind, _, members in entries if kind == "group"}

    def size(name: str, seen: frozenset = frozenset()) -> int | None:
        if name not in groups:
            return tasks.get(name)
        counts = [size(m, seen | {name}) for m in groups[name] if m not in seen]
        return sum(counts) if counts and all(c is not None for c in counts) else None  # type: ignore[misc]

    return {name: size(name) for name, *_ in entries}


def _samples(entries: list[tuple[str, str, str, tuple[str, ...]]]) -> set[str]:
    """The packaged sample tasks and groups: what the registry records' ``sample_tasks`` (and ``judged_samples``: a
    sample that needs a judge, not in the demo) hold, the variants declared on
    those (:func:`food_tasks.tasks.registry.in_sample`), and every group all of whose members are samples."""
    groups = {name: members for name, kind, _, members in entries if kind == "group"}

    def sample(name: str, bench: str, seen: frozenset = frozenset()) -> bool:
        record = get(bench)
        if record is not None and in_sample(name, record.sample_tasks + record.judged_samples):
            return True
        members = groups.get(name, ()) if name not in seen else ()
        return bool(members) and all(sample(m, bench, seen | {name}) for m in members)

    return {name for name, _, bench, _ in entries if sample(name, bench)}


def cmd_list(_: argparse.Namespace) -> int:
    """Print our tasks and groups: kind, benchmark, documents and data source, then the sources' legend."""
    entries = yaml_entries()
    sizes, samples = _sizes(entries), _samples(entries)
    width = max(len(name) for name, *_ in entries)
    # The data column says which source a row reads (each benchmark's is spelled out once, below the table):
    # a source repeated on every row made the listing 167 columns wide.
    print(f"{'name':<{width}}  {'kind':<5}  {'benchmark':<13}  {'docs':>6}  data")
    for name, kind, bench, _ in entries:
        size = sizes.get(name)
        record = get(bench)
        data = "sample" if name in samples else bench if record else ""
        docs = ("?" if record else "") if size is None else size
        print(f"{name:<{width}}  {kind:<5}  {bench:<13}  {docs:>6}  {data}")
    print(
        "docs: documents per task; a group's, the sum over its tasks (each prompt or template counted once);\n"
        "      ?: known only from the data (rotations per question vary)."
    )
    print("data: where a row's documents come from:")
    for line in list_sources(entries):
        print(line)
    return 0


def list_sources(entries: list[tuple[str, str, str, tuple[str, ...]]]) -> list[str]:
    """The legend of ``food-tasks list``'s data column, wrapped to :data:`WIDTH` columns."""
    rows = [("sample", SAMPLE_SOURCE)] + [(b, get(b).source) for b in dict.fromkeys(e[2] for e in entries) if get(b)]
    key = max(len(k) for k, _ in rows)
    return [
        line
        for k, source in rows
        for line in textwrap.wrap(
            source, WIDTH, initial_indent=f"  {k + ':':<{key + 1}} ", subsequent_indent=" " * (key + 4)
        )
    ]


def cmd_path(_: argparse.Namespace) -> int:
    """Print the installed task directory (what `--include_path` would name)."""
    print(task_dir())
    return 0


def cmd_prefetch(args: argparse.Namespace) -> int:
    """Fetch a benchmark's files and images once (parallel), so evaluation runs read only the cache."""
    record = get(args.benchmark)
    if record is None or record.prefetch is None:
        error("prefetch", f"nothing to fetch for {args.benchmark!r} (hub datasets are cached by `datasets`)")
        return 2
    return record.prefetch(workers=args.workers, report=args.report)


DEMO_OUTPUT = "food_tasks_demo"  # default --output_path of the demo, in the current directory
REAL_MODEL = "Qwen/Qwen2-VL-2B-Instruct"  # the demo model's architecture, trained: the next step's example


def _shown(path: Path) -> str:
    """``path`` relative to the current directory when it is below it (shorter to copy), else absolute."""
    try:
        return str(path.resolve().relative_to(Path.cwd().resolve()))
    except ValueError:
        return str(path.resolve())


def shell_lines(argv: list[str], first: str = "$ ", indent: str = "    ", width: int = WIDTH) -> list[str]:
    """``argv`` as a copy-pastable shell command within ``width`` columns: the program, then its arguments (an
    option with its value), a line filled as far as it goes and continued with `` \\``; a comma-separated value
    too long for a line of its own goes on in the next one.

    A value continued inside its word goes on at column 0: the shell removes a backslash-newline pair, and
    indentation there would end the word. A piece without a comma (a long path) that is longer than a line is
    printed whole, so its line may exceed ``width``.
    """
    words = [shlex.quote(a) for a in argv]
    start = 3 if words[1:2] == ["-m"] else 1  # the program (an interpreter with its module)
    units = [" ".join(words[:start])]
    for word in words[start:]:
        if len(units) > 1 and units[-1].startswith("-") and " " not in units[-1] and not word.startswith("-"):
            units[-1] += " " + word  # an option and its value stay together
        else:
            units.append(word)
    lines, continued = [first + units[0]], False
    for unit in units[1:]:
        # Room for " \\" after the unit, should another follow; the rest of a cut word takes no other unit.
        if not continued and len(lines[-1]) + len(unit) + 3 <= width:
            lines[-1] += " " + unit
            continue
        lines[-1] += " \\"
        lines.append(indent + unit)
        continued = False
        # Only an unquoted word (shlex.quote left it as it was) is cut: inside quotes a backslash stays literal.
        while len(lines[-1]) + 2 > width and "'" not in lines[-1]:
            line = lines[-1]
            cut = line.rfind(",", len(indent) + 1, width - 1)
            if cut < 0 or cut == len(line) - 1:
                break
            lines[-1:] = [line[: cut + 1] + "\\", line[cut + 1 :]]
            continued = True
    return lines


def wrapped(text: str, indent: str = "", width: int = WIDTH, first: str = "") -> list[str]:
    """``text`` wrapped at spaces to ``width`` columns, ``first`` before its first line and ``indent`` before the
    others (a word longer than a line, a path or URL, is never cut)."""
    return textwrap.wrap(
        text, width, initial_indent=first, subsequent_indent=indent, break_long_words=False, break_on_hyphens=False
    ) or [first.rstrip()]


def error_lines(command: str, message: str, width: int = WIDTH) -> list[str]:
    """``food-tasks <command>: <message>`` wrapped at spaces to ``width`` columns: the prefix on the first line,
    the rest (and each further line of ``message``) indented; a path or URL longer than a line is never cut."""
    paragraphs = message.split("\n")
    lines = wrapped(f"food-tasks {command}: {paragraphs[0]}", indent="  ", width=width)
    for paragraph in paragraphs[1:]:
        lines += wrapped(paragraph, indent="  ", width=width, first="  ") if paragraph.strip() else []
    return lines


def error(command: str, message: str) -> None:
    """Print :func:`error_lines` on stderr."""
    print("\n".join(error_lines(command, message)), file=sys.stderr, flush=True)


def demo_command(model: Path, tasks: str, out_dir: Path) -> list[str]:
    """The lmms-eval command line the demo runs: the tiny model on CPU, offline, every sample logged."""
    return [
        sys.executable,
        "-m",
        "lmms_eval",
        "--model",
        "qwen2_vl",
        "--model_args",
        f"pretrained={model},device=cpu,device_map=cpu,max_pixels=12544,min_pixels=3136",
        "--tasks",
        tasks,
        "--batch_size",
        "1",
        "--output_path",
        str(out_dir),
        "--log_samples",
    ]


def demo_banner(command: list[str], model: Path, out_dir: Path) -> list[str]:
    """What the demo prints first: the command it runs, then what it is and where its results go."""
    about = (
        "food-tasks demo: the packaged sample tasks on a tiny random Qwen2-VL (CPU, offline); "
        f"model {model}, results under {_shown(out_dir)}/"
    )
    return [*shell_lines(command), *wrapped(about, indent="  ")]


def cmd_demo(args: argparse.Namespace) -> int:
    """Run the packaged sample tasks through lmms-eval on a tiny random model; the results file is the verdict."""
    from food_tasks.data.remote import cache_root

    tasks = args.tasks or demo_tasks()
    model = cache_root() / "tiny-qwen2-vl"
    out_dir = Path(args.output_path or DEMO_OUTPUT)
    from food_tasks.lmms.results_table import TABLE_ENV, headline_only

    # The printed table: groups and headline metrics (a screen, not 216 lines); every metric is in the results JSON.
    env = dict(os.environ, HF_HUB_OFFLINE="1", HF_DATASETS_OFFLINE="1", TOKENIZERS_PARALLELISM="false")
    env.setdefault(TABLE_ENV, "headline")
    command = demo_command(model, tasks, out_dir)
    # The command comes first, before anything (the model build, lmms-eval) prints progress.
    print("\n".join(demo_banner(command, model, out_dir)), flush=True)
    from food_tasks.lmms.tiny_model import build_tiny_qwen2_vl

    build_tiny_qwen2_vl(model)
    before = results_snapshot(out_dir)  # the run's own results file is the one it created or rewrote
    code = subprocess.call(command, env=env)
    results = newest_results(out_dir, before=before)
    # lmms-eval exits 0 even when a task crashed: the results file is the verdict.
    if code != 0 or results is None:
        raise CommandError(f"lmms-eval wrote no results under {out_dir} (exit code {code}); see the log above.")
    data = read_results(results)
    kinds = {name: kind for name, kind, _ in yaml_names()}
    expected = [t for t in tasks.split(",") if t in kinds]  # groups land under "groups", tasks under "results"
    missing = [t for t in expected if t not in data.get("groups" if kinds.get(t) == "group" else "results", {})]
    if missing:
        raise CommandError(f"results {results} lack {', '.join(missing)}; see the log above.")
    print(demo_epilogue(results, tasks, headline=headline_only(env)), flush=True)
    return 0


def cmd_compare(args: argparse.Namespace) -> int:
    """Paired differences of two runs on the documents both scored (needs both runs' samples files)."""
    from food_tasks.compare import command

    for kind, text in command.output(args.run_a, args.run_b, "all" if args.all else "headline", args.iters):
        if kind == command.ERROR:
            error("compare", text)
            return 1
        if kind == command.WARNING:
            error("compare", f"warning: {text}")
        else:
            print(text)
    return 0


# What the demo's epilogue says of the table lmms-eval printed above it, by FOOD_TASKS_TABLE.
TABLE_HEADLINE = (
    "  (samples beside it; the table above shows groups and headline metrics, the results JSON every metric:",
    "  FOOD_TASKS_TABLE=full food-tasks demo prints them all)",
)
TABLE_FULL = (
    "  (samples beside it; the table above shows every task and metric, a breakdown as a short note: its values",
    "  are in the results JSON)",
)


def demo_epilogue(results: Path, tasks: str, hint: list[str] | None = None, headline: bool = True) -> str:
    """What the demo prints last: where its results are, and what to do next with them and with a real model;
    ``hint``: the lines saying where the commands are (default: :func:`_path_hint`); ``headline``: whether the
    table printed groups and headline metrics only (``FOOD_TASKS_TABLE=headline``, the demo's default)."""
    shown = _shown(results)
    real = ["lmms-eval", "--model", "qwen2_vl", "--model_args", f"pretrained={REAL_MODEL}", "--tasks", tasks]
    return "\n".join(
        [
            "",
            "food-tasks demo: OK. The model is a tiny randomly initialised Qwen2-VL: its scores are meaningless",
            "(mostly unparseable outputs, so accuracies near 0); the run shows data, prompts, images, backend and",
            "scorers wired together.",
            *wrapped(f"Results: {shown}", indent="  "),
            *(TABLE_HEADLINE if headline else TABLE_FULL),
            "Next:",
            *shell_lines(["food-tasks", "report", shown], first="  ", indent="      "),
            "      Markdown + HTML report beside the papers' numbers, in ./food_tasks_report/ (-o DIR to choose)",
            *shell_lines([*real, "--output_path", "results/", "--log_samples"], first="  ", indent="      "),
            "      the same tasks on a real model (a GPU; any lmms-eval model works);",
            "      `food-tasks list` shows the full benchmarks",
            *(_path_hint() if hint is None else hint),
        ]
    )


def path_hint(bindir: str) -> list[str]:
    """Where the commands above are, for a shell that would not find them in ``bindir`` (a venv not activated)."""
    return [
        f"  food-tasks and lmms-eval are in {bindir}/, which is not on PATH: activate it first,",
        f"    source {bindir}/activate",
        f"  or prefix the commands with {bindir}/",
    ]


def _path_hint() -> list[str]:
    """:func:`path_hint` of this interpreter's folder when the shell would not find ``food-tasks``, else []."""
    import shutil

    bindir = Path(sys.executable).parent
    if shutil.which("food-tasks") or not (bindir / "food-tasks").exists():
        return []
    return path_hint(_shown(bindir))


def cmd_validate(args: argparse.Namespace) -> int:
    """Each regional task YAML's verdict, problems and warnings on stdout; exit status 1 when any has a problem."""
    from food_tasks.regional_tasks.check import check, report

    failed = 0
    queue, done = list(args.yaml), set()
    while queue:  # a group YAML's tasks are checked after it, each file once
        path = queue.pop(0)
        if os.path.realpath(path) in done:
            continue
        done.add(os.path.realpath(path))
        result = check(path, check_images=not args.no_images)
        print("\n".join(report(path, result)), flush=True)
        failed += bool(result.problems)
        queue[:0] = [m for m in result.members if os.path.realpath(m) not in done]
    return 1 if failed else 0


def cmd_rescore(args: argparse.Namespace) -> int:
    """Score a ``--log_samples`` run again with this pack, without its model (:mod:`food_tasks.runs.rescore`)."""
    from food_tasks.runs import rescore

    return rescore.main(args)


def cmd_report(args: argparse.Namespace) -> int:
    """Render lmms-eval results (directories or results files) into ``-o`` as report.md/report.html."""
    from food_tasks.report import ReportInputError, build_report

    try:
        made = build_report(args.results, args.output, charts=not args.no_charts)
    except ReportInputError as err:  # a bad input path or file: 1, as every command (argparse usage errors are 2)
        error("report", str(err))
        return 1
    print(
        f"runs: {', '.join(made['runs'])}\nwrote {made['markdown']}, {made['html']} and {len(made['charts'])} chart(s)"
    )
    return 0


def _formatter(base: type) -> Callable[[str], argparse.HelpFormatter]:
    """``base`` wrapping help at the terminal's width, at most :data:`WIDTH` columns."""
    import shutil

    return lambda prog: base(prog, width=min(shutil.get_terminal_size().columns, WIDTH) - 2)


def usage_text(text: str, width: int = WIDTH - 10) -> str:
    """``text`` (the command list of the module docstring) with each line longer than ``width`` wrapped under its
    own description column (where the first run of two or more spaces ends; no indent when there is none)."""
    out = []
    for line in text.splitlines():
        column = re.search(r"\S {2,}", line)
        indent = " " * (column.end() if column else 0)
        out.append(textwrap.fill(line, width=width, subsequent_indent=indent) if len(line) > width else line)
    return "\n".join(out)


SIGPIPE_STATUS = 141  # 128 + SIGPIPE: the exit status of a command whose reader left (`yes | head`)


def main(argv: list[str] | None = None) -> int:
    """The `food-tasks` command: parse ``argv`` (default: the process's), run the command, return its exit status.

    A reader that leaves early (``food-tasks validate ... | head -1``) ends the command quietly: no traceback, stdout
    sent to the null device (so that Python's flush at exit has nowhere to fail), exit status 141 as a shell's."""
    try:
        return _main(argv)
    except BrokenPipeError:
        try:
            os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        except (OSError, ValueError, AttributeError):  # no file descriptor (an in-process stdout): nothing to flush
            pass
        return SIGPIPE_STATUS


def _main(argv: list[str] | None) -> int:
    fetchers = [b for b in BENCHMARKS if b.prefetch is not None]
    what = "; ".join(f"{b.name}: {b.prefetch_summary()}" for b in fetchers)
    description = usage_text(__doc__.format(prefetch=what))
    parser = argparse.ArgumentParser(
        prog="food-tasks", description=description, formatter_class=_formatter(argparse.RawDescriptionHelpFormatter)
    )
    # The commands are listed once, in the description above (argparse would list them again with their help).
    sub = parser.add_subparsers(
        dest="command",
        required=True,
        metavar="COMMAND",
        help="one of the above (food-tasks COMMAND --help: its options)",
    )
    add_parser = sub.add_parser
    sub.add_parser = lambda *a, **k: add_parser(*a, **{"formatter_class": _formatter(argparse.HelpFormatter), **k})  # type: ignore[method-assign]
    sub.add_parser("path", description="Print the installed task directory.").set_defaults(func=cmd_path)
    sub.add_parser("list", description="List our tasks and groups.").set_defaults(func=cmd_list)
    demo = sub.add_parser("demo", description="Run the packaged sample tasks on a tiny local model (offline, CPU).")
    demo.add_argument("--tasks", default=None, help="tasks to run (default: every benchmark's packaged sample tasks)")
    demo.add_argument("--output_path", default=None, help=f"where lmms-eval writes results (default: ./{DEMO_OUTPUT})")
    demo.set_defaults(func=cmd_demo)
    prefetch = sub.add_parser(
        "prefetch",
        description="Download a benchmark's remote files once into the cache, before a multi-rank evaluation, so "
        "that every rank reads only the cache. Offline, it fails within seconds with what to do.",
        epilog="benchmarks: " + "; ".join(f"{b.name}: {b.prefetch_summary()}" for b in fetchers),
    )

    def fetcher(name: str) -> str:
        """The benchmark's name, or argparse's error listing the choices (its own `invalid choice` is too wide)."""
        names = [b.name for b in fetchers]
        if name not in names:
            raise argparse.ArgumentTypeError(
                f"{name!r} is not one of {', '.join(names)}\n  (a hub dataset needs no prefetch: `datasets` caches it)"
            )
        return name

    prefetch.add_argument(
        "benchmark",
        type=fetcher,
        metavar="benchmark",
        help="which benchmark's files to fetch: " + ", ".join(b.name for b in fetchers),
    )
    prefetch.add_argument(
        "--workers",
        type=int,
        default=16,
        help="parallel downloads of third-party images (benchmarks that have them; default 16)",
    )
    prefetch.add_argument("--report", help="write the coverage summary (JSON) to this file")
    prefetch.set_defaults(func=cmd_prefetch)
    validate = sub.add_parser("validate", description="Check regional task YAMLs and their data (see CONTRIBUTING.md).")
    validate.add_argument("yaml", nargs="+", help="regional task or group YAML file(s); a group's tasks too")
    validate.add_argument("--no-images", action="store_true", help="skip opening every image")
    validate.set_defaults(func=cmd_validate)
    report = sub.add_parser(
        "report", description="Markdown + HTML report of lmms-eval results, beside the papers' numbers."
    )
    report.add_argument("results", nargs="+", help="lmms-eval --output_path directories or *_results.json files")
    report.add_argument(
        "-o", "--output", default="food_tasks_report", help="report directory (default: ./food_tasks_report)"
    )
    report.add_argument("--no-charts", action="store_true", help="tables only: draw no chart (most of a report's time)")
    report.set_defaults(func=cmd_report)
    compare = sub.add_parser(
        "compare", description="Paired differences of two runs, with 95% intervals (needs --log_samples)."
    )
    compare.add_argument(
        "run_a", help="results file or lmms-eval --output_path folder of run A (its samples files beside it)"
    )
    compare.add_argument("run_b", help="the same for run B")
    compare.add_argument(
        "--all", action="store_true", help="every metric with an error bar (default: each task's headline)"
    )
    compare.add_argument(
        "--iters", type=int, default=None, help="bootstrap resamples (default 1000; 0: analytic errors only)"
    )
    compare.set_defaults(func=cmd_compare)
    rescore = sub.add_parser("rescore", description="Score a --log_samples run again with this pack (no model).")
    rescore.add_argument("run", help="lmms-eval --output_path folder or *_results.json file, with its samples files")
    rescore.add_argument(
        "-o",
        "--output",
        default=None,
        help="output folder, the re-score's --output_path (default: the run's --output_path + _rescored, beside it; "
        "the run's layout is kept: results/<model>/ is re-scored into results_rescored/<model>/, a run directly in "
        "results/ directly into results_rescored/)",
    )
    rescore.add_argument("--force", action="store_true", help="write into an OUT that already holds results")
    rescore.set_defaults(func=cmd_rescore)
    args = parser.parse_args(argv)
    from food_tasks.errors import DataAccessError, ReportInputError

    try:
        return args.func(args)
    except (
        DataAccessError,
        ReportInputError,
        FileNotFoundError,
        CommandError,
    ) as err:  # our message last, non-zero exit status, no traceback
        error(args.command, str(err))
        return 1


if __name__ == "__main__":
    sys.exit(main())
