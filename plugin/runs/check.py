"""`symphony-bench check RUN_DIR --tasks T1,T2`: did a harness run really produce what was asked?

lmms-eval exits 0 on many failures (a missing stimulus set ends the run with "Error during
evaluation: RetryError[...]"), so a script or CI job cannot trust its exit status. This check
expands our group and tag names into their tasks (a group YAML's task list, the tags of the task
YAMLs) and requires, for every task, an entry in a results file and a non-empty samples file under
RUN_DIR. lmms-eval also turns a model's exception into an empty answer and goes on, so a task whose
raw generated answers (what the model wrote, before any filter) are nearly all empty
(EMPTY_ANSWERS_FAIL of them or more) fails the check too: its model never really ran. So does a task
none of whose answers could be read (UNREAD_ANSWERS_FAIL: every one; a refusal is read): its numbers
would be made of nothing.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

from symphony_bench.plugin.core.dataset_source import task_yaml
from symphony_bench.plugin.core.errors import DataFileError
from symphony_bench.plugin.core.task_folders import TASKS_DIR
from symphony_bench.plugin.runs.files import has_content, read_results, results_files, samples_files
from symphony_bench.plugin.runs.samples import sample_record
from symphony_bench.plugin.runs.sections import SECTION_OF_KIND

EMPTY_ANSWERS_FAIL = 0.9  # a model that answered fewer than 1 doc in 10 did not run
UNREAD_ANSWERS_FAIL = 1.0  # a task of whose answers nothing could be read


def bundle_members() -> dict[str, list[str]]:
    """group or tag name -> its tasks, from every YAML of both harnesses' task folders: a group
    YAML's `task:` list; each task YAML's `tag:` list, its includes merged (a task's own list
    replaces its include's), as the harnesses read them."""
    bundles: dict[str, list[str]] = {}
    for path in sorted(TASKS_DIR.rglob("*.yaml")):
        spec = task_yaml(path)  # parsed as the harnesses parse it (a comment may come first)
        if "group" in spec:
            bundles[spec["group"]] = list(spec["task"])
        elif isinstance(spec.get("task"), str):
            tags = spec.get("tag") or []
            for tag in [tags] if isinstance(tags, str) else tags:
                bundles.setdefault(tag, []).append(spec["task"])
    return bundles


def expand(names: list[str], bundles: dict[str, list[str]]) -> list[str]:
    """The tasks `names` run, groups and tags expanded (a group may list another group or a tag),
    each once, in the order first met."""
    tasks: list[str] = []
    for name in names:
        for task in expand(bundles[name], bundles) if name in bundles else [name]:
            if task not in tasks:
                tasks.append(task)
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
    """task -> what is missing ("results", "samples"), for each requested task (groups and tags
    expanded)."""
    if run_dir.exists() and not run_dir.is_dir():
        raise DataFileError(f"{run_dir}: not a directory (the harness's --output_path)")
    # a run that failed before writing anything leaves no folder: every task is missing
    reported, sampled = (
        (reported_tasks(run_dir), sampled_tasks(run_dir)) if run_dir.is_dir() else (set(), set())
    )
    missing = {}
    for task in expand(requested, bundle_members()):
        gaps = [
            name
            for name, found in (("results", reported), ("samples", sampled))
            if task not in found
        ]
        if gaps:
            missing[task] = gaps
    return missing


def answer_texts(sample: dict) -> list[str] | None:
    """The generated answers a samples line holds as the model wrote them (`resps`: lm-eval's raw
    texts, lmms-eval's texts before its reasoning tags were stripped; `filtered_resps` where there is
    no `resps`), or None when it holds none (a log-likelihood task's numbers, an unreadable line)."""
    answers = sample.get("resps", sample.get("filtered_resps"))
    texts = []
    pending = [answers]
    while pending:
        value = pending.pop()
        if isinstance(value, list):
            pending += value
        elif isinstance(value, str):
            texts.append(value)
        else:
            return None
    return texts or None


@dataclass
class AnswerCounts:
    """A task's samples with generated answers, those whose answers are all blank, and its records
    from which nothing could be read (a refusal is read)."""

    answered: int = 0
    empty: int = 0
    records: int = 0
    unread: int = 0

    def count(self, sample: dict) -> None:
        texts = answer_texts(sample)
        if texts is not None:
            self.answered += 1
            self.empty += not any(text.strip() for text in texts)
        record = sample_record(sample)
        if record is not None:
            self.records += 1
            self.unread += SECTION_OF_KIND[record["kind"]].no_reading_reason(record) not in (
                "",
                "refused",
            )


def answer_counts(paths: list[Path]) -> AnswerCounts:
    counts = AnswerCounts()
    for path in paths:
        with open(path, encoding="utf-8", errors="replace") as lines:
            for line in lines:
                try:
                    sample = json.loads(line)
                except ValueError:
                    continue  # report and compare name a damaged line; check counts answers
                if isinstance(sample, dict):
                    counts.count(sample)
    return counts


def silent_failures(
    run_dir: Path,
    requested: list[str],
    empty_share: float = EMPTY_ANSWERS_FAIL,
    unread_share: float = UNREAD_ANSWERS_FAIL,
) -> dict[str, str]:
    """task -> why its run made no numbers, for each requested task whose raw generated answers
    are `empty_share` or more blank, or whose records are `unread_share` or more unread."""
    found = samples_files(run_dir) if run_dir.is_dir() else {}
    failures = {}
    for task in expand(requested, bundle_members()):
        counts = answer_counts(found.get(task, []))
        if counts.answered and counts.empty >= empty_share * counts.answered:
            failures[task] = (
                f"{counts.empty} of {counts.answered} answers are empty: the model never ran "
                "(lmms-eval writes an empty answer when the model raises; see the harness log for the "
                "exception)"
            )
        elif counts.records and counts.unread >= unread_share * counts.records:
            failures[task] = (
                f"nothing could be read from {counts.unread} of {counts.records} answers (see the "
                "report's invalid reasons; --unread-share sets how many may be)"
            )
    return failures
