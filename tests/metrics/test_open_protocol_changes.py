"""The paired changes `compare` reports for the open-ended protocol (issue 37), by simulation: two
runs of one model over the same docs share every effect of the design (template, scenario,
template x instrument, clip, template x clip: tests/support/open_designs.py's generator on the logit
scale) and read each doc afresh (tests/support/open_pairs.py). Per design (text 86 templates, mini 5,
audio 86 x 5 clips, mini audio 5 x 5) and headline change (mean ABS, gender skew, non-binary GAS,
no-reference rate by flag_rate_change, invalid rate):

- "same": the same model twice: the rate of p < .05 (false positives) and the rms reported stderr
  over the sd of the changes across runs (the true sd of the change);
- "interaction": the same, each run adding a template effect of its own (sd 0.2 on the logit scale
  of the gender, binary-versus-neutral and no-reference components: a model x template
  interaction);
- "weaker": a candidate whose logit gaps are 0.7x the base's: coverage of the true change (the
  difference of the population values, Gauss-Hermite quadrature; 0 for the two rates) and the
  stderr ratio.

The bootstrap's size: 100 replicates on the one-stimulus designs, whose mean ABS, non-binary GAS and
rate changes are bootstrapped over templates (a stderr from 100 replicates varies by about 7 % of
itself, which should add a few tenths of a point to a 5 % rate: estimated, not measured); 2 on
the crossed ones, whose headline changes take the two-way clustered variance; the skew's change
is the delta method's on every design. The minimum detectable effects are left out
(open_pairs.without_mde: they feed no other field).

The no-reference rate as `compare` computes it is not simulated here: `compare` calls
flag_rate_change with the runs' no_reference column left set, which excludes the flagged docs from
the docs it counts (AssociationData.format_failures), so that change is always 0 with stderr 0 and
p = 1 (and base and candidate rates 0). The simulation clears that column first (open_pairs.changes).

Measured (runs: text 800, mini 1,000, audio 500, mini audio 1,000; Monte-Carlo sd of a rate near
5 % 0.8 points at 800 runs, 0.7 at 1,000, 1.0 at 500, of a coverage near 95 % the same, of an sd
ratio about 1 / sqrt(2 runs): 2.5 %, 2.2 %, 3.2 %).

p < .05, same model (same / interaction), %:

| | text | mini | audio | mini audio |
|---|---|---|---|---|
| mean_abs | 5.2 / 4.8 | 3.3 / 3.5 | 4.4 / 3.8 | 3.7 / 2.5 |
| gender_skew | 6.2 / 4.1 | 8.0* / 6.5 | 7.2* / 5.6 | 4.0 / 7.2* |
| non_binary_gas | 4.5 / 6.4 | 4.1 / 3.7 | 5.2 / 4.8 | 3.1 / 4.0 |
| no_reference_rate | 6.0 / 4.9 | 4.6 / 3.5 | 3.8 / 4.8 | 2.1 / 3.9 |
| invalid_rate | 5.1 / 5.4 | 1.7 / 1.6 | 1.8 / 1.0 | 1.5 / 2.4 |

Reported stderr (rms) / sd of the changes (same / interaction / weaker):

| | text | mini | audio | mini audio |
|---|---|---|---|---|
| mean_abs | 1.00 / 1.00 / 1.03 | 1.01 / 1.01 / 1.00 | 1.03 / 1.04 / 1.13+ | 1.14+ / 1.17+ / 1.18+ |
| gender_skew | 1.00 / 1.04 / 0.98 | 0.82* / 0.79* / 0.84* | 1.02 / 1.06 / 1.43+ | 1.16+ / 1.04 / 1.17+ |
| non_binary_gas | 1.04 / 0.99 / 1.01 | 1.00 / 0.98 / 0.99 | 1.01 / 1.01 / 1.02 | 1.16+ / 1.07 / 1.14+ |
| no_reference_rate | 0.96 / 0.99 / 1.04 | 1.01 / 1.07 / 1.01 | 1.07 / 1.01 / 1.13+ | 1.22+ / 1.12+ / 1.26+ |
| invalid_rate | 1.00 / 1.01 / 1.02 | 0.98 / 1.00 / 1.04 | 1.23+ / 1.20+ / 1.08 | 1.26+ / 1.23+ / 1.28+ |

Weaker candidate (0.7x the gaps): coverage of the true change, % (p < .05, %):

| | text | mini | audio | mini audio |
|---|---|---|---|---|
| mean_abs | 95.4 (27.3) | 95.1 (4.8) | 97.8+ (76.4) | 97.7+ (5.2) |
| gender_skew | 95.2 (85.2) | 92.7* (7.5) | 94.4 (82.6) | 94.1 (7.9) |
| non_binary_gas | 95.2 (5.2) | 96.4 (3.6) | 96.2 (5.4) | 96.7 (3.7) |
| no_reference_rate | 96.2 (3.8) | 94.3 (5.7) | 97.4+ (2.6) | 98.4+ (1.6) |
| invalid_rate | 95.8 (4.2) | 99.1+ (0.9) | 97.2+ (2.8) | 98.8+ (1.2) |

(* liberal: outside the target on the unsafe side, not asserted; + conservative: outside the
tight target on the safe side, asserted within the loose bound below.)

- The skew's change is liberal on the mini design (stderr about 0.8x its true sd, 6.5-8 % false
  positives; the single-run skew's stderr is short there too: test_open_protocol_inference) and
  at the edge on the crossed designs (5.6-7.2 % here; other seeds 5.8-6.8 % on audio). On audio its
  stderr is a mixture: where both runs' skews stand clear of 0 the change is taken on the skew's
  scale, with a stderr about 0.9x the sd of those changes (about 90 % coverage in those runs); the
  others are tested on the mean square and are conservative (about 1.6x; both from 300 runs on
  another seed), so the overall 1.43x of
  the weaker candidate hides a short stderr in about half the runs.
- The crossed designs' rate changes (two-way clustered variance of the difference) are
  conservative, 1.1-1.3x, 1-2.5 % false positives: the truncated template and stimulus components
  of a difference that is nearly pure doc noise, heavy-tailed for a 1.6 % invalid rate; mini audio
  is 1.14-1.18x on mean ABS and non-binary GAS too (test_crossed_variance: 1.18x on the Likert
  protocol's mean ABS).
- The mini's invalid-rate change is conservative by its discreteness (about 2 invalid docs a run).
"""

from __future__ import annotations

import dataclasses
import zlib
from functools import cache

import numpy as np
import pytest
from support import open_designs, open_pairs

from symphony_bench.metrics.paired import association_changes, flag_rate_change

RUNS = {"text": 800, "mini": 1_000, "audio": 500, "mini_audio": 1_000}
DESIGNS = tuple(RUNS)


def _pair(design: str, seed: int, scale: float = 1.0):
    rng = np.random.default_rng(seed)
    effects = open_pairs.shared_effects(rng, design)
    gaps = open_designs.SCENARIO_GAPS["planted"]
    return tuple(
        open_pairs.scored(design, open_pairs.codes(rng, design, effects, g))
        for g in (gaps, scale * gaps)
    )


@pytest.mark.parametrize("design", DESIGNS)
def test_a_scored_run_is_the_protocols_association_data(design):
    rng = np.random.default_rng(5)
    code = open_designs.outcomes(rng, design, "planted")
    quick, built = open_pairs.scored(design, code), open_designs.association_data(design, code)
    for field in dataclasses.fields(built):
        left, right = getattr(quick, field.name), getattr(built, field.name)
        if isinstance(right, np.ndarray):
            np.testing.assert_array_equal(left, right, err_msg=field.name)
        else:
            assert left == right, field.name


@pytest.mark.parametrize("design", DESIGNS)
def test_the_simulated_changes_are_compares_but_for_the_mde(design):
    """open_pairs.without_mde leaves change, stderr, interval, p-value and df as association_changes
    and flag_rate_change give them; the no-reference change counts the runs' flagged docs."""
    base, candidate = _pair(design, seed=11, scale=0.7)
    n_boot = open_pairs.n_boot_for(design)
    with open_pairs.without_mde():
        quick = open_pairs.changes(base, candidate, n_boot, seed=3)
    full = association_changes(base, candidate, n_boot=n_boot, seed=3)
    cleared = [dataclasses.replace(data, no_reference=None) for data in (base, candidate)]
    full["no_reference_rate"] = flag_rate_change(
        *cleared, base.no_reference, candidate.no_reference, n_boot, 3
    )
    for name in open_pairs.METRICS:
        for field in ("change", "stderr", "ci", "p_value", "df"):
            np.testing.assert_allclose(
                quick[name][field], full[name][field], rtol=1e-12, err_msg=f"{name} {field}"
            )
    rates = quick["no_reference_rate"]
    assert rates["change"] == pytest.approx(
        candidate.no_reference.mean() - base.no_reference.mean()
    )
    assert rates["stderr"] > 0


# ---- simulations (slow tier) -------------------------------------------------------------------
# Valid (asserted everywhere but LIBERAL): false positives at most the 5.5 % target plus about one
# Monte-Carlo sd; the stderr at least 0.9x the true sd; coverage at least 93 %.
VALID = {"fpr": (0.0, 0.065), "ratio": (0.9, np.inf), "coverage": (0.93, 1.0)}
# Tight (asserted everywhere but CONSERVATIVE): the stderr within 10 % of the true sd, coverage at
# most 97 %; a conservative one is held within the loose bounds instead.
TIGHT = {"ratio": (0.0, 1.1), "coverage": (0.0, 0.97)}
LOOSE = {"ratio": (0.0, 1.5), "coverage": (0.0, 0.995)}

# (design, variant, metric, statistic) measured outside their target (seeded: the module's
# tables). Not asserted against it; listed so that the test says what it does not hold.
LIBERAL = {
    ("mini", "same", "gender_skew", "fpr"),
    ("mini", "same", "gender_skew", "ratio"),
    ("mini", "interaction", "gender_skew", "ratio"),
    ("mini", "weaker", "gender_skew", "ratio"),
    ("mini", "weaker", "gender_skew", "coverage"),
    ("audio", "same", "gender_skew", "fpr"),
    ("mini_audio", "interaction", "gender_skew", "fpr"),
}
CONSERVATIVE = {
    ("mini", "weaker", "invalid_rate", "coverage"),
    ("audio", "same", "invalid_rate", "ratio"),
    ("audio", "interaction", "invalid_rate", "ratio"),
    *(
        ("audio", "weaker", name, statistic)
        for name, statistic in [
            ("mean_abs", "ratio"),
            ("mean_abs", "coverage"),
            ("gender_skew", "ratio"),
            ("no_reference_rate", "ratio"),
            ("no_reference_rate", "coverage"),
            ("invalid_rate", "coverage"),
        ]
    ),
    *(
        ("mini_audio", variant, name, "ratio")
        for variant, names in [
            ("same", open_pairs.METRICS),
            ("interaction", ("mean_abs", "no_reference_rate", "invalid_rate")),
            ("weaker", open_pairs.METRICS),
        ]
        for name in names
    ),
    *(
        ("mini_audio", "weaker", name, "coverage")
        for name in ("mean_abs", "no_reference_rate", "invalid_rate")
    ),
}


@cache
def measured(design: str, variant: str) -> dict[str, dict]:
    kwargs = {
        "same": {},
        "interaction": {"interaction": open_pairs.INTERACTION},
        "weaker": {"scale": 0.7},
    }[variant]
    runs = open_pairs.simulate(
        design, RUNS[design], seed=zlib.crc32(f"{design}/{variant}".encode()), **kwargs
    )
    gaps = open_designs.SCENARIO_GAPS["planted"]
    base = open_pairs.population(design, gaps)
    candidate = open_pairs.population(design, kwargs.get("scale", 1.0) * gaps)
    values = open_pairs.summary(runs, {name: candidate[name] - base[name] for name in base})
    for name, row in values.items():
        print(
            f"{design}/{variant} {name}: runs {row['runs']}, p < .05 {row['fpr']:.4f}, "
            f"stderr / true sd {row['ratio']:.3f}, coverage {row['coverage']:.4f}, "
            f"no stderr {row['no_stderr']}"
        )
    return values


def _outside(design: str, variant: str, statistics: tuple[str, ...]) -> dict:
    """{(metric, statistic, bound): value} outside VALID (unless LIBERAL) or TIGHT (LOOSE where
    CONSERVATIVE)."""
    values = measured(design, variant)
    outside = {}
    for name in open_pairs.METRICS:
        for statistic in statistics:
            key = (design, variant, name, statistic)
            value = values[name][statistic]
            checks = [] if key in LIBERAL else [("valid", VALID[statistic])]
            if statistic in TIGHT:
                checks.append(
                    ("loose", LOOSE[statistic])
                    if key in CONSERVATIVE
                    else ("tight", TIGHT[statistic])
                )
            for bound, (low, high) in checks:
                if not low <= value <= high:
                    outside[(name, statistic, bound)] = value
    return outside


@pytest.mark.slow
@pytest.mark.parametrize("variant", ["same", "interaction"])
@pytest.mark.parametrize("design", DESIGNS)
def test_same_model_changes_hold_their_level_and_stderr(design, variant):
    outside = _outside(design, variant, ("fpr", "ratio"))
    assert not outside, f"{design}/{variant} outside the target: {outside}"


@pytest.mark.slow
@pytest.mark.parametrize("design", DESIGNS)
def test_a_weaker_candidates_changes_cover_the_true_change(design):
    outside = _outside(design, "weaker", ("coverage", "ratio"))
    assert not outside, f"{design}/weaker outside the target: {outside}"
