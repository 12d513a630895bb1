"""Work spread over processes, results in input order: a builder that writes them as they come
writes the same bytes for any number of workers."""

from __future__ import annotations

import multiprocessing
import os
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import ProcessPoolExecutor

from symphony_bench.plugin.core.progress import progress


def available_cores() -> int:
    return len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1


def ordered_map(
    function: Callable, items: Iterable, workers: int, what: str, chunksize: int = 4
) -> Iterator:
    """function(item) for each item, in order, counted on stderr as `what`. `workers` > 1 runs
    them in that many spawned processes (`function` and the items must pickle); an error in one
    cancels the rest and is raised here."""
    items = list(items)
    with progress(len(items), what) as counter:
        if workers <= 1 or len(items) <= 1:
            for item in items:
                yield function(item)
                counter.update()
            return
        # spawned, not forked: a fork of a process with threads (pyarrow's...) can deadlock
        pool = ProcessPoolExecutor(
            max_workers=min(workers, len(items)), mp_context=multiprocessing.get_context("spawn")
        )
        try:
            for result in pool.map(function, items, chunksize=chunksize):
                yield result
                counter.update()
        finally:
            pool.shutdown(wait=True, cancel_futures=True)
