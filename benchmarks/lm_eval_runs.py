"""What the lm-eval benchmarks share: one of the suite's tasks run in this process."""

from __future__ import annotations

import time


def timed_task(lm, task: str, docs: int) -> tuple[float, list[dict]]:
    """The first `docs` docs of `task` through lm-eval's `simple_evaluate` on `lm`, with the chat
    template: the seconds it took and the task's logged samples."""
    from lm_eval import simple_evaluate
    from lm_eval.tasks import TaskManager

    from symphony_bench.plugin.core.task_folders import tasks_path

    start = time.perf_counter()
    results = simple_evaluate(
        model=lm,
        tasks=[task],
        task_manager=TaskManager(include_path=str(tasks_path()), include_defaults=False),
        limit=docs,
        log_samples=True,
        apply_chat_template=True,
    )
    return time.perf_counter() - start, results["samples"][task]
