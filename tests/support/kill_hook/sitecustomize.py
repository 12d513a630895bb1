"""Python loads this module at start when its folder is on PYTHONPATH (the kill tests put it there
for a real `symphony-bench`): with SYMPHONY_KILL_AT=N it sends the process SYMPHONY_KILL_SIGNAL
(default SIGTERM) just before the N-th file step of the staged outputs (a staged file opened, a
rename, a replace, a link: every commit point), and prints how many steps the command took."""

from __future__ import annotations

import atexit
import os
import signal
import sys

STEPS = frozenset({"fdopen", "rename", "replace", "link"})


class SteppingOs:
    """`os` as the atomic-writes module sees it, counting the steps it takes."""

    def __init__(self, kill_at: int, signum: int) -> None:
        self.kill_at, self.signum, self.steps = kill_at, signum, 0

    def __getattr__(self, name: str):
        real = getattr(os, name)
        if name not in STEPS:
            return real

        def step(*args, **kwargs):
            self.steps += 1
            if self.steps == self.kill_at:
                os.kill(os.getpid(), self.signum)
            return real(*args, **kwargs)

        return step


if "SYMPHONY_KILL_AT" in os.environ:
    from symphony_bench.plugin.core import atomic

    stepping = SteppingOs(
        int(os.environ["SYMPHONY_KILL_AT"]),
        getattr(signal, os.environ.get("SYMPHONY_KILL_SIGNAL", "SIGTERM")),
    )
    atomic.os = stepping
    atexit.register(lambda: print(f"kill hook: {stepping.steps} steps", file=sys.stderr))
