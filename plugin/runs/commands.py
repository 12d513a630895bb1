"""The subcommands that read finished runs: `report`, `check`, `compare`, `leaderboard`, `export`.

The CLI imports this module at start-up, so at module level it imports only the standard library
(and the statistics' constants, which need nothing else); what a command needs is imported when it
runs.
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

from symphony_bench.metrics.constants import BOOTSTRAP_SEED, N_BOOTSTRAP
from symphony_bench.plugin.core.registry import report_options
from symphony_bench.plugin.runs import rereading_commands

MAX_BOOTSTRAP = 100_000  # 100x the default; more replicates cannot narrow a 95 % interval further

EXPORT_FORMATS = ("hf-leaderboard", "eval-results")
# The paired bootstraps are many small matrix products: OpenBLAS's thread pool costs more than it
# saves there, and on a busy 2-core machine it made the statistics 4x slower (see bench_compare.py).
SINGLE_THREADED_BLAS = {"OPENBLAS_NUM_THREADS": "1", "OMP_NUM_THREADS": "1", "MKL_NUM_THREADS": "1"}


def add_commands(commands) -> None:
    """Adds the subcommands to an argparse subparsers object."""
    _add_report(commands)
    _add_check(commands)
    _add_compare(commands)
    _add_plan(commands)
    _add_leaderboard(commands)
    _add_export(commands)
    rereading_commands.add_commands(commands)


# ---- report ---------------------------------------------------------------------------------------
def _add_report(commands) -> None:
    report = commands.add_parser(
        "report", help="per-task tables from an lm_eval / lmms-eval --log_samples run"
    )
    report.add_argument("run_dir", type=Path, help="the --output_path directory")
    report.add_argument("--json", type=Path, help="write the report as JSON here")
    report.add_argument(
        "--markdown",
        type=Path,
        help="write the report as Markdown here, with its plots (PNG + SVG) in <stem>_plots/ beside it",
    )
    report.add_argument(
        "--html",
        type=Path,
        help="write the report as one self-contained page here: the tables sortable, the plots "
        "inline and every doc with its prompt and answer",
    )
    report.add_argument(
        "--no-plots", action="store_true", help="write the Markdown and the page without plots"
    )
    _add_skip_unreadable(report)
    for option in report_options():
        report.add_argument(
            option.flag,
            dest=option.name,
            type=option.type,
            metavar=option.metavar,
            default=option.default,
            help=option.help,
        )
    report.set_defaults(run=run_report)


def _add_skip_unreadable(command) -> None:
    command.add_argument(
        "--skip-unreadable",
        action="store_true",
        help="leave out a model folder or harness file that cannot be read (default: stop, naming it)",
    )


def _refuse_unreadable(args: argparse.Namespace, run_dirs: list[Path]) -> None:
    from symphony_bench.plugin.runs.files import refuse_unreadable

    if not args.skip_unreadable:
        refuse_unreadable(run_dirs)


def run_report(args: argparse.Namespace) -> None:
    import json

    from symphony_bench.plugin.runs.outputs import command_outputs
    from symphony_bench.plugin.runs.plots import report_plots_section
    from symphony_bench.plugin.runs.report import build_report, render_markdown

    _refuse_unreadable(args, [args.run_dir])
    options = {option.name: getattr(args, option.name) for option in report_options()}
    report = build_report(args.run_dir, options)
    markdown = render_markdown(report)
    entries = list(report.entries.values())
    read_files = [options[option.name] for option in report_options() if option.input_file]
    with command_outputs([args.run_dir], *read_files) as outputs:
        if args.json:
            outputs.text(args.json, json.dumps(report.bodies(), indent=2) + "\n")
        if args.markdown:
            plots = [] if args.no_plots else report_plots_section(entries, args.markdown, outputs)
            outputs.text(args.markdown, "\n".join([markdown, *plots]))
        if args.html:
            outputs.text(args.html, report_page(args, report.tasks, entries))
    print(markdown)


def report_page(args: argparse.Namespace, tasks, entries) -> str:
    from symphony_bench.plugin.runs.doc_browser import doc_rows
    from symphony_bench.plugin.runs.report_html import report_page_of

    title = f"symphony-bench report: {args.run_dir.name}"
    return report_page_of(title, entries, doc_rows(tasks), not args.no_plots)


# ---- check ----------------------------------------------------------------------------------------
def _add_check(commands) -> None:
    check = commands.add_parser(
        "check",
        help="exit 1 unless RUN_DIR has results and samples for every task asked "
        "(lmms-eval exits 0 on many failures)",
    )
    check.add_argument("run_dir", type=Path, help="the --output_path directory")
    check.add_argument(
        "--tasks", required=True, help="the --tasks given to the harness (groups are expanded)"
    )
    check.add_argument(
        "--empty-share",
        type=_share_in_open_unit_interval_or_one,
        help="fail a task when at least this share of its raw answers is empty (default 0.9)",
    )
    check.add_argument(
        "--unread-share",
        type=_share_in_open_unit_interval_or_one,
        help="fail a task when nothing could be read from at least this share of its answers "
        "(default 1: every answer; lower it to fail partial runs)",
    )
    check.set_defaults(run=run_check)


def _share_in_open_unit_interval_or_one(text: str) -> float:
    share = float(text)
    if not 0 < share <= 1:
        raise argparse.ArgumentTypeError(f"expected a share in (0, 1], got {text}")
    return share


def run_check(args: argparse.Namespace) -> int:
    from symphony_bench.plugin.runs.check import missing_outputs, silent_failures

    requested = [name.strip() for name in args.tasks.split(",") if name.strip()]
    missing = missing_outputs(args.run_dir, requested)
    for task, gaps in missing.items():
        print(
            f"symphony-bench: {task}: no {' and no '.join(gaps)} in {args.run_dir} (see the harness log above)",
            file=sys.stderr,
        )
    shares = {
        name: value
        for name, value in (("empty_share", args.empty_share), ("unread_share", args.unread_share))
        if value is not None
    }
    failures = silent_failures(args.run_dir, requested, **shares)
    for task, why in failures.items():
        print(f"symphony-bench: {task}: {why}", file=sys.stderr)
    if missing or failures:
        return 1
    from symphony_bench.plugin.runs.report import run_tasks

    run_tasks(args.run_dir)  # records that contradict their results file's options: an error
    print(f"{args.run_dir}: results and samples for every task asked")
    return 0


# ---- compare --------------------------------------------------------------------------------------
def _add_compare(commands) -> None:
    command = commands.add_parser(
        "compare",
        help="paired comparison of two runs (CANDIDATE - BASE) with intervals, and a release gate",
        description="Exit status: 0 no significant regression beyond the tolerances, 1 regression "
        "(listed), 2 could not compare (runs differ, a rule matches nothing, bad input), 3 (with "
        "--require-power) no regression but a rule's minimum detectable effect exceeds its "
        "tolerance.",
    )
    command.add_argument("base_run", type=Path, help="the BASE run's --output_path folder")
    command.add_argument(
        "candidate_run", type=Path, help="the CANDIDATE run's --output_path folder"
    )
    command.add_argument(
        "--fail-on",
        action="append",
        default=[],
        metavar="[TASK:]METRIC:+TOL",
        help="regression when the 95%% CI of the change lies wholly beyond TOL in the bad direction "
        "(+: increases are bad, -: decreases are); repeatable, e.g. mean_abs:+0.02",
    )
    command.add_argument(
        "--require-power",
        action="store_true",
        help="exit 3 when no regression is found but a --fail-on rule is underpowered (the "
        "change's minimum detectable effect at 80%% power exceeds its tolerance); without it, "
        "a warning",
    )
    command.add_argument(
        "--allow-mismatch",
        action="store_true",
        help="compare the shared docs even when task versions, data, seeds or docs differ (recorded)",
    )
    command.add_argument("--json", type=Path, help="write the comparison as JSON here")
    command.add_argument(
        "--markdown",
        type=Path,
        help="write a short Markdown summary (a PR comment) here, with a "
        "forest plot of the changes in <stem>_plots/ beside it",
    )
    command.add_argument(
        "--html",
        type=Path,
        help="write the comparison as one self-contained page here (tables sortable, plot inline)",
    )
    command.add_argument(
        "--no-plots", action="store_true", help="write the Markdown and the page without the plot"
    )
    command.add_argument(
        "--n-boot",
        type=int,
        default=N_BOOTSTRAP,
        help=f"bootstrap replicates (default {N_BOOTSTRAP}, at most {MAX_BOOTSTRAP:,})",
    )
    command.add_argument(
        "--seed",
        type=int,
        default=BOOTSTRAP_SEED,
        help=f"bootstrap seed (default {BOOTSTRAP_SEED})",
    )
    command.set_defaults(run=run_compare)


def run_compare(args: argparse.Namespace) -> int:
    """Runs the comparison and the gate; returns the exit status (0 pass, 1 regression, 2 could
    not compare, 3 underpowered with --require-power)."""
    for variable, value in SINGLE_THREADED_BLAS.items():  # read when numpy loads, i.e. just below
        os.environ.setdefault(variable, value)
    from symphony_bench.plugin.runs.compare import compare_runs
    from symphony_bench.plugin.runs.compare_output import json_text, render_markdown
    from symphony_bench.plugin.runs.gate import GateRule, apply_gate, exit_status
    from symphony_bench.plugin.runs.outputs import add_to_job_summary

    if not 2 <= args.n_boot <= MAX_BOOTSTRAP:
        raise ValueError(f"--n-boot must be between 2 and {MAX_BOOTSTRAP:,}, got {args.n_boot:,}")
    rules = [GateRule.parse(text) for text in args.fail_on]
    result = compare_runs(
        args.base_run, args.candidate_run, args.allow_mismatch, args.n_boot, args.seed
    )
    gate = apply_gate(result, rules, args.require_power)
    markdown = render_markdown(result, gate)
    write_compare_outputs(
        result, gate, markdown, args, json_text(result, gate) if args.json else None
    )
    print(markdown)
    add_to_job_summary(markdown)
    for entry in [] if args.require_power else gate["underpowered"]:
        print(
            f"symphony-bench: warning: --fail-on {entry['rule']} is underpowered: {entry['task']} "
            f"{entry['metric']} could only detect changes >= {entry['mde']:.4g}; the tolerance is "
            f"{entry['tolerance']:g}",
            file=sys.stderr,
        )
    if not result["compared"]:
        print(
            "symphony-bench: error: the runs are not comparable item by item (--allow-mismatch "
            f"compares the shared docs anyway): {'; '.join(result['mismatches'][:3])}",
            file=sys.stderr,
        )
    return exit_status(gate)


def write_compare_outputs(
    result: dict, gate: dict, markdown: str, args: argparse.Namespace, json: str | None
):
    """--json and --markdown (the summary `markdown`, then the forest plot of changes, PNG + SVG in
    <stem>_plots/ beside it), together."""
    from symphony_bench.plugin.runs.gate import change_rows
    from symphony_bench.plugin.runs.outputs import command_outputs
    from symphony_bench.plugin.runs.plots import compare_plots_section

    with command_outputs([args.base_run, args.candidate_run]) as outputs:
        if json is not None:
            outputs.text(args.json, json)
        if args.markdown:
            rows = change_rows(result)
            plots = [] if args.no_plots else compare_plots_section(rows, args.markdown, outputs)
            outputs.text(args.markdown, "\n".join([markdown, *plots]))
        if args.html:
            outputs.text(args.html, compare_page(args, result, gate))


def compare_page(args: argparse.Namespace, result: dict, gate: dict) -> str:
    from symphony_bench.plugin.runs.compare_output import compare_html, flipped_docs
    from symphony_bench.plugin.runs.doc_browser import doc_rows
    from symphony_bench.plugin.runs.gate import change_rows
    from symphony_bench.plugin.runs.plots import compare_figures, figure_svgs
    from symphony_bench.plugin.runs.report import run_tasks
    from symphony_bench.plugin.runs.report_html import compare_page, markdown_html

    figures = {} if args.no_plots else figure_svgs(compare_figures(change_rows(result)))
    title = f"symphony-bench compare: {args.base_run.name} -> {args.candidate_run.name}"
    flipped = flipped_docs(
        doc_rows(run_tasks(args.base_run)), doc_rows(run_tasks(args.candidate_run))
    )
    return compare_page(title, compare_html(result, gate, flipped, markdown_html), figures)


# ---- plan -------------------------------------------------------------------------------------------
def _share_in_open_unit_interval(text: str) -> float:
    value = float(text)
    if not 0.0 < value < 1.0:
        raise argparse.ArgumentTypeError(f"expected a number in (0, 1), got {text}")
    return value


def _add_plan(commands) -> None:
    command = commands.add_parser(
        "plan",
        help="how many templates / clips (and docs) a paired comparison needs to detect a change",
        description="From one finished run: per task, the design units and docs a paired "
        "comparison needs to detect a true change D with the given power (two-sided test at "
        "alpha), and which task variants reach it. Prints its assumptions.",
    )
    command.add_argument("base_run", type=Path, help="a finished run's --output_path folder")
    command.add_argument(
        "--detect",
        action="append",
        required=True,
        metavar="[TASK:]METRIC:D",
        help="the change to detect, repeatable, e.g. mean_abs:0.02",
    )
    command.add_argument("--power", type=_share_in_open_unit_interval, default=0.8)
    command.add_argument("--alpha", type=_share_in_open_unit_interval, default=0.05)
    command.add_argument(
        "--second-run",
        type=Path,
        help="a second run of the same model: the paired change's stderr is measured on it (else "
        "the runs are assumed uncorrelated, a conservative default)",
    )
    command.add_argument("--json", type=Path, help="write the plan as JSON here")
    command.set_defaults(run=run_plan)


def run_plan(args: argparse.Namespace) -> int:
    """0 when every --detect rule matched a task, 2 otherwise."""
    import json

    from symphony_bench.plugin.core.reporting import json_ready
    from symphony_bench.plugin.runs.outputs import command_outputs
    from symphony_bench.plugin.runs.plan import DetectRule, plan, render

    rules = [DetectRule.parse(text) for text in args.detect]
    planned = plan(args.base_run, rules, args.power, args.alpha, args.second_run)
    if args.json:
        inputs = [args.base_run, *([args.second_run] if args.second_run else [])]
        with command_outputs(inputs) as outputs:
            outputs.text(
                args.json, json.dumps(json_ready(planned), indent=2, allow_nan=False) + "\n"
            )
    print(render(planned))
    return 2 if planned["unmatched"] else 0


# ---- leaderboard ----------------------------------------------------------------------------------
def _add_leaderboard(commands) -> None:
    command = commands.add_parser(
        "leaderboard",
        help="one row per model x task with 95%% intervals, tie-aware "
        "ranks and provenance: leaderboard.json, .csv, .md",
    )
    command.add_argument(
        "run_dirs",
        nargs="+",
        type=Path,
        metavar="RUN_DIR",
        help="lm_eval / lmms-eval --output_path folders",
    )
    command.add_argument(
        "--out",
        type=Path,
        required=True,
        help="folder for leaderboard.json, leaderboard.csv, leaderboard.md",
    )
    command.add_argument(
        "--label",
        action="append",
        default=[],
        metavar="RUN_DIR=NAME",
        help="show the models of RUN_DIR as NAME (repeatable; default: the Hub id, or a local "
        "model folder's last component)",
    )
    command.add_argument(
        "--show-paths",
        action="store_true",
        help="write each row's run folder and a local dataset folder's path as found (default: "
        "RUN_DIR's name / the model's label, the dataset folder's name, so that no path of this "
        "machine is published)",
    )
    command.add_argument(
        "--verify",
        action="store_true",
        help="verify every RUN_DIR against its raw answers (as `symphony-bench verify`), show each "
        "entry's reader version and mark entries read by different readers; exit 1 if one fails",
    )
    command.add_argument(
        "--rescore",
        action="store_true",
        help="rank every run as the installed readers read its raw answers (as `symphony-bench "
        "rescore`; the RUN_DIRs are left as they are)",
    )
    _add_skip_unreadable(command)
    command.set_defaults(run=run_leaderboard)


def _labels(texts: list[str]) -> dict[Path, str]:
    labels = {}
    for text in texts:
        run_dir, separator, name = text.partition("=")
        if not separator or not run_dir or not name.strip():
            raise ValueError(f"--label {text!r}: expected RUN_DIR=NAME")
        labels[Path(run_dir)] = name.strip()
    return labels


def run_leaderboard(args: argparse.Namespace) -> int:
    import contextlib

    from symphony_bench.plugin.runs import leaderboard_checks as checks
    from symphony_bench.plugin.runs.leaderboard import build_leaderboard, write_leaderboard
    from symphony_bench.plugin.runs.outputs import command_outputs

    _refuse_unreadable(args, args.run_dirs)
    labels = _labels(args.label)
    checked = checks.verification(args.run_dirs) if args.verify else None
    with contextlib.ExitStack() as stack:
        ranked = args.run_dirs
        if args.rescore:
            copies = stack.enter_context(checks.rescored_runs(args.run_dirs))
            ranked = [copies[run_dir] for run_dir in args.run_dirs]
            labels = {copies.get(run_dir, run_dir): name for run_dir, name in labels.items()}
        board = build_leaderboard(ranked, labels)
    if args.rescore:
        board["rescored"] = True
    if checked is not None:
        checks.mark_reader_versions(board)
        board["verification"] = checked
    if args.rescore or args.verify:
        board["notes"] = checks.notes(board)
    with command_outputs(args.run_dirs) as outputs:
        markdown = write_leaderboard(board, args.out, outputs, args.show_paths)
    print(markdown)
    return 1 if checked and not all(result["verified"] for result in checked.values()) else 0


# ---- export ---------------------------------------------------------------------------------------
def _add_export(commands) -> None:
    command = commands.add_parser(
        "export",
        help="one model's run as a Hugging Face leaderboard-template results "
        "JSON or as Hub .eval_results YAML files",
    )
    command.add_argument("run_dir", type=Path, help="the --output_path folder of one model's run")
    command.add_argument("--format", choices=EXPORT_FORMATS, required=True)
    command.add_argument(
        "--out",
        type=Path,
        required=True,
        help="hf-leaderboard: the JSON file to write; eval-results: the folder for the YAML files",
    )
    command.add_argument(
        "--dataset-id",
        help="eval-results: the Hub benchmark dataset id for tasks whose run does "
        "not record one (the text tasks' data is embedded)",
    )
    command.set_defaults(run=run_export)


def run_export(args: argparse.Namespace) -> None:
    from symphony_bench.plugin.runs.export import export_files, model_rows
    from symphony_bench.plugin.runs.outputs import command_outputs

    files = export_files(model_rows(args.run_dir), args.format, args.out, args.dataset_id)
    with command_outputs([args.run_dir]) as outputs:
        for path, text in files.items():
            outputs.text(path, text)
    print("\n".join(str(path) for path in files))
