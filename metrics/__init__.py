"""Pure metric functions (no harness imports): formulas and statistics over plain arrays.

The names below are loaded from their modules on first use, so that `metrics.labels` and
`metrics.constants` (standard library only) can be imported where numpy must not load yet, such as
the command line's start-up.
"""

from importlib import import_module

_MODULE_OF = {
    "protocol_agreement": "agreement",
    "instrument_design_rates": "instrument_rates",
    "GENDERS": "labels",
    **dict.fromkeys(
        (
            "AssociationData",
            "build_association_data",
            "cell_counts",
            "cell_means",
            "contextual_calibration",
            "normalise_scores",
        ),
        "association_data",
    ),
    **dict.fromkeys(
        (
            "AssociationResult",
            "alignment_bias",
            "analyse",
            "binomial_rate",
            "bootstrap_weights",
            "design_rate",
            "instrument_tests",
            "point_estimates",
        ),
        "association",
    ),
    **dict.fromkeys(("control_check", "prior_adjusted"), "prior"),
    **dict.fromkeys(("human_correlation", "pearson_with_ci"), "human_ratings"),
}

__all__ = sorted(_MODULE_OF)


def __getattr__(name: str):
    if name not in _MODULE_OF:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(import_module(f"{__name__}.{_MODULE_OF[name]}"), name)
