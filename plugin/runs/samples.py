"""The one reader of samples files: every command that reads finished runs (report, compare,
leaderboard, export, provenance) gets its per-doc records from here.

`SamplesContent.read` parses a file once per process while it is unchanged: per non-blank line its
number, the harness's doc_id and our per-doc record (None on a line without one). `read_task` then
checks the records by their benchmark's section (plugin/runs/sections.py) and the doc_ids, and gives the
task's records, or an error naming the file, the line and the field.

A run's facts (seed, data, package version: plugin.core.run_facts) are copied into every record, so
`SamplesContent.value` finds them, checked on every record of the file, without decoding the docs
(lm-eval's samples hold them, lmms-eval's do not).
"""

from __future__ import annotations

import contextlib
import functools
import gc
import itertools
import json
import math
import re
from pathlib import Path

from symphony_bench.plugin.core.errors import DataFileError
from symphony_bench.plugin.core.sections import TaskRecords
from symphony_bench.plugin.runs.files import regular_file_problem
from symphony_bench.plugin.runs.sections import RECORD_KINDS, SECTION_OF_KIND


def sample_record(sample: dict) -> dict | None:
    """The per-doc record a sample holds (every metric holds the same one), if one of ours."""
    for value in sample.values():
        if isinstance(value, dict) and value.get("kind") in RECORD_KINDS:
            return value
    return None


class SamplesContent:
    """One samples file's lines: (line number, doc_id, our record or None) per non-blank line."""

    def __init__(self, path: Path | None, lines: list[tuple[int, object, dict | None]]):
        self.path, self.lines = path, lines
        self.records = [record for _, _, record in lines if record is not None]

    @classmethod
    def read(cls, path: Path | None) -> SamplesContent:
        if path is None:
            return cls(None, [])
        problem = regular_file_problem(path)
        if problem:
            raise DataFileError(f"{path}: {problem}")
        stat = path.stat()
        return _parsed_samples(path, stat.st_mtime_ns, stat.st_size)

    def value(self, field: str):
        """A per-run fact: the one value the records hold (None if none does); an error naming the
        file if they disagree (e.g. two runs appended to one file)."""
        return single_value(_values(self.records, field), self.path)


UNKNOWN_TEXTS = ("", "N/A", "n/a", "None")


def known(value):
    """None for what harnesses write when a fact is unknown ("", "N/A", NaN), else the value."""
    if value is None or (isinstance(value, str) and value.strip() in UNKNOWN_TEXTS):
        return None
    if isinstance(value, float) and not math.isfinite(value):
        return None
    return value


def single_value(values: list, where: Path | None):
    """The one known value among `values`, None if none is known; an error naming `where` if they differ."""
    try:  # a run's values are mostly one repeated text or number: JSON-encode each distinct one once
        values = [value for _, value in set(zip(map(type, values), values, strict=True))]
    except TypeError:  # unhashable values (lists, dicts)
        pass
    distinct = {json.dumps(value, sort_keys=True) for value in values if known(value) is not None}
    if len(distinct) > 1:
        raise DataFileError(
            f"{where}: docs of one run disagree on a fact that must be constant: {sorted(distinct)[:3]}"
        )
    return json.loads(distinct.pop()) if distinct else None


def read_task(
    path: Path, task: str, label: str | None = None, folder_label: str = ""
) -> TaskRecords | None:
    """The task's records, checked; None if no line holds one of ours (another task's file).

    Every line must hold a record of the file's kind that its benchmark can use, under an integer
    doc_id that no other line has. The checks run on whole columns first (ReportSection.
    records_valid); a file they do not pass is checked line by line, so that the error names the
    first bad line and field."""
    lines = SamplesContent.read(path).lines
    kind = next((record["kind"] for _, _, record in lines if record is not None), None)
    if kind is None:
        return None
    section = SECTION_OF_KIND[kind]
    _, doc_ids, records = (list(column) for column in zip(*lines, strict=True))
    if not (
        None not in records
        and section.records_valid(records)
        and set(map(type, doc_ids)) == {int}
        and len(set(doc_ids)) == len(doc_ids)
    ):
        _name_the_first_bad_line(path, lines, kind)
    return TaskRecords(task, label or task, folder_label, kind, records, doc_ids, path)


def _name_the_first_bad_line(path: Path, lines: list, kind: str) -> None:
    record_problem, seen = SECTION_OF_KIND[kind].record_problem, set()
    for line_number, doc_id, record in lines:
        where = f"{path}, line {line_number}"
        if record is None or record["kind"] != kind:
            raise DataFileError(f"{where}: not a {kind} record like the other lines")
        problem = record_problem(record)
        if problem:
            raise DataFileError(f"{where}: {kind} record: {problem}")
        if type(doc_id) is not int:
            raise DataFileError(f"{where}: no integer doc_id (needed to pair docs across runs)")
        if doc_id in seen:
            raise DataFileError(f"{where}: doc_id {doc_id} appears twice")
        seen.add(doc_id)


def forget_samples() -> None:
    """Drops every samples file read so far: a command done with them frees them at once (a full
    suite's records left alive cost the cyclic garbage collector about a second per full pass)."""
    _parsed_samples.cache_clear()


def _values(records: list[dict], field: str):
    """The records' values of `field`: only the distinct ones where that loses nothing (texts and
    None; 1, 1.0 and True would be one in a set)."""
    values = list(map(dict.get, records, itertools.repeat(field)))
    first = values[0] if values else None
    if (first is None or type(first) is str) and values.count(first) == len(values):
        return values[
            :1
        ]  # the usual case: one text (or none) in every record, compared without hashing
    try:
        distinct = set(values)
    except TypeError:  # unhashable values (lists, dicts)
        distinct = None
    if distinct is not None and all(value is None or type(value) is str for value in distinct):
        return list(distinct)
    return values


@functools.lru_cache(maxsize=512)
def _parsed_samples(path: Path, modified_ns: int, size: int) -> SamplesContent:
    """(modified_ns and size key the cache: a rewritten file is read again.)

    Lines are read one at a time, each just after it is decoded, and dropped once read: on two
    full-suite runs (most of a gigabyte of text) that took about a tenth less time than decoding a
    whole file's lines first, and holds one line instead of a file. A line in the harnesses' layout
    is read in place (`_fast_read_in`), any other stripped and decoded whole. A file that is not
    UTF-8 is that error wherever the bad bytes are."""
    lines, problem = [], None
    try:
        with open(path, encoding="utf-8") as handle:
            for line_number, line in enumerate(handle, start=1):
                # in the harnesses' layout a line starts with "{" and ends with "}" and its newline:
                # stripping it would change nothing but cost a copy of the whole line
                read = (
                    _fast_read_in(line, len(line) - (line[-1:] == "\n"))
                    if line[:1] == "{"
                    else None
                )
                if read is None:
                    text = line.strip()
                    if not text:
                        continue
                    try:
                        read = fast_read(text) or _full_read(text, f"{path}, line {line_number}")
                    except (
                        DataFileError
                    ) as error:  # raised once the rest of the file is known to be text
                        problem = error
                        break
                if JOINED in line:  # outside JSON strings only, as a quote in a string is escaped
                    problem = DataFileError(
                        f"{path}, line {line_number}: two samples on one line (a newline is missing)"
                    )
                    break
                lines.append((line_number, *read))
            for _ in handle:  # after a bad line: the rest only decoded
                pass
    except UnicodeDecodeError as error:
        raise DataFileError(f"{path}: not UTF-8 text ({error})") from error
    except OSError as error:
        raise DataFileError(f"{path}: cannot read ({error})") from error
    if problem is not None:
        raise problem
    return SamplesContent(path, lines)


# Both harnesses write each sample with json.dumps' default separators, doc_id first, and our record
# (its "kind" first) under every metric name: 6-10 copies, plus the doc and prompt in lm-eval's
# files. Decoding only the first copy is several times faster than the whole line; a line that does
# not look like that is decoded whole.
SAMPLE_START = re.compile(r'\{"doc_id": (-?\d+)[,}]')
JOINED = '}{"'  # where one JSON object ends and the next begins with no newline between
RECORD_START = '{"kind": "'
_SCAN_ONCE = json.JSONDecoder().scan_once


def fast_read(line: str) -> tuple[int, dict] | None:
    """(doc_id, the first record copy) of a line in the harnesses' layout; None for any other line."""
    return _fast_read_in(line, len(line))


def _fast_read_in(line: str, end: int) -> tuple[int, dict] | None:
    """`fast_read` of line[:end], without cutting it out: None unless it ends with "}" and its first
    record copy ends inside it (so what follows `end` changes nothing)."""
    start = SAMPLE_START.match(line, 0, end)
    if start is None or end < 1 or line[end - 1] != "}":
        return None
    at = line.find(RECORD_START, 0, end)
    if at < 0:
        return None
    try:
        record, stop = _SCAN_ONCE(
            line, at
        )  # what JSONDecoder.raw_decode calls, without its Python frame
    except (StopIteration, ValueError):
        return None
    return (int(start[1]), record) if stop <= end and record.get("kind") in RECORD_KINDS else None


def _full_read(line: str, where: str) -> tuple[object, dict | None]:
    """(doc_id, our record) of a line decoded whole; (None, None) for JSON that is not an object."""
    try:
        sample = json.loads(line)
    except ValueError as error:
        raise DataFileError(f"{where}: not valid JSON ({error})") from error
    if not isinstance(sample, dict):
        return None, None
    return sample.get("doc_id"), sample_record(sample)


@contextlib.contextmanager
def without_cyclic_gc():
    """A full suite's records are hundreds of thousands of small dicts (none in a cycle); while they
    are alive the cyclic collector would rescan all of them again and again (reading and the
    statistics each took about twice as long with it)."""
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()
