"""`leaderboard --verify` and `--rescore`: a submitted run checked against its raw answers before it
is ranked (plugin.runs.verify), and every run read by the installed readers (plugin.runs.rescore)
so that no entry is ranked on another reader's readings.

`--verify` adds to the board, per RUN_DIR, whether it verified and its problems; rows of one entry
whose records name different reader versions are marked. `--rescore` ranks copies of the runs
re-read into a temporary folder (each under its RUN_DIR's name), the RUN_DIRs left as they are.
"""

from __future__ import annotations

import contextlib
import tempfile
from collections.abc import Iterator
from pathlib import Path

from symphony_bench.plugin.core.atomic import StagedOutputs
from symphony_bench.plugin.core.reporting import md
from symphony_bench.plugin.core.run_facts import READER_VERSION
from symphony_bench.plugin.core.sections import entry_label
from symphony_bench.plugin.runs.rescore import rescore
from symphony_bench.plugin.runs.verify import render, verify_run


@contextlib.contextmanager
def rescored_runs(run_dirs: list[Path]) -> Iterator[dict[Path, Path]]:
    """{RUN_DIR: its rescored copy}, the copies removed on exit."""
    with tempfile.TemporaryDirectory(prefix="symphony-rescored-") as scratch:
        copies = {}
        for k, run_dir in enumerate(run_dirs):
            copy = Path(scratch) / str(k) / (run_dir.resolve().name or "run")
            staged = StagedOutputs()
            rescore(run_dir, copy, staged)
            staged.commit()
            copies[run_dir] = copy
        yield copies


def verification(run_dirs: list[Path]) -> dict[str, dict]:
    """{RUN_DIR: {"verified", "lines", "reader_versions"}} of every RUN_DIR."""
    checked = {}
    for run_dir in run_dirs:
        result = verify_run(run_dir)
        checked[str(run_dir)] = {
            "verified": not result["problems"],
            "lines": render(result)[1:],
            "reader_versions": result["reader_versions"],
        }
    return checked


def mark_reader_versions(board: dict) -> None:
    """Marks (row["reader_differs"]) the rows of every entry whose records name more than one reader
    version between them."""
    by_entry: dict[str, list[dict]] = {}
    for row in board["rows"]:
        by_entry.setdefault(entry_label(row["task"], row["variant"]), []).append(row)
    for rows in by_entry.values():
        versions = {row["provenance"]["task"].get(READER_VERSION) for row in rows}
        for row in rows:
            row["reader_differs"] = len(versions) > 1


def notes(board: dict) -> list[str]:
    """The Markdown the leaderboard adds: each RUN_DIR's verification, the reader version of every
    row, and the rows read by different readers."""
    lines = []
    checked = board.get("verification")
    if checked is not None:
        lines += ["## Verification", ""]
        for run_dir, result in checked.items():
            verdict = "verified" if result["verified"] else "FAILED verification"
            lines.append(f"- {md(run_dir)}: {verdict}")
            lines += [f"  - {md(line)}" for line in result["lines"]]
        lines += [
            "",
            "| model | entry | reader version | rows of this entry read by different readers |",
        ]
        lines.append("|---|---|---|---|")
        for row in board["rows"]:
            version = row["provenance"]["task"].get(READER_VERSION) or "(none recorded)"
            mark = "**yes: rescore before ranking**" if row.get("reader_differs") else "no"
            entry = entry_label(row["task"], row["variant"])
            lines.append(f"| {md(row['model'])} | {md(entry)} | {md(version)} | {mark} |")
        lines.append("")
    if board.get("rescored"):
        lines += [
            "Every run was re-read with the installed readers before ranking (--rescore).",
            "",
        ]
    return lines
