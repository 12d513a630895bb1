"""Re-reading a Symphony-Bias samples line's raw answer with the installed readers (ReportSection.
rescore), through the functions the tasks' process_results run, and the tasks' aggregations by
metric name (ReportSection.aggregate), as the harness computes its results file. The harness glue
(lm-eval's, lmms-eval's) is imported only when a line of its kind is re-read."""

from __future__ import annotations

import importlib

from symphony_bench.plugin.core.raw_answers import (
    generated_text,
    logged_doc,
    loglikelihood_results,
)
from symphony_bench.plugin.core.sections import CannotReread
from symphony_bench.plugin.symphony_bias.records import (
    LIKERT,
    LIKERT_SCORED,
    LOGPROB,
    OPEN,
    RECOGNITION,
    likert_record,
    open_record,
    read_likert,
    read_open,
)

# the module whose functions the task YAMLs name as aggregations, by record kind
AGGREGATIONS = {
    LOGPROB: "symphony_bench.plugin.symphony_bias.logprob",
    RECOGNITION: "symphony_bench.plugin.symphony_bias.recognition",
}
RECORD_AGGREGATIONS = "symphony_bench.plugin.symphony_bias.records"


def rescore(sample: dict, record: dict) -> dict:
    doc, kind = logged_doc(sample, record), record["kind"]
    if kind == LIKERT:
        return likert_record(doc, read_likert(generated_text(sample)))
    if kind == OPEN:
        return open_record(doc, read_open(generated_text(sample), doc.get("scenario")))
    if kind == RECOGNITION:
        from symphony_bench.plugin.symphony_bias.recognition import process_recognition

        return _one_record(process_recognition(doc, [generated_text(sample)]))
    if kind in (LOGPROB, LIKERT_SCORED):
        if doc is record:
            raise CannotReread("no doc in the line (log-likelihood tasks are lm-eval's)")
        module = "logprob" if kind == LOGPROB else "likert_scored"
        task = importlib.import_module(f"symphony_bench.plugin.symphony_bias.{module}")
        return _one_record(task.process_results(doc, loglikelihood_results(sample)))
    raise CannotReread(f"no reader for {kind} records")


def _one_record(metrics: dict) -> dict:
    """process_results gives every metric the same record."""
    return next(iter(metrics.values()))


def aggregate(kind: str, metric: str, records: list[dict]) -> float | None:
    module = importlib.import_module(AGGREGATIONS.get(kind, RECORD_AGGREGATIONS))
    function = getattr(module, metric, None)
    return None if function is None else function(records)
