"""What links the Symphony-Bias tasks of one model folder, added to their entries' bodies:
"agreement" of two protocols (each log-probability entry with each Likert task, the scored Likert
task with each generated one, each open-ended task with every Likert, scored and log-prob task of
its condition), "vs_baseline" of a mitigation task against its base task (paired as
mitigation_pairing says), "recognised_only" for the Likert or open-ended task whose stimuli a
recognition task controls (same model folder, modality and stimulus set, as the records say: the
same analysis on the docs whose clip or image the model named correctly), and "common_instruments"
when the conditions cover different instruments.
"""

from __future__ import annotations

import math

import numpy as np

from symphony_bench.metrics import protocol_agreement
from symphony_bench.plugin.core.reporting import number
from symphony_bench.plugin.core.run_facts import DATA_FIELDS
from symphony_bench.plugin.core.sections import ReportEntry, TaskRecords, entry_label
from symphony_bench.plugin.symphony_bias.compare import baseline_changes
from symphony_bench.plugin.symphony_bias.mitigation_pairing import baseline_task_of, paired_by_doc
from symphony_bench.plugin.symphony_bias.records import (
    LIKERT,
    LIKERT_KINDS,
    LIKERT_SCORED,
    LOGPROB,
    OPEN,
    RATED_KINDS,
    RECOGNITION,
    instrument_records,
)
from symphony_bench.plugin.symphony_bias.scenarios import CONTROL
from symphony_bench.plugin.symphony_bias.summaries import design_facts, task_report

# the key of each protocol in an agreement body's "protocols"
PROTOCOL_OF_KIND = {
    LIKERT: "likert",
    LIKERT_SCORED: "likert_scored",
    LOGPROB: "logprob",
    OPEN: "open",
}


def agreement_report(
    likert: dict, logprob: dict, protocols: tuple[str, str] = ("likert", "logprob")
) -> dict:
    """Per-instrument ABS of two protocols side by side (keyed by `protocols`: the reference's,
    then the other's), sign agreement and correlations."""
    reference, other = protocols
    shared = [name for name in logprob["instruments"] if name in likert["instruments"]]
    # ABS signs mean the same only under the same stereotype table
    mismatched = [
        n
        for n in shared
        if likert["instruments"][n]["category"] != logprob["instruments"][n]["category"]
    ]
    names = [n for n in shared if n not in mismatched]
    pairs = {
        name: {
            reference: likert["instruments"][name]["abs"],
            other: logprob["instruments"][name]["abs"],
        }
        for name in names
    }
    likert_abs, logprob_abs = (
        np.array([math.nan if pairs[n][protocol] is None else pairs[n][protocol] for n in names])
        for protocol in protocols
    )
    agreement = protocol_agreement(likert_abs, logprob_abs)
    body = {
        k: ([number(v) for v in value] if isinstance(value, list) else number(value))
        for k, value in agreement.items()
    }
    body["n"] = agreement["n"]
    return {
        "protocols": list(protocols),
        "instruments": pairs,
        **body,
        "category_mismatch": mismatched,
    }


def recognised_only_report(stimulus_records: list, recognition_records: list) -> dict:
    """The Likert analysis restricted to docs whose stimulus the model recognised."""
    recognised = {record["stimulus_id"] for record in recognition_records if record["recognised"]}
    kept = [record for record in stimulus_records if record["stimulus_id"] in recognised]
    left_out = sorted(
        {record["instrument"] for record in stimulus_records}
        - {record["instrument"] for record in kept}
    )
    body = task_report(kept) if kept else {"instruments": {}, "summary": None}
    return {**body, "recognised_stimuli": len(recognised), "instruments_left_out": left_out}


def compare_on_common_instruments(
    entries: dict[str, ReportEntry], likert_tasks: list[TaskRecords]
) -> None:
    """When the Likert tasks of one model folder cover different instruments (a condition without
    clarinet stimuli beside the named condition with all 22), each gets its headline numbers on the
    instruments they all share, so that conditions are compared on the same instruments."""
    covered = {
        task.label: {r["instrument"] for r in instrument_records(task.records)}
        for task in likert_tasks
    }
    common = set.intersection(*covered.values()) if covered else set()
    if not covered or all(instruments == common for instruments in covered.values()):
        return
    for task in likert_tasks:
        kept = [
            r for r in task.records if r["instrument"] in common or r["instrument"] == CONTROL.name
        ]
        entries[task.label].body["common_instruments"] = {
            "instruments": sorted(common),
            "summary": task_report(kept)["summary"],
        }


def link(entries: dict[str, ReportEntry], tasks: list[TaskRecords]) -> None:
    """Within one model folder: protocol agreement (log-prob vs each Likert task, scored Likert vs
    generated Likert, open-ended vs each asking protocol of the same condition), the recognised-only
    analysis, and conditions compared on their common
    instruments."""
    likert = [task for task in tasks if task.kind in LIKERT_KINDS]
    compare_on_common_instruments(entries, likert)
    for task in tasks:
        if task.kind == LOGPROB:
            for label in (task.label, entry_label(task.label, "calibrated")):
                _add_agreement(entries, label, LOGPROB, likert)
        elif task.kind == LIKERT_SCORED:
            generated = [other for other in likert if other.kind == LIKERT]
            _add_agreement(entries, task.label, LIKERT_SCORED, generated)
        elif task.kind == OPEN:
            asked = [
                other
                for other in tasks
                if other.kind in (*LIKERT_KINDS, LOGPROB) and _same_condition(other, task)
            ]
            _add_agreement(entries, task.label, OPEN, asked)
    for task in tasks:
        baseline, unpaired = baseline_task_of(task, tasks)
        if baseline is not None:
            base, candidate = paired_by_doc(baseline, task)
            for label, body in baseline_changes(
                task.label, baseline.label, base, candidate
            ).items():
                entries[label].body["vs_baseline"] = body
        elif unpaired:
            entries[task.label].body["vs_baseline_missing"] = unpaired
    for task in (task for task in tasks if task.kind in RATED_KINDS):
        recognition = recognition_task_of(task, tasks)
        if recognition is not None:
            entries[task.label].body["recognised_only"] = recognised_only_report(
                task.records, recognition.records
            )


def _same_condition(task: TaskRecords, other: TaskRecords) -> bool:
    """Both tasks show the instrument the same way (modality and condition, as the records say)."""
    facts, other_facts = design_facts(task.records), design_facts(other.records)
    return all(facts[name] == other_facts[name] for name in ("modality", "condition"))


def _add_agreement(
    entries: dict[str, ReportEntry], label: str, kind: str, references: list[TaskRecords]
) -> None:
    """entries[label]'s agreement with each of `references` (tasks of another protocol)."""
    if references:
        entries[label].body["agreement"] = {
            other.label: agreement_report(
                entries[other.label].body,
                entries[label].body,
                (PROTOCOL_OF_KIND[other.kind], PROTOCOL_OF_KIND[kind]),
            )
            for other in references
        }


def recognition_task_of(task: TaskRecords, tasks: list[TaskRecords]) -> TaskRecords | None:
    """The recognition control of a Likert task whose stimuli were attached: the recognition task of
    the same model folder, modality and stimulus set (as their records say)."""
    facts = design_facts(task.records)
    if facts["condition"] != "stimulus":
        return None
    linked = ("modality", *DATA_FIELDS)
    for other in tasks:
        other_facts = design_facts(other.records) if other.kind == RECOGNITION else None
        if other_facts and all(other_facts[name] == facts[name] for name in linked):
            return other
    return None
