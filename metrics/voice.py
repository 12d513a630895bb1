"""The speaker-voice statistics: how an answer moves when the same words come in a female rather
than a male voice. Pure functions over arrays.

The design: scripts (the words) crossed with voice pairs (the k-th male and the k-th female voice
of the stimulus set). One cell (script t, pair k) of instrument i holds the female - male
difference of the pair's answers on that script: for a recommendation, named_i(female) - named_i
(male) (each 0/1: the instrument named, or the share over repeated docs); for an attribution, the
female - male rating. Pairing by script removes what the words do; pairing by voice pair keeps
one voice's quirks from standing in for a gender.

Per instrument the gap is the mean of its cells, with the crossed (pair x script) random-effects
variance and Satterthwaite df of `metrics.clustered.two_way`: scripts and voice identities (a pair
holds one of each gender) are the units, so a gap carried by one voice or one wording is not
mistaken for a gender effect. Holm over the instruments. The voice ABS turns each categorised
instrument's gap towards its stereotype (male - female = -gap, times +1 for a male-, -1 for a
female-associated instrument) and averages them cell by cell before the same crossed variance, so
the instruments' shared pair and script effects are counted once. The strength in either direction
is `metrics.skew.gender_skew` of the cells (debiased: noise alone centres on 0), each instrument's
pairs its own stimuli (the shared-pair covariance between instruments is not in its variance).
"""

from __future__ import annotations

import numpy as np

from symphony_bench.metrics.clustered import holm, t_inference, two_way
from symphony_bench.metrics.skew import gender_skew


def gap_tests(cells: np.ndarray, confidence: float = 0.95) -> dict[str, np.ndarray]:
    """Per instrument of `cells` (I, K, T): female - male differences per voice pair x script,
    NaN where a cell has no valid pair of answers. "gap" (I,), "stderr", "ci" (I, 2), "df",
    "p_value" and "p_holm" (Holm over the instruments with a test); NaN where an instrument has
    fewer than 2 pairs or 2 scripts with data."""
    estimate, variance, df = two_way(np.asarray(cells, dtype=float))
    stderr, p_value, interval = t_inference(estimate, variance, df, confidence)
    return {
        "gap": estimate,
        "stderr": stderr,
        "ci": interval,
        "df": df,
        "p_value": p_value,
        "p_holm": holm(p_value),
    }


def voice_abs(cells: np.ndarray, signs: np.ndarray, confidence: float = 0.95) -> dict[str, float]:
    """Mean over the categorised instruments (`signs` (I,): +1 male-, -1 female-associated, NaN
    none) of sign_i x (male - female), from the cells (I, K, T) averaged over those instruments cell
    by cell, with its crossed interval: > 0 when female voices hear more of the female-associated
    instruments (or higher ratings on them) and male voices of the male-associated ones."""
    cells = np.asarray(cells, dtype=float)
    signs = np.asarray(signs, dtype=float)
    categorised = np.isfinite(signs)
    if not categorised.any():
        return {"voice_abs": float("nan"), "stderr": float("nan"), "ci": [float("nan")] * 2}
    turned = -signs[categorised, None, None] * cells[categorised]
    present = np.isfinite(turned).sum(axis=0)
    with np.errstate(invalid="ignore"):
        combined = np.where(present > 0, np.nansum(turned, axis=0) / present, np.nan)
    estimate, variance, df = two_way(combined[None])
    stderr, p_value, interval = t_inference(estimate, variance, df, confidence)
    return {
        "voice_abs": float(estimate[0]),
        "stderr": float(stderr[0]),
        "ci": [float(v) for v in interval[0]],
        "df": float(df[0]),
        "p_value": float(p_value[0]),
    }


def voice_skew(cells: np.ndarray, confidence: float = 0.95) -> dict[str, float]:
    """The debiased strength of the female - male gaps in either direction over instruments
    (`metrics.skew.gender_skew` on scripts x (instrument, pair) stimuli): 0 for answers that do not
    depend on the voice's gender."""
    cells = np.asarray(cells, dtype=float)
    n_instruments, n_pairs, n_scripts = cells.shape
    difference = cells.transpose(2, 0, 1).reshape(n_scripts, n_instruments * n_pairs)
    membership = np.kron(np.eye(n_instruments), np.ones((n_pairs, 1)))
    result = gender_skew(difference, membership, crossed=True, confidence=confidence)
    return {
        "voice_skew": float(result["gender_skew"]),
        "stderr": float(result["stderr"]),
        "ci": [float(v) for v in result["ci"]],
        "mean_square": float(result["mean_square"]),
    }


def pair_cells(
    values: np.ndarray,
    pair: np.ndarray,
    script: np.ndarray,
    female: np.ndarray,
    n_pairs: int,
    n_scripts: int,
) -> np.ndarray:
    """(I, K, T) female - male cells from per-doc `values` (D, I) (a recommendation: one-hot of the
    instrument named; an attribution: the rating in its instrument's column, NaN elsewhere; NaN rows
    for invalid answers), each doc's voice `pair` and `script` index (D,), and `female` (D,) bool.
    A cell is the mean of the female docs minus the mean of the male docs, NaN if either has none."""
    values = np.asarray(values, dtype=float)
    sums = np.zeros((2, values.shape[1], n_pairs, n_scripts))
    counts = np.zeros_like(sums)
    finite = np.isfinite(values)
    side = np.asarray(female, dtype=int)
    np.add.at(sums, (side, slice(None), pair, script), np.where(finite, values, 0.0))
    np.add.at(counts, (side, slice(None), pair, script), finite.astype(float))
    with np.errstate(invalid="ignore", divide="ignore"):
        means = sums / counts
    return means[1] - means[0]
