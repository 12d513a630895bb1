"""`symphony-bench compare BASE_RUN CAND_RUN`: did the candidate change beyond noise?

Both run folders are read like `symphony-bench report` reads them (newest samples file per model
folder and task). Tasks are paired by label and docs by the harness's doc_id; a doc must be the same
doc in both runs: its record minus the answer (the fields its benchmark declares as answer fields)
and the run facts, which provenance compares by name. Runs are refused, with the difference named,
when their tasks, docs or any of provenance's COMPARED_FIELDS differ; `allow_mismatch` compares the
docs both runs share and records every overridden difference.

The benchmark that owns a task compares it (ReportSection.comparisons): every headline metric gets
CANDIDATE - BASE with a 95% interval and p-value from a paired bootstrap of the design's units
(metrics.paired), and items that flip (valid <-> invalid, recognised <-> not, correct <-> wrong) an
exact McNemar test. The release gate over the result is plugin/runs/gate.py.
"""

from __future__ import annotations

import operator
from dataclasses import dataclass, field
from pathlib import Path

from symphony_bench.metrics.constants import BOOTSTRAP_SEED, N_BOOTSTRAP
from symphony_bench.plugin.core.reasoning import REASONING_FIELDS
from symphony_bench.plugin.core.run_facts import RUN_FIELDS
from symphony_bench.plugin.core.sections import TaskRecords
from symphony_bench.plugin.runs.files import no_samples_error
from symphony_bench.plugin.runs.provenance import COMPARED_FIELDS, provenance
from symphony_bench.plugin.runs.report import run_tasks
from symphony_bench.plugin.runs.samples import forget_samples, read_task, without_cyclic_gc
from symphony_bench.plugin.runs.sections import SECTION_OF_KIND, SECTIONS

# Record fields that hold the model's answer (its reasoning's too), and run facts (seed, data,
# package version, a benchmark's own) that provenance compares by name; every other field
# identifies the doc.
NOT_IDENTITY_FIELDS = frozenset(
    {
        *RUN_FIELDS,
        *(name for section in SECTIONS for name in section.run_fields),
        *REASONING_FIELDS,
        *(name for section in SECTIONS for name in section.answer_fields),
    }
)


# ---- reading and pairing ----------------------------------------------------------------------
@dataclass
class RunTask:
    """One task's records of one run, keyed by the harness's doc_id."""

    task: str
    kind: str
    path: Path
    records: dict[int, dict]

    @classmethod
    def of(cls, task: TaskRecords) -> RunTask:
        return cls(
            task.task, task.kind, task.path, dict(zip(task.doc_ids, task.records, strict=True))
        )


def read_run_task(path: Path, task: str) -> RunTask | None:
    """One samples file's checked records by doc_id; None if the file holds none of ours."""
    found = read_task(path, task)
    return None if found is None else RunTask.of(found)


def read_run(run_dir: Path) -> dict[str, RunTask]:
    """{task label: its records by doc_id} from a run folder (labels as in `symphony-bench report`)."""
    with without_cyclic_gc():
        tasks = {task.label: RunTask.of(task) for task in run_tasks(run_dir)}
    if not tasks:
        raise no_samples_error(run_dir)
    return tasks


def same_doc(base: dict, candidate: dict) -> bool:
    """The two records describe the same doc (every field but the answer and the run facts agrees)."""
    layout = tuple(base)
    if layout == tuple(
        candidate
    ):  # the usual case: one layout per task; its identity fields compared in C
        identity = _IDENTITY_OF_LAYOUT.get(layout)
        if identity is None:
            identity = _identity_getter(layout)
            if len(_IDENTITY_OF_LAYOUT) < 256:
                _IDENTITY_OF_LAYOUT[layout] = identity
        return identity(base) == identity(candidate)
    return base.keys() - NOT_IDENTITY_FIELDS == candidate.keys() - NOT_IDENTITY_FIELDS and all(
        value == candidate[key] for key, value in base.items() if key not in NOT_IDENTITY_FIELDS
    )


_IDENTITY_OF_LAYOUT: dict[tuple, object] = {}


def _identity_getter(layout: tuple):
    """A function of a record of this key layout: the tuple of its identity fields."""
    keys = [key for key in layout if key not in NOT_IDENTITY_FIELDS]
    if len(keys) < 2:
        return lambda record: tuple(record[key] for key in keys)
    return operator.itemgetter(*keys)


@dataclass
class Pairing:
    """The docs both runs share, in doc_id order, and what differed."""

    base: list[dict] = field(default_factory=list)
    candidate: list[dict] = field(default_factory=list)
    differences: list[str] = field(default_factory=list)


def pair_docs(label: str, base: RunTask, candidate: RunTask) -> Pairing:
    pairing = Pairing()
    if base.kind != candidate.kind:
        pairing.differences.append(
            f"{label}: record kind {base.kind} in BASE, {candidate.kind} in CANDIDATE"
        )
        return pairing
    only_base = base.records.keys() - candidate.records.keys()
    only_candidate = candidate.records.keys() - base.records.keys()
    if only_base or only_candidate:
        pairing.differences.append(
            f"{label}: {len(base.records)} docs in BASE, {len(candidate.records)} in CANDIDATE "
            f"({len(only_base)} only in BASE, {len(only_candidate)} only in CANDIDATE; was --limit "
            "or the data different?)"
        )
    changed = []
    for doc_id in sorted(base.records.keys() & candidate.records.keys()):
        base_record, candidate_record = base.records[doc_id], candidate.records[doc_id]
        if not same_doc(base_record, candidate_record):
            changed.append(doc_id)
            continue
        pairing.base.append(base_record)
        pairing.candidate.append(candidate_record)
    if changed:
        first = changed[0]
        fields = _differing_fields(base.records[first], candidate.records[first])
        pairing.differences.append(
            f"{label}: {len(changed)} docs differ between the runs (first: doc {first}, "
            f"{'; '.join(fields)})"
        )
    return pairing


def _differing_fields(base: dict, candidate: dict) -> list[str]:
    keys = sorted((base.keys() | candidate.keys()) - NOT_IDENTITY_FIELDS)
    return [
        f"{key} {base.get(key)!r} in BASE, {candidate.get(key)!r} in CANDIDATE"
        for key in keys
        if base.get(key) != candidate.get(key)
    ]


def task_comparisons(
    label: str, base: list[dict], candidate: list[dict], n_boot: int, seed: int
) -> dict[str, dict]:
    """{label (and its variants' labels): comparison} from the benchmark that owns the records."""
    return SECTION_OF_KIND[base[0]["kind"]].comparisons(label, base, candidate, n_boot, seed)


# ---- provenance ---------------------------------------------------------------------------------
def run_provenance(run: dict[str, RunTask]) -> dict[str, dict]:
    """{model folder: provenance} of every model folder holding one of the run's tasks."""
    folders = sorted({str(task.path.parent) for task in run.values()})
    return {folder: provenance(Path(folder)) for folder in folders}


def provenance_differences(
    label: str, base: RunTask, candidate: RunTask, facts: tuple[dict, dict]
) -> list[str]:
    """The COMPARED_FIELDS of this task that differ between the runs, named (different data by
    content, with where each run's data came from)."""
    base_task, candidate_task = (
        (facts_of[str(run_task.path.parent)].get("tasks") or {}).get(run_task.task) or {}
        for facts_of, run_task in zip(facts, (base, candidate), strict=True)
    )
    differences = []
    for name in COMPARED_FIELDS:
        if base_task.get(name) == candidate_task.get(name):
            continue
        if name == "dataset_sha256":
            differences.append(
                f"{label}: the data differ (dataset_sha256 {base_task.get(name)!r} from "
                f"{data_origin(base_task)} in BASE, {candidate_task.get(name)!r} from "
                f"{data_origin(candidate_task)} in CANDIDATE)"
            )
        elif name == "generation":
            differences.append(
                f"{label}: the generation settings differ "
                f"({settings_difference(base_task.get(name), candidate_task.get(name))})"
            )
        else:
            differences.append(
                f"{label}: {name} is {base_task.get(name)!r} in BASE, "
                f"{candidate_task.get(name)!r} in CANDIDATE"
            )
    return differences


def settings_difference(base: dict | None, candidate: dict | None) -> str:
    """ "max_gen_toks 192 in BASE, 4096 in CANDIDATE; ..." for each setting that differs."""
    base, candidate = base or {}, candidate or {}
    return "; ".join(
        f"{key} {base.get(key, '(unset)')!r} in BASE, {candidate.get(key, '(unset)')!r} in CANDIDATE"
        for key in sorted(base.keys() | candidate.keys())
        if base.get(key) != candidate.get(key)
    )


def data_origin(task: dict) -> str:
    """ "repo@revision (commit 0123456789ab)", or the repo (a local folder) alone."""
    revision = f"@{task['dataset_revision']}" if task.get("dataset_revision") else ""
    commit = f" (commit {task['dataset_commit'][:12]})" if task.get("dataset_commit") else ""
    return f"{task.get('dataset_repo')}{revision}{commit}"


# ---- the whole comparison ----------------------------------------------------------------------
def compare_runs(
    base_dir: Path,
    candidate_dir: Path,
    allow_mismatch: bool = False,
    n_boot: int = N_BOOTSTRAP,
    seed: int = BOOTSTRAP_SEED,
) -> dict:
    """The comparison as a JSON-ready dict. "mismatches" lists every difference that makes the runs
    incomparable; without `allow_mismatch` any of them stops the comparison ("compared": false).
    The samples files read are dropped when it returns (plugin.runs.samples.forget_samples)."""
    with without_cyclic_gc():
        try:
            return _compare_runs(base_dir, candidate_dir, allow_mismatch, n_boot, seed)
        finally:
            forget_samples()


def _compare_runs(
    base_dir: Path, candidate_dir: Path, allow_mismatch: bool, n_boot: int, seed: int
) -> dict:
    base, candidate = read_run(base_dir), read_run(candidate_dir)
    facts = (run_provenance(base), run_provenance(candidate))
    mismatches = [f"task {label} only in BASE" for label in sorted(base.keys() - candidate.keys())]
    mismatches += [
        f"task {label} only in CANDIDATE" for label in sorted(candidate.keys() - base.keys())
    ]
    pairings = {}
    for label in sorted(base.keys() & candidate.keys()):
        mismatches += provenance_differences(label, base[label], candidate[label], facts)
        pairings[label] = pair_docs(label, base[label], candidate[label])
        mismatches += pairings[label].differences
    result = {
        "base": str(base_dir),
        "candidate": str(candidate_dir),
        "allow_mismatch": allow_mismatch,
        "mismatches": mismatches,
        "compared": not mismatches or allow_mismatch,
        "provenance": {"base": facts[0], "candidate": facts[1]},
        "tasks": {},
        "method": {"n_boot": n_boot, "seed": seed, "confidence": 0.95},
    }
    if not result["compared"]:
        return result
    for label, pairing in pairings.items():
        if pairing.base:
            result["tasks"].update(
                task_comparisons(label, pairing.base, pairing.candidate, n_boot, seed)
            )
    return result
