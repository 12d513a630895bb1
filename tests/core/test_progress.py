"""Long builds show their progress: a bar on a terminal, a plain line in a log."""

from __future__ import annotations

import fcntl
import os
import pty
import struct
import subprocess
import sys
import termios
from pathlib import Path

import pytest

SYMPHONY_BENCH = str(Path(sys.executable).with_name("symphony-bench"))


def build_synthmic(out: Path, stderr) -> subprocess.CompletedProcess:
    return subprocess.run(
        [SYMPHONY_BENCH, "build", "synthmic", "--out", str(out), "--clips", "3", "--seed", "3"],
        stdout=subprocess.PIPE,
        stderr=stderr,
        timeout=300,
        check=True,
    )


@pytest.mark.e2e
def test_a_build_on_a_terminal_shows_a_bar_that_reaches_the_end(tmp_path):
    leader, follower = pty.openpty()
    fcntl.ioctl(follower, termios.TIOCSWINSZ, struct.pack("HHHH", 24, 100, 0, 0))  # rows, columns
    try:
        build_synthmic(tmp_path / "tty", stderr=follower)
        os.close(follower)
        shown = b""
        while chunk := _read(leader):
            shown += chunk
    finally:
        os.close(leader)
    text = shown.decode()
    assert "rendering clips" in text and "3/3" in text
    assert "█" in text or "#" in text  # a drawn bar


@pytest.mark.e2e
def test_a_build_into_a_log_writes_plain_lines(tmp_path):
    completed = build_synthmic(tmp_path / "log", stderr=subprocess.PIPE)
    lines = completed.stderr.decode().replace("\r", "\n").splitlines()
    counted = [line for line in lines if line.startswith("rendering clips")]
    assert counted and counted[-1].startswith("rendering clips: 100%|##########| 3/3 ")
    assert all(line.isascii() for line in counted)


def _read(descriptor: int) -> bytes:
    try:
        return os.read(descriptor, 65536)
    except OSError:  # the terminal's other end closed
        return b""
