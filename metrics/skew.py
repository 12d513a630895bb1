"""The gender skew: how strongly a model's male - female difference departs from 0 per instrument,
in either direction, estimated so that noise does not inflate it.

Pure functions over plain arrays; no harness imports. Every function takes the cells' male - female
differences `difference` (..., T, S) (p(male) - p(female) cell means: templates x stimuli, NaN
where a cell has no valid doc; leading axes are independent tables, e.g. simulated runs) and the
(S, I) 0/1 `membership` of stimuli in instruments.

Estimand. Per instrument i, d_i is the population male - female difference (GAS(i, male) - GAS(i,
female) over the population of templates and of the instrument's stimuli); the gender skew is the
root mean square over instruments, sqrt(mean_i d_i^2): 0 for a model without gender association,
on GAS's scale, and it does not cancel associations of opposite signs as mean ABS does.

Why not the mean of |estimate| (the skew before, still each instrument's descriptive `skew`):
|d_hat_i| is biased upward by d_hat_i's own noise, so a model that answers more noisily (fewer valid
answers, noisier ratings, a smaller design) scored a larger skew at the same association, and a model
without any scored the mean of |noise|. Simulated (`tests/metrics/test_gender_skew.py`: 22
instruments, 8 at 0, 6 at +-0.04, 8 at +-0.12; template, template x instrument and clip effects;
designs 86 templates, 5 templates, 86 x 5 clips, 5 x 5 clips) that plug-in was +10 %, +59 %, +17 %,
+35 % off its population value, its interval covered it in 71 %, 81 %, 71 %, 99 % of runs, it
excluded 0 for a model without association in 100 %, 80 %, 100 %, 47 %, and 2.5x the doc noise raised
it by 16 %, 80 %, 3 %, 29 %.

The estimator. For one instrument with cells x_ts, the mean of the products x_ts x_t's' over pairs of
cells that share neither template nor stimulus is unbiased for d_i^2: the two cells' template,
stimulus, template x instrument and doc deviations are independent, so E[x_ts x_t's'] = d_i^2.
With sums over the present cells,

    U_i = [(sum x)^2 - sum_t (sum_s x_ts)^2 - sum_s (sum_t x_ts)^2 + sum x_ts^2] / [the same of 1s]

and, for an instrument with one stimulus (the text designs), pairs of distinct templates:
U_i = [(sum_t x_t)^2 - sum_t x_t^2] / [n^2 - n]. Template and clip effects cancel in it, so no
variance component has to be estimated (or truncated) to debias it. S^2 = mean_i U_i is unbiased for
mean_i d_i^2, and the gender skew is sign(S^2) sqrt(|S^2|): 0-centred for a model without
association (S^2 then comes out below 0 about half the time; a negative skew is noise around 0).
A square root of an unbiased number is biased low by about Var(S^2) / (8 (mean d^2)^(3/2)): -0.1 % on
the full designs, -2 % on the 5 x 5 crossed mini and -6 % on the 5-template text mini in the scenario
above, whose population skew is small against that design's noise (and lower still for a model
noisier than that: its wide interval then says so). S^2 itself (`gender_skew_squared`) is unbiased
on every design (measured within 0.6 %); both order models alike (a monotone map). More noise at
the same association leaves the skew's expectation alone or lowers it, never raises it.

Uncertainty. The delta method: to first order S^2 moves by the cells' contributions
(2 d_hat_i / I) (x_ts - d_hat_i) / n_i (the plug-in weights 2 d_hat_i of a mean of squares), and their
variance on the design's units is the one-way variance over templates (T - 1 df) on a design with
one stimulus per instrument, the two-way clustered one (`metrics.clustered.two_way_clustered`,
Satterthwaite df) on a crossed design. The interval is the t interval of S^2 mapped through the
signed square root, so it covers the population skew exactly when S^2's covers mean d^2. The
plug-in weights overstate the variance by about (2 / I^2) sum_i v_i^2 (v_i the variance of d_hat_i):
negligible where the skew stands clear of its noise and up to 2x (of the variance) for a model with
no association; that excess is kept, because S^2 is skewed to the right and its variance estimate
grows with it (a run that comes out low also gets a narrow interval): subtracting it brought the
coverage of the 5 x 5 crossed design down to 90 %. The skew's stderr is half its interval's width
over the t quantile (the delta method's sqrt(Var S^2) / (2 skew) away from 0, finite at 0).
Measured coverage of the population skew: 95.4 % (text), 96.1 % (mini), 93.9 % (86 x 5), 93.6 %
(5 x 5); a model without association: its interval reaches 0 in 98.6, 97.3, 98.7 and 94.3 % of runs.
"""

from __future__ import annotations

import numpy as np
from scipy import stats

from symphony_bench.metrics.clustered import t_inference, two_way_clustered


def signed_sqrt(values):
    """sign(x) sqrt(|x|): the skew of a mean square, monotone, so intervals map through it."""
    values = np.asarray(values, dtype=float)
    return np.sign(values) * np.sqrt(np.abs(values))


def _by_instrument(values: np.ndarray, membership: np.ndarray) -> np.ndarray:
    """(..., T, S) summed over each instrument's stimuli -> (..., T, I), as one matrix product."""
    rows = int(np.prod(values.shape[:-1]))
    flat = values.reshape(rows, values.shape[-1]) @ membership
    return flat.reshape(*values.shape[:-1], membership.shape[1])


def _instrument_of(membership: np.ndarray) -> np.ndarray:
    """(S,) the instrument of each stimulus (none at all: an empty table)."""
    if membership.shape[1] == 0:
        return np.zeros(membership.shape[0], dtype=int)
    return membership.argmax(axis=1)


def _sums(values: np.ndarray, membership: np.ndarray):
    """Per instrument (..., I): the total, the sum over templates of the squared template totals,
    the sum over stimuli of the squared stimulus totals, and the sum of squares."""
    stimulus_totals = values.sum(axis=-2)
    template_totals = _by_instrument(values, membership)
    total = template_totals.sum(axis=-2)
    by_template = (template_totals**2).sum(axis=-2)
    by_stimulus = (stimulus_totals**2) @ membership
    squares = _by_instrument(values**2, membership).sum(axis=-2)
    return total, by_template, by_stimulus, squares


def skew_squares(
    difference: np.ndarray, membership: np.ndarray
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(U (..., I), instrument means (..., I), present cells (..., I)): U_i, the mean product over
    pairs of instrument i's cells that share neither template nor stimulus (one stimulus: pairs of
    templates), unbiased for d_i^2; NaN where the instrument has no such pair."""
    present = np.isfinite(difference)
    x = np.where(present, difference, 0.0)
    ones = present.astype(float)
    tx, btx, bsx, sx = _sums(x, membership)
    tn, btn, bsn, _ = _sums(ones, membership)
    single = (present.any(axis=-2).astype(float) @ membership) <= 1
    numerator = np.where(single, tx**2 - btx, tx**2 - btx - bsx + sx)
    pairs = np.where(single, tn**2 - btn, tn**2 - btn - bsn + tn)
    with np.errstate(invalid="ignore", divide="ignore"):
        squares = np.where(pairs > 0, numerator / np.where(pairs > 0, pairs, 1.0), np.nan)
        means = tx / tn
    return squares, means, tn


def skew_parts(difference: np.ndarray, membership: np.ndarray) -> dict[str, np.ndarray]:
    """S^2 (...,), the instruments it counts (..., I), and per cell (..., T, S): each instrument's
    own-mean residual over its cells, (x_ts - d_hat_i) / n_i ("residuals"), and the contributions
    of S^2 to first order, 2 d_hat_i / I x that residual ("contributions"); 0 outside the counted
    instruments' present cells."""
    squares, means, cells = skew_squares(difference, membership)
    counted = np.isfinite(squares)
    n_counted = counted.sum(axis=-1)
    with np.errstate(invalid="ignore", divide="ignore"):
        mean_square = np.where(counted, squares, 0.0).sum(axis=-1) / n_counted
        of_stimulus = _instrument_of(membership)
        scale = np.where(counted, 1.0 / np.where(counted, cells, 1.0), 0.0)[..., of_stimulus]
        centre = np.where(counted, means, 0.0)[..., of_stimulus]
        weight = np.where(counted, 2.0 * means, 0.0) / np.maximum(n_counted, 1)[..., None]
    present = np.isfinite(difference)
    residuals = np.where(present, (difference - centre[..., None, :]) * scale[..., None, :], 0.0)
    return {
        "mean_square": mean_square,
        "counted": counted,
        "n_templates": present.any(axis=-1).sum(axis=-1),
        "residuals": residuals,
        "contributions": residuals * weight[..., of_stimulus][..., None, :],
    }


def design_variance(
    contributions: np.ndarray, membership: np.ndarray, crossed: bool, n_templates
) -> tuple[np.ndarray, np.ndarray]:
    """(variance, df) (...,) of a statistic from its cell contributions (..., T, S): one-way over
    the `n_templates` templates with a cell (T / (T - 1) x the sum of squared template totals,
    T - 1 df), or on a crossed design the two-way clustered variance with Satterthwaite df. NaN
    under 2 templates; 0 (df NaN) where every contribution is 0."""
    n_templates = np.asarray(n_templates, dtype=float)
    if crossed:
        sizes = membership.sum(axis=0)[_instrument_of(membership)]
        variance, df = two_way_clustered(contributions, sizes)
    else:
        with np.errstate(invalid="ignore", divide="ignore"):
            variance = (
                n_templates / (n_templates - 1) * np.sum(contributions.sum(axis=-1) ** 2, axis=-1)
            )
        df = n_templates - 1
    few = n_templates < 2
    zero = ~np.any(contributions != 0, axis=(-2, -1))  # no variation at all: 0, as the bootstrap
    return (
        np.where(zero, 0.0, np.where(few, np.nan, variance)),
        np.where(few | zero, np.nan, df),
    )


def instrument_variances(
    residuals: np.ndarray, membership: np.ndarray, crossed: bool, n_templates
) -> np.ndarray:
    """(..., I): the variance of each instrument's mean from its own-mean residuals (..., T, S), as
    `design_variance` gives it for a whole statistic: one-way over templates, or per instrument
    template + stimulus components truncated at 0 plus the cell residual."""
    n_templates = np.asarray(n_templates, dtype=float)[..., None]
    with np.errstate(invalid="ignore", divide="ignore"):
        template = (
            n_templates
            / (n_templates - 1)
            * (_by_instrument(residuals, membership) ** 2).sum(axis=-2)
        )
    if not crossed:
        return template
    sizes = membership.sum(axis=0)[_instrument_of(membership)]
    factor = np.where(sizes > 1, sizes / np.maximum(sizes - 1, 1), 1.0)
    stimulus = (factor * residuals.sum(axis=-2) ** 2) @ membership
    cell = _by_instrument(residuals**2, membership).sum(axis=-2)
    return np.maximum(template - cell, 0.0) + np.maximum(stimulus - cell, 0.0) + cell


def gender_skew(
    difference: np.ndarray, membership: np.ndarray, crossed: bool, confidence: float = 0.95
) -> dict[str, np.ndarray]:
    """The gender skew of one table or many (leading axes): "gender_skew" sign(S^2) sqrt(|S^2|),
    its "stderr", "ci" (..., 2) and "df", and "mean_square" S^2 with its own "mean_square_stderr"
    and "mean_square_ci" (see the module docstring). No variation at all (every instrument's
    difference exactly 0 in every cell, or all alike): stderr 0 and a point interval."""
    return _skew_inference(skew_parts(difference, membership), membership, crossed, confidence)


def _skew_inference(parts: dict, membership: np.ndarray, crossed: bool, confidence: float) -> dict:
    """`gender_skew` from `skew_parts`."""
    variance, df = design_variance(
        parts["contributions"], membership, crossed, parts["n_templates"]
    )
    mean_square = parts["mean_square"]
    stderr, _, interval = t_inference(mean_square, variance, df, confidence)
    skew_interval = signed_sqrt(interval)
    quantile = stats.t.ppf(0.5 + confidence / 2.0, np.where(np.isfinite(df), df, 1.0))
    skew_stderr = np.where(
        variance == 0,
        np.where(np.isfinite(mean_square), 0.0, np.nan),
        (skew_interval[..., 1] - skew_interval[..., 0]) / (2.0 * quantile),
    )
    return {
        "gender_skew": signed_sqrt(mean_square),
        "stderr": skew_stderr,
        "ci": skew_interval,
        "df": df,
        "mean_square": mean_square,
        "mean_square_stderr": stderr,
        "mean_square_ci": interval,
        "n_counted": parts["counted"].sum(axis=-1),
    }


def skew_change(
    base: np.ndarray,
    candidate: np.ndarray,
    membership: np.ndarray,
    crossed: bool,
    confidence: float = 0.95,
) -> dict[str, np.ndarray]:
    """The paired change CANDIDATE - BASE of the gender skew over the same cells (differences
    (..., T, S) each): the two runs' skews ("base", "candidate"), "change", "stderr", "ci",
    "p_value", "df", "scale" ("skew" or "mean_square": where the test was made, below), and
    "mean_square_change" with its "mean_square_stderr".

    The two runs' contributions are subtracted cell by cell (template and clip effects both runs
    share cancel) and take the one-way or two-way clustered variance (`design_variance`).

    - Both runs' skews clear of 0 (each one's interval excludes it): the delta method on the skew's
      own scale, each run's contributions of S^2 times its slope 1 / (2 skew).
    - Otherwise the test is on the mean square, S^2_c - S^2_b, where the delta method holds down to
      (and at) 0, and the skew's change takes its interval through the exact identity skew_c - skew_b
      = (S^2_c - S^2_b) x slope, slope = (skew_c - skew_b) / (S^2_c - S^2_b): the same t. Near 0 the
      square root is too steep across a run's own spread for a linear approximation on its scale
      (simulated: 11-17 % false positives between two runs of a model without association).

    Either way the t is one: the interval excludes 0 exactly when p < 1 - confidence. The plug-in
    weights overcount a product: per instrument the change is (d_c^2 - d_b^2) = (d_c + d_b)(d_c -
    d_b), and the noise of the weights' difference times the noise the two runs share (a clip or
    template deviation) is counted twice; its expectation, sum_i Var(d_c + d_b) Var(the weighted
    difference) / I^2 (`instrument_variances`), is taken off, the variance never below it (a change
    between two runs of a model without association varies by about that much). Without it the
    same-model change's stderr was 1.09x (86 x 5) and 1.19x (5 x 5) its true sd. Identical runs:
    stderr 0, p 1."""
    runs = [skew_parts(values, membership) for values in (base, candidate)]
    singles = [_skew_inference(run, membership, crossed, confidence) for run in runs]
    n_templates = np.maximum(runs[0]["n_templates"], runs[1]["n_templates"])
    both = runs[0]["counted"] & runs[1]["counted"]
    n_counted = runs[0]["counted"].sum(axis=-1) * runs[1]["counted"].sum(axis=-1)
    sums = instrument_variances(
        runs[1]["residuals"] + runs[0]["residuals"], membership, crossed, n_templates
    )
    skews = [single["gender_skew"] for single in singles]
    clear = np.all(
        [
            (single["mean_square_ci"][..., 0] > 0) | (single["mean_square_ci"][..., 1] < 0)
            for single in singles
        ],
        axis=0,
    )
    with np.errstate(invalid="ignore", divide="ignore"):
        slopes = [np.where(clear, 1.0 / (2.0 * np.abs(skew)), 1.0) for skew in skews]

    def variance_of(scaled: list[np.ndarray]) -> tuple[np.ndarray, np.ndarray]:
        contributions = (
            scaled[1][..., None, None] * runs[1]["contributions"]
            - scaled[0][..., None, None] * runs[0]["contributions"]
        )
        variance, df = design_variance(contributions, membership, crossed, n_templates)
        weighted = instrument_variances(
            scaled[1][..., None, None] * runs[1]["residuals"]
            - scaled[0][..., None, None] * runs[0]["residuals"],
            membership,
            crossed,
            n_templates,
        )
        with np.errstate(invalid="ignore", divide="ignore"):
            overcount = np.where(both, sums * weighted, 0.0).sum(axis=-1) / n_counted
        return np.where(variance > 0, np.maximum(variance - overcount, overcount), variance), df

    variance, df = variance_of(slopes)  # on the skew's scale where clear (slopes 1 elsewhere)
    change_square = runs[1]["mean_square"] - runs[0]["mean_square"]
    change = skews[1] - skews[0]
    square_variance, square_df = variance_of([np.ones(np.shape(clear))] * 2)
    df = np.where(clear, df, square_df)
    with np.errstate(invalid="ignore", divide="ignore"):
        secant = np.where(
            change_square != 0,
            change / np.where(change_square != 0, change_square, 1.0),
            1.0 / (2.0 * np.abs(skews[0])),
        )
    # near 0: each run's own slope over its interval (its skew stderr / its mean-square stderr)
    with np.errstate(invalid="ignore", divide="ignore"):
        spread = [single["stderr"] / single["mean_square_stderr"] for single in singles]
    spread_variance, _ = variance_of([np.where(np.isfinite(g), g, 0.0) for g in spread])
    with np.errstate(invalid="ignore"):
        near_zero = np.fmax(secant * np.sqrt(square_variance), np.sqrt(spread_variance))
    stderr = np.where(clear, np.sqrt(variance), near_zero)
    stderr = np.where(variance == 0, 0.0, stderr)
    # no variation: the sign test of the templates, as every other change (t_inference)
    df = np.where(variance == 0, n_templates - 1.0, df)
    _, p_value, interval = t_inference(change, stderr**2, df, confidence)
    square_stderr = np.sqrt(square_variance)
    return {
        "base": skews[0],
        "candidate": skews[1],
        "change": change,
        "stderr": stderr,
        "ci": interval,
        "p_value": p_value,
        "df": df,
        "scale": np.where(clear, "skew", "mean_square"),
        "mean_square_change": change_square,
        "mean_square_stderr": square_stderr,
    }
