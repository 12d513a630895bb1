"""lmms-eval glue for the tasks in this folder (lmms-eval imports `!function utils.<name>` from here)."""

from symphony_bench.plugin.grounding import INTERFACES, aggregations, docs_function
from symphony_bench.plugin.grounding import doc_to_text, doc_to_visual, process_results  # noqa: F401

# <task>_docs for each task, and <family>_<metric>[_stderr] for each aggregation the YAMLs name
globals().update({f"{task}_docs": docs_function(task) for task in INTERFACES})
globals().update(aggregations())
