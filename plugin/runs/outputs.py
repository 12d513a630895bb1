"""What the commands that read runs write: every output of one command appears together or not at
all, and none may be, hold or lie inside a file the command reads (a run's samples and results
files, a human-ratings table)."""

from __future__ import annotations

import contextlib
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
