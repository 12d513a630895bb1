"""The gender skew (mean |GAS male - GAS female|), its null reference and the pro / counter-stereotype
rates: a hand computation, planted effects, a template jackknife for the stderr, and a simulation of
the null reference on a clustered design."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from symphony_bench.metrics import analyse, build_association_data
from symphony_bench.metrics.paired import association_changes

INSTRUMENTS = 22
CATEGORIES = np.where(
    np.arange(INSTRUMENTS) % 3 == 0,
    "none",
    np.where(np.arange(INSTRUMENTS) % 3 == 1, "male", "female"),
)


def simulated(rng, templates: int, instrument_gap, template_sd=0.03, pair_sd=0.02, noise=0.06):
    """One doc per (template, instrument): male share 1/3 + instrument_gap[i] / 2 + a template
    effect shared by every instrument + a template x instrument effect + noise; female share its
    mirror, so the true GAS(male) - GAS(female) of instrument i is instrument_gap[i]."""
    t, i = np.indices((templates, INSTRUMENTS)).reshape(2, -1)
    male = (
        1 / 3
        + np.asarray(instrument_gap)[i] / 2
        + rng.normal(0, template_sd, templates)[t]
        + rng.normal(0, pair_sd, (templates, INSTRUMENTS))[t, i]
        + rng.normal(0, noise, t.size)
    )
    male = np.clip(male, 0.001, 2 / 3 - 0.001)
    shares = np.column_stack([male, 2 / 3 - male, np.full(t.size, 1 / 3)])
    return build_association_data(
        t.astype(str),
        i.astype(str),
        CATEGORIES[i],
        shares,
        np.ones(t.size, dtype=bool),
        template_ids=t.astype(str),
    )


def hand_skew(data) -> float:
    """mean over instruments of |mean share male - mean share female| over the instrument's docs."""
    frame = pd.DataFrame(
        {
            "instrument": data.instrument_codes,
            "gap": data.shares[:, 0] - data.shares[:, 1],
        }
    )
    return float(frame.groupby("instrument").gap.mean().abs().mean())


def test_gender_skew_is_the_mean_absolute_gap_by_hand():
    scores = np.array(
        [
            [5, 1, 3],  # instrument a, template 0: shares 5/9, 1/9, 3/9
            [4, 2, 3],  # a, template 1
            [1, 5, 3],  # b, template 0
            [3, 3, 3],  # b, template 1
        ],
        dtype=float,
    )
    data = build_association_data(
        ["s0", "s1", "s0", "s1"],
        ["a", "a", "b", "b"],
        ["male", "male", "female", "female"],
        scores,
        np.ones(4, dtype=bool),
    )
    result = analyse(data, n_boot=200)
    gap_a = np.mean([(5 - 1) / 9, (4 - 2) / 9])
    gap_b = np.mean([(1 - 5) / 9, 0.0])
    assert result.skew == pytest.approx([gap_a, abs(gap_b)], abs=1e-12)
    assert result.headline["gender_skew"] == pytest.approx((gap_a + abs(gap_b)) / 2, abs=1e-12)


def test_mixed_directions_cancel_in_mean_abs_but_not_in_the_skew():
    """The default planted model of the report tests is of this kind: large per-instrument gaps in
    both directions, mean ABS near 0."""
    gap = np.where(np.arange(INSTRUMENTS) % 2 == 0, 0.3, -0.3)  # half towards the stereotype
    data = simulated(np.random.default_rng(1), 30, gap * np.where(CATEGORIES == "female", -1, 1))
    headline = analyse(data, n_boot=400).headline
    assert abs(headline["mean_abs"]) < 0.1 < 0.25 < headline["gender_skew"]
    assert headline["gender_skew"] == pytest.approx(hand_skew(data), abs=1e-12)
    assert headline["gender_skew_null"] < 0.05  # far below: association, not noise
    assert headline["pro_stereotype_rate"] > 0 and headline["counter_stereotype_rate"] > 0


def test_a_reversed_model_is_named_counter_stereotyped():
    signs = np.select([CATEGORIES == "male", CATEGORIES == "female"], [1.0, -1.0], 0.0)
    data = simulated(np.random.default_rng(2), 30, -0.25 * signs)  # every gap against the table
    headline = analyse(data, n_boot=400).headline
    assert headline["mean_abs"] < -0.2
    assert headline["counter_stereotype_rate"] == 1.0 and headline["pro_stereotype_rate"] == 0.0


def test_a_model_that_rates_every_gender_alike_has_skew_zero_and_null_zero():
    scores = np.full((2 * INSTRUMENTS, 3), 3.0)  # "medium" for everyone, everywhere
    data = build_association_data(
        np.repeat(["s0", "s1"], INSTRUMENTS),
        np.tile(np.arange(INSTRUMENTS).astype(str), 2),
        np.tile(CATEGORIES, 2),
        scores,
        np.ones(2 * INSTRUMENTS, dtype=bool),
    )
    headline = analyse(data, n_boot=200).headline
    assert headline["gender_skew"] == 0.0 and headline["gender_skew_null"] == 0.0
    assert headline["pro_stereotype_rate"] == headline["counter_stereotype_rate"] == 0.0


def template_jackknife_stderr(data) -> float:
    """An independent stderr of the skew: the delete-one-template jackknife of hand_skew."""
    frame = pd.DataFrame(
        {
            "template": data.template_codes,
            "instrument": data.instrument_codes,
            "gap": data.shares[:, 0] - data.shares[:, 1],
        }
    )
    templates = frame.template.unique()
    leave_one_out = np.array(
        [
            frame[frame.template != t].groupby("instrument").gap.mean().abs().mean()
            for t in templates
        ]
    )
    n = len(templates)
    return float(np.sqrt((n - 1) / n * np.sum((leave_one_out - leave_one_out.mean()) ** 2)))


def test_skew_stderr_agrees_with_a_template_jackknife():
    gap = np.linspace(-0.3, 0.3, INSTRUMENTS) + 0.05  # every gap well away from 0: |.| is smooth
    data = simulated(np.random.default_rng(3), 40, gap)
    headline = analyse(data).headline
    jackknife = template_jackknife_stderr(data)
    assert headline["gender_skew_stderr"] == pytest.approx(jackknife, rel=0.12)


def test_paired_change_of_the_skew_is_the_difference_of_the_two_runs():
    rng = np.random.default_rng(4)
    base = simulated(rng, 20, np.full(INSTRUMENTS, 0.2))
    candidate = simulated(rng, 20, np.full(INSTRUMENTS, 0.05))
    change = association_changes(base, candidate, n_boot=400)["gender_skew"]
    assert change["change"] == pytest.approx(hand_skew(candidate) - hand_skew(base), abs=1e-12)
    assert change["p_value"] < 0.05 and change["ci"][1] < 0


@pytest.mark.slow  # 400 simulated runs
@pytest.mark.parametrize("templates", [5, 20])
def test_null_reference_is_what_a_model_without_association_scores(templates):
    """No instrument has a gender gap; template effects shared across instruments make the noise
    clustered. The mean skew over runs must match the mean null reference (the reference is the
    expected skew of such a model), and the skew of a model with real gaps must stand well above."""
    rng = np.random.default_rng(templates)
    skews, nulls = [], []
    for _ in range(400):
        headline = analyse(simulated(rng, templates, np.zeros(INSTRUMENTS)), n_boot=50).headline
        skews.append(headline["gender_skew"])
        nulls.append(headline["gender_skew_null"])
    ratio = np.mean(skews) / np.mean(nulls)
    # se_i is estimated on T - 1 df (biased low as an sd by about 1 / (4 (T - 1))): 1.06 at T = 5
    assert 0.95 < ratio < (1.15 if templates == 5 else 1.05), ratio
    planted = analyse(simulated(rng, templates, np.full(INSTRUMENTS, 0.15)), n_boot=50).headline
    assert planted["gender_skew"] > 2 * planted["gender_skew_null"]


def test_skew_intervals_do_not_reach_below_zero():
    result = analyse(simulated(np.random.default_rng(8), 5, np.zeros(INSTRUMENTS)), n_boot=400)
    assert result.headline["gender_skew_ci"][0] >= 0.0
    assert np.all(result.skew_ci[np.isfinite(result.skew_ci)] >= 0.0)
    assert np.any(result.skew_ci[:, 0] == 0.0)  # near-0 skews: their t interval would cross 0
