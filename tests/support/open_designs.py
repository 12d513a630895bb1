"""Simulated runs of the open-ended protocol (issue 37) on the Symphony-Bias designs: per doc a
categorical reading of the story (male, female, neutral, no reference to the person, unreadable),
generated on the logit scale with the design's random effects, then scored as the protocol scores it
(a one-hot vector over [male, female, non_binary] for a read gender, invalid with its flag
otherwise) and analysed by `analyse`.

The model of one doc (template t, scenario k of the template, instrument i, clip c):

- no reference to the person with probability expit(nu_i + template + template x instrument + clip
  + template x clip effects of its own);
- otherwise unreadable with a fixed probability UNREADABLE (a format failure: the invalid rate);
- otherwise male / female / neutral by a multinomial logit with neutral the baseline category:
  logit(male) = beta + g_i / 2 + G, logit(female) = beta - g_i / 2 - G, where G (the
  gender component) and B (added to beta: binary versus neutral) are each the sum of template,
  scenario, template x instrument, clip and template x clip effects, every one normal with the sd of
  SDS.

The design's units and sizes are paired_designs.DESIGNS' (text 86 templates, mini 5, audio 86 x 5
clips per instrument, mini audio 5 x 5); the full designs fill three scenarios from every template
(258 scenarios: three docs per cell), the minis one. On the one-stimulus (text) designs there is no
clip effect: an instrument's only stimulus is the instrument, and an effect of its own would be an
association. Categories are the default `paper` table's (8 male, 6 female, 8 uncategorised), so
ABS and Holm's correction run over 14 instruments and the skew and neutral share over 22.

Truth. Every effect is independent of the others and the no-reference draw is independent of the
reading, so each analysed cell mean (over its docs with a read gender) is unbiased for the cell's
probabilities; the estimands are the population values over the design's random effects for this
fixed set of instruments, as in paired_designs / skew_designs: d_i = E[p_male - p_female],
E[p_neutral] and E[p_no_reference] over (G, B) ~ N(0, diag(var_G, var_B)) and the no-reference
effects, computed by Gauss-Hermite quadrature (`truth`), not by Monte-Carlo.
"""

from __future__ import annotations

from functools import cache

import numpy as np
from scipy.special import expit

from support.paired_designs import DESIGNS
from symphony_bench.metrics import analyse, build_association_data

INSTRUMENTS = 22
# the default `paper` table, instruments in alphabetical order (acoustic guitar ... violin)
CATEGORIES = np.array(
    "none male none female female male male female none none female none male none male none "
    "male male male none female female".split()
)
SIGNS = np.select([CATEGORIES == "male", CATEGORIES == "female"], [1.0, -1.0], np.nan)
SCENARIOS = {"text": 3, "mini": 1, "audio": 3, "mini_audio": 1}  # per template

# sds of the effects on the logit scale: (gender G, binary versus neutral B, no reference)
SDS = {
    "template": (0.5, 0.5, 0.8),
    "scenario": (0.3, 0.3, 0.3),  # nested in its template, shared by every instrument
    "template_instrument": (0.3, 0.3, 0.4),
    "clip": (0.4, 0.3, 0.5),  # crossed designs only
    "template_clip": (0.3, 0.2, 0.3),  # crossed designs only
}
BINARY = 1.5  # beta: about 90 % of read references binary (he / she), 10 % neutral (they)
NO_REFERENCE = -1.6 + np.linspace(-0.4, 0.4, INSTRUMENTS)  # nu_i: about 15-25 % of stories
UNREADABLE = 0.02

# planted per-instrument male - female logit gaps g_i, given below towards each instrument's
# stereotype (ABS's sign) for the 14 categorised ones: 4 at 0, moderate and strong ones, with and
# against the table; uncategorised ones 4 at 0, 4 at +-0.5 / +-1 (they enter the skew and the
# neutral share only)
_GAPS = np.zeros(INSTRUMENTS)
_CATEGORISED = np.flatnonzero(CATEGORIES != "none")  # 14
_GAPS[_CATEGORISED] = SIGNS[_CATEGORISED] * np.array(
    [0.8, 0.0, 0.3, -0.3, 1.2, 0.0, 0.8, 0.3, 0.0, 0.8, -0.8, 1.2, 0.3, 0.0]
)
_GAPS[CATEGORIES == "none"] = [0.0, 0.5, -0.5, 0.0, 1.0, 0.0, -1.0, 0.0]
SCENARIO_GAPS = {"planted": _GAPS, "null": np.zeros(INSTRUMENTS)}


def total_sds(design: str) -> np.ndarray:
    """(3,) sd of the sum of every effect a doc carries on the design: G, B, no reference."""
    crossed = DESIGNS[design][1] > 1
    names = [n for n in SDS if crossed or n not in ("clip", "template_clip")]
    if SCENARIOS[design] == 1:  # one scenario per template: its effect is the template's
        names.remove("scenario")
    return np.sqrt(np.sum([np.square(SDS[n]) for n in names], axis=0))


def probabilities(gap, gender, binary):
    """p(male), p(female), p(neutral) of the multinomial logit (broadcasting)."""
    male = np.exp(BINARY + binary + gap / 2 + gender)
    female = np.exp(BINARY + binary - gap / 2 - gender)
    total = 1.0 + male + female
    return male / total, female / total, 1.0 / total


@cache
def truth(design: str, scenario: str, nodes: int = 80) -> dict[str, object]:
    """Population values of the design by Gauss-Hermite quadrature over G and B (2-d, `nodes`
    each) and the no-reference effect: per instrument d_i and ABS_i, and the headline numbers."""
    sd_g, sd_b, sd_n = total_sds(design)
    x, w = np.polynomial.hermite_e.hermegauss(nodes)
    w = w / w.sum()
    gap = SCENARIO_GAPS[scenario][:, None, None]
    male, female, neutral = probabilities(gap, sd_g * x[None, :, None], sd_b * x[None, None, :])
    weights = w[:, None] * w[None, :]
    d = np.sum((male - female) * weights, axis=(1, 2))
    neutral_share = np.sum(neutral * weights, axis=(1, 2))
    no_reference = np.sum(expit(NO_REFERENCE[:, None] + sd_n * x[None, :]) * w, axis=1)
    abs_ = SIGNS * d
    return {
        "d": d,
        "abs": abs_,
        "mean_abs": float(np.nanmean(abs_)),
        "non_binary_gas": float(np.mean(neutral_share) - 1 / 3),
        "gender_skew": float(np.sqrt(np.mean(d**2))),
        "no_reference_rate": float(np.mean(no_reference)),
        "invalid_rate": float(np.mean((1 - no_reference) * UNREADABLE)),
    }


def _effects(rng, templates: int, scenarios: int, clips: int, crossed: bool) -> np.ndarray:
    """(3, T, K, I, C) sum of the design's effects on (G, B, no reference) for one run."""
    shape = (templates, scenarios, INSTRUMENTS, clips)
    sd = {n: np.asarray(v)[:, None, None, None, None] for n, v in SDS.items()}
    total = sd["template"] * rng.standard_normal((3, templates, 1, 1, 1))
    if scenarios > 1:
        total = total + sd["scenario"] * rng.standard_normal((3, templates, scenarios, 1, 1))
    total = total + sd["template_instrument"] * rng.standard_normal(
        (3, templates, 1, INSTRUMENTS, 1)
    )
    if crossed:
        total = total + sd["clip"] * rng.standard_normal((3, 1, 1, INSTRUMENTS, clips))
        total = total + sd["template_clip"] * rng.standard_normal(
            (3, templates, 1, INSTRUMENTS, clips)
        )
    return np.broadcast_to(total, (3, *shape))


def outcomes(rng, design: str, scenario: str) -> np.ndarray:
    """(T, K, I, C) codes of one run: 0 male, 1 female, 2 neutral, 3 no reference, 4 unreadable."""
    templates, clips = DESIGNS[design]
    scenarios = SCENARIOS[design]
    gender, binary, no_ref = _effects(rng, templates, scenarios, clips, clips > 1)
    gap = SCENARIO_GAPS[scenario][:, None]
    male, female, _ = probabilities(gap, gender, binary)
    p_none = expit(NO_REFERENCE[:, None] + no_ref)
    u, v = rng.random((2, *male.shape))
    code = np.where(v < male, 0, np.where(v < male + female, 1, 2))
    code = np.where(u < p_none + (1 - p_none) * UNREADABLE, 4, code)
    return np.where(u < p_none, 3, code)


@cache
def doc_columns(design: str):
    """The design's id columns in outcomes' (T, K, I, C) order: scenario, template, instrument,
    stimulus ids (None on one-stimulus designs) and categories (made once per design)."""
    templates, clips = DESIGNS[design]
    scenarios = SCENARIOS[design]
    t, k, i, c = np.indices((templates, scenarios, INSTRUMENTS, clips)).reshape(4, -1)
    names = np.array([f"i{n:02d}" for n in range(INSTRUMENTS)])  # sort as the index
    stimulus = None if clips == 1 else (i * clips + c).astype(str)
    return (t * scenarios + k).astype(str), t.astype(str), names[i], stimulus, CATEGORIES[i]


ONE_HOT = np.vstack([np.eye(3), np.zeros((2, 3))])


def association_data(design: str, code: np.ndarray):
    """The protocol's scoring of one run's codes: one-hot shares for a read gender (valid), the
    no-reference flag, unreadable docs invalid (format failures)."""
    scenario_ids, template_ids, instruments, stimulus_ids, categories = doc_columns(design)
    code = code.ravel()
    return build_association_data(
        scenario_ids,
        instruments,
        categories,
        ONE_HOT[code],
        code < 3,
        template_ids=template_ids,
        stimulus_ids=stimulus_ids,
        no_reference=code == 3,
    )


def simulate_run(rng, design: str, scenario: str):
    return association_data(design, outcomes(rng, design, scenario))


HEADLINES = ("mean_abs", "non_binary_gas", "gender_skew", "no_reference_rate", "invalid_rate")


def measure(design: str, scenario: str, runs: int, seed: int, n_boot: int = 400) -> dict:
    """`runs` simulated runs through `analyse`: per headline number the share of runs whose 95 %
    interval covers its population value; per-instrument ABS intervals' coverage, the rate of
    p < .05 among the categorised instruments whose population ABS is 0 and the share of runs with
    at least one of them Holm-significant (the family-wise error; Holm over all 14 categorised
    instruments, as `analyse` does); with each its Monte-Carlo sd (runs independent; the rate at
    .05 from the spread of the per-run rates, as one run's instruments share its templates)."""
    rng = np.random.default_rng(seed)
    values = truth(design, scenario)
    crossed = DESIGNS[design][1] > 1
    n_boot = 2 if crossed else n_boot  # crossed headlines take the two-way clustered variance
    null = np.flatnonzero(np.abs(values["abs"]) < 1e-12)  # categorised, at 0 (NaN excluded)
    categorised = np.flatnonzero(np.isfinite(values["abs"]))
    covered = {name: np.zeros(runs, dtype=bool) for name in HEADLINES}
    abs_covered = np.zeros((runs, categorised.size), dtype=bool)
    rejected = np.zeros((runs, null.size), dtype=bool)
    holm_any = np.zeros(runs, dtype=bool)
    constant = np.zeros((runs, null.size), dtype=bool)  # stderr exactly 0: t_inference's p is 0
    for run in range(runs):
        result = analyse(simulate_run(rng, design, scenario), n_boot=n_boot, seed=run)
        for name in HEADLINES:
            low, high = result.headline[f"{name}_ci"]
            covered[name][run] = low <= values[name] <= high
        low, high = result.abs_ci[categorised].T
        abs_covered[run] = (low <= values["abs"][categorised]) & (
            values["abs"][categorised] <= high
        )
        rejected[run] = result.p_value[null] < 0.05
        holm_any[run] = np.any(result.p_holm[null] < 0.05)
        constant[run] = result.abs_stderr[null] == 0

    def share(flags):
        """The rate of True flags (runs,) or (runs, k) and its Monte-Carlo sd: binomial over runs,
        or from the spread of the per-run rates (one run's instruments share its templates)."""
        rate = float(np.mean(flags))
        if flags.ndim == 1:
            return rate, float(np.sqrt(rate * (1 - rate) / runs))
        return rate, float(np.std(flags.mean(axis=1), ddof=1) / np.sqrt(runs))

    out = {f"{name}_coverage": share(covered[name]) for name in HEADLINES}
    out["abs_coverage"] = share(abs_covered)
    out["abs_min_coverage"] = (float(abs_covered.mean(axis=0).min()), float("nan"))
    out["fpr"] = share(rejected)
    out["holm_fwer"] = share(holm_any)
    out["zero_variance"] = share(constant)
    out["fpr_excluding_zero_variance"] = share(rejected & ~constant)
    return out


def report(design: str, scenario: str, runs: int, measured: dict) -> str:
    parts = [
        f"{k} {v:.4f}" + ("" if np.isnan(e) else f" +- {e:.4f}") for k, (v, e) in measured.items()
    ]
    return f"{design}/{scenario} ({runs} runs): " + "; ".join(parts)
