"""The harnesses' indexes of their own built-in tasks, parsed once per test session: every command
a test starts finds `task_index_cache/sitecustomize.py` on PYTHONPATH and the session's folder for
the indexes in SYMPHONY_TEST_TASK_INDEX (shared by the xdist workers). Each `lm_eval` start
otherwise spends about 6 s parsing lm-eval's 14,683 task files, which no test changes."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

HOOK = Path(__file__).parent / "task_index_cache"


@pytest.fixture(scope="session", autouse=True)
def harness_task_indexes_parsed_once(tmp_path_factory):
    base = tmp_path_factory.getbasetemp()
    folder = (base.parent if os.environ.get("PYTEST_XDIST_WORKER") else base) / "task-index"
    folder.mkdir(exist_ok=True)
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("SYMPHONY_TEST_TASK_INDEX", str(folder))
        patch.setenv("PYTHONPATH", str(HOOK), prepend=os.pathsep)
        yield folder
