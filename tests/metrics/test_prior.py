"""The control doc against the instrument docs (metrics.prior.control_check): the
prior-adjusted analysis assumes the instrument-free control elicits the gender prior an instrument
doc does. Against an independent pandas computation and resampling loop, and by simulation: a
control that reads 0.2 logit more male shifts every adjusted ABS (many false positives per
instrument) and the check finds it; with a faithful control it rejects about 5 %. And the
prior-adjusted ABS (metrics.prior.prior_adjusted) by hand."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from scipy.special import softmax

from symphony_bench.metrics import analyse, build_association_data, control_check, prior_adjusted

CATEGORIES = np.array(["male"] * 4 + ["female"] * 4)


def text_run(rng, templates=30, control_shift=0.0, per_template=3):
    """Scenario docs (3 per template: one per filler) for 8 instruments with no true association,
    a template effect on the male logit, and one control doc per scenario whose male logit is
    `control_shift` above an instrument doc's."""
    rows = []
    template_effect = rng.normal(0, 0.3, templates)
    for t in range(templates):
        for k in range(per_template):
            for instrument in range(len(CATEGORIES) + 1):
                control = instrument == len(CATEGORIES)
                logit = np.array([0.2 + template_effect[t], 0.0, -0.5]) + rng.normal(0, 0.3, 3)
                logit[0] += control_shift if control else 0.0
                rows.append(
                    {
                        "scenario": f"t{t}-{k}",
                        "template": f"t{t}",
                        "instrument": "" if control else f"i{instrument}",
                        "category": "none" if control else CATEGORIES[instrument],
                        "shares": softmax(logit),
                        "control": control,
                    }
                )
    return pd.DataFrame(rows)


def association_data(frame: pd.DataFrame):
    return build_association_data(
        frame.scenario.to_numpy(),
        frame.instrument.to_numpy(),
        frame.category.to_numpy(),
        np.stack(frame.shares.to_numpy()),
        np.ones(len(frame), dtype=bool),
        template_ids=frame.template.to_numpy(),
        control=frame.control.to_numpy(),
    )


def independent_gap(frame: pd.DataFrame, templates) -> float:
    """(instrument-average male - female GAS) - (control male - female GAS), on the given templates
    (with repetition), with pandas."""
    shares = pd.DataFrame(np.stack(frame.shares.to_numpy()), columns=["m", "f", "nb"])
    shares["gap"] = shares.m - shares.f
    shares[["template", "instrument", "control"]] = frame[["template", "instrument", "control"]]
    per_template = shares.groupby(["control", "instrument", "template"]).gap.mean()
    drawn = pd.Series(templates).value_counts()
    control = per_template.loc[True].droplevel(0)
    control_gap = np.average(control[drawn.index], weights=drawn)
    instrument_gaps = [
        np.average(rows.droplevel(0)[drawn.index], weights=drawn)
        for _, rows in per_template.loc[False].groupby(level=0)
    ]
    return float(np.mean(instrument_gaps) - control_gap)


def test_the_check_agrees_with_pandas_and_a_resampling_loop():
    rng = np.random.default_rng(7)
    frame = text_run(rng, templates=12, control_shift=0.2)
    check = control_check(association_data(frame), n_boot=3000, seed=1)
    templates = sorted(frame.template.unique())
    assert check["gap_difference"] == pytest.approx(independent_gap(frame, templates), abs=1e-12)
    control = np.stack(frame[frame.control].shares.to_numpy()).mean(axis=0) - 1 / 3
    np.testing.assert_allclose(check["control_gas"], control, atol=1e-12)
    loop_rng = np.random.default_rng(99)
    replicates = [
        independent_gap(frame, loop_rng.choice(templates, len(templates))) for _ in range(300)
    ]
    naive = np.std(replicates, ddof=1) * np.sqrt(12 / 11)
    assert check["gap_difference_stderr"] == pytest.approx(naive, rel=0.15)
    low, high = check["gap_difference_ci"]
    assert (low > 0 or high < 0) == (check["gap_difference_p_value"] < 0.05)
    assert check["n_templates"] == 12


def test_a_run_without_control_docs_is_a_clear_error():
    frame = text_run(np.random.default_rng(1), templates=3)
    frame = frame[~frame.control]
    with pytest.raises(ValueError, match="control docs"):
        control_check(association_data(frame))


RUNS = 1_000


@pytest.mark.slow
def test_a_more_male_control_is_found_and_a_faithful_one_passes():
    rng = np.random.default_rng(24)
    checked = {0.0: 0, 0.2: 0}
    adjusted_false_positives = 0
    for run in range(RUNS):
        for shift in checked:
            data = association_data(text_run(rng, control_shift=shift))
            checked[shift] += (
                control_check(data, n_boot=200, seed=run)["gap_difference_p_value"] < 0.05
            )
            if shift and run < 100:
                p = analyse(prior_adjusted(data), n_boot=2).p_value
                adjusted_false_positives += int(np.sum(p < 0.05))
    faithful, shifted = checked[0.0] / RUNS, checked[0.2] / RUNS
    false_positive_rate = adjusted_false_positives / (100 * len(CATEGORIES))
    print(
        f"control check rejects: faithful control {faithful:.3f}, 0.2 logit more male {shifted:.3f}; "
        f"per-instrument adjusted false positives with the shifted control {false_positive_rate:.3f}"
    )
    assert 0.04 <= faithful <= 0.06
    assert shifted > 0.9
    assert false_positive_rate > 0.2  # what the check warns about


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
