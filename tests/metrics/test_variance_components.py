"""The variance components of the male - female share difference: recovery of planted components
(balanced, and with 5% of the docs missing), an independent REML fit (statsmodels' MixedLM) on the
same data, the cases the design cannot separate, and the intervals: each holds its own point
estimate, and they cover the planted shares 93-97 % of the time on the text, mini, crossed audio
and mini audio designs (slow tier)."""

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
        result = variance_components(as_data(frame), n_draws=2)["components"]
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
    ours = variance_components(as_data(frame), n_draws=50)
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
    result = variance_components(as_data(frame), n_draws=20)
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
    result = variance_components(as_data(frame), n_draws=20)["components"]
    assert result["instrument"]["share"] == pytest.approx(1.0)
    assert result["residual"]["share"] == pytest.approx(0.0, abs=1e-12)


def test_one_template_holding_an_instrument_twice_gives_components_not_a_key_error():
    """Only that template's cell has two docs: the doc residual rests on 1 df, and its interval is
    wide but there."""
    frame = simulated_docs(np.random.default_rng(4), 12, 6, 1, 1, TRUTH_TEXT)
    twice = frame[(frame.t == 0) & (frame.i == 2)].assign(y=lambda rows: rows.y + 0.05)
    result = variance_components(as_data(pd.concat([frame, twice], ignore_index=True)), n_draws=60)
    assert result["separable"]
    shares = result["components"]
    assert set(shares) == {"instrument", "template", "template_x_instrument", "residual"}
    assert sum(component["share"] for component in shares.values()) == pytest.approx(1.0)
    for component in shares.values():
        low, high = component["ci"]
        assert 0.0 <= low <= high <= 1.0


def test_each_interval_holds_its_own_estimate_on_the_crossed_audio_design():
    """86 templates x 22 instruments x 5 clips, one doc per template x clip. A bootstrap of the
    table's rows and columns drew some of an instrument's 5 clips twice, which moved template x clip
    variation into template x instrument: its template x instrument and residual intervals lay
    wholly above and below their estimates."""
    frame = simulated_docs(np.random.default_rng(9), 86, 22, 5, 1, TRUTH_AUDIO)
    result = variance_components(as_data(frame))
    assert result["separable"] and set(result["components"]) == set(TRUTH_AUDIO)
    for name, component in result["components"].items():
        low, high = component["ci"]
        assert 0 <= low <= component["share"] <= high <= 1, name


COVERAGE_DESIGNS = {  # templates, instruments, stimuli per instrument, docs per cell; truth
    "text": ((86, 22, 1, 3), TRUTH_TEXT),
    "mini": ((5, 22, 1, 1), TRUTH_TEXT),
    "audio": ((86, 22, 5, 1), TRUTH_AUDIO),
    "mini_audio": ((5, 22, 5, 1), TRUTH_AUDIO),
}


@pytest.mark.slow  # 1,000 simulated runs per design: 5-60 s each
@pytest.mark.parametrize("design", list(COVERAGE_DESIGNS))
def test_the_intervals_cover_the_planted_shares(design):
    """Template, instrument, template x instrument, clip and doc effects (normal); each interval
    must cover its population share in 93-97 % of 1,000 runs (Monte Carlo sd 0.7 %) and hold its
    own estimate in all of them. On the mini designs (one doc per cell) the residual holds template
    x instrument. Measured (this seed): text 93.5-94.8 %, mini 93.7-95.0 %, audio 94.0-95.5 %, mini
    audio 94.8-95.9 %; the bootstrap they replace covered 29-78 %, 64-74 %, 10-85 % and 33-100 %."""
    shape, truth = COVERAGE_DESIGNS[design]
    shares = shares_of(truth)
    if shape[3] == 1 and shape[2] == 1:
        shares["residual"] += shares.pop("template_x_instrument")
    rng = np.random.default_rng(1)
    covered = dict.fromkeys(shares, 0)
    runs = 1_000
    for run in range(runs):
        frame = simulated_docs(rng, *shape, truth)
        components = variance_components(as_data(frame), seed=run)["components"]
        assert set(components) == set(shares)
        for name, component in components.items():
            low, high = component["ci"]
            assert low <= component["share"] <= high, (run, name)
            covered[name] += low <= shares[name] <= high
    coverage = {name: count / runs for name, count in covered.items()}
    print(design, coverage)
    assert all(0.93 <= value <= 0.97 for value in coverage.values()), coverage
