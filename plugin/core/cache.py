"""Where symphony-bench keeps what it derives once and reuses (the default model, task folders)."""

from __future__ import annotations

import os
from pathlib import Path


def cache_dir() -> Path:
    return Path(os.environ.get("SYMPHONY_BENCH_CACHE", Path.home() / ".cache" / "symphony-bench"))
