"""Pure metric functions (no harness imports): formulas and statistics over plain arrays."""

from .agreement import protocol_agreement
from .association import (
    GENDERS,
    AssociationData,
    AssociationResult,
    alignment_bias,
    analyse,
    binomial_rate,
    bootstrap_weights,
    build_association_data,
    cell_means,
    contextual_calibration,
    human_correlation,
    instrument_tests,
    normalise_scores,
    pearson_with_ci,
    point_estimates,
    prior_adjusted,
)

__all__ = [
    "GENDERS",
    "AssociationData",
    "AssociationResult",
    "alignment_bias",
    "analyse",
    "binomial_rate",
    "bootstrap_weights",
    "build_association_data",
    "cell_means",
    "instrument_tests",
    "contextual_calibration",
    "human_correlation",
    "normalise_scores",
    "pearson_with_ci",
    "point_estimates",
    "prior_adjusted",
    "protocol_agreement",
]
