"""The speaker-voice benchmark in the registry (entry point `symphony_bench.benchmarks`:
symphony_bias_voice): a part of the Symphony-Bias package with a report section of its own; light,
the command line reads it at start."""

from __future__ import annotations

from symphony_bench.plugin.core.registry import Benchmark

BENCHMARK = Benchmark(
    package="symphony_bench.plugin.symphony_bias",
    section="symphony_bench.plugin.symphony_bias.voice.report:SECTION",
)
