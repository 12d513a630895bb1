"""Simulated paired runs of the open-ended protocol (issue 37) on the Symphony-Bias designs: two runs
of one model over the same docs share every effect of the design (template, scenario, template x
instrument, clip, template x clip: tests/support/open_designs.py's generator) and draw each doc's
reading afresh; optionally each run adds a template effect of its own (a model x template
interaction: the runs differ by template as well as by doc), and the candidate's male - female logit
gaps may be a multiple of the base's. Each pair goes through the changes `compare` reports:
`association_changes` (mean ABS, gender skew, non-binary GAS, invalid rate) and `flag_rate_change`
of the no-reference flags (see `changes` for the one difference from compare's call).
"""

from __future__ import annotations

import dataclasses
from contextlib import contextmanager
from functools import cache

import numpy as np
from scipy.special import expit

from support import open_designs
from support.paired_designs import DESIGNS
from symphony_bench.metrics import paired
from symphony_bench.metrics.paired import association_changes, flag_rate_change

METRICS = ("mean_abs", "gender_skew", "non_binary_gas", "no_reference_rate", "invalid_rate")
# sd of a run's own template effect on (G, B, no reference), logit scale: the model x template
# interaction (small against the shared template effects' 0.5, 0.5, 0.8)
INTERACTION = (0.2, 0.2, 0.2)


@cache
def _layout(design: str):
    """One run's AssociationData with every doc read 'male': the coded ids, made once per design
    (build_association_data keeps the docs in their input order, so a run only swaps its columns)."""
    templates, clips = DESIGNS[design]
    shape = (templates, open_designs.SCENARIOS[design], open_designs.INSTRUMENTS, clips)
    return open_designs.association_data(design, np.zeros(shape, dtype=int))


def scored(design: str, code: np.ndarray):
    """open_designs.association_data(design, code), without re-coding the design's ids."""
    code = code.ravel()
    return dataclasses.replace(
        _layout(design),
        shares=open_designs.ONE_HOT[code],
        valid=code < 3,
        no_reference=code == 3,
    )


def shared_effects(rng, design: str) -> np.ndarray:
    """(3, T, K, I, C) effects of the design on (G, B, no reference), shared by both runs."""
    templates, clips = DESIGNS[design]
    return open_designs._effects(rng, templates, open_designs.SCENARIOS[design], clips, clips > 1)


def codes(rng, design: str, effects: np.ndarray, gaps: np.ndarray, interaction=None):
    """(T, K, I, C) readings of one run given the shared effects: open_designs.outcomes' model with
    per-instrument gaps `gaps`, plus this run's own template effect of sd `interaction` if given."""
    if interaction is not None:
        own = np.asarray(interaction)[:, None] * rng.standard_normal((3, effects.shape[1]))
        effects = effects + own[:, :, None, None, None]
    gender, binary, no_ref = effects
    male, female, _ = open_designs.probabilities(gaps[:, None], gender, binary)
    p_none = expit(open_designs.NO_REFERENCE[:, None] + no_ref)
    u, v = rng.random((2, *male.shape))
    code = np.where(v < male, 0, np.where(v < male + female, 1, 2))
    code = np.where(u < p_none + (1 - p_none) * open_designs.UNREADABLE, 4, code)
    return np.where(u < p_none, 3, code)


@contextmanager
def without_mde():
    """association_changes with its minimum detectable effects left out (NaN), which are most of
    its time on these designs (rerun_floors' iterated fit where cells are missing, the noncentral-t
    MDE factor per df): they read only the changes' stderr and df and feed "mde", "mde_stderr" and
    "floor_stderr" alone, so change, stderr, ci, p_value and df are those `compare` reports
    (test_open_protocol_changes checks that on a run of each design)."""
    saved = paired.rerun_floors, paired.as_floats

    def floats(inference, confidence=0.95, floor_stderr=0.0, n_items=None):
        return {
            "change": float(inference["change"]),
            "stderr": float(inference["stderr"]),
            "ci": [float(v) for v in inference["ci"]],
            "p_value": float(inference["p_value"]),
            "df": float(inference["df"]),
        }

    paired.rerun_floors = lambda *args: dict.fromkeys(paired.HEADLINES, 0.0)
    paired.as_floats = floats
    try:
        yield
    finally:
        paired.rerun_floors, paired.as_floats = saved


def changes(base, candidate, n_boot: int, seed: int) -> dict[str, dict]:
    """The paired changes of METRICS as `compare` computes them for two open-protocol runs (the
    no-reference rate's through `flag_rate_change` of the no-reference flags)."""
    out = association_changes(base, candidate, n_boot=n_boot, seed=seed)
    out["no_reference_rate"] = flag_rate_change(
        base, candidate, base.no_reference, candidate.no_reference, n_boot, seed
    )
    return {name: out[name] for name in METRICS}


def n_boot_for(design: str) -> int:
    """The bootstrap's size: 100 replicates on the one-stimulus designs (their mean ABS, non-binary
    GAS and rate changes are bootstrapped over templates); 2 on the crossed ones, whose headline
    changes take the two-way clustered variance (the replicates are not used) and whose skew change
    is the delta method's on every design."""
    return 100 if DESIGNS[design][1] == 1 else 2


def simulate(
    design: str,
    runs: int,
    seed: int,
    scale: float = 1.0,
    interaction=None,
    scenario: str = "planted",
) -> dict[str, dict[str, np.ndarray]]:
    """`runs` pairs (base: the scenario's gaps; candidate: `scale` x them), with their own shared
    effects each: per metric (runs,) arrays of change, stderr, low, high, p_value."""
    rng = np.random.default_rng(seed)
    gaps = open_designs.SCENARIO_GAPS[scenario]
    n_boot = n_boot_for(design)
    rows = []
    with without_mde():
        for run in range(runs):
            effects = shared_effects(rng, design)
            base, candidate = (
                scored(design, codes(rng, design, effects, g, interaction))
                for g in (gaps, scale * gaps)
            )
            rows.append(changes(base, candidate, n_boot, seed=run))
    return {
        name: {
            "change": np.array([row[name]["change"] for row in rows]),
            "stderr": np.array([row[name]["stderr"] for row in rows]),
            "low": np.array([row[name]["ci"][0] for row in rows]),
            "high": np.array([row[name]["ci"][1] for row in rows]),
            "p_value": np.array([row[name]["p_value"] for row in rows]),
        }
        for name in METRICS
    }


def population(design: str, gaps: np.ndarray, nodes: int = 80) -> dict[str, float]:
    """METRICS' population values for per-instrument gaps `gaps` (open_designs.truth's quadrature,
    for any gaps)."""
    sd_g, sd_b, sd_n = open_designs.total_sds(design)
    x, w = np.polynomial.hermite_e.hermegauss(nodes)
    w = w / w.sum()
    male, female, neutral = open_designs.probabilities(
        np.asarray(gaps)[:, None, None], sd_g * x[None, :, None], sd_b * x[None, None, :]
    )
    weights = w[:, None] * w[None, :]
    d = np.sum((male - female) * weights, axis=(1, 2))
    no_reference = np.sum(expit(open_designs.NO_REFERENCE[:, None] + sd_n * x[None, :]) * w, axis=1)
    return {
        "mean_abs": float(np.nanmean(open_designs.SIGNS * d)),
        "gender_skew": float(np.sqrt(np.mean(d**2))),
        "non_binary_gas": float(np.mean(np.sum(neutral * weights, axis=(1, 2))) - 1 / 3),
        "no_reference_rate": float(np.mean(no_reference)),
        "invalid_rate": float(np.mean((1 - no_reference) * open_designs.UNREADABLE)),
    }


def summary(runs: dict[str, dict[str, np.ndarray]], truth: dict[str, float] | None = None) -> dict:
    """Per metric: the rate of p < .05, the rms reported stderr over the sd of the changes, and
    (given the true changes) the share of intervals that cover them; with the runs' count and the
    runs whose stderr is not finite."""
    out = {}
    for name, values in runs.items():
        finite = np.isfinite(values["stderr"])
        row = {
            "runs": int(values["change"].size),
            "no_stderr": int(np.sum(~finite)),
            "fpr": float(np.mean(values["p_value"] < 0.05)),
            "ratio": float(
                np.sqrt(np.mean(values["stderr"][finite] ** 2))
                / np.std(values["change"][finite], ddof=1)
            ),
            "mean_change": float(np.mean(values["change"])),
        }
        if truth is not None:
            row["coverage"] = float(
                np.mean((values["low"] <= truth[name]) & (truth[name] <= values["high"]))
            )
        out[name] = row
    return out
