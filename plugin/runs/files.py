"""The files a harness writes into a run folder, found by their names: per model folder (the folder
a harness writes one model's files into) a results file per run and a samples file per task and run
(with `--log_samples`). Both harnesses' names are known; every other file is passed over.

    lm-eval      results_<time>.json          samples_<task>_<time>.jsonl
    lmms-eval    <time>_results.json          <time>_samples_<task>.jsonl
"""

from __future__ import annotations

import collections
import json
import os
import re
import stat
import sys
from dataclasses import dataclass
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


def regular_file_problem(path: Path) -> str | None:
    """Why `path` cannot be read as a file of a run (a FIFO would block a reader forever), or None."""
    try:
        mode = path.stat().st_mode
    except OSError as error:
        return f"cannot read it ({error.strerror or error})"
    return None if stat.S_ISREG(mode) else "not a regular file"


_SAID: set[str] = set()


def say_skipped(path: Path, why: str) -> None:
    """A file or folder of a run that is passed over is said on stderr, once per process."""
    line = f"symphony-bench: skipped {path}: {why}"
    if line not in _SAID:
        _SAID.add(line)
        print(line, file=sys.stderr)


@dataclass(frozen=True)
class RunFiles:
    """The harness files under a run folder (symbolic links to folders followed), and what was passed
    over, each with why (said on stderr)."""

    samples: list[Path]
    results: list[Path]
    skipped: list[tuple[Path, str]]


def run_files(run_dir: Path) -> RunFiles:
    if not run_dir.is_dir():
        raise DataFileError(f"{run_dir}: not a directory")
    samples, results, skipped, seen = [], [], [], set()

    def unreadable(error: OSError) -> None:
        skipped.append(
            (Path(error.filename), f"cannot read the folder ({error.strerror or error})")
        )

    for folder, subfolders, names in os.walk(run_dir, followlinks=True, onerror=unreadable):
        real = os.path.realpath(folder)
        if real in seen:  # a link back up the tree: each folder once
            subfolders.clear()
            continue
        seen.add(real)
        subfolders.sort()
        for name in sorted(names):
            found_in = (
                samples if samples_file_match(name) else results if results_stamp(name) else None
            )
            if found_in is None:
                continue
            path = Path(folder) / name
            problem = regular_file_problem(path)
            if problem:
                skipped.append((path, problem))
            else:
                found_in.append(path)
    for path, why in skipped:
        say_skipped(path, why)
    return RunFiles(sorted(samples), sorted(results), skipped)


def refuse_unreadable(run_dirs: list[Path]) -> None:
    """DataFileError naming what under `run_dirs` could not be read (a model folder or a harness file
    of a run would be left out of the numbers unseen): `--skip-unreadable` reads the rest."""
    skipped = [
        (path, why)
        for run_dir in run_dirs
        for path, why in run_files(Path(run_dir)).skipped
        if why.startswith("cannot read")  # a FIFO or a device is no run file: passed over
    ]
    if skipped:
        said = "; ".join(f"{path}: {why}" for path, why in skipped[:3])
        more = f" (and {len(skipped) - 3} more)" if len(skipped) > 3 else ""
        raise DataFileError(
            f"cannot read {said}{more}: fix its permissions, or pass --skip-unreadable to leave it out"
        )


def no_samples_error(run_dir: Path) -> DataFileError:
    """The error for a run folder without a samples file of ours: what was skipped, if anything was,
    else how to get samples files."""
    skipped = run_files(run_dir).skipped
    if skipped:
        said = "; ".join(f"{path}: {why}" for path, why in skipped[:3])
        return DataFileError(
            f"{run_dir}: no readable symphony-bench samples files (skipped {said})"
        )
    return DataFileError(
        f"{run_dir}: no symphony-bench samples files (run lm_eval or lmms-eval with --log_samples "
        "--output_path)"
    )


def newest_samples(paths) -> dict[tuple[Path, str], Path]:
    """{(folder, task): its newest samples file} among `paths` (the time stamp in the name decides);
    a name that is no samples file's is left out."""
    newest: dict[tuple[Path, str], tuple[str, Path]] = {}
    for path in paths:
        match = samples_file_match(path.name)
        if not match:
            continue
        key = (path.parent, match["task"])
        if key not in newest or match["stamp"] > newest[key][0]:
            newest[key] = (match["stamp"], path)
    return {key: path for key, (_, path) in newest.items()}


def newest_samples_files(model_folder: Path) -> dict[str, Path]:
    """{task: its newest samples file} in one model folder."""
    paths = (p for p in model_folder.glob("*samples_*.jsonl") if not regular_file_problem(p))
    return {task: path for (_, task), path in newest_samples(paths).items()}


def latest_sample_files(run_dir: Path) -> dict[str, tuple[str, str, Path]]:
    """{task label: (task, folder label, newest samples file)} of every model folder under
    `run_dir`. The label is the task name, prefixed by the folder label (the model folder's path
    under `run_dir`) when several folders ran the same task (two folders of the same name in
    different places are two runs); the folder label is "" when the task name is the label."""
    newest = {
        (folder.relative_to(run_dir), task): path
        for (folder, task), path in newest_samples(run_files(run_dir).samples).items()
    }
    task_counts = collections.Counter(task for _, task in newest)
    found = {}
    for (folder, task), path in sorted(newest.items()):
        folder_label = "" if task_counts[task] == 1 else folder.as_posix()
        found[f"{folder_label}/{task}" if folder_label else task] = (task, folder_label, path)
    return found


def newest_results_file(model_folder: Path) -> Path:
    stamped = [
        (stamp, path)
        for path in model_folder.glob("*.json")
        if (stamp := results_stamp(path.name)) and not regular_file_problem(path)
    ]
    if not stamped:
        raise DataFileError(
            f"{model_folder}: no lm-eval or lmms-eval results file (results_<time>.json, "
            "<time>_results.json)"
        )
    return max(stamped)[1]


def results_files(run_dir: Path) -> list[Path]:
    """Every results file under `run_dir` (an exported `*results*.json` of another name is not one)."""
    return run_files(run_dir).results


def samples_files(run_dir: Path) -> dict[str, list[Path]]:
    """{task: every samples file of it under `run_dir`}."""
    found: dict[str, list[Path]] = collections.defaultdict(list)
    for path in run_files(run_dir).samples:
        found[samples_file_match(path.name)["task"]].append(path)
    return dict(found)


def has_content(path: Path) -> bool:
    """The file holds a character that is not white space (a samples file of blank lines holds no
    sample)."""
    with open(path, "rb") as handle:
        while chunk := handle.read(1 << 16):
            if chunk.strip():
                return True
    return False


def read_json(path: Path) -> dict:
    try:
        value = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, ValueError) as error:
        raise DataFileError(f"{path}: not a readable JSON file ({error})") from error
    if not isinstance(value, dict):
        raise DataFileError(f"{path}: expected a JSON object, found {type(value).__name__}")
    return value


TEXT = (str, type(None))
# what the run tooling reads of a results file: key -> (accepted types, what it must be)
RESULTS_FIELDS = {
    "results": ((dict,), "an object of tasks"),
    "configs": ((dict,), "an object of task configs"),
    "versions": ((dict,), "an object of task versions"),
    "task_hashes": ((dict,), "an object of task hashes"),
    "config": ((dict,), "an object (the run's config)"),
    "model_name": (TEXT, "a text"),
    "lm_eval_version": (TEXT, "a text"),
    "lmms_eval_version": (TEXT, "a text"),
    "transformers_version": (TEXT, "a text"),
    "chat_template_sha": (TEXT, "a text"),
}
CONFIG_FIELDS = {
    "model": (TEXT, "a text"),
    "model_args": ((dict, str, type(None)), "an object or a k=v,k=v text"),
    "model_sha": (TEXT, "a text"),
    "model_revision": (TEXT, "a text"),
    "model_dtype": (TEXT, "a text"),
}
NAMED_MODEL_ARGS = ("pretrained", "model", "revision", "dtype")


def read_results(path: Path) -> dict:
    """A harness results file, checked for the types of what the run tooling reads; a key of the
    wrong type is one error naming the file and the key."""
    results = read_json(path)
    _check_fields(path, "", results, RESULTS_FIELDS)
    config = results.get("config") or {}
    _check_fields(path, "config.", config, CONFIG_FIELDS)
    model_args = config.get("model_args")
    if isinstance(model_args, dict):
        text_args = {name: (TEXT, "a text") for name in NAMED_MODEL_ARGS}
        _check_fields(path, "config.model_args.", model_args, text_args)
    for task, task_config in (results.get("configs") or {}).items():
        if not isinstance(task_config, dict):
            raise DataFileError(
                f"{path}: 'configs.{task}' is {type(task_config).__name__}, expected an object"
            )
        for key in ("dataset_kwargs", "generation_kwargs", "metadata"):
            value = task_config.get(key)
            if value is not None and not isinstance(value, dict):
                raise DataFileError(
                    f"{path}: 'configs.{task}.{key}' is {type(value).__name__}, expected an object"
                )
    return results


def _check_fields(path: Path, prefix: str, value: dict, fields: dict) -> None:
    for key, (types, expected) in fields.items():
        if key in value and not isinstance(value[key], types):
            found = type(value[key]).__name__
            raise DataFileError(f"{path}: '{prefix}{key}' is {found}, expected {expected}")
