"""Failures the tests provoke: a rename that fails as a full disk would, an open() that blocks."""

from __future__ import annotations

import contextlib
import os
import signal
from pathlib import Path


def fail_renames_onto(monkeypatch, name: str) -> None:
    """os.replace / os.rename of a staged file or folder onto a target called `name` fails (as a
    full disk or a vanished mount would), every other rename works."""
    for function in ("replace", "rename"):
        real = getattr(os, function)

        def failing(source, target, *args, real=real, **kwargs):
            if Path(target).name == name and Path(source).name.endswith(".tmp"):
                raise OSError(5, "Input/output error", str(source))
            return real(source, target, *args, **kwargs)

        monkeypatch.setattr(os, function, failing)


@contextlib.contextmanager
def no_hang(seconds: int = 20):
    """A blocked open() is interrupted after `seconds`: the test fails instead of hanging."""

    def hung(signum, frame):
        raise TimeoutError(f"still blocked after {seconds} s")

    previous = signal.signal(signal.SIGALRM, hung)
    signal.alarm(seconds)
    try:
        yield
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, previous)
