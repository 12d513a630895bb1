"""symphony-bench: music x gender bias benchmarks for lm-evaluation-harness and lmms-eval."""

__version__ = "0.1.0"
