"""Scores of the instrument-grounding tasks (the answer readers are tested in test_answers.py)."""

from __future__ import annotations

import numpy as np
import pytest
from sklearn.metrics import accuracy_score, precision_recall_fscore_support

from symphony_bench.metrics.grounding import INVALID, accuracy, response_bias, set_scores


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
    p, r, f, _ = precision_recall_fscore_support(
        gold, scored_predictions, average="samples", zero_division=0
    )
    assert ours["precision"][0] == pytest.approx(p)
    assert ours["recall"][0] == pytest.approx(r)
    assert ours["f1"][0] == pytest.approx(f)
    assert ours["exact_set_accuracy"][0] == pytest.approx(
        accuracy_score(gold[valid], predicted[valid]) * valid.mean()
    )
    with pytest.raises(ValueError, match="at least one gold"):
        set_scores(np.zeros((1, 4)), np.zeros((1, 4)), [True])


def test_clustered_stderr_is_the_binomial_one_with_single_item_clusters_and_the_cluster_mean_sem_otherwise():
    from scipy import stats

    from symphony_bench.metrics import binomial_rate
    from symphony_bench.metrics.grounding import clustered_mean

    rng = np.random.default_rng(0)
    flags = rng.random(300) < 0.6
    assert clustered_mean(flags, np.arange(300)) == pytest.approx(binomial_rate(flags), rel=1e-12)
    clips = np.repeat(np.arange(100), 3)  # e.g. three items built from each clip
    per_clip = flags.reshape(100, 3).mean(axis=1)
    assert clustered_mean(flags, clips) == pytest.approx(
        (per_clip.mean(), stats.sem(per_clip)), rel=1e-12
    )


def test_clustered_bias_stderr_matches_a_naive_loop_over_clips():
    rng = np.random.default_rng(1)
    clips = np.repeat(np.arange(80), 2)  # a yes and a no question per clip
    answers = np.where(
        rng.random(160) < 0.1, INVALID, (rng.random(160) < 0.35 + 0.3 * (clips % 2)).astype(int)
    )
    value, stderr = response_bias(answers, 2, clips)
    loop = np.random.default_rng(99)
    spreads = []
    for _ in range(3000):
        drawn = np.concatenate([np.flatnonzero(clips == c) for c in loop.integers(0, 80, size=80)])
        chosen = answers[drawn][answers[drawn] != INVALID]
        rates = np.bincount(chosen, minlength=2) / chosen.size
        spreads.append(rates.max() - rates.min())
    assert value == pytest.approx(
        abs(np.mean(answers[answers != INVALID] == 0) - np.mean(answers[answers != INVALID] == 1))
    )
    assert stderr == pytest.approx(np.std(spreads, ddof=1), rel=0.1)  # Monte-Carlo error ~2-3%
