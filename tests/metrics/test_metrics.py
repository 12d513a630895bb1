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
    arguments = {
        "scenario_ids": ["s"],
        "instruments": ["harp"],
        "categories": ["female"],
        "scores": [[1, 2, 3]],
        "valid": [True],
    }
    arguments.update(kwargs)
    with pytest.raises(ValueError, match=message):
        build_association_data(**arguments)


def test_conflicting_categories_for_one_instrument_raise():
    with pytest.raises(ValueError, match="more than one stereotype category"):
        build_association_data(
            ["a", "b"], ["harp", "harp"], ["female", "male"], [[1, 2, 3]] * 2, [True, True]
        )


def test_normalise_scores_rows_sum_to_one():
    shares = normalise_scores([[1, 2, 2], [0.2, 0.3, 0.5]], [True, True])
    np.testing.assert_allclose(shares.sum(axis=1), 1.0)


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


def test_prior_adjusted_abs_removes_a_gender_preference_that_ignores_the_instrument():
    from symphony_bench.metrics import prior_adjusted

    rng = np.random.default_rng(21)
    scenarios = np.repeat([f"s{k}" for k in range(40)], 5)
    instruments = np.tile(["", "harp", "flute", "drums", "tuba"], 40)  # "" = the control doc
    categories = np.tile(["none", "female", "female", "male", "male"], 40)
    scores = np.column_stack(
        [rng.integers(4, 6, 200), rng.integers(1, 3, 200), rng.integers(2, 4, 200)]
    )  # men favoured
    data = build_association_data(
        scenarios, instruments, categories, scores, np.ones(200, bool), control=instruments == ""
    )
    raw, adjusted = analyse(data, n_boot=200), analyse(prior_adjusted(data), n_boot=200)
    assert (
        raw.headline["consistency_rate"] == 0.5 and raw.n_valid.sum() == 160
    )  # control docs are not an instrument
    assert np.all(np.abs(raw.abs) > 0.2)  # +: drums, tuba; -: harp, flute
    assert (
        abs(adjusted.headline["mean_abs"]) < 0.05 and adjusted.headline["n_significant_holm"] == 0
    )
    # by hand: the adjusted difference is the doc's male-minus-female share minus its scenario control's
    shares = scores / scores.sum(axis=1, keepdims=True)
    difference = (shares[:, 0] - shares[:, 1]).reshape(40, 5)
    harp = adjusted.instruments.index("harp")
    assert adjusted.abs[harp] == pytest.approx(
        -np.mean(difference[:, 1] - difference[:, 0]), rel=1e-12
    )
    with pytest.raises(ValueError, match="control docs"):
        prior_adjusted(build_association_data(["s"], ["harp"], ["female"], [[1, 2, 3]], [True]))
