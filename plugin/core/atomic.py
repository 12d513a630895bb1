"""Write a directory all at once: build it in a temporary sibling, then swap it into place."""

from __future__ import annotations

import contextlib
import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path

from symphony_bench.plugin.core.errors import DataFileError

BUILD_MARKER = ".symphony-bench-build"  # only a folder holding this file may be replaced


def _check_replaceable(target: Path) -> None:
    if Path.cwd().resolve().is_relative_to(target):
        raise DataFileError(f"{target}: refusing to replace the working directory or a folder above it")
    if target.exists() and not (target.is_dir() and (not any(target.iterdir()) or (target / BUILD_MARKER).is_file())):
        raise DataFileError(f"{target}: exists and is not an earlier symphony-bench output (no {BUILD_MARKER}); choose a new or empty folder")


@contextlib.contextmanager
def staged_directory(target: Path) -> Iterator[Path]:
    """Yields an empty staging directory next to `target`; on success it replaces `target`.

    Only an empty folder or an earlier output (marked with BUILD_MARKER) is ever replaced. On an
    exception nothing is left behind and an existing `target` is untouched.
    """
    target = Path(target).resolve()
    _check_replaceable(target)
    target.parent.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(dir=target.parent, prefix=f".{target.name}.staging-"))
    try:
        yield staging
        (staging / BUILD_MARKER).write_text("written by symphony-bench; this folder may be replaced by a rebuild\n")
        staging.chmod(0o755)
        _swap(staging, target)
    finally:
        shutil.rmtree(staging, ignore_errors=True)


def _swap(staging: Path, target: Path) -> None:
    backup = None
    if target.exists():
        backup = Path(tempfile.mkdtemp(dir=target.parent, prefix=f".{target.name}.old-"))
        backup.rmdir()
        target.rename(backup)
    try:
        staging.rename(target)
    except OSError:
        if backup is not None:
            backup.rename(target)
        raise
    if backup is not None:
        shutil.rmtree(backup, ignore_errors=True)


def write_text_atomically(path: Path, text: str) -> None:
    """Write `text` to a hidden sibling file, then rename it over `path`."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    staging = path.with_name(f".{path.name}.tmp")
    staging.write_text(text, encoding="utf-8")
    staging.replace(path)
