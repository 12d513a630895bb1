"""`symphony-bench verify RUN_DIR`: is every number of the run what its raw answers give?

Every raw answer is re-read with the installed readers (plugin.runs.rereading) and the run fails
(exit 1) on any of:

- a stored record that differs from the reading of its raw answer, where the record names the
  installed reader's version (its reading, or the doc fields it copied from the logged doc);
- a value of a results file that differs from the one its task's aggregation computes from the
  stored records;
- a logged doc that differs from the digest the harness logged beside it (lm-eval's doc_hash);
- provenance facts that contradict each other (records of one task, or tasks of one model folder,
  that name different seeds, data or package versions).

A record read by another reader version is not compared ("re-read with rescore"), nor is a line
whose raw answer cannot be re-read (lmms-eval logs no doc: some records lack part of it); both are
said. What no re-reading can catch: a forged raw answer; only running the model again does.
"""

from __future__ import annotations

import collections
import hashlib
import json
from pathlib import Path

from symphony_bench.plugin.core.errors import DataFileError
from symphony_bench.plugin.core.run_facts import READER_VERSION
from symphony_bench.plugin.runs.files import read_results, run_files
from symphony_bench.plugin.runs.provenance import provenance
from symphony_bench.plugin.runs.rereading import (
    SamplesReading,
    agree,
    first_ids,
    recomputed_values,
    results_samples,
)
from symphony_bench.plugin.runs.rescore import reread_run
from symphony_bench.plugin.runs.samples import forget_samples

READING = "stored readings that differ from their raw answer's"
DOC_FIELDS = "records whose doc fields differ from the logged doc's"
RESULTS = "results-file values that differ from the samples' aggregation"
DOC_HASH = "logged docs that differ from their doc_hash"
PROVENANCE = "provenance facts that contradict each other"
REBUILT = "logged docs that differ from the docs the task builds (--docs)"
NOT_REBUILT = "tasks whose docs could not be built (--docs)"


def verify_run(run_dir: Path, docs: bool = False) -> dict:
    """{"problems": {what: [where, ...]}, "notes": {what: [where, ...]}, "reader_versions":
    {task: [versions]}}: problems fail the run, notes say what was not checked. `docs`: also
    compare every lm-eval doc with the doc its task builds (plugin.runs.rebuilt_docs)."""
    readings = reread_run(run_dir)
    problems: dict[str, list[str]] = collections.defaultdict(list)
    notes: dict[str, list[str]] = collections.defaultdict(list)
    for reading in readings.values():
        _check_records(reading, problems, notes)
        _check_doc_hashes(reading, problems)
    if docs:
        _check_rebuilt_docs(readings, run_files(run_dir).results, problems)
    for path in run_files(run_dir).results:
        samples = results_samples(path, readings)
        for value in recomputed_values(read_results(path), samples, reread=False):
            if not agree(value.stored, value.recomputed):
                problems[RESULTS].append(
                    f"{value.task} {value.key}: {value.stored} stored, {value.recomputed!r} from "
                    "the samples"
                )
    for folder in sorted({path.parent for path in readings}):
        try:
            provenance(folder)
        except DataFileError as error:
            problems[PROVENANCE].append(str(error))
    forget_samples()
    return {
        "run": str(run_dir),
        "problems": dict(problems),
        "notes": dict(notes),
        "reader_versions": reader_versions(readings.values()),
    }


def _check_records(reading: SamplesReading, problems: dict, notes: dict) -> None:
    for line in reading.readings:
        where = f"{reading.task} doc {line.doc_id}"
        if line.reread is None:
            notes[f"{reading.task}: not re-read ({line.why_not})"].append(where)
        elif not line.same_reader:
            stored, installed = line.stored.get(READER_VERSION), line.reread.get(READER_VERSION)
            notes[
                f"{reading.task}: read by reader {stored or '(none recorded)'}, installed "
                f"{installed}: re-read with rescore"
            ].append(where)
        elif line.differing_fields():
            kind = READING if line.reading_changed(reading.answer_fields) else DOC_FIELDS
            problems[kind].append(f"{where} ({', '.join(line.differing_fields())})")


def _check_doc_hashes(reading: SamplesReading, problems: dict) -> None:
    """lm-eval's doc_hash: sha256 of the doc as json.dumps(indent=2, ensure_ascii=False) wrote it."""
    for sample in reading.samples.values():
        doc, logged = sample.get("doc"), sample.get("doc_hash")
        if not isinstance(doc, dict) or not isinstance(logged, str):
            continue
        text = json.dumps(doc, indent=2, ensure_ascii=False, default=str)
        if hashlib.sha256(text.encode("utf-8")).hexdigest() != logged:
            problems[DOC_HASH].append(f"{reading.task} doc {sample.get('doc_id')}")


def _check_rebuilt_docs(readings: dict, results_files: list[Path], problems: dict) -> None:
    from symphony_bench.plugin.runs.rebuilt_docs import rebuilt_doc_problems, results_of

    for path, reading in readings.items():
        results_path = results_of(path, results_files)
        results = read_results(results_path) if results_path else {}
        differing, why_not = rebuilt_doc_problems(reading, results)
        problems[REBUILT] += differing
        if why_not:
            problems[NOT_REBUILT].append(f"{reading.task}: {why_not}")
    for kind in (REBUILT, NOT_REBUILT):
        if not problems[kind]:
            del problems[kind]


def reader_versions(readings) -> dict[str, list[str]]:
    """{task: the reader versions its stored records name, "(none)" for records without one}."""
    versions: dict[str, set[str]] = collections.defaultdict(set)
    for reading in readings:
        for line in reading.readings:
            versions[reading.task].add(str(line.stored.get(READER_VERSION) or "(none)"))
    return {task: sorted(found) for task, found in sorted(versions.items())}


def render(result: dict) -> list[str]:
    """One line per kind of mismatch (and per note), with its count and the first places."""
    lines = [
        f"{what}: {len(where)} ({first_ids(where, 3)})"
        for what, where in result["problems"].items()
    ]
    lines += [
        f"note: {what}: {len(where)} ({first_ids(where, 3)})"
        for what, where in result["notes"].items()
    ]
    verdict = "FAILED" if result["problems"] else "verified"
    return [f"{result['run']}: {verdict}", *lines]
