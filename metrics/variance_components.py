"""Where the association lives: the variance of the doc-level male - female share difference split
into instrument, template, template x instrument, stimulus (a clip or photo within its instrument)
and residual components.

Model, per valid doc d of template t and stimulus s (of instrument i):

    y_d = mu + a_i + b_t + ab_ti + c_s + ts_ts + e_d

with independent zero-mean components. The estimator is the ANOVA method of moments on the
(template, stimulus) table of cell means: each mean square's expectation is a known combination of
the components on a balanced table, the system is solved and negative estimates are set to 0. The
doc residual e comes from the pooled within-cell variance, so cell means of unequal size enter
through their harmonic mean size; cells without a valid doc are filled by the additive (template +
stimulus) fit and their degrees of freedom taken off the interaction. `residual` is e plus the
template x stimulus interaction, which the design cannot tell apart from it. With one stimulus per
instrument (the text tasks) there is no stimulus component; with one doc per cell (the mini
subsets) the template x instrument interaction is not separable from the residual and is reported
inside it (`separable` False).

Intervals are generalized confidence intervals (Weerahandi's generalized pivotal quantities, the
standard route for functions of variance components in a balanced random-effects ANOVA; Burdick,
Borror & Montgomery 2005, ch. 4-5): each mean square MS with df degrees of freedom is, under the
model, its expectation x chi2(df) / df, so its pivot is MS x df / chi2(df); `n_draws` draws of
every pivot go through the same solution as the point estimate (negative components set to 0) and
the interval is the 2.5 and 97.5 % points of each share. No unit is resampled: a bootstrap of the
table's rows and columns drew some of an instrument's 5 clips twice, which moved template x clip
variation into template x instrument, and its template x instrument and residual intervals excluded
their own point estimate in every simulated audio run (its coverage of the population shares:
10-85 % on the audio design, 29-78 % on the text design, where instruments were never resampled).
Simulated with normal template, instrument, template x instrument, clip and doc effects, 1,000 runs
per design (tests/metrics/test_variance_components.py, slow tier), these intervals cover each share
93.5-95.9 % of the time on the text (86 x 22, 3 docs per cell), mini (5 x 22), audio (86 x 22 x 5)
and mini audio (5 x 22 x 5) designs; a share whose population value is 0 is covered more often
(97-98 %: the interval then starts at 0). With missing cells or unequal cell sizes the chi-square
is an approximation.
The interval is widened to hold the point estimate should the pivots' percentiles leave it out
(never in those simulations: a guarantee, not a correction). The intervals are normal-theory: with
every effect drawn from a t(5) (heavy tails) they covered 85-91 %.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from symphony_bench.metrics.association_data import AssociationData
from symphony_bench.metrics.constants import BOOTSTRAP_SEED

COMPONENTS = ("instrument", "template", "template_x_instrument", "stimulus", "residual")
N_DRAWS = 4000
_FILL_ITERATIONS = 50


def variance_components(
    data: AssociationData,
    n_draws: int = N_DRAWS,
    seed: int = BOOTSTRAP_SEED,
    confidence: float = 0.95,
) -> dict:
    """{"components": {name: {"share", "ci", "variance"}}, "separable": bool, "n_docs": int} for
    the valid docs of `data` (shares in [0, 1] summing to 1; names in COMPONENTS, `stimulus` only
    where an instrument has two or more stimuli). Empty components when fewer than two templates
    or instruments have a valid doc."""
    fit = CellTable.of(data).mean_squares()
    if fit is None:
        return {"components": {}, "separable": False, "n_docs": int(data.valid.sum())}
    point = _truncated(fit.solve(fit.values))
    drawn = _truncated(fit.solve(fit.pivots(n_draws, np.random.default_rng(seed))))
    point_shares, drawn_shares = _shares(point), _shares(drawn)
    alpha = (1.0 - confidence) / 2.0
    components = {}
    for name, variance in point.items():
        share = float(point_shares[name])
        usable = drawn_shares[name][np.isfinite(drawn_shares[name])]
        if usable.size >= 2 and np.isfinite(share):
            low, high = np.quantile(usable, [alpha, 1.0 - alpha])
            ci = [float(min(low, share)), float(max(high, share))]
        else:
            ci = [float("nan")] * 2
        components[name] = {"share": share, "ci": ci, "variance": float(variance)}
    return {
        "components": components,
        "separable": fit.separable,
        "n_docs": int(data.valid.sum()),
    }


@dataclass(frozen=True)
class MeanSquares:
    """The table's mean squares ({name: value}), their degrees of freedom, and `solve`: mean
    squares (floats or arrays of draws) -> the components, in COMPONENTS order, before truncation."""

    values: dict[str, float]
    df: dict[str, float]
    solve: Callable[[dict], dict]
    separable: bool

    def pivots(self, n_draws: int, rng: np.random.Generator) -> dict[str, np.ndarray]:
        """`n_draws` generalized pivots MS x df / chi2(df) per mean square (a mean square without
        degrees of freedom, 0 by construction, stays as it is)."""
        return {
            name: (
                value * self.df[name] / rng.chisquare(self.df[name], n_draws)
                if self.df[name] > 0
                else np.full(n_draws, value)
            )
            for name, value in self.values.items()
        }


def _truncated(variances: dict) -> dict:
    return {
        name: np.maximum(np.asarray(value, dtype=float), 0.0) for name, value in variances.items()
    }


def _shares(variances: dict) -> dict:
    total = sum(variances.values())
    with np.errstate(invalid="ignore", divide="ignore"):
        return {
            name: np.where(total > 0, value / total, np.nan) for name, value in variances.items()
        }


class CellTable:
    """The (template, stimulus) table: sums, doc counts and within-cell sums of squares of y."""

    def __init__(self, sums, counts, within, stimulus_instrument, n_instruments):
        self.sums, self.counts, self.within = sums, counts, within
        self.stimulus_instrument = stimulus_instrument
        self.n_instruments = n_instruments

    @classmethod
    def of(cls, data: AssociationData) -> CellTable:
        valid = data.valid
        y = data.shares[valid, 0] - data.shares[valid, 1]
        shape = (data.n_templates, data.n_stimuli)
        cell = data.template_codes[valid] * data.n_stimuli + data.stimulus_codes[valid]
        size = shape[0] * shape[1]
        counts = np.bincount(cell, minlength=size).astype(float)
        sums = np.bincount(cell, weights=y, minlength=size)
        squares = np.bincount(cell, weights=y * y, minlength=size)
        with np.errstate(invalid="ignore", divide="ignore"):
            within = np.where(counts > 0, squares - sums**2 / counts, 0.0)
        return cls(
            sums.reshape(shape),
            counts.reshape(shape),
            np.maximum(within, 0.0).reshape(shape),
            np.asarray(data.stimulus_instrument),
            len(data.instruments),
        )

    def mean_squares(self) -> MeanSquares | None:
        filled = self.counts > 0
        used = self.stimulus_instrument[filled.any(axis=0)]
        if filled.any(axis=1).sum() < 2 or np.unique(used).size < 2:
            return None
        means = _filled_means(self.sums, self.counts, filled)
        n_cells_missing = int((~filled).sum())
        within_df = float(np.sum(np.maximum(self.counts - 1, 0)))
        identified = within_df > 0  # two docs in some cell: the doc residual apart
        cell_size = float(filled.sum() / np.sum(1.0 / self.counts[filled]))  # harmonic mean
        stimuli_per_instrument = np.bincount(self.stimulus_instrument, minlength=self.n_instruments)
        if np.all(stimuli_per_instrument <= 1):
            values, df, solve = _without_stimuli(means, self.stimulus_instrument, n_cells_missing)
        else:
            values, df, solve = _with_stimuli(means, self.stimulus_instrument, n_cells_missing)
        if identified:
            values["within"], df["within"] = float(self.within.sum() / within_df), within_df
        crossed = not np.all(stimuli_per_instrument <= 1)

        def solved(ms: dict) -> dict:
            variances = solve(ms)
            cell_noise = variances.pop("cell_noise")  # template x stimulus (or instrument) + docs
            if not identified:
                variances["residual"] = cell_noise
            elif crossed:
                doc_noise = ms["within"] / cell_size  # the docs' part of a cell mean's variance
                variances["residual"] = np.maximum(cell_noise - doc_noise, 0.0) + ms["within"]
            else:
                variances["template_x_instrument"] = cell_noise - ms["within"] / cell_size
                variances["residual"] = ms["within"]
            return {name: variances[name] for name in COMPONENTS if name in variances}

        return MeanSquares(values, df, solved, separable=bool(identified or crossed))


def _filled_means(sums, counts, filled) -> np.ndarray:
    """Cell means, the empty cells filled by the additive template + stimulus fit (iterated)."""
    with np.errstate(invalid="ignore", divide="ignore"):
        means = np.where(filled, sums / counts, np.nan)
    grand = np.nanmean(means)
    means = np.where(filled, means, grand)
    if filled.all():
        return means
    for _ in range(_FILL_ITERATIONS):
        rows = means.mean(axis=1, keepdims=True)
        columns = means.mean(axis=0, keepdims=True)
        means = np.where(filled, means, rows + columns - means.mean())
    return means


def _without_stimuli(means, stimulus_instrument, n_missing):
    """One stimulus per instrument: the table is templates x instruments. Expected mean squares:
    MS_TI = v + s_ti (v: the cell noise), MS_I = MS_TI + T s_i, MS_T = MS_TI + I s_t."""
    by_instrument = means[:, np.argsort(stimulus_instrument)]
    n_templates, n_instruments = by_instrument.shape
    row, column, grand = by_instrument.mean(1), by_instrument.mean(0), by_instrument.mean()
    residual = by_instrument - row[:, None] - column[None, :] + grand
    df_interaction = (n_templates - 1) * (n_instruments - 1) - n_missing
    values = {
        "instrument": n_templates * float(np.sum((column - grand) ** 2)) / (n_instruments - 1),
        "template": n_instruments * float(np.sum((row - grand) ** 2)) / (n_templates - 1),
        "interaction": float(np.sum(residual**2) / df_interaction) if df_interaction > 0 else 0.0,
    }
    df = {
        "instrument": n_instruments - 1.0,
        "template": n_templates - 1.0,
        "interaction": float(max(df_interaction, 0)),
    }

    def solve(ms: dict) -> dict:
        return {
            "instrument": (ms["instrument"] - ms["interaction"]) / n_templates,
            "template": (ms["template"] - ms["interaction"]) / n_instruments,
            "cell_noise": ms["interaction"],
        }

    return values, df, solve


def _with_stimuli(means, stimulus_instrument, n_missing):
    """Stimuli nested in instruments (K per instrument on average), crossed with templates. On the
    cell means (v: template x stimulus + doc noise): MS_TS = v, MS_TI = v + K s_ti,
    MS_S = v + T s_s, MS_I = v + K s_ti + T s_s + T K s_i, MS_T = v + K s_ti + I K s_t."""
    n_templates = means.shape[0]
    instruments = np.unique(stimulus_instrument)
    n_instruments = instruments.size
    membership = (stimulus_instrument[:, None] == instruments[None, :]).astype(float)  # (S, I)
    per_instrument = membership.sum(axis=0)
    k = float(per_instrument.mean())
    template_instrument = means @ membership / per_instrument  # (T, I)
    stimulus_mean = means.mean(axis=0)  # (S,)
    instrument_mean = template_instrument.mean(axis=0)  # (I,)
    template_mean = template_instrument.mean(axis=1)  # (T,), instruments weighted alike
    grand = float(instrument_mean.mean())
    of_stimulus = membership.argmax(axis=1)
    ts = means - template_instrument[:, of_stimulus] - stimulus_mean + instrument_mean[of_stimulus]
    df_ts = (n_templates - 1) * float(np.sum(per_instrument - 1)) - n_missing
    ti = template_instrument - template_mean[:, None] - instrument_mean[None, :] + grand
    df = {
        "instrument": n_instruments - 1.0,
        "template": n_templates - 1.0,
        "template_x_instrument": (n_templates - 1.0) * (n_instruments - 1.0),
        "stimulus": float(np.sum(per_instrument - 1)),
        "interaction": float(max(df_ts, 0)),
    }
    values = {
        "instrument": n_templates
        * k
        * float(np.sum((instrument_mean - grand) ** 2))
        / df["instrument"],
        "template": n_instruments
        * k
        * float(np.sum((template_mean - grand) ** 2))
        / df["template"],
        "template_x_instrument": k * float(np.sum(ti**2)) / df["template_x_instrument"],
        "stimulus": n_templates
        * float(np.sum((stimulus_mean - instrument_mean[of_stimulus]) ** 2))
        / df["stimulus"],
        "interaction": float(np.sum(ts**2) / df_ts) if df_ts > 0 else 0.0,
    }

    def solve(ms: dict) -> dict:
        return {
            "instrument": (
                ms["instrument"] - ms["template_x_instrument"] - ms["stimulus"] + ms["interaction"]
            )
            / (n_templates * k),
            "template": (ms["template"] - ms["template_x_instrument"]) / (n_instruments * k),
            "template_x_instrument": (ms["template_x_instrument"] - ms["interaction"]) / k,
            "stimulus": (ms["stimulus"] - ms["interaction"]) / n_templates,
            "cell_noise": ms["interaction"],
        }

    return values, df, solve
