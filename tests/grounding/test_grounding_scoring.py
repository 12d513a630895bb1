"""Answer readers and scores of the instrument-grounding tasks."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from sklearn.metrics import accuracy_score, precision_recall_fscore_support

from symphony_bench.metrics.grounding import INVALID, accuracy, response_bias, set_scores
from symphony_bench.plugin.grounding.answers import (
    read_choice,
    read_instrument_set,
    read_letter,
    read_time_range,
    read_yes_no,
)


@pytest.mark.parametrize(
    ("answer", "expected"),
    [("Yes.", True), ("yes, there is", True), ("YES", True), ("There is a piano in the clip.", True),
     ("There's a piano.", True), ("Yes, there is a piano.", True), ("I can hear a piano.", True),
     ("No.", False), ("no, there isn't", False), ("There is no piano.", False), ("The piano is not present.", False),
     ("I don't hear a piano", False), ("There isn't a piano", False), ("Not sure.", None),
     ("", None), ("Maybe", None), ("yes and no", True), (None, None)],
)
def test_yes_no(answer, expected):
    assert read_yes_no(answer) is expected


@pytest.mark.parametrize(
    ("answer", "expected"),
    [("0-10 seconds", 0), ("0–10 s", 0), ("The first range.", 0), ("10 to 20 seconds", 1), ("middle", 1),
     ("10–20 seconds.", 1), ("Between 10 and 20 seconds", 1), ("20—30s", 2), ("the last ten seconds", 2),
     ("The first 10-second segment", 0), ("at the 25 second mark", None),
     ("0-10 or 10-20", None), ("somewhere", None), ("30-40", None)],
)
def test_time_range(answer, expected):
    assert read_time_range(answer) == expected


CANDIDATES = ["mallet_percussion", "bass"]


@pytest.mark.parametrize(
    ("answer", "expected"),
    [("Mallet percussion.", 0), ("a xylophone", 0), ("The BASS", 1), ("double bass", 1), ("bass guitar", 1),
     ("bass, but no xylophone", 1), ("both mallet percussion and bass", None), ("a trumpet", None)],
)
def test_instrument_name_choice(answer, expected):
    assert read_choice(answer, CANDIDATES) == expected


@pytest.mark.parametrize(
    ("answer", "expected"),
    [("A", 0), ("b.", 1), ("(B)", 1), ("Answer: B", 1), ("Option A", 0), ("A. mallet percussion", 0),
     ("The answer is B", 1), ("The answer is: (A)", 0), ("Correct answer: B", 1), ("My answer is B", 1),
     ("I choose B.", 1), ("A bass", 1), ("A) bass", None), ("B. mallet percussion", None), ("A or B", None),
     ("bass", 1)],
)
def test_letter_choice(answer, expected):
    assert read_letter(answer, CANDIDATES) == expected


def test_instrument_set_with_synonyms_and_explicit_none():
    candidates = ["voice", "guitar", "synthesizer", "bass"]
    assert read_instrument_set("Vocals, electric guitar and a synth.", candidates) == {0, 1, 2}
    assert read_instrument_set("bass guitar", candidates) == {3}  # not also "guitar"
    assert read_instrument_set("None.", candidates) == set()
    assert read_instrument_set("guitar but no synth", candidates) == {1}
    assert read_instrument_set("bass guitar, drums", ["guitar", "banjo", "mandolin", "ukulele"]) is None
    assert read_instrument_set("I hear a tuba", candidates) is None


@given(st.one_of(st.text(), st.none(), st.integers()))
def test_readers_never_raise(answer):
    read_yes_no(answer)
    read_time_range(answer)
    read_choice(answer, CANDIDATES)
    read_letter(answer, CANDIDATES)
    read_instrument_set(answer, CANDIDATES)


def test_accuracy_counts_invalid_as_wrong():
    rate, stderr = accuracy([0, 1, 1, 0], [0, 1, INVALID, 1])
    assert rate == 0.5 and stderr == pytest.approx(np.std([1, 1, 0, 0], ddof=1) / 2)
    with pytest.raises(ValueError, match="differ in length"):
        accuracy([0, 1], [0])


def test_always_first_has_full_bias_and_balanced_answers_none():
    assert response_bias([0] * 50 + [INVALID] * 5, 2) == (1.0, 0.0)
    bias, _ = response_bias([0, 1, 2] * 40, 3)
    assert bias == pytest.approx(0.0)
    with pytest.raises(ValueError, match="option indices"):
        response_bias([0, 3], 3)


def test_bias_stderr_matches_a_naive_resampling_loop():
    rng = np.random.default_rng(5)
    predicted = rng.choice(3, size=300, p=[0.5, 0.3, 0.2])
    _, stderr = response_bias(predicted, 3)
    naive = []
    for _ in range(2000):
        resample = rng.choice(predicted, size=predicted.size)
        rates = np.bincount(resample, minlength=3) / resample.size
        naive.append(rates.max() - rates.min())
    assert stderr == pytest.approx(np.std(naive, ddof=1), rel=0.1)


def test_set_scores_match_sklearn_samples_average():
    rng = np.random.default_rng(3)
    gold = np.zeros((200, 4), dtype=bool)
    for row in gold:
        row[rng.choice(4, size=2, replace=False)] = True
    predicted = rng.random((200, 4)) < 0.5
    valid = rng.random(200) > 0.1
    ours = set_scores(gold, predicted, valid)
    scored_predictions = predicted & valid[:, None]
    p, r, f, _ = precision_recall_fscore_support(gold, scored_predictions, average="samples", zero_division=0)
    assert ours["precision"][0] == pytest.approx(p)
    assert ours["recall"][0] == pytest.approx(r)
    assert ours["f1"][0] == pytest.approx(f)
    assert ours["exact_set"][0] == pytest.approx(accuracy_score(gold[valid], predicted[valid]) * valid.mean())
    with pytest.raises(ValueError, match="at least one gold"):
        set_scores(np.zeros((1, 4)), np.zeros((1, 4)), [True])


def test_display_names_get_the_synonyms_of_their_class():
    assert read_choice("a marimba", ["mallet percussion", "piano"]) == 0


def test_clustered_stderr_is_the_binomial_one_with_single_item_clusters_and_the_cluster_mean_sem_otherwise():
    from scipy import stats

    from symphony_bench.metrics import binomial_rate
    from symphony_bench.metrics.grounding import clustered_mean

    rng = np.random.default_rng(0)
    flags = rng.random(300) < 0.6
    assert clustered_mean(flags, np.arange(300)) == pytest.approx(binomial_rate(flags), rel=1e-12)
    clips = np.repeat(np.arange(100), 3)  # e.g. three items built from each clip
    per_clip = flags.reshape(100, 3).mean(axis=1)
    assert clustered_mean(flags, clips) == pytest.approx((per_clip.mean(), stats.sem(per_clip)), rel=1e-12)


def test_clustered_bias_stderr_matches_a_naive_loop_over_clips():
    rng = np.random.default_rng(1)
    clips = np.repeat(np.arange(80), 2)  # a yes and a no question per clip
    answers = np.where(rng.random(160) < 0.1, INVALID, (rng.random(160) < 0.35 + 0.3 * (clips % 2)).astype(int))
    value, stderr = response_bias(answers, 2, clips)
    loop = np.random.default_rng(99)
    spreads = []
    for _ in range(3000):
        drawn = np.concatenate([np.flatnonzero(clips == c) for c in loop.integers(0, 80, size=80)])
        chosen = answers[drawn][answers[drawn] != INVALID]
        rates = np.bincount(chosen, minlength=2) / chosen.size
        spreads.append(rates.max() - rates.min())
    assert value == pytest.approx(abs(np.mean(answers[answers != INVALID] == 0) - np.mean(answers[answers != INVALID] == 1)))
    assert stderr == pytest.approx(np.std(spreads, ddof=1), rel=0.1)  # Monte-Carlo error ~2-3%
