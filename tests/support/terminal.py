"""A command run with its stderr on a pseudo-terminal of 24 x 100 (what a user's shell gives it)."""

from __future__ import annotations

import fcntl
import os
import pty
import struct
import subprocess
import termios


def stderr_on_a_terminal(argv: list[str], timeout: float = 300, **run_options) -> str:
    """What `argv` wrote to stderr, its stderr a terminal (stdout a pipe); CalledProcessError if it
    fails. `run_options` (env, cwd) go to subprocess.run."""
    leader, follower = pty.openpty()
    fcntl.ioctl(follower, termios.TIOCSWINSZ, struct.pack("HHHH", 24, 100, 0, 0))  # rows, columns
    try:
        subprocess.run(
            argv,
            stdout=subprocess.PIPE,
            stderr=follower,
            timeout=timeout,
            check=True,
            **run_options,
        )
        os.close(follower)
        shown = b""
        while chunk := _read(leader):
            shown += chunk
    finally:
        os.close(leader)
    return shown.decode(errors="replace")


def _read(descriptor: int) -> bytes:
    try:
        return os.read(descriptor, 65536)
    except OSError:  # the terminal's other end closed
        return b""
