"""Where the package's harness task folders are: one folder per harness, each with one folder per
benchmark, so that each harness's `--include_path` lists only the tasks it can run."""

from __future__ import annotations

from pathlib import Path

TASKS_DIR = Path(__file__).resolve().parents[2] / "tasks"
HARNESS_TASK_FOLDERS = {"lm-eval": "lm_eval", "lmms-eval": "lmms_eval"}


def tasks_path(harness: str = "lm-eval") -> Path:
    """The folder to pass to the harness's `--include_path`."""
    return TASKS_DIR / HARNESS_TASK_FOLDERS[harness]
