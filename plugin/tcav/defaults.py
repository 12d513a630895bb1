"""The `tcav` command's own defaults (the analysis defaults are metrics.constants' TCAV_*, which
metrics.tcav.Settings uses too). Standard library only: the CLI imports this at start-up."""

DEFAULT_CONCEPT_COLUMNS = ("gender", "language")
DEFAULT_MAX_SECONDS = 30.0
DEFAULT_BATCH_SIZE = 8  # tracks loaded and embedded together by `tcav embed`
SIGNIFICANCE_METHODS = ("calibrated", "paper")
