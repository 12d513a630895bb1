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
    contextual_calibration,
    human_correlation,
    normalise_scores,
    paired_ttest,
    point_estimates,
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
    "contextual_calibration",
    "human_correlation",
    "normalise_scores",
    "paired_ttest",
    "point_estimates",
    "protocol_agreement",
]
