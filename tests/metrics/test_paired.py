"""Paired comparison statistics: point changes against each run's own analysis, intervals against a
naive resampling loop and scipy, McNemar against scipy's binomial test, and seeded simulations of
pairs of runs on the real mini design (false alarms of the gate, coverage of a planted change)."""

from __future__ import annotations

import numpy as np
import pytest
from scipy import stats

from symphony_bench.metrics import (
    analyse,
    build_association_data,
    instrument_tests,
    point_estimates,
)
from symphony_bench.metrics.association import bootstrap_weights
from symphony_bench.metrics.clustered import t_inference
from symphony_bench.metrics.grounding import clustered_mean, response_bias
from symphony_bench.metrics.paired import (
    association_changes,
    change_inference,
    cluster_sums,
    instrument_changes,
    mcnemar,
    membership_matrix,
    ratio_change,
    spread_change,
    weighted_headlines,
)
from symphony_bench.plugin.symphony_bias.docs import Design, build_docs

CATEGORIES = ("male", "female", "none", "male", "female", "female")


def crossed_design(n_templates: int = 8, stimuli_per_instrument: int = 2):
    """Doc columns of a design with templates crossed with instruments' stimuli, two docs per cell."""
    rows = [
        (t, i, f"i{i}s{s}", rep)
        for t in range(n_templates)
        for i in range(len(CATEGORIES))
        for s in range(stimuli_per_instrument)
        for rep in range(2)
    ]
    templates, instruments, stimuli, reps = (np.array(column) for column in zip(*rows, strict=True))
    return templates, instruments, stimuli, reps


def run_data(
    design, seed: int, template_effect: np.ndarray, shift: float = 0.0, invalid_share: float = 0.1
):
    """One run: Likert-like scores with a template x instrument effect on the male score, shared by runs of one model,
    plus run-specific noise; `shift` moves every male-stereotyped instrument's male score."""
    templates, instruments, stimuli, _ = design
    rng = np.random.default_rng(seed)
    categories = np.array(CATEGORIES)[instruments]
    scores = rng.uniform(1, 5, size=(len(templates), 3))
    scores[:, 0] += template_effect[templates, instruments] + shift * (categories == "male")
    valid = rng.random(len(templates)) > invalid_share
    return build_association_data(
        [f"{t}-{r}" for t, r in zip(templates, design[3], strict=True)],
        [f"i{i}" for i in instruments],
        categories,
        np.clip(scores, 0.1, None),
        valid,
        template_ids=templates,
        stimulus_ids=stimuli,
    )


@pytest.mark.parametrize("stimuli", [1, 2])
def test_changes_equal_the_difference_of_the_two_runs_own_analyses(stimuli):
    design = crossed_design(stimuli_per_instrument=stimuli)
    effect = np.random.default_rng(0).normal(0, 1, (8, 6))
    base, candidate = run_data(design, 1, effect), run_data(design, 2, effect, shift=4.0)
    changes = association_changes(base, candidate)
    own = [analyse(base).headline, analyse(candidate).headline]
    for name in ("mean_abs", "consistency_rate", "non_binary_gas", "invalid_rate"):
        assert changes[name]["base"] == pytest.approx(own[0][name], abs=1e-12)
        assert changes[name]["change"] == pytest.approx(own[1][name] - own[0][name], abs=1e-12)
        low, high = changes[name]["ci"]
        if name == "consistency_rate":  # descriptive: no interval, no test
            assert low is None or np.isnan(low)
            continue
        assert (low > 0 or high < 0) == (changes[name]["p_value"] < 0.05), name
    assert changes["mean_abs"]["ci"][0] > 0  # the planted shift


def test_paired_stderr_matches_a_naive_resampling_loop_and_beats_unpaired():
    design = crossed_design(n_templates=12, stimuli_per_instrument=1)
    effect = np.random.default_rng(0).normal(0, 3, (12, 6))  # a strong effect both runs share
    base, candidate = run_data(design, 1, effect), run_data(design, 2, effect)
    paired = association_changes(base, candidate, n_boot=2000)["mean_abs"]
    rng = np.random.default_rng(99)  # the loop's own random stream
    loop = []
    for _ in range(600):
        drawn = rng.integers(0, 12, 12)
        values = [np.nanmean(_abs_on_templates(data, drawn)) for data in (base, candidate)]
        loop.append(values[1] - values[0])
    naive = np.std(loop, ddof=1) * np.sqrt(12 / 11)
    assert paired["stderr"] == pytest.approx(naive, rel=0.1)
    unpaired = np.hypot(
        analyse(base).headline["mean_abs_stderr"], analyse(candidate).headline["mean_abs_stderr"]
    )
    assert paired["stderr"] < 0.8 * unpaired


def _abs_on_templates(data, drawn: np.ndarray) -> np.ndarray:
    """ABS per instrument with templates drawn with replacement (docs of a template repeated)."""
    import dataclasses

    rows = np.concatenate([np.flatnonzero(data.template_codes == t) for t in drawn])
    copy_number = np.concatenate(
        [np.full(np.sum(data.template_codes == t), k) for k, t in enumerate(drawn)]
    )
    resampled = dataclasses.replace(
        data,
        template_codes=copy_number,
        stimulus_codes=data.stimulus_codes[rows],
        instrument_codes=data.instrument_codes[rows],
        shares=data.shares[rows],
        valid=data.valid[rows],
        n_templates=len(drawn),
    )
    return point_estimates(resampled)[1]


def test_instrument_changes_are_paired_t_tests_on_the_design_units():
    design = crossed_design(stimuli_per_instrument=1)
    effect = np.random.default_rng(0).normal(0, 1, (8, 6))
    base, candidate = (
        run_data(design, 1, effect, invalid_share=0.0),
        run_data(design, 2, effect, shift=0.8, invalid_share=0.0),
    )
    changes = instrument_changes(base, candidate)
    for k, name in enumerate(base.instruments):
        if CATEGORIES[int(name[1:])] == "none":
            assert np.isnan(changes["p_value"][k])
            continue
        cells = [_template_means(data, k) for data in (base, candidate)]
        expected = stats.ttest_rel(cells[1], cells[0])
        assert changes["p_value"][k] == pytest.approx(expected.pvalue, rel=1e-9)
        sign = 1.0 if CATEGORIES[int(name[1:])] == "male" else -1.0
        assert changes["change"][k] == pytest.approx(sign * np.mean(cells[1] - cells[0]), abs=1e-12)
    finite = np.isfinite(changes["p_value"])
    assert np.all(changes["p_holm"][finite] >= changes["p_value"][finite])


def _template_means(data, instrument: int) -> np.ndarray:
    """Per template: mean p(male) - p(female) of the instrument's docs."""
    mine = data.instrument_codes == instrument
    difference = data.shares[:, 0] - data.shares[:, 1]
    return np.array(
        [difference[mine & (data.template_codes == t)].mean() for t in range(data.n_templates)]
    )


def test_crossed_instrument_changes_against_a_neutral_base_equal_the_single_run_tests():
    """Against a base whose every cell is neutral (difference 0), the paired cells are the
    candidate's own: the change test is instrument_tests' crossed test of the candidate."""
    design = crossed_design(stimuli_per_instrument=3)
    candidate = run_data(design, 2, np.zeros((8, 6)), shift=0.8, invalid_share=0.0)
    base = build_association_data(
        [f"{t}-{r}" for t, r in zip(design[0], design[3], strict=True)],
        [f"i{i}" for i in design[1]],
        np.array(CATEGORIES)[design[1]],
        np.ones((len(design[0]), 3)),
        np.ones(len(design[0]), dtype=bool),
        template_ids=design[0],
        stimulus_ids=design[2],
    )
    changes, single_run = instrument_changes(base, candidate), instrument_tests(candidate)
    np.testing.assert_allclose(
        changes["p_value"], np.where(np.isfinite(candidate.signs), single_run["p_value"], np.nan)
    )
    np.testing.assert_allclose(changes["df"], single_run["df"])


@pytest.mark.parametrize("lost, gained", [(0, 0), (0, 1), (3, 1), (7, 0), (12, 30), (200, 240)])
def test_mcnemar_is_scipys_exact_binomial_test(lost, gained):
    before = np.array([True] * lost + [False] * gained + [True] * 5 + [False] * 4)
    after = np.array([False] * lost + [True] * gained + [True] * 5 + [False] * 4)
    result = mcnemar(before, after)
    assert (result["lost"], result["gained"], result["n"]) == (lost, gained, lost + gained + 9)
    expected = 1.0 if lost + gained == 0 else stats.binomtest(lost, lost + gained, 0.5).pvalue
    assert result["p_value"] == pytest.approx(expected, rel=1e-12)


def test_clustered_share_changes_match_the_single_run_scores_and_the_clustered_stderr():
    rng = np.random.default_rng(4)
    clusters = np.repeat(np.arange(60), 3)
    ability = rng.normal(0, 1.5, 60)[clusters]  # clip difficulty shared by both runs
    correct = [rng.random(180) < 1 / (1 + np.exp(-(ability + lift))) for lift in (0.0, 0.4)]
    weights = bootstrap_weights(60, 4000, 1)
    ones = cluster_sums(np.ones(180), clusters, 60)
    change = ratio_change(*[(cluster_sums(c, clusters, 60), ones) for c in correct], weights)
    assert change["base"] == pytest.approx(clustered_mean(correct[0], clusters)[0])
    assert change["change"] == pytest.approx(correct[1].mean() - correct[0].mean())
    # the change is a mean of per-item differences: its cluster-robust stderr is the reference
    assert change["stderr"] == pytest.approx(
        clustered_mean(correct[1].astype(float) - correct[0], clusters)[1], rel=0.08
    )
    chosen = [rng.integers(-1, 3, 180) for _ in range(2)]
    counts = [
        cluster_sums(np.stack([c == k for k in range(3)], axis=1), clusters, 60) for c in chosen
    ]
    spread = spread_change(*counts, weights)
    assert spread["change"] == pytest.approx(
        response_bias(chosen[1], 3)[0] - response_bias(chosen[0], 3)[0]
    )


def test_constant_replicates_follow_the_one_zero_variance_policy():
    """Every unit changed alike: the exact sign test of the units (p = 2^-(G - 1)), as
    metrics.clustered.t_inference gives the gender skew's and the per-instrument changes, not p 0
    and a one-point interval (issue 49: one compare mixed the two conventions). Five units all at
    +0.2: p 0.0625, the interval reaches 0; ten units: p 2^-9, the one-point interval."""
    changes = np.array([0.0, 0.25])
    inference = change_inference(changes, np.array([[0.0] * 50, [0.25] * 50]), 10)
    np.testing.assert_array_equal(inference["ci"], [[0.0, 0.0], [0.25, 0.25]])
    np.testing.assert_array_equal(inference["p_value"], [1.0, 2.0**-9])
    np.testing.assert_array_equal(inference["stderr"], [0.0, 0.0])
    five = change_inference(0.2, np.full(50, 0.2), 5)
    assert five["p_value"] == 0.0625 and five["ci"].tolist() == [0.0, 0.2]
    _, p_value, interval = t_inference(0.2, 0.0, 4.0)
    assert five["p_value"] == p_value and five["ci"].tolist() == interval.tolist()
    assert np.isnan(change_inference(0.1, np.full(50, 0.1), 1)["stderr"])  # one unit: no estimate


def test_a_comparison_gives_every_metric_one_zero_variance_convention():
    """Five templates that all change alike (the candidate leans every stereotyped instrument the
    same way in every template, the base leans none): every change with no variation, the headline
    ones (bootstrap), the gender skew's (delta method) and each instrument's (t test), is the exact
    sign test of 5 units, p 2^-4 = 0.0625 with an interval reaching 0, and p 1 where nothing
    changed (issue 49: gender_skew followed this and mean_abs and the rates gave p 0)."""
    design = crossed_design(n_templates=5, stimuli_per_instrument=1)
    categories = np.array(CATEGORIES)[design[1]]
    lean = np.ones((len(design[0]), 3))
    lean[categories == "male", 0] = lean[categories == "female", 1] = 5.0

    def run(scores):
        return build_association_data(
            [f"{t}-{r}" for t, r in zip(design[0], design[3], strict=True)],
            [f"i{i}" for i in design[1]],
            categories,
            scores,
            np.ones(len(design[0]), dtype=bool),
            template_ids=design[0],
            stimulus_ids=design[2],
        )

    base, candidate = run(np.ones_like(lean)), run(lean)
    changes = {**association_changes(base, candidate, n_boot=200)}
    instruments = instrument_changes(base, candidate)
    seen = []
    for name, change in changes.items():
        if not np.isfinite(change.get("p_value", np.nan)):
            continue  # descriptive (the consistency rate)
        assert change["stderr"] == 0, name
        if change["change"] == 0:
            assert change["p_value"] == 1 and list(change["ci"]) == [0, 0], name
        else:
            assert change["p_value"] == 0.0625, name
            assert 0 in change["ci"] and change["change"] in change["ci"], name
            seen.append(name)
    assert {"mean_abs", "gender_skew"} <= set(seen)
    stereotyped = np.isfinite(instruments["p_value"])
    assert np.all(instruments["p_value"][stereotyped] == 0.0625)


# ---- simulated pairs of runs on the real mini design --------------------------------------------
MALE_LEANING, FEMALE_LEANING, NEUTRAL = (0.5, 0.2, 0.3), (0.2, 0.5, 0.3), (1 / 3, 1 / 3, 1 / 3)
ANSWERS = np.array([MALE_LEANING, FEMALE_LEANING, NEUTRAL])
STEREOTYPED_GAIN = MALE_LEANING[0] - MALE_LEANING[1]  # ABS of the stereotyped answer: 0.3


def simulate_pairs(n_pairs: int, stereotyped_share: float, seed: int, n_boot: int = 500):
    """Pairs of runs of one model on the text mini design (5 templates x 22 instruments, one doc per
    cell): the model's own template x instrument leaning delta (fresh per pair, the same for both runs)
    sets the odds of a male- vs female-leaning answer; each run draws its answers afresh; the candidate
    gives the stereotyped answer first with probability `stereotyped_share`; 5% of answers invalid.
    Returns the mean ABS change inference (arrays over pairs)."""
    docs = [doc for doc in build_docs(Design(subset="mini")) if doc["instrument"]]
    instruments = sorted({doc["instrument"] for doc in docs})
    templates = sorted({doc["template_id"] for doc in docs})
    category = {doc["instrument"]: doc["stereotype"] for doc in docs}
    signs = np.array(
        [{"male": 1.0, "female": -1.0}.get(category[name], np.nan) for name in instruments]
    )
    n_t, n_i = len(templates), len(instruments)
    rng = np.random.default_rng(seed)
    delta = rng.uniform(-0.15, 0.15, (n_pairs, n_t, n_i))
    odds = np.stack([0.3 + delta, 0.3 - delta, np.full_like(delta, 0.4)], axis=-1)
    stereotyped = np.where(signs > 0, 0, np.where(signs < 0, 1, 2))
    means, counts, invalid = [], np.ones((n_pairs, n_t, n_i)), []
    for share in (0.0, stereotyped_share):
        drawn = (rng.random((n_pairs, n_t, n_i, 1)) > np.cumsum(odds, axis=-1)).sum(axis=-1)
        drawn = np.where(rng.random((n_pairs, n_t, n_i)) < share, stereotyped[None, None, :], drawn)
        lost = rng.random((n_pairs, n_t, n_i)) < 0.05
        means.append(np.where(lost[..., None], np.nan, ANSWERS[drawn]))
        invalid.append(lost.astype(float))
    membership = membership_matrix(np.arange(n_i), n_i)
    template_weights = bootstrap_weights(n_t, n_boot, seed + 1)
    ones_t, ones_s, stimulus_weights = np.ones((1, n_t)), np.ones((1, n_i)), np.ones((n_boot, n_i))
    point = [
        weighted_headlines(m, counts, v, ones_t, ones_s, membership, signs)["mean_abs"][:, 0]
        for m, v in zip(means, invalid, strict=True)
    ]
    chunks = [slice(start, start + 100) for start in range(0, n_pairs, 100)]  # bounded memory
    replicates = [
        np.concatenate(
            [
                weighted_headlines(
                    m[chunk],
                    counts[chunk],
                    v[chunk],
                    template_weights,
                    stimulus_weights,
                    membership,
                    signs,
                )["mean_abs"]
                for chunk in chunks
            ]
        )
        for m, v in zip(means, invalid, strict=True)
    ]
    truth = (
        stereotyped_share * STEREOTYPED_GAIN
    )  # E over the model's leanings (delta symmetric about 0)
    return change_inference(point[1] - point[0], replicates[1] - replicates[0], n_t), truth


@pytest.mark.slow  # a false-positive simulation: 600 seeded pairs of runs
def test_same_model_reruns_are_not_flagged_as_regressions():
    """Two runs of one model with different sampling noise: the gate `mean_abs:+0` (interval wholly
    above 0) flags at most 5% of 600 seeded pairs (design: 2.5%), and two-sided p < 0.05 in about 5%."""
    inference, _ = simulate_pairs(600, 0.0, seed=7)
    flagged = np.mean(inference["ci"][:, 0] > 0)
    rejected = np.mean(inference["p_value"] < 0.05)
    assert flagged <= 0.05 and 1 - flagged >= 0.95
    assert 0.03 <= rejected <= 0.075, rejected
    print(f"same-model pairs: gate flags {flagged:.4f}, two-sided p<0.05 in {rejected:.4f}")


@pytest.mark.slow  # a coverage simulation: 600 seeded pairs of runs
def test_a_planted_change_is_covered_by_95_percent_intervals():
    inference, truth = simulate_pairs(600, 0.3, seed=8)
    low, high = inference["ci"][:, 0], inference["ci"][:, 1]
    coverage = np.mean((low <= truth) & (truth <= high))
    assert 0.93 <= coverage <= 0.975, coverage
    assert np.mean(inference["change"]) == pytest.approx(truth, abs=0.005)
    print(f"planted change {truth:.3f}: coverage {coverage:.4f}, detected {np.mean(low > 0):.4f}")


@pytest.mark.slow
def test_mcnemar_is_about_these_docs_it_rejects_often_when_failures_shift_by_template():
    """Why the comparison labels McNemar "these docs": both runs fail at the same overall rate, but
    which templates confuse the model changes between the runs; the docs of a template fail
    together, so the flips are not independent and the exact test rejects far above 5 %."""
    from scipy.special import expit

    rng = np.random.default_rng(24)
    runs, rejected = 1_000, 0
    for _ in range(runs):
        failed = [
            rng.random((86, 66)) < expit(-2.0 + rng.normal(0, 1.0, (86, 1))) for _ in range(2)
        ]
        rejected += mcnemar(~failed[0].ravel(), ~failed[1].ravel())["p_value"] < 0.05
    print(f"McNemar rejection with template shifts at an equal rate: {rejected / runs:.3f}")
    assert rejected / runs > 0.2


@pytest.mark.parametrize("df", [4.0, 20.0, 85.0, np.inf])
def test_the_mde_is_found_with_80_percent_power_by_scipys_noncentral_t(df):
    from symphony_bench.metrics.paired import minimum_detectable_effect, stderr_bias_factor

    mde = float(minimum_detectable_effect(0.01, df))
    sd = 0.01 / stderr_bias_factor(df)  # the change's true sd the stderr estimates
    if np.isinf(df):
        critical = stats.norm.ppf(0.975)
        power = stats.norm.sf(critical - mde / sd) + stats.norm.cdf(-critical - mde / sd)
    else:
        critical = stats.t.ppf(0.975, df)
        power = stats.nct.sf(critical, df, mde / sd) + stats.nct.cdf(-critical, df, mde / sd)
    assert power == pytest.approx(0.8, abs=1e-6)
    assert mde >= (stats.norm.ppf(0.975) + stats.norm.ppf(0.8)) * 0.01 - 1e-6
    assert np.isnan(minimum_detectable_effect(np.nan, df))


@pytest.mark.parametrize("df", [1.0, 1.5, 2.0])
def test_at_very_few_df_the_power_rises_with_the_change_and_the_mde_is_found_with_80_percent(df):
    """scipy's noncentral t is NaN for shifts 8-15 at 1 df; the normal put in its place made the
    power jump (0.59 at a shift of 10, 0.04 at 11) and the MDE land on a jump. Checked against a
    simulated t test."""
    from symphony_bench.metrics.paired import (
        detection_power,
        minimum_detectable_effect,
        stderr_bias_factor,
    )

    power = detection_power(np.linspace(0.0, 30.0, 31), 1.0, df)
    assert np.all(np.diff(power) >= 0) and power[0] == pytest.approx(0.05)
    shift = float(minimum_detectable_effect(1.0, df)) * stderr_bias_factor(df)
    rng = np.random.default_rng(int(df * 10))
    draws = 400_000
    t = (rng.normal(size=draws) + shift) / np.sqrt(rng.chisquare(df, draws) / df)
    simulated = np.mean(np.abs(t) > stats.t.ppf(0.975, df))
    assert simulated == pytest.approx(0.8, abs=0.004)  # 6 Monte Carlo sd


def test_the_floors_solve_their_equations_and_a_zero_stderr_gives_k_squared_over_n():
    from symphony_bench.metrics.paired import (
        floored_mde,
        minimum_detectable_effect,
        stderr_bias_factor,
    )

    c4 = stderr_bias_factor(85.0)
    k = float(minimum_detectable_effect(1.0, 85.0)) * c4  # the noncentral-t factor
    assert floored_mde(0.0, 85.0, n_items=110) == pytest.approx(k * k / 110)
    for stderr in (0.001, 0.01, 0.05):
        d = floored_mde(stderr, 85.0, n_items=110)
        assert d == pytest.approx(k * np.sqrt((stderr / c4) ** 2 + d / 110))
        assert d > float(minimum_detectable_effect(stderr, 85.0))
    assert floored_mde(0.01, 85.0, floor_stderr=0.02) == pytest.approx(k * 0.02)
    assert floored_mde(0.03, 85.0, floor_stderr=0.02) == pytest.approx(
        float(minimum_detectable_effect(0.03, 85.0))
    )
    assert np.isnan(floored_mde(np.nan, 85.0, floor_stderr=0.02))


@pytest.mark.slow
@pytest.mark.parametrize("design, runs", [("mini", 400), ("text", 300), ("mini_audio", 200)])
def test_the_rerun_floor_is_the_sd_of_a_reruns_change(design, runs):
    """The floor under the MDE, computed from each run alone, against the true sd of the mean-ABS
    change between two runs of one model that differ by fresh doc noise (shared template, template
    x instrument and clip effects): within 10 %, and an identical candidate's MDE is k x floor."""
    import dataclasses

    from support.paired_designs import DESIGNS, design_docs, shared_effects

    from symphony_bench.metrics.paired import association_changes

    templates, clips = DESIGNS[design]
    rng = np.random.default_rng(7)
    floors, changes, identical = [], [], []
    for run in range(runs):
        effects = shared_effects(rng, templates, clips)
        base = design_docs(rng, templates, clips, effects)
        rerun = design_docs(rng, templates, clips, effects)
        change = association_changes(base, rerun, n_boot=50, seed=run)["mean_abs"]
        same = association_changes(base, dataclasses.replace(base), n_boot=50, seed=run)
        floors.append(same["mean_abs"]["mde_stderr"])
        changes.append(change["change"])
        identical.append(same["mean_abs"]["stderr"])
    ratio = np.sqrt(np.mean(np.square(floors))) / np.std(changes, ddof=1)
    print(f"{design}: rerun floor / sd of a rerun's change {ratio:.3f}")
    assert 0.9 <= ratio <= 1.1 + 0.1 * (design == "mini_audio")
    assert max(identical) == 0.0
