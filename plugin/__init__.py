"""Harness glue: dataset loading, prompts, filters, per-document scoring, report and CLI."""
