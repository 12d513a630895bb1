"""`symphony-bench compare BASE_RUN CAND_RUN`: the release gate. The CLI imports this module at
start-up, so at module level it imports only the standard library; the comparison itself
(plugin/compare.py: numpy, scipy, the report readers) is imported when the command runs."""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

# The paired bootstraps are many small matrix products: OpenBLAS's thread pool costs more than it
# saves there, and on a busy 2-core machine it made the statistics 4x slower (see bench_compare.py).
SINGLE_THREADED_BLAS = {"OPENBLAS_NUM_THREADS": "1", "OMP_NUM_THREADS": "1", "MKL_NUM_THREADS": "1"}


def add_command(subparsers) -> None:
    """Adds `compare` to an argparse subparsers object."""
    command = subparsers.add_parser(
        "compare",
        help="paired comparison of two runs (CANDIDATE - BASE) with intervals, and a release gate",
        description="Exit status: 0 no significant regression beyond the tolerances, 1 regression (listed), "
        "2 could not compare (runs differ, a rule matches nothing, bad input).",
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
        "--n-boot", type=int, default=1000, help="bootstrap replicates (default 1000)"
    )
    command.add_argument(
        "--seed", type=int, default=20240611, help="bootstrap seed (default 20240611)"
    )
    command.set_defaults(run=run_compare)


def write_markdown_with_plots(markdown: str, rows: list[dict], path: Path) -> None:
    """The summary, then the forest plot of changes (PNG + SVG in <stem>_plots/ beside it)."""
    from symphony_bench.plugin.core.atomic import write_text_atomically
    from symphony_bench.plugin.plots import compare_plots_section

    write_text_atomically(path, "\n".join([markdown, *compare_plots_section(rows, path)]))


def run_compare(args: argparse.Namespace) -> int:
    """Runs the comparison and the gate; returns the exit status (0 pass, 1 regression, 2 could not compare)."""
    for variable, value in SINGLE_THREADED_BLAS.items():  # read when numpy loads, i.e. just below
        os.environ.setdefault(variable, value)
    from symphony_bench.plugin.compare import (
        GateRule,
        apply_gate,
        change_rows,
        compare_runs,
        exit_status,
        write_outputs,
    )

    if args.n_boot < 2:
        raise ValueError(f"--n-boot must be at least 2, got {args.n_boot}")
    rules = [GateRule.parse(text) for text in args.fail_on]
    result = compare_runs(
        args.base_run, args.candidate_run, args.allow_mismatch, args.n_boot, args.seed
    )
    gate = apply_gate(result, rules)
    markdown = write_outputs(result, gate, args.json, None)
    if args.markdown:
        write_markdown_with_plots(markdown, change_rows(result), args.markdown)
    print(markdown)
    if not result["compared"]:
        print(
            "symphony-bench: error: the runs are not comparable item by item (--allow-mismatch compares the shared "
            f"docs anyway): {'; '.join(result['mismatches'][:3])}",
            file=sys.stderr,
        )
    return exit_status(gate)
