"""Inference on the design's top-level units, per instrument and vectorised across instruments.

Docs are averaged into cells first: (template, stimulus) cells, where the stimulus is nested in the
instrument (a clip or image; for the text and named conditions the instrument is its own single
stimulus) and templates are crossed with instruments. An instrument's estimate is the mean of its
cells, and its variance comes from the variation between those cells:

    one stimulus      one-way over templates: var = s^2(template means) / T, df = T - 1
    2+ stimuli        crossed random effects (stimulus x template), method of moments:
                      var = sigma_s^2 / S + sigma_t^2 / T + sigma_e^2 / (S T), Satterthwaite df

The test and the interval use the same estimate, standard error and t reference, so a 95% interval
excludes 0 exactly when the two-sided p < 0.05.
"""

from __future__ import annotations

import numpy as np
from scipy import stats


def finite_mean(values: np.ndarray, axis=-1) -> np.ndarray:
    """Mean over `axis` of the finite entries; NaN where there is none."""
    finite = np.isfinite(values)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(finite, values, 0.0).sum(axis=axis) / finite.sum(axis=axis)


def one_way(cells: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(estimate, variance, df) per row of `cells` (I, T), NaN cells left out."""
    present = np.isfinite(cells)
    n = present.sum(axis=1).astype(float)
    mean = finite_mean(cells, axis=1)
    squares = np.nansum((cells - mean[:, None]) ** 2, axis=1)
    with np.errstate(invalid="ignore", divide="ignore"):
        variance = squares / (n - 1) / n
    return mean, np.where(n >= 2, variance, np.nan), n - 1


def two_way(cells: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(estimate, variance, df) per instrument of `cells` (I, S, T): stimuli x templates, NaN where
    a cell is empty or the instrument has fewer stimuli. Variance components are truncated at 0."""
    present = np.isfinite(cells)
    n_s = present.any(axis=2).sum(axis=1).astype(float)
    n_t = present.any(axis=1).sum(axis=1).astype(float)
    grand = finite_mean(cells, axis=(1, 2))
    rows, columns = finite_mean(cells, axis=2), finite_mean(cells, axis=1)
    residual = cells - rows[:, :, None] - columns[:, None, :] + grand[:, None, None]
    with np.errstate(invalid="ignore", divide="ignore"):
        ms_s = n_t * np.nansum((rows - grand[:, None]) ** 2, axis=1) / (n_s - 1)
        ms_t = n_s * np.nansum((columns - grand[:, None]) ** 2, axis=1) / (n_t - 1)
        ms_e = np.nansum(residual**2, axis=(1, 2)) / ((n_s - 1) * (n_t - 1))
        # var = c_s MS_s + c_t MS_t + c_e MS_e, keeping only the components estimated above 0
        use_s, use_t = ms_s > ms_e, ms_t > ms_e
        scale = n_s * n_t
        terms = (
            np.stack(
                [
                    np.where(use_s, ms_s, 0.0),
                    np.where(use_t, ms_t, 0.0),
                    (1.0 - use_s - use_t) * ms_e,
                ],
                axis=0,
            )
            / scale
        )
        dfs = np.stack([n_s - 1, n_t - 1, (n_s - 1) * (n_t - 1)], axis=0)
        variance = terms.sum(axis=0)
        df = variance**2 / np.sum(np.where(terms != 0, terms**2 / dfs, 0.0), axis=0)
    usable = (n_s >= 2) & (n_t >= 2)
    return grand, np.where(usable, variance, np.nan), np.where(usable, np.maximum(df, 1.0), np.nan)


def t_inference(
    estimate, variance, df, confidence: float = 0.95
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(standard error, two-sided p-value against 0, (lo, hi) interval) from a t reference.

    The package's one zero-variance policy: no variation at all (variance exactly 0, a finite
    estimate: every unit gives the same value) is stderr 0, the interval [estimate, estimate] and
    p 1 for an estimate of 0, else 0 (the value does not depend on which units were drawn); NaN
    where the variance or df is not finite."""
    estimate, variance, df = (np.asarray(a, dtype=float) for a in (estimate, variance, df))
    stderr = np.sqrt(variance)
    usable = np.isfinite(stderr) & (stderr > 0) & np.isfinite(df)
    constant = (variance == 0) & np.isfinite(estimate)
    safe_df = np.where(usable, df, 1.0)
    with np.errstate(invalid="ignore", divide="ignore"):
        t = estimate / stderr
    p = np.where(usable, 2.0 * stats.t.sf(np.abs(np.where(usable, t, 0.0)), safe_df), np.nan)
    half = stats.t.ppf(0.5 + confidence / 2.0, safe_df) * np.where(usable, stderr, np.nan)
    half = np.where(constant, 0.0, half)
    return (
        np.where(usable | constant, stderr, np.nan),
        np.where(constant, np.where(estimate == 0, 1.0, 0.0), p),
        np.stack([estimate - half, estimate + half], axis=-1),
    )


def holm(p_values) -> np.ndarray:
    """Holm-adjusted p-values (family: the finite entries); NaN stays NaN."""
    p = np.asarray(p_values, dtype=float)
    adjusted = np.full_like(p, np.nan)
    finite = np.flatnonzero(np.isfinite(p))
    order = finite[np.argsort(p[finite], kind="stable")]
    m = len(order)
    running = 0.0
    for rank, index in enumerate(order):
        running = max(running, min(1.0, (m - rank) * p[index]))
        adjusted[index] = running
    return adjusted


def two_way_clustered(
    contributions: np.ndarray, stimulus_group_sizes: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """(variance, Satterthwaite df) of linear statistics from their per-cell contributions
    (..., T, S): each cell's weight times its residual from its group's mean, templates crossed
    with stimuli, stimuli nested in groups (instruments) of `stimulus_group_sizes` (S,) stimuli.

    The multiway-clustering estimator (Cameron, Gelbach & Miller 2011) as variance components:
    V_T sums the template totals squared (x T / (T - 1)), V_S the stimulus totals (x S_g / (S_g - 1):
    one mean per group is estimated), V_E the cells; the template component is V_T - V_E, the
    stimulus one V_S - V_E, each truncated at 0, and the variance is their sum plus V_E. Resampling
    templates and stimuli at once (the pigeonhole bootstrap) counts the cell residual about three
    times: 1.7-1.8x the true sd of a paired change on stimulus designs, where the shared template
    and stimulus effects cancel and that residual is nearly all there is. NaN contributions count 0."""
    u = np.where(np.isfinite(contributions), contributions, 0.0)
    n_templates, n_stimuli = u.shape[-2:]
    sizes = np.asarray(stimulus_group_sizes, dtype=float)
    stimulus_factor = np.where(sizes > 1, sizes / np.maximum(sizes - 1, 1), 1.0)
    v_t = n_templates / max(n_templates - 1, 1) * np.sum(u.sum(axis=-1) ** 2, axis=-1)
    v_s = np.sum(stimulus_factor * u.sum(axis=-2) ** 2, axis=-1)
    v_e = np.sum(u**2, axis=(-2, -1))
    template_part, stimulus_part = np.maximum(v_t - v_e, 0.0), np.maximum(v_s - v_e, 0.0)
    variance = template_part + stimulus_part + v_e
    n_groups = int(round(np.sum(1.0 / sizes)))
    df_t, df_s = max(n_templates - 1, 1), max(n_stimuli - n_groups, 1)
    with np.errstate(invalid="ignore", divide="ignore"):
        df = variance**2 / (
            template_part**2 / df_t + stimulus_part**2 / df_s + v_e**2 / (df_t * df_s)
        )
    return variance, np.where(variance > 0, df, np.nan)
