"""The instrument-grounding part of `symphony-bench compare`: every score a task reports, as the
paired change of two runs over the same items, clips as the units (metrics.paired)."""

from __future__ import annotations

import numpy as np

from symphony_bench.metrics.grounding import MIN_CLUSTERS, choice_items, set_items
from symphony_bench.metrics.paired import (
    cluster_sums,
    cluster_weights,
    mcnemar,
    ratio_change,
    spread_change,
)
from symphony_bench.plugin.core.reporting import md, untested_change
from symphony_bench.plugin.grounding.records import (
    CHOICE,
    METRICS_BY_INTERFACE,
    SCORE_KEY,
    choice_arrays,
    refused_mask,
    set_arrays,
)


def comparisons(
    label: str, base: list[dict], candidate: list[dict], n_boot: int, seed: int
) -> dict[str, dict]:
    """{label: comparison}: every score of the task's interface; flips: correct <-> wrong."""
    codes, weights = cluster_weights([r["clip"] for r in base], n_boot, seed)
    n_clusters = weights.shape[1]
    kind = base[0]["kind"]
    interface = base[0].get("interface", "set")
    runs = [paired_items(records) for records in (base, candidate)]
    metrics = {}
    for metric in METRICS_BY_INTERFACE[interface]:
        key = SCORE_KEY.get(metric, metric)
        if key == "bias":
            counts = [cluster_sums(run["option_counts"], codes, n_clusters) for run in runs]
            metrics[metric] = withheld_below_floor(spread_change(*counts, weights), counts)
        else:
            sums = [
                tuple(cluster_sums(values, codes, n_clusters) for values in run["items"][key])
                for run in runs
            ]
            metrics[metric] = ratio_change(*sums, weights)
    comparison = {
        "kind": kind,
        "units": "clips",
        "n_paired": len(base),
        "metrics": metrics,
        "flips": {"correct": mcnemar(*(run["correct"] for run in runs))},
    }
    return {label: comparison}


def withheld_below_floor(change: dict, counts: list[np.ndarray]) -> dict:
    """A response bias's change with no stderr, interval, p-value or MDE where either run has
    fewer clips with a readable answer than its single-run inference needs
    (metrics.grounding.MIN_CLUSTERS: 50 for three options): not shown as significant, and a
    `--fail-on` rule on it cannot decide (exit 2)."""
    floor = MIN_CLUSTERS.get(counts[0].shape[1], 2)
    clips = min(int(np.count_nonzero(run.sum(axis=1))) for run in counts)
    if clips >= floor:
        return change
    return untested_change(change, f"no interval below {floor} clips ({clips} here)")


def paired_items(records: list[dict]) -> dict:
    """{"items": {score key: (counted, eligible) per item}, "correct" per item, and for a choice
    task "option_counts" (items x options: the valid answers' option), what the response bias is
    computed from}."""
    if records[0]["kind"] == CHOICE:
        gold, chosen, n_options = choice_arrays(records)
        items = choice_items(gold, chosen, n_options)
        option_counts = np.stack([items[f"option_{k}_rate"][0] for k in range(n_options)], axis=1)
        return {"items": items, "correct": items["accuracy"][0], "option_counts": option_counts}
    gold, chosen, valid = set_arrays(records)
    every = np.ones(len(records), dtype=bool)
    items = {name: (values, every) for name, values in set_items(gold, chosen, valid).items()}
    refused = refused_mask(records)
    items["invalid_rate"] = (~valid & ~refused, every)  # refusals are apart
    items["refusal_rate"] = (refused, every)
    return {"items": items, "correct": items["exact_set_accuracy"][0] > 0}


def comparison_notes(compared: dict[str, dict]) -> list[str]:
    """The response-bias changes given without an interval (`withheld_below_floor`)."""
    withheld = [
        f"{md(label)} {md(name)}: {change['note']}"
        for label, body in compared.items()
        for name, change in body["metrics"].items()
        if "note" in change
    ]
    return (
        [f"- response-bias changes without an interval: {'; '.join(withheld)}"] if withheld else []
    )
