"""The variance of headline numbers and their paired changes on crossed designs (templates x
stimuli, metrics.clustered.two_way_clustered): against an independent computation, and by
simulation of two runs of one model on the text, mini, audio and mini-audio designs (shared
template, template x instrument and clip effects, fresh doc noise per run): the paired stderr
within 10 % of the true sd of the change, null false-positive rate 4-6 %, planted-change coverage
93-97 %. The pigeonhole bootstrap it replaces gave 1.7-1.8x on the stimulus designs."""

from __future__ import annotations

import dataclasses

import numpy as np
import pandas as pd
import pytest
from numpy.testing import assert_equal
from support.paired_designs import DESIGNS, _doc_columns, design_docs, shared_effects, simulate

from symphony_bench.metrics import analyse, build_association_data
from symphony_bench.metrics.clustered import two_way_clustered
from symphony_bench.metrics.paired import association_changes


def test_two_way_clustered_matches_the_multiway_formula_computed_with_pandas():
    rng = np.random.default_rng(1)
    templates, groups, per_group = 6, 3, 4
    u = rng.normal(size=(templates, groups * per_group))
    sizes = np.full(groups * per_group, per_group)
    frame = pd.DataFrame(
        [(t, s, u[t, s]) for t in range(templates) for s in range(groups * per_group)],
        columns=["template", "stimulus", "u"],
    )
    v_t = frame.groupby("template").u.sum().pow(2).sum() * templates / (templates - 1)
    v_s = frame.groupby("stimulus").u.sum().pow(2).sum() * per_group / (per_group - 1)
    v_e = frame.u.pow(2).sum()
    template_part, stimulus_part = max(v_t - v_e, 0), max(v_s - v_e, 0)
    expected = template_part + stimulus_part + v_e
    df_t, df_s = templates - 1, groups * per_group - groups  # one mean per group of stimuli
    satterthwaite = expected**2 / (
        template_part**2 / df_t + stimulus_part**2 / df_s + v_e**2 / (df_t * df_s)
    )
    variance, df = two_way_clustered(u, sizes)
    assert variance == pytest.approx(expected, rel=1e-12)
    assert df == pytest.approx(satterthwaite, rel=1e-12)


def test_a_paired_change_on_a_crossed_design_uses_the_two_way_variance():
    rng = np.random.default_rng(3)
    effects = shared_effects(rng, 5, 5)
    base, candidate = (design_docs(rng, 5, 5, effects) for _ in range(2))
    change = association_changes(base, candidate, n_boot=50)["mean_abs"]
    assert np.isfinite(change["stderr"]) and change["df"] > 4  # Satterthwaite, not T - 1
    single = analyse(base, n_boot=50).headline
    assert np.isfinite(single["mean_abs_stderr"])


@pytest.mark.parametrize("design", list(DESIGNS))
def test_a_simulated_run_is_the_run_build_association_data_codes_after_analyses_ran_on_it(design):
    """The simulations code the design's id columns once and reuse them in every run."""
    templates, clips = DESIGNS[design]
    rng = np.random.default_rng(11)
    effects = shared_effects(rng, templates, clips)
    base, candidate = (design_docs(rng, templates, clips, effects) for _ in range(2))
    association_changes(base, candidate, n_boot=20)
    template_ids, instruments, categories, stimulus_ids = _doc_columns(templates, clips)
    fresh = build_association_data(
        template_ids,
        instruments,
        categories,
        candidate.shares,
        candidate.valid,
        template_ids=template_ids,
        stimulus_ids=stimulus_ids,
    )
    for field in dataclasses.fields(fresh):
        assert_equal(getattr(candidate, field.name), getattr(fresh, field.name), field.name)


@pytest.mark.parametrize("design", ["audio", "mini_audio"])
def test_a_stimulus_designs_mean_abs_change_does_not_use_the_bootstrap(design):
    """What lets the simulations below skip the bootstrap on stimulus designs."""
    templates, clips = DESIGNS[design]
    rng = np.random.default_rng(7)
    effects = shared_effects(rng, templates, clips)
    base, candidate = (design_docs(rng, templates, clips, effects) for _ in range(2))
    large, small = (
        association_changes(base, candidate, n_boot=n_boot, seed=n_boot)["mean_abs"]
        for n_boot in (400, 2)
    )
    assert large.keys() == small.keys()
    for name in large:
        np.testing.assert_array_equal(large[name], small[name])


@pytest.mark.slow
@pytest.mark.parametrize("design", list(DESIGNS))
def test_the_paired_stderr_is_the_true_sd_and_the_gate_holds_its_level_and_power(design):
    """Null runs (4,000 on the text designs, which are fast, 2,000 on the stimulus ones): stderr
    against the sd of the changes, false-positive rate; runs with a change of the null runs' mean
    reported MDE: coverage, and the detection rate the MDE promises (at least 0.80; more where the
    rerun floor under the MDE binds, as it does for about half of such reruns: measured 0.84 text,
    0.90 mini, 0.82 audio, 0.81 mini-audio)."""
    null = simulate(design, 4_000 if DESIGNS[design][1] == 1 else 2_000, 0.0, seed=len(design))
    ratio = np.sqrt(np.mean(null.stderr**2)) / np.std(null.change, ddof=1)
    false_positive_rate = np.mean(null.p_value < 0.05)
    mde = float(null.mde.mean())
    planted = simulate(design, 1_000, mde, seed=len(design) + 100)
    covered = np.mean((planted.low <= mde) & (mde <= planted.high))
    detected = np.mean(planted.p_value < 0.05)
    print(
        f"{design}: paired stderr / true sd {ratio:.3f}, false-positive rate "
        f"{false_positive_rate:.3f}; at the MDE {mde:.4f}: coverage {covered:.3f}, detected {detected:.3f}"
    )
    if design == "mini_audio":
        # five templates cannot tell a template component of the change from noise: the truncated
        # component makes this design conservative (it prints 1.18x, 2.9 %; docs/statistics.md)
        assert 0.9 <= ratio <= 1.2 and 0.02 <= false_positive_rate <= 0.06
        assert 0.93 <= covered <= 0.99 and 0.77 <= detected
    else:
        assert 0.9 <= ratio <= 1.1
        assert 0.04 <= false_positive_rate <= 0.06
        assert 0.93 <= covered <= 0.97
        assert 0.77 <= detected <= 0.93


@pytest.mark.slow
@pytest.mark.parametrize("design", ["audio", "mini_audio"])
def test_a_single_runs_mean_abs_interval_covers_on_stimulus_designs(design):
    """One run: its template, template x instrument and clip effects are part of what its interval
    is about (the population mean ABS is 0 here); the pigeonhole bootstrap's stderr was 1.57x the
    true sd on mini-audio."""
    templates, clips = DESIGNS[design]
    rng = np.random.default_rng(len(design) + 500)
    values, stderrs, covered = [], [], 0
    runs = 1_000
    for _ in range(runs):
        headline = analyse(
            design_docs(rng, templates, clips, shared_effects(rng, templates, clips)), n_boot=2
        ).headline
        values.append(headline["mean_abs"])
        stderrs.append(headline["mean_abs_stderr"])
        low, high = headline["mean_abs_ci"]
        covered += low <= 0.0 <= high
    ratio = np.sqrt(np.mean(np.square(stderrs))) / np.std(values, ddof=1)
    print(f"{design}: single-run stderr / true sd {ratio:.3f}, coverage {covered / runs:.3f}")
    assert 0.9 <= ratio <= 1.1
    assert 0.93 <= covered / runs <= 0.97


def test_no_variation_on_a_crossed_design_is_a_stderr_of_zero_as_the_bootstrap_gives():
    rng = np.random.default_rng(4)
    data = design_docs(rng, 5, 5, shared_effects(rng, 5, 5))  # every answer valid
    headline = analyse(data, n_boot=50).headline
    assert headline["invalid_rate"] == 0.0 and headline["invalid_rate_stderr"] == 0.0
    assert headline["invalid_rate_ci"] == [0.0, 0.0]
    text = design_docs(rng, 5, 1, shared_effects(rng, 5, 1))  # the text design: bootstrap
    assert analyse(text, n_boot=50).headline["invalid_rate_stderr"] == 0.0
