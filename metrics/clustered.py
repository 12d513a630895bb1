"""Inference on the design's top-level units, per instrument and vectorised across instruments.

Docs are averaged into cells first: (template, stimulus) cells, where the stimulus is nested in the
instrument (a clip or image; for the text and named conditions the instrument is its own single
stimulus) and templates are crossed with instruments. An instrument's estimate is the mean of its
cells, and its variance comes from the variation between those cells:

    one stimulus      one-way over templates: var = s^2(template means) / T, df = T - 1
    2+ stimuli        crossed random effects (stimulus x template), method of moments:
                      var = MS_s / (S T) + max(MS_t - MS_e, 0) / (S T)
                          (= sigma_s^2 / S + sigma_e^2 / (S T) + sigma_t^2 / T in expectation),
                      Satterthwaite df evaluated at the few-df mean squares' 95% upper limits
                      (`two_way` says why)

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


# the df of a crossed test is Satterthwaite's, evaluated with a mean square of few df at the upper
# limit of this one-sided confidence interval for its expectation (see two_way)
DF_CONFIDENCE = 0.95


def two_way(cells: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(estimate, variance, df) per instrument of `cells` (I, S, T): stimuli x templates, NaN where
    a cell is empty or the instrument has fewer stimuli.

    Variance: MS_s / (S T) + max(MS_t - MS_e, 0) / (S T). The stimulus mean square alone estimates
    the stimulus and residual parts (sigma_s^2 / S + sigma_e^2 / (S T)) without bias and is kept
    whole: with S - 1 = 2-5 df "sigma_s^2 estimated <= 0" says little, and truncating it there (as
    before: the variance became MS_t / (S T) with T - 1 df) dropped the largest part of the variance
    exactly in the runs whose clips came out alike by chance; with 86 templates x 5 clips those 1.5 %
    of instruments rejected at p < .05 in 43 % of null runs. The template part has T - 1 df (85 on
    the full designs) and is truncated at 0.

    df: Satterthwaite's df with every mean square at its estimate is too large exactly when the
    few-df stimulus mean square comes out small, which is when t is too large: the p-values' tail
    was too heavy (simulated null, 86 templates x 5 clips: p < .05/22 2.9x, p < .001 4.5x nominal,
    Holm's family-wise error over 22 instruments 13.6 %; with 3 clips 40 %), and still 2.8x at
    .05/22 once the stimulus part was no longer truncated. So the df is evaluated where that mean
    square could be: with the stimulus mean square at the upper limit of its one-sided
    `DF_CONFIDENCE` confidence interval, MS_s (S - 1) / chi2_{S-1}(.05), and, in turn, with the
    template mean square at its own; the smaller df is used (the template one binds only when
    templates are few, as on the 5-template mini design). A conservative df in the spirit of the
    minimum-df rule, which it approaches when the stimulus part dominates, without its cost when
    templates carry the variance; the variance itself is not changed by it. Simulated
    (tests/metrics/test_instrument_tails.py; and 2-8 clips x 5-86 templates with clip, template,
    template x instrument and template x clip effects): the rates at .05, .05/22 and .001 and Holm's
    family-wise error are about nominal or below (86 x 5: 4.3 % at .05, 0.85x at .05/22, Holm 4.1 %;
    the worst cells: 5 templates carrying all the variance, 1.2x at .05/22 and Holm 5.5 %, and 2 clips,
    1 df, 1.6x at .001), conservative where a few clips cannot tell the clip component from 0 (1-4 %
    at .05 with no clip effect, the fewer clips the lower) and on 5 templates (2.6-4.8 %). The 90 % and
    80 % limits let the tail through again (Holm's error at 3 clips 6.2 % and 10.4 %, at 5 clips
    5.2 % and 7.1 %)."""
    present = np.isfinite(cells)
    n_s = present.any(axis=2).sum(axis=1).astype(float)
    n_t = present.any(axis=1).sum(axis=1).astype(float)
    grand = finite_mean(cells, axis=(1, 2))
    rows, columns = finite_mean(cells, axis=2), finite_mean(cells, axis=1)
    residual = cells - rows[:, :, None] - columns[:, None, :] + grand[:, None, None]
    df_s, df_t = n_s - 1, n_t - 1
    df_e = df_s * df_t
    with np.errstate(invalid="ignore", divide="ignore"):
        scale = n_s * n_t
        stimulus = n_t * np.nansum((rows - grand[:, None]) ** 2, axis=1) / df_s / scale
        template = n_s * np.nansum((columns - grand[:, None]) ** 2, axis=1) / df_t / scale
        error = np.nansum(residual**2, axis=(1, 2)) / df_e / scale
        used = template > error  # the variance has a template part
        variance = stimulus + np.where(used, template - error, 0.0)
        upper_s, upper_t = (
            d / stats.chi2.ppf(1.0 - DF_CONFIDENCE, np.maximum(d, 1.0)) for d in (df_s, df_t)
        )
        terms = (df_s, df_t, df_e, used)
        df = np.minimum(
            _satterthwaite(upper_s * stimulus, template, error, *terms),
            _satterthwaite(stimulus, upper_t * template, error, *terms),
        )
    usable = (n_s >= 2) & (n_t >= 2)
    return grand, np.where(usable, variance, np.nan), np.where(usable, np.maximum(df, 1.0), np.nan)


def _satterthwaite(stimulus, template, error, df_s, df_t, df_e, used) -> np.ndarray:
    """Satterthwaite's df of stimulus + (template - error if `used`), each a scaled mean square."""
    variance = stimulus + np.where(used, np.maximum(template - error, 0.0), 0.0)
    spread = stimulus**2 / df_s + np.where(used, template**2 / df_t + error**2 / df_e, 0.0)
    return variance**2 / spread


def t_inference(
    estimate, variance, df, confidence: float = 0.95
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(standard error, two-sided p-value against 0, (lo, hi) interval) from a t reference.

    The package's one zero-variance policy: no variation at all (variance exactly 0, a finite
    estimate: every unit gives the same value) is stderr 0 and, for an estimate of 0, p 1 and the
    interval [0, 0]. For another estimate the test is the exact sign test of df + 1 units that all
    agree, p = 2^-df (a t test is undefined there; 0 where df is not finite): five templates whose
    one-doc cells all read "male" give p 0.0625, not 0 (binary answers on a small design agree by
    chance often: tests/metrics/test_open_protocol_inference.py). The interval is [estimate,
    estimate] where that p is below 1 - confidence, else it reaches 0, so it still excludes 0
    exactly when p < 1 - confidence. NaN where the variance or df is not finite."""
    estimate, variance, df = (np.asarray(a, dtype=float) for a in (estimate, variance, df))
    stderr = np.sqrt(variance)
    usable = np.isfinite(stderr) & (stderr > 0) & np.isfinite(df)
    constant = (variance == 0) & np.isfinite(estimate)
    safe_df = np.where(usable, df, 1.0)
    with np.errstate(invalid="ignore", divide="ignore"):
        t = estimate / stderr
    p = np.where(usable, 2.0 * stats.t.sf(np.abs(np.where(usable, t, 0.0)), safe_df), np.nan)
    half = stats.t.ppf(0.5 + confidence / 2.0, safe_df) * np.where(usable, stderr, np.nan)
    low, high = estimate - half, estimate + half
    sign_p = np.where(estimate == 0, 1.0, np.where(np.isfinite(df), np.minimum(1.0, 2.0**-df), 0.0))
    reaches_zero = sign_p >= 1.0 - confidence
    low = np.where(constant, np.where(reaches_zero, np.minimum(estimate, 0.0), estimate), low)
    high = np.where(constant, np.where(reaches_zero, np.maximum(estimate, 0.0), estimate), high)
    return (
        np.where(usable | constant, stderr, np.nan),
        np.where(constant, sign_p, p),
        np.stack([low, high], axis=-1),
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
    contributions: np.ndarray, stimulus_group_sizes: np.ndarray, df_confidence: float | None = None
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
    and stimulus effects cancel and that residual is nearly all there is. NaN contributions count 0.

    `df_confidence`: the df is also evaluated with the template part, and in turn the stimulus
    part, scaled to its one-sided upper confidence limit (df / chi2_df(1 - df_confidence)), and the
    smallest df is used, as `two_way` does: on five templates a template part that comes out small
    by chance otherwise makes both the variance and its df's weight small (non-binary GAS on the
    5 x 5 mini: coverage 93 %, a paired change's false positives 7-8.5 %; tests/metrics/
    test_small_designs.py). The variance is not changed by it."""
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

    def satterthwaite(template, stimulus):
        total = template + stimulus + v_e
        return total**2 / (template**2 / df_t + stimulus**2 / df_s + v_e**2 / (df_t * df_s))

    with np.errstate(invalid="ignore", divide="ignore"):
        df = satterthwaite(template_part, stimulus_part)
        if df_confidence is not None:
            upper_t, upper_s = (d / stats.chi2.ppf(1.0 - df_confidence, d) for d in (df_t, df_s))
            df = np.minimum(
                df,
                np.minimum(
                    satterthwaite(upper_t * template_part, stimulus_part),
                    satterthwaite(template_part, upper_s * stimulus_part),
                ),
            )
    return variance, np.where(variance > 0, df, np.nan)
