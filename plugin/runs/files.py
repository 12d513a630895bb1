"""The files a harness writes into a run folder, found by their names: per model folder (the folder
a harness writes one model's files into) a results file per run and a samples file per task and run
(with `--log_samples`). Both harnesses' names are known; every other file is passed over.

    lm-eval      results_<time>.json          samples_<task>_<time>.jsonl
    lmms-eval    <time>_results.json          <time>_samples_<task>.jsonl
"""

from __future__ import annotations

import collections
import json
import re
from pathlib import Path

from symphony_bench.plugin.core.errors import DataFileError

SAMPLES_NAMES = (
    re.compile(r"^samples_(?P<task>.+)_(?P<stamp>\d{4}-\d{2}-\d{2}T[\d.\-]+)\.jsonl$"),  # lm-eval
    re.compile(r"^(?P<stamp>\d{8}_\d{6})_samples_(?P<task>.+)\.jsonl$"),  # lmms-eval
)
RESULTS_NAMES = (
    re.compile(r"^results_(?P<stamp>\d{4}-\d{2}-\d{2}T[\d.\-]+)\.json$"),  # lm-eval
    re.compile(r"^(?P<stamp>\d{8}_\d{6})_results\.json$"),  # lmms-eval
)


def samples_file_match(name: str) -> re.Match | None:
    return next((match for pattern in SAMPLES_NAMES if (match := pattern.match(name))), None)


def results_stamp(name: str) -> tuple[str, str] | None:
    """A sort key from a results file's time stamp (both harnesses' formats order the same way)."""
    for pattern in RESULTS_NAMES:
        match = pattern.match(name)
        if match:
            digits = re.sub(r"\D", "", match["stamp"])
            return digits[:14], digits[14:]
    return None


def newest_samples_files(model_folder: Path) -> dict[str, Path]:
    """{task: its newest samples file} in one model folder."""
    newest: dict[str, tuple[str, Path]] = {}
    for path in model_folder.glob("*samples_*.jsonl"):
        match = samples_file_match(path.name)
        if match and (match["task"] not in newest or match["stamp"] > newest[match["task"]][0]):
            newest[match["task"]] = (match["stamp"], path)
    return {task: path for task, (_, path) in newest.items()}


def latest_sample_files(run_dir: Path) -> dict[str, tuple[str, str, Path]]:
    """{task label: (task, folder label, newest samples file)} of every model folder under
    `run_dir`. The label is the task name, prefixed by the folder label (the model folder's path
    under `run_dir`) when several folders ran the same task (two folders of the same name in
    different places are two runs); the folder label is "" when the task name is the label."""
    if not run_dir.is_dir():
        raise DataFileError(f"{run_dir}: not a directory")
    folders = sorted({path.parent for path in run_dir.rglob("*samples_*.jsonl")})
    newest = {
        (folder.relative_to(run_dir), task): path
        for folder in folders
        for task, path in newest_samples_files(folder).items()
    }
    task_counts = collections.Counter(task for _, task in newest)
    found = {}
    for (folder, task), path in sorted(newest.items()):
        folder_label = "" if task_counts[task] == 1 else folder.as_posix()
        found[f"{folder_label}/{task}" if folder_label else task] = (task, folder_label, path)
    return found


def newest_results_file(model_folder: Path) -> Path:
    stamped = [
        (stamp, path) for path in model_folder.glob("*.json") if (stamp := results_stamp(path.name))
    ]
    if not stamped:
        raise DataFileError(
            f"{model_folder}: no lm-eval or lmms-eval results file (results_<time>.json, "
            "<time>_results.json)"
        )
    return max(stamped)[1]


def results_files(run_dir: Path) -> list[Path]:
    """Every results file under `run_dir` (an exported `*results*.json` of another name is not one)."""
    return sorted(path for path in run_dir.rglob("*.json") if results_stamp(path.name))


def samples_files(run_dir: Path) -> dict[str, list[Path]]:
    """{task: every samples file of it under `run_dir`}."""
    found: dict[str, list[Path]] = collections.defaultdict(list)
    for path in sorted(run_dir.rglob("*samples_*.jsonl")):
        match = samples_file_match(path.name)
        if match:
            found[match["task"]].append(path)
    return dict(found)


def read_json(path: Path) -> dict:
    try:
        value = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, ValueError) as error:
        raise DataFileError(f"{path}: not a readable JSON file ({error})") from error
    if not isinstance(value, dict):
        raise DataFileError(f"{path}: expected a JSON object, found {type(value).__name__}")
    return value
