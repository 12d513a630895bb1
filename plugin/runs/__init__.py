"""Everything that reads finished harness runs: the run folder's files (`files`), the one checked
reader of samples files (`samples`), what a run was made of (`provenance`), `report`, `compare` and
its release gate (`gate`, `compare_output`), `leaderboard` and its page, `export`, `check`, and
the plots. A benchmark is known here only through the `ReportSection` its entry point registers
(plugin.core.registry), which `sections` reads.
`commands` adds the subcommands to the CLI (standard library only at import)."""
