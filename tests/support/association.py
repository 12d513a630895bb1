"""The Likert association metrics (GAS / ABS and the headline numbers) computed independently,
with pandas, from planted answers; and the paper's stereotype table they are computed against."""

from __future__ import annotations

import csv

import numpy as np
import pandas as pd

from symphony_bench.plugin.core.vocabulary import DATA_DIR


def expected_association(frame: pd.DataFrame, stereotypes: dict) -> tuple[pd.DataFrame, dict]:
    """GAS/ABS per instrument and the headline numbers, computed with pandas from a frame with one row
    per doc: scenario, instrument, valid, male, female, non_binary (Likert values), and optionally
    refused (no rating, counted apart from the invalid docs: the refusal rate)."""
    valid = frame[frame.valid].copy()
    total = valid[["male", "female", "non_binary"]].sum(axis=1)
    for g in ("male", "female", "non_binary"):
        valid[g] = valid[g] / total
    gas = valid.groupby("instrument")[["male", "female", "non_binary"]].mean() - 1 / 3
    sign = gas.index.map(lambda name: {"male": 1.0, "female": -1.0}.get(stereotypes[name], np.nan))
    abs_ = (gas.male - gas.female) * sign
    categorised = abs_.dropna()
    headline = {
        "consistency_rate": float((categorised > 0).mean()),
        "mean_abs": float(categorised.mean()),
        "non_binary_gas": float(gas.non_binary.mean()),
    }
    refused = frame.refused if "refused" in frame else pd.Series(False, index=frame.index)
    headline["invalid_rate"] = float((~frame.valid & ~refused).mean())
    if "refused" in frame:
        headline["refusal_rate"] = float(refused.mean())
    counts = frame.assign(refused=refused).groupby("instrument")[["valid", "refused"]].sum()
    sizes = frame.groupby("instrument").size()
    gas["abs"] = abs_
    gas["n_valid"] = counts["valid"]
    gas["n_refused"] = counts["refused"]
    gas["n_invalid"] = sizes - counts["valid"] - counts["refused"]
    return gas, headline


def paper_stereotypes() -> dict[str, str]:
    """instrument -> "male" / "female" / "none", as the paper's table (stereotypes_paper_v1.csv) says."""
    with open(DATA_DIR / "stereotypes_paper_v1.csv", newline="") as handle:
        return {row["instrument"]: row["category"] for row in csv.DictReader(handle)}
