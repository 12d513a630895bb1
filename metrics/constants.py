"""Numbers the statistics share, importable without numpy (the command line reads them at start)."""

UNIFORM_SHARE = 1.0 / 3.0  # a gender's share when a doc rates all three alike
BOOTSTRAP_SEED = 20240611  # every bootstrap's default seed (one run, paired changes, response bias)
N_BOOTSTRAP = 1000  # default replicates of the association and paired bootstraps
