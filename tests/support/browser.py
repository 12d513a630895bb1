"""Headless Chromium (the Debian package) for the tests that open our pages as a user does."""

from __future__ import annotations

import shutil
import subprocess


def chromium() -> str:
    found = shutil.which("chromium")
    assert found, "Chromium is not installed (Debian package: chromium)"
    return found


def run_chromium(tmp_path, url: str, *flags: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [
            chromium(),
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--enable-logging=stderr",
            "--v=0",
            f"--user-data-dir={tmp_path / 'profile'}",
            "--window-size=1200,900",
            *flags,
            url,
        ],
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    )


def console_lines(stderr: str) -> list[str]:
    """Everything the page logged (console messages and uncaught errors); the page logs nothing."""
    return [line for line in stderr.splitlines() if ":CONSOLE" in line or "Uncaught" in line]
