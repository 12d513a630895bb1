"""Stopping a `symphony-bench` build and its workers (Ctrl-C, SIGTERM) prints one line, exits 130 / 143 and leaves
no staging folder."""

from __future__ import annotations

import os
import signal
import subprocess
import time

import pytest
from support.harness import executable

# A limit for each step on a loaded machine (a 2-core box running other suites): far above what the
# step takes there (seconds), since only a hang should ever reach it.
LIMIT_S = 300


@pytest.mark.e2e
@pytest.mark.parametrize("workers", [1, 2])
@pytest.mark.parametrize(("signum", "status"), [(signal.SIGINT, 130), (signal.SIGTERM, 143)])
def test_a_stopped_build_says_so_in_one_line_and_leaves_nothing(tmp_path, signum, status, workers):
    out = tmp_path / "synthmic"
    command = [
        executable("symphony-bench"),
        "build",
        "synthmic",
        "--out",
        str(out),
        "--clips",
        "400",
        "--workers",
        str(workers),
    ]
    child = subprocess.Popen(
        command, cwd=tmp_path, stderr=subprocess.PIPE, text=True, start_new_session=True
    )
    try:
        # the build is under way (its first clip written) before it is stopped
        deadline = time.monotonic() + LIMIT_S
        while not list(tmp_path.glob(".synthmic.staging-*/output/*")):
            assert child.poll() is None, "the build ended before it was stopped"
            assert time.monotonic() < deadline, f"no clip written in {LIMIT_S} s"
            time.sleep(0.05)
        os.killpg(child.pid, signum)  # as a terminal sends Ctrl-C: to the workers too
        stderr = child.communicate(timeout=LIMIT_S)[1]
    finally:
        if child.poll() is None:
            child.kill()
            child.communicate()
    assert child.returncode == status, stderr
    assert (
        stderr.strip().splitlines()[-1]
        == "symphony-bench: stopped; nothing half-done is left behind (no partial output folder, no partial Hub commit)"
    )
    assert "Traceback" not in stderr
    assert list(tmp_path.iterdir()) == []
