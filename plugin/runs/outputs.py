"""What the commands that read runs write: every output of one command appears together or not at
all, and none may be, hold or lie inside a file the command reads (a run's samples and results
files, a human-ratings table)."""

from __future__ import annotations

import contextlib
import os
from collections.abc import Iterable, Iterator
from pathlib import Path

from symphony_bench.plugin.core.atomic import StagedOutputs, staged_outputs
from symphony_bench.plugin.runs.files import run_files


def input_files(run_dirs: Iterable[Path], *others: Path | None) -> list[Path]:
    """The harness files under `run_dirs` and the other files given (None: not given)."""
    found = [Path(other) for other in others if other is not None]
    for run_dir in run_dirs:
        files = run_files(Path(run_dir))
        found += files.samples + files.results
    return found


@contextlib.contextmanager
def command_outputs(run_dirs: Iterable[Path], *others: Path | None) -> Iterator[StagedOutputs]:
    """`staged_outputs` guarded by the command's inputs (see `input_files`)."""
    with staged_outputs(input_files(run_dirs, *others)) as outputs:
        yield outputs


def add_to_job_summary(markdown: str) -> Path | None:
    """Appends `markdown` to the job summary GitHub Actions shows on the run's page (the file its
    `GITHUB_STEP_SUMMARY` variable names; the step's earlier summary kept) and returns that file;
    None outside GitHub Actions."""
    target = os.environ.get("GITHUB_STEP_SUMMARY")
    if not target:
        return None
    with open(target, "a", encoding="utf-8") as summary:
        summary.write(markdown.rstrip("\n") + "\n\n")
    return Path(target)
