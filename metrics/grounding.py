"""Instrument-grounding scores with standard errors: accuracy, response-bias (max - min prediction
rate), and exact-set / precision / recall / F1 for multi-label answers.

Answers arrive as integer codes: the index of the option the model chose, -1 for an answer that
could not be read (invalid), -2 for one that declined the task or said the audio never reached the
model (refused). Neither chose an option: both count as wrong in accuracies and are left out of
prediction rates and the response bias (which describe what the model chose when it chose
something); the invalid rate counts the first, the refusal rate the second.

Standard errors cluster on `clusters` (the clip an item was built from: items of one clip are not
independent); without clusters every item is its own, which gives the usual sample stderr.
"""

from __future__ import annotations

import numpy as np
from scipy import stats

from symphony_bench.metrics.association import bootstrap_stderr, bootstrap_weights
from symphony_bench.metrics.constants import BOOTSTRAP_SEED

INVALID = -1
REFUSED = -2
BIAS_BOOTSTRAP = 2000
NULL_DRAWS = 4000


def _codes(predicted, n_options: int) -> np.ndarray:
    codes = np.asarray(predicted, dtype=int).ravel()
    if codes.size and (codes.min() < REFUSED or codes.max() >= n_options):
        raise ValueError(
            f"predictions must be option indices 0..{n_options - 1}, {INVALID} (invalid) or "
            f"{REFUSED} (refused)"
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
    the package's bootstrap over clusters (metrics.association: bootstrap_weights, all replicates at
    once as (B, G) multiplicities @ (G, K) counts, and bootstrap_stderr's sqrt(G / (G - 1)))."""
    codes = _codes(predicted, n_options)
    cluster_codes = _cluster_codes(clusters, codes.size)
    valid = codes >= 0
    if not valid.any():
        return float("nan"), float("nan")
    n_clusters = int(cluster_codes.max()) + 1
    counts = np.zeros((n_clusters, n_options))
    np.add.at(counts, (cluster_codes[valid], codes[valid]), 1.0)
    rates = counts.sum(axis=0) / counts.sum()
    replicated = bootstrap_weights(n_clusters, n_boot, seed) @ counts
    with np.errstate(invalid="ignore", divide="ignore"):
        shares = replicated / replicated.sum(axis=1, keepdims=True)
    spread = shares.max(axis=1) - shares.min(axis=1)
    return float(rates.max() - rates.min()), bootstrap_stderr(spread, n_clusters)


def response_bias_inference(
    predicted, n_options: int, clusters=None, confidence: float = 0.95, seed: int = BOOTSTRAP_SEED
) -> dict[str, float | list[float]]:
    """Inference for the response bias (max - min prediction rate), which is |.|-like: its plug-in
    is biased upward (a model without any preference scores above 0), and value +- z * stderr
    undercovers near small gaps. From the rates' cluster-robust covariance V (clusters: clips):

    - "p_value": the Wald test that every option is chosen equally often, against Hotelling's
      reference for G clusters, W (G - K + 1) / ((K - 1)(G - 1)) ~ F(K - 1, G - K + 1) (exact for
      normal cluster means of equal size; for two options it is t(G - 1), as the other headline
      intervals);
    - "ci": the bias over the Wald confidence region of the rates (its projection): the upper end
      max_ij (p_i - p_j + sqrt(c * var(p_i - p_j))), the lower end the least bias on the region, 0
      exactly when the region holds equal rates, i.e. when p_value >= 1 - confidence. For two
      options the interval of |p_0 - p_1| from that of p_0 - p_1 (covers at least `confidence`,
      more where that interval spans 0: 97.6 % at a gap of two stderrs); conservative for three
      (99 % at a gap of 0.09);
    - "null": what a model without preference scores at this n, the mean bias of rates drawn from
      N(1/K, V), the reference the plug-in value should be read against;
    - "min_clusters": the fewest clusters at which the interval and test hold (MIN_CLUSTERS), and
      "valid": whether there are that many. Below it "p_value" and "ci" are NaN (the null
      reference is still given): with three options and 15 clips the test rejected equal rates in
      8.0-9.6 % of simulated runs without a preference (docs/grounding-method.md)."""
    codes = _codes(predicted, n_options)
    counts = _cluster_counts(codes, _cluster_codes(clusters, codes.size), n_options)
    if n_options - 1 not in (1, 2):
        raise ValueError(f"response bias inference needs 2 or 3 options, got {n_options}")
    total, n_clusters = counts.sum(), int(np.count_nonzero(counts.sum(axis=1)))
    floor = MIN_CLUSTERS[n_options]
    nothing = {
        "p_value": float("nan"),
        "ci": [float("nan")] * 2,
        "null": float("nan"),
        "min_clusters": floor,
        "valid": False,
    }
    if total == 0 or n_clusters < 2:
        return nothing
    rates = counts.sum(axis=0) / total
    residuals = counts - np.outer(counts.sum(axis=1), rates)
    covariance = n_clusters / (n_clusters - 1) * residuals.T @ residuals / total**2
    null = _null_bias(covariance, n_options, seed)
    if n_clusters < floor:
        return {**nothing, "null": null}
    reference = _Hotelling(n_options - 1, n_clusters)
    critical = reference.critical(confidence)
    return {
        "p_value": _equal_rates_p(rates, covariance, reference),
        "ci": [
            _least_bias(rates, covariance, critical, reference),
            _most_bias(rates, covariance, critical),
        ],
        "null": null,
        "min_clusters": floor,
        "valid": True,
    }


# the fewest clusters (clips) at which the response-bias interval and test hold, by number of
# options: simulated without a preference (tests/metrics/test_response_bias.py), three options
# rejected equal rates in 8.0-9.6 % of runs at 15 clips (F(2, G - 1); an option never chosen gave
# p = 0), in 5.5-6.9 % at 30 even on Hotelling's reference, 5.4-5.7 % at 50; two options (a t-test
# of one gap) 5.5-5.8 % at 15.
MIN_CLUSTERS = {2: 2, 3: 50}


class _Hotelling:
    """The reference of a Wald statistic W on `dims` = K - 1 rates from G clusters:
    W (G - K + 1) / ((K - 1)(G - 1)) ~ F(K - 1, G - K + 1)."""

    def __init__(self, dims: int, n_clusters: int):
        self.df = (dims, max(n_clusters - dims, 1))
        self.scale = self.df[1] / (dims * max(n_clusters - 1, 1))

    def p_value(self, statistic: float) -> float:
        return float(stats.f.sf(statistic * self.scale, *self.df))

    def critical(self, confidence: float) -> float:
        """The W at which p = 1 - confidence."""
        return float(stats.f.ppf(confidence, *self.df) / self.scale)


def _cluster_counts(codes: np.ndarray, cluster_codes: np.ndarray, n_options: int) -> np.ndarray:
    """(G, K) valid answers per cluster and option."""
    valid = codes >= 0
    counts = np.zeros((int(cluster_codes.max(initial=-1)) + 1, n_options))
    np.add.at(counts, (cluster_codes[valid], codes[valid]), 1.0)
    return counts


def _bias(rates: np.ndarray) -> np.ndarray:
    return rates.max(axis=-1) - rates.min(axis=-1)


def _equal_rates_p(rates: np.ndarray, covariance: np.ndarray, reference: _Hotelling) -> float:
    """Wald test of rates all 1/K on the first K - 1 rates (the last is fixed by them)."""
    gap, reduced = rates[:-1] - 1.0 / rates.size, covariance[:-1, :-1]
    if np.linalg.matrix_rank(reduced) < gap.size:  # no spread: the rates are known exactly
        return 1.0 if np.allclose(gap, 0.0) else 0.0
    return reference.p_value(float(gap @ np.linalg.solve(reduced, gap)))


def _most_bias(rates: np.ndarray, covariance: np.ndarray, critical: float) -> float:
    """max over the region of max_ij (p_i - p_j): a linear function's maximum per pair."""
    i, j = np.triu_indices(rates.size, 1)
    spread = covariance[i, i] + covariance[j, j] - 2 * covariance[i, j]
    reach = np.sqrt(critical * np.maximum(spread, 0.0))
    return float(min(1.0, np.max(np.abs(rates[i] - rates[j]) + reach)))


def _least_bias(
    rates: np.ndarray, covariance: np.ndarray, critical: float, reference: _Hotelling
) -> float:
    """min over the region of the bias: 0 when it holds equal rates, else on its boundary (the bias
    is convex), found over 2,048 boundary points (an ellipse for three options, two ends for two)."""
    reduced = covariance[:-1, :-1]
    if _equal_rates_p(rates, covariance, reference) >= reference.p_value(critical):
        return 0.0
    values, vectors = np.linalg.eigh(reduced)
    angles = np.linspace(0.0, 2 * np.pi, 2048, endpoint=False)
    directions = (
        np.array([[-1.0], [1.0]])
        if rates.size == 2
        else np.stack([np.cos(angles), np.sin(angles)], 1)
    )
    steps = directions * np.sqrt(critical * np.maximum(values, 0.0)) @ vectors.T
    first = rates[:-1] + steps
    boundary = np.concatenate([first, 1.0 - first.sum(axis=1, keepdims=True)], axis=1)
    return float(max(0.0, _bias(boundary).min()))


def _null_bias(covariance: np.ndarray, n_options: int, seed: int) -> float:
    """Mean bias of rates drawn from N(1/K, V) (the last rate fixed by the others)."""
    reduced = covariance[:-1, :-1]
    values, vectors = np.linalg.eigh(reduced)
    noise = np.random.default_rng(seed).standard_normal((NULL_DRAWS, n_options - 1))
    first = 1.0 / n_options + (noise * np.sqrt(np.maximum(values, 0.0))) @ vectors.T
    drawn = np.concatenate([first, 1.0 - first.sum(axis=1, keepdims=True)], axis=1)
    return float(_bias(drawn).mean())


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


def set_scores(
    gold, predicted, valid, clusters=None, refused=None
) -> dict[str, tuple[float, float]]:
    """Exact-set accuracy, precision, recall, F1 (`set_items`), the invalid and the refusal rate of
    a multi-label task, each (mean over examples, clustered stderr). `refused` marks the answers
    that declined (they must be among the not `valid` ones): the invalid rate counts the others."""
    scores = {
        name: clustered_mean(values, clusters)
        for name, values in set_items(gold, predicted, valid).items()
    }
    valid = np.asarray(valid, dtype=bool).ravel()
    refused = np.zeros_like(valid) if refused is None else np.asarray(refused, dtype=bool).ravel()
    if refused.shape != valid.shape or np.any(refused & valid):
        raise ValueError("refused answers must be a subset of the answers that are not valid")
    scores["invalid_rate"] = clustered_mean(~valid & ~refused, clusters)
    scores["refusal_rate"] = clustered_mean(refused, clusters)
    return scores


def choice_items(gold, chosen, n_options: int) -> dict[str, tuple[np.ndarray, np.ndarray]]:
    """Every share a choice task reports, per item as (counted, eligible) flags, the share being
    counted / eligible: accuracy, invalid and refusal rate (every item eligible; an invalid or
    refused answer is wrong), the rate of each option among valid answers, and accuracy on items
    whose gold is the first / second option."""
    gold, chosen = np.asarray(gold, dtype=int), _codes(chosen, n_options)
    valid, correct, every = chosen >= 0, chosen == gold, np.ones(len(gold), dtype=bool)
    items = {
        "accuracy": (correct, every),
        "invalid_rate": (chosen == INVALID, every),
        "refusal_rate": (chosen == REFUSED, every),
    }
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
