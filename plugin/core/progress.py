"""Progress of long builds on stderr: a tqdm bar on a terminal; elsewhere (CI logs, a file) a plain
line at most every LOG_INTERVAL_S seconds, so that a log shows the build moving without filling up.
tqdm's TQDM_* environment variables apply (TQDM_DISABLE=1 silences it)."""

from __future__ import annotations

import sys

LOG_INTERVAL_S = 30.0


def progress(total: int, what: str):
    """A tqdm counter of `total` items (`what`: e.g. "rendering clips"); a context manager, `update(n)`."""
    from tqdm import tqdm

    terminal = sys.stderr.isatty()
    return tqdm(
        total=total,
        desc=what,
        file=sys.stderr,
        mininterval=0.1 if terminal else LOG_INTERVAL_S,
        ascii=not terminal,
        dynamic_ncols=terminal,
        leave=True,
    )
