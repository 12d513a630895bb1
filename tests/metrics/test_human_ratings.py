"""Correlations with human ratings (metrics.human_ratings): per gender against scipy, and the
pooled human correlation (gender means removed) with inference on the instruments: against
an independent leave-one-instrument-out loop, and its false-positive rate by simulation (the
cell-level Fisher test it replaces treats an instrument's three GAS values, which sum to 0, as
independent pairs and rejects a true null far more often than 5 %)."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from scipy import stats

from symphony_bench.metrics import human_correlation
from symphony_bench.metrics.human_ratings import pearson_with_ci


def centred_r(model: np.ndarray, human: np.ndarray) -> float:
    model, human = model - np.nanmean(model, axis=0), human - np.nanmean(human, axis=0)
    keep = np.isfinite(model.ravel()) & np.isfinite(human.ravel())
    return stats.pearsonr(model.ravel()[keep], human.ravel()[keep]).statistic


def test_the_pooled_inference_agrees_with_a_leave_one_instrument_out_loop():
    rng = np.random.default_rng(3)
    human = rng.normal(size=(22, 3))
    model = 0.5 * human + rng.normal(scale=0.5, size=(22, 3))
    model[4, 1] = np.nan
    pooled = human_correlation(model, human)["pooled_gender_means_removed"]
    human = np.where(np.isfinite(model), human, np.nan)
    left_out = np.arctanh(
        [centred_r(np.delete(model, i, 0), np.delete(human, i, 0)) for i in range(22)]
    )
    stderr = np.sqrt(21 / 22 * np.sum((left_out - left_out.mean()) ** 2))
    z = np.arctanh(centred_r(model, human))
    half = stats.t.ppf(0.975, 21) * stderr
    assert pooled["pearson_r"] == pytest.approx(np.tanh(z), abs=1e-12)
    assert pooled["p_value"] == pytest.approx(2 * stats.t.sf(abs(z) / stderr, 21), rel=1e-9)
    np.testing.assert_allclose(pooled["ci"], np.tanh([z - half, z + half]), rtol=1e-9)
    assert (pooled["n"], pooled["n_instruments"]) == (65, 22)


def test_too_few_instruments_give_no_inference():
    rng = np.random.default_rng(1)
    pooled = human_correlation(rng.normal(size=(3, 3)), rng.normal(size=(3, 3)))
    pooled = pooled["pooled_gender_means_removed"]
    assert np.isnan(pooled["p_value"]) and np.isnan(pooled["ci"]).all()


def gas_like(rng, instruments: int, scale: float) -> np.ndarray:
    """GAS-scale values: each instrument's three sum to 0, non-binary rated lower on average."""
    values = rng.normal(0, scale, (instruments, 3)) + [0.03, 0.03, -0.06]
    return values - values.mean(axis=1, keepdims=True)


@pytest.mark.slow
@pytest.mark.parametrize("instruments", [22, 14])
def test_under_independence_the_pooled_test_rejects_about_five_percent(instruments):
    rng = np.random.default_rng(instruments)
    runs, rejected, cell_level = 4_000, 0, 0
    for _ in range(runs):
        model, human = gas_like(rng, instruments, 0.05), gas_like(rng, instruments, 0.1)
        human += rng.standard_t(3, human.shape) * 0.02  # heavier-tailed survey noise
        pooled = human_correlation(model, human)["pooled_gender_means_removed"]
        rejected += pooled["p_value"] < 0.05
        r, n = pooled["pearson_r"], pooled["n"]
        z = np.arctanh(r) * np.sqrt(n - 3)  # the cell-level Fisher test
        cell_level += 2 * stats.norm.sf(abs(z)) < 0.05
    rate, cell_rate = rejected / runs, cell_level / runs
    print(f"{instruments} instruments: jackknife {rate:.3f}, cell-level Fisher {cell_rate:.3f}")
    assert 0.04 <= rate <= 0.06
    assert cell_rate > 0.10


def test_human_correlation_is_per_gender_with_a_fisher_interval_and_a_centred_pool():
    rng = np.random.default_rng(3)
    human = rng.normal(size=(22, 3))
    model = 0.5 * human + rng.normal(scale=0.5, size=(22, 3))
    model[4, 1] = np.nan
    result = human_correlation(model, human)
    for k, gender in enumerate(("male", "female", "non_binary")):
        keep = np.isfinite(model[:, k])
        expected = stats.pearsonr(model[keep, k], human[keep, k])
        interval = expected.confidence_interval(0.95)  # scipy's Fisher-z interval
        assert result[gender]["n"] == keep.sum()
        assert result[gender]["pearson_r"] == pytest.approx(expected.statistic)
        assert result[gender]["p_value"] == pytest.approx(expected.pvalue)
        np.testing.assert_allclose(result[gender]["ci"], [interval.low, interval.high], rtol=1e-9)
    with pytest.raises(ValueError, match="expected two"):
        human_correlation(model, human[:2])


def test_a_shared_gender_gap_alone_gives_no_pooled_correlation_once_gender_means_are_removed():
    rng = np.random.default_rng(4)
    gap = np.array([0.05, 0.05, -0.1])  # model and humans share only "non-binary is rated lower"
    model, human = (
        gap + rng.normal(scale=0.01, size=(22, 3)),
        gap + rng.normal(scale=0.01, size=(22, 3)),
    )
    naive = stats.pearsonr(model.ravel(), human.ravel()).statistic
    result = human_correlation(model, human)
    assert naive > 0.8
    assert abs(result["pooled_gender_means_removed"]["pearson_r"]) < 0.3
    assert all(abs(result[g]["pearson_r"]) < 0.5 for g in ("male", "female", "non_binary"))


def test_a_perfect_correlation_is_the_point_interval_without_a_warning():
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        result = pearson_with_ci([1, 2, 3, 4, 5], [2, 4, 6, 8, 10])
    assert result["pearson_r"] == pytest.approx(1.0)
    assert result["ci"] == [pytest.approx(1.0), pytest.approx(1.0)]
