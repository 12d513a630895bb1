"""The `symphony-bench` command line.

Each benchmark and builder contributes its own subcommands from a light module that imports only
the standard library; what a command needs (numpy, datasets, torch, the harnesses) is imported when
that command runs, so `symphony-bench tasks-path` and `--help` start fast.
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

from symphony_bench.hub_upload import commands as builder_commands
from symphony_bench.plugin import compare_command, export, leaderboard
from symphony_bench.plugin.core.atomic import Terminated
from symphony_bench.plugin.core.errors import DataFileError
from symphony_bench.plugin.tcav import command as tcav_command

TASKS_DIR = Path(__file__).resolve().parent.parent / "tasks"
HARNESS_TASK_FOLDERS = {"lm-eval": "lm_eval", "lmms-eval": "lmms_eval"}


def tasks_path(harness: str = "lm-eval") -> Path:
    """The folder to pass to `--include_path`: each harness sees only its own tasks."""
    return TASKS_DIR / HARNESS_TASK_FOLDERS[harness]


def _tasks_path(args: argparse.Namespace) -> None:
    folder = tasks_path(args.harness)
    grounding = args.grounding or os.environ.get("SYMPHONY_GROUNDING")
    if args.harness == "lmms-eval" and grounding:
        from symphony_bench.plugin.grounding.built_group import task_folder_for

        folder, left_out = task_folder_for(folder, grounding)
        if left_out:
            print(
                f"symphony-bench: {grounding} has no data for {', '.join(left_out)} (no rows when built; a larger "
                "--max-clip-uses may fill it): instrument_grounding runs the other tasks",
                file=sys.stderr,
            )
    print(folder)


TINY_MODELS = {"llama": "build_tiny_llama", "qwen2-audio": "build_tiny_qwen2_audio"}


def _tiny_model(args: argparse.Namespace) -> None:
    from symphony_bench.plugin import tiny_models

    print(getattr(tiny_models, TINY_MODELS[args.architecture])(args.out))


def _check(args: argparse.Namespace) -> int:
    from symphony_bench.plugin.check import missing_outputs

    missing = missing_outputs(
        args.run_dir, [name.strip() for name in args.tasks.split(",") if name.strip()]
    )
    for task, gaps in missing.items():
        print(
            f"symphony-bench: {task}: no {' and no '.join(gaps)} in {args.run_dir} (see the harness log above)",
            file=sys.stderr,
        )
    if not missing:
        print(f"{args.run_dir}: results and samples for every task asked")
    return 1 if missing else 0


def _report(args: argparse.Namespace) -> None:
    import json

    from symphony_bench.plugin.core.atomic import write_text_atomically
    from symphony_bench.plugin.report import build_report, render_markdown

    report = build_report(args.run_dir, {"human_ratings": args.human_ratings})
    markdown = render_markdown(report)
    if args.json:
        write_text_atomically(args.json, json.dumps(report.entries, indent=2) + "\n")
    if args.markdown:
        from symphony_bench.plugin.plots import report_plots_section

        plots = report_plots_section(
            report.entries, args.markdown
        )  # PNG + SVG in <stem>_plots/ beside it
        write_text_atomically(args.markdown, "\n".join([markdown, *plots]))
    print(markdown)


def _default_model(args: argparse.Namespace) -> None:
    from symphony_bench.plugin.default_model import default_model_path

    print(default_model_path())


def _add_report_commands(commands) -> None:
    paths = commands.add_parser("tasks-path", help="print the directory to pass to --include_path")
    paths.add_argument(
        "--harness",
        choices=sorted(HARNESS_TASK_FOLDERS),
        default="lm-eval",
        help="lm-eval (text tasks, the default) or lmms-eval (audio, image and grounding tasks)",
    )
    paths.add_argument(
        "--grounding",
        metavar="SET",
        help="with --harness lmms-eval: a grounding set built without "
        "some configs gets a task folder whose instrument_grounding group runs the built ones "
        "(default: $SYMPHONY_GROUNDING)",
    )
    paths.set_defaults(run=_tasks_path)
    report = commands.add_parser(
        "report", help="per-task tables from an lm_eval / lmms-eval --log_samples run"
    )
    report.add_argument("run_dir", type=Path, help="the --output_path directory")
    report.add_argument("--json", type=Path, help="write the report as JSON here")
    report.add_argument(
        "--markdown",
        type=Path,
        help="write the report as Markdown here, with its plots (PNG + SVG) "
        "in <stem>_plots/ beside it",
    )
    report.add_argument(
        "--human-ratings",
        type=Path,
        help="CSV: instrument,male,female,non_binary (e.g. survey means)",
    )
    report.set_defaults(run=_report)
    check = commands.add_parser(
        "check",
        help="exit 1 unless RUN_DIR has results and samples for every task asked "
        "(lmms-eval exits 0 on many failures)",
    )
    check.add_argument("run_dir", type=Path, help="the --output_path directory")
    check.add_argument(
        "--tasks", required=True, help="the --tasks given to the harness (groups are expanded)"
    )
    check.set_defaults(run=_check)
    tiny = commands.add_parser(
        "tiny-model",
        help="write a tiny random model for smoke runs of the plumbing (its "
        "answers mean nothing): llama (lm-eval hf) or qwen2-audio (symphony_qwen2_audio)",
    )
    tiny.add_argument("architecture", choices=sorted(TINY_MODELS))
    tiny.add_argument("--out", type=Path, required=True)
    tiny.set_defaults(run=_tiny_model)
    commands.add_parser(
        "default-model",
        help="print (creating it on first use) the embedded SmolLM2-135M-Instruct folder",
    ).set_defaults(run=_default_model)


def parser() -> argparse.ArgumentParser:
    root = argparse.ArgumentParser(prog="symphony-bench", description=__doc__.splitlines()[0])
    commands = root.add_subparsers(dest="command", required=True)
    _add_report_commands(commands)
    builder_commands.add_commands(commands)
    tcav_command.add_commands(commands)
    compare_command.add_command(commands)
    leaderboard.add_command(commands)
    export.add_command(commands)
    return root


def main(argv: list[str] | None = None) -> int:
    args = parser().parse_args(argv)
    try:
        status = args.run(args)
    except (DataFileError, OSError, ValueError) as error:
        print(f"symphony-bench: error: {error}", file=sys.stderr)
        return 2
    except (KeyboardInterrupt, Terminated) as stop:
        print(
            "symphony-bench: stopped; nothing half-done is left behind (no partial output folder, no partial Hub commit)",
            file=sys.stderr,
        )
        return stop.code if isinstance(stop, Terminated) else 130
    return status if isinstance(status, int) else 0  # only `check` reports through its status


if __name__ == "__main__":
    sys.exit(main())
