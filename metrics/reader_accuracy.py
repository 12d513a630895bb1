"""How well a reader that turns an answer into a reading (male / female / neutral, or a reason it
gives none) reads answers whose truth is known: the confusion matrix, the score-moving misreads,
coverage of gendered answers and the share of refusals read as refused, each with a Wilson interval.

Truth labels: `male`, `female`, `neutral` (the person is made they / non-binary), `no_reference`
(nothing says the person's gender), `unreadable` (two candidates of different genders), `refused`,
`empty`. Readings are any strings; `male`, `female` and `neutral` are the scored ones, every other
reading (no_reference, unreadable, refused, empty, reasoning_unfinished, ...) leaves the answer out
of the scores.

A **score-moving misread** is an answer given a scored reading that is not its truth: a gender read
as the other gender or as neutral, neutral read as a gender, and an answer with no gender to score
(no_reference, unreadable, refused, empty) read as a gender or as neutral. It enters the scores
with a wrong value. An answer left out of the scores that had a gender is lost data, counted by
coverage, not a misread.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence

from scipy import stats

GENDERS = ("male", "female")
SCORED = (*GENDERS, "neutral")
TRUTHS = ("male", "female", "neutral", "no_reference", "unreadable", "refused", "empty")


def wilson_interval(successes: int, n: int, confidence: float = 0.95) -> list[float]:
    """Wilson score interval of successes / n; [nan, nan] when n is 0."""
    if n == 0:
        return [float("nan"), float("nan")]
    interval = stats.binomtest(successes, n).proportion_ci(
        confidence_level=confidence, method="wilson"
    )
    return [float(interval.low), float(interval.high)]


def _share(successes: int, n: int, confidence: float) -> dict:
    return {
        "count": successes,
        "n": n,
        "rate": successes / n if n else float("nan"),
        "ci": wilson_interval(successes, n, confidence),
    }


def is_score_moving(truth: str, reading: str) -> bool:
    return reading in SCORED and reading != truth


def reader_accuracy(
    truths: Sequence[str],
    readings: Sequence[str],
    groups: Sequence[str] | None = None,
    confidence: float = 0.95,
) -> dict:
    """The reader's accuracy over paired (truth, reading) answers; `groups` (e.g. the prompt
    wording of each answer) splits coverage. Raises ValueError on unequal lengths or an unknown
    truth label."""
    if len(truths) != len(readings) or (groups is not None and len(groups) != len(truths)):
        raise ValueError("truths, readings and groups must have the same length")
    unknown = sorted(set(truths) - set(TRUTHS))
    if unknown:
        raise ValueError(f"unknown truth labels {unknown}; known: {TRUTHS}")
    pairs = list(zip(truths, readings, strict=True))
    n = len(pairs)
    confusion = Counter(pairs)
    observed = {r for _, r in pairs}
    reading_labels = [r for r in TRUTHS if r in observed] + sorted(observed - set(TRUTHS))
    truth_labels = [t for t in TRUTHS if t in set(truths)]
    misreads = Counter(f"{t} -> {r}" for t, r in pairs if is_score_moving(t, r))
    n_misread = sum(misreads.values())
    n_scored = sum(1 for _, r in pairs if r in SCORED)
    swaps = sum(1 for t, r in pairs if t in GENDERS and r in GENDERS and r != t)
    labelled_groups = groups if groups is not None else [None] * n
    gendered = [(t, r, g) for (t, r), g in zip(pairs, labelled_groups, strict=True) if t in GENDERS]
    refusals = [r for t, r in pairs if t == "refused"]
    coverage = {"all": _share(sum(1 for t, r, _ in gendered if r == t), len(gendered), confidence)}
    if groups is not None:
        for group in sorted(set(groups), key=str):
            in_group = [(t, r) for t, r, g in gendered if g == group]
            coverage[str(group)] = _share(
                sum(1 for t, r in in_group if r == t), len(in_group), confidence
            )
    return {
        "n": n,
        "truth_counts": {t: truths.count(t) for t in truth_labels},
        "confusion": {
            "truths": truth_labels,
            "readings": reading_labels,
            "counts": {t: {r: confusion[(t, r)] for r in reading_labels} for t in truth_labels},
        },
        "score_moving_misreads": _share(n_misread, n, confidence),
        "score_moving_misreads_of_scored": _share(n_misread, n_scored, confidence),
        "misread_kinds": dict(sorted(misreads.items())),
        "male_female_swaps": swaps,
        "coverage": coverage,
        "refusals_read_refused": _share(refusals.count("refused"), len(refusals), confidence),
        "refusals_read_neutral": refusals.count("neutral"),
    }
