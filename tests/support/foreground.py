"""Ctrl-C as a terminal's foreground command gets it, for every command the tests start.

A suite started in the background of a script (`pytest ... &`) inherits SIGINT ignored, and an
ignored signal stays ignored across exec: every `symphony-bench` a test starts would then ignore the
Ctrl-C the stop tests send, finish its work and exit 0. A handler installed here is reset to the
default action in each child instead."""

from __future__ import annotations

import signal


def pytest_configure(config) -> None:
    if signal.getsignal(signal.SIGINT) is signal.SIG_IGN:
        signal.signal(signal.SIGINT, signal.default_int_handler)
