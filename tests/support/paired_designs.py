"""Simulated paired runs of one model on the Symphony-Bias designs (text, mini, audio, mini-audio):
templates, template x instrument and clip effects (and, if asked, template x clip effects) shared by
both runs, fresh doc noise per run, and a planted mean-ABS change. Used by the crossed-variance,
MDE, plan and per-instrument tail simulations."""

from __future__ import annotations

import dataclasses
from functools import cache

import numpy as np
import pandas as pd

from symphony_bench.metrics import build_association_data
from symphony_bench.metrics.association_data import AssociationData, normalise_scores
from symphony_bench.metrics.paired import association_changes

INSTRUMENTS = 22
SIGNS = np.where(np.arange(INSTRUMENTS) % 2 == 0, 1.0, -1.0)


def design_docs(rng, templates, clips, effects, shift=0.0, noise=0.08):
    """One run: a doc per (template, instrument, clip); male share 1/3 + template, template x
    instrument, clip effects and doc noise (+ `shift` x the stereotype sign: the true mean-ABS
    change), female share its mirror, non-binary 1/3: mean ABS is linear in the shares and its true
    change is `shift` (clipping to (0, 2/3) touches about 1 doc in 1,000). A fourth effect, if
    `effects` has one, is template x clip (T, I, C)."""
    template_effect, pair_effect, clip_effect = effects[:3]
    t, i, c = np.indices((templates, INSTRUMENTS, clips)).reshape(3, -1)
    template_clip = effects[3][t, i, c] if len(effects) > 3 else 0.0
    male = (
        1 / 3
        + template_effect[t]
        + pair_effect[t, i]
        + clip_effect[i, c]
        + template_clip
        + shift / 2 * SIGNS[i]
        + rng.normal(0, noise, t.size)
    )
    male = np.clip(male, 0.001, 2 / 3 - 0.001)  # about 1 doc in 1,000 (noise beyond 3 sd)
    shares = np.column_stack([male, 2 / 3 - male, np.full(t.size, 1 / 3)])
    valid = np.ones(t.size, dtype=bool)
    return dataclasses.replace(
        _coded_design(templates, clips), shares=normalise_scores(shares, valid), valid=valid
    )


@cache
def _coded_design(templates, clips) -> AssociationData:
    """The design's coded id columns, the same in every simulated run: coded once (what
    build_association_data does to the columns costs more than the rest of a run)."""
    template_ids, instruments, categories, stimulus_ids = _doc_columns(templates, clips)
    n = template_ids.size
    return build_association_data(
        template_ids,
        instruments,
        categories,
        np.ones((n, 3)),
        np.ones(n, dtype=bool),
        template_ids=template_ids,
        stimulus_ids=stimulus_ids,
    )


@cache
def _doc_columns(templates, clips):
    """The design's id columns (the same in every simulated run, so made once)."""
    t, i, c = np.indices((templates, INSTRUMENTS, clips)).reshape(3, -1)
    categories = np.where(SIGNS[i] > 0, "male", "female")
    stimulus_ids = None if clips == 1 else (i * clips + c).astype(str)
    return t.astype(str), i.astype(str), categories, stimulus_ids


def _with_run_strength(rng, effects, sd):
    """The shared effects plus this run's own per-template strength (u_t x sign_i, u_t ~ N(0, sd))."""
    if sd == 0:
        return effects
    template_effect, pair_effect, *others = effects
    strength = rng.normal(0, sd, len(template_effect))
    return (template_effect, pair_effect + strength[:, None] * SIGNS[None, :], *others)


EFFECT_SDS = {"template": 0.03, "template_instrument": 0.02, "clip": 0.03}


def shared_effects(rng, templates, clips, template_clip: float = 0.0):
    """Template (T,), template x instrument (T, I) and clip (I, C) effects on the male share, and
    with `template_clip` > 0 a template x clip effect (T, I, C) of that sd."""
    effects = (
        rng.normal(0, EFFECT_SDS["template"], templates),
        rng.normal(0, EFFECT_SDS["template_instrument"], (templates, INSTRUMENTS)),
        rng.normal(0, EFFECT_SDS["clip"], (INSTRUMENTS, clips)),
    )
    if template_clip > 0:
        effects += (rng.normal(0, template_clip, (templates, INSTRUMENTS, clips)),)
    return effects


DESIGNS = {"text": (86, 1), "mini": (5, 1), "audio": (86, 5), "mini_audio": (5, 5)}


def simulate(
    design: str,
    runs: int,
    shift: float,
    seed: int,
    templates: int | None = None,
    rerun_template_sd: float = 0.0,
) -> pd.DataFrame:
    """`runs` paired comparisons of two runs of one model, the candidate's mean ABS `shift` higher:
    per run the change, its stderr, interval, p-value and MDE (`templates`: other than the
    design's). `rerun_template_sd`: each run also draws its own per-template association strength
    (male share + u_t x the stereotype sign, u_t ~ N(0, sd)), so that runs differ by template as
    well as by doc: variation the rerun floor, a doc-level residual, does not see."""
    design_templates, clips = DESIGNS[design]
    templates = templates or design_templates
    # a stimulus design's mean-ABS change is the two-way clustered one, whatever the bootstrap's
    # size (tests/metrics/test_crossed_variance.py checks): its replicates would be thrown away
    n_boot = 400 if clips == 1 else 2
    rng = np.random.default_rng(seed)
    rows = []
    for run in range(runs):
        effects = shared_effects(rng, templates, clips)
        base, candidate = (
            design_docs(
                rng, templates, clips, _with_run_strength(rng, effects, rerun_template_sd), shift=s
            )
            for s in (0.0, shift)
        )
        change = association_changes(base, candidate, n_boot=n_boot, seed=run)["mean_abs"]
        rows.append({**change, "low": change["ci"][0], "high": change["ci"][1]})
    return pd.DataFrame(rows)
