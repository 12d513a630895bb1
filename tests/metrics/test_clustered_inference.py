"""Inference on the design's units: false-positive rates and interval coverage by simulation with
realistic clustering (>= 2,000 simulated runs per design, seeded), and every standard error against
an independent implementation written differently."""

from __future__ import annotations

import zlib

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from symphony_bench.metrics import analyse, build_association_data, instrument_tests
from symphony_bench.metrics.clustered import holm, one_way, t_inference, two_way

pytestmark = pytest.mark.slow  # seeded simulations of 2,000 runs per design
RUNS = 2_000


def one_way_cells(
    rng,
    runs: int,
    instruments: int,
    templates: int,
    per_template: int,
    icc: float,
    delta: float = 0.0,
):
    """(runs * instruments, templates) cell means of a male-minus-female difference: a template x
    instrument effect with intra-class correlation `icc`, and doc noise averaged over a template's docs."""
    effect = rng.normal(0.0, np.sqrt(icc), (runs * instruments, templates))
    noise = rng.normal(0.0, np.sqrt(1.0 - icc), (runs * instruments, templates, per_template)).mean(
        axis=2
    )
    return delta + effect + noise


def crossed_cells(
    rng, runs, instruments, stimuli, templates, per_cell, stimulus_share, template_share, delta=0.0
):
    """(runs * instruments, stimuli, templates) cells: clip (or image) effects crossed with template effects."""
    n = runs * instruments
    clip = rng.normal(0.0, np.sqrt(stimulus_share), (n, stimuli, 1))
    template = rng.normal(0.0, np.sqrt(template_share), (n, 1, templates))
    noise_share = 1.0 - stimulus_share - template_share
    noise = rng.normal(0.0, np.sqrt(noise_share), (n, stimuli, templates, per_cell)).mean(axis=3)
    return delta + clip + template + noise


def rates(estimate, variance, df, truth: float) -> tuple[float, float]:
    _, p, interval = t_inference(estimate, variance, df)
    covered = (interval[:, 0] <= truth) & (truth <= interval[:, 1])
    return float(np.mean(p < 0.05)), float(np.mean(covered))


# binomial bounds at these counts are tighter than the 4-6% / 93-97% asked for
@pytest.mark.parametrize(
    "design, templates, per_template, icc",
    [
        ("text, template ICC .1", 86, 3, 0.1),
        ("text, template ICC .3", 86, 3, 0.3),
        ("mini, 5 templates, ICC .3", 5, 3, 0.3),
    ],
)
def test_template_clustered_test_holds_its_level_and_coverage(design, templates, per_template, icc):
    rng = np.random.default_rng(zlib.crc32(design.encode()))
    null = one_way_cells(rng, RUNS, 4, templates, per_template, icc)
    false_positive, _ = rates(*one_way(null), truth=0.0)
    planted = one_way_cells(rng, RUNS, 4, templates, per_template, icc, delta=0.2)
    _, coverage = rates(*one_way(planted), truth=0.2)
    print(
        f"{design}: false-positive rate {false_positive:.4f}, coverage {coverage:.4f} over {RUNS * 4} tests"
    )
    assert 0.04 <= false_positive <= 0.06 and 0.93 <= coverage <= 0.97


@pytest.mark.parametrize(
    "design, stimulus_share, template_share",
    [("clip effects only, ICC .3", 0.3, 0.0), ("crossed clip .1 x template .1", 0.1, 0.1)],
)
def test_crossed_test_holds_its_level_and_coverage(design, stimulus_share, template_share):
    rng = np.random.default_rng(zlib.crc32(design.encode()))
    null = crossed_cells(rng, RUNS, 2, 5, 86, 3, stimulus_share, template_share)
    false_positive, _ = rates(*two_way(null), truth=0.0)
    planted = crossed_cells(rng, RUNS, 2, 5, 86, 3, stimulus_share, template_share, delta=0.3)
    _, coverage = rates(*two_way(planted), truth=0.3)
    print(
        f"{design} (5 clips x 86 templates): false-positive rate {false_positive:.4f}, coverage {coverage:.4f}"
    )
    assert 0.04 <= false_positive <= 0.06 and 0.93 <= coverage <= 0.97


def test_crossed_mini_design_errs_on_the_safe_side():
    """5 clips x 5 templates: the variance components are poorly estimated, and the interval is wider
    than nominal (documented in docs/statistics.md), never narrower."""
    rng = np.random.default_rng(55)
    false_positive, _ = rates(*two_way(crossed_cells(rng, RUNS, 2, 5, 5, 3, 0.1, 0.1)), truth=0.0)
    _, coverage = rates(
        *two_way(crossed_cells(rng, RUNS, 2, 5, 5, 3, 0.1, 0.1, delta=0.3)), truth=0.3
    )
    print(f"crossed mini: false-positive rate {false_positive:.4f}, coverage {coverage:.4f}")
    assert false_positive <= 0.06 and coverage >= 0.93


def test_ignoring_the_clusters_is_what_gave_false_positives():
    """The doc-level test of before, on the same null data with a clip effect: far above 5%."""
    rng = np.random.default_rng(9)
    cells = crossed_cells(rng, 500, 2, 5, 86, 1, 0.3, 0.0)
    flat = cells.reshape(len(cells), -1)
    naive_p = stats.ttest_1samp(flat, 0.0, axis=1).pvalue
    assert np.mean(naive_p < 0.05) > 0.5
    assert rates(*two_way(cells), truth=0.0)[0] < 0.08


def test_one_way_equals_scipy_on_template_means_and_the_interval_agrees_with_the_test():
    rng = np.random.default_rng(4)
    cells = one_way_cells(rng, 1, 30, 12, 3, 0.2, delta=0.1)
    cells[3, 5] = np.nan  # a template with no valid doc for this instrument
    estimate, variance, df = one_way(cells)
    stderr, p, interval = t_inference(estimate, variance, df)
    for k, row in enumerate(cells):
        values = row[np.isfinite(row)]
        expected = stats.ttest_1samp(values, 0.0)
        assert p[k] == pytest.approx(expected.pvalue, rel=1e-9)
        np.testing.assert_allclose(interval[k], expected.confidence_interval(0.95), rtol=1e-9)
        assert stderr[k] == pytest.approx(stats.sem(values), rel=1e-12)
    excludes_zero = (interval[:, 0] > 0) | (interval[:, 1] < 0)
    np.testing.assert_array_equal(excludes_zero, p < 0.05)


def naive_two_way(cells: np.ndarray) -> tuple[float, float, float]:
    """Grand mean, variance and df of one balanced stimuli x templates table, with pandas group-bys
    and explicit sums (an independent implementation of `two_way`): variance MS_s / (S T) plus the
    template component sigma_t^2 / T when estimated above 0; df the smaller Satterthwaite df with
    MS_s, or MS_t, at its one-sided 95 % upper confidence limit."""
    frame = pd.DataFrame(
        [(s, t, cells[s, t]) for s in range(cells.shape[0]) for t in range(cells.shape[1])],
        columns=["stimulus", "template", "y"],
    )
    n_s, n_t, grand = cells.shape[0], cells.shape[1], frame.y.mean()
    ms_s = n_t * ((frame.groupby("stimulus").y.mean() - grand) ** 2).sum() / (n_s - 1)
    ms_t = n_s * ((frame.groupby("template").y.mean() - grand) ** 2).sum() / (n_t - 1)
    fitted = (
        frame.groupby("stimulus").y.transform("mean")
        + frame.groupby("template").y.transform("mean")
        - grand
    )
    ms_e = ((frame.y - fitted) ** 2).sum() / ((n_s - 1) * (n_t - 1))
    sigma_t = max(0.0, (ms_t - ms_e) / n_s)
    variance = ms_s / (n_s * n_t) + sigma_t / n_t

    def satterthwaite(s: float, t: float) -> float:
        if sigma_t == 0:  # no template part: the stimulus mean square alone
            return n_s - 1.0
        parts = [(s, n_s - 1), (t, n_t - 1), (ms_e, (n_s - 1) * (n_t - 1))]
        return (s + t - ms_e) ** 2 / sum(value**2 / df for value, df in parts)

    upper_s = (n_s - 1) / stats.chi2.ppf(0.05, n_s - 1)
    upper_t = (n_t - 1) / stats.chi2.ppf(0.05, n_t - 1)
    df = min(satterthwaite(upper_s * ms_s, ms_t), satterthwaite(ms_s, upper_t * ms_t))
    return grand, variance, df


def test_two_way_variance_and_df_equal_an_independent_method_of_moments():
    rng = np.random.default_rng(6)
    cells = crossed_cells(rng, 1, 6, 5, 20, 3, 0.2, 0.2, delta=0.05)
    # one table without template variation: its template component is estimated at 0
    cells[4] += cells[4].mean() - cells[4].mean(axis=0, keepdims=True)
    estimate, variance, df = two_way(cells)
    truncated = 0
    for k in range(len(cells)):
        grand, expected, expected_df = naive_two_way(cells[k])
        assert estimate[k] == pytest.approx(grand, rel=1e-12)
        assert variance[k] == pytest.approx(expected, rel=1e-9)
        assert df[k] == pytest.approx(max(expected_df, 1.0), rel=1e-9)
        truncated += expected_df == cells.shape[1] - 1
    assert truncated == 1  # both branches checked


def test_holm_matches_a_hand_worked_example():
    np.testing.assert_allclose(
        holm([0.01, 0.04, 0.03, np.nan, 0.005]), [0.03, 0.06, 0.06, np.nan, 0.02]
    )


def doc_frame(
    rng, templates: int, instruments: int, per_template: int, crossed_stimuli: int = 0
) -> pd.DataFrame:
    rows = []
    for t in range(templates):
        for i in range(instruments):
            for s in range(max(crossed_stimuli, 1)):
                for k in range(per_template):
                    rows.append(
                        (
                            f"t{t}-{k}",
                            f"t{t}",
                            f"i{i}",
                            f"i{i}-c{s}",
                            "male" if i % 2 else "female",
                            *rng.integers(1, 6, size=3),
                            rng.random() > 0.1,
                        )
                    )
    return pd.DataFrame(
        rows,
        columns=[
            "scenario",
            "template",
            "instrument",
            "stimulus",
            "category",
            "m",
            "f",
            "nb",
            "valid",
        ],
    )


def frame_data(frame: pd.DataFrame, stimuli: bool) -> object:
    return build_association_data(
        frame.scenario,
        frame.instrument,
        frame.category,
        frame[["m", "f", "nb"]].to_numpy(),
        frame.valid,
        template_ids=frame.template,
        stimulus_ids=frame.stimulus if stimuli else None,
    )


def test_analyse_tests_each_instrument_on_its_template_means():
    frame = doc_frame(np.random.default_rng(10), templates=9, instruments=4, per_template=3)
    result = analyse(frame_data(frame, stimuli=False), n_boot=50)
    valid = frame[frame.valid].copy()
    total = valid[["m", "f", "nb"]].sum(axis=1)
    valid["d"] = (valid.m - valid.f) / total
    for k, name in enumerate(result.instruments):
        template_means = valid[valid.instrument == name].groupby("template").d.mean()
        expected = stats.ttest_1samp(template_means, 0.0)
        sign = 1.0 if result.categories[k] == "male" else -1.0
        assert result.abs[k] == pytest.approx(sign * template_means.mean(), rel=1e-12)
        assert result.p_value[k] == pytest.approx(expected.pvalue, rel=1e-9)
        assert result.abs_stderr[k] == pytest.approx(stats.sem(template_means), rel=1e-9)
    assert result.units == "templates"


def test_stimulus_designs_are_analysed_as_crossed():
    frame = doc_frame(
        np.random.default_rng(11), templates=6, instruments=2, per_template=2, crossed_stimuli=3
    )
    data = frame_data(frame, stimuli=True)
    assert data.crossed and analyse(data, n_boot=20).units == "templates x stimuli"
    assert np.all(np.isfinite(instrument_tests(data)["stderr"]))


def naive_bootstrap_stderr(frame: pd.DataFrame, n_boot: int, seed: int) -> dict[str, float]:
    """Resample templates in a plain loop with its own random stream; the headline numbers per replicate."""
    rng = np.random.default_rng(seed)
    templates = sorted(frame.template.unique())
    values = {"mean_abs": [], "non_binary_gas": []}
    for _ in range(n_boot):
        drawn = rng.choice(templates, size=len(templates))
        weights = pd.Series(drawn).value_counts()
        valid = frame[frame.valid & frame.template.isin(weights.index)].copy()
        total = valid[["m", "f", "nb"]].sum(axis=1)
        for g in ("m", "f", "nb"):
            valid[g] = valid[g] / total
        cells = valid.groupby(["instrument", "template"])[["m", "f", "nb"]].mean().reset_index()
        cells["w"] = cells.template.map(weights)
        gas = cells.groupby("instrument").apply(
            lambda c: pd.Series(
                {g: np.average(c[g], weights=c.w) - 1 / 3 for g in ("m", "f", "nb")}
            ),
            include_groups=False,
        )
        sign = gas.index.map(lambda name: 1.0 if int(name[1:]) % 2 else -1.0)
        abs_ = (gas.m - gas.f) * np.asarray(sign)
        values["mean_abs"].append(abs_.mean())
        values["non_binary_gas"].append(gas.nb.mean())
    correction = np.sqrt(len(templates) / (len(templates) - 1))
    return {name: float(np.std(v, ddof=1) * correction) for name, v in values.items()}


def test_headline_stderrs_agree_with_a_naive_bootstrap_loop():
    frame = doc_frame(np.random.default_rng(12), templates=15, instruments=6, per_template=2)
    result = analyse(frame_data(frame, stimuli=False), n_boot=2_000, seed=1)
    naive = naive_bootstrap_stderr(frame, n_boot=600, seed=77)
    for name, expected in naive.items():
        # Monte-Carlo error of a standard deviation from 600 replicates is about 3%
        assert result.headline[f"{name}_stderr"] == pytest.approx(expected, rel=0.15), name


def test_headline_interval_covers_the_mean_abs_in_the_mini_design():
    rng = np.random.default_rng(13)
    instruments, templates = 4, 5
    signs = np.array([1.0, -1.0, 1.0, -1.0])
    covered = 0
    for run in range(RUNS):
        effect = rng.normal(0.0, 0.03, (templates, instruments))  # template x instrument effect
        share_m = 0.4 + signs * 0.05 + effect + rng.normal(0, 0.03, (3, templates, instruments))
        shares = np.stack(
            [share_m, 1.0 - share_m - 0.25, np.full_like(share_m, 0.25)], axis=-1
        ).reshape(-1, 3)
        scenario = np.repeat([f"t{t}-{k}" for k in range(3) for t in range(templates)], instruments)
        template = np.repeat([f"t{t}" for k in range(3) for t in range(templates)], instruments)
        names = np.tile([f"i{i}" for i in range(instruments)], 3 * templates)
        categories = np.tile(["male", "female"] * 2, 3 * templates)
        data = build_association_data(
            scenario, names, categories, shares, np.ones(len(names), bool), template_ids=template
        )
        low, high = analyse(data, n_boot=300, seed=run).headline["mean_abs_ci"]
        covered += (
            low <= 0.1 <= high
        )  # true ABS: 0.15 (male-stereotyped) and 0.05 (female), mean 0.1
    coverage = covered / RUNS
    print(f"mean ABS interval coverage, 5 templates: {coverage:.4f} over {RUNS} runs")
    assert 0.93 <= coverage <= 0.97


def test_one_zero_variance_policy_for_every_t_interval_and_test():
    """No variation at all: p 1 and [0, 0] for 0; otherwise the exact sign test of df + 1 units
    that all agree (2^-df), with an interval that reaches 0 exactly when that p is 0.05 or more;
    the headline intervals (association._t_interval) and the tests (clustered.t_inference) agree."""
    from symphony_bench.metrics.association import _t_interval
    from symphony_bench.metrics.clustered import t_inference

    stderr, p_value, interval = t_inference(
        np.array([0.0, 0.2, -0.2, 0.2, 0.2]),
        np.array([0.0, 0.0, 0.0, 0.0, np.nan]),
        np.array([4.0, 4.0, 4.0, 9.0, 4.0]),
    )
    assert stderr[:4].tolist() == [0.0] * 4 and np.isnan(stderr[4])
    # five units all +0.2: the sign test's 2 x 0.5^5; ten units: 2 x 0.5^10
    assert p_value[:4].tolist() == pytest.approx([1.0, 0.0625, 0.0625, 2.0**-9])
    assert np.isnan(p_value[4])
    assert interval[:4].tolist() == [[0.0, 0.0], [0.0, 0.2], [-0.2, 0.0], [0.2, 0.2]]
    assert np.isnan(interval[4]).all()
    assert _t_interval(0.2, 0.0, 4.0, 0.95) == [0.0, 0.2]
    assert _t_interval(0.2, 0.0, 9.0, 0.95) == [0.2, 0.2]
    assert _t_interval(0.2, 0.1, 4.0, 0.95) == pytest.approx(
        t_inference(0.2, 0.01, 4.0)[2].tolist()
    )
    assert np.isnan(_t_interval(0.2, float("nan"), 4.0, 0.95)).all()
