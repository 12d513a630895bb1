"""Work spread over processes, results in input order: a builder that writes them as they come
writes the same bytes for any number of workers."""

from __future__ import annotations

import importlib
import multiprocessing
import os
import signal
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import ProcessPoolExecutor

from symphony_bench.plugin.core.atomic import STOP_SIGNALS
from symphony_bench.plugin.core.progress import progress


def available_cores() -> int:
    return len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1


def _start_worker(modules: tuple[str, ...]) -> None:
    # Ctrl-C in a terminal reaches the whole process group: the parent alone stops, cancelling
    # what is queued; a worker that stopped too would break the pool mid-result with a traceback
    for signum in (*STOP_SIGNALS, signal.SIGINT):
        signal.signal(signum, signal.SIG_IGN)
    for module in modules:
        importlib.import_module(module)


class WorkerPool:
    """`workers` processes, started (and importing `preload`) as the pool is made: made before the
    caller reads and plans its input, their start-up overlaps that work. One worker or fewer: the
    work runs in this process. A context manager; leaving it stops the processes."""

    def __init__(self, workers: int, preload: tuple[str, ...] = ()):
        self.executor = None
        if workers > 1:
            # spawned, not forked: a fork of a process with threads (pyarrow's...) can deadlock
            self.executor = ProcessPoolExecutor(
                max_workers=workers,
                mp_context=multiprocessing.get_context("spawn"),
                initializer=_start_worker,
                initargs=(preload,),
            )
            for _ in range(workers):  # a process starts per task while none is idle
                self.executor.submit(int)

    def map(self, function: Callable, items: Iterable, what: str, chunksize: int = 4) -> Iterator:
        """function(item) for each item, in order, counted on stderr as `what` (`function` and the
        items must pickle); an error in one is raised here."""
        items = list(items)
        with progress(len(items), what) as counter:
            results = (
                map(function, items)
                if self.executor is None or len(items) <= 1
                else self.executor.map(function, items, chunksize=chunksize)
            )
            for result in results:
                yield result
                counter.update()

    def __enter__(self) -> WorkerPool:
        return self

    def __exit__(self, *exc) -> None:
        if self.executor is not None:
            self.executor.shutdown(wait=True, cancel_futures=True)


def ordered_map(
    function: Callable, items: Iterable, workers: int, what: str, chunksize: int = 4
) -> Iterator:
    """function(item) for each item, in order, in a WorkerPool of `workers` made for this one map;
    an error in one cancels the rest and is raised here."""
    items = list(items)
    with WorkerPool(min(workers, len(items))) as pool:
        yield from pool.map(function, items, what, chunksize)
