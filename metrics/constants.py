"""Numbers the statistics share, importable without numpy (the command line reads them at start)."""

UNIFORM_SHARE = 1.0 / 3.0  # a gender's share when a doc rates all three alike
BOOTSTRAP_SEED = 20240611  # every bootstrap's default seed (one run, paired changes, response bias)
N_BOOTSTRAP = 1000  # default replicates of the association and paired bootstraps

# TCAV's analysis defaults: metrics.tcav.Settings and the `tcav` command's options
TCAV_RUNS = 500
TCAV_SUBSET_FRACTION = 0.25
TCAV_CAP_PER_CELL = 50
TCAV_MIN_PER_CELL = 5
TCAV_C = 1.0
TCAV_MIN_ACCURACY = 0.7
TCAV_ALPHA = 0.05
TCAV_SIGNIFICANCE = "calibrated"
TCAV_SEED = 0
# below this many templates a one-stimulus design's rates get no interval (metrics.association)
RATE_MIN_TEMPLATES = 40
# below this many templates the report tells the reader to take the gender skew's interval, not its
# ± stderr (on the 5-template mini the stderr is about 0.64x the skew's true spread)
SKEW_STDERR_MIN_TEMPLATES = 20
