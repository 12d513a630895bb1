"""Agreement between two protocols' per-instrument ABS (e.g. Likert vs log-probability)."""

from __future__ import annotations

import numpy as np
from scipy import stats


def protocol_agreement(abs_a, abs_b, confidence: float = 0.95) -> dict[str, float]:
    """Sign agreement (same sign of ABS; an ABS of exactly 0 agrees only with 0) with a Wilson CI,
    and Pearson / Spearman correlations, over instruments where both ABS are finite. Correlations
    need 3 instruments."""
    abs_a = np.asarray(abs_a, dtype=float)
    abs_b = np.asarray(abs_b, dtype=float)
    if abs_a.shape != abs_b.shape or abs_a.ndim != 1:
        raise ValueError(
            f"need two 1-D arrays of the same length, got {abs_a.shape} and {abs_b.shape}"
        )
    both = np.isfinite(abs_a) & np.isfinite(abs_b)
    a, b = abs_a[both], abs_b[both]
    n = int(both.sum())
    nan = float("nan")
    result = {
        "n": n,
        "sign_agreement": nan,
        "sign_agreement_ci": [nan, nan],
        "pearson_r": nan,
        "pearson_p": nan,
        "spearman_rho": nan,
        "spearman_p": nan,
    }
    if n == 0:
        return result
    agree = int(np.sum(np.sign(a) == np.sign(b)))
    interval = stats.binomtest(agree, n).proportion_ci(confidence_level=confidence, method="wilson")
    result.update(
        sign_agreement=agree / n, sign_agreement_ci=[float(interval.low), float(interval.high)]
    )
    if n >= 3 and np.ptp(a) > 0 and np.ptp(b) > 0:
        pearson, spearman = stats.pearsonr(a, b), stats.spearmanr(a, b)
        result.update(
            pearson_r=float(pearson.statistic),
            pearson_p=float(pearson.pvalue),
            spearman_rho=float(spearman.statistic),
            spearman_p=float(spearman.pvalue),
        )
    return result
