"""`symphony-bench report`: per-task tables and headline numbers from an lm-eval or lmms-eval run
directory, dispatched to the benchmark that owns each task.

Reads the newest samples file per model folder and task (plugin/runs/files.py). Every per-doc
record says what it is (its "kind"); the benchmark that registered that kind turns the task's
records into report entries, links tasks of one model folder, and renders its entries.
"""

from __future__ import annotations

import collections
import dataclasses
from dataclasses import dataclass
from pathlib import Path

from symphony_bench.plugin.core.errors import DataFileError
from symphony_bench.plugin.core.reasoning import reasoning_line, reasoning_summary
from symphony_bench.plugin.core.registry import report_options
from symphony_bench.plugin.core.reporting import md
from symphony_bench.plugin.core.run_facts import DATA_FIELDS
from symphony_bench.plugin.core.sections import ReportEntry, TaskRecords
from symphony_bench.plugin.runs.files import latest_sample_files, no_samples_error
from symphony_bench.plugin.runs.options_check import TaskConfigs, refuse_disagreements
from symphony_bench.plugin.runs.provenance import generation_settings
from symphony_bench.plugin.runs.samples import read_task
from symphony_bench.plugin.runs.sections import SECTION_OF_KIND, SECTIONS


@dataclass
class Report:
    entries: dict[str, ReportEntry]  # by label; `--json` writes each entry's body under its label
    tasks: list[TaskRecords] = dataclasses.field(
        default_factory=list
    )  # the records they were computed from

    def bodies(self) -> dict[str, dict]:
        """What `--json` writes."""
        return {label: entry.body for label, entry in self.entries.items()}


def run_tasks(run_dir: Path, configs: TaskConfigs | None = None) -> list[TaskRecords]:
    """The checked records of every task of ours under `run_dir` (newest samples file per model
    folder and task, in label order); refused when records contradict the options their results
    file names (plugin/runs/options_check.py)."""
    tasks = [
        read_task(path, task, label, folder_label)
        for label, (task, folder_label, path) in latest_sample_files(run_dir).items()
    ]
    tasks = [task for task in tasks if task is not None]
    refuse_disagreements(tasks, configs or TaskConfigs())
    return tasks


def build_report(run_dir: Path, options: dict | None = None) -> Report:
    """`options` carry the command line's report options (the benchmarks' `ReportOption`s, by name)
    to the sections; an option not given has its default."""
    options = {option.name: option.default for option in report_options()} | (options or {})
    report = Report({})
    tasks_by_folder: dict[Path, list[TaskRecords]] = collections.defaultdict(list)
    task_configs = TaskConfigs()
    for task in run_tasks(run_dir, task_configs):
        facts = {
            "data": data_source(task),
            "generation": generation_settings(task_configs.of(task)),
            "reasoning": reasoning_summary(task.records),
        }
        for entry in _section_entries(task, options):
            entry.body.update(facts)
            report.entries[entry.label] = entry
        tasks_by_folder[task.path.parent].append(task)
        report.tasks.append(task)
    if not report.entries:
        raise no_samples_error(run_dir)
    for tasks in tasks_by_folder.values():
        for section in SECTIONS:
            section.link(report.entries, [task for task in tasks if task.kind in section.kinds])
    return report


def data_source(task: TaskRecords) -> dict:
    """The data the task's records were made from ({field: value or None}); one dataset per task."""
    facts = {}
    for field in DATA_FIELDS:
        values = {record.get(field) for record in task.records}
        if len(values) > 1:
            raise DataFileError(
                f"{task.path}: records from more than one dataset ({field}: {sorted(map(str, values))})"
            )
        facts[field] = values.pop() if values else None
    return facts


PIN_STATUS = {True: " (the task's pin)", False: " (not the data the task is pinned to)"}


def data_line(data: dict) -> list[str]:
    """The line "Data: repo @ revision (commit 0123456789ab), content sha256 0123456789ab (the
    task's pin)", or nothing when the records name no data."""
    if not data.get("dataset_repo"):
        return []
    revision = f" @ {data['dataset_revision']}" if data.get("dataset_revision") else ""
    commit = f" (commit {data['dataset_commit'][:12]})" if data.get("dataset_commit") else ""
    digest = f", content sha256 {data['dataset_sha256'][:12]}" if data.get("dataset_sha256") else ""
    pin = PIN_STATUS.get(data.get("dataset_verified"), "")
    return [f"Data: {md(data['dataset_repo'])}{md(revision)}{commit}{digest}{pin}", ""]


def _section_entries(task: TaskRecords, options: dict) -> list[ReportEntry]:
    """The section's entries; records that are each fine but do not fit together (one instrument
    with two stereotype categories) are an error naming the file."""
    try:
        return SECTION_OF_KIND[task.kind].entries(task, options)
    except DataFileError:
        raise
    except ValueError as error:
        raise DataFileError(f"{task.path}: {error}") from error


def render_markdown(report: Report) -> str:
    entries = list(report.entries.values())
    return "\n".join([*overview_markdown(entries), *(entry_markdown(e) for e in entries)])


def overview_markdown(entries: list[ReportEntry]) -> list[str]:
    """What each benchmark prints before every entry (e.g. its overview table)."""
    lines = []
    for section in SECTIONS:
        lines += section.overview([entry for entry in entries if entry.kind in section.kinds])
    return lines


def entry_markdown(entry: ReportEntry) -> str:
    """One entry's Markdown: its benchmark's rendering, then its data, generation and reasoning."""
    lines = SECTION_OF_KIND[entry.kind].render(entry) + data_line(entry.body.get("data", {}))
    lines += generation_line(entry.body.get("generation"))
    lines += reasoning_line(entry.body.get("reasoning"))
    return "\n".join(lines)


def generation_line(settings: dict | None) -> list[str]:
    """The line "Generation: until ['}\\n'], max_gen_toks 192, ..." of a generation task."""
    if not settings:
        return []
    described = ", ".join(f"{name} {value!r}" for name, value in settings.items())
    return [f"Generation: {md(described)}", ""]
