"""Concept Activation Vectors over frozen audio embeddings ("Beyond Genre", Gebhardt et al., ISMIR 2025).

Pure functions over numpy arrays; no harness imports, no file IO. The method:

- Balanced concept sets. For a binary concept (e.g. gender=female), positives and randomly chosen
  non-positives are drawn within each genre, equally many of each, so a genre's own gender ratio
  cannot leak into the concept. Training takes at most `cap_per_cell` tracks per (label, genre)
  cell, half of the cell when data is scarce; the rest of the balanced cell is the test set.
- CAV: L2-regularised logistic regression (liblinear's objective, intercept penalised too), fitted
  once per run on a random `subset_fraction` of every training cell; `runs` runs give a distribution.
- TCAV score of a genre: the share of that genre's balanced test tracks with w.x + b > 0 (the bias is
  kept: without gradients it is part of the decision function). 0.5 means no alignment.
- Significance, Bonferroni-corrected over every (concept, genre) test of an analysis.
  "calibrated" (default): z = (mean - 0.5) / SE, SE^2 = the variance of the run-averaged score over
  fresh test tracks (each track weighted by the share of runs that put it on the positive side,
  within its (label, genre) cell) + the variance over fresh training sets, from the infinitesimal
  jackknife of the subsampled runs (bias-corrected for the number of runs). Sized to the spread of
  null means (z has sd near 1 in simulation; the earlier q/(1-q) * run-variance extrapolation made it
  0.6). "paper": scipy's ttest_1samp of the runs against 0.5, SE = sd / sqrt(runs). The runs share one
  data set, so they are not independent samples: under a true null the paper's test flags most
  genres (a test measures this), while the calibrated one keeps the family-wise error rate below alpha.
- Debiasing: rank a balanced set of a genre's tracks by (1 - lam) * genre CAV + lam * concept CAV
  (or minus the opposite concept's CAV), both scaled to unit length, and report each group's share
  of the top half as lam goes from 0 to 1.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from scipy import stats

from symphony_bench.metrics.constants import (
    TCAV_ALPHA,
    TCAV_C,
    TCAV_CAP_PER_CELL,
    TCAV_MIN_ACCURACY,
    TCAV_MIN_PER_CELL,
    TCAV_RUNS,
    TCAV_SEED,
    TCAV_SIGNIFICANCE,
    TCAV_SUBSET_FRACTION,
)

DEFAULT_LAMBDAS = np.linspace(0.0, 1.0, 101)
SIGNIFICANCE_METHODS = ("calibrated", "paper")
MIN_JACKKNIFE_RUNS = (
    100  # below this the jackknife's Monte-Carlo error makes the test liberal (measured)
)
_MAX_CHUNK_ELEMENTS = 8_000_000  # runs fitted together hold about 5 * 8 bytes * this much memory


# ----------------------------------------------------------------------------- balanced sets


@dataclass(frozen=True)
class BalancedSplit:
    """Disjoint, balanced train/test rows of one binary concept, stratified by another attribute."""

    concept: str
    strata: tuple[str, ...]  # stratum (genre) names kept, in code order
    skipped: tuple[str, ...]  # strata left out because a cell was too small
    train: np.ndarray  # row indices into the embeddings
    train_labels: np.ndarray  # bool, True = positive
    train_cells: np.ndarray  # 2 * stratum code + label: the cells runs subsample within
    test: np.ndarray
    test_labels: np.ndarray
    test_strata: np.ndarray  # codes into `strata`

    @property
    def test_cells(self) -> np.ndarray:
        return 2 * self.test_strata + self.test_labels


def balanced_split(
    concept: str,
    positive,
    eligible,
    strata,
    rng: np.random.Generator,
    cap_per_cell: int = TCAV_CAP_PER_CELL,
    min_per_cell: int = TCAV_MIN_PER_CELL,
    skip_sparse: bool = False,
) -> BalancedSplit:
    """Per stratum s: m = min(#positives, #eligible non-positives); min(cap, m // 2) of each label
    train, the next m - that many of each test. Raises ValueError naming the (concept, stratum) cell
    when fewer than `min_per_cell` per label would train there, unless `skip_sparse` leaves it out."""
    positive, eligible, strata = _check_split_inputs(positive, eligible, strata)
    if cap_per_cell < 1 or min_per_cell < 1:
        raise ValueError(
            f"cap_per_cell and min_per_cell must be at least 1, got {cap_per_cell}, {min_per_cell}"
        )
    kept, skipped, train, test = [], [], [], []
    for name in sorted(set(strata[eligible].tolist())):
        in_stratum = eligible & (strata == name)
        positives, negatives = (
            np.flatnonzero(in_stratum & positive),
            np.flatnonzero(in_stratum & ~positive),
        )
        cell = _split_stratum(positives, negatives, rng, cap_per_cell)
        if cell is None or len(cell[0]) < min_per_cell:
            if not skip_sparse:
                raise ValueError(
                    _sparse_message(concept, name, positives.size, negatives.size, min_per_cell)
                )
            skipped.append(name)
            continue
        code = len(kept)
        kept.append(name)
        train.append((cell[0], cell[1], code))
        test.append((cell[2], cell[3], code))
    if not kept:
        need = 2 * min_per_cell
        raise ValueError(
            f"concept {concept!r}: no stratum has {need} positive and {need} other tracks"
        )
    train_rows, train_labels, train_codes = _stack_cells(train)
    test_rows, test_labels, test_codes = _stack_cells(test)
    return BalancedSplit(
        concept,
        tuple(kept),
        tuple(skipped),
        train_rows,
        train_labels,
        2 * train_codes + train_labels,
        test_rows,
        test_labels,
        test_codes,
    )


def _check_split_inputs(positive, eligible, strata):
    positive = np.asarray(positive, dtype=bool)
    eligible = np.asarray(eligible, dtype=bool)
    strata = np.asarray(strata).astype(str)
    if positive.ndim != 1 or eligible.shape != positive.shape or strata.shape != positive.shape:
        raise ValueError(
            f"positive, eligible and strata must be 1-D of one length, got "
            f"{positive.shape}, {eligible.shape}, {strata.shape}"
        )
    return positive, eligible, strata


def _split_stratum(positives, negatives, rng, cap):
    m = min(positives.size, negatives.size)
    n_train = min(cap, m // 2)
    if n_train == 0:
        return None
    positives, negatives = rng.permutation(positives)[:m], rng.permutation(negatives)[:m]
    return positives[:n_train], negatives[:n_train], positives[n_train:], negatives[n_train:]


def _sparse_message(concept, stratum, n_positive, n_negative, min_per_cell) -> str:
    return (
        f"concept {concept!r}, cell {stratum!r}: {n_positive} positive and "
        f"{n_negative} other tracks; need at least {2 * min_per_cell} of each "
        f"(half train, half test), or skip sparse cells"
    )


def _stack_cells(cells):
    rows = np.concatenate([np.concatenate([pos, neg]) for pos, neg, _ in cells])
    labels = np.concatenate(
        [np.r_[np.ones(pos.size, bool), np.zeros(neg.size, bool)] for pos, neg, _ in cells]
    )
    codes = np.concatenate([np.full(pos.size + neg.size, code) for pos, neg, code in cells])
    return rows, labels, codes


def cell_subsets(cells, runs: int, fraction: float, rng: np.random.Generator) -> np.ndarray:
    """(runs, n_subset) positions into `cells`: per run, round(fraction * size) (at least 1) members
    of every cell, drawn without replacement."""
    cells = np.asarray(cells)
    if not 0.0 < fraction <= 1.0:
        raise ValueError(f"subset fraction must be in (0, 1], got {fraction}")
    if runs < 1:
        raise ValueError(f"runs must be at least 1, got {runs}")
    picks = []
    for cell in np.unique(cells):
        members = np.flatnonzero(cells == cell)
        k = max(1, int(round(fraction * members.size)))
        picks.append(members[rng.random((runs, members.size)).argsort(axis=1)[:, :k]])
    return np.sort(np.concatenate(picks, axis=1), axis=1)


# ----------------------------------------------------------------------------- CAV fitting


class NotConverged(ValueError):
    """A CAV fit that did not converge: its weights would be arbitrary, so no score is computed."""


def fit_logistic(
    embeddings, labels, subsets, c: float = TCAV_C, tol: float = 1e-8, max_iter: int = 100
):
    """Many L2-regularised logistic regressions at once, one per row of `subsets`.

    Row r fits rows `subsets[r]` of (embeddings, labels) and minimises, as sklearn's
    LogisticRegression(solver="liblinear", C=c) does (liblinear fits the intercept as the weight of
    a constant feature 1, so the intercept is penalised too):

        0.5 * (|w|^2 + b^2) + c * sum_i log(1 + exp(-y_i (w.x_i + b))),   y_i in {-1, +1}

    Newton's method on the logits f = K a (K: the subset's Gram matrix of [x, 1]; the solution is
    w~ = X~^T a, the representer theorem holds because the penalty covers the whole w~), in the
    numerically stable form of Rasmussen & Williams, Algorithm 3.1, with a backtracking line search;
    all runs move together as batched torch linear algebra (cost: runs * n^3 / 3 per Cholesky, n the
    rows per run; a few Cholesky factors per fit). Stops when a step would move no logit by more
    than `tol` (relative to the largest logit, when that exceeds 1). Returns (weights (runs, d),
    bias (runs,)) as float64 numpy arrays; NotConverged if a fit has not converged in `max_iter`
    steps (embeddings on an extreme scale make the data separable and the weights diverge).
    """
    import torch

    x = np.asarray(embeddings, dtype=np.float64)
    y = np.asarray(labels, dtype=bool)
    subsets = np.atleast_2d(np.asarray(subsets, dtype=np.int64))
    if x.ndim != 2 or y.shape != (x.shape[0],):
        raise ValueError(f"embeddings must be (n, d) and labels (n,), got {x.shape} and {y.shape}")
    if not np.all(np.isfinite(x)):
        raise ValueError("embeddings contain NaN or infinite values")
    if subsets.size == 0 or subsets.min() < 0 or subsets.max() >= x.shape[0]:
        raise ValueError("subsets must index rows of the embeddings")
    if c <= 0:
        raise ValueError(f"C must be positive, got {c}")
    augmented = torch.from_numpy(np.hstack([x, np.ones((x.shape[0], 1))]))
    gram = augmented @ augmented.T
    signs = torch.from_numpy(np.where(y, 1.0, -1.0))
    chunk = max(1, _MAX_CHUNK_ELEMENTS // subsets.shape[1] ** 2)
    solutions = []
    for start in range(0, subsets.shape[0], chunk):
        rows = torch.from_numpy(subsets[start : start + chunk])
        kernel = torch.take(gram, rows.unsqueeze(-1) * gram.shape[0] + rows.unsqueeze(-2))
        coefficients = _newton_logits(kernel, signs[rows], c, tol, max_iter)
        dense = torch.zeros(rows.shape[0], x.shape[0], dtype=torch.float64).scatter_add_(
            1, rows, coefficients
        )
        solutions.append(dense @ augmented)
    solution = torch.cat(solutions).numpy()
    return solution[:, :-1], solution[:, -1]


def _newton_logits(kernel, signs, c, tol, max_iter):
    """Coefficients a (batch, n) with logits f = K a at the penalised maximum likelihood.

    The Cholesky factor of B = I + W^1/2 K W^1/2 (W: the loss curvature) is the expensive part, so
    it is kept while steps shrink at least 4-fold: the update with a stale W has the same fixed
    point, and a step that needs backtracking or stops contracting triggers a fresh factor."""
    import torch

    a = torch.zeros(signs.shape, dtype=kernel.dtype)
    f = torch.zeros_like(a)
    buffer = torch.empty_like(kernel)
    factor, last_step = None, math.inf
    for _ in range(max_iter):
        wrong = torch.sigmoid(-signs * f)
        if factor is None:
            root = (c * wrong * (1.0 - wrong)).sqrt()
            factor = _factor(kernel, root, buffer)
        b = root**2 * f + c * signs * wrong
        solved = _cholesky_solve(factor, root * _matvec(kernel, b))
        a, f, step, full = _line_search(kernel, signs, c, a, f, b - root * solved)
        if step <= tol * max(1.0, float(f.abs().max())):
            break
        if not full or step > 0.25 * last_step:
            factor = None
        last_step = step
    else:
        raise NotConverged(
            f"logistic regression: no convergence in {max_iter} Newton steps (last step {step:.2g})"
        )
    return a


def _factor(kernel, root, buffer):
    import torch

    torch.mul(kernel, root.unsqueeze(-1), out=buffer)
    buffer.mul_(root.unsqueeze(-2))
    buffer.diagonal(dim1=-2, dim2=-1).add_(1.0)
    factor, _ = torch.linalg.cholesky_ex(buffer)  # B's eigenvalues are >= 1: it never fails
    return factor


def _cholesky_solve(factor, vectors):
    import torch

    half = torch.linalg.solve_triangular(factor, vectors.unsqueeze(-1), upper=False)
    return torch.linalg.solve_triangular(factor.mT, half, upper=True).squeeze(-1)


def _matvec(kernel, vectors):
    return (kernel @ vectors.unsqueeze(-1)).squeeze(-1)


def _penalised_loss(signs, c, a, f):
    import torch

    return 0.5 * (a * f).sum(-1) + c * torch.nn.functional.softplus(-signs * f).sum(-1)


def _line_search(kernel, signs, c, a, f, target, halvings: int = 30):
    """Backtracking from a toward `target` until the loss does not increase; a run with no such step
    stays put. Returns (a, f, largest logit change of the full step, whether every run took it)."""
    import torch

    step_a = target - a
    step_f = _matvec(kernel, target) - f
    current = _penalised_loss(signs, c, a, f)
    size = torch.ones(a.shape[0], 1, dtype=a.dtype)
    for _ in range(halvings):
        worse = (
            _penalised_loss(signs, c, a + size * step_a, f + size * step_f)
            > current + 1e-12 * current.abs()
        )
        if not worse.any():
            break
        size = torch.where(worse.unsqueeze(-1), 0.5 * size, size)
    else:
        size = torch.where(worse.unsqueeze(-1), torch.zeros_like(size), size)
    full = bool((size == 1.0).all())
    return a + size * step_a, f + size * step_f, float(step_f.abs().max()), full


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


# ----------------------------------------------------------------------------- one analysis


@dataclass(frozen=True)
class ConceptResult:
    column: str
    value: str
    split: BalancedSplit
    subset_size: int  # training tracks per run
    accuracy: np.ndarray  # (runs,) on the concept's whole balanced test set
    scores: np.ndarray  # (runs, genres kept)
    test_variance: np.ndarray  # (genres kept,), see heldout_sampling_variance
    cav_noise: np.ndarray  # (genres kept,), see cav_variance
    reliable: bool  # mean accuracy >= the threshold

    @property
    def name(self) -> str:
        return f"{self.column}={self.value}"

    @property
    def genre_test_sizes(self) -> np.ndarray:
        return np.bincount(self.split.test_strata, minlength=len(self.split.strata))


@dataclass(frozen=True)
class Settings:
    runs: int = TCAV_RUNS
    subset_fraction: float = TCAV_SUBSET_FRACTION
    cap_per_cell: int = TCAV_CAP_PER_CELL
    min_per_cell: int = TCAV_MIN_PER_CELL
    skip_sparse: bool = False
    c: float = TCAV_C
    min_accuracy: float = TCAV_MIN_ACCURACY
    alpha: float = TCAV_ALPHA
    method: str = TCAV_SIGNIFICANCE
    seed: int = TCAV_SEED


def analyse_concept(
    embeddings, genres, values, column: str, value: str, settings: Settings, rng
) -> ConceptResult:
    """CAVs of `column == value` (rows with an empty value are unknown and left out) and their TCAV
    scores per genre, one row per run."""
    values = np.asarray(values).astype(str)
    name = f"{column}={value}"
    split = balanced_split(
        name,
        values == value,
        values != "",
        genres,
        rng,
        settings.cap_per_cell,
        settings.min_per_cell,
        settings.skip_sparse,
    )
    subsets = cell_subsets(split.train_cells, settings.runs, settings.subset_fraction, rng)
    try:
        weights, bias = fit_logistic(
            embeddings[split.train], split.train_labels, subsets, settings.c
        )
    except NotConverged as error:
        scale = float(np.abs(embeddings).max())
        raise NotConverged(
            f"concept {name}: {error}; the largest |embedding| is {scale:.3g}, so the penalty "
            f"C={settings.c:g} barely constrains the fit: standardise the embeddings or lower C"
        ) from error
    positive_side = projections(embeddings[split.test], weights, bias) > 0
    accuracy = cav_accuracy(positive_side, split.test_labels)
    scores = tcav_scores(positive_side, split.test_strata, len(split.strata))
    return ConceptResult(
        column,
        value,
        split,
        subsets.shape[1],
        accuracy,
        scores=scores,
        test_variance=heldout_sampling_variance(positive_side, split),
        cav_noise=cav_variance(subsets, split.train.size, scores),
        reliable=bool(accuracy.mean() >= settings.min_accuracy),
    )


def analyse(embeddings, genres, attributes: dict, concepts, settings: Settings = Settings()):
    """Every concept (column, value) against every genre; returns ([ConceptResult], TcavTests) with
    Bonferroni over all (concept, genre) tests. `attributes[column]` holds one value per row."""
    embeddings = np.asarray(embeddings, dtype=np.float64)
    genres = np.asarray(genres).astype(str)
    if embeddings.ndim != 2 or genres.shape != (embeddings.shape[0],):
        raise ValueError(
            f"embeddings must be (n, d) and genres (n,), got {embeddings.shape} and {genres.shape}"
        )
    if settings.runs < 2:
        raise ValueError(f"runs must be at least 2, got {settings.runs}")
    if not concepts:
        raise ValueError("no concept to analyse")
    rng = np.random.default_rng(settings.seed)
    results = [
        analyse_concept(embeddings, genres, attributes[column], column, value, settings, rng)
        for column, value in concepts
    ]
    per_test = [(r, genre) for r in results for genre in r.split.strata]
    tests = score_tests(
        [r.name for r, _ in per_test],
        [genre for _, genre in per_test],
        np.concatenate([r.scores for r in results], axis=1),
        np.concatenate([r.test_variance for r in results]),
        np.concatenate([r.cav_noise for r in results]),
        settings.alpha,
        settings.method,
    )
    return results, tests


# ----------------------------------------------------------------------------- debiasing


def unit(vector) -> np.ndarray:
    vector = np.asarray(vector, dtype=float)
    norm = np.linalg.norm(vector)
    if norm == 0:
        raise ValueError("a CAV of length 0 has no direction")
    return vector / norm


def debias_shares(
    genre_cav,
    concept_cav,
    ranked,
    groups,
    n_groups: int,
    lambdas=DEFAULT_LAMBDAS,
    sign: float = 1.0,
):
    """(len(lambdas), n_groups) share of each group among the top half of `ranked` (n, d) when
    sorted by the projection on (1 - lam) * unit(genre_cav) + sign * lam * unit(concept_cav)."""
    lambdas = np.asarray(lambdas, dtype=float)
    ranked = np.asarray(ranked, dtype=float)
    groups = np.asarray(groups)
    if ranked.shape[0] < 2 or groups.shape != (ranked.shape[0],):
        raise ValueError(
            f"need at least 2 ranked tracks with one group each, got {ranked.shape} and {groups.shape}"
        )
    directions = (1.0 - lambdas)[:, None] * unit(genre_cav) + sign * lambdas[:, None] * unit(
        concept_cav
    )
    top_k = ranked.shape[0] // 2
    order = np.argsort(-(ranked @ directions.T), axis=0, kind="stable")[:top_k]
    return np.eye(n_groups)[groups[order]].sum(axis=0) / top_k


@dataclass(frozen=True)
class DebiasResult:
    genre: str
    column: str
    groups: tuple[str, str]  # (toward, away)
    lambdas: np.ndarray
    curves: dict  # label -> (lambdas, 2) shares of (toward, away) in the top half
    n_ranked: int


def debias(
    embeddings,
    genres,
    values,
    genre: str,
    column: str,
    toward: str,
    away: str,
    settings: Settings = Settings(),
    lambdas=DEFAULT_LAMBDAS,
) -> DebiasResult:
    """The paper's post-hoc debiasing of one genre CAV (e.g. hip-hop vs other genres, balanced within
    `column` = toward and `column` = away), moved toward the `toward` concept CAV or away from the
    `away` one.

    The ranked tracks are the genre CAV's held-out positives (tracks of the genre), downsampled to
    equally many of each group; the two concept CAVs are then trained without them. Each CAV is
    one fit on its whole balanced training set.
    """
    embeddings = np.asarray(embeddings, dtype=np.float64)
    genres, values = np.asarray(genres).astype(str), np.asarray(values).astype(str)
    if toward == away:
        raise ValueError(f"toward and away must differ, both are {toward!r}")
    rng = np.random.default_rng(settings.seed)
    paired = (values == toward) | (values == away)
    genre_split = balanced_split(
        f"genre={genre}",
        genres == genre,
        paired,
        values,
        rng,
        settings.cap_per_cell,
        settings.min_per_cell,
        settings.skip_sparse,
    )
    ranked, groups = _balanced_ranking_set(genre_split, values, (toward, away), rng)
    if ranked.size < 2:
        raise ValueError(
            f"genre {genre!r}: no held-out tracks of both {column}={toward} and {column}={away} to rank"
        )
    available = (values != "") & ~np.isin(np.arange(values.size), ranked)
    concept_splits = [
        balanced_split(
            f"{column}={v}",
            values == v,
            available,
            genres,
            rng,
            settings.cap_per_cell,
            settings.min_per_cell,
            settings.skip_sparse,
        )
        for v in (toward, away)
    ]
    genre_cav, toward_cav, away_cav = (
        _full_fit(embeddings, s, settings.c) for s in [genre_split, *concept_splits]
    )
    lambdas = np.asarray(lambdas, dtype=float)
    curves = {
        f"add {column}={toward}": debias_shares(
            genre_cav, toward_cav, embeddings[ranked], groups, 2, lambdas, 1.0
        ),
        f"subtract {column}={away}": debias_shares(
            genre_cav, away_cav, embeddings[ranked], groups, 2, lambdas, -1.0
        ),
    }
    return DebiasResult(genre, column, (toward, away), lambdas, curves, int(ranked.size))


def _full_fit(embeddings, split: BalancedSplit, c: float) -> np.ndarray:
    weights, _ = fit_logistic(
        embeddings[split.train], split.train_labels, np.arange(split.train.size)[None, :], c
    )
    return weights[0]


def _balanced_ranking_set(split: BalancedSplit, values, group_values, rng):
    held_out = split.test[split.test_labels]
    members = [rng.permutation(held_out[values[held_out] == v]) for v in group_values]
    size = min(m.size for m in members)
    return np.concatenate([m[:size] for m in members]), np.repeat(
        np.arange(len(group_values)), size
    )
