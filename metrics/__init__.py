"""Pure metric functions (no harness imports): formulas and statistics over plain arrays."""

from .association import (
    GENDERS,
    AssociationData,
    AssociationResult,
    alignment_bias,
    analyse,
    binomial_rate,
    bootstrap_weights,
    build_association_data,
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
    "human_correlation",
    "normalise_scores",
    "paired_ttest",
    "point_estimates",
]
