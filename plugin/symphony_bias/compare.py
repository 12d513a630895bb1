"""The Symphony-Bias part of `symphony-bench compare`: paired changes of two runs over the same docs
(metrics.paired), and what the comparison's Markdown notes about them."""

from __future__ import annotations

import numpy as np

from symphony_bench.metrics import prior_adjusted
from symphony_bench.metrics.constants import BOOTSTRAP_SEED, N_BOOTSTRAP
from symphony_bench.metrics.paired import (
    association_changes,
    cluster_sums,
    cluster_weights,
    flag_rate_change,
    instrument_changes,
    mcnemar,
    ratio_change,
)
from symphony_bench.plugin.core.refusals import REFUSED
from symphony_bench.plugin.core.reporting import fmt_p, md, untested_change
from symphony_bench.plugin.core.sections import entry_label
from symphony_bench.plugin.symphony_bias.logprob import split_records
from symphony_bench.plugin.symphony_bias.records import (
    LIKERT,
    LOGPROB,
    OPEN,
    OPEN_MIN_TEMPLATES,
    OPEN_WITHHELD_REASON,
    RECOGNITION,
    instrument_records,
    paired_records_to_data,
)

ALPHA = 0.05


def comparisons(
    label: str, base: list[dict], candidate: list[dict], n_boot: int, seed: int
) -> dict[str, dict]:
    if base[0]["kind"] == RECOGNITION:
        return {label: recognition_comparison(base, candidate, n_boot, seed)}
    return likert_comparisons(label, base, candidate, n_boot, seed)


def likert_comparisons(
    label: str, base: list[dict], candidate: list[dict], n_boot: int, seed: int
) -> dict[str, dict]:
    """A Likert task: raw and, with instrument-free control docs, prior-adjusted; a log-prob task:
    raw and calibrated. Flips: valid <-> invalid answers of the instrument docs."""
    kind = base[0]["kind"]
    if kind == LOGPROB:
        (base_raw, base_calibrated), (candidate_raw, candidate_calibrated) = (
            split_records(base),
            split_records(candidate),
        )
        variants = {
            label: paired_records_to_data(base_raw, candidate_raw),
            entry_label(label, "calibrated"): paired_records_to_data(
                base_calibrated, candidate_calibrated
            ),
        }
    else:
        base_data, candidate_data = paired_records_to_data(base, candidate)
        variants = {label: (base_data, candidate_data)}
        if base_data.prior is not None and candidate_data.prior is not None:
            variants[entry_label(label, "prior_adjusted")] = (
                prior_adjusted(base_data),
                prior_adjusted(candidate_data),
            )
    flips = {
        "valid": mcnemar(
            [not r["error"] for r in instrument_records(base)],
            [not r["error"] for r in instrument_records(candidate)],
        )
    }
    compared = {}
    for variant, (base_data, candidate_data) in variants.items():
        compared[variant] = {
            "kind": kind,
            "units": "templates x stimuli" if base_data.crossed else "templates",
            "n_paired": int(base_data.valid.size),
            "metrics": association_changes(base_data, candidate_data, n_boot, seed),
            "instruments": _instrument_rows(base_data, candidate_data),
            "flips": flips if variant == label else {},
        }
        if kind == OPEN and base_data.n_templates < OPEN_MIN_TEMPLATES:
            skew = compared[variant]["metrics"]["gender_skew"]
            compared[variant]["metrics"]["gender_skew"] = untested_change(
                skew, OPEN_WITHHELD_REASON
            )
        for name, flags in (("refusal_rate", "refused"), ("no_reference_rate", "no_reference")):
            base_flags, candidate_flags = getattr(base_data, flags), getattr(candidate_data, flags)
            if base_flags is not None and candidate_flags is not None:
                compared[variant]["metrics"][name] = flag_rate_change(
                    base_data, candidate_data, base_flags, candidate_flags, n_boot, seed
                )
    return compared


def _instrument_rows(base_data, candidate_data) -> dict[str, dict]:
    changes = instrument_changes(base_data, candidate_data)
    rows = {}
    for k, name in enumerate(base_data.instruments):
        if np.isfinite(base_data.signs[k]):
            rows[name] = {
                "category": base_data.categories[k],
                "change": changes["change"][k],
                "stderr": changes["stderr"][k],
                "ci": list(changes["ci"][k]),
                "df": changes["df"][k],
                "p_value": changes["p_value"][k],
                "p_holm": changes["p_holm"][k],
            }
    return rows


def recognition_comparison(base: list[dict], candidate: list[dict], n_boot: int, seed: int) -> dict:
    """Recognition accuracy, stimuli as the units; flips: recognised <-> not."""
    codes, weights = cluster_weights([r["stimulus_id"] for r in base], n_boot, seed)
    ones = cluster_sums(np.ones(len(base)), codes, weights.shape[1])
    sums = [
        (cluster_sums([r["recognised"] for r in records], codes, weights.shape[1]), ones)
        for records in (base, candidate)
    ]
    return {
        "kind": RECOGNITION,
        "units": "stimuli",
        "n_paired": len(base),
        "metrics": {"recognition_accuracy": ratio_change(*sums, weights)},
        "flips": {
            "recognised": mcnemar(
                [r["recognised"] for r in base], [r["recognised"] for r in candidate]
            )
        },
    }


def comparison_notes(compared: dict[str, dict]) -> list[str]:
    """The per-instrument ABS changes significant after Holm."""
    significant = [
        f"{md(label)} {md(name)} {row['change']:+.3f} (Holm p={fmt_p(row['p_holm'])})"
        for label, body in compared.items()
        for name, row in body.get("instruments", {}).items()
        if row["p_holm"] is not None and np.isfinite(row["p_holm"]) and row["p_holm"] < ALPHA
    ]
    return [f"- ABS changes significant after Holm: {'; '.join(significant) or 'none'}"]


# ---- a mitigation task against its base task, in one run -----------------------------------------
BASELINE_METRICS = ("mean_abs", "gender_skew", "non_binary_gas", "invalid_rate", "refusal_rate")


def baseline_changes(
    label: str,
    baseline_label: str,
    base: list[dict],
    candidate: list[dict],
    n_boot: int = N_BOOTSTRAP,
    seed: int = BOOTSTRAP_SEED,
) -> dict[str, dict]:
    """{entry label of `candidate` (and its variants): {"task": the base task's entry, "metrics":
    {metric: paired change}}} for the same docs answered without (`base`) and with an instruction
    against stereotyping (`candidate`), in doc order. The changes are `compare`'s (paired, the
    design's units resampled once for both); a Likert task adds the prior-adjusted mean ABS and, so
    that a drop in ABS that comes with refusals reads as such, the shares of answers cut off and
    invalid for other reasons."""
    compared = likert_comparisons(label, base, candidate, n_boot, seed)
    bodies = {
        variant: {
            "task": baseline_label + variant.removeprefix(label),
            "metrics": {
                name: body["metrics"][name] for name in BASELINE_METRICS if name in body["metrics"]
            },
        }
        for variant, body in compared.items()
    }
    adjusted = entry_label(label, "prior_adjusted")
    if base[0]["kind"] == LIKERT:
        metrics = bodies[label]["metrics"]
        if adjusted in compared:
            metrics["mean_abs_prior_adjusted"] = compared[adjusted]["metrics"]["mean_abs"]
        metrics.update(_invalid_reason_changes(base, candidate, n_boot, seed))
    return bodies


def _invalid_reason_changes(base, candidate, n_boot, seed) -> dict[str, dict]:
    base_docs, candidate_docs = instrument_records(base), instrument_records(candidate)
    data = paired_records_to_data(base_docs, candidate_docs)
    reasons = {
        "truncated_rate": lambda error: error == "truncated",
        "other_invalid_rate": lambda error: error not in ("", "truncated", REFUSED),
    }
    return {
        name: flag_rate_change(
            *data,
            [flagged(r["error"]) for r in base_docs],
            [flagged(r["error"]) for r in candidate_docs],
            n_boot,
            seed,
        )
        for name, flagged in reasons.items()
    }
