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

Percentile intervals come from a bootstrap of templates (and of stimuli within their instrument,
when an instrument has several), the table's rows and columns resampled and the estimator run on
each replicate: a rough interval (a variance's bootstrap distribution is skewed and the duplicated
units of a replicate bias it), reported as such. Only replicates that split the variance as the
point estimate does count (one that leaves out the only cells with two docs cannot separate
template x instrument from the residual); with fewer than half of them, no interval (NaN).
"""

from __future__ import annotations

import numpy as np

from symphony_bench.metrics.association_data import AssociationData
from symphony_bench.metrics.constants import BOOTSTRAP_SEED

COMPONENTS = ("instrument", "template", "template_x_instrument", "stimulus", "residual")
N_BOOTSTRAP_COMPONENTS = 400
_FILL_ITERATIONS = 50


def variance_components(
    data: AssociationData,
    n_boot: int = N_BOOTSTRAP_COMPONENTS,
    seed: int = BOOTSTRAP_SEED,
    confidence: float = 0.95,
) -> dict:
    """{"components": {name: {"share", "ci", "variance"}}, "separable": bool, "n_docs": int} for
    the valid docs of `data` (shares in [0, 1] summing to 1; names in COMPONENTS, `stimulus` only
    where an instrument has two or more stimuli). Empty components when fewer than two templates
    or instruments have a valid doc."""
    table = CellTable.of(data)
    point = table.components()
    if point is None:
        return {"components": {}, "separable": False, "n_docs": int(data.valid.sum())}
    rng = np.random.default_rng(seed)
    replicates = [table.resampled(rng).components() for _ in range(n_boot)]
    replicates = [r for r in replicates if r is not None and r["separable"] == point["separable"]]
    alpha = (1.0 - confidence) / 2.0
    components = {}
    for name, variance in point["variances"].items():
        shares = np.array([r["shares"][name] for r in replicates])
        ci = (
            [float(np.quantile(shares, alpha)), float(np.quantile(shares, 1.0 - alpha))]
            if shares.size >= max(2, n_boot / 2)
            else [float("nan")] * 2
        )
        components[name] = {
            "share": point["shares"][name],
            "ci": ci,
            "variance": variance,
        }
    return {
        "components": components,
        "separable": point["separable"],
        "n_docs": int(data.valid.sum()),
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

    def resampled(self, rng: np.random.Generator) -> CellTable:
        """Templates resampled, and each instrument's stimuli among themselves when it has several."""
        rows = rng.integers(0, self.sums.shape[0], self.sums.shape[0])
        columns = np.arange(self.sums.shape[1])
        for instrument in range(self.n_instruments):
            own = np.flatnonzero(self.stimulus_instrument == instrument)
            if own.size >= 2:
                columns[own] = rng.choice(own, own.size)
        pick = np.ix_(rows, columns)
        return CellTable(
            self.sums[pick],
            self.counts[pick],
            self.within[pick],
            self.stimulus_instrument,
            self.n_instruments,
        )

    def components(self) -> dict | None:
        filled = self.counts > 0
        used = self.stimulus_instrument[filled.any(axis=0)]
        if filled.any(axis=1).sum() < 2 or np.unique(used).size < 2:
            return None
        means = _filled_means(self.sums, self.counts, filled)
        n_cells_missing = int((~filled).sum())
        within_df = float(np.sum(np.maximum(self.counts - 1, 0)))
        doc_variance = float(self.within.sum() / within_df) if within_df > 0 else float("nan")
        cell_size = float(filled.sum() / np.sum(1.0 / self.counts[filled]))  # harmonic mean
        stimuli_per_instrument = np.bincount(self.stimulus_instrument, minlength=self.n_instruments)
        identified = np.isfinite(doc_variance)  # two docs in some cell: the doc residual apart
        doc_noise = doc_variance / cell_size if identified else 0.0  # its part of a cell mean's
        if np.all(stimuli_per_instrument <= 1):
            variances = _without_stimuli(means, self.stimulus_instrument, n_cells_missing)
            cell_noise = variances.pop("cell_noise")  # template x instrument + doc noise
            if identified:
                variances["template_x_instrument"] = cell_noise - doc_noise
                variances["residual"] = doc_variance
            else:
                variances["residual"] = cell_noise
            separable = bool(identified)
        else:
            variances = _with_stimuli(means, self.stimulus_instrument, n_cells_missing)
            cell_noise = variances.pop("cell_noise")  # template x stimulus + doc noise
            variances["residual"] = (
                max(cell_noise - doc_noise, 0.0) + doc_variance if identified else cell_noise
            )
            separable = True
        variances = {name: max(float(v), 0.0) for name, v in variances.items()}
        total = sum(variances.values())
        ordered = {name: variances[name] for name in COMPONENTS if name in variances}
        shares = {
            name: (value / total if total > 0 else float("nan")) for name, value in ordered.items()
        }
        return {"variances": ordered, "shares": shares, "separable": separable}


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


def _without_stimuli(means, stimulus_instrument, n_missing) -> dict[str, float]:
    """One stimulus per instrument: the table is templates x instruments. Expected mean squares:
    MS_TI = v + s_ti (v: the cell noise), MS_I = MS_TI + T s_i, MS_T = MS_TI + I s_t."""
    by_instrument = means[:, np.argsort(stimulus_instrument)]
    n_templates, n_instruments = by_instrument.shape
    row, column, grand = by_instrument.mean(1), by_instrument.mean(0), by_instrument.mean()
    residual = by_instrument - row[:, None] - column[None, :] + grand
    df_interaction = (n_templates - 1) * (n_instruments - 1) - n_missing
    ms_interaction = float(np.sum(residual**2) / df_interaction) if df_interaction > 0 else 0.0
    ms_instrument = n_templates * float(np.sum((column - grand) ** 2)) / (n_instruments - 1)
    ms_template = n_instruments * float(np.sum((row - grand) ** 2)) / (n_templates - 1)
    return {
        "instrument": (ms_instrument - ms_interaction) / n_templates,
        "template": (ms_template - ms_interaction) / n_instruments,
        "cell_noise": ms_interaction,
    }


def _with_stimuli(means, stimulus_instrument, n_missing) -> dict[str, float]:
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
    ms_ts = float(np.sum(ts**2) / df_ts) if df_ts > 0 else 0.0
    ti = template_instrument - template_mean[:, None] - instrument_mean[None, :] + grand
    ms_ti = k * float(np.sum(ti**2)) / ((n_templates - 1) * (n_instruments - 1))
    ms_s = (
        n_templates
        * float(np.sum((stimulus_mean - instrument_mean[of_stimulus]) ** 2))
        / float(np.sum(per_instrument - 1))
    )
    ms_i = n_templates * k * float(np.sum((instrument_mean - grand) ** 2)) / (n_instruments - 1)
    ms_t = n_instruments * k * float(np.sum((template_mean - grand) ** 2)) / (n_templates - 1)
    return {
        "instrument": (ms_i - ms_ti - ms_s + ms_ts) / (n_templates * k),
        "template": (ms_t - ms_ti) / (n_instruments * k),
        "template_x_instrument": (ms_ti - ms_ts) / k,
        "stimulus": (ms_s - ms_ts) / n_templates,
        "cell_noise": ms_ts,
    }
