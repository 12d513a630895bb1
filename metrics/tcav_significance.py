"""TCAV scores of trained CAVs and their significance: the share of a genre's test tracks on the
positive side, the two variance parts of the run-averaged score (fresh test tracks, fresh training
sets) and the Bonferroni-corrected tests ("calibrated" or "paper"; see `metrics.tcav`).

Pure functions over numpy arrays; no harness imports, no file IO.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy import stats

from symphony_bench.metrics.cav import BalancedSplit
from symphony_bench.metrics.constants import TCAV_ALPHA

SIGNIFICANCE_METHODS = ("calibrated", "paper")
MIN_JACKKNIFE_RUNS = (
    100  # below this the jackknife's Monte-Carlo error makes the test liberal (measured)
)


# ----------------------------------------------------------------------------- TCAV scores


def projections(embeddings, weights, bias) -> np.ndarray:
    """(n, runs) logits w.x + b of every embedding under every CAV."""
    return (
        np.asarray(embeddings, dtype=np.float64) @ np.asarray(weights).T + np.asarray(bias)[None, :]
    )


def tcav_scores(positive_side, strata, n_strata: int) -> np.ndarray:
    """(runs, n_strata) share of each stratum's tracks on the positive side of each run's CAV.

    positive_side: (n, runs) bool; strata: (n,) codes, every stratum holding at least one track.
    """
    onehot = np.eye(n_strata)[np.asarray(strata)]
    totals = onehot.sum(axis=0)
    if np.any(totals == 0):
        raise ValueError("a stratum has no test track")
    return (np.asarray(positive_side, dtype=float).T @ onehot) / totals


def heldout_sampling_variance(positive_side, split: BalancedSplit) -> np.ndarray:
    """(genres,) variance of the run-averaged TCAV score over fresh test tracks: each track counts
    with the share of runs that put it on the positive side, and a genre's positives and negatives
    are samples of their own cells (within-cell variance of those shares / genre size^2)."""
    n_genres = len(split.strata)
    cells = split.test_cells
    shares = np.asarray(positive_side, dtype=float).mean(axis=1)
    n_cells = 2 * n_genres
    sizes = np.bincount(cells, minlength=n_cells).astype(float)
    means = np.bincount(cells, weights=shares, minlength=n_cells) / np.maximum(sizes, 1)
    squares = np.bincount(cells, weights=(shares - means[cells]) ** 2, minlength=n_cells)
    cell_variance = squares / np.maximum(sizes - 1, 1) * sizes
    genre_sizes = np.bincount(split.test_strata, minlength=n_genres)
    return (cell_variance[0::2] + cell_variance[1::2]) / genre_sizes**2


def cav_variance(subsets, n_train: int, scores) -> np.ndarray:
    """(genres,) variance of the run-averaged TCAV score over a fresh training set: the infinitesimal
    jackknife of a subsampled (bagged) estimator, (n / (n - m))^2 sum_i Cov_runs(N_i, score)^2 with
    N_i = 1 when training track i is in a run, less its Monte-Carlo bias from a finite number of runs
    (n (m/n)(1 - m/n) Var_runs(score) / runs, same scale), floored at 0. With fewer than
    MIN_JACKKNIFE_RUNS runs, the conservative m-out-of-n extrapolation q / (1 - q) * Var_runs."""
    subsets, scores = np.asarray(subsets), np.asarray(scores, dtype=float)
    runs, m = subsets.shape
    if m >= n_train:
        raise ValueError(
            "the test needs runs on a share of the training data below 1: "
            "with every run on all of it, the CAV's own noise cannot be estimated"
        )
    share = m / n_train
    if (
        runs < MIN_JACKKNIFE_RUNS
    ):  # too few runs for the jackknife's Monte-Carlo error: the conservative extrapolation
        return share / (1.0 - share) * scores.var(axis=0, ddof=1)
    inclusion = np.zeros((runs, n_train))
    inclusion[np.arange(runs)[:, None], subsets] = 1.0
    centred_scores = scores - scores.mean(axis=0)
    covariance = (inclusion - inclusion.mean(axis=0)).T @ centred_scores / runs
    scale = (n_train / (n_train - m)) ** 2
    bias = n_train * share * (1.0 - share) * scores.var(axis=0, ddof=1) / runs
    return np.maximum(scale * (np.sum(covariance**2, axis=0) - bias), 0.0)


def cav_accuracy(positive_side, labels) -> np.ndarray:
    """(runs,) share of tracks whose side of the CAV matches their label."""
    return np.mean(np.asarray(positive_side) == np.asarray(labels, dtype=bool)[:, None], axis=0)


@dataclass(frozen=True)
class TcavTests:
    """One entry per (concept, genre) test of an analysis, in a fixed order."""

    concepts: tuple[str, ...]
    genres: tuple[str, ...]
    scores: np.ndarray  # (runs, tests)
    mean: np.ndarray
    standard_error: np.ndarray  # of the mean, by the chosen method
    ci: np.ndarray  # (tests, 2), Bonferroni-corrected
    p_value: np.ndarray  # of the chosen method, uncorrected
    p_bonferroni: np.ndarray  # min(1, p * tests)
    p_calibrated: np.ndarray
    p_paper: np.ndarray  # scipy.stats.ttest_1samp(scores, 0.5), as the paper
    significant: np.ndarray  # p_value < alpha / tests
    alpha: float
    method: str

    @property
    def n_tests(self) -> int:
        return len(self.concepts)


def normal_p_values(mean, standard_error) -> np.ndarray:
    """Two-sided p-value of mean = 0.5 under a normal approximation (0 error: 0, or 1 at exactly 0.5)."""
    distance = np.abs(np.asarray(mean, dtype=float) - 0.5)
    with np.errstate(divide="ignore", invalid="ignore"):
        z = np.where(distance == 0, 0.0, distance / np.asarray(standard_error, dtype=float))
    return 2.0 * stats.norm.sf(z)


def paper_p_values(scores) -> np.ndarray:
    """scipy.stats.ttest_1samp(scores, 0.5) per column; constant columns get 0 (or 1 at exactly 0.5)."""
    scores = np.asarray(scores, dtype=float)
    constant = np.ptp(scores, axis=0) == 0
    p = np.where(scores[0] == 0.5, 1.0, 0.0)
    if not constant.all():
        p[~constant] = stats.ttest_1samp(scores[:, ~constant], 0.5, axis=0).pvalue
    return p


def score_tests(
    concepts,
    genres,
    scores,
    test_variance,
    cav_noise,
    alpha: float = TCAV_ALPHA,
    method: str = "calibrated",
) -> TcavTests:
    """Means, standard errors, Bonferroni-corrected CIs and significance for every column of
    `scores` (runs, tests). "calibrated": SE^2 = `test_variance` + `cav_noise` (both (tests,), see
    heldout_sampling_variance and cav_variance). "paper": SE = sd / sqrt(runs), with a t-test."""
    scores = np.asarray(scores, dtype=float)
    if method not in SIGNIFICANCE_METHODS:
        raise ValueError(f"method must be one of {SIGNIFICANCE_METHODS}, got {method!r}")
    if not 0.0 < alpha < 1.0:
        raise ValueError(f"alpha must be in (0, 1), got {alpha}")
    if (
        scores.ndim != 2
        or scores.shape[0] < 2
        or scores.shape[1] != len(concepts)
        or len(genres) != len(concepts)
    ):
        raise ValueError(
            f"scores must be (runs >= 2, {len(concepts)}) to match the tests, got {scores.shape}"
        )
    runs, n_tests = scores.shape
    level = alpha / n_tests
    mean = scores.mean(axis=0)
    calibrated_se = np.sqrt(
        np.asarray(test_variance, dtype=float) + np.asarray(cav_noise, dtype=float)
    )
    p_calibrated, p_paper = normal_p_values(mean, calibrated_se), paper_p_values(scores)
    if method == "calibrated":
        se, p_value, critical = calibrated_se, p_calibrated, stats.norm.ppf(1.0 - level / 2.0)
    else:
        se, p_value = scores.std(axis=0, ddof=1) / np.sqrt(runs), p_paper
        critical = stats.t.ppf(1.0 - level / 2.0, runs - 1)
    return TcavTests(
        concepts=tuple(concepts),
        genres=tuple(genres),
        scores=scores,
        mean=mean,
        standard_error=se,
        ci=np.stack([mean - critical * se, mean + critical * se], axis=1),
        p_value=p_value,
        p_bonferroni=np.minimum(1.0, p_value * n_tests),
        p_calibrated=p_calibrated,
        p_paper=p_paper,
        significant=p_value < level,
        alpha=alpha,
        method=method,
    )
