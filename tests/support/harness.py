"""Driving the real command lines offline (lm_eval, lmms-eval, symphony-bench) and reading the
results and samples files the harnesses write."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from functools import cache
from pathlib import Path

from symphony_bench.plugin.core.task_folders import tasks_path

OFFLINE_ENV = {
    "HF_HUB_OFFLINE": "1",
    "HF_DATASETS_OFFLINE": "1",
    "TRANSFORMERS_OFFLINE": "1",
    "TOKENIZERS_PARALLELISM": "false",
}


def executable(name: str) -> str:
    """The path of a command installed beside this Python (symphony-bench, lm_eval, lmms-eval...)."""
    return str(Path(sys.executable).with_name(name))


def run_cli(
    args: list[str], cwd: Path, timeout: int = 900, env: dict | None = None
) -> subprocess.CompletedProcess:
    env = {**os.environ, **OFFLINE_ENV, **(env or {})}
    return subprocess.run(args, cwd=cwd, env=env, capture_output=True, text=True, timeout=timeout)


def _run_harness(
    harness: str, model: str, model_args: str, tasks: str, output: Path, extra, env=None
):
    args = [
        executable(harness),
        "--model",
        model,
        "--model_args",
        model_args,
        "--tasks",
        tasks,
        "--include_path",
        str(tasks_path(harness.replace("_", "-"))),
        "--output_path",
        str(output),
        "--log_samples",
        *extra,
    ]
    completed = run_cli(args, cwd=output.parent, env=env)
    assert completed.returncode == 0, completed.stderr[-4000:]
    return completed


def run_lm_eval(
    model: str, model_args: str, tasks: str, output: Path, *extra: str, env: dict | None = None
) -> subprocess.CompletedProcess:
    return _run_harness(
        "lm_eval", model, model_args, tasks, output, ["--apply_chat_template", *extra], env
    )


def run_lmms_eval(
    model: str, model_args: str, tasks: str, output: Path, env: dict, *extra: str
) -> subprocess.CompletedProcess:
    """lmms-eval exits 0 on many failures: callers check the result and samples files."""
    return _run_harness("lmms-eval", model, model_args, tasks, output, extra, env)


def _only_file(output: Path, pattern: str) -> Path:
    files = sorted(output.rglob(pattern))
    assert len(files) == 1, f"expected one {pattern} file, found {files}"
    return files[0]


def read_samples(output: Path, task: str) -> list[dict]:
    """lm-eval's samples_<task>_<timestamp>.jsonl."""
    return [
        json.loads(line)
        for line in _only_file(output, f"samples_{task}_*.jsonl").read_text().splitlines()
    ]


def read_results(output: Path) -> dict:
    return json.loads(_only_file(output, "results_*.json").read_text())["results"]


def read_lmms_samples(output: Path, task: str) -> list[dict]:
    """lmms-eval's <timestamp>_samples_<task>.jsonl."""
    return [
        json.loads(line)
        for line in _only_file(output, f"*_samples_{task}.jsonl").read_text().splitlines()
    ]


def read_lmms_results(output: Path) -> dict:
    return json.loads(_only_file(output, "*_results.json").read_text())["results"]


@cache
def our_lm_eval_tasks():
    """lm-eval's task index over our folder alone, made once per test process. lm-eval's own
    tasks are left out (indexing them takes seconds each time); the command-line tests and
    tests/test_task_groups.py use the full index a user gets."""
    from lm_eval.tasks import TaskManager

    return TaskManager(include_path=str(tasks_path()), include_defaults=False)


def evaluate_in_process(model, tasks: list[str], output: Path) -> tuple[dict, dict]:
    """lm-eval's `simple_evaluate` of an in-process LM (a planted model) on our tasks, its results
    and samples saved under `output` as the CLI's `--log_samples --output_path` would: (the
    results' "results" section, {task: samples})."""
    from lm_eval import simple_evaluate
    from lm_eval.loggers import EvaluationTracker

    results = simple_evaluate(
        model=model,
        tasks=tasks,
        task_manager=our_lm_eval_tasks(),
        log_samples=True,
    )
    samples = results.pop("samples")
    tracker = EvaluationTracker(output_path=str(output))
    tracker.save_results_aggregated(results=results, samples=samples)
    for task_name in results["configs"]:
        tracker.save_results_samples(task_name=task_name, samples=samples[task_name])
    return results["results"], samples


def run_symphony_bench(args: list[str], cwd: Path) -> subprocess.CompletedProcess:
    """The installed `symphony-bench` command line, offline, as a user runs it."""
    return run_cli([executable("symphony-bench"), *args], cwd=cwd)
