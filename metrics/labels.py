"""Label sets the statistics are defined over (no dependencies, so `plugin.core` can re-export them)."""

GENDERS = ("male", "female", "non_binary")  # column order of every (n, 3) score array
CATEGORIES = ("male", "female", "none")  # stereotype categories of an instrument
MALE, FEMALE, NON_BINARY = range(3)  # column indices of GENDERS
