"""Which task a mitigation task (the base docs, each with an instruction against stereotyping) is
paired with in one model folder: the task of the same kind without an instruction whose docs are
its docs (doc_id -> scenario, instrument) and that ran on the same run facts `compare` checks
(seed, scenario set, data, stereotype table, stimulus origin). When none pairs, the report says why.
"""

from __future__ import annotations

from symphony_bench.plugin.core.sections import TaskRecords
from symphony_bench.plugin.symphony_bias.records import RECOGNITION, stereotype_table_sha256


def _one_value(records: list[dict], field: str):
    values = {repr(record.get(field)) for record in records}
    return records[0].get(field) if len(values) == 1 else sorted(values)


PAIRED_FACTS = {
    "seed": lambda records: _one_value(records, "seed"),
    "scenario_set_sha256": lambda records: _one_value(records, "scenario_set_sha256"),
    "dataset_sha256": lambda records: _one_value(records, "dataset_sha256"),
    "stereotype_table_sha256": stereotype_table_sha256,
    "stimulus_origin": lambda records: _one_value(records, "stimulus_origin"),
}


def mitigation_of(task: TaskRecords) -> str | None:
    """The instruction against stereotyping a task's docs hold (one for all), else None."""
    names = {record.get("mitigation") for record in task.records}
    return names.pop() if len(names) == 1 else None


def doc_keys(task: TaskRecords) -> dict[int, tuple]:
    return {
        doc_id: (record["scenario_id"], record["instrument"])
        for doc_id, record in zip(task.doc_ids, task.records, strict=True)
    }


def pairing_problem(base: TaskRecords, task: TaskRecords) -> str | None:
    """Why `base` cannot be `task`'s base (its docs or a run fact differ), or None."""
    if doc_keys(base) != doc_keys(task):
        return f"{base.label} holds other docs (doc_id -> scenario, instrument)"
    for name, fact in PAIRED_FACTS.items():
        ours, theirs = fact(task.records), fact(base.records)
        if ours != theirs:
            return f"{name} is {theirs!r} in {base.label}, {ours!r} here"
    return None


def baseline_task_of(
    task: TaskRecords, tasks: list[TaskRecords]
) -> tuple[TaskRecords | None, str | None]:
    """(a mitigation task's base task, None), or (None, why none pairs); (None, None) for a task
    that is not a mitigation task."""
    if task.kind == RECOGNITION or mitigation_of(task) is None:
        return None, None
    candidates = [
        other for other in tasks if other.kind == task.kind and mitigation_of(other) is None
    ]
    problems = []
    for other in candidates:
        problem = pairing_problem(other, task)
        if problem is None:
            return other, None
        problems.append(problem)
    if not problems:
        return None, "no task of this protocol without an instruction ran in this model folder"
    return None, "; ".join(problems)


def paired_by_doc(base: TaskRecords, candidate: TaskRecords) -> tuple[list[dict], list[dict]]:
    """Both tasks' records in doc_id order (their docs are the same)."""
    by_id = [dict(zip(task.doc_ids, task.records, strict=True)) for task in (base, candidate)]
    order = sorted(by_id[0])
    return [by_id[0][k] for k in order], [by_id[1][k] for k in order]
