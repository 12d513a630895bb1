"""The invalid rate's stderr on the design's units (metrics.association.design_rate): against an
independent resampling loop, and its interval's coverage by simulation when parse failures vary by
template (text) and by template and clip (audio); the per-doc binomial stderr it replaces does not
cover."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from scipy import stats
from scipy.special import expit

from symphony_bench.metrics import binomial_rate, build_association_data, design_rate
from symphony_bench.metrics.association import RATE_MIN_TEMPLATES


def text_failures(rng, templates=86, instruments=22, per_cell=3, base=-2.0, sd=(1.0, 0.5)):
    """Parse failures of the full text design: a template effect and a template x instrument
    effect on the logit (some wordings confuse a model), docs independent given those."""
    shape = (templates, instruments, per_cell)
    logit = base + rng.normal(0, sd[0], (templates, 1, 1)) + rng.normal(0, sd[1], shape[:2] + (1,))
    failed = rng.random(shape) < expit(logit)
    return _columns(shape, stimuli=None) + (failed.ravel(),)


def audio_failures(rng, templates=20, instruments=22, clips=3, base=-2.0, sd=(1.0, 1.0)):
    """The audio design: every template with every clip (three per instrument), a template effect
    and a clip effect."""
    shape = (templates, instruments, clips)
    logit = base + rng.normal(0, sd[0], (templates, 1, 1)) + rng.normal(0, sd[1], (1, *shape[1:]))
    failed = rng.random(shape) < expit(logit)
    clip_ids = np.broadcast_to(np.arange(instruments * clips).reshape(1, instruments, clips), shape)
    return _columns(shape, stimuli=clip_ids.ravel()) + (failed.ravel(),)


def _columns(shape, stimuli):
    template, instrument, _ = np.indices(shape).reshape(3, -1)
    return template, instrument, stimuli


def true_rate(base: float, sd: tuple[float, float]) -> float:
    """E[expit(base + u + v)] for independent normal effects, by Gauss-Hermite quadrature."""
    nodes, weights = np.polynomial.hermite_e.hermegauss(80)
    return float(np.sum(weights * expit(base + np.hypot(*sd) * nodes)) / np.sum(weights))


def association_data(template, instrument, stimulus, failed):
    n = len(template)
    return build_association_data(
        template.astype(str),
        instrument.astype(str),
        np.where(instrument % 2 == 0, "male", "female"),
        np.ones((n, 3)),
        ~failed,
        template_ids=template.astype(str),
        stimulus_ids=None if stimulus is None else stimulus.astype(str),
    )


def naive_stderr(frame: pd.DataFrame, crossed: bool, n_boot: int, seed: int) -> float:
    """Templates (and clips) drawn with replacement in a plain loop; a doc counts once per draw of
    its template times once per draw of its clip."""
    rng = np.random.default_rng(seed)
    templates, clips = frame.template.unique(), frame.stimulus.unique()
    rates = []
    for _ in range(n_boot):
        weight = frame.template.map(pd.Series(rng.choice(templates, len(templates))).value_counts())
        if crossed:
            drawn = pd.Series(rng.choice(clips, len(clips))).value_counts()
            weight = weight * frame.stimulus.map(drawn)
        weight = weight.fillna(0.0)
        rates.append(np.sum(weight * frame.failed) / np.sum(weight))
    return float(np.std(rates, ddof=1) * np.sqrt(len(templates) / (len(templates) - 1)))


@pytest.mark.parametrize("design", ["text", "audio"])
def test_the_stderr_agrees_with_an_independent_resampling_loop(design):
    rng = np.random.default_rng(21)
    if design == "text":
        template, instrument, stimulus, failed = text_failures(rng, templates=12, instruments=4)
    else:
        template, instrument, stimulus, failed = audio_failures(rng, templates=8, instruments=4)
    data = association_data(template, instrument, stimulus, failed)
    frame = pd.DataFrame(
        {
            "template": template,
            "stimulus": instrument if stimulus is None else stimulus,
            "failed": failed,
        }
    )
    result = design_rate(data, failed, n_boot=4000, seed=3)
    assert result["rate"] == pytest.approx(failed.mean())
    expected = naive_stderr(frame, crossed=stimulus is not None, n_boot=800, seed=9)
    assert result["stderr"] == pytest.approx(expected, rel=0.12)  # Monte-Carlo error ~3% each


def test_bad_flags_are_a_clear_error():
    data = association_data(*text_failures(np.random.default_rng(1), templates=3, instruments=2))
    with pytest.raises(ValueError, match="one flag per doc"):
        design_rate(data, [True, False])


RUNS = 2_000


@pytest.mark.slow
@pytest.mark.parametrize(
    "design, simulate, sd",
    [("text", text_failures, (1.0, 0.5)), ("audio", audio_failures, (1.0, 1.0))],
)
def test_the_interval_covers_the_invalid_rate_when_failures_cluster(design, simulate, sd):
    rng = np.random.default_rng(zlib_seed(design))
    truth = true_rate(-2.0, sd)
    covered = binomial_covered = 0
    for run in range(RUNS):
        template, instrument, stimulus, failed = simulate(rng)
        result = design_rate(
            association_data(template, instrument, stimulus, failed), failed, n_boot=300, seed=run
        )
        low, high = result["ci"]
        covered += low <= truth <= high
        rate, stderr = binomial_rate(failed)
        binomial_covered += abs(rate - truth) <= 1.96 * stderr
    coverage, binomial_coverage = covered / RUNS, binomial_covered / RUNS
    print(f"{design}: coverage {coverage:.3f}; per-doc binomial {binomial_coverage:.3f}")
    assert 0.93 <= coverage <= 0.97
    assert binomial_coverage < 0.85  # what the per-doc stderr gave


def zlib_seed(name: str) -> int:
    import zlib

    return zlib.crc32(name.encode())


def test_the_interval_is_the_logit_one_and_none_below_the_template_floor():
    """The rate's t interval on the logit scale (stderr / (rate (1 - rate)), T - 1 df), mapped
    back; a one-stimulus design below RATE_MIN_TEMPLATES templates gets none, its stderr kept."""
    rng = np.random.default_rng(5)
    templates = RATE_MIN_TEMPLATES + 4
    template, instrument, stimulus, failed = text_failures(rng, templates, instruments=4)
    result = design_rate(association_data(template, instrument, stimulus, failed), failed)
    rate, stderr = result["rate"], result["stderr"]
    half = stats.t.ppf(0.975, templates - 1) * stderr / (rate * (1 - rate))
    expected = expit(np.log(rate / (1 - rate)) + np.array([-half, half]))
    assert result["ci"] == pytest.approx(expected, rel=1e-9)
    assert result["ci"][1] - rate > rate - result["ci"][0]  # longer away from 0
    small = text_failures(rng, templates=RATE_MIN_TEMPLATES - 1, instruments=4)
    result = design_rate(association_data(*small), small[3])
    assert np.isnan(result["ci"]).all() and result["stderr"] > 0


# the small designs: text at RATE_MIN_TEMPLATES (20) templates x 22 instruments x 3 docs (below
# it, no interval), the crossed mini 5 templates x 22 instruments x 5 clips, one doc per cell;
# failures clustered by template and template x instrument (text) or by template and clip
# (audio) on the logit scale, at two base rates
SMALL = {
    "text": lambda rng, base: text_failures(rng, templates=RATE_MIN_TEMPLATES, base=base),
    "mini audio": lambda rng, base: audio_failures(rng, templates=5, clips=5, base=base),
}
SMALL_SDS = {"text": (1.0, 0.5), "mini audio": (1.0, 1.0)}
SMALL_RUNS = 1_500


@pytest.mark.slow
@pytest.mark.parametrize("design", list(SMALL))
@pytest.mark.parametrize("base", [-2.0, -3.0])
def test_the_interval_covers_the_invalid_rate_on_small_designs(design, base):
    """1,500 runs each (coverage's Monte-Carlo sd 0.6 points). A clustered rate near 0 on few
    templates is right-skewed: the symmetric t interval around it (printed as "symmetric": rate
    +- t x the same stderr, T - 1 df) covered 87-93 % here; the logit interval, with on the crossed
    design at most T - 1 df, covers 93-97 %."""
    rng = np.random.default_rng(zlib_seed(f"small {design} {base}"))
    truth = true_rate(base, SMALL_SDS[design])
    covered = symmetric = 0
    for run in range(SMALL_RUNS):
        template, instrument, stimulus, failed = SMALL[design](rng, base)
        result = design_rate(
            association_data(template, instrument, stimulus, failed), failed, n_boot=1000, seed=run
        )
        low, high = result["ci"]
        covered += low <= truth <= high
        t = stats.t.ppf(0.975, template.max())  # T - 1 df
        symmetric += abs(result["rate"] - truth) <= t * result["stderr"]
    coverage = covered / SMALL_RUNS
    print(
        f"{design}, rate {truth:.3f}: coverage {coverage:.3f}; symmetric "
        f"{symmetric / SMALL_RUNS:.3f}"
    )
    assert 0.93 <= coverage <= 0.97
