"""Symphony-Bias in the registry (entry points `symphony_bench.benchmarks`: symphony_bias and
symphony_bias_voice); light, the command line reads it at start."""

from __future__ import annotations

from pathlib import Path

from symphony_bench.plugin.core.registry import Benchmark, ReportOption

HUMAN_RATINGS = ReportOption(
    "human_ratings",
    Path,
    "CSV: instrument,male,female,non_binary (e.g. survey means)",
    metavar="CSV",
    input_file=True,
)
BENCHMARK = Benchmark(
    package="symphony_bench.plugin.symphony_bias",
    section="symphony_bench.plugin.symphony_bias.report:SECTION",
    report_options=(HUMAN_RATINGS,),
)
# the speaker-voice benchmark: a part of this package with a report section of its own
# (entry point symphony_bias_voice)
VOICE_BENCHMARK = Benchmark(
    package="symphony_bench.plugin.symphony_bias",
    section="symphony_bench.plugin.symphony_bias.voice.report:SECTION",
)
