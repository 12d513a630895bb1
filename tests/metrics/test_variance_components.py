"""The variance components of the male - female share difference: recovery of planted components
(balanced, and with 5% of the docs missing), an independent REML fit (statsmodels' MixedLM) on the
same data, and the cases the design cannot separate."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from symphony_bench.metrics import build_association_data
from symphony_bench.metrics.variance_components import variance_components

TRUTH_TEXT = {
    "instrument": 0.010,
    "template": 0.004,
    "template_x_instrument": 0.003,
    "residual": 0.006,
}
TRUTH_AUDIO = {**TRUTH_TEXT, "stimulus": 0.005}


def simulated_docs(rng, templates, instruments, stimuli, docs, truth, missing=0.0) -> pd.DataFrame:
    """One row per doc: y = a_i + b_t + ab_ti + c_s + e with the `truth` variances (stimuli nested
    in instruments, `docs` per template x stimulus cell), a share `missing` of docs dropped."""
    t, i, k, r = np.indices((templates, instruments, stimuli, docs)).reshape(4, -1)
    s = i * stimuli + k
    a = rng.normal(0, np.sqrt(truth["instrument"]), instruments)
    b = rng.normal(0, np.sqrt(truth["template"]), templates)
    ab = rng.normal(0, np.sqrt(truth["template_x_instrument"]), (templates, instruments))
    c = rng.normal(0, np.sqrt(truth.get("stimulus", 0.0)), instruments * stimuli)
    y = a[i] + b[t] + ab[t, i] + c[s] + rng.normal(0, np.sqrt(truth["residual"]), t.size)
    frame = pd.DataFrame({"t": t, "i": i, "s": s, "y": y})
    keep = rng.random(len(frame)) >= missing
    return frame[keep].reset_index(drop=True)


def as_data(frame: pd.DataFrame):
    """Scores whose shares' male - female difference is y: (1 + y, 1 - y, 0) / 2 (|y| < 1)."""
    scores = np.column_stack([1 + frame.y, 1 - frame.y, np.zeros(len(frame))])
    return build_association_data(
        [f"{t}-{r}" for r, t in enumerate(frame.t)],
        frame.i.astype(str),
        ["none"] * len(frame),
        scores,
        np.ones(len(frame), dtype=bool),
        template_ids=frame.t.astype(str),
        stimulus_ids=frame.s.astype(str),
    )


def shares_of(truth: dict) -> dict:
    total = sum(truth.values())
    return {name: value / total for name, value in truth.items()}


@pytest.mark.slow  # 150 simulated runs per design
@pytest.mark.parametrize("missing", [0.0, 0.05])
@pytest.mark.parametrize(
    "design, truth",
    [((30, 22, 1, 3), TRUTH_TEXT), ((12, 10, 4, 2), TRUTH_AUDIO)],
    ids=["text", "audio"],
)
def test_planted_components_are_recovered_on_average(design, truth, missing):
    rng = np.random.default_rng(7)
    estimates = {name: [] for name in truth}
    for _ in range(150):
        frame = simulated_docs(rng, *design, truth, missing)
        result = variance_components(as_data(frame), n_boot=2)["components"]
        for name in truth:
            estimates[name].append(result[name]["variance"])
    for name, value in truth.items():
        mean = np.mean(estimates[name])
        # the instrument component rests on few units (10-22 instruments): its estimate is noisy
        assert mean == pytest.approx(value, rel=0.2), (name, mean, value)


@pytest.mark.parametrize("missing", [0.0, 0.05])
def test_agrees_with_an_independent_reml_fit(missing):
    from statsmodels.regression.mixed_linear_model import MixedLM

    rng = np.random.default_rng(11)
    frame = simulated_docs(rng, 16, 12, 1, 3, TRUTH_TEXT, missing)
    frame["ti"] = frame.t.astype(str) + ":" + frame.i.astype(str)
    model = MixedLM.from_formula(
        "y ~ 1",
        groups=np.ones(len(frame)),
        vc_formula={
            "instrument": "0 + C(i)",
            "template": "0 + C(t)",
            "template_x_instrument": "0 + C(ti)",
        },
        data=frame,
    )
    fit = model.fit(reml=True)
    reml = dict(zip(model.exog_vc.names, fit.vcomp, strict=True))
    reml["residual"] = fit.scale
    ours = variance_components(as_data(frame), n_boot=50)
    for name, value in reml.items():
        # method of moments and REML are different estimators of the same components
        assert ours["components"][name]["variance"] == pytest.approx(value, rel=0.25, abs=2e-4), (
            name
        )
    shares = [c["share"] for c in ours["components"].values()]
    assert sum(shares) == pytest.approx(1.0) and all(0 <= s <= 1 for s in shares)
    for component in ours["components"].values():
        low, high = component["ci"]
        assert 0 <= low <= high <= 1


def test_one_doc_per_cell_cannot_separate_the_interaction_from_the_residual():
    rng = np.random.default_rng(3)
    frame = simulated_docs(rng, 5, 22, 1, 1, TRUTH_TEXT)  # the mini subset's shape
    result = variance_components(as_data(frame), n_boot=20)
    assert not result["separable"]
    assert set(result["components"]) == {"instrument", "template", "residual"}


def test_an_instrument_only_design_puts_everything_on_instruments():
    frame = simulated_docs(
        np.random.default_rng(5),
        10,
        8,
        1,
        2,
        {"instrument": 0.02, "template": 0.0, "template_x_instrument": 0.0, "residual": 0.0},
    )
    result = variance_components(as_data(frame), n_boot=20)["components"]
    assert result["instrument"]["share"] == pytest.approx(1.0)
    assert result["residual"]["share"] == pytest.approx(0.0, abs=1e-12)


def test_one_template_holding_an_instrument_twice_gives_components_not_a_key_error():
    """Only that template's cell has two docs, so a bootstrap replicate that leaves the template out
    cannot split template x instrument from the doc residual: it counts for the other components."""
    frame = simulated_docs(np.random.default_rng(4), 12, 6, 1, 1, TRUTH_TEXT)
    twice = frame[(frame.t == 0) & (frame.i == 2)].assign(y=lambda rows: rows.y + 0.05)
    result = variance_components(as_data(pd.concat([frame, twice], ignore_index=True)), n_boot=60)
    assert result["separable"]
    shares = result["components"]
    assert set(shares) == {"instrument", "template", "template_x_instrument", "residual"}
    assert sum(component["share"] for component in shares.values()) == pytest.approx(1.0)
    for component in shares.values():
        low, high = component["ci"]
        assert 0.0 <= low <= high <= 1.0
