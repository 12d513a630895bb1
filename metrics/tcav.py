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

The balanced sets and the CAV fit are `metrics.cav`; the scores, their variance and the tests are
`metrics.tcav_significance`; this module runs an analysis and the debiasing.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from symphony_bench.metrics.cav import (
    BalancedSplit,
    NotConverged,
    balanced_split,
    cell_subsets,
    fit_logistic,
)
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
from symphony_bench.metrics.tcav_significance import (
    cav_accuracy,
    cav_variance,
    heldout_sampling_variance,
    projections,
    score_tests,
    tcav_scores,
)

DEFAULT_LAMBDAS = np.linspace(0.0, 1.0, 101)


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


def analyse(
    embeddings,
    genres,
    attributes: dict,
    concepts,
    settings: Settings = Settings(),
    concept_done: Callable[[int], object] | None = None,
):
    """Every concept (column, value) against every genre; returns ([ConceptResult], TcavTests) with
    Bonferroni over all (concept, genre) tests. `attributes[column]` holds one value per row;
    `concept_done(1)` is called after each concept's fits (a progress counter's `update`)."""
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
    results = []
    for column, value in concepts:
        results.append(
            analyse_concept(embeddings, genres, attributes[column], column, value, settings, rng)
        )
        if concept_done is not None:
            concept_done(1)
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
