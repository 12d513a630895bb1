"""The subcommands that read a run's raw answers again: `rescore` and `verify` (standard library
at import, as every command module the CLI loads at start)."""

from __future__ import annotations

import argparse
import json
from pathlib import Path


def add_commands(commands) -> None:
    rescore = commands.add_parser(
        "rescore",
        help="re-read every raw answer of a run with the installed readers into a new run folder, "
        "and say what changed",
    )
    rescore.add_argument("run_dir", type=Path, help="the --output_path directory (left as it is)")
    rescore.add_argument(
        "--out", type=Path, required=True, help="the new run folder (same layout; replaced)"
    )
    rescore.add_argument("--markdown", type=Path, help="write the summary as Markdown here too")
    rescore.set_defaults(run=run_rescore)
    verify = commands.add_parser(
        "verify",
        help="exit 1 unless every record, results value and provenance fact agrees with the "
        "run's raw answers read again",
    )
    verify.add_argument("run_dir", type=Path, help="the --output_path directory")
    verify.add_argument("--json", type=Path, help="write what was found as JSON here")
    verify.add_argument(
        "--docs",
        action="store_true",
        help="also build every lm-eval task's docs as its task builds them (the options its results "
        "file recorded) and compare each logged doc (loads lm-eval: seconds per task)",
    )
    verify.set_defaults(run=run_verify)


def run_rescore(args: argparse.Namespace) -> int:
    from symphony_bench.plugin.runs.outputs import command_outputs
    from symphony_bench.plugin.runs.rescore import render, rescore

    with command_outputs([args.run_dir]) as outputs:
        summary = rescore(args.run_dir, args.out, outputs)
        markdown = render(summary)
        if args.markdown:
            outputs.text(args.markdown, markdown)
    print(markdown)
    return 0


def run_verify(args: argparse.Namespace) -> int:
    from symphony_bench.plugin.runs.outputs import command_outputs
    from symphony_bench.plugin.runs.verify import render, verify_run

    result = verify_run(args.run_dir, docs=args.docs)
    if args.json:
        with command_outputs([args.run_dir]) as outputs:
            outputs.text(args.json, json.dumps(result, indent=2) + "\n")
    print("\n".join(render(result)))
    return 1 if result["problems"] else 0
