"""Progress of long work on stderr: a tqdm bar when stderr is a terminal, nothing otherwise (a CI log
or a file gets no bar lines). tqdm's TQDM_* environment variables apply (TQDM_DISABLE=1 silences it
on a terminal too)."""

from __future__ import annotations

import sys


def progress(total: int, what: str):
    """A tqdm counter of `total` items (`what`: e.g. "rendering clips"); a context manager, `update(n)`."""
    from tqdm import tqdm

    return tqdm(total=total, desc=what, file=sys.stderr, disable=not sys.stderr.isatty())
