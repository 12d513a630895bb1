"""Concept Activation Vectors: the balanced concept sets they are trained and tested on, and the
batched L2-regularised logistic fit (liblinear's objective) of many runs at once.

Pure functions over numpy arrays (the fit runs in torch); no harness imports, no file IO. The
method and its analysis are described in `metrics.tcav`.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from symphony_bench.metrics.constants import TCAV_C, TCAV_CAP_PER_CELL, TCAV_MIN_PER_CELL

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
