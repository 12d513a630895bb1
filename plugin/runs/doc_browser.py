"""The docs behind a report, one row each, for the HTML report's doc browser: the task, what
identifies the doc (instrument, template, condition, ... as its benchmark's record holds them), the
prompt the harness sent, the raw answer, what the benchmark read from it and, where it read
nothing, why.

The prompt and the raw answer come from the harness's samples line (lm-eval: `arguments`, `resps`;
lmms-eval: `input`, `filtered_resps`); the rest from our per-doc record, split by the section's
`answer_fields` and `no_reading_reason`. Run facts (seed, data, versions) are left out: the report
shows them once per task.
"""

from __future__ import annotations

import json

from symphony_bench.plugin.core.run_facts import DATA_FIELDS, RUN_FIELDS
from symphony_bench.plugin.core.sections import TaskRecords
from symphony_bench.plugin.runs.check import answer_texts
from symphony_bench.plugin.runs.samples import sample_record
from symphony_bench.plugin.runs.sections import SECTION_OF_KIND

SCALARS = (str, int, float, bool, type(None))
# an identifying field with more distinct values than this is shown but not offered as a filter
MAX_FILTER_VALUES = 60


def doc_rows(tasks: list[TaskRecords]) -> list[dict]:
    """One row per doc of every task: {"task", "doc_id", "prompt", "answer", "reading", "reason",
    "fields": {identifying field: value}}."""
    rows = []
    for task in tasks:
        section = SECTION_OF_KIND[task.kind]
        left_out = {"kind", *section.answer_fields, *section.run_fields, *RUN_FIELDS, *DATA_FIELDS}
        with task.path.open(encoding="utf-8") as lines:
            for line in lines:
                sample = json.loads(line) if line.strip() else {}
                record = sample_record(sample)
                if record is None:
                    continue
                rows.append(
                    {
                        "task": task.label,
                        "doc_id": sample.get("doc_id"),
                        "prompt": prompt_text(sample),
                        "answer": raw_answer(sample),
                        "reading": {
                            name: record[name]
                            for name in sorted(section.answer_fields)
                            if name in record
                        },
                        "reason": section.no_reading_reason(record),
                        "fields": {
                            name: value
                            for name, value in record.items()
                            if name not in left_out and isinstance(value, SCALARS)
                        },
                    }
                )
    return rows


def prompt_text(sample: dict) -> str:
    """The context the harness sent (a log-likelihood task's first request: every request of a
    doc shares it)."""
    if isinstance(sample.get("input"), str):  # lmms-eval
        return sample["input"]
    arguments = sample.get("arguments")
    if isinstance(arguments, dict) and arguments:
        first = next(iter(arguments.values()))
        if isinstance(first, dict) and isinstance(first.get("arg_0"), str):
            return first["arg_0"]
    if isinstance(arguments, list) and arguments and isinstance(arguments[0], list):
        return str(arguments[0][0])
    return ""


def raw_answer(sample: dict) -> str:
    """A generated answer's text; a log-likelihood task's scores as JSON."""
    texts = answer_texts(sample)
    if texts is not None:
        return "\n---\n".join(texts)
    return json.dumps(sample.get("resps", sample.get("filtered_resps")))


def filter_fields(rows: list[dict]) -> list[str]:
    """The identifying fields worth a filter: more than one value and at most MAX_FILTER_VALUES."""
    values: dict[str, set] = {}
    for row in rows:
        for name, value in row["fields"].items():
            values.setdefault(name, set()).add(json.dumps(value))
    return [name for name, seen in values.items() if 1 < len(seen) <= MAX_FILTER_VALUES]
