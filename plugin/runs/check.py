"""`symphony-bench check RUN_DIR --tasks T1,T2`: did a harness run really produce what was asked?

lmms-eval exits 0 on many failures (a missing stimulus set ends the run with "Error during
evaluation: RetryError[...]"), so a script or CI job cannot trust its exit status. This check
expands our group names into their tasks (from the task folders' group YAMLs) and requires, for every
task, an entry in a results file and a non-empty samples file under RUN_DIR.
"""

from __future__ import annotations

from pathlib import Path

from symphony_bench.plugin.core.dataset_source import task_yaml
from symphony_bench.plugin.core.errors import DataFileError
from symphony_bench.plugin.core.task_folders import TASKS_DIR
from symphony_bench.plugin.runs.files import has_content, read_results, results_files, samples_files


def group_members() -> dict[str, list[str]]:
    """group name -> its tasks, from every group YAML of both harnesses' task folders."""
    groups = {}
    for path in sorted(TASKS_DIR.rglob("*.yaml")):
        spec = task_yaml(path)  # parsed as the harnesses parse it (a comment may come first)
        if "group" in spec:
            groups[spec["group"]] = list(spec["task"])
    return groups


def expand(names: list[str], groups: dict[str, list[str]]) -> list[str]:
    tasks = []
    for name in names:
        tasks += expand(groups[name], groups) if name in groups else [name]
    return tasks


def reported_tasks(run_dir: Path) -> set[str]:
    """Tasks with an entry in a results file (one the harnesses name so, not any `*results*.json`)."""
    return {
        task for path in results_files(run_dir) for task in read_results(path).get("results") or {}
    }


def sampled_tasks(run_dir: Path) -> set[str]:
    """Tasks with a samples file that holds something (a file of blank lines holds no sample)."""
    return {task for task, paths in samples_files(run_dir).items() if any(map(has_content, paths))}


def missing_outputs(run_dir: Path, requested: list[str]) -> dict[str, list[str]]:
    """task -> what is missing ("results", "samples"), for each requested task (groups expanded)."""
    if run_dir.exists() and not run_dir.is_dir():
        raise DataFileError(f"{run_dir}: not a directory (the harness's --output_path)")
    # a run that failed before writing anything leaves no folder: every task is missing
    reported, sampled = (
        (reported_tasks(run_dir), sampled_tasks(run_dir)) if run_dir.is_dir() else (set(), set())
    )
    missing = {}
    for task in expand(requested, group_members()):
        gaps = [
            name
            for name, found in (("results", reported), ("samples", sampled))
            if task not in found
        ]
        if gaps:
            missing[task] = gaps
    return missing
