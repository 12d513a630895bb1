"""Instrument-grounding scores with standard errors: accuracy, response-bias (max - min prediction
rate), and exact-set / precision / recall / F1 for multi-label answers.

Answers arrive as integer codes: the index of the option the model chose, or -1 for an answer that
could not be read. Invalid answers count as wrong in accuracies and are left out of prediction rates
(which describe what the model chose when it chose something).
"""

from __future__ import annotations

import numpy as np

from symphony_bench.metrics.association import binomial_rate

INVALID = -1
BIAS_BOOTSTRAP = 2000
BIAS_SEED = 20240611


def _codes(predicted, n_options: int) -> np.ndarray:
    codes = np.asarray(predicted, dtype=int).ravel()
    if codes.size and (codes.min() < INVALID or codes.max() >= n_options):
        raise ValueError(f"predictions must be option indices 0..{n_options - 1} or {INVALID} (invalid)")
    return codes


def accuracy(gold, predicted) -> tuple[float, float]:
    """Share of answers equal to gold (invalid answers are wrong) and its binomial stderr."""
    gold, predicted = np.asarray(gold).ravel(), np.asarray(predicted).ravel()
    if gold.shape != predicted.shape:
        raise ValueError(f"gold and predicted differ in length: {gold.size} vs {predicted.size}")
    return binomial_rate(gold == predicted)


def response_bias(predicted, n_options: int, n_boot: int = BIAS_BOOTSTRAP, seed: int = BIAS_SEED) -> tuple[float, float]:
    """Bias = max_i p_i - min_i p_i over the prediction rates, and its bootstrap stderr (valid answers
    resampled with replacement: one multinomial draw of counts per replicate, all drawn at once)."""
    codes = _codes(predicted, n_options)
    valid = codes[codes != INVALID]
    if valid.size == 0:
        return float("nan"), float("nan")
    rates = np.bincount(valid, minlength=n_options) / valid.size
    replicates = np.random.default_rng(seed).multinomial(valid.size, rates, size=n_boot) / valid.size
    bias = rates.max() - rates.min()
    stderr = (replicates.max(axis=1) - replicates.min(axis=1)).std(ddof=1) if valid.size > 1 else float("nan")
    return float(bias), float(stderr)


def set_scores(gold, predicted, valid) -> dict[str, tuple[float, float]]:
    """Exact-set accuracy and per-example precision, recall, F1 (each: mean, stderr over examples).

    `gold` and `predicted` are boolean (examples x candidates) matrices; rows where `valid` is False
    score 0 everywhere. An empty predicted set has precision 0; an empty gold set is not allowed.
    """
    gold, predicted = np.asarray(gold, dtype=bool), np.asarray(predicted, dtype=bool)
    valid = np.asarray(valid, dtype=bool).ravel()
    if gold.shape != predicted.shape or gold.ndim != 2 or valid.size != gold.shape[0]:
        raise ValueError(f"shapes differ: gold {gold.shape}, predicted {predicted.shape}, valid {valid.shape}")
    if not gold.any(axis=1).all():
        raise ValueError("every example needs at least one gold instrument")
    hits = (gold & predicted).sum(axis=1)
    n_predicted = predicted.sum(axis=1)
    precision = np.divide(hits, n_predicted, out=np.zeros(len(hits)), where=n_predicted > 0)
    recall = hits / gold.sum(axis=1)
    f1 = np.divide(2 * precision * recall, precision + recall, out=np.zeros(len(hits)), where=precision + recall > 0)
    exact = (gold == predicted).all(axis=1)
    scores = {"exact_set": exact, "precision": precision, "recall": recall, "f1": f1}
    return {name: _mean_stderr(np.where(valid, values, 0.0)) for name, values in scores.items()}


def _mean_stderr(values: np.ndarray) -> tuple[float, float]:
    values = np.asarray(values, dtype=float)
    if values.size == 0:
        return float("nan"), float("nan")
    stderr = values.std(ddof=1) / np.sqrt(values.size) if values.size > 1 else float("nan")
    return float(values.mean()), float(stderr)


def rate_among(flags, mask) -> tuple[float, float]:
    """Share of True `flags` among the examples where `mask` holds, and its binomial stderr."""
    return binomial_rate(np.asarray(flags)[np.asarray(mask, dtype=bool)])


def choice_scores(gold, chosen, n_options: int) -> dict[str, tuple[float, float]]:
    """Every score of a choice task, each (value, stderr): accuracy, invalid rate, the rate of each
    option among valid answers, accuracy on gold = first / second option, and the response bias."""
    gold, chosen = np.asarray(gold, dtype=int), _codes(chosen, n_options)
    valid = chosen != INVALID
    scores = {"accuracy": accuracy(gold, chosen), "invalid_rate": binomial_rate(~valid)}
    for option in range(n_options):
        scores[f"option_{option}_rate"] = rate_among(chosen == option, valid)
    scores["gold_0_accuracy"] = rate_among(chosen == gold, gold == 0)
    scores["gold_1_accuracy"] = rate_among(chosen == gold, gold == 1)
    scores["bias"] = response_bias(chosen, n_options)
    return scores


def set_task_scores(gold, chosen, valid) -> dict[str, tuple[float, float]]:
    """Exact-set accuracy, precision, recall, F1 and invalid rate of a multi-label task, each (value, stderr)."""
    scores = set_scores(gold, chosen, valid)
    return {"exact_set_accuracy": scores["exact_set"], "precision": scores["precision"], "recall": scores["recall"],
            "f1": scores["f1"], "invalid_rate": binomial_rate(~np.asarray(valid, dtype=bool))}
