"""The `symphony-bench` command line.

Each benchmark and builder contributes its own subcommands from a light module that imports only
the standard library, and the benchmarks their own options through the registry
(plugin.core.registry); what a command needs (numpy, datasets, torch, the harnesses) is imported
when that command runs, so `symphony-bench tasks-path` and `--help` start fast.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from symphony_bench.hub_upload import commands as builder_commands
from symphony_bench.plugin.core.atomic import Terminated
from symphony_bench.plugin.core.errors import DataFileError
from symphony_bench.plugin.core.registry import benchmarks
from symphony_bench.plugin.core.task_folders import HARNESS_TASK_FOLDERS, tasks_path
from symphony_bench.plugin.runs import commands as run_commands
from symphony_bench.plugin.tcav import command as tcav_command


def _tasks_path(args: argparse.Namespace) -> None:
    folder = tasks_path(args.harness)
    for benchmark in benchmarks().values():
        if benchmark.tasks_path:
            folder = benchmark.tasks_path.folder(args.harness, folder, args)
    print(folder)


TINY_MODELS = {
    "llama": "build_tiny_llama",
    "qwen2-audio": "build_tiny_qwen2_audio",
    "audio-flamingo-3": "build_tiny_audio_flamingo_3",
    "qwen2.5-omni": "build_tiny_qwen2_5_omni",
    "llava": "build_tiny_llava",
    "qwen2-vl": "build_tiny_qwen2_vl",
    "qwen2.5-vl": "build_tiny_qwen2_5_vl",
}


def _tiny_model(args: argparse.Namespace) -> None:
    from symphony_bench.plugin.devtools import tiny_models

    print(getattr(tiny_models, TINY_MODELS[args.architecture])(args.out))


def _default_model(args: argparse.Namespace) -> None:
    from symphony_bench.plugin.devtools.default_model import default_model_path, local_model_path

    print(local_model_path(args.source) if args.source else default_model_path())


def _add_own_commands(commands) -> None:
    paths = commands.add_parser("tasks-path", help="print the directory to pass to --include_path")
    paths.add_argument(
        "--harness",
        choices=sorted(HARNESS_TASK_FOLDERS),
        default="lm-eval",
        help="lm-eval (text tasks, the default) or lmms-eval (audio, image and grounding tasks)",
    )
    for benchmark in benchmarks().values():
        if benchmark.tasks_path:
            benchmark.tasks_path.add_arguments(paths)
    paths.set_defaults(run=_tasks_path)
    tiny = commands.add_parser(
        "tiny-model",
        help="write a tiny random model for smoke runs of the plumbing (its answers mean "
        f"nothing): {', '.join(sorted(TINY_MODELS))} (llama: lm-eval hf; the others: lmms-eval)",
    )
    tiny.add_argument("architecture", choices=sorted(TINY_MODELS))
    tiny.add_argument("--out", type=Path, required=True)
    tiny.set_defaults(run=_tiny_model)
    model = commands.add_parser(
        "default-model",
        help="print (creating it on first use) the embedded SmolLM2-135M-Instruct folder, or the "
        "folder lm-eval loads for SOURCE",
    )
    model.add_argument(
        "source",
        type=Path,
        nargs="?",
        help="a .gguf file (converted once, cached) or a transformers model folder",
    )
    model.set_defaults(run=_default_model)


def parser() -> argparse.ArgumentParser:
    root = argparse.ArgumentParser(prog="symphony-bench", description=__doc__.splitlines()[0])
    commands = root.add_subparsers(dest="command", required=True)
    _add_own_commands(commands)
    run_commands.add_commands(commands)
    builder_commands.add_commands(commands)
    tcav_command.add_commands(commands)
    return root


def main(argv: list[str] | None = None) -> int:
    try:
        args = parser().parse_args(
            argv
        )  # the parser reads the registry (NoBenchmarks: a ValueError)
        status = args.run(args)
    except (DataFileError, OSError, ValueError) as error:
        print(f"symphony-bench: error: {error}", file=sys.stderr)
        return 2
    except (KeyboardInterrupt, Terminated) as stop:
        print(
            "symphony-bench: stopped; nothing half-done is left behind (no partial output folder, no partial Hub "
            "commit)",
            file=sys.stderr,
        )
        return stop.code if isinstance(stop, Terminated) else 130
    return (
        status if isinstance(status, int) else 0
    )  # `check` and `compare` report through their status


if __name__ == "__main__":
    sys.exit(main())
