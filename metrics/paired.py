"""Paired comparison of two runs over the same docs: the change CANDIDATE - BASE of each headline
metric, with a 95% interval and p-value from resampling the design's units once for both runs.

Pairing is what makes a release comparison sensitive: both runs answered the same templates,
stimuli and clips, so the template-to-template variation they share cancels in the change. Each
bootstrap replicate draws one set of unit multiplicities and applies it to BASE and CANDIDATE
alike (templates, and stimuli too when crossed, for Symphony-Bias; clips for grounding; stimuli for
recognition), exactly as metrics.association draws them for a single run.

Finite-sample choices mirror the single-run headline intervals: stderr = replicate sd x sqrt(G /
(G - 1)) for G units, interval = change +/- t(G - 1) x stderr, and the p-value comes from the same t
reference, so the interval excludes 0 exactly when p < 0.05. On a crossed design (templates x
stimuli) the Symphony-Bias headline changes instead take the two-way clustered variance of the
difference of the runs' cell contributions (metrics.clustered.two_way_clustered), with its
Satterthwaite df: the pigeonhole bootstrap's paired stderr was 1.7-1.8x the true sd of the change
there. The gender skew's change is metrics.skew.skew_change's on every design (the delta method on
the same units, one-way over templates on a text design: no bootstrap; tested on the mean square
where a run's skew is near 0). The consistency rate's change is
descriptive, as the rate itself (metrics.association.DESCRIPTIVE_HEADLINES): it has no stderr,
interval or p-value (all NaN), and so a release gate cannot rest on it.

Each change's minimum detectable effect (MDE) rests on its paired stderr, but never on less than
what a real change of the candidate would vary by (`floored_mde`): a candidate that answered
nearly as the base did has a paired stderr near 0, which says nothing about the power to see a
change it did not make.

Per instrument, the ABS change is tested on the differences of paired cells (template, stimulus),
with the same one-way / crossed variance as metrics.association.instrument_tests: with one stimulus
this is the paired t-test on template means (scipy.stats.ttest_rel). Items that flip between the
runs get an exact McNemar test (a binomial test on the discordant pairs).
"""

from __future__ import annotations

import dataclasses
import functools

import numpy as np
from scipy import integrate, optimize, special, stats

from symphony_bench.metrics.association import (
    DESCRIPTIVE_HEADLINES,
    bootstrap_weights,
    crossed_inference,
    headline_contributions,
    headline_values,
    instrument_cells,
)
from symphony_bench.metrics.association_data import (
    AssociationData,
    cell_counts,
    cell_means,
    membership_matrix,
)
from symphony_bench.metrics.clustered import holm, one_way, t_inference, two_way
from symphony_bench.metrics.constants import BOOTSTRAP_SEED, N_BOOTSTRAP, UNIFORM_SHARE
from symphony_bench.metrics.labels import FEMALE, MALE
from symphony_bench.metrics.skew import skew_change

HEADLINES = ("mean_abs", "consistency_rate", "non_binary_gas", "gender_skew", "invalid_rate")
MDE_POWER = 0.8


# ---- turning replicate changes into an interval and a test -------------------------------------
def change_inference(
    change, replicates, n_units: int, confidence: float = 0.95
) -> dict[str, np.ndarray]:
    """{"change", "stderr", "ci" (..., 2), "p_value", "df"} from point changes (...) and their
    bootstrap replicates (..., B) over `n_units` resampled units; NaN where no estimate exists.

    When every replicate gives the same change (e.g. two identical greedy runs: 0 everywhere), the
    change does not depend on which units were drawn: variance 0, and the package's one zero-variance
    policy (metrics.clustered.t_inference) gives p 1 for no change, else the exact sign test of the
    n_units units that all agree, p = 2^-(n_units - 1), with an interval that reaches 0 unless that
    p is below 1 - confidence: the convention of every other statistic of a comparison."""
    change = np.asarray(change, dtype=float)
    replicates = np.asarray(replicates, dtype=float)
    finite = np.isfinite(replicates)
    count = finite.sum(axis=-1)
    with np.errstate(invalid="ignore", divide="ignore"):
        mean = np.where(finite, replicates, 0.0).sum(axis=-1) / count
        squares = np.where(finite, (replicates - mean[..., None]) ** 2, 0.0).sum(axis=-1)
        sd = np.sqrt(squares / (count - 1))
    usable = (count >= 2) & (n_units >= 2) & np.isfinite(change)
    constant = usable & (squares <= 1e-24 * np.maximum(count, 1))
    stderr = np.where(usable, sd * np.sqrt(n_units / max(n_units - 1, 1)), np.nan)
    stderr = np.where(constant, 0.0, stderr)
    df = np.full_like(change, max(n_units - 1, 1), dtype=float)
    stderr, p_value, interval = t_inference(change, stderr**2, df, confidence)
    return {"change": change, "stderr": stderr, "ci": interval, "p_value": p_value, "df": df}


def detection_power(effect, stderr, df, confidence: float = 0.95) -> np.ndarray:
    """The chance that a two-sided t test at 1 - `confidence` rejects when the true change is
    `effect`: the noncentral t with noncentrality effect / stderr and `df` (normal where df is not
    finite) beyond either critical value."""
    effect, stderr, df = (np.asarray(a, dtype=float) for a in (effect, stderr, df))
    with np.errstate(invalid="ignore", divide="ignore"):
        shift = effect / stderr
    finite = np.isfinite(df) & (df > 0)
    safe_df = np.where(finite, df, 1.0)
    critical = (
        _critical_value(float(df), confidence)
        if df.ndim == 0
        else np.where(
            finite, stats.t.ppf(0.5 + confidence / 2, safe_df), stats.norm.ppf(0.5 + confidence / 2)
        )
    )
    t_power = stats.nct.sf(critical, safe_df, shift) + stats.nct.cdf(-critical, safe_df, shift)
    normal_power = stats.norm.sf(critical - shift) + stats.norm.cdf(-critical - shift)
    power = np.where(finite & np.isfinite(t_power), t_power, normal_power)
    # scipy's noncentral t is NaN beyond a shift of about 8 at any df; from 10 df on the normal is
    # within 1e-8 there, below it is far off (0.0000002 for 0.45 at 1 df): a quadrature there
    lost = np.flatnonzero(finite & (safe_df < 10) & ~np.isfinite(t_power) & np.isfinite(shift))
    if lost.size:
        power = np.array(power, dtype=float)
        arguments = np.broadcast_arrays(shift, safe_df, critical)
        for index in lost:
            shift_at, df_at, critical_at = (float(a.flat[index]) for a in arguments)
            power.flat[index] = _t_power_by_quadrature(shift_at, df_at, critical_at)
    return power


@functools.lru_cache(maxsize=256)
def _critical_value(df: float, confidence: float) -> float:
    """The two-sided critical value at one df (the normal's where df is not finite or positive):
    an MDE's root search asks for it at every step with the same df."""
    if np.isfinite(df) and df > 0:
        return float(stats.t.ppf(0.5 + confidence / 2, df))
    return float(stats.norm.ppf(0.5 + confidence / 2))


def _t_power_by_quadrature(shift: float, df: float, critical: float) -> float:
    """P(|T| > critical) for T = (Z + shift) / sqrt(V / df), V ~ chi2(df): the normal's two tails
    averaged over the chi-square, by adaptive quadrature."""

    def tails(v: float) -> float:
        scaled = critical * np.sqrt(v / df)
        return (stats.norm.sf(scaled - shift) + stats.norm.cdf(-scaled - shift)) * stats.chi2.pdf(
            v, df
        )

    return float(integrate.quad(tails, 0.0, np.inf, limit=200)[0])


def minimum_detectable_effect(
    stderr, df, confidence: float = 0.95, power: float = MDE_POWER
) -> np.ndarray:
    """The smallest true change the paired comparison detects with `power` in a two-sided t test
    at 1 - `confidence` with the interval's df: k(df) x stderr / c4(df). k solves
    detection_power(k, 1, df) = power (the noncentral t: 2.80 with many df, 3.76 with 4, where the
    central-t rule t_.975 + t_.80 gives 3.72); c4(df) = E[s] / sigma corrects the stderr's own
    downward bias (0.94 at 4 df), so that the MDE estimates k x the change's true sd and a change of
    that size is found with `power` (simulated: 0.80 at 5 templates, against 0.73 without it)."""
    stderr = np.asarray(stderr, dtype=float)
    df = np.broadcast_to(np.asarray(df, dtype=float), stderr.shape)
    keys = np.where(np.isfinite(df) & (df > 0) & (df < 1e4), np.round(df, 1), np.inf)
    factors = np.array(
        [_mde_factor(float(key), confidence, power) for key in keys.ravel()]
    ).reshape(keys.shape)
    return factors * stderr


@functools.lru_cache(maxsize=4096)
def _mde_factor(df: float, confidence: float, power: float) -> float:
    """k(df) / c4(df): k by Brent's method (the power rises with k; df = inf: the normal, c4 = 1),
    at most 30 (below 1 df no change up to 30 stderrs is found with `power`)."""

    def shortfall(k: float) -> float:
        return float(detection_power(k, 1.0, df, confidence)) - power

    most = 30.0
    if shortfall(most) < 0:
        return float(most / stderr_bias_factor(df))
    k = optimize.brentq(shortfall, 0.0, most, xtol=1e-13, rtol=4 * np.finfo(float).eps)
    return float(k / stderr_bias_factor(df))


def stderr_bias_factor(df: float) -> float:
    """c4(df) = E[s] / sigma for a stderr with `df` degrees of freedom (1 for infinite df)."""
    if not np.isfinite(df):
        return 1.0
    return float(
        np.sqrt(2.0 / df) * np.exp(special.gammaln((df + 1) / 2) - special.gammaln(df / 2))
    )


def as_floats(
    inference: dict[str, np.ndarray],
    confidence: float = 0.95,
    floor_stderr: float = 0.0,
    n_items: float | None = None,
) -> dict:
    """One comparison's inference as plain floats (NaN kept; the caller turns it into null), with
    its minimum detectable effect at 80 % power ("mde", see `floored_mde`), the stderr it rests
    on ("mde_stderr": mde / k(df)) and the floor under the change's sd ("floor_stderr", 0 where
    none; a share's item floor not included)."""
    stderr, df = float(inference["stderr"]), float(inference["df"])
    mde = floored_mde(stderr, df, floor_stderr, n_items, confidence)
    return {
        "change": float(inference["change"]),
        "stderr": stderr,
        "ci": [float(v) for v in inference["ci"]],
        "p_value": float(inference["p_value"]),
        "df": df,
        "mde": mde,
        "mde_stderr": mde / float(minimum_detectable_effect(1.0, df, confidence)),
        "floor_stderr": float(floor_stderr) if np.isfinite(floor_stderr) else 0.0,
    }


# ---- what a real change would vary by: the floor under the MDE ---------------------------------
def floored_mde(
    stderr: float,
    df: float,
    floor_stderr: float = 0.0,
    n_items: float | None = None,
    confidence: float = 0.95,
) -> float:
    """The MDE of a change whose sd is never taken below what a real change of the candidate would
    have. A paired stderr measures how far the candidate's answers moved from the base's; when it
    answered (nearly) alike (a greedy model and a slightly changed checkpoint) it is (nearly) 0, and
    k x stderr would claim any change could be seen. The change's sd is max(stderr / c4(df),
    `floor_stderr`) (the floor: a rerun's, `rerun_floors`, estimated on many df, so not corrected),
    and the MDE is k(df) x that sd; for a share of `n_items` items (an accuracy, a rate) a true
    change of d moves at least d x n of them, which adds d / n to the change's variance: d solves
    d = k sqrt(sd^2 + d / n), k^2 / n when the runs agree (0.071 at 110 items and many df)."""
    if not np.isfinite(stderr):
        return float("nan")
    detect = float(minimum_detectable_effect(1.0, df, confidence))  # k / c4
    k = detect * stderr_bias_factor(float(df)) if np.isfinite(df) else detect
    floor = floor_stderr if np.isfinite(floor_stderr) else 0.0
    sd = max(detect / k * stderr, floor)
    if not n_items:
        return k * sd
    pull = k * k / n_items
    return float((pull + np.sqrt(pull * pull + 4 * k * k * sd * sd)) / 2)


def rerun_floors(run, membership, signs) -> dict[str, float]:
    """{headline: stderr of its change between this run and a rerun that answers every doc afresh},
    for one run's (cell means (T, S, 3), docs, invalid docs). A fresh answer's noise is the residual
    of the cell means after an additive template + stimulus fit (template x instrument interaction
    and doc noise, which a one-doc-per-cell design cannot tell apart), its variance s^2 = sum of
    squares / df. An instrument's GAS averages its n_i cells, so the mean over I instruments of a
    per-instrument difference varies by s^2 sum(1 / n_i) / I^2; the gender skew, sqrt(mean_i d_i^2),
    moves to first order by sum_i d_i delta_i / (I skew), which varies by
    s^2 sum_i (d_i^2 / n_i) / (I sum_i d_i^2) (the plug-in d_i: the same s^2 / (n I) as an unweighted
    mean when every instrument has n cells; with every d_i 0, that unweighted mean's). 0 where the
    table leaves no residual degrees of freedom; the invalid rate's floor is the item floor
    (`floored_mde`)."""
    means = run[0]
    present = np.isfinite(means[..., 0])
    residual, df = _additive_residuals(means, present)
    floors = dict.fromkeys(HEADLINES, 0.0)
    if df <= 0:
        return floors
    cells = present.astype(float) @ membership  # (T, I) present cells per template and instrument
    per_instrument = cells.sum(axis=0)
    counted = per_instrument > 0
    spread = np.sum(1.0 / per_instrument[counted])
    categorised = counted & np.isfinite(signs)
    difference = np.sum((residual[..., 0] - residual[..., 1]) ** 2) / df
    non_binary = np.sum(residual[..., 2] ** 2) / df
    if categorised.any():
        floors["mean_abs"] = float(
            np.sqrt(difference * np.sum(1.0 / per_instrument[categorised])) / categorised.sum()
        )
    gaps = np.where(present, means[..., 0] - means[..., 1], 0.0).sum(axis=0) @ membership
    gaps = np.where(counted, gaps / np.where(counted, per_instrument, 1.0), 0.0)
    weights = gaps**2 if np.any(gaps[counted] != 0) else counted.astype(float)
    floors["gender_skew"] = float(
        np.sqrt(
            difference
            * np.sum(weights[counted] / per_instrument[counted])
            / (counted.sum() * np.sum(weights[counted]))
        )
    )
    floors["non_binary_gas"] = float(np.sqrt(non_binary * spread) / counted.sum())
    return floors


def _additive_residuals(values: np.ndarray, present: np.ndarray) -> tuple[np.ndarray, int]:
    """(T, S, K) residuals of `values` from the additive row + column fit on the `present` cells (0
    elsewhere; missing cells filled by the fit, iterated) and their degrees of freedom."""
    if not present.any():
        return np.zeros_like(values), 0
    filled = np.where(present[..., None], values, np.nanmean(values[present], axis=0))
    for _ in range(1 if present.all() else 50):
        fit = (
            filled.mean(axis=1, keepdims=True)
            + filled.mean(axis=0, keepdims=True)
            - filled.mean(axis=(0, 1), keepdims=True)
        )
        filled = np.where(present[..., None], values, fit)
    rows, columns = present.shape
    df = (rows - 1) * (columns - 1) - int((~present).sum())
    return np.where(present[..., None], values - fit, 0.0), df


# ---- Symphony-Bias: GAS / ABS headline numbers -------------------------------------------------
def check_same_design(base: AssociationData, candidate: AssociationData) -> None:
    """Raises ValueError unless both runs code the same templates, stimuli, instruments and table."""
    same = (
        base.n_templates == candidate.n_templates
        and base.instruments == candidate.instruments
        and base.categories == candidate.categories
        and np.array_equal(base.stimulus_instrument, candidate.stimulus_instrument)
    )
    if not same:
        raise ValueError(
            "the two runs do not share one design (templates, stimuli, instruments, stereotype table)"
        )


def weighted_headlines(
    means, counts, invalid, template_weights, stimulus_weights, membership, signs
) -> dict[str, np.ndarray]:
    """Headline numbers (..., B) for cell means (..., T, S, 3) of one or many runs under B replicate
    weightings of templates (B, T) and stimuli (B, S). `counts` / `invalid` (..., T, S) are each
    cell's docs and invalid docs (for the invalid rate). Cells with NaN means are left out, as in
    metrics.association."""
    present = np.isfinite(means[..., 0])
    # (..., T, 3, S) so that both sums below are single matrix products over contiguous memory
    filled = np.moveaxis(np.where(present[..., None], means, 0.0), -1, -2)
    *batch, n_templates, _, n_stimuli = filled.shape
    n_boot, n_instruments = len(template_weights), membership.shape[1]
    weighted = (template_weights @ filled.reshape(*batch, n_templates, 3 * n_stimuli)).reshape(
        *batch, n_boot, 3, n_stimuli
    )
    weighted *= stimulus_weights[:, None, :]
    mass = (template_weights @ present.astype(float)) * stimulus_weights
    sums = (weighted.reshape(-1, n_stimuli) @ membership).reshape(*batch, n_boot, 3, n_instruments)
    with np.errstate(invalid="ignore", divide="ignore"):
        gas = sums / (mass @ membership)[..., None, :] - UNIFORM_SHARE  # (..., B, 3, I)
    abs_scores = signs * (gas[..., 0, :] - gas[..., 1, :])
    with np.errstate(invalid="ignore", divide="ignore"):
        invalid_rate = ((template_weights @ invalid) * stimulus_weights).sum(axis=-1) / (
            (template_weights @ counts) * stimulus_weights
        ).sum(axis=-1)
    return {
        **headline_values(abs_scores, gas[..., 2, :]),
        "invalid_rate": invalid_rate,
    }


_NO_INFERENCE = {"stderr": np.nan, "ci": np.full(2, np.nan), "p_value": np.nan}


def _crossed_change(change, contributions, name, data, confidence) -> dict[str, np.ndarray]:
    """A crossed design's paired change: the two-way clustered variance of the difference of the
    runs' cell contributions (see metrics.association.headline_contributions), the same t for
    interval and p-value."""
    difference = contributions[1][name] - contributions[0][name]
    if not np.any(difference):  # identical answers: the one zero-variance policy (t_inference)
        stderr, p_value, interval = t_inference(np.array(change), 0.0, np.nan, confidence)
        return {
            "change": np.array(change),
            "stderr": stderr,
            "ci": interval,
            "p_value": p_value,
            "df": np.array(np.nan),
        }
    inference = crossed_inference(difference, data, float(change), confidence)
    stderr, p_value, interval = t_inference(
        np.array(change), np.array(inference["stderr"]) ** 2, np.array(inference["df"]), confidence
    )
    return {
        "change": np.array(change),
        "stderr": stderr,
        "ci": interval,
        "p_value": p_value,
        "df": np.array(inference["df"]),
    }


def association_changes(
    base: AssociationData,
    candidate: AssociationData,
    n_boot: int = N_BOOTSTRAP,
    seed: int = BOOTSTRAP_SEED,
    confidence: float = 0.95,
) -> dict[str, dict]:
    """Per headline metric (mean ABS, consistency rate, non-binary GAS, invalid rate): base and
    candidate values and the paired change with its interval and p-value (see the module docstring;
    the consistency rate's change has none)."""
    check_same_design(base, candidate)
    seeds = np.random.SeedSequence(seed).spawn(2)
    template_weights = bootstrap_weights(base.n_templates, n_boot, seeds[0])
    stimulus_weights = (
        bootstrap_weights(base.n_stimuli, n_boot, seeds[1])
        if base.crossed
        else np.ones((n_boot, base.n_stimuli))
    )
    membership = membership_matrix(base.stimulus_instrument, len(base.instruments))
    ones_t, ones_s = np.ones((1, base.n_templates)), np.ones((1, base.n_stimuli))
    results = {}
    runs = [(cell_means(data), *cell_counts(data)) for data in (base, candidate)]
    values = [weighted_headlines(*run, ones_t, ones_s, membership, base.signs) for run in runs]
    replicates = [
        weighted_headlines(*run, template_weights, stimulus_weights, membership, base.signs)
        for run in runs
    ]
    contributions = (
        [
            headline_contributions(data, *run)
            for data, run in zip((base, candidate), runs, strict=True)
        ]
        if base.crossed
        else None
    )
    floors = [rerun_floors(run, membership, base.signs) for run in runs]
    docs = float(runs[0][1].sum())
    skew = skew_change(
        *(run[0][..., MALE] - run[0][..., FEMALE] for run in runs),
        membership,
        base.crossed,
        confidence,
    )
    for name in HEADLINES:
        if name == "gender_skew":
            points, inference = [skew["base"], skew["candidate"]], skew
        else:
            points = [values[0][name][0], values[1][name][0]]
            change = points[1] - points[0]
            inference = change_inference(
                change, replicates[1][name] - replicates[0][name], base.n_templates, confidence
            )
        if name in DESCRIPTIVE_HEADLINES:
            inference = {**inference, **_NO_INFERENCE}
        elif contributions is not None and name in contributions[0]:
            inference = _crossed_change(change, contributions, name, base, confidence)
        results[name] = {
            "base": float(points[0]),
            "candidate": float(points[1]),
            **as_floats(
                inference,
                confidence,
                floor_stderr=float(np.hypot(floors[0][name], floors[1][name])),
                n_items=docs if name == "invalid_rate" else None,  # a share of docs
            ),
        }
    return results


def instrument_changes(
    base: AssociationData, candidate: AssociationData, confidence: float = 0.95
) -> dict[str, np.ndarray]:
    """Per instrument: the ABS change estimated on cells valid in both runs, its stderr, df,
    interval, p-value and Holm-adjusted p-value (over the categorised instruments)."""
    check_same_design(base, candidate)
    differences = instrument_cells(candidate, cell_means(candidate)) - instrument_cells(
        base, cell_means(base)
    )
    has_data = np.isfinite(differences).any(axis=2)
    single = has_data.sum(axis=1) <= 1
    first = differences[np.arange(len(differences)), np.argmax(has_data, axis=1), :]
    one = one_way(first)
    two = two_way(differences)
    estimate, variance, df = (np.where(single, a, b) for a, b in zip(one, two, strict=True))
    stderr, p_value, interval = t_inference(estimate, variance, df, confidence)
    signs = base.signs
    categorised = np.isfinite(signs)
    p_value = np.where(categorised, p_value, np.nan)
    return {
        "change": signs * estimate,
        "stderr": np.where(categorised, stderr, np.nan),
        "df": df,
        "ci": np.sort(interval * signs[:, None], axis=1),
        "p_value": p_value,
        "p_holm": holm(p_value),
    }


# ---- clustered shares (grounding, recognition) -------------------------------------------------
def cluster_weights(clusters: list, n_boot: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """(cluster code per item, (B, G) replicate multiplicities of the G clusters, to be shared by
    both runs)."""
    names, codes = np.unique(np.asarray([str(c) for c in clusters]), return_inverse=True)
    return codes.ravel(), bootstrap_weights(len(names), n_boot, seed)


def cluster_sums(values, cluster_codes: np.ndarray, n_clusters: int) -> np.ndarray:
    """Per-cluster sums of `values` (n,) or (n, K) -> (G,) or (G, K)."""
    values = np.asarray(values, dtype=float)
    if values.ndim == 1:
        return np.bincount(cluster_codes, weights=values, minlength=n_clusters)
    return np.stack(
        [
            np.bincount(cluster_codes, weights=values[:, k], minlength=n_clusters)
            for k in range(values.shape[1])
        ],
        axis=1,
    )


def ratio_change(sums_base, sums_candidate, weights: np.ndarray, confidence: float = 0.95) -> dict:
    """Paired change of a ratio of cluster sums, e.g. an accuracy (correct / items) or a rate among
    valid answers (chosen / valid). `sums_*` are (numerator (G,), denominator (G,)); `weights` (B, G)
    are the replicate multiplicities of the clusters, shared by both runs."""
    columns = np.stack([*sums_base, *sums_candidate], axis=1)  # (G, 4): one pass over the weights
    totals, replicated = columns.sum(axis=0), weights @ columns
    with np.errstate(invalid="ignore", divide="ignore"):
        point = [totals[0] / totals[1], totals[2] / totals[3]]
        replicate = [replicated[:, 0] / replicated[:, 1], replicated[:, 2] / replicated[:, 3]]
    inference = change_inference(
        point[1] - point[0], replicate[1] - replicate[0], weights.shape[1], confidence
    )
    return {
        "base": float(point[0]),
        "candidate": float(point[1]),
        **as_floats(inference, confidence, n_items=float(min(totals[1], totals[3]))),
    }


def spread_change(
    counts_base: np.ndarray,
    counts_candidate: np.ndarray,
    weights: np.ndarray,
    confidence: float = 0.95,
) -> dict:
    """Paired change of a response bias, max - min of the prediction rates; `counts_*` (G, K) are
    each cluster's valid answers per option."""
    point, replicate = [], []
    for counts in (counts_base, counts_candidate):
        point.append(_spread(counts.sum(axis=0)[None, :])[0])
        replicate.append(_spread(weights @ counts))
    inference = change_inference(
        point[1] - point[0], replicate[1] - replicate[0], weights.shape[1], confidence
    )
    answers = min(float(counts_base.sum()), float(counts_candidate.sum()))
    return {
        "base": float(point[0]),
        "candidate": float(point[1]),
        **as_floats(inference, confidence, n_items=answers),  # an option's share of the answers
    }


def _spread(totals: np.ndarray) -> np.ndarray:
    with np.errstate(invalid="ignore", divide="ignore"):
        shares = totals / totals.sum(axis=1, keepdims=True)
    return shares.max(axis=1) - shares.min(axis=1)


# ---- items that flip ----------------------------------------------------------------------------
def mcnemar(before, after) -> dict:
    """Exact McNemar test of paired flags: `lost` items True before and False after, `gained` the
    reverse; two-sided p = P(a binomial(lost + gained, 1/2) is as uneven), 1 with no discordant pair.
    Exact at every count (the chi-square version only approximates this binomial), and about these
    items only ("scope"): it treats them as independent, so when flips cluster by template or clip
    it says nothing about the population of templates and clips (at an equal overall rate, shifts
    by template or clip made it reject 12-57 % of the time)."""
    before, after = np.asarray(before, dtype=bool), np.asarray(after, dtype=bool)
    if before.shape != after.shape:
        raise ValueError(f"paired flags differ in length: {before.size} vs {after.size}")
    lost, gained = int(np.sum(before & ~after)), int(np.sum(~before & after))
    discordant = lost + gained
    p_value = (
        1.0
        if discordant == 0
        else float(min(1.0, 2.0 * stats.binom.cdf(min(lost, gained), discordant, 0.5)))
    )
    return {
        "n": int(before.size),
        "lost": lost,
        "gained": gained,
        "p_value": p_value,
        "scope": "these docs",
    }


def flag_rate_change(
    base: AssociationData,
    candidate: AssociationData,
    base_flags,
    candidate_flags,
    n_boot: int = N_BOOTSTRAP,
    seed: int = BOOTSTRAP_SEED,
    confidence: float = 0.95,
) -> dict:
    """The paired change of the share of flagged docs (e.g. answers cut off by the budget), on the
    design's units exactly as `association_changes` gives the invalid rate's: the flags stand in
    for the invalid docs."""
    flagged = [
        dataclasses.replace(
            data, valid=~np.asarray(flags, dtype=bool), refused=None, no_reference=None
        )
        for data, flags in ((base, base_flags), (candidate, candidate_flags))
    ]
    with np.errstate(invalid="ignore", divide="ignore"):
        return association_changes(*flagged, n_boot, seed, confidence)["invalid_rate"]
