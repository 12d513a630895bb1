"""TCAV method (`symphony_bench.metrics.tcav`, `.cav`, `.tcav_significance`): CAV fits against
sklearn, balanced sets, statistics, calibration under the null, a planted entanglement, the
debiasing curve."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import stats
from support.tcav import synthetic

from symphony_bench.metrics import cav, tcav, tcav_significance

# ----------------------------------------------------------------------------- CAV fitting


def liblinear(x, y, subsets, tol):
    from sklearn.linear_model import LogisticRegression

    fits = [
        LogisticRegression(solver="liblinear", C=1.0, tol=tol, max_iter=100_000).fit(x[s], y[s])
        for s in subsets
    ]
    return np.array([np.r_[m.coef_[0], m.intercept_] for m in fits])


@pytest.mark.parametrize("n_rows, dim", [(120, 40), (150, 6)])  # fewer rows than features, and more
def test_batched_fit_matches_liblinear(n_rows, dim):
    """Tolerance: against liblinear run to tol=1e-10, max |w - w_sklearn| <= 1e-6 * max |w_sklearn|
    (both solve the same penalised problem, intercept included in the penalty). Against liblinear's
    default tol=1e-4 (its own early stop), 2e-3 relative and the same side for 99.9% of tracks."""
    rng = np.random.default_rng(7)
    x = rng.normal(size=(400, dim)) + rng.normal(size=dim)
    x[:, :2] *= 15.0  # badly scaled directions, as some encoders' outlier dimensions
    y = rng.random(400) < 0.5
    x[y, 2] += 0.8
    subsets = np.sort(np.stack([rng.choice(400, n_rows, replace=False) for _ in range(12)]), axis=1)
    weights, bias = cav.fit_logistic(x, y, subsets)
    ours = np.c_[weights, bias]
    exact = liblinear(x, y, subsets, tol=1e-10)
    assert np.abs(ours - exact).max() <= 1e-6 * np.abs(exact).max()
    default = liblinear(x, y, subsets, tol=1e-4)
    assert np.abs(ours - default).max() <= 2e-3 * np.abs(default).max()
    same_side = ((x @ ours[:, :-1].T + ours[:, -1]) > 0) == (
        (x @ default[:, :-1].T + default[:, -1]) > 0
    )
    assert same_side.mean() >= 0.999
    single_w, single_b = cav.fit_logistic(x, y, np.arange(400)[None, :])
    single_exact = liblinear(x, y, [np.arange(400)], 1e-10)[0]
    np.testing.assert_allclose(np.r_[single_w[0], single_b], single_exact, rtol=0, atol=1e-6)


def test_fit_rejects_bad_input():
    x = np.ones((4, 2))
    with pytest.raises(ValueError, match="index rows"):
        cav.fit_logistic(x, [True, False] * 2, [[0, 9]])
    with pytest.raises(ValueError, match="NaN"):
        cav.fit_logistic(np.full((4, 2), np.nan), [True, False] * 2, [[0, 1]])


# ----------------------------------------------------------------------------- balanced sets


def test_balanced_split_is_balanced_capped_and_disjoint():
    genres = np.array(["a"] * 300 + ["b"] * 30 + ["c"] * 300)
    positive = np.r_[
        np.arange(300) < 200, np.arange(30) < 12, np.arange(300) < 150
    ]  # 200:100, 12:18, 150:150
    eligible = np.ones(630, dtype=bool)
    eligible[5] = False  # a positive of a: 199 left
    rng = np.random.default_rng(0)
    split = cav.balanced_split(
        "c", positive, eligible, genres, rng, cap_per_cell=50, min_per_cell=3
    )
    assert split.strata == ("a", "b", "c")
    assert not set(split.train) & set(split.test)
    assert len(set(split.train)) == split.train.size and 5 not in set(split.train) | set(split.test)
    np.testing.assert_array_equal(positive[split.train], split.train_labels)
    np.testing.assert_array_equal(genres[split.test], np.array(split.strata)[split.test_strata])
    # cells (genre, label): a has min(199, 100) = 100 per label, b 12, c 150; training takes
    # min(50, half), testing the rest of the balanced cell
    assert np.bincount(split.train_cells).tolist() == [50, 50, 6, 6, 50, 50]
    assert np.bincount(split.test_cells).tolist() == [50, 50, 6, 6, 100, 100]


def test_sparse_cell_is_an_error_naming_the_cell_unless_skipped():
    genres = np.array(["metal"] * 40 + ["pop"] * 40)
    positive = np.r_[np.arange(40) < 3, np.arange(40) < 20]
    rng = np.random.default_rng(0)
    with pytest.raises(
        ValueError, match=r"concept 'gender=female', cell 'metal': 3 positive and 37 other tracks"
    ):
        cav.balanced_split(
            "gender=female", positive, np.ones(80, bool), genres, rng, min_per_cell=5
        )
    split = cav.balanced_split(
        "gender=female", positive, np.ones(80, bool), genres, rng, min_per_cell=5, skip_sparse=True
    )
    assert split.strata == ("pop",) and split.skipped == ("metal",)


def test_cell_subsets_draw_the_same_share_of_every_cell():
    cells = np.repeat([0, 1, 2, 3], [40, 40, 8, 8])
    subsets = cav.cell_subsets(cells, runs=30, fraction=0.25, rng=np.random.default_rng(1))
    assert subsets.shape == (30, 10 + 10 + 2 + 2)
    for run in subsets:
        assert len(set(run)) == run.size
        assert np.bincount(cells[run]).tolist() == [10, 10, 2, 2]
    assert len({tuple(run) for run in subsets}) == 30


# ----------------------------------------------------------------------------- statistics


def test_statistics_against_scipy_and_by_hand():
    rng = np.random.default_rng(3)
    scores = np.c_[rng.normal(0.5, 0.05, 20), rng.normal(0.7, 0.05, 20), np.full(20, 0.5)]
    test_variance, cav_noise = np.full(3, 0.03**2), np.array([0.01, 0.02, 0.0]) ** 2
    tests = tcav_significance.score_tests(
        ["c"] * 3, ["g1", "g2", "g3"], scores, test_variance, cav_noise, method="paper"
    )
    np.testing.assert_allclose(tests.p_paper[:2], stats.ttest_1samp(scores[:, :2], 0.5).pvalue)
    assert tests.p_paper[2] == 1.0  # constant at exactly 0.5
    se = np.sqrt(0.03**2 + cav_noise)
    np.testing.assert_allclose(
        tests.p_calibrated, 2 * stats.norm.sf(np.abs(scores.mean(0) - 0.5) / se)
    )
    critical = stats.t.ppf(1 - 0.05 / 3 / 2, 19)
    np.testing.assert_allclose(
        tests.ci[:, 1] - tests.mean, critical * scores.std(0, ddof=1) / math.sqrt(20)
    )
    assert tests.significant.tolist() == [False, True, False]
    np.testing.assert_allclose(tests.p_bonferroni, np.minimum(1, 3 * tests.p_paper))
    with pytest.raises(ValueError, match="share of the training data"):
        tcav_significance.cav_variance(np.tile(np.arange(10), (5, 1)), 10, scores[:5, :1])


def test_tcav_scores_count_the_positive_side_per_genre():
    side = np.array([[True, False], [False, False], [True, True], [True, False]])
    np.testing.assert_allclose(
        tcav_significance.tcav_scores(side, [0, 0, 1, 1], 2), [[0.5, 1.0], [0.0, 0.5]]
    )
    np.testing.assert_allclose(
        tcav_significance.cav_accuracy(side, [True, False, True, False]), [0.75, 0.75]
    )


# ----------------------------------------------------------------------------- the method on synthetic data


CONCEPTS = [("gender", "female"), ("gender", "male"), ("language", "es")]


def test_planted_entanglement_is_flagged_for_that_genre_only():
    x, genres, attributes = synthetic(seed=100, entangle=2.5)
    results, tests = tcav.analyse(x, genres, attributes, CONCEPTS, tcav.Settings(runs=100, seed=1))
    flagged = {
        (c, g): m
        for c, g, m, s in zip(
            tests.concepts, tests.genres, tests.mean, tests.significant, strict=True
        )
        if s
    }
    assert flagged.get(("gender=female", "hiphop"), 1.0) < 0.4
    assert flagged.get(("gender=male", "hiphop"), 0.0) > 0.6
    assert not any(c.startswith("language") for c, _ in flagged)
    for (
        concept,
        genre,
    ), mean in flagged.items():  # a shifted genre moves the shared bias a little:
        if genre != "hiphop":  # other genres may only lean the opposite way
            assert (mean > 0.5) == (concept == "gender=female")
    assert all(r.reliable and r.accuracy.mean() > 0.7 for r in results)


@pytest.mark.slow  # a false-positive simulation: 40 null data sets
def test_no_significant_result_under_the_null_across_repeated_analyses():
    """Family-wise error rate of the default (calibrated) test <= 5% over 40 null data sets with
    unequal gender shares per genre; the paper's runs t-test, on the same runs, flags nearly all."""
    family_errors, paper_family_errors, means = 0, 0, []
    for seed in range(40):
        x, genres, attributes = synthetic(seed, per_genre=400, dim=16)
        _, tests = tcav.analyse(
            x, genres, attributes, CONCEPTS[::2], tcav.Settings(runs=30, seed=seed)
        )
        family_errors += bool(tests.significant.any())
        paper_family_errors += bool((tests.p_paper < tests.alpha / tests.n_tests).any())
        means.append(tests.mean)
    means = np.concatenate(means)
    assert family_errors <= 2  # 5% of 40
    assert paper_family_errors >= 30
    assert np.abs(means - 0.5).max() < 0.15 and abs(means.mean() - 0.5) < 0.01


@pytest.mark.slow  # a simulation: 40 null data sets
def test_with_enough_runs_the_standard_error_is_sized_to_the_spread_of_null_means():
    """Over 40 null data sets, z = (mean - 0.5) / SE has a standard deviation near 1 (the earlier
    extrapolated SE gave about 0.6 at higher dimension), and the family-wise error rate stays <= 5%."""
    family_errors, z = 0, []
    for seed in range(40):
        x, genres, attributes = synthetic(seed, per_genre=400, dim=16)
        _, tests = tcav.analyse(
            x,
            genres,
            attributes,
            CONCEPTS[::2],
            tcav.Settings(runs=tcav_significance.MIN_JACKKNIFE_RUNS, seed=seed),
        )
        family_errors += bool(tests.significant.any())
        z.append((tests.mean - 0.5) / tests.standard_error)
    spread = float(np.std(np.concatenate(z)))
    print(
        f"null z: sd {spread:.3f} over {len(np.concatenate(z))} tests; family-wise errors {family_errors} of 40"
    )
    assert 0.85 <= spread <= 1.15
    assert family_errors <= 2


@pytest.mark.slow  # a simulation: 30 refits on fresh training sets
def test_the_jackknife_noise_matches_refits_on_fresh_training_sets():
    """cav_variance against the spread of run-averaged scores over independent training sets drawn
    from one population (test tracks held fixed): an independent, brute-force computation."""
    rng = np.random.default_rng(8)
    x, genres, attributes = synthetic(3, per_genre=1600, dim=16)
    values = np.asarray(attributes["gender"]).astype(str)
    test = rng.choice(len(x), 400, replace=False)
    pool = np.setdiff1d(np.arange(len(x)), test)
    estimates, averages = [], []
    for _ in range(30):
        train = rng.choice(pool, 200, replace=False)
        labels = values[train] == "female"
        subsets = np.stack(
            [
                rng.choice(200, 50, replace=False)
                for _ in range(tcav_significance.MIN_JACKKNIFE_RUNS)
            ]
        )
        weights, bias = cav.fit_logistic(x[train], labels, subsets)
        scores = (tcav_significance.projections(x[test], weights, bias) > 0).mean(axis=0)[:, None]
        estimates.append(tcav_significance.cav_variance(subsets, 200, scores)[0])
        averages.append(scores.mean())
    assert np.mean(estimates) == pytest.approx(
        np.var(averages, ddof=1), rel=0.5
    )  # 30 refits: the spread itself is +-26%


def test_debiasing_moves_the_top_half_monotonically_toward_balance_and_beyond():
    x, genres, attributes = synthetic(seed=5, entangle=2.5, per_genre=800)
    result = tcav.debias(
        x, genres, attributes["gender"], "hiphop", "gender", "female", "male", tcav.Settings(seed=2)
    )
    top_half = result.n_ranked // 2
    for label, shares in result.curves.items():
        male = shares[:, 1]
        np.testing.assert_allclose(shares.sum(axis=1), 1.0)
        assert male[0] > 0.6 and male[-1] < 0.4, label
        assert np.diff(male).max() <= 1.0 / top_half + 1e-12, (
            label
        )  # never back up by more than one track
        assert stats.spearmanr(result.lambdas, male).statistic < -0.95, label
