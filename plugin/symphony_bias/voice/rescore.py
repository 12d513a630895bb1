"""Re-reading a speaker-voice samples line's raw answer with the installed readers (ReportSection.
rescore, through the functions the tasks' process_results run) and the tasks' aggregations by
metric name (ReportSection.aggregate). lmms-eval logs no doc: the stored record holds every doc
field the record is made from."""

from __future__ import annotations

from symphony_bench.plugin.core.raw_answers import generated_text, logged_doc
from symphony_bench.plugin.symphony_bias.voice import summaries
from symphony_bench.plugin.symphony_bias.voice.records import (
    KIND_OF_PROTOCOL,
    RECOMMENDATION,
    read_attribution,
    read_recommendation,
    voice_record,
)

PROTOCOL_OF_KIND = {kind: protocol for protocol, kind in KIND_OF_PROTOCOL.items()}
# the task YAML's metric names -> the aggregations it names
AGGREGATIONS = {
    "voice_skew": summaries.voice_skew_metric,
    "voice_abs": summaries.voice_abs_metric,
    "invalid_rate": summaries.invalid_rate,
}


def rescore(sample: dict, record: dict) -> dict:
    doc = {**logged_doc(sample, record), "protocol": PROTOCOL_OF_KIND[record["kind"]]}
    text = generated_text(sample)
    read = read_recommendation(text) if record["kind"] == RECOMMENDATION else read_attribution(text)
    return voice_record(doc, read)


def aggregate(kind: str, metric: str, records: list[dict]) -> float | None:
    function = AGGREGATIONS.get(metric)
    return None if function is None else function(records)
