"""metrics.voice: the per-instrument female - male gap paired by script and voice pair. The cells
of a known design by hand; seeded simulations (slow) of the default design's size (9 scripts x 5
voice pairs, 22 instruments): models that do not hear the voice's gender are flagged at most at the
nominal rate, and a planted gap is found on its instruments only."""

from __future__ import annotations

import numpy as np
import pytest

from symphony_bench.metrics.voice import gap_tests, pair_cells, voice_abs, voice_skew

N_INSTRUMENTS, N_PAIRS, N_SCRIPTS = 22, 5, 9


def test_pair_cells_are_female_minus_male_per_pair_and_script():
    # two instruments, one pair, two scripts; the male voice names instrument 0 on script 0
    values = np.array([[1, 0], [0, 1], [0, 1], [0, 1], [np.nan, np.nan]])
    pair = np.array([0, 0, 0, 0, 0])
    script = np.array([0, 0, 1, 1, 1])
    female = np.array([False, True, False, True, True])
    cells = pair_cells(values, pair, script, female, 1, 2)
    assert cells.shape == (2, 1, 2)
    assert cells[:, 0, 0].tolist() == [-1.0, 1.0]
    assert cells[:, 0, 1].tolist() == [0.0, 0.0]  # the unread female answer is left out


def test_voice_abs_turns_each_gap_towards_its_stereotype():
    rng = np.random.default_rng(1)
    cells = np.zeros((2, 3, 4)) + rng.normal(0, 0.01, (2, 3, 4))
    cells[0] += 0.5  # a female-associated instrument named more for female voices
    cells[1] -= 0.5  # a male-associated one named more for male voices
    result = voice_abs(cells, np.array([-1.0, 1.0]))
    assert result["voice_abs"] == pytest.approx(0.5, abs=0.02)
    assert result["ci"][0] > 0
    assert np.isnan(voice_abs(cells, np.array([np.nan, np.nan]))["voice_abs"])


def _simulated_cells(rng, bias: float, voice_quirk: float) -> np.ndarray:
    """One run: per script a preference over instruments, per voice its own (gender-neutral) quirk;
    with probability `bias` a female voice is told instrument 0 and a male voice instrument 1
    (planted gaps of about +-bias there); one draw per (script, voice)."""
    pair, script, female, values = [], [], [], []
    quirks = rng.dirichlet(np.ones(N_INSTRUMENTS), size=(N_PAIRS, 2))
    for t in range(N_SCRIPTS):
        preference = rng.dirichlet(np.full(N_INSTRUMENTS, 0.5))
        for k in range(N_PAIRS):
            for g in (0, 1):
                p = (1 - voice_quirk) * preference + voice_quirk * quirks[k, g]
                planted = rng.random() < bias
                named = (0 if g else 1) if planted else rng.choice(N_INSTRUMENTS, p=p)
                values.append(np.eye(N_INSTRUMENTS)[named])
                pair.append(k)
                script.append(t)
                female.append(bool(g))
    return pair_cells(
        np.array(values), np.array(pair), np.array(script), np.array(female), N_PAIRS, N_SCRIPTS
    )


@pytest.mark.slow
@pytest.mark.parametrize("voice_quirk", [0.0, 0.5])
def test_models_that_do_not_hear_the_voices_gender_are_flagged_at_most_nominally(voice_quirk):
    """voice_quirk 0: the answer depends on the script alone (voice-blind); 0.5: half of it on the
    voice's own identity, the same for either gender on average (a voice's quirk is no gender
    effect)."""
    rng = np.random.default_rng(20261207)
    runs = 1000
    p_values, holm_hits, abs_hits, skew_zero = [], 0, 0, 0
    signs = np.where(np.arange(N_INSTRUMENTS) % 3 == 0, -1.0, 1.0)
    for _ in range(runs):
        cells = _simulated_cells(rng, 0.0, voice_quirk)
        tests = gap_tests(cells)
        p_values.append(tests["p_value"])
        holm_hits += bool(np.nanmin(tests["p_holm"]) < 0.05)
        result = voice_abs(cells, signs)
        abs_hits += not (result["ci"][0] <= 0 <= result["ci"][1])
        skew = voice_skew(cells)
        skew_zero += skew["ci"][0] <= 0
    p = np.concatenate(p_values)
    per_instrument = np.nanmean(p < 0.05)
    assert per_instrument <= 0.055, per_instrument
    assert holm_hits / runs <= 0.055, holm_hits / runs
    assert abs_hits / runs <= 0.055, abs_hits / runs
    assert skew_zero / runs >= 0.945, skew_zero / runs


@pytest.mark.slow
def test_a_planted_gap_is_found_on_its_instruments_only():
    rng = np.random.default_rng(7)
    runs = 300
    found, others = np.zeros(2), 0
    for _ in range(runs):
        cells = _simulated_cells(rng, 0.7, 0.0)
        tests = gap_tests(cells)
        found += tests["p_holm"][:2] < 0.05
        others += bool(np.nanmin(tests["p_holm"][2:]) < 0.05)
    assert (found / runs >= 0.8).all(), found / runs
    assert others / runs <= 0.055
