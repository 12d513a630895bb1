"""Write a directory all at once: build it in a hidden staging folder next to it, then swap it into
place; never over an input, never over another builder's output, and leave nothing behind.

Every build of a folder goes through `staged_directory(out, kind, inputs)`:
- `refuse_overlap`: `out` may not be, contain or lie inside any input (paths resolved, symlinks followed).
- `out` may be replaced only if it is missing, empty, or an earlier output of the same `kind`: the
  folder's BUILD_MARKER file records the kind ("openmic", "synthmic", "symphony-bias-audio",
  "symphony-bias-image", "upstream-import", "tcav-cache", "tcav-analysis"...) and every file the
  build wrote (`recorded_files`: what `publish` sends, nothing else). A marker without a
  kind (written before kinds were recorded, or by a caller that passes none) is replaced only by a
  caller that passes none either: a builder refuses it, since it cannot tell what the folder holds.
- All temporary data lives in one staging folder, `.OUT.staging-PID-HOST-XXXXXXXX` next to `out`: the
  output being written (yielded), `scratch_folder` (e.g. an extracted archive) and, during the swap,
  the replaced folder. It is removed on success, on an exception, on Ctrl-C and on SIGTERM or SIGHUP
  (turned into `Terminated` while a build runs); after a SIGKILL the next build of `out` removes it, once
  the process named in it is gone (never a live process's, never another host's).
"""

from __future__ import annotations

import contextlib
import glob
import hashlib
import json
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
# then a JSON string: one line per file the build wrote (what `publish` sends)
FILE_PREFIX = "file: "
HOST_TAG = hashlib.sha256(socket.gethostname().encode()).hexdigest()[:8]  # pids are per host
STAGING_OWNER = re.compile(r"(\d+)-([0-9a-f]{8})-\w+")  # PID-HOST-random, after ".OUT.staging-"


# the signals that stop a command as Ctrl-C does (SIGHUP: the terminal closed; none on Windows)
STOP_SIGNALS = tuple(
    getattr(signal, name) for name in ("SIGTERM", "SIGHUP") if hasattr(signal, name)
)
LEFTOVER = re.compile(r"(\d+)-([0-9a-f]{8})-\w+\.(tmp|old)")  # PID-HOST-random, after ".NAME."


class Terminated(SystemExit):
    """SIGTERM or SIGHUP during a build or a command's writes: unwinds like Ctrl-C, so that what
    was staged is removed."""

    def __init__(self, signum: int = signal.SIGTERM) -> None:
        super().__init__(128 + signum)


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


def recorded_files(folder: Path) -> list[str] | None:
    """The files (POSIX paths in `folder`) its build wrote, as its BUILD_MARKER lists them; None for
    a marker that lists none (written before the list was recorded)."""
    marker = Path(folder) / BUILD_MARKER
    names = []
    for number, line in enumerate(marker.read_text(encoding="utf-8").splitlines(), 1):
        if line.startswith(FILE_PREFIX):
            try:
                names.append(str(json.loads(line.removeprefix(FILE_PREFIX))))
            except ValueError as error:
                raise DataFileError(
                    f"{marker}, line {number}: not a file name ({error})"
                ) from error
    return names or None


def _written_files(output: Path) -> list[str]:
    """Every regular file under `output` (links not followed), sorted; not the top's BUILD_MARKER
    (a nested staged_directory may have written one there: this build's replaces it)."""
    return sorted(
        relative
        for top, _, names in os.walk(output)
        for name in names
        if (Path(top) / name).is_file() and not (Path(top) / name).is_symlink()
        if (relative := (Path(top) / name).relative_to(output).as_posix()) != BUILD_MARKER
    )


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
    raise Terminated(signum)


@contextlib.contextmanager
def _handling(signals: Iterable[int], handler) -> Iterator[None]:
    """`handler` for `signals` while the block runs, in the main thread only (handlers live there)."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    previous = {signum: signal.signal(signum, handler) for signum in signals}
    try:
        yield
    finally:
        for signum, handler in previous.items():
            signal.signal(signum, signal.SIG_DFL if handler is None else handler)


def sigterm_raises() -> contextlib.AbstractContextManager[None]:
    """SIGTERM and SIGHUP raise Terminated in the main thread while the block runs."""
    return _handling(STOP_SIGNALS, _raise_terminated)


@contextlib.contextmanager
def signals_deferred() -> Iterator[None]:
    """SIGTERM, SIGHUP and Ctrl-C wait until the block has run (then stop as they would have): the
    renames of a commit and the removal of what it replaced are never cut in half."""
    received: list[int] = []
    with _handling((*STOP_SIGNALS, signal.SIGINT), lambda signum, frame: received.append(signum)):
        yield
    if received and received[0] == signal.SIGINT:
        raise KeyboardInterrupt
    if received:
        raise Terminated(received[0])


def sweep_leftovers(target: Path) -> list[Path]:
    """Remove the staged copies (`.NAME.PID-HOST-*.tmp`) and kept earlier outputs (`.old`) of
    `target` that a command killed on this host left; an earlier output whose new one never
    arrived is put back. Never a live process's, never another host's. Returns what it removed."""
    swept = []
    prefix = f".{target.name}."
    for leftover in sorted(target.parent.glob(glob.escape(prefix) + "*")):
        owner = LEFTOVER.fullmatch(leftover.name.removeprefix(prefix))
        if owner is None or owner[2] != HOST_TAG or _process_alive(int(owner[1])):
            continue
        if owner[3] == "old" and not os.path.lexists(target):
            os.rename(leftover, target)
            continue
        if leftover.is_dir() and not leftover.is_symlink():
            shutil.rmtree(leftover, ignore_errors=True)
        else:
            leftover.unlink(missing_ok=True)
        swept.append(leftover)
    return swept


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
            files = "".join(f"{FILE_PREFIX}{json.dumps(name)}\n" for name in _written_files(output))
            (output / BUILD_MARKER).write_text(
                MARKER_TEXT + (f"{KIND_PREFIX}{kind}\n" if kind else "") + files, encoding="utf-8"
            )
            output.chmod(folder_mode())
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


_UMASK_LOCK = threading.Lock()


def current_umask() -> int:
    """The process's umask. Linux shows it in /proc/self/status, read without changing it;
    elsewhere it is set and put back at once (os.umask is process-wide: under a lock, and set to
    0o077 meanwhile, so that a file another thread creates then is at worst too private)."""
    with contextlib.suppress(OSError, ValueError, IndexError):
        with open("/proc/self/status", encoding="ascii") as status:
            for line in status:
                if line.startswith("Umask:"):
                    return int(line.split()[1], 8)
    with _UMASK_LOCK:
        mask = os.umask(0o077)
        os.umask(mask)
    return mask


def file_mode() -> int:
    """The mode `open` gives a new file (0o666 less the umask); tempfile's files get 0o600."""
    return 0o666 & ~current_umask()


def folder_mode() -> int:
    """The mode `mkdir` gives a new folder (0o777 less the umask); tempfile's folders get 0o700."""
    return 0o777 & ~current_umask()


def _reason(error: OSError) -> str:
    """An OSError without the file names it carries (those of staged files are hidden names)."""
    return error.strerror or type(error).__name__


class StagedOutputs:
    """A command's output files and folders, written under unique hidden names beside their targets
    and renamed into place together by `commit` (see `staged_outputs`), with the modes the umask
    gives new files and folders. A target that is, holds or lies inside one of `inputs`, a file
    target that is a folder and a target given twice are refused before anything is written."""

    def __init__(self, inputs: Iterable[Path] = ()) -> None:
        self.inputs = list(inputs)
        self.files: list[tuple[Path, Path]] = []  # (staged, target)
        self.folders: list[tuple[Path, Path]] = []
        self.created: list[Path] = []  # folders made for the outputs: removed again on a failure

    def text(self, path: Path, text: str) -> None:
        path = self._checked(path)
        if path.is_dir():
            raise DataFileError(
                f"{path}: is a folder; this output is a file: remove the folder or write elsewhere"
            )
        try:
            handle, staged = tempfile.mkstemp(
                dir=path.parent, prefix=_staged_prefix(path), suffix=".tmp"
            )
            self.files.append((Path(staged), path))
            with os.fdopen(handle, "w", encoding="utf-8") as out:
                os.fchmod(out.fileno(), file_mode())
                out.write(text)
        except OSError as error:
            raise DataFileError(f"{path}: cannot write it ({_reason(error)})") from error

    def folder(self, path: Path) -> Path:
        """An empty folder to fill; it replaces `path` (and whatever `path` held) on commit."""
        path = self._checked(path)
        try:
            staged = Path(
                tempfile.mkdtemp(dir=path.parent, prefix=_staged_prefix(path), suffix=".tmp")
            )
            self.folders.append((staged, path))
            staged.chmod(folder_mode())
        except OSError as error:
            raise DataFileError(f"{path}: cannot write it ({_reason(error)})") from error
        return staged

    def _checked(self, path: Path) -> Path:
        path = Path(path)
        refuse_overlap(path, self.inputs)
        given = {target.absolute() for _, target in self.files + self.folders}
        if path.absolute() in given:
            raise DataFileError(f"{path}: named for two outputs of this command; give each its own")
        for folder in reversed(path.parents):
            if not folder.exists():
                try:
                    folder.mkdir()
                except OSError as error:
                    raise DataFileError(f"{folder}: cannot make it ({_reason(error)})") from error
                self.created.append(folder)
        sweep_leftovers(path.absolute())
        return path

    def commit(self) -> None:
        """Renames every staged output into place. Each earlier output is kept aside until all are
        in place (a file as a second link to it, so that a reader sees the old or the new file; a
        folder moved); a rename that fails puts every earlier output back and removes the new ones:
        one DataFileError naming the output that failed."""
        with signals_deferred():
            done: list[_Placed] = []
            try:
                for staged, target in [*self.folders, *self.files]:
                    done.append(_Placed(staged, target, folder=(staged, target) in self.folders))
                    done[-1].put_in_place()
            except BaseException as error:  # an interrupt raised inside a rename too
                kept = [note for undone in reversed(done) if (note := undone.roll_back())]
                if not isinstance(error, OSError):
                    raise
                what = "; ".join(kept) or "no output of this command was changed"
                raise DataFileError(
                    f"{done[-1].target}: cannot put it in place ({_reason(error)}); {what}"
                ) from error
            for placed in done:
                placed.drop_aside()
            self.files, self.folders, self.created = [], [], []

    def discard(self) -> None:
        with signals_deferred():
            self._remove_staged()

    def _remove_staged(self) -> None:
        for staged, _ in self.files:
            staged.unlink(missing_ok=True)
        for staged, _ in self.folders:
            shutil.rmtree(staged, ignore_errors=True)
        for folder in reversed(self.created):
            with contextlib.suppress(OSError):  # not empty: someone else wrote there meanwhile
                folder.rmdir()


class _Placed:
    """One staged output's commit: the earlier output kept aside as `aside` (None: there was none),
    the new one renamed over its target; undone by `roll_back`."""

    def __init__(self, staged: Path, target: Path, folder: bool) -> None:
        self.staged, self.target, self.folder = staged, target, folder
        self.aside: Path | None = None
        self.placed = False

    def put_in_place(self) -> None:
        aside = self.staged.with_name(self.staged.name.removesuffix(".tmp") + ".old")
        if self.folder:
            if os.path.lexists(self.target):
                os.rename(self.target, aside)
                self.aside = aside
            os.rename(self.staged, self.target)
        else:
            self.aside = _keep_file(self.target, aside)
            os.replace(self.staged, self.target)
        self.placed = True

    def roll_back(self) -> str | None:
        """Puts the earlier output back (removing the new one); if that fails too, says where the
        earlier output is kept."""
        try:
            if self.placed and self.folder:
                os.rename(self.target, self.staged)  # removed with the staged outputs
            elif self.placed and self.aside is None:
                self.target.unlink()
            if self.aside is not None and (self.placed or self.folder):
                os.replace(self.aside, self.target)
            elif self.aside is not None:  # a second link to the untouched target, or its copy
                self.aside.unlink()
        except OSError as error:
            where = f"kept as {self.aside}" if self.aside else "not there before"
            return f"{self.target} could not be put back ({_reason(error)}; the earlier one is {where})"
        return None

    def drop_aside(self) -> None:
        if self.aside is None:
            return
        if self.aside.is_dir() and not self.aside.is_symlink():
            shutil.rmtree(self.aside, ignore_errors=True)
        else:
            with contextlib.suppress(OSError):
                self.aside.unlink()


def _staged_prefix(target: Path) -> str:
    """`.NAME.PID-HOST-`: whose staged copy it is, so that a later run can sweep it once that
    process is gone (`sweep_leftovers`)."""
    return f".{target.name}.{os.getpid()}-{HOST_TAG}-"


def _keep_file(target: Path, aside: Path) -> Path | None:
    """A second link to the file `target` as `aside` (its copy where links are not supported);
    None if there is no `target`."""
    try:
        os.link(target, aside, follow_symlinks=False)
    except FileNotFoundError:
        return None
    except OSError:  # a file system without hard links
        try:
            shutil.copy2(target, aside, follow_symlinks=False)
        except BaseException as error:
            aside.unlink(missing_ok=True)
            if isinstance(error, FileNotFoundError):
                return None
            raise
    return aside


@contextlib.contextmanager
def staged_outputs(inputs: Iterable[Path] = ()) -> Iterator[StagedOutputs]:
    """All outputs written through it appear together, when the block ends without an error, or
    not at all: a failure while writing or renaming any of them leaves every target as it was (and
    no folder made for them). None of them may be, hold or lie inside one of `inputs`."""
    outputs = StagedOutputs(inputs)
    with sigterm_raises():
        try:
            yield outputs
            outputs.commit()
        finally:
            outputs.discard()
