"""Shared fixtures: errors not repeated at exit, and a tiny random chat model built locally. (The
helpers that drive the real CLIs live in tests/support/.)"""

from __future__ import annotations

import os

if os.environ.get("PYTEST_XDIST_WORKER"):
    # One thread per worker (and the commands it starts): with a worker per core, torch's and BLAS's
    # thread pools would otherwise oversubscribe the cores. Set before anything imports them.
    for variable in ("OMP_NUM_THREADS", "MKL_NUM_THREADS", "OPENBLAS_NUM_THREADS"):
        os.environ.setdefault(variable, "1")

from pathlib import Path  # noqa: E402

import pytest

from symphony_bench.plugin.core.errors import forget_announced
from symphony_bench.plugin.devtools.tiny_models import build_tiny_llama

pytest_plugins = ["support.foreground", "support.task_index"]


@pytest.fixture(autouse=True)
def no_repeated_errors_at_exit():
    """Errors that tests provoke on purpose are not repeated when pytest exits."""
    yield
    forget_announced()


@pytest.fixture(scope="session")
def tiny_llama(tmp_path_factory) -> Path:
    return build_tiny_llama(tmp_path_factory.mktemp("tiny-llama"))
