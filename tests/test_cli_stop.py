"""Stopping a `symphony-bench` build (Ctrl-C, SIGTERM) prints one line, exits 130 / 143 and leaves
no staging folder."""

from __future__ import annotations

import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest


@pytest.mark.e2e
@pytest.mark.parametrize(("signum", "status"), [(signal.SIGINT, 130), (signal.SIGTERM, 143)])
def test_a_stopped_build_says_so_in_one_line_and_leaves_nothing(tmp_path, signum, status):
    out = tmp_path / "synthmic"
    command = [
        str(Path(sys.executable).with_name("symphony-bench")),
        "build",
        "synthmic",
        "--out",
        str(out),
        "--clips",
        "400",
    ]
    child = subprocess.Popen(command, cwd=tmp_path, stderr=subprocess.PIPE, text=True)
    deadline = time.monotonic() + 60
    while not list(tmp_path.glob(".synthmic.staging-*/output/*")) and time.monotonic() < deadline:
        time.sleep(0.05)
    child.send_signal(signum)
    stderr = child.communicate(timeout=60)[1]
    assert child.returncode == status, stderr
    assert (
        stderr.strip().splitlines()[-1]
        == "symphony-bench: stopped; nothing half-done is left behind (no partial output folder, no partial Hub commit)"
    )
    assert "Traceback" not in stderr
    assert list(tmp_path.iterdir()) == []
