"""Refused docs in the association data: counted apart from the invalid ones, as a headline rate and
per instrument, each on the design's units."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from scipy.special import expit

from symphony_bench.metrics import analyse, build_association_data, design_rate
from symphony_bench.metrics.instrument_rates import MIN_TEMPLATES, instrument_design_rates


def planted(seed: int = 0, n_templates: int = 24, clips: int = 1):
    """Docs of four instruments over `n_templates` templates (`clips` stimuli each); some invalid,
    some refused (never both)."""
    rng = np.random.default_rng(seed)
    rows = []
    for template in range(n_templates):
        for instrument, category in (
            ("harp", "female"),
            ("drums", "male"),
            ("piano", "none"),
            ("oboe", "female"),
        ):
            for clip in range(clips):
                outcome = rng.choice(["rated", "invalid", "refused"], p=[0.7, 0.1, 0.2])
                rows.append(
                    {
                        "template": f"t{template}",
                        "instrument": instrument,
                        "category": category,
                        "stimulus": f"{instrument}-{clip}",
                        "valid": outcome == "rated",
                        "refused": outcome == "refused",
                        "scores": rng.integers(1, 6, size=3).astype(float),
                    }
                )
    frame = pd.DataFrame(rows)
    data = association_data(frame, refused=frame.refused)
    return frame, data


def association_data(frame: pd.DataFrame, refused=None):
    return build_association_data(
        frame.template,
        frame.instrument,
        frame.category,
        np.stack(frame.scores),
        frame.valid,
        template_ids=frame.template,
        stimulus_ids=frame.stimulus,
        refused=refused,
    )


@pytest.mark.parametrize("clips", [1, 3])
def test_refusals_are_their_own_rate_and_not_invalid(clips):
    frame, data = planted(clips=clips)
    headline = analyse(data).headline
    assert headline["refusal_rate"] == pytest.approx(frame.refused.mean(), abs=1e-12)
    assert headline["invalid_rate"] == pytest.approx(
        (~frame.valid & ~frame.refused).mean(), abs=1e-12
    )
    assert headline["n_refused"] == frame.refused.sum()
    assert headline["refusal_rate_stderr"] == design_rate(data, frame.refused)["stderr"]
    result = analyse(data)
    by_instrument = frame.groupby("instrument")
    for k, name in enumerate(result.instruments):
        assert result.n_refused[k] == by_instrument.refused.sum()[name]
        assert (
            result.n_invalid[k] == (~frame.valid & ~frame.refused)[frame.instrument == name].sum()
        )


@pytest.mark.parametrize("clips", [1, 3])
def test_per_instrument_rates_equal_the_rate_of_that_instrument_alone(clips):
    frame, data = planted(seed=1, n_templates=44, clips=clips)  # one stimulus: 40 for an interval
    rates = instrument_design_rates(data, frame.refused)
    for name, rate in zip(data.instruments, rates, strict=True):
        alone = frame[frame.instrument == name]
        assert rate["rate"] == pytest.approx(alone.refused.mean(), abs=1e-12)
        own = association_data(alone)
        assert rate["stderr"] == pytest.approx(design_rate(own, alone.refused)["stderr"], rel=1e-12)
        low, high = rate["ci"]
        assert data.n_templates >= MIN_TEMPLATES
        # no refusal (or only refusals) in an instrument: no variation, the interval is the value
        assert (low < rate["rate"] < high) if rate["stderr"] > 0 else (low == rate["rate"] == high)


def test_an_instrument_with_few_templates_gets_no_interval():
    frame, data = planted(seed=2, n_templates=MIN_TEMPLATES - 1)
    for rate in instrument_design_rates(data, frame.refused):
        assert np.isnan(rate["stderr"]) and np.isnan(rate["ci"]).all() and 0 <= rate["rate"] <= 1


def test_a_refused_doc_with_a_rating_is_refused():
    with pytest.raises(ValueError, match="refused docs must be invalid"):
        build_association_data(["t"], ["harp"], ["female"], [[1, 2, 3]], [True], refused=[True])


def quadrature_rate(base: float, sd: float) -> float:
    """E[expit(base + e)], e ~ N(0, sd^2), by Gauss-Hermite quadrature: the population share."""
    nodes, weights = np.polynomial.hermite_e.hermegauss(80)
    return float(np.sum(weights * expit(base + sd * nodes)) / np.sum(weights))


@pytest.mark.slow
def test_per_instrument_intervals_cover_when_refusals_cluster_by_template():
    """The full text design (86 templates x 22 instruments x 3 scenarios): refusals with a template
    effect and a template x instrument effect on the logit. Each instrument's interval covers the
    population share in 93-97 % of 300 runs x 22 instruments."""
    rng = np.random.default_rng(34)
    templates, instruments, per_cell, base, sd = 86, 22, 3, -1.5, (0.8, 0.5)
    truth = quadrature_rate(base, float(np.hypot(*sd)))
    template, instrument, _ = np.indices((templates, instruments, per_cell)).reshape(3, -1)
    covered = total = 0
    for run in range(300):
        logit = base + rng.normal(0, sd[0], (templates, 1, 1))
        logit = logit + rng.normal(0, sd[1], (templates, instruments, 1))
        refused = (rng.random((templates, instruments, per_cell)) < expit(logit)).ravel()
        data = build_association_data(
            template.astype(str),
            instrument.astype(str),
            np.full(template.size, "none"),
            np.ones((template.size, 3)),
            ~refused,
            template_ids=template.astype(str),
            refused=refused,
        )
        for rate in instrument_design_rates(data, refused, n_boot=200, seed=run):
            covered += rate["ci"][0] <= truth <= rate["ci"][1]
            total += 1
    print(f"per-instrument refusal-rate coverage {covered / total:.3f}")
    assert 0.93 <= covered / total <= 0.97
