"""Staged folders: never over an input or another builder's output, nothing left behind after an
error, Ctrl-C, SIGTERM or (on the next build) SIGKILL."""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest
from support.failures import fail_renames_onto

from symphony_bench.plugin.core.atomic import (
    BUILD_MARKER,
    HOST_TAG,
    current_umask,
    output_kind,
    refuse_overlap,
    scratch_folder,
    staged_directory,
    staged_outputs,
)
from symphony_bench.plugin.core.errors import DataFileError


def build(out: Path, kind: str | None = "openmic", inputs=(), content: str = "new") -> None:
    with staged_directory(out, kind, inputs) as staging:
        (staging / "data.txt").write_text(content)


def debris(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.iterdir() if p.name.startswith("."))


def test_the_marker_records_the_kind_and_a_rebuild_of_that_kind_replaces_the_folder(tmp_path):
    build(tmp_path / "out", content="first")
    assert output_kind(tmp_path / "out") == "openmic"
    build(tmp_path / "out", content="second")
    assert (tmp_path / "out" / "data.txt").read_text() == "second" and not debris(tmp_path)


@pytest.mark.parametrize(
    "first, second, message",
    [
        ("symphony-bias-image", "symphony-bias-audio", "holds a 'symphony-bias-image' output"),
        ("tcav-cache", None, "holds a 'tcav-cache' output"),
        (None, "openmic", "does not record which builder wrote it"),
    ],
)
def test_another_kind_of_output_is_refused_and_kept(tmp_path, first, second, message):
    build(tmp_path / "out", kind=first, content="kept")
    with pytest.raises(DataFileError, match=message):
        build(tmp_path / "out", kind=second)
    assert (tmp_path / "out" / "data.txt").read_text() == "kept" and not debris(tmp_path)


def test_a_kindless_marker_is_replaced_by_a_writer_that_passes_no_kind(tmp_path):
    (tmp_path / "out").mkdir()
    (tmp_path / "out" / BUILD_MARKER).write_text(
        "written by symphony-bench; this folder may be replaced by a rebuild\n"
    )
    assert output_kind(tmp_path / "out") is None
    build(tmp_path / "out", kind=None)
    assert (tmp_path / "out" / "data.txt").read_text() == "new"


def source_folder(tmp_path: Path) -> Path:
    source = tmp_path / "source"
    (source / "sub").mkdir(parents=True)
    (source / "sub" / "clip.ogg").write_text("input")
    (source / BUILD_MARKER).write_text(
        "kind: openmic\n"
    )  # even an earlier output, once an input, is kept
    return source


@pytest.mark.parametrize(
    "out, relation",
    [
        ("source", "is"),
        ("source/sub", "lies inside"),
        (".", "contains"),
        ("link", "is"),
        ("link/sub/new", "lies inside"),
    ],
)
def test_an_output_overlapping_an_input_is_refused_and_the_input_is_untouched(
    tmp_path, out, relation
):
    source = source_folder(tmp_path)
    (tmp_path / "link").symlink_to(source)
    before = sorted(str(p) for p in source.rglob("*"))
    with pytest.raises(
        DataFileError,
        match=re.escape(
            f"it {relation} the input {source}; choose an output folder outside the inputs"
        ),
    ):
        build(tmp_path / out, inputs=[source])
    assert (
        sorted(str(p) for p in source.rglob("*")) == before
        and (source / "sub" / "clip.ogg").read_text() == "input"
    )
    assert not debris(tmp_path) and debris(source) == [BUILD_MARKER]


def test_an_input_file_inside_the_output_is_refused(tmp_path):
    archive = tmp_path / "out" / "release.tgz"
    archive.parent.mkdir()
    archive.write_bytes(b"tgz")
    with pytest.raises(DataFileError, match="contains the input"):
        refuse_overlap(tmp_path / "out", [tmp_path / "elsewhere", archive])
    refuse_overlap(tmp_path / "other", [archive])  # disjoint: fine


def test_scratch_data_and_the_staging_folder_go_on_an_exception(tmp_path):
    with pytest.raises(RuntimeError), staged_directory(tmp_path / "out", "openmic") as staging:
        (scratch_folder(staging) / "extracted.bin").write_bytes(b"x" * 100)
        raise RuntimeError("fails mid-build")
    assert list(tmp_path.iterdir()) == []


CHILD = textwrap.dedent("""
    import sys, time
    from pathlib import Path
    from symphony_bench.plugin.core.atomic import scratch_folder, staged_directory

    out, ready = Path(sys.argv[1]), Path(sys.argv[2])
    with staged_directory(out, "openmic") as staging:
        (staging / "partial.parquet").write_bytes(b"rows")
        (scratch_folder(staging) / "extracted.ogg").write_bytes(b"audio")
        ready.write_text(str(staging))
        time.sleep(3600)  # until the test stops it
""")

# Limits for processes on a loaded machine (a 2-core box running other suites): each is far above
# what the step takes there (under a second when idle), since only a hang should ever reach it.
START_S = 300
STOP_S = 300


def start_build(tmp_path: Path, out: Path) -> tuple[subprocess.Popen, Path]:
    """A build in another process, stopped mid-way; returns it and its staging folder."""
    ready = tmp_path / "ready.txt"
    ready.unlink(missing_ok=True)
    child = subprocess.Popen([sys.executable, "-c", CHILD, str(out), str(ready)])
    deadline = time.monotonic() + START_S
    while time.monotonic() < deadline:
        if ready.exists() and ready.read_text():
            return child, Path(ready.read_text()).parent
        assert child.poll() is None, "the build process ended early"
        time.sleep(0.02)
    child.kill()
    child.wait()
    raise AssertionError(f"the build process did not get going in {START_S} s")


def earlier_output(folder: Path) -> Path:
    build(folder, content="earlier")
    return folder


@pytest.mark.parametrize(
    "signum, status", [(signal.SIGTERM, 128 + signal.SIGTERM), (signal.SIGINT, -signal.SIGINT)]
)
def test_sigterm_or_ctrl_c_mid_build_removes_everything_and_keeps_the_earlier_output(
    tmp_path, signum, status
):
    work = tmp_path / "work"
    out = earlier_output(work / "out")
    child, staging = start_build(tmp_path, out)
    try:
        assert staging.parent == work and (staging / "scratch" / "extracted.ogg").is_file()
        child.send_signal(signum)
        assert child.wait(timeout=STOP_S) == status
    finally:
        if child.poll() is None:
            child.kill()
            child.wait()
    assert debris(work) == [] and (out / "data.txt").read_text() == "earlier"


def test_after_sigkill_the_next_build_sweeps_the_dead_build_but_never_a_live_one(tmp_path):
    work = tmp_path / "work"
    out = earlier_output(work / "out")
    dead, dead_staging = start_build(tmp_path, out)
    dead.kill()
    dead.wait(timeout=STOP_S)
    assert debris(work) == [
        dead_staging.name
    ]  # SIGKILL cannot be caught: left until the next build
    live, live_staging = start_build(tmp_path, out)
    try:
        build(out, content="rebuilt")
        assert (
            debris(work) == [live_staging.name]
            and (live_staging / "scratch" / "extracted.ogg").is_file()
        )
        assert (out / "data.txt").read_text() == "rebuilt"
    finally:
        live.kill()
        live.wait(timeout=STOP_S)


def test_a_build_killed_between_the_two_renames_of_the_swap_gets_its_earlier_output_back(tmp_path):
    out = earlier_output(tmp_path / "out")
    finished = subprocess.run(
        [sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, text=True
    )
    staging = (
        tmp_path / f".out.staging-{int(finished.stdout)}-{HOST_TAG}-abcd1234"
    )  # a process now gone
    staging.mkdir()
    out.rename(staging / "replaced")
    with pytest.raises(
        DataFileError, match="holds a 'openmic' output"
    ):  # restored first, then protected
        build(out, kind="synthmic")
    assert (out / "data.txt").read_text() == "earlier" and debris(tmp_path) == []


def test_staging_folders_of_another_host_or_an_older_version_are_left_alone(tmp_path):
    foreign = [tmp_path / ".out.staging-1-00000000-abcd1234", tmp_path / ".out.staging-x1y2z3w4"]
    for folder in foreign:
        folder.mkdir()
    build(tmp_path / "out")
    assert debris(tmp_path) == sorted(folder.name for folder in foreign)


def test_sigterm_handling_is_only_active_during_a_build(tmp_path):
    before = signal.getsignal(signal.SIGTERM)
    with staged_directory(tmp_path / "out", "openmic"):
        assert signal.getsignal(signal.SIGTERM) is not before
    assert signal.getsignal(signal.SIGTERM) is before
    assert os.getpid()  # the test process survived


# ---- a command's output files ------------------------------------------------------------------
def write_outputs(folder: Path, text: str) -> None:
    with staged_outputs() as outputs:
        outputs.text(folder / "a.json", text)
        (outputs.folder(folder / "plots") / "plot.svg").write_text(text)
        outputs.text(folder / "b.md", text)
        outputs.text(folder / "new" / "c.csv", text)


@pytest.mark.parametrize("failing", ["a.json", "plots", "b.md", "c.csv"])
def test_a_failed_rename_puts_every_earlier_output_back(tmp_path, monkeypatch, failing):
    write_outputs(tmp_path, "old")
    (tmp_path / "new" / "c.csv").unlink()  # an output that did not exist before
    fail_renames_onto(monkeypatch, failing)
    with pytest.raises(DataFileError) as raised:
        write_outputs(tmp_path, "new")
    target = next(path for path in tmp_path.rglob(failing)) if failing != "c.csv" else None
    message = str(raised.value)
    assert str(target or tmp_path / "new" / "c.csv") in message and ".tmp" not in message
    assert (tmp_path / "a.json").read_text() == "old" and (tmp_path / "b.md").read_text() == "old"
    assert (tmp_path / "plots" / "plot.svg").read_text() == "old"
    assert not (tmp_path / "new" / "c.csv").exists()
    assert debris(tmp_path) == [] and debris(tmp_path / "new") == []


def test_a_file_output_over_a_folder_is_refused_before_anything_is_written(tmp_path):
    (tmp_path / "a.json").write_text("old")
    (tmp_path / "b.md").mkdir()
    with pytest.raises(DataFileError, match=re.escape(f"{tmp_path / 'b.md'}: is a folder")):
        write_outputs(tmp_path, "new")
    assert (tmp_path / "a.json").read_text() == "old" and (tmp_path / "b.md").is_dir()
    assert sorted(path.name for path in tmp_path.iterdir()) == ["a.json", "b.md"]


@pytest.mark.parametrize("umask", [0o022, 0o077, 0o002])
def test_outputs_and_built_folders_honour_the_umask(tmp_path, umask):
    previous = os.umask(umask)
    try:
        write_outputs(tmp_path, "new")
        build(tmp_path / "out")
    finally:
        os.umask(previous)
    for path in (tmp_path / "a.json", tmp_path / "b.md", tmp_path / "new" / "c.csv"):
        assert path.stat().st_mode & 0o777 == 0o666 & ~umask, path
    for folder in (tmp_path / "plots", tmp_path / "new", tmp_path / "out"):
        assert folder.stat().st_mode & 0o777 == 0o777 & ~umask, folder
    assert (tmp_path / "out" / "data.txt").stat().st_mode & 0o777 == 0o666 & ~umask
    assert current_umask() == previous


def test_ctrl_c_during_the_renames_puts_every_earlier_output_back(tmp_path, monkeypatch):
    write_outputs(tmp_path, "old")
    real = os.replace

    def interrupted(source, target, *args, **kwargs):
        if Path(target).name == "b.md" and Path(source).name.endswith(".tmp"):
            raise KeyboardInterrupt
        return real(source, target, *args, **kwargs)

    monkeypatch.setattr(os, "replace", interrupted)
    with pytest.raises(KeyboardInterrupt):
        write_outputs(tmp_path, "new")
    assert (tmp_path / "a.json").read_text() == "old" and (tmp_path / "b.md").read_text() == "old"
    assert (tmp_path / "plots" / "plot.svg").read_text() == "old" and debris(tmp_path) == []


def test_one_path_named_for_two_outputs_is_refused(tmp_path):
    with pytest.raises(DataFileError, match="named for two outputs"), staged_outputs() as outputs:
        outputs.text(tmp_path / "same.md", "json")
        outputs.text(tmp_path / "same.md", "markdown")
    assert list(tmp_path.iterdir()) == []
