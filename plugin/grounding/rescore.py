"""Re-reading a grounding samples line's raw answer with the installed reader (ReportSection.
rescore) through the tasks' process_results, and the tasks' aggregations by metric name. lmms-eval
logs no doc: the doc is rebuilt from the record, which holds what the name, letter and time
interfaces read against (options, gold, group, clip); a yes/no record lacks the instrument asked
about and a set record its options, so those cannot be re-read."""

from __future__ import annotations

from symphony_bench.plugin.core.raw_answers import generated_text
from symphony_bench.plugin.core.sections import CannotReread
from symphony_bench.plugin.grounding import records as aggregations
from symphony_bench.plugin.grounding.records import CHOICE

REREAD_INTERFACES = ("name", "letter", "time")


def rescore(sample: dict, record: dict) -> dict:
    if record["kind"] != CHOICE or record.get("interface") not in REREAD_INTERFACES:
        what = "set" if record["kind"] != CHOICE else record.get("interface")
        raise CannotReread(f"a {what} record lacks part of its doc (lmms-eval logs none)")
    from symphony_bench.plugin.grounding.tasks import process_results

    doc = {**record, "sample_key": record["clip"]}
    metrics = process_results(doc, [generated_text(sample)])
    return next(iter(metrics.values()))


def aggregate(kind: str, metric: str, records: list[dict]) -> float | None:
    function = getattr(aggregations, metric, None)
    return None if function is None or metric.startswith("_") else function(records)
