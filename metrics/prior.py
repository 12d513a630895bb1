"""The model's own gender prior, from the instrument-free control docs ("... practises an
instrument ..."; `build_association_data(..., control=...)` keeps their mean shares per template):
`prior_adjusted` measures every doc against it, and `control_check` tests the assumption that makes
that meaningful, that the control elicits the prior an instrument doc does.

Pure functions over plain arrays; no harness imports.
"""

from __future__ import annotations

import dataclasses

import numpy as np

from symphony_bench.metrics.association import bootstrap_stderr, unit_weights, weighted_gas
from symphony_bench.metrics.association_data import (
    AssociationData,
    cell_means,
    instrument_membership,
)
from symphony_bench.metrics.clustered import finite_mean, t_inference
from symphony_bench.metrics.constants import BOOTSTRAP_SEED, N_BOOTSTRAP, UNIFORM_SHARE
from symphony_bench.metrics.labels import FEMALE, MALE


def prior_adjusted(data: AssociationData) -> AssociationData:
    """The same docs measured against the model's own gender prior: each cell's shares minus the
    instrument-free control docs' shares of the same template (plus 1/3, so GAS reads as the change
    from the prior). A model that favours one gender whatever the instrument gets ABS 0 here."""
    if data.prior is None:
        raise ValueError("prior-adjusted scores need instrument-free control docs (control=...)")
    return dataclasses.replace(data, prior=None, adjustment=data.prior - UNIFORM_SHARE)


def control_check(
    data: AssociationData,
    n_boot: int = N_BOOTSTRAP,
    seed: int = BOOTSTRAP_SEED,
    confidence: float = 0.95,
) -> dict[str, float | list[float]]:
    """Does the instrument-free control elicit the gender prior an instrument doc does? The
    prior-adjusted analysis assumes so; a control that reads, say, 0.2 logit more male than an
    average instrument doc shifts every adjusted ABS (29.5 % false positives per instrument in
    simulation). On the templates with a valid control: the control's GAS per gender, the
    instrument average of GAS per gender (instruments weighted equally, as the headline numbers),
    and the difference of their male - female gaps (instrument average - control) with a template
    bootstrap stderr, t interval and p-value (T - 1 df). A difference far from 0 means the adjusted
    numbers move every instrument by about that much (a sign flip for one stereotype group)."""
    if data.prior is None:
        raise ValueError("the control check needs instrument-free control docs (control=...)")
    with_control = np.isfinite(data.prior[:, 0])
    means = np.where(with_control[:, None, None], cell_means(data), np.nan)
    prior = np.where(with_control[:, None], data.prior, 0.0)
    template_weights, stimulus_weights = unit_weights(data, n_boot, seed)
    ones_t, ones_s = np.ones((1, data.n_templates)), np.ones((1, data.n_stimuli))
    point, replicates = (
        _control_and_instruments(means, prior, with_control, t, s, instrument_membership(data))
        for t, s in ((ones_t, ones_s), (template_weights, stimulus_weights))
    )
    gap = _gap_difference(*point)[0]
    stderr = bootstrap_stderr(_gap_difference(*replicates), int(with_control.sum()))
    df = np.array(max(int(with_control.sum()) - 1, 1), dtype=float)
    _, p_value, interval = t_inference(np.array(gap), np.array(stderr) ** 2, df, confidence)
    return {
        "control_gas": point[0][0].tolist(),
        "instrument_gas": point[1][0].tolist(),
        "gap_difference": float(gap),
        "gap_difference_stderr": stderr,
        "gap_difference_ci": interval.tolist(),
        "gap_difference_p_value": float(p_value),
        "n_templates": int(with_control.sum()),
    }


def _control_and_instruments(
    means, prior, with_control, template_weights, stimulus_weights, membership
):
    """(B, 3) control GAS and (B, 3) instrument-average GAS under template (and stimulus) weights."""
    weights = template_weights * with_control
    with np.errstate(invalid="ignore", divide="ignore"):
        control = weights @ prior / weights.sum(axis=1, keepdims=True) - UNIFORM_SHARE
    instruments = weighted_gas(means, template_weights, stimulus_weights, membership)
    return control, finite_mean(instruments, axis=-2)


def _gap_difference(control: np.ndarray, instruments: np.ndarray) -> np.ndarray:
    """(instrument male - female) - (control male - female), per replicate."""
    return (instruments[..., MALE] - instruments[..., FEMALE]) - (
        control[..., MALE] - control[..., FEMALE]
    )
