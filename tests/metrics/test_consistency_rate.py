"""The stereotype-consistency rate is descriptive (metrics.association.DESCRIPTIVE_HEADLINES): it
counts instruments by the sign of a noisy ABS, so what it estimates depends on the design's noise,
and no interval around it is offered, in a single run or in a paired change. The simulation shows
why: with every instrument truly consistent, the rate's expectation at a small design is far from
the true share (1), so an interval around it could not cover that share."""

from __future__ import annotations

import numpy as np

from symphony_bench.metrics import analyse, build_association_data
from symphony_bench.metrics.paired import association_changes

INSTRUMENTS, CATEGORIES = 14, np.array(["male"] * 8 + ["female"] * 6)


def consistent_run(rng, templates: int, true_abs: float = 0.02, noise: float = 0.1):
    """Every instrument truly stereotype-consistent (ABS = `true_abs` > 0), docs noisy; one doc per
    template and instrument; softmax-like shares from Likert-like scores."""
    signs = np.where(CATEGORIES == "male", 1.0, -1.0)
    template_effect = rng.normal(0, noise, (templates, 1))
    male = 1 / 3 + signs * true_abs / 2 + template_effect + rng.normal(0, noise, (templates, 14))
    female = 2 / 3 - male
    shares = np.stack([male, female, np.full_like(male, 1 / 3)], axis=-1)
    scores = np.clip(shares, 0.01, None).reshape(-1, 3)
    template = np.repeat(np.arange(templates), INSTRUMENTS).astype(str)
    instrument = np.tile(np.arange(INSTRUMENTS), templates)
    return build_association_data(
        template,
        instrument.astype(str),
        CATEGORIES[instrument],
        scores,
        np.ones(len(template), dtype=bool),
        template_ids=template,
    )


def test_the_rate_has_no_stderr_and_no_interval():
    headline = analyse(consistent_run(np.random.default_rng(1), 5), n_boot=50).headline
    assert 0.0 <= headline["consistency_rate"] <= 1.0
    assert "consistency_rate_stderr" not in headline and "consistency_rate_ci" not in headline
    assert "mean_abs_stderr" in headline and "mean_abs_ci" in headline


def test_the_paired_change_has_no_interval_and_no_test():
    rng = np.random.default_rng(2)
    base, candidate = consistent_run(rng, 6), consistent_run(rng, 6, true_abs=0.1)
    change = association_changes(base, candidate, n_boot=50)["consistency_rate"]
    assert np.isfinite(change["change"])
    assert np.isnan(change["stderr"]) and np.isnan(change["p_value"])
    assert np.isnan(change["ci"]).all()


def test_at_a_small_design_the_rate_is_pulled_far_from_the_true_share():
    """All 14 instruments truly consistent (true share 1): at 5 templates the expected rate is near
    0.56, at 86 templates near 0.78 - the estimand is the share of positive estimates at the design."""
    rng = np.random.default_rng(3)
    small = [analyse(consistent_run(rng, 5), n_boot=2).headline for _ in range(60)]
    large = [analyse(consistent_run(rng, 86), n_boot=2).headline for _ in range(20)]
    small_rate = np.mean([h["consistency_rate"] for h in small])
    large_rate = np.mean([h["consistency_rate"] for h in large])
    print(
        f"expected consistency rate, true share 1: 5 templates {small_rate:.3f}, 86 {large_rate:.3f}"
    )
    assert small_rate < 0.65 and large_rate > small_rate + 0.15 and large_rate < 0.9
