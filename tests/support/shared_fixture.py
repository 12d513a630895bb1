"""Work that fixtures on several xdist workers need, done once per test session: the first worker
to ask does it while the others wait (a file lock), then every worker reads its folder. Only for
outputs the tests read and never change."""

from __future__ import annotations

import os
import shutil
from collections.abc import Callable
from pathlib import Path

from filelock import FileLock


def once_per_session(tmp_path_factory, name: str, build: Callable[[Path], None]) -> Path:
    """A folder in which `build(folder)` has run to its end once in this test session; a build
    that failed is redone by the next worker to ask."""
    if not os.environ.get("PYTEST_XDIST_WORKER"):
        folder = tmp_path_factory.mktemp(name)
        build(folder)
        return folder
    root = tmp_path_factory.getbasetemp().parent  # this session's, shared by its workers
    folder, done = root / name, root / f"{name}.done"
    with FileLock(root / f"{name}.lock"):
        if not done.exists():
            shutil.rmtree(folder, ignore_errors=True)
            folder.mkdir()
            build(folder)
            done.touch()
    return folder
