"""Write a directory all at once: build it in a hidden staging folder next to it, then swap it into
place; never over an input, never over another builder's output, and leave nothing behind.

Every build of a folder goes through `staged_directory(out, kind, inputs)`:
- `refuse_overlap`: `out` may not be, contain or lie inside any input (paths resolved, symlinks followed).
- `out` may be replaced only if it is missing, empty, or an earlier output of the same `kind`: the
  folder's BUILD_MARKER file records the kind ("openmic", "synthmic", "symphony-bias-audio",
  "symphony-bias-image", "upstream-import", "tcav-cache", "tcav-analysis"...). A marker without a
  kind (written before kinds were recorded, or by a caller that passes none) is replaced only by a
  caller that passes none either: a builder refuses it, since it cannot tell what the folder holds.
- All temporary data lives in one staging folder, `.OUT.staging-PID-HOST-XXXXXXXX` next to `out`: the
  output being written (yielded), `scratch_folder` (e.g. an extracted archive) and, during the swap,
  the replaced folder. It is removed on success, on an exception, on Ctrl-C and on SIGTERM (turned
  into `Terminated` while a build runs); after a SIGKILL the next build of `out` removes it, once
  the process named in it is gone (never a live process's, never another host's).
"""

from __future__ import annotations

import contextlib
import glob
import hashlib
import os
import re
import shutil
import signal
import socket
import tempfile
import threading
from collections.abc import Iterable, Iterator
from pathlib import Path

from symphony_bench.plugin.core.errors import DataFileError

BUILD_MARKER = ".symphony-bench-build"  # only a folder holding this file may be replaced
MARKER_TEXT = "written by symphony-bench; a rebuild of the same kind may replace this folder\n"
KIND_PREFIX = "kind: "
HOST_TAG = hashlib.sha256(socket.gethostname().encode()).hexdigest()[:8]  # pids are per host
STAGING_OWNER = re.compile(r"(\d+)-([0-9a-f]{8})-\w+")  # PID-HOST-random, after ".OUT.staging-"


class Terminated(SystemExit):
    """SIGTERM during a build: unwinds like Ctrl-C, so that the staging folder is removed."""

    def __init__(self) -> None:
        super().__init__(128 + signal.SIGTERM)


def refuse_overlap(out: Path, inputs: Iterable[Path]) -> None:
    """DataFileError if `out` is, contains or lies inside one of `inputs` (resolved: symlinks followed)."""
    target = Path(out).resolve()
    for given in inputs:
        source = Path(given).resolve()
        if target == source:
            relation = "is"
        elif source.is_relative_to(target):
            relation = "contains"
        elif target.is_relative_to(source):
            relation = "lies inside"
        else:
            continue
        raise DataFileError(
            f"{out}: refusing to write there: it {relation} the input {given}; choose an output folder outside the "
            "inputs"
        )


def output_kind(folder: Path) -> str | None:
    """The kind recorded in `folder`'s BUILD_MARKER; None for a marker from before kinds were recorded."""
    for line in (Path(folder) / BUILD_MARKER).read_text(encoding="utf-8").splitlines():
        if line.startswith(KIND_PREFIX):
            return line.removeprefix(KIND_PREFIX).strip()
    return None


def _refuse_working_directory(target: Path) -> None:
    if Path.cwd().resolve().is_relative_to(target):
        raise DataFileError(
            f"{target}: refusing to replace the working directory or a folder above it"
        )


def _check_replaceable(target: Path, kind: str | None) -> None:
    if not target.exists() or (target.is_dir() and not any(target.iterdir())):
        return
    if not (target.is_dir() and (target / BUILD_MARKER).is_file()):
        raise DataFileError(
            f"{target}: exists and is not an earlier symphony-bench output (no {BUILD_MARKER}); choose a new or empty "
            "folder"
        )
    found = output_kind(target)
    if found == kind:
        return
    writing = (
        f"this build writes a {kind!r} folder"
        if kind
        else "this writer replaces only its own kind of folder"
    )
    if found is None:
        raise DataFileError(
            f"{target}: an earlier symphony-bench output that does not record which builder wrote it; "
            f"{writing}: remove it yourself if it is stale, or choose another folder"
        )
    raise DataFileError(
        f"{target}: holds a {found!r} output (see its {BUILD_MARKER}); {writing}: choose another folder"
    )


def _process_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # another user's process
        return True
    return True


def sweep_stale_staging(target: Path) -> list[Path]:
    """Remove the staging folders of `target` left by builds killed on this host; returns them."""
    prefix = f".{target.name}.staging-"
    swept = []
    for folder in sorted(target.parent.glob(glob.escape(prefix) + "*")):
        owner = STAGING_OWNER.fullmatch(folder.name.removeprefix(prefix))
        if owner is None or owner[2] != HOST_TAG or _process_alive(int(owner[1])):
            continue
        replaced = folder / "replaced"
        if replaced.is_dir() and not target.exists():  # killed between the two renames of a swap
            replaced.rename(target)
        shutil.rmtree(folder, ignore_errors=True)
        swept.append(folder)
    return swept


def scratch_folder(staged_output: Path) -> Path:
    """A folder for temporary data beside an output that `staged_directory` yielded: removed with
    its staging folder, also after a crash."""
    scratch = Path(staged_output).parent / "scratch"
    scratch.mkdir(exist_ok=True)
    return scratch


def _raise_terminated(signum, frame) -> None:
    raise Terminated()


@contextlib.contextmanager
def sigterm_raises() -> Iterator[None]:
    """SIGTERM raises Terminated in the main thread while the block runs (handlers live there only)."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    previous = signal.signal(signal.SIGTERM, _raise_terminated)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, signal.SIG_DFL if previous is None else previous)


@contextlib.contextmanager
def staged_directory(
    target: Path, kind: str | None = None, inputs: Iterable[Path] = ()
) -> Iterator[Path]:
    """Yields an empty folder to write the output in; on success it replaces `target`.

    Refuses (DataFileError, before anything is written) a `target` that overlaps `inputs` or holds
    something other than an earlier output of `kind`. On an exception, Ctrl-C or SIGTERM nothing
    is left behind and an existing `target` is untouched.
    """
    target = Path(target).resolve()
    _refuse_working_directory(target)
    refuse_overlap(target, inputs)
    if target.parent.is_dir():
        sweep_stale_staging(
            target
        )  # first: it may put back an output that a killed swap moved aside
    _check_replaceable(target, kind)
    target.parent.mkdir(parents=True, exist_ok=True)
    staging = Path(
        tempfile.mkdtemp(
            dir=target.parent, prefix=f".{target.name}.staging-{os.getpid()}-{HOST_TAG}-"
        )
    )
    try:
        with sigterm_raises():
            output = staging / "output"
            output.mkdir()
            yield output
            (output / BUILD_MARKER).write_text(
                MARKER_TEXT + (f"{KIND_PREFIX}{kind}\n" if kind else ""), encoding="utf-8"
            )
            output.chmod(0o755)
            _swap(output, target, replaced=staging / "replaced")
    finally:
        shutil.rmtree(staging, ignore_errors=True)


def _swap(output: Path, target: Path, replaced: Path) -> None:
    """Move `target` (if any) aside into the staging folder, then `output` into its place."""
    if target.exists():
        target.rename(replaced)
    try:
        output.rename(target)
    except OSError:
        if replaced.exists():
            replaced.rename(target)
        raise


def write_text_atomically(path: Path, text: str) -> None:
    """Write `text` to a hidden sibling file of a unique name, then rename it over `path` (two
    writers of one path never share a staging file; a reader sees the old or the new text)."""
    with staged_outputs() as outputs:
        outputs.text(path, text)


class StagedOutputs:
    """A command's output files and folders, written under unique hidden names beside their targets
    and renamed into place together by `commit` (see `staged_outputs`). A target that is, holds or
    lies inside one of `inputs` is refused before anything is written."""

    def __init__(self, inputs: Iterable[Path] = ()) -> None:
        self.inputs = list(inputs)
        self.files: list[tuple[Path, Path]] = []  # (staged, target)
        self.folders: list[tuple[Path, Path]] = []
        self.created: list[Path] = []  # folders made for the outputs: removed again on a failure

    def text(self, path: Path, text: str) -> None:
        path = self._checked(path)
        handle, staged = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
        self.files.append((Path(staged), path))
        with os.fdopen(handle, "w", encoding="utf-8") as out:
            out.write(text)

    def folder(self, path: Path) -> Path:
        """An empty folder to fill; it replaces `path` (and whatever `path` held) on commit."""
        path = self._checked(path)
        staged = Path(tempfile.mkdtemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp"))
        self.folders.append((staged, path))
        return staged

    def _checked(self, path: Path) -> Path:
        path = Path(path)
        refuse_overlap(path, self.inputs)
        for folder in reversed(path.parents):
            if not folder.exists():
                folder.mkdir()
                self.created.append(folder)
        return path

    def commit(self) -> None:
        for staged, target in self.folders:
            replaced = target.with_name(f"{staged.name}.old")
            if target.exists():
                target.rename(replaced)
            staged.rename(target)
            shutil.rmtree(replaced, ignore_errors=True)
        for staged, target in self.files:
            staged.replace(target)
        self.files, self.folders, self.created = [], [], []

    def discard(self) -> None:
        for staged, _ in self.files:
            staged.unlink(missing_ok=True)
        for staged, _ in self.folders:
            shutil.rmtree(staged, ignore_errors=True)
        for folder in reversed(self.created):
            with contextlib.suppress(OSError):  # not empty: someone else wrote there meanwhile
                folder.rmdir()


@contextlib.contextmanager
def staged_outputs(inputs: Iterable[Path] = ()) -> Iterator[StagedOutputs]:
    """All outputs written through it appear together, when the block ends without an error, or
    not at all: a failure while writing any of them leaves every target as it was (and no folder
    made for them). None of them may be, hold or lie inside one of `inputs`."""
    outputs = StagedOutputs(inputs)
    try:
        yield outputs
        outputs.commit()
    finally:
        outputs.discard()
