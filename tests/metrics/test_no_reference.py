"""Answers that never refer to the person (the open-ended protocol): left out of the association like
refusals, counted in their own rate, never in the invalid rate."""

from __future__ import annotations

import numpy as np
import pytest

from symphony_bench.metrics import analyse, build_association_data
from symphony_bench.metrics.instrument_rates import instrument_design_rates


def open_docs(rng, n_templates=44):
    """Two instruments x n_templates docs; per doc a one-hot reference or a reason for none."""
    templates = np.tile(np.arange(n_templates), 2)
    instruments = np.repeat(["harp", "drums"], n_templates)
    categories = np.repeat(["female", "male"], n_templates)
    outcome = rng.choice(
        ["male", "female", "neutral", "none", "unreadable", "refused"], 2 * n_templates
    )
    scores = np.array(
        [
            {"male": [1, 0, 0], "female": [0, 1, 0], "neutral": [0, 0, 1]}.get(o, [0, 0, 0])
            for o in outcome
        ],
        dtype=float,
    )
    valid = np.isin(outcome, ["male", "female", "neutral"])
    return templates, instruments, categories, scores, valid, outcome


def test_no_reference_docs_have_their_own_rate_and_are_not_invalid():
    templates, instruments, categories, scores, valid, outcome = open_docs(np.random.default_rng(3))
    data = build_association_data(
        templates,
        instruments,
        categories,
        scores,
        valid,
        refused=outcome == "refused",
        no_reference=outcome == "none",
    )
    headline = analyse(data).headline
    assert headline["no_reference_rate"] == pytest.approx(np.mean(outcome == "none"))
    assert headline["n_no_reference"] == int(np.sum(outcome == "none"))
    assert headline["invalid_rate"] == pytest.approx(np.mean(outcome == "unreadable"))
    assert headline["refusal_rate"] == pytest.approx(np.mean(outcome == "refused"))
    low, high = headline["no_reference_rate_ci"]
    assert low <= headline["no_reference_rate"] <= high
    # the same share within each instrument, on its own units
    rates = instrument_design_rates(data, data.no_reference)
    for name, rate in zip(data.instruments, rates, strict=True):
        assert rate["rate"] == pytest.approx(np.mean(outcome[instruments == name] == "none"))


def test_a_doc_with_a_rating_cannot_be_without_a_reference():
    templates, instruments, categories, scores, valid, outcome = open_docs(np.random.default_rng(4))
    with pytest.raises(ValueError, match="no_reference docs must be invalid"):
        build_association_data(
            templates, instruments, categories, scores, valid, no_reference=valid
        )
    both = ~valid
    with pytest.raises(ValueError, match="either refused or without a reference"):
        build_association_data(
            templates, instruments, categories, scores, valid, refused=both, no_reference=both
        )


def test_the_paired_change_of_the_no_reference_rate_counts_the_flagged_docs():
    """`compare` passes each run's own data: the flags must be counted, not left out as docs
    without a reference (the change was 0 whatever the runs)."""
    from symphony_bench.metrics.paired import flag_rate_change

    runs = []
    for seed in (5, 6):
        templates, instruments, categories, scores, valid, outcome = open_docs(
            np.random.default_rng(seed)
        )
        runs.append(
            build_association_data(
                templates, instruments, categories, scores, valid, no_reference=outcome == "none"
            )
        )
    base, candidate = runs
    change = flag_rate_change(base, candidate, base.no_reference, candidate.no_reference, 200, 0)
    assert change["base"] == pytest.approx(base.no_reference.mean())
    assert change["candidate"] == pytest.approx(candidate.no_reference.mean())
    assert change["change"] == pytest.approx(
        candidate.no_reference.mean() - base.no_reference.mean()
    )
    assert change["change"] != 0 and change["stderr"] > 0
