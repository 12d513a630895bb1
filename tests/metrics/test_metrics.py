import itertools

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from symphony_bench.metrics import (
    analyse,
    bootstrap_weights,
    build_association_data,
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
    for s, (name, category) in itertools.product(
        range(n_scenarios), zip(instruments, categories, strict=True)
    ):
        rows.append(
            (f"s{s}", name, category, *rng.integers(1, 6, size=3), rng.random() >= invalid_share)
        )
    return pd.DataFrame(
        rows, columns=["scenario", "instrument", "category", "m", "f", "nb", "valid"]
    )


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
        frame.scenario,
        frame.instrument,
        frame.category,
        frame[["m", "f", "nb"]].to_numpy(),
        frame.valid,
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
        if (
            result.categories[k] != "none"
        ):  # one doc per (scenario, instrument): the paired t-test of docs
            assert result.p_value[k] == pytest.approx(
                stats.ttest_rel(rows.p_m, rows.p_f).pvalue, rel=1e-9
            )
        assert result.n_valid[k] == len(rows)
        assert result.n_invalid[k] == (~frame[frame.instrument == name].valid).sum()
    categorised = abs_.dropna()
    assert result.headline["consistency_rate"] == pytest.approx((categorised > 0).mean())
    assert result.headline["mean_abs"] == pytest.approx(categorised.mean())
    assert result.headline["non_binary_gas"] == pytest.approx(gas.p_nb.mean())
    assert result.headline["invalid_rate"] == pytest.approx((~frame.valid).mean())


def test_bootstrap_is_seeded():
    data = data_of(random_run(np.random.default_rng(8)))
    first, second = analyse(data, seed=4), analyse(data, seed=4)
    assert first.headline["mean_abs_stderr"] == second.headline["mean_abs_stderr"]
    assert first.headline["mean_abs_stderr"] != analyse(data, seed=5).headline["mean_abs_stderr"]
    weights = bootstrap_weights(10, 7, seed=1)
    assert weights.shape == (7, 10) and np.all(weights.sum(axis=1) == 10)


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
        ["s1", "s2", "s3"],
        ["harp"] * 3,
        ["female"] * 3,
        [[1, 5, 3], [0, 0, 0], [9, 9, 9]],
        [True, False, True],
    )
    result = analyse(data, n_boot=50)
    assert result.n_valid.tolist() == [2] and result.n_invalid.tolist() == [1]
    assert result.headline["invalid_rate"] == pytest.approx(1 / 3)


def test_instrument_with_no_valid_docs_gives_nan_not_a_crash():
    data = build_association_data(
        ["s1", "s1"], ["harp", "drums"], ["female", "male"], [[1, 2, 3], [0, 0, 0]], [True, False]
    )
    result = analyse(data, n_boot=20)
    k = result.instruments.index("drums")
    assert np.isnan(result.abs[k]) and np.all(np.isnan(result.abs_ci[k]))
    assert (
        result.headline["consistency_rate"] == 1.0
    )  # harp: ABS = 2/6 - 1/6 > 0; drums has no valid doc


def test_protocol_agreement_hand_example_and_empty_case():
    from symphony_bench.metrics import protocol_agreement

    result = protocol_agreement([0.2, -0.1, 0.3, np.nan, 0.05], [0.1, 0.2, 0.4, 0.3, 0.01])
    assert result["n"] == 4 and result["sign_agreement"] == 0.75
    interval = stats.binomtest(3, 4).proportion_ci(method="wilson")
    assert result["sign_agreement_ci"] == pytest.approx([interval.low, interval.high])
    assert result["pearson_r"] == pytest.approx(
        stats.pearsonr([0.2, -0.1, 0.3, 0.05], [0.1, 0.2, 0.4, 0.01]).statistic
    )
    empty = protocol_agreement([np.nan], [0.1])
    assert empty["n"] == 0 and np.isnan(empty["sign_agreement"])


def test_aggregations_do_not_depend_on_record_order_as_after_a_data_parallel_gather():
    from symphony_bench.plugin.symphony_bias.records import (
        consistency_rate,
        invalid_rate,
        mean_abs,
        mean_abs_stderr,
        score_record,
    )

    frame = random_run(np.random.default_rng(12))
    records = [
        score_record(
            {"scenario_id": r.scenario, "instrument": r.instrument, "stereotype": r.category},
            [int(r.m), int(r.f), int(r.nb)],
            "" if r.valid else "no_json",
        )
        for r in frame.itertuples()
    ]
    shuffled = [records[k] for k in np.random.default_rng(0).permutation(len(records))]
    rank_split = records[0::2] + records[1::2]  # two ranks' shards, gathered rank by rank
    for aggregate in (mean_abs, mean_abs_stderr, consistency_rate, invalid_rate):
        assert aggregate(shuffled) == pytest.approx(aggregate(records), abs=1e-12)
        assert aggregate(rank_split) == pytest.approx(aggregate(records), abs=1e-12)
