"""The gender skew (metrics.skew: the root mean square over instruments of the male - female
difference, from a mean of products over pairs of cells that share neither template nor stimulus)
and the pro / counter-stereotype rates: the formula against a loop over pairs and by hand, planted
effects, a template jackknife for the stderr, the paired change, a planted noisy model that must not
rank worse; and (slow) simulations of its bias, coverage, null behaviour and paired stderr on the
Symphony-Bias designs with template, template x instrument and clip effects."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from support import skew_designs

from symphony_bench.metrics import analyse, build_association_data
from symphony_bench.metrics.association_data import membership_matrix
from symphony_bench.metrics.paired import association_changes
from symphony_bench.metrics.skew import gender_skew, skew_change, skew_squares
from symphony_bench.plugin.runs.leaderboard import rank_rows

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


def gaps_by_template(data) -> np.ndarray:
    """(T, I) male - female share of each doc (one per template and instrument)."""
    table = np.full((data.n_templates, len(data.instruments)), np.nan)
    table[data.template_codes, data.instrument_codes] = data.shares[:, 0] - data.shares[:, 1]
    return table


def hand_skew(table: np.ndarray) -> float:
    """sign(S^2) sqrt(|S^2|), S^2 the mean over instruments of the mean product of two distinct
    templates' male - female differences (a loop, no shared code)."""
    squares = []
    for column in table.T:
        values = column[np.isfinite(column)]
        products = [a * b for a, b in itertools.permutations(values, 2)]
        squares.append(np.mean(products))
    mean_square = float(np.mean(squares))
    return float(np.sign(mean_square) * np.sqrt(abs(mean_square)))


def plug_in_skew(table: np.ndarray) -> float:
    """The skew before: the mean over instruments of |mean male - female difference|."""
    return float(np.mean(np.abs(np.nanmean(table, axis=0))))


def test_the_mean_square_is_the_mean_product_over_pairs_that_share_neither_unit():
    """A tiny table with missing cells: an instrument with 3 clips, one with 2, one text-like
    instrument with a single stimulus (pairs of distinct templates)."""
    rng = np.random.default_rng(0)
    stimulus_instrument = np.array([0, 0, 0, 1, 1, 2])
    membership = membership_matrix(stimulus_instrument, 3)
    cells = rng.normal(size=(4, 6))
    cells[0, 1] = cells[2, 3] = cells[3, 5] = np.nan
    squares, means, counts = skew_squares(cells, membership)
    for instrument in range(3):
        present = [
            (t, s)
            for t in range(4)
            for s in range(6)
            if stimulus_instrument[s] == instrument and np.isfinite(cells[t, s])
        ]
        single = len({s for _, s in present}) == 1
        products = [
            cells[a] * cells[b]
            for a, b in itertools.permutations(present, 2)
            if a[0] != b[0] and (single or a[1] != b[1])
        ]
        assert squares[instrument] == pytest.approx(np.mean(products), abs=1e-12)
        assert means[instrument] == pytest.approx(np.mean([cells[c] for c in present]))
        assert counts[instrument] == len(present)
    # many tables at once (leading axes) give each table's own
    stacked = np.stack([cells, 2 * cells])
    assert skew_squares(stacked, membership)[0] == pytest.approx(
        np.stack([squares, 4 * squares]), abs=1e-12
    )


def test_gender_skew_by_hand():
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
    assert result.skew == pytest.approx([gap_a, abs(gap_b)], abs=1e-12)  # per instrument: |mean|
    # the headline: products of the two templates, a: 4/9 x 2/9, b: -4/9 x 0
    mean_square = (4 / 9 * 2 / 9 + 0.0) / 2
    assert result.headline["gender_skew_squared"] == pytest.approx(mean_square, abs=1e-12)
    assert result.headline["gender_skew"] == pytest.approx(np.sqrt(mean_square), abs=1e-12)
    assert "gender_skew_null" not in result.headline  # the skew is 0-centred: no reference needed


def test_mixed_directions_cancel_in_mean_abs_but_not_in_the_skew():
    """The default planted model of the report tests is of this kind: large per-instrument gaps in
    both directions, mean ABS near 0."""
    gap = np.where(np.arange(INSTRUMENTS) % 2 == 0, 0.3, -0.3)  # half towards the stereotype
    data = simulated(np.random.default_rng(1), 30, gap * np.where(CATEGORIES == "female", -1, 1))
    headline = analyse(data, n_boot=400).headline
    assert abs(headline["mean_abs"]) < 0.1 < 0.25 < headline["gender_skew"]
    assert headline["gender_skew"] == pytest.approx(hand_skew(gaps_by_template(data)), abs=1e-12)
    assert headline["gender_skew_ci"][0] > 0.25  # association, not noise
    assert headline["pro_stereotype_rate"] > 0 and headline["counter_stereotype_rate"] > 0


def test_a_reversed_model_is_named_counter_stereotyped():
    signs = np.select([CATEGORIES == "male", CATEGORIES == "female"], [1.0, -1.0], 0.0)
    data = simulated(np.random.default_rng(2), 30, -0.25 * signs)  # every gap against the table
    headline = analyse(data, n_boot=400).headline
    assert headline["mean_abs"] < -0.2
    assert headline["counter_stereotype_rate"] == 1.0 and headline["pro_stereotype_rate"] == 0.0


def test_a_model_that_rates_every_gender_alike_has_skew_zero():
    scores = np.full((2 * INSTRUMENTS, 3), 3.0)  # "medium" for everyone, everywhere
    data = build_association_data(
        np.repeat(["s0", "s1"], INSTRUMENTS),
        np.tile(np.arange(INSTRUMENTS).astype(str), 2),
        np.tile(CATEGORIES, 2),
        scores,
        np.ones(2 * INSTRUMENTS, dtype=bool),
    )
    headline = analyse(data, n_boot=200).headline
    assert headline["gender_skew"] == 0.0 and headline["gender_skew_stderr"] == 0.0
    assert headline["gender_skew_ci"] == [0.0, 0.0]
    assert headline["pro_stereotype_rate"] == headline["counter_stereotype_rate"] == 0.0


def template_jackknife_stderr(table: np.ndarray) -> float:
    """An independent stderr of the skew: the delete-one-template jackknife of hand_skew."""
    n = len(table)
    leave_one_out = np.array([hand_skew(np.delete(table, t, axis=0)) for t in range(n)])
    return float(np.sqrt((n - 1) / n * np.sum((leave_one_out - leave_one_out.mean()) ** 2)))


def test_skew_stderr_agrees_with_a_template_jackknife():
    gap = np.linspace(-0.3, 0.3, INSTRUMENTS) + 0.05  # a skew well away from 0
    data = simulated(np.random.default_rng(3), 40, gap)
    headline = analyse(data).headline
    jackknife = template_jackknife_stderr(gaps_by_template(data))
    assert headline["gender_skew_stderr"] == pytest.approx(jackknife, rel=0.1)


def test_paired_change_of_the_skew_is_the_difference_of_the_two_runs():
    rng = np.random.default_rng(4)
    base = simulated(rng, 20, np.full(INSTRUMENTS, 0.2))
    candidate = simulated(rng, 20, np.full(INSTRUMENTS, 0.05))
    change = association_changes(base, candidate, n_boot=400)["gender_skew"]
    hand = [hand_skew(gaps_by_template(run)) for run in (base, candidate)]
    assert [change["base"], change["candidate"]] == pytest.approx(hand, abs=1e-12)
    assert change["change"] == pytest.approx(hand[1] - hand[0], abs=1e-12)
    assert change["p_value"] < 0.05 and change["ci"][1] < 0
    assert change["mde"] > 0 and change["stderr"] > 0


def test_identical_runs_change_by_exactly_zero():
    data = simulated(np.random.default_rng(5), 10, np.full(INSTRUMENTS, 0.1))
    change = association_changes(data, data, n_boot=50)["gender_skew"]
    assert change["change"] == 0.0 and change["stderr"] == 0.0 and change["p_value"] == 1.0


def test_a_model_without_association_gets_an_interval_around_zero():
    """0-centred: the skew of noise alone comes out below 0 about as often as above, and its
    interval reaches 0 (the per-instrument |difference| table stays at or above 0)."""
    result = analyse(simulated(np.random.default_rng(8), 5, np.zeros(INSTRUMENTS)), n_boot=400)
    low, high = result.headline["gender_skew_ci"]
    assert low < 0 < high
    assert result.headline["gender_skew"] < result.headline["gender_skew_stderr"] * 2
    assert np.all(result.skew_ci[np.isfinite(result.skew_ci)] >= 0.0)


def _leaderboard_row(model: str, headline: dict) -> dict:
    return {
        "task": "symphony_bias_text",
        "variant": "",
        "model": model,
        "metrics": {
            "gender_skew": {
                "value": headline["gender_skew"],
                "stderr": headline["gender_skew_stderr"],
                "ci": headline["gender_skew_ci"],
            }
        },
        "rank": {"metric": "gender_skew", "better": "lower"},
    }


def test_a_noisier_model_with_the_same_association_does_not_rank_worse():
    """Two planted models answer the same docs with the same true differences; the second's answers
    carry four times the doc noise. The plug-in mean |difference| scores the noisy one well above
    the clean one (the bias the noise adds); the skew does not separate them, and the leaderboard's
    rule (intervals, then the paired test over the same docs) does not rank it worse."""
    rng = np.random.default_rng(11)
    templates, gap = 12, skew_designs.MIXED
    effects = (rng.normal(0, 0.03, templates), rng.normal(0, 0.02, (templates, INSTRUMENTS)))
    t, i = np.indices((templates, INSTRUMENTS)).reshape(2, -1)

    def run(noise):
        male = 1 / 3 + gap[i] / 2 + effects[0][t] + effects[1][t, i] + rng.normal(0, noise, t.size)
        male = np.clip(male, 0.001, 2 / 3 - 0.001)
        shares = np.column_stack([male, 2 / 3 - male, np.full(t.size, 1 / 3)])
        return build_association_data(
            t.astype(str), i.astype(str), CATEGORIES[i], shares, np.ones(t.size, dtype=bool)
        )

    clean, noisy = run(0.04), run(0.16)
    plug_in = [plug_in_skew(gaps_by_template(data)) for data in (clean, noisy)]
    assert plug_in[1] > 1.5 * plug_in[0]  # the old number: noise reads as association
    headlines = [analyse(data, n_boot=50).headline for data in (clean, noisy)]
    assert headlines[1]["gender_skew"] == pytest.approx(headlines[0]["gender_skew"], abs=0.01)
    change = association_changes(clean, noisy, n_boot=50)["gender_skew"]
    assert change["p_value"] > 0.05
    rows = [
        _leaderboard_row(name, h) for name, h in zip(("clean", "noisy"), headlines, strict=True)
    ]
    rank_rows(rows, paired_not_significant=lambda better, worse: change["p_value"] >= 0.05)
    positions = {row["model"]: row["rank"]["position"] for row in rows}
    assert positions["noisy"] <= positions["clean"]


# ---- simulations (slow tier) -------------------------------------------------------------------
# Designs of tests/support/paired_designs.py: text 86 templates x 22 instruments, mini 5 x 22,
# audio 86 x 22 x 5 clips, mini audio 5 x 22 x 5, with template (sd 0.03), template x instrument
# (0.02) and clip (0.03) effects on the male share and doc noise 0.08 (a cell's male - female
# difference varies by twice these). The model: 8 instruments at 0, 6 at +-0.04, 8 at +-0.12
# (population skew 0.0753). 1,500 runs per check: a coverage's Monte-Carlo sd is 0.56 points, a
# mean skew's 0.1 % (full designs) to 1.5 % (mini) of the population value, an sd ratio's 1.8 %.
RUNS = 1500
CHUNK = 500


def _single_runs(design: str, gaps, seed: int, noise: float = 0.08) -> dict[str, np.ndarray]:
    rng = np.random.default_rng(seed)
    membership = skew_designs.membership(design)
    crossed = skew_designs.DESIGNS[design][1] > 1
    parts = [
        gender_skew(
            skew_designs.runs(rng, min(CHUNK, RUNS - start), design, gaps, noise),
            membership,
            crossed,
        )
        for start in range(0, RUNS, CHUNK)
    ]
    return {key: np.concatenate([part[key] for part in parts]) for key in parts[0]}


def _paired_runs(design: str, base_gaps, candidate_gaps, seed: int, noise=(0.08, 0.08)):
    rng = np.random.default_rng(seed)
    membership = skew_designs.membership(design)
    crossed = skew_designs.DESIGNS[design][1] > 1
    parts = []
    for start in range(0, RUNS, CHUNK):
        effects = skew_designs.shared(rng, min(CHUNK, RUNS - start), design)
        base = skew_designs.differences(rng, effects, base_gaps, noise[0])
        candidate = skew_designs.differences(rng, effects, candidate_gaps, noise[1])
        parts.append(
            {
                **skew_change(base, candidate, membership, crossed),
                "plug_in": np.stack(
                    [_plug_in(values, membership) for values in (base, candidate)], axis=-1
                ),
            }
        )
    return {key: np.concatenate([part[key] for part in parts]) for key in parts[0]}


def _plug_in(differences: np.ndarray, membership: np.ndarray) -> np.ndarray:
    """(runs,) the mean over instruments of |mean difference| (complete tables)."""
    means = (differences @ membership).sum(axis=-2) / (len(differences[0]) * membership.sum(0))
    return np.abs(means).mean(axis=-1)


@pytest.mark.slow  # 1,500 simulated runs per design, vectorised: about 2 s each
@pytest.mark.parametrize("design", ["text", "mini", "audio", "mini_audio"])
def test_skew_is_unbiased_and_its_interval_covers_the_population_skew(design):
    """The mean square is unbiased on every design (within 5 %: measured -0.6 to +0.5 %). Its
    square root, the reported skew, is biased low by Jensen's inequality where S^2 is noisy against
    its value: measured -0.1 % (text, audio), -1.7 % (mini audio) and -6.4 % on the 5-template text
    mini, whose noise (sd of an instrument's difference 0.078) exceeds most true differences there;
    the plug-in mean |difference| (the skew before) was +10 %, +59 %, +17 % and +35 % off its own
    population value, mean |d_i| = 0.0545, its interval covering that in 71 %, 81 %, 71 % and 99 %
    of 600 runs. Coverage of the t interval of S^2 mapped through the square root: measured 95.4 %
    (text), 96.1 % (mini), 93.9 % (audio), 93.6 % (mini audio)."""
    runs = _single_runs(design, skew_designs.MIXED, seed=1)
    truth = skew_designs.population_skew(skew_designs.MIXED)
    assert np.mean(runs["mean_square"]) == pytest.approx(truth**2, rel=0.05)
    bias = np.mean(runs["gender_skew"]) / truth - 1
    assert (-0.1 < bias < 0.0) if design == "mini" else abs(bias) < 0.05, bias
    coverage = np.mean((runs["ci"][:, 0] <= truth) & (truth <= runs["ci"][:, 1]))
    assert 0.925 <= coverage <= 0.97, coverage


@pytest.mark.slow
@pytest.mark.parametrize("design", ["text", "mini", "audio", "mini_audio"])
def test_a_model_without_association_is_centred_on_zero_and_its_interval_covers_it(design):
    """No instrument has a difference. The plug-in scored the mean |noise| (0.015 text, 0.062 mini,
    0.023 audio, 0.042 mini audio) and its interval excluded 0 in 100, 79.5, 100 and 47 % of runs.
    Now the skew averages about 0 (S^2 is
    unbiased for 0; its square root a little below: S^2 is skewed to the right) and the interval
    covers 0 in 98.6 % (text), 97.3 % (mini), 98.7 % (audio), 94.3 % (mini audio) of runs."""
    runs = _single_runs(design, skew_designs.NONE, seed=2)
    assert abs(np.mean(runs["mean_square"])) < 3 * np.std(runs["mean_square"]) / np.sqrt(RUNS)
    assert 0.38 <= np.mean(runs["gender_skew"] > 0) <= 0.55  # measured 41-48 %
    assert np.mean(runs["ci"][:, 0] <= 0) >= 0.93


@pytest.mark.slow
@pytest.mark.parametrize(
    ("design", "low", "high"),
    [("text", 0.9, 1.1), ("mini", 0.9, 1.25), ("audio", 0.9, 1.1), ("mini_audio", 0.9, 1.45)],
)
def test_paired_change_stderr_matches_the_true_sd_of_a_rerun(design, low, high):
    """Two runs of one model over the same docs (template and clip effects shared, doc noise
    fresh): the change's stderr over its true sd, measured 1.03 (text), 1.12 (mini), 1.07 (audio),
    1.32 (mini audio: on 5 x 5 cells 40 % of runs have a skew whose interval reaches 0, where the
    change is tested on the mean square and its stderr on the skew's scale is the larger of two
    slopes' - conservative); false positives 4.9, 1.0, 4.3 and 4.3 %. The bootstrap of the plug-in
    before: 1.05 (text), 1.09 (mini), and on the crossed designs 1.89 (audio) and 1.77 (mini audio)
    with no false positive at all (400 runs each)."""
    runs = _paired_runs(design, skew_designs.MIXED, skew_designs.MIXED, seed=3)
    ratio = np.sqrt(np.mean(runs["stderr"] ** 2)) / np.std(runs["change"])
    assert low <= ratio <= high, ratio
    assert np.mean(runs["p_value"] < 0.05) <= 0.065


@pytest.mark.slow
@pytest.mark.parametrize("design", ["text", "audio"])
def test_paired_change_of_a_weaker_association_has_its_true_sd_and_covers(design):
    """The candidate's every difference is 0.7x the base's (the skew drops by 0.0226): the stderr
    over the true sd of the change, measured 1.03 (text) and 0.99 (audio, where the two runs' skews
    differ, so each run's contributions take their own slope), coverage 95.1 and 93.9 %."""
    runs = _paired_runs(design, skew_designs.MIXED, 0.7 * skew_designs.MIXED, seed=4)
    truth = skew_designs.population_skew(0.7 * skew_designs.MIXED) - skew_designs.population_skew(
        skew_designs.MIXED
    )
    ratio = np.sqrt(np.mean(runs["stderr"] ** 2)) / np.std(runs["change"])
    assert 0.9 <= ratio <= 1.1, ratio
    coverage = np.mean((runs["ci"][:, 0] <= truth) & (truth <= runs["ci"][:, 1]))
    assert 0.93 <= coverage <= 0.97, coverage


@pytest.mark.slow
@pytest.mark.parametrize("design", ["text", "mini", "audio", "mini_audio"])
def test_more_noise_at_the_same_association_does_not_raise_the_skew(design):
    """Two models with the same true differences answer the same docs, the second with 2.5x the doc
    noise. The plug-in mean |difference| scored the noisy model higher: +16 % (text), +80 % (mini),
    +3 % (audio, where clip effects, not doc noise, make most of the noise), +29 % (mini audio), in
    89 %, 99.6 %, 68 % and 93 % of runs. The skew's mean is not raised: the same within Monte-Carlo
    error on the full designs (0.0752 vs 0.0748 text, 0.0752 vs 0.0751 audio), lower on the minis
    (0.070 vs 0.040 text mini, 0.074 vs 0.067 mini audio: the square root of a noisier S^2, whose
    mean is the same; its wide interval ties the noisy model with the clean one). The paired test
    calls them different in 3.9, 1.3, 4.5 and 5.9 % of runs, the noisy one more skewed in 2.5, 0.8,
    2.2 and 3.1 % (its own level: 2.5 % a side)."""
    runs = _paired_runs(design, skew_designs.MIXED, skew_designs.MIXED, seed=5, noise=(0.08, 0.2))
    raised = runs["plug_in"][:, 1] - runs["plug_in"][:, 0]
    assert np.mean(raised) > 3 * np.std(raised) / np.sqrt(RUNS)  # the old number: noise scores
    change = runs["change"]
    assert np.mean(change) < 3 * np.std(change) / np.sqrt(RUNS)
    assert np.mean((runs["p_value"] < 0.05) & (change > 0)) <= 0.035
    assert np.mean(runs["p_value"] < 0.05) <= 0.065
