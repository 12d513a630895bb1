"""`symphony-bench report`: per-task tables and headline numbers from an lm-eval or lmms-eval run
directory, dispatched to the benchmark that owns each task.

Reads the samples files that `--log_samples` writes (lm-eval: `samples_<task>_<timestamp>.jsonl`,
lmms-eval: `<timestamp>_samples_<task>.jsonl`; the newest per model folder and task). Every per-doc
record says what it is (its "kind"); the benchmark that registered that kind turns the task's
records into report entries, links tasks of one model folder, and renders its entries.
"""

from __future__ import annotations

import collections
import re
from dataclasses import dataclass
from pathlib import Path

from symphony_bench.plugin.core.errors import DataFileError
from symphony_bench.plugin.core.reporting import ReportSection, TaskRecords
from symphony_bench.plugin.grounding.report import SECTION as GROUNDING
from symphony_bench.plugin.symphony_bias.report import SECTION as SYMPHONY_BIAS

SECTIONS: tuple[ReportSection, ...] = (SYMPHONY_BIAS, GROUNDING)
SECTION_OF_KIND = {kind: section for section in SECTIONS for kind in section.kinds}
DATA_FIELDS = (
    "dataset_repo",
    "dataset_revision",
    "dataset_commit",
)  # run facts every record carries
SAMPLES_NAMES = (
    re.compile(r"^samples_(?P<task>.+)_(?P<stamp>\d{4}-\d{2}-\d{2}T[\d.\-]+)\.jsonl$"),  # lm-eval
    re.compile(r"^(?P<stamp>\d{8}_\d{6})_samples_(?P<task>.+)\.jsonl$"),  # lmms-eval
)


@dataclass
class Report:
    entries: dict[str, dict]  # label -> entry: what `--json` writes
    sections: dict[str, ReportSection]  # label -> the section that renders it


def samples_file_match(name: str) -> re.Match | None:
    return next((match for pattern in SAMPLES_NAMES if (match := pattern.match(name))), None)


def latest_sample_files(run_dir: Path) -> dict[str, tuple[str, Path]]:
    """{task label: (task, newest samples file)}; the label is the task name, prefixed by the model
    folder's path under `run_dir` when several folders ran the same task (two folders of the same
    name in different places are two runs)."""
    newest: dict[tuple[Path, str], tuple[str, Path]] = {}
    for path in sorted(run_dir.rglob("*samples_*.jsonl")):
        match = samples_file_match(path.name)
        if match:
            key = (path.parent.relative_to(run_dir), match["task"])
            if key not in newest or match["stamp"] > newest[key][0]:
                newest[key] = (match["stamp"], path)
    task_counts = collections.Counter(task for _, task in newest)
    return {
        (task if task_counts[task] == 1 else f"{folder.as_posix()}/{task}"): (task, path)
        for (folder, task), (_, path) in sorted(newest.items())
    }


def sample_record(sample: dict) -> dict | None:
    """The per-doc record a sample holds (every metric holds the same one), if one of ours."""
    for value in sample.values():
        if isinstance(value, dict) and value.get("kind") in SECTION_OF_KIND:
            return value
    return None


def read_task_records(path: Path, task: str, label: str) -> TaskRecords | None:
    """The records of a samples file; None if no line holds one of ours (another task's file).
    A line without the file's kind of record, or a record its benchmark cannot use, is an error
    naming the file and line. The file is read once per process (plugin.provenance.SamplesContent,
    shared with provenance, `compare` and the leaderboard's paired tests)."""
    from symphony_bench.plugin.provenance import SamplesContent

    found = [(line_number, record) for line_number, _, record in SamplesContent.read(path).lines]
    records = [record for _, record in found if record is not None]
    if not records:
        return None
    kind = records[0]["kind"]
    for line_number, record in found:
        if record is None or record["kind"] != kind:
            raise DataFileError(
                f"{path}, line {line_number}: not a {kind} record like the other lines"
            )
        problem = SECTION_OF_KIND[kind].record_problem(record)
        if problem:
            raise DataFileError(f"{path}, line {line_number}: {kind} record: {problem}")
    return TaskRecords(task, label, kind, records, path)


def build_report(run_dir: Path, options: dict | None = None) -> Report:
    """`options` carry the command line's report options (e.g. human_ratings) to the sections."""
    if not run_dir.is_dir():
        raise DataFileError(f"{run_dir}: not a directory")
    report = Report({}, {})
    tasks_by_folder: dict[Path, list[TaskRecords]] = collections.defaultdict(list)
    for label, (task, path) in latest_sample_files(run_dir).items():
        found = read_task_records(path, task, label)
        if found is None:
            continue
        section = SECTION_OF_KIND[found.kind]
        data = data_source(found)
        for entry_label, entry in _section_entries(section, found, options or {}).items():
            report.entries[entry_label], report.sections[entry_label] = (
                {**entry, "data": data},
                section,
            )
        tasks_by_folder[path.parent].append(found)
    if not report.entries:
        raise DataFileError(
            f"{run_dir}: no symphony-bench samples files (run lm_eval or lmms-eval with --log_samples --output_path)"
        )
    for tasks in tasks_by_folder.values():
        for section in SECTIONS:
            section.link(report.entries, [task for task in tasks if task.kind in section.kinds])
    return report


def data_source(found: TaskRecords) -> dict:
    """The data the task's records were made from ({field: value or None}); one dataset per task."""
    facts = {}
    for field in DATA_FIELDS:
        values = {record.get(field) for record in found.records}
        if len(values) > 1:
            raise DataFileError(
                f"{found.path}: records from more than one dataset ({field}: {sorted(map(str, values))})"
            )
        facts[field] = values.pop() if values else None
    return facts


def data_line(data: dict) -> list[str]:
    """ "Data: repo @ revision (commit 0123456789ab)", or nothing when the records name no data."""
    if not data.get("dataset_repo"):
        return []
    revision = f" @ {data['dataset_revision']}" if data.get("dataset_revision") else ""
    commit = f" (commit {data['dataset_commit'][:12]})" if data.get("dataset_commit") else ""
    return [f"Data: {data['dataset_repo']}{revision}{commit}", ""]


def _section_entries(section: ReportSection, found: TaskRecords, options: dict) -> dict[str, dict]:
    """The section's entries; records that are each fine but do not fit together (one instrument
    with two stereotype categories) are an error naming the file."""
    try:
        return section.entries(found, options)
    except DataFileError:
        raise
    except ValueError as error:
        raise DataFileError(f"{found.path}: {error}") from error


def render_markdown(report: Report) -> str:
    lines = []
    for section in SECTIONS:
        lines += section.overview(
            [
                (label, entry)
                for label, entry in report.entries.items()
                if report.sections[label] is section
            ]
        )
    for label, entry in report.entries.items():
        lines += report.sections[label].render(label, entry) + data_line(entry.get("data", {}))
    return "\n".join(lines)
