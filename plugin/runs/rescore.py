"""`symphony-bench rescore RUN_DIR --out DIR`: a run read again with the installed readers.

Every raw answer of RUN_DIR is re-read (plugin.runs.rereading) and DIR gets the run's harness files
in the same layout: each samples file with the re-read records (the reader's version in each) in
place of the stored ones, each results file with every value a task's aggregation computes
recomputed from them, and `rescore.json` (what follows). RUN_DIR is left as it was. Per samples
file it counts the readings that changed and the lines that could not be re-read (and why), and per
task it gives how each headline moved: the paired change, with its interval, of `compare`
(plugin.runs.compare) between RUN_DIR and DIR.
"""

from __future__ import annotations

import collections
import json
import math
from pathlib import Path

from symphony_bench.plugin.core.atomic import StagedOutputs
from symphony_bench.plugin.core.errors import DataFileError
from symphony_bench.plugin.core.reporting import fmt, md
from symphony_bench.plugin.core.run_facts import READER_VERSION
from symphony_bench.plugin.runs.compare import compare_runs
from symphony_bench.plugin.runs.files import no_samples_error, run_files
from symphony_bench.plugin.runs.rereading import (
    SamplesReading,
    first_ids,
    reread_samples,
    rescored_lines,
    rescored_results,
)
from symphony_bench.plugin.runs.samples import forget_samples

RESCORE_FILE = "rescore.json"


def reread_run(run_dir: Path) -> dict[Path, SamplesReading]:
    """{samples file: its lines re-read} of every samples file of ours under `run_dir`."""
    readings = {}
    for path in run_files(run_dir).samples:
        reading = reread_samples(path)
        if reading is not None:
            readings[path] = reading
    if not readings:
        raise no_samples_error(run_dir)
    return readings


def write_rescored_run(run_dir: Path, folder: Path, readings: dict[Path, SamplesReading]) -> None:
    """The run's harness files under `folder`, at their paths under `run_dir`, re-read."""
    files = run_files(run_dir)
    for path in files.samples + files.results:
        target = folder / path.relative_to(run_dir)
        target.parent.mkdir(parents=True, exist_ok=True)
        if path in readings:
            target.write_text(rescored_lines(readings[path]), encoding="utf-8")
        elif path in files.results:
            target.write_text(rescored_results(path, readings), encoding="utf-8")
        else:
            target.write_bytes(path.read_bytes())


def file_summary(reading: SamplesReading) -> dict:
    """What re-reading one samples file changed."""
    changed = [
        r.doc_id for r in reading.readings if r.reread and r.reading_changed(reading.answer_fields)
    ]
    not_reread = collections.Counter(r.why_not for r in reading.readings if r.reread is None)
    stored = collections.Counter(str(r.stored.get(READER_VERSION)) for r in reading.readings)
    installed = {r.reread.get(READER_VERSION) for r in reading.readings if r.reread}
    return {
        "task": reading.task,
        "kind": reading.kind,
        "n_docs": len(reading.readings),
        "n_reread": sum(r.reread is not None for r in reading.readings),
        "n_changed": len(changed),
        "changed_doc_ids": changed,
        "not_reread": dict(not_reread),
        "stored_reader_versions": dict(stored),
        "installed_reader_version": installed.pop() if len(installed) == 1 else None,
    }


def rescore(run_dir: Path, out: Path, outputs: StagedOutputs) -> dict:
    """Writes the re-read run to `out` (staged in `outputs`) and returns what changed."""
    source, target = run_dir.resolve(), out.resolve()
    if target == source or source in target.parents or target in source.parents:
        raise DataFileError(
            f"{out}: the rescored run must lie outside {run_dir} (and hold no part of it): "
            "every command reading the run would read both"
        )
    readings = reread_run(run_dir)
    folder = outputs.folder(out)
    write_rescored_run(run_dir, folder, readings)
    forget_samples()
    comparison = compare_runs(run_dir, folder, allow_mismatch=True)
    summary = {
        "source": str(run_dir),
        "out": str(out),
        "files": {
            str(path.relative_to(run_dir)): file_summary(reading)
            for path, reading in readings.items()
        },
        "mismatches": comparison["mismatches"],
        "headline_changes": {
            label: {
                name: change
                for name, change in (task.get("metrics") or {}).items()
                if isinstance(change, dict) and "change" in change
            }
            for label, task in comparison["tasks"].items()
        },
        "method": comparison["method"],
    }
    (folder / RESCORE_FILE).write_text(json.dumps(summary, indent=2, default=_json_number) + "\n")
    return summary


def _json_number(value):
    return float(value)


def render(summary: dict) -> str:
    """The summary as Markdown: readings changed per samples file, headline changes per task."""
    lines = [
        f"# Rescored {md(summary['source'])} -> {md(summary['out'])}",
        "",
        "| samples file | docs | re-read | readings changed (first docs) | not re-read | reader |",
        "|---|---|---|---|---|---|",
    ]
    for name, row in summary["files"].items():
        not_reread = "; ".join(f"{n}: {md(why)}" for why, n in row["not_reread"].items()) or "0"
        stored = ", ".join(f"{md(v)} ({n})" for v, n in row["stored_reader_versions"].items())
        changed = str(row["n_changed"])
        if row["n_changed"]:
            changed += f" ({first_ids(row['changed_doc_ids'])})"
        lines.append(
            f"| {md(name)} | {row['n_docs']} | {row['n_reread']} | {changed} | {not_reread} | "
            f"{stored} -> {md(row['installed_reader_version'])} |"
        )
    lines += ["", "Headline changes (rescored - stored, paired over the same docs, 95% CI):", ""]
    lines += ["| task | metric | change | 95% CI | p |", "|---|---|---|---|---|"]
    for label, changes in summary["headline_changes"].items():
        for name, change in changes.items():
            low, high = (change.get("ci") or [None, None])[:2]
            lines.append(
                f"| {md(label)} | {md(name)} | {_signed(change['change'])} | "
                f"[{_signed(low)}, {_signed(high)}] | {_p(change.get('p_value'))} |"
            )
    lines += [f"- {md(mismatch)}" for mismatch in summary["mismatches"]]
    return "\n".join(lines) + "\n"


def _signed(value) -> str:
    if value is None or (isinstance(value, float) and not math.isfinite(value)):
        return "n/a"
    return f"{value:+.4f}"


def _p(value) -> str:
    return "n/a" if value is None or not math.isfinite(value) else fmt(value, 3)
