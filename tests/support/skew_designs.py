"""Simulated cell tables for the gender skew (metrics.skew), many runs at once: a doc per (template,
instrument, clip) cell on the Symphony-Bias designs (tests.support.paired_designs.DESIGNS), the
male share 1/3 + d_i / 2 + template, template x instrument and clip effects (the sds of
paired_designs.EFFECT_SDS; on a one-clip design the instrument is its own stimulus and has no clip
effect: d_i is then the instrument's value) and doc noise, the female share its mirror, so the cell's
male - female difference is d_i + 2 x (effects + noise) and the population skew is sqrt(mean d_i^2).
Not clipped to (0, 2/3): the statistics take any real cell values."""

from __future__ import annotations

import numpy as np

from support.paired_designs import DESIGNS, EFFECT_SDS
from symphony_bench.metrics.association_data import membership_matrix

INSTRUMENTS = 22
# several instruments at 0, some near it, some with a real difference, in both directions
MIXED = np.array([0.0] * 8 + [0.04, -0.04] * 3 + [0.12, -0.12] * 4)
NONE = np.zeros(INSTRUMENTS)


def population_skew(gaps) -> float:
    """The estimand: the root mean square of the instruments' true differences."""
    return float(np.sqrt(np.mean(np.asarray(gaps) ** 2)))


def membership(design: str) -> np.ndarray:
    clips = DESIGNS[design][1]
    return membership_matrix(np.repeat(np.arange(INSTRUMENTS), clips), INSTRUMENTS)


def shared(rng, runs: int, design: str, template_clip: float = 0.0) -> np.ndarray:
    """(runs, T, I x C) effects on the male share that every run of a model on these docs shares."""
    templates, clips = DESIGNS[design]
    clip_sd = EFFECT_SDS["clip"] if clips > 1 else 0.0
    effects = (
        rng.normal(0, EFFECT_SDS["template"], (runs, templates))[:, :, None, None]
        + rng.normal(0, EFFECT_SDS["template_instrument"], (runs, templates, INSTRUMENTS))[
            ..., None
        ]
        + rng.normal(0, clip_sd, (runs, INSTRUMENTS, clips))[:, None]
        + rng.normal(0, template_clip, (runs, templates, INSTRUMENTS, clips))
    )
    return effects.reshape(runs, templates, INSTRUMENTS * clips)


def differences(rng, effects: np.ndarray, gaps, noise: float = 0.08) -> np.ndarray:
    """(runs, T, S) male - female cell differences of one run per table of `effects`."""
    gap = np.repeat(np.asarray(gaps, dtype=float), effects.shape[-1] // INSTRUMENTS)
    male = 1 / 3 + gap / 2 + effects + rng.normal(0, noise, effects.shape)
    return 2 * male - 2 / 3


def runs(rng, n: int, design: str, gaps, noise: float = 0.08) -> np.ndarray:
    return differences(rng, shared(rng, n, design), gaps, noise)
