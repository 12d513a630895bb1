"""Instrument-grounding scores with standard errors: accuracy, response-bias (max - min prediction
rate), and exact-set / precision / recall / F1 for multi-label answers.

Answers arrive as integer codes: the index of the option the model chose, or -1 for an answer that
could not be read. Invalid answers count as wrong in accuracies and are left out of prediction rates
(which describe what the model chose when it chose something).

Standard errors cluster on `clusters` (the clip an item was built from: items of one clip are not
independent); without clusters every item is its own, which gives the usual sample stderr.
"""

from __future__ import annotations

import numpy as np

from symphony_bench.metrics.constants import BOOTSTRAP_SEED

INVALID = -1
BIAS_BOOTSTRAP = 2000


def _codes(predicted, n_options: int) -> np.ndarray:
    codes = np.asarray(predicted, dtype=int).ravel()
    if codes.size and (codes.min() < INVALID or codes.max() >= n_options):
        raise ValueError(
            f"predictions must be option indices 0..{n_options - 1} or {INVALID} (invalid)"
        )
    return codes


def _cluster_codes(clusters, n: int) -> np.ndarray:
    if clusters is None:
        return np.arange(n)
    codes = np.unique(np.asarray(clusters).ravel(), return_inverse=True)[1].ravel()
    if codes.size != n:
        raise ValueError(f"values and clusters differ in length: {n} vs {codes.size}")
    return codes


def clustered_mean(values, clusters=None) -> tuple[float, float]:
    """Mean of `values` and its cluster-robust stderr: sqrt(G / (G - 1) * sum_g (sum_{j in g} (x_j -
    mean))^2) / n over G clusters. With one item per cluster this is the sample stderr sd / sqrt(n)."""
    values = np.asarray(values, dtype=float).ravel()
    codes = _cluster_codes(clusters, values.size)
    if values.size == 0:
        return float("nan"), float("nan")
    mean = float(values.mean())
    sums = np.bincount(codes, weights=values - mean)
    n_clusters = int(np.count_nonzero(np.bincount(codes)))
    if n_clusters < 2:
        return mean, float("nan")
    return mean, float(np.sqrt(n_clusters / (n_clusters - 1) * np.sum(sums**2)) / values.size)


def accuracy(gold, predicted, clusters=None) -> tuple[float, float]:
    """Share of answers equal to gold (invalid answers are wrong) and its stderr."""
    gold, predicted = np.asarray(gold).ravel(), np.asarray(predicted).ravel()
    if gold.shape != predicted.shape:
        raise ValueError(f"gold and predicted differ in length: {gold.size} vs {predicted.size}")
    return clustered_mean(gold == predicted, clusters)


def rate_among(flags, mask, clusters) -> tuple[float, float]:
    """Share of True `flags` among the examples where `mask` holds, with its clustered stderr."""
    mask = np.asarray(mask, dtype=bool)
    return clustered_mean(np.asarray(flags)[mask], np.asarray(clusters)[mask])


def response_bias(
    predicted,
    n_options: int,
    clusters=None,
    n_boot: int = BIAS_BOOTSTRAP,
    seed: int = BOOTSTRAP_SEED,
) -> tuple[float, float]:
    """Bias = max_i p_i - min_i p_i over the prediction rates of the valid answers, and its stderr from
    a bootstrap that resamples clusters (all replicates at once: (B, G) multiplicities @ (G, K) counts)."""
    codes = _codes(predicted, n_options)
    cluster_codes = _cluster_codes(clusters, codes.size)
    valid = codes != INVALID
    if not valid.any():
        return float("nan"), float("nan")
    n_clusters = int(cluster_codes.max()) + 1
    counts = np.zeros((n_clusters, n_options))
    np.add.at(counts, (cluster_codes[valid], codes[valid]), 1.0)
    rates = counts.sum(axis=0) / counts.sum()
    draws = np.random.default_rng(seed).integers(0, n_clusters, size=(n_boot, n_clusters))
    flat = (draws + n_clusters * np.arange(n_boot)[:, None]).ravel()
    replicated = (
        np.bincount(flat, minlength=n_boot * n_clusters).reshape(n_boot, n_clusters) @ counts
    )
    with np.errstate(invalid="ignore", divide="ignore"):
        shares = replicated / replicated.sum(axis=1, keepdims=True)
    spread = shares.max(axis=1) - shares.min(axis=1)
    stderr = float(np.nanstd(spread, ddof=1)) if n_clusters > 1 else float("nan")
    return float(rates.max() - rates.min()), stderr


def set_items(gold, predicted, valid) -> dict[str, np.ndarray]:
    """Per example of a multi-label task: exact set, precision, recall and F1, 0 where the answer
    could not be read (`valid` False). `gold` and `predicted` are boolean (examples x candidates)
    matrices; an empty predicted set has precision 0; an empty gold set is not allowed."""
    gold, predicted = np.asarray(gold, dtype=bool), np.asarray(predicted, dtype=bool)
    valid = np.asarray(valid, dtype=bool).ravel()
    if gold.shape != predicted.shape or gold.ndim != 2 or valid.size != gold.shape[0]:
        raise ValueError(
            f"shapes differ: gold {gold.shape}, predicted {predicted.shape}, valid {valid.shape}"
        )
    if not gold.any(axis=1).all():
        raise ValueError("every example needs at least one gold instrument")
    hits = (gold & predicted).sum(axis=1)
    n_predicted = predicted.sum(axis=1)
    precision = np.divide(hits, n_predicted, out=np.zeros(len(hits)), where=n_predicted > 0)
    recall = hits / gold.sum(axis=1)
    f1 = np.divide(
        2 * precision * recall,
        precision + recall,
        out=np.zeros(len(hits)),
        where=precision + recall > 0,
    )
    exact = (gold == predicted).all(axis=1)
    scores = {"exact_set_accuracy": exact, "precision": precision, "recall": recall, "f1": f1}
    return {name: np.where(valid, values, 0.0) for name, values in scores.items()}


def set_scores(gold, predicted, valid, clusters=None) -> dict[str, tuple[float, float]]:
    """Exact-set accuracy, precision, recall, F1 (`set_items`) and the invalid rate of a multi-label
    task, each (mean over examples, clustered stderr)."""
    scores = {
        name: clustered_mean(values, clusters)
        for name, values in set_items(gold, predicted, valid).items()
    }
    scores["invalid_rate"] = clustered_mean(~np.asarray(valid, dtype=bool).ravel(), clusters)
    return scores


def choice_items(gold, chosen, n_options: int) -> dict[str, tuple[np.ndarray, np.ndarray]]:
    """Every share a choice task reports, per item as (counted, eligible) flags, the share being
    counted / eligible: accuracy and invalid rate (every item eligible; an invalid answer is wrong),
    the rate of each option among valid answers, and accuracy on items whose gold is the first /
    second option."""
    gold, chosen = np.asarray(gold, dtype=int), _codes(chosen, n_options)
    valid, correct, every = chosen != INVALID, chosen == gold, np.ones(len(gold), dtype=bool)
    items = {"accuracy": (correct, every), "invalid_rate": (~valid, every)}
    for option in range(n_options):
        items[f"option_{option}_rate"] = (valid & (chosen == option), valid)
    items["gold_0_accuracy"] = (correct & (gold == 0), gold == 0)
    items["gold_1_accuracy"] = (correct & (gold == 1), gold == 1)
    return items


def choice_scores(gold, chosen, n_options: int, clusters=None) -> dict[str, tuple[float, float]]:
    """Every score of a choice task, each (value, stderr): the shares of `choice_items` and the
    response bias."""
    clusters = _cluster_codes(clusters, len(np.asarray(gold)))
    scores = {
        name: rate_among(counted, eligible, clusters)
        for name, (counted, eligible) in choice_items(gold, chosen, n_options).items()
    }
    scores["bias"] = response_bias(chosen, n_options, clusters)
    return scores
