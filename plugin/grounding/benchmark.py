"""Instrument grounding in the registry (entry point `symphony_bench.benchmarks`: grounding); light,
the command line reads it at start."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from symphony_bench.plugin.core.options import read_options
from symphony_bench.plugin.core.registry import Benchmark, TasksPathOptions
from symphony_bench.plugin.grounding.options import BENCHMARK as GROUNDING_SET


def add_tasks_path_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--grounding",
        metavar="SET",
        help="with --harness lmms-eval: a grounding set built without "
        "some configs gets a task folder whose instrument_grounding group runs the built ones "
        f"(default: ${GROUNDING_SET.variable})",
    )


def tasks_folder(harness: str, folder: Path, args: argparse.Namespace) -> Path:
    """The lmms-eval task folder for the grounding set named (a built set without some configs gets
    one whose group runs the built ones); `folder` itself otherwise."""
    grounding = args.grounding or read_options((GROUNDING_SET,))[GROUNDING_SET.name]
    if harness != "lmms-eval" or not grounding:
        return folder
    from symphony_bench.plugin.grounding.built_group import task_folder_for

    folder, left_out = task_folder_for(folder, grounding)
    if left_out:
        print(
            f"symphony-bench: {grounding} has no data for {', '.join(left_out)} (no rows when built; a larger "
            "--max-clip-uses may fill it): instrument_grounding runs the other tasks",
            file=sys.stderr,
        )
    return folder


BENCHMARK = Benchmark(
    package="symphony_bench.plugin.grounding",
    section="symphony_bench.plugin.grounding.report:SECTION",
    tasks_path=TasksPathOptions(add_tasks_path_arguments, tasks_folder),
)
