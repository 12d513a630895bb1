"""The instrument-grounding user option, read from lm-eval-style metadata or $SYMPHONY_GROUNDING
(lmms-eval has no --metadata; see plugin.core.options)."""

from symphony_bench.plugin.core.options import Option

BENCHMARK = Option(
    "grounding",
    None,
    "the benchmark set: a folder built by `symphony-bench build openmic`, or a Hub repo id[@revision] in that layout "
    "(default: the repo pinned in the task YAML)",
)
OPTIONS = (BENCHMARK,)
