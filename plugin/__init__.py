"""Harness glue: `core/` (what everything shares), one package per benchmark (`symphony_bias/`,
`grounding/`, `tcav/`), the lmms-eval model adapters (`lmms/`), the report dispatcher and the CLI."""
