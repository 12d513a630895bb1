"""The suite gives the commands its tests start Ctrl-C's default action, even when it was started
with SIGINT ignored (in the background of a script)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

TESTS = Path(__file__).parent
# exec keeps an ignored signal ignored: how a shell starts `pytest ... &`
IGNORING_CTRL_C = (
    "import os, signal, sys; signal.signal(signal.SIGINT, signal.SIG_IGN); "
    "os.execv(sys.executable, [sys.executable, *sys.argv[1:]])"
)
CHILD_CHECK = """
import subprocess, sys

def test_a_started_command_gets_the_default_ctrl_c():
    shown = subprocess.run(
        [sys.executable, "-c", "import signal; print(signal.getsignal(signal.SIGINT).__name__)"],
        capture_output=True, text=True, check=True,
    )
    assert shown.stdout.strip() == "default_int_handler"
"""


def pytest_in_the_background(tmp_path: Path, *plugins: str) -> subprocess.CompletedProcess:
    """pytest on CHILD_CHECK, started with SIGINT ignored as `&` in a script starts it."""
    (tmp_path / "test_child.py").write_text(CHILD_CHECK)
    options = [option for plugin in plugins for option in ("-p", plugin)]
    pytest_args = ["-m", "pytest", "-q", "-p", "no:cacheprovider", *options]
    return subprocess.run(
        [
            sys.executable,
            "-c",
            IGNORING_CTRL_C,
            *pytest_args,
            "--rootdir",
            str(tmp_path),
            str(tmp_path / "test_child.py"),
        ],
        cwd=tmp_path,
        env={**os.environ, "PYTHONPATH": str(TESTS)},
        capture_output=True,
        text=True,
        timeout=300,
    )


@pytest.mark.parametrize(
    ("plugins", "outcome"), [((), "1 failed"), (("support.foreground",), "1 passed")]
)
def test_a_suite_started_in_the_background_still_stops_its_commands_with_ctrl_c(
    tmp_path, plugins, outcome
):
    finished = pytest_in_the_background(tmp_path, *plugins)
    assert outcome in finished.stdout, finished.stdout + finished.stderr
