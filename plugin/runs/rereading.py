"""Every raw answer of a run read again with the installed readers, for `symphony-bench rescore`
and `verify`: per samples file, each line's stored record beside the record its benchmark's
`ReportSection.rescore` makes of the line's raw answer, and each results file's values recomputed
from a task's records by its benchmark's aggregations (`ReportSection.aggregate`), as the harness
computed them."""

from __future__ import annotations

import json
import math
from dataclasses import dataclass, field
from pathlib import Path

from symphony_bench.plugin.core.reasoning import REASONING_FIELDS
from symphony_bench.plugin.core.run_facts import READER_VERSION
from symphony_bench.plugin.core.sections import CannotReread
from symphony_bench.plugin.runs.files import RESULTS_NAMES, read_results, samples_file_match
from symphony_bench.plugin.runs.samples import read_task, sample_record
from symphony_bench.plugin.runs.sections import SECTION_OF_KIND

# two values of a results file agree when they differ by less than this (relative, or absolute near
# 0): the harness sums the records in its own order
TOLERANCE = 1e-9


@dataclass
class Reading:
    """One line's stored record and the installed readers' record of its raw answer (None, with
    `why_not`, where the line cannot be re-read)."""

    doc_id: int
    stored: dict
    reread: dict | None
    why_not: str = ""

    @property
    def same_reader(self) -> bool:
        return self.reread is not None and self.stored.get(READER_VERSION) == self.reread.get(
            READER_VERSION
        )

    def differing_fields(self) -> list[str]:
        """The fields of the two records that differ, reader version aside."""
        if self.reread is None:
            return []
        keys = (self.stored.keys() | self.reread.keys()) - {READER_VERSION}
        return sorted(key for key in keys if self.stored.get(key) != self.reread.get(key))

    def reading_changed(self, answer_fields: frozenset[str]) -> bool:
        """The answer read (its benchmark's answer fields and the reasoning's) differs."""
        read = answer_fields | set(REASONING_FIELDS)
        return any(name in read for name in self.differing_fields())


@dataclass
class SamplesReading:
    """One samples file re-read: its lines as written (each decoded where it holds our record)."""

    path: Path
    task: str
    kind: str
    lines: list[str]
    samples: dict[int, dict]  # line index -> the sample decoded, for the lines with our record
    readings: list[Reading] = field(default_factory=list)  # in file order

    @property
    def answer_fields(self) -> frozenset[str]:
        return SECTION_OF_KIND[self.kind].answer_fields

    def records(self, reread: bool) -> list[dict]:
        """The records in doc_id order (the harness's order): re-read ones (the stored record where
        a line could not be re-read) or the stored ones."""
        ordered = sorted(self.readings, key=lambda reading: reading.doc_id)
        return [
            (reading.reread if reread and reading.reread is not None else reading.stored)
            for reading in ordered
        ]


def reread_samples(path: Path) -> SamplesReading | None:
    """The file's lines re-read; None for a samples file without our records. The records are
    checked first (plugin.runs.samples.read_task): a file they fail is that error."""
    task = samples_file_match(path.name)["task"]
    checked = read_task(path, task)
    if checked is None:
        return None
    section = SECTION_OF_KIND[checked.kind]
    lines = path.read_text(encoding="utf-8").splitlines(keepends=True)
    reading = SamplesReading(path, task, checked.kind, lines, {})
    for index, line in enumerate(lines):
        if not line.strip():
            continue
        sample = json.loads(line)
        record = sample_record(sample) if isinstance(sample, dict) else None
        if record is None:
            continue
        reading.samples[index] = sample
        reading.readings.append(_reread(section, sample, record))
    return reading


def _reread(section, sample: dict, record: dict) -> Reading:
    if section.rescore is None:
        return Reading(sample["doc_id"], record, None, "its benchmark re-reads no answers")
    try:
        reread = section.rescore(sample, record)
    except CannotReread as why:
        return Reading(sample["doc_id"], record, None, str(why))
    # as a samples file would hold it (tuples as lists, numpy numbers as numbers)
    return Reading(sample["doc_id"], record, json.loads(json.dumps(reread)))


def rescored_lines(reading: SamplesReading) -> str:
    """The file's text with every re-read record in place of the stored one (under every metric
    name that held it); other lines as they were."""
    out, readings = [], iter(reading.readings)
    for index, line in enumerate(reading.lines):
        sample = reading.samples.get(index)
        if sample is None:
            out.append(line)
            continue
        new = next(readings).reread
        if new is None:
            out.append(line)
            continue
        stored = sample_record(sample)
        replaced = {key: new if value == stored else value for key, value in sample.items()}
        out.append(json.dumps(replaced, ensure_ascii=False) + "\n")
    return "".join(out)


# ---- results files ------------------------------------------------------------------------------
def results_stamp_text(name: str) -> str | None:
    """The time stamp in a results file's name (its samples files' names share it)."""
    for pattern in RESULTS_NAMES:
        match = pattern.match(name)
        if match:
            return match["stamp"]
    return None


def results_samples(results_path: Path, readings: dict[Path, SamplesReading]) -> dict:
    """{task: its re-read samples file} of the run a results file belongs to (same folder and time
    stamp)."""
    stamp = results_stamp_text(results_path.name)
    found = {}
    for path, reading in readings.items():
        match = samples_file_match(path.name)
        if path.parent == results_path.parent and match["stamp"] == stamp:
            found[match["task"]] = reading
    return found


@dataclass(frozen=True)
class ResultValue:
    task: str
    key: str  # "metric,filter" as the harness writes it
    stored: object
    recomputed: float


def recomputed_values(
    results: dict, samples: dict[str, SamplesReading], reread: bool
) -> list[ResultValue]:
    """Every number of the results file that a task's aggregation computes, recomputed from its
    records (re-read ones, or the stored ones)."""
    values = []
    for task, metrics in (results.get("results") or {}).items():
        reading = samples.get(task)
        if reading is None or not isinstance(metrics, dict):
            continue
        aggregate = SECTION_OF_KIND[reading.kind].aggregate
        records = reading.records(reread)
        if aggregate is None or not records:
            continue
        for key, stored in metrics.items():
            metric, comma, _ = key.partition(",")
            if not comma or not _is_number(stored):
                continue
            value = aggregate(reading.kind, metric, records)
            if value is not None:
                values.append(ResultValue(task, key, stored, float(value)))
    return values


def agree(stored, recomputed: float) -> bool:
    if not _is_number(stored):
        return False
    if math.isnan(stored) or math.isnan(recomputed):
        return math.isnan(stored) and math.isnan(recomputed)
    return math.isclose(stored, recomputed, rel_tol=TOLERANCE, abs_tol=TOLERANCE)


def _is_number(value) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def rescored_results(results_path: Path, readings: dict[Path, SamplesReading]) -> str:
    """The results file's text with every recomputable value recomputed from the re-read records."""
    results = read_results(results_path)
    for value in recomputed_values(results, results_samples(results_path, readings), True):
        results["results"][value.task][value.key] = value.recomputed
    return json.dumps(results, indent=2, ensure_ascii=False, default=str) + "\n"


def first_ids(ids: list, shown: int = 5) -> str:
    head = ", ".join(map(str, ids[:shown]))
    return head + (", ..." if len(ids) > shown else "")
