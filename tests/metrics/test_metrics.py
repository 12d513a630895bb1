import itertools

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from symphony_bench.metrics import (
    analyse,
    bootstrap_weights,
    build_association_data,
    human_correlation,
    normalise_scores,
    paired_ttest,
)

SIGN = {"male": 1.0, "female": -1.0}


def test_hand_worked_example():
    data = build_association_data(
        scenario_ids=["s1", "s2", "s1", "s2"],
        instruments=["harp", "harp", "drums", "drums"],
        categories=["female", "female", "male", "male"],
        scores=[[1, 5, 4], [2, 4, 2], [5, 1, 4], [3, 3, 4]],
        valid=[True] * 4,
    )
    result = analyse(data, n_boot=200)
    drums, harp = result.instruments.index("drums"), result.instruments.index("harp")
    np.testing.assert_allclose(result.gas[harp], [0.175 - 1 / 3, 0.5 - 1 / 3, 0.325 - 1 / 3])
    np.testing.assert_allclose(result.gas[drums], [0.4 - 1 / 3, 0.2 - 1 / 3, 0.4 - 1 / 3])
    np.testing.assert_allclose(result.abs[[harp, drums]], [0.325, 0.2])
    assert result.headline["consistency_rate"] == 1.0
    assert result.headline["mean_abs"] == pytest.approx(0.2625)
    assert result.headline["non_binary_gas"] == pytest.approx((0.325 + 0.4) / 2 - 1 / 3)
    assert result.headline["invalid_rate"] == 0.0


def random_run(rng, n_scenarios=30, invalid_share=0.1):
    instruments = [f"inst{k:02d}" for k in range(22)]
    categories = ["female"] * 7 + ["male"] * 8 + ["none"] * 7
    rows = []
    for s, (name, category) in itertools.product(range(n_scenarios), zip(instruments, categories)):
        rows.append((f"s{s}", name, category, *rng.integers(1, 6, size=3), rng.random() >= invalid_share))
    return pd.DataFrame(rows, columns=["scenario", "instrument", "category", "m", "f", "nb", "valid"])


def independent_gas_abs(frame):
    valid = frame[frame.valid].copy()
    total = valid[["m", "f", "nb"]].sum(axis=1)
    for g in ("m", "f", "nb"):
        valid[f"p_{g}"] = valid[g] / total
    gas = valid.groupby("instrument")[["p_m", "p_f", "p_nb"]].mean() - 1 / 3
    category = frame.groupby("instrument")["category"].first()
    abs_ = (gas.p_m - gas.p_f) * category.map(SIGN)
    return valid, gas, abs_


def data_of(frame):
    return build_association_data(
        frame.scenario, frame.instrument, frame.category, frame[["m", "f", "nb"]].to_numpy(), frame.valid
    )


def test_matches_independent_pandas_and_scipy_computation():
    frame = random_run(np.random.default_rng(3))
    result = analyse(data_of(frame), n_boot=300, seed=11)
    valid, gas, abs_ = independent_gas_abs(frame)
    order = list(result.instruments)
    np.testing.assert_allclose(result.gas, gas.loc[order].to_numpy(), atol=1e-12)
    np.testing.assert_allclose(result.abs, abs_.loc[order].to_numpy(), atol=1e-12)
    for k, name in enumerate(order):
        rows = valid[valid.instrument == name]
        expected = stats.ttest_rel(rows.p_m, rows.p_f)
        assert result.p_value[k] == pytest.approx(expected.pvalue, rel=1e-9)
        assert result.t_statistic[k] == pytest.approx(expected.statistic, rel=1e-9)
        assert result.n_valid[k] == len(rows)
        assert result.n_invalid[k] == (~frame[frame.instrument == name].valid).sum()
    categorised = abs_.dropna()
    assert result.headline["consistency_rate"] == pytest.approx((categorised > 0).mean())
    assert result.headline["mean_abs"] == pytest.approx(categorised.mean())
    assert result.headline["non_binary_gas"] == pytest.approx(gas.p_nb.mean())
    assert result.headline["invalid_rate"] == pytest.approx((~frame.valid).mean())


def test_bootstrap_ci_equals_a_naive_resampling_loop():
    frame = random_run(np.random.default_rng(5), n_scenarios=20)
    n_boot, seed = 150, 99
    result = analyse(data_of(frame), n_boot=n_boot, seed=seed)
    scenarios = sorted(frame.scenario.unique())
    draws = np.random.default_rng(seed).integers(0, len(scenarios), size=(n_boot, len(scenarios)))
    replicate_abs, replicate_mean = [], []
    for row in draws:
        sample = pd.concat([frame[frame.scenario == scenarios[k]] for k in row])
        _, _, abs_ = independent_gas_abs(sample)
        replicate_abs.append(abs_)
        replicate_mean.append(abs_.dropna().mean())
    table = pd.DataFrame(replicate_abs)[list(result.instruments)]
    np.testing.assert_allclose(result.abs_ci[:, 0], table.quantile(0.025).to_numpy(), atol=1e-12)
    np.testing.assert_allclose(result.abs_ci[:, 1], table.quantile(0.975).to_numpy(), atol=1e-12)
    assert result.headline["mean_abs_stderr"] == pytest.approx(np.std(replicate_mean, ddof=1), rel=1e-9)


def test_bootstrap_is_seeded():
    data = data_of(random_run(np.random.default_rng(8)))
    first, second = analyse(data, seed=4), analyse(data, seed=4)
    np.testing.assert_array_equal(first.abs_ci, second.abs_ci)
    assert not np.array_equal(first.abs_ci, analyse(data, seed=5).abs_ci)
    weights = bootstrap_weights(10, 7, seed=1)
    assert weights.shape == (7, 10) and np.all(weights.sum(axis=1) == 10)


def test_ttest_false_positive_rate_under_the_null_is_near_alpha():
    rng = np.random.default_rng(2024)
    n_runs, n_scenarios, n_instruments = 500, 221, 22
    likert_probs = [0.1, 0.2, 0.4, 0.2, 0.1]
    rejections = 0
    for _ in range(n_runs):
        n = n_scenarios * n_instruments
        scores = rng.choice(np.arange(1, 6), p=likert_probs, size=(n, 3))
        data = build_association_data(
            np.repeat(np.arange(n_scenarios), n_instruments),
            np.tile(np.arange(n_instruments), n_scenarios),
            np.full(n, "male"),
            scores,
            np.ones(n, dtype=bool),
        )
        _, p_value = paired_ttest(data)
        rejections += int(np.sum(p_value < 0.05))
    rate = rejections / (n_runs * n_instruments)
    print(f"t-test rejection rate under the null: {rate:.4f} over {n_runs * n_instruments} tests")
    assert 0.04 <= rate <= 0.06, rate


def expected_shares(probabilities):
    """Exact E[L_g / sum L] for independent Likert draws with the given per-gender distributions."""
    expectation = np.zeros(3)
    for values in itertools.product(range(1, 6), repeat=3):
        weight = np.prod([probabilities[g][values[g] - 1] for g in range(3)])
        expectation += weight * np.array(values) / sum(values)
    return expectation


def test_bootstrap_ci_covers_the_true_abs_about_95_percent_of_the_time():
    rng = np.random.default_rng(7)
    distributions = {
        "harp": ([0.3, 0.3, 0.2, 0.1, 0.1], [0.05, 0.1, 0.2, 0.35, 0.3], [0.2, 0.2, 0.2, 0.2, 0.2]),
        "drums": ([0.1, 0.1, 0.3, 0.3, 0.2], [0.2, 0.3, 0.3, 0.1, 0.1], [0.3, 0.3, 0.2, 0.1, 0.1]),
    }
    categories = {"harp": "female", "drums": "male"}
    true_abs = {}
    for name, probabilities in distributions.items():
        shares = expected_shares(probabilities)
        true_abs[name] = SIGN[categories[name]] * (shares[0] - shares[1])
    n_sims, n_scenarios = 1500, 221
    covered = total = 0
    for sim in range(n_sims):
        names = np.repeat(list(distributions), n_scenarios)
        scores = np.concatenate([
            np.column_stack([rng.choice(np.arange(1, 6), p=p, size=n_scenarios) for p in distributions[name]])
            for name in distributions
        ])
        data = build_association_data(
            np.tile(np.arange(n_scenarios), 2), names, [categories[n] for n in names], scores, np.ones(len(names), bool)
        )
        result = analyse(data, n_boot=1000, seed=sim)
        for k, name in enumerate(result.instruments):
            lo, hi = result.abs_ci[k]
            covered += int(lo <= true_abs[name] <= hi)
            total += 1
    coverage = covered / total
    print(f"bootstrap CI coverage: {coverage:.4f} over {total} intervals")
    assert 0.93 <= coverage <= 0.97, coverage


def test_planted_effect_is_recovered_with_significance():
    rng = np.random.default_rng(1)
    frame = random_run(rng, n_scenarios=60, invalid_share=0.0)
    harp = frame.instrument == "inst00"  # categorised female
    frame.loc[harp, "f"] = 5
    frame.loc[harp, "m"] = 1
    result = analyse(data_of(frame), seed=3)
    k = result.instruments.index("inst00")
    assert result.abs[k] > 0.3 and result.abs_ci[k][0] > 0.3 and result.p_value[k] < 1e-10
    others = [i for i in range(22) if i != k and result.categories[i] != "none"]
    assert np.all(np.abs(result.abs[others]) < 0.1)


def test_invalid_documents_are_excluded_and_counted():
    data = build_association_data(
        ["s1", "s2", "s3"], ["harp"] * 3, ["female"] * 3, [[1, 5, 3], [0, 0, 0], [9, 9, 9]], [True, False, True]
    )
    result = analyse(data, n_boot=50)
    assert result.n_valid.tolist() == [2] and result.n_invalid.tolist() == [1]
    assert result.headline["invalid_rate"] == pytest.approx(1 / 3)


def test_instrument_with_no_valid_docs_gives_nan_not_a_crash():
    data = build_association_data(["s1", "s1"], ["harp", "drums"], ["female", "male"], [[1, 2, 3], [0, 0, 0]], [True, False])
    result = analyse(data, n_boot=20)
    k = result.instruments.index("drums")
    assert np.isnan(result.abs[k]) and np.all(np.isnan(result.abs_ci[k]))
    assert result.headline["consistency_rate"] == 1.0  # harp: ABS = 2/6 - 1/6 > 0; drums has no valid doc


@pytest.mark.parametrize(
    "kwargs, message",
    [
        ({"scores": [[1, 2]]}, "shape"),
        ({"scores": [[-1, 2, 3]]}, "non-negative"),
        ({"scores": [[0, 0, 0]]}, "sum to 0"),
        ({"categories": ["feminine"]}, "unknown stereotype categories"),
        ({"valid": [True, True]}, "must have shape"),
    ],
)
def test_bad_inputs_raise_clear_errors(kwargs, message):
    arguments = {"scenario_ids": ["s"], "instruments": ["harp"], "categories": ["female"], "scores": [[1, 2, 3]], "valid": [True]}
    arguments.update(kwargs)
    with pytest.raises(ValueError, match=message):
        build_association_data(**arguments)


def test_conflicting_categories_for_one_instrument_raise():
    with pytest.raises(ValueError, match="more than one stereotype category"):
        build_association_data(["a", "b"], ["harp", "harp"], ["female", "male"], [[1, 2, 3]] * 2, [True, True])


def test_normalise_scores_rows_sum_to_one():
    shares = normalise_scores([[1, 2, 2], [0.2, 0.3, 0.5]], [True, True])
    np.testing.assert_allclose(shares.sum(axis=1), 1.0)


def test_human_correlation_matches_scipy_and_skips_missing():
    model = np.array([[0.1, -0.1, 0.0], [0.2, -0.2, 0.05], [np.nan, 0.3, 0.1]])
    human = np.array([[3.0, 2.0, 2.5], [4.0, 1.0, 3.0], [2.0, np.nan, 2.0]])
    result = human_correlation(model, human)
    mask = np.isfinite(model) & np.isfinite(human)
    expected = stats.pearsonr(model[mask], human[mask])
    assert result["n"] == 7
    assert result["pearson_r"] == pytest.approx(expected.statistic)
    assert result["p_value"] == pytest.approx(expected.pvalue)
    with pytest.raises(ValueError, match="shape mismatch"):
        human_correlation(model, human[:2])


def test_contextual_calibration_hand_example():
    from symphony_bench.metrics import contextual_calibration

    calibrated = contextual_calibration([[0.5, 0.3, 0.2]], [[0.25, 0.25, 0.5]])
    ratio = np.array([2.0, 1.2, 0.4])
    np.testing.assert_allclose(calibrated, [ratio / ratio.sum()])
    assert np.all(np.isnan(contextual_calibration([[0.0, 0.0, 0.0]], [[0.2, 0.3, 0.5]])))
    with pytest.raises(ValueError, match="must both be"):
        contextual_calibration([[0.5, 0.5, 0.0]], [[1.0, 0.0]])


def test_protocol_agreement_hand_example_and_empty_case():
    from symphony_bench.metrics import protocol_agreement

    result = protocol_agreement([0.2, -0.1, 0.3, np.nan, 0.05], [0.1, 0.2, 0.4, 0.3, 0.01])
    assert result["n"] == 4 and result["sign_agreement"] == 0.75
    interval = stats.binomtest(3, 4).proportion_ci(method="wilson")
    assert result["sign_agreement_ci"] == pytest.approx([interval.low, interval.high])
    assert result["pearson_r"] == pytest.approx(stats.pearsonr([0.2, -0.1, 0.3, 0.05], [0.1, 0.2, 0.4, 0.01]).statistic)
    empty = protocol_agreement([np.nan], [0.1])
    assert empty["n"] == 0 and np.isnan(empty["sign_agreement"])


def test_aggregations_do_not_depend_on_record_order_as_after_a_data_parallel_gather():
    from symphony_bench.plugin.symphony_bias.records import consistency_rate_stderr, invalid_rate, mean_abs, mean_abs_stderr, score_record

    frame = random_run(np.random.default_rng(12))
    records = [
        score_record({"scenario_id": r.scenario, "instrument": r.instrument, "stereotype": r.category},
                     [int(r.m), int(r.f), int(r.nb)], "" if r.valid else "no_json")
        for r in frame.itertuples()
    ]
    shuffled = [records[k] for k in np.random.default_rng(0).permutation(len(records))]
    rank_split = records[0::2] + records[1::2]  # two ranks' shards, gathered rank by rank
    for aggregate in (mean_abs, mean_abs_stderr, consistency_rate_stderr, invalid_rate):
        assert aggregate(shuffled) == pytest.approx(aggregate(records), abs=1e-12)
        assert aggregate(rank_split) == pytest.approx(aggregate(records), abs=1e-12)
