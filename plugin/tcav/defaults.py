"""Defaults shared by the library functions and the command line. Standard library only: the CLI
imports this at start-up. The analysis defaults mirror `symphony_bench.metrics.tcav.Settings` (a test
checks they agree), which the command line cannot import before a command runs."""

DEFAULT_CONCEPT_COLUMNS = ("gender", "language")
DEFAULT_MAX_SECONDS = 30.0
DEFAULT_RUNS = 500
DEFAULT_SUBSET_FRACTION = 0.25
DEFAULT_CAP_PER_CELL = 50
DEFAULT_MIN_PER_CELL = 5
DEFAULT_C = 1.0
DEFAULT_MIN_ACCURACY = 0.7
DEFAULT_ALPHA = 0.05
DEFAULT_SIGNIFICANCE = "calibrated"
DEFAULT_SEED = 0
SIGNIFICANCE_METHODS = ("calibrated", "paper")
