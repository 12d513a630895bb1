"""Harness glue: `core/` (what everything shares), one package per benchmark (`symphony_bias/`,
`grounding/`, `tcav/`), the lmms-eval model adapters (`lmms/`), the local models (`devtools/`), the
tooling that reads finished runs (`runs/`) and the command line (`cli`)."""
