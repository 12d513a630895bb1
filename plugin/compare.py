"""`symphony-bench compare BASE_RUN CAND_RUN`: did the candidate change beyond noise?

Both run folders are read like `symphony-bench report` reads them (newest samples file per model
folder and task). Tasks are paired by name and docs by the harness's doc_id; a doc must be the same
doc in both runs (its record minus the answer: scenario, template, instrument, stereotype, stimulus,
clip, options, gold). Runs are refused, with the difference named, when their tasks, docs or any of
plugin.provenance's COMPARED_FIELDS differ; `allow_mismatch` compares the docs both runs share and
records every overridden difference.

Every headline metric gets CANDIDATE - BASE with a 95% interval and p-value from a paired bootstrap
of the design's units (metrics.paired); per instrument, the ABS change with Holm-adjusted p-values;
per task, McNemar tests of items that flip (valid <-> invalid, recognised <-> not, correct <-> wrong).

The gate (`--fail-on METRIC:+TOL`, see `GateRule`): a comparison is a regression when the whole 95%
interval of the change lies beyond the tolerance in the bad direction, i.e. a one-sided test at
2.5% that the change exceeds the tolerance. A same-model rerun (true change 0) is flagged at most
2.5% of the time per gated number, and a change inside the tolerance never passes for a regression
by noise alone more often than that.
"""

from __future__ import annotations

import contextlib
import gc
import json
import math
import operator
import re
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from symphony_bench.metrics.association import (
    DEFAULT_BOOTSTRAP_SEED,
    DEFAULT_N_BOOTSTRAP,
    bootstrap_weights,
    prior_adjusted,
)
from symphony_bench.metrics.paired import (
    association_changes,
    cluster_sums,
    instrument_changes,
    mcnemar,
    ratio_change,
    set_item_scores,
    spread_change,
)
from symphony_bench.plugin.core.errors import DataFileError
from symphony_bench.plugin.core.reporting import fmt, fmt_p, number
from symphony_bench.plugin.core.run_facts import RUN_FIELDS
from symphony_bench.plugin.grounding.records import (
    CHOICE,
    METRICS_BY_INTERFACE,
    SCORE_KEY,
)
from symphony_bench.plugin.provenance import (
    COMPARED_FIELDS,
    SamplesContent,
    forget_samples,
    provenance,
)
from symphony_bench.plugin.report import SECTION_OF_KIND, latest_sample_files
from symphony_bench.plugin.symphony_bias.logprob import split_records
from symphony_bench.plugin.symphony_bias.records import (
    LIKERT,
    LOGPROB,
    RECOGNITION,
    instrument_records,
    paired_records_to_data,
)

# Record fields that hold the model's answer, and run facts (seed, data, package version) that
# provenance compares by name; every other field identifies the doc.
NOT_IDENTITY_FIELDS = frozenset({"error", "scores", "recognised", "named", "chosen", *RUN_FIELDS})
EXIT_PASS, EXIT_REGRESSION, EXIT_CANNOT_COMPARE = 0, 1, 2
ALPHA = 0.05


# ---- reading and pairing ----------------------------------------------------------------------
@dataclass
class RunTask:
    """One task's records of one run, keyed by the harness's doc_id."""

    task: str
    kind: str
    path: Path
    records: dict[int, dict]


def read_run(run_dir: Path) -> dict[str, RunTask]:
    """{task label: its records by doc_id} from a run folder (labels as in `symphony-bench report`)."""
    if not run_dir.is_dir():
        raise DataFileError(f"{run_dir}: not a directory")
    tasks = {}
    with without_cyclic_gc():
        for label, (task, path) in latest_sample_files(run_dir).items():
            found = read_task(path, task)
            if found is not None:
                tasks[label] = found
    if not tasks:
        raise DataFileError(
            f"{run_dir}: no symphony-bench samples files (run the harness with --log_samples)"
        )
    return tasks


@contextlib.contextmanager
def without_cyclic_gc():
    """A full suite's records are hundreds of thousands of small dicts (none in a cycle); while they
    are alive the cyclic collector would rescan all of them again and again (reading and the
    statistics each took about twice as long with it)."""
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()


def read_task(path: Path, task: str) -> RunTask | None:
    """The file's records by doc_id, each checked by its benchmark; None if no line holds one of ours
    (another task's file). Like `symphony-bench report`, every line must then hold the same kind.
    The checks run on whole columns first (ReportSection.records_valid); a file they do not pass is
    checked line by line, so an error names the same line and field as the per-record check."""
    lines = SamplesContent.read(path).lines  # shared with provenance and the leaderboard: read once
    kind = next((record["kind"] for _, _, record in lines if record is not None), None)
    if kind is None:
        return None
    section = SECTION_OF_KIND[kind]
    _, doc_ids, all_records = zip(*lines)
    if (
        None not in all_records
        and section.records_valid(list(all_records))
        and set(map(type, doc_ids)) == {int}
        and len(records := dict(zip(doc_ids, all_records))) == len(all_records)
    ):
        return RunTask(task, kind, path, records)
    record_problem = section.record_problem
    records = {}
    for line_number, doc_id, record in lines:
        if record is None or record["kind"] != kind:
            raise DataFileError(
                f"{path}, line {line_number}: not a {kind} record like the other lines"
            )
        problem = record_problem(record)
        if problem:
            raise DataFileError(f"{path}, line {line_number}: {kind} record: {problem}")
        if type(doc_id) is not int and (not isinstance(doc_id, int) or isinstance(doc_id, bool)):
            raise DataFileError(
                f"{path}, line {line_number}: no integer doc_id (needed to pair docs across runs)"
            )
        if doc_id in records:
            raise DataFileError(f"{path}, line {line_number}: doc_id {doc_id} appears twice")
        records[doc_id] = record
    return RunTask(task, kind, path, records)


def same_doc(base: dict, candidate: dict) -> bool:
    """The two records describe the same doc (every field but the answer and the run facts agrees)."""
    layout = tuple(base)
    if layout == tuple(
        candidate
    ):  # the usual case: one layout per task; its identity fields compared in C
        identity = _IDENTITY_OF_LAYOUT.get(layout)
        if identity is None:
            identity = _identity_getter(layout)
            if len(_IDENTITY_OF_LAYOUT) < 256:
                _IDENTITY_OF_LAYOUT[layout] = identity
        return identity(base) == identity(candidate)
    return base.keys() - NOT_IDENTITY_FIELDS == candidate.keys() - NOT_IDENTITY_FIELDS and all(
        value == candidate[key] for key, value in base.items() if key not in NOT_IDENTITY_FIELDS
    )


_IDENTITY_OF_LAYOUT: dict[tuple, object] = {}


def _identity_getter(layout: tuple):
    """A function of a record of this key layout: the tuple of its identity fields."""
    keys = [key for key in layout if key not in NOT_IDENTITY_FIELDS]
    return (
        (lambda record: tuple(record[key] for key in keys))
        if len(keys) < 2
        else operator.itemgetter(*keys)
    )


@dataclass
class Pairing:
    """The docs both runs share, in doc_id order, and what differed."""

    base: list[dict] = field(default_factory=list)
    candidate: list[dict] = field(default_factory=list)
    differences: list[str] = field(default_factory=list)


def pair_docs(label: str, base: RunTask, candidate: RunTask) -> Pairing:
    pairing = Pairing()
    if base.kind != candidate.kind:
        pairing.differences.append(
            f"{label}: record kind {base.kind} in BASE, {candidate.kind} in CANDIDATE"
        )
        return pairing
    only_base, only_candidate = (
        base.records.keys() - candidate.records.keys(),
        candidate.records.keys() - base.records.keys(),
    )
    if only_base or only_candidate:
        pairing.differences.append(
            f"{label}: {len(base.records)} docs in BASE, {len(candidate.records)} in CANDIDATE ({len(only_base)} only in "
            f"BASE, {len(only_candidate)} only in CANDIDATE; was --limit or the data different?)"
        )
    changed = []
    for doc_id in sorted(base.records.keys() & candidate.records.keys()):
        base_record, candidate_record = base.records[doc_id], candidate.records[doc_id]
        if not same_doc(base_record, candidate_record):
            changed.append(doc_id)
            continue
        pairing.base.append(base_record)
        pairing.candidate.append(candidate_record)
    if changed:
        first = changed[0]
        fields = _differing_fields(base.records[first], candidate.records[first])
        pairing.differences.append(
            f"{label}: {len(changed)} docs differ between the runs (first: doc {first}, "
            f"{'; '.join(fields)})"
        )
    return pairing


def _differing_fields(base: dict, candidate: dict) -> list[str]:
    keys = sorted((base.keys() | candidate.keys()) - NOT_IDENTITY_FIELDS)
    return [
        f"{key} {base.get(key)!r} in BASE, {candidate.get(key)!r} in CANDIDATE"
        for key in keys
        if base.get(key) != candidate.get(key)
    ]


# ---- provenance ---------------------------------------------------------------------------------
def run_provenance(run: dict[str, RunTask]) -> dict[str, dict]:
    """{model folder: provenance} of every model folder holding one of the run's tasks."""
    folders = sorted({str(task.path.parent) for task in run.values()})
    return {folder: provenance(Path(folder)) for folder in folders}


def provenance_differences(
    label: str, base: RunTask, candidate: RunTask, facts: tuple[dict, dict]
) -> list[str]:
    """The COMPARED_FIELDS of this task that differ between the runs, named."""
    base_task, candidate_task = (
        (facts_of[str(run_task.path.parent)].get("tasks") or {}).get(run_task.task) or {}
        for facts_of, run_task in zip(facts, (base, candidate), strict=True)
    )
    return [
        f"{label}: {name} is {base_task.get(name)!r} in BASE, {candidate_task.get(name)!r} in CANDIDATE"
        for name in COMPARED_FIELDS
        if base_task.get(name) != candidate_task.get(name)
    ]


# ---- the comparisons ----------------------------------------------------------------------------
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
            f"{label}:calibrated": paired_records_to_data(base_calibrated, candidate_calibrated),
        }
    else:
        base_data, candidate_data = paired_records_to_data(base, candidate)
        variants = {label: (base_data, candidate_data)}
        if base_data.prior is not None and candidate_data.prior is not None:
            variants[f"{label}:prior_adjusted"] = (
                prior_adjusted(base_data),
                prior_adjusted(candidate_data),
            )
    flips = {
        "valid": mcnemar(
            [not r["error"] for r in instrument_records(base)],
            [not r["error"] for r in instrument_records(candidate)],
        )
    }
    comparisons = {}
    for variant, (base_data, candidate_data) in variants.items():
        comparisons[variant] = {
            "kind": kind,
            "units": "templates x stimuli" if base_data.crossed else "templates",
            "n_paired": int(base_data.valid.size),
            "metrics": association_changes(base_data, candidate_data, n_boot, seed),
            "instruments": _instrument_rows(base_data, candidate_data),
            "flips": flips if variant == label else {},
        }
    return comparisons


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


def cluster_weights(clusters: list, n_boot: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """(cluster code per item, (B, G) replicate multiplicities shared by both runs)."""
    names, codes = np.unique(np.asarray([str(c) for c in clusters]), return_inverse=True)
    return codes.ravel(), bootstrap_weights(len(names), n_boot, seed)


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


def grounding_comparison(base: list[dict], candidate: list[dict], n_boot: int, seed: int) -> dict:
    """Every score the task reports, clips as the units; flips: correct <-> wrong."""
    codes, weights = cluster_weights([r["clip"] for r in base], n_boot, seed)
    n_clusters = weights.shape[1]
    kind = base[0]["kind"]
    interface = base[0].get("interface", "set")
    items = [
        _choice_items(records) if kind == CHOICE else _set_items(records)
        for records in (base, candidate)
    ]
    metrics = {}
    for metric in METRICS_BY_INTERFACE[interface]:
        key = SCORE_KEY.get(metric, metric)
        if key == "bias":
            counts = [cluster_sums(run["option_counts"], codes, n_clusters) for run in items]
            metrics[metric] = spread_change(*counts, weights)
        else:
            sums = [
                (
                    cluster_sums(run[key][0], codes, n_clusters),
                    cluster_sums(run[key][1], codes, n_clusters),
                )
                for run in items
            ]
            metrics[metric] = ratio_change(*sums, weights)
    correct = [run["correct"] for run in items]
    return {
        "kind": kind,
        "units": "clips",
        "n_paired": len(base),
        "metrics": metrics,
        "flips": {"correct": mcnemar(*correct)},
    }


def _choice_items(records: list[dict]) -> dict:
    """Per score key: (numerator, denominator) per item; option counts of valid answers; correctness."""
    gold = np.array([r["gold"] for r in records])
    chosen = np.array([r["chosen"] for r in records])
    n_options = len(records[0]["options"])
    valid, correct, ones = chosen >= 0, chosen == gold, np.ones(len(records))
    items = {
        "accuracy": (correct, ones),
        "invalid_rate": (~valid, ones),
        "gold_0_accuracy": (correct & (gold == 0), gold == 0),
        "gold_1_accuracy": (correct & (gold == 1), gold == 1),
    }
    option_counts = np.stack([valid & (chosen == k) for k in range(n_options)], axis=1).astype(
        float
    )
    for k in range(n_options):
        items[f"option_{k}_rate"] = (option_counts[:, k], valid)
    return {**items, "option_counts": option_counts, "correct": correct}


def _set_items(records: list[dict]) -> dict:
    gold = np.array([r["gold"] for r in records], dtype=bool)
    valid = np.array([r["chosen"] is not None for r in records])
    chosen = np.array(
        [r["chosen"] if r["chosen"] is not None else [False] * gold.shape[1] for r in records],
        dtype=bool,
    )
    ones = np.ones(len(records))
    items = {name: (values, ones) for name, values in set_item_scores(gold, chosen, valid).items()}
    items["invalid_rate"] = (~valid, ones)
    return {**items, "correct": items["exact_set_accuracy"][0] > 0}


def task_comparisons(
    label: str, base: list[dict], candidate: list[dict], n_boot: int, seed: int
) -> dict[str, dict]:
    kind = base[0]["kind"]
    if kind in (LIKERT, LOGPROB):
        return likert_comparisons(label, base, candidate, n_boot, seed)
    if kind == RECOGNITION:
        return {label: recognition_comparison(base, candidate, n_boot, seed)}
    return {label: grounding_comparison(base, candidate, n_boot, seed)}


# ---- the whole comparison ----------------------------------------------------------------------
def compare_runs(
    base_dir: Path,
    candidate_dir: Path,
    allow_mismatch: bool = False,
    n_boot: int = DEFAULT_N_BOOTSTRAP,
    seed: int = DEFAULT_BOOTSTRAP_SEED,
) -> dict:
    """The comparison as a JSON-ready dict. "mismatches" lists every difference that makes the runs
    incomparable; without `allow_mismatch` any of them stops the comparison ("compared": false).
    The samples files read are dropped when it returns (plugin.provenance.forget_samples)."""
    with without_cyclic_gc():
        try:
            return _compare_runs(base_dir, candidate_dir, allow_mismatch, n_boot, seed)
        finally:
            forget_samples()


def _compare_runs(
    base_dir: Path, candidate_dir: Path, allow_mismatch: bool, n_boot: int, seed: int
) -> dict:
    base, candidate = read_run(base_dir), read_run(candidate_dir)
    facts = (run_provenance(base), run_provenance(candidate))
    mismatches = [f"task {label} only in BASE" for label in sorted(base.keys() - candidate.keys())]
    mismatches += [
        f"task {label} only in CANDIDATE" for label in sorted(candidate.keys() - base.keys())
    ]
    pairings = {}
    for label in sorted(base.keys() & candidate.keys()):
        mismatches += provenance_differences(label, base[label], candidate[label], facts)
        pairings[label] = pair_docs(label, base[label], candidate[label])
        mismatches += pairings[label].differences
    result = {
        "base": str(base_dir),
        "candidate": str(candidate_dir),
        "allow_mismatch": allow_mismatch,
        "mismatches": mismatches,
        "compared": not mismatches or allow_mismatch,
        "provenance": {"base": facts[0], "candidate": facts[1]},
        "tasks": {},
        "method": {"n_boot": n_boot, "seed": seed, "confidence": 0.95},
    }
    if not result["compared"]:
        return result
    for label, pairing in pairings.items():
        if pairing.base:
            result["tasks"].update(
                task_comparisons(label, pairing.base, pairing.candidate, n_boot, seed)
            )
    return result


# ---- the gate -----------------------------------------------------------------------------------
RULE = re.compile(
    r"^(?:(?P<task>.+):)?(?P<metric>[A-Za-z0-9_]+):(?P<sign>[+-])(?P<tolerance>\d+(?:\.\d*)?|\.\d+)$"
)


@dataclass(frozen=True)
class GateRule:
    """`[TASK:]METRIC:+TOL` (an increase beyond TOL is a regression) or `-TOL` (a decrease is).
    Without TASK the rule applies to every compared task that reports METRIC (e.g. `mean_abs`
    covers the raw, prior-adjusted and calibrated entries)."""

    text: str
    task: str | None
    metric: str
    direction: int  # +1: increases are bad, -1: decreases are bad
    tolerance: float

    @classmethod
    def parse(cls, text: str) -> GateRule:
        match = RULE.match(text.strip())
        if not match:
            raise ValueError(
                f"--fail-on {text!r}: expected [TASK:]METRIC:+TOL or [TASK:]METRIC:-TOL, e.g. mean_abs:+0.02"
            )
        return cls(
            text,
            match["task"],
            match["metric"],
            1 if match["sign"] == "+" else -1,
            float(match["tolerance"]),
        )

    def regressed(self, ci: list) -> bool | None:
        """True when the whole interval lies beyond the tolerance in the bad direction; None without an interval."""
        if ci[0] is None or not all(math.isfinite(v) for v in ci):
            return None
        return ci[0] > self.tolerance if self.direction > 0 else ci[1] < -self.tolerance


def apply_gate(result: dict, rules: list[GateRule]) -> dict:
    """{"rules", "regressions", "undecided", "checked" (passed), "unmatched", "status"}; status is
    "pass", "regression" or "could_not_compare" (refused runs, a rule matching nothing, or a gated
    change without an interval)."""
    gate = {
        "rules": [rule.text for rule in rules],
        "regressions": [],
        "undecided": [],
        "checked": [],
        "unmatched": [],
    }
    for rule in rules:
        rows = [
            row
            for row in change_rows(result)
            if row["metric"] == rule.metric and rule.task in (None, row["task"])
        ]
        if not rows:
            gate["unmatched"].append(rule.text)
        for row in rows:
            verdict = rule.regressed([row["ci_low"], row["ci_high"]])
            entry = {"rule": rule.text, **row}
            gate[
                "undecided" if verdict is None else "regressions" if verdict else "checked"
            ].append(entry)
    if not result["compared"] or gate["unmatched"] or gate["undecided"]:
        gate["status"] = "could_not_compare"
    else:
        gate["status"] = "regression" if gate["regressions"] else "pass"
    return gate


def exit_status(gate: dict) -> int:
    return {"pass": EXIT_PASS, "regression": EXIT_REGRESSION}.get(
        gate["status"], EXIT_CANNOT_COMPARE
    )


def change_rows(result: dict) -> list[dict]:
    """One row per compared headline metric, in task order: {"task", "metric", "base", "candidate",
    "change", "ci_low", "ci_high", "p"} (floats or None); what the forest plot of changes reads."""
    rows = []
    for label, body in result["tasks"].items():
        for metric, change in body["metrics"].items():
            rows.append(
                {
                    "task": label,
                    "metric": metric,
                    "base": _finite(change["base"]),
                    "candidate": _finite(change["candidate"]),
                    "change": _finite(change["change"]),
                    "ci_low": _finite(change["ci"][0]),
                    "ci_high": _finite(change["ci"][1]),
                    "p": _finite(change["p_value"]),
                }
            )
    return rows


def _finite(value):
    return None if value is None else number(value)


def json_ready(value):
    """Numbers as finite floats or None (never NaN), numpy scalars and arrays as plain JSON."""
    if isinstance(value, dict):
        return {str(key): json_ready(item) for key, item in value.items()}
    if isinstance(value, (list, tuple, np.ndarray)):
        return [json_ready(item) for item in value]
    if isinstance(value, (bool, np.bool_)):
        return bool(value)
    if isinstance(value, (int, np.integer)):
        return int(value)
    if isinstance(value, (float, np.floating)):
        return number(value)
    return value


# ---- Markdown (short enough for a pull-request comment) ----------------------------------------
STATUS_LINE = {
    "pass": "no significant regression beyond the tolerances",
    "regression": "REGRESSION",
    "could_not_compare": "could not compare",
}


def render_markdown(result: dict, gate: dict) -> str:
    lines = [
        f"## symphony-bench compare: {STATUS_LINE[gate['status']]}",
        "",
        (
            f"BASE `{result['base']}` vs CANDIDATE `{result['candidate']}`: CANDIDATE - BASE on the docs both ran; "
            "95% intervals and p-values from a paired bootstrap of the design's units."
        ),
    ]
    if result["mismatches"]:
        heading = (
            "Differences overridden by --allow-mismatch:"
            if result["allow_mismatch"]
            else "Refused, the runs differ:"
        )
        lines += ["", heading, *[f"- {text}" for text in result["mismatches"][:10]]]
        lines += (
            [f"- ... and {len(result['mismatches']) - 10} more"]
            if len(result["mismatches"]) > 10
            else []
        )
    lines += _gate_lines(gate)
    if result["tasks"]:
        rows = change_rows(result)
        gated = {
            (entry["task"], entry["metric"])
            for key in ("regressions", "undecided", "checked")
            for entry in gate[key]
        }
        shown = [
            row
            for row in rows
            if (row["task"], row["metric"]) in gated or (row["p"] is not None and row["p"] < ALPHA)
        ]
        lines += [
            "",
            f"Gated changes and changes with p < {ALPHA} ({len(shown)} of {len(rows)}):",
            "",
        ]
        lines += _change_table(shown) if shown else ["none"]
        lines += [
            "",
            *_notable_lines(result),
            "",
            f"<details><summary>all {len(rows)} changes</summary>",
            "",
            *_change_table(rows),
            "",
            "</details>",
        ]
    return "\n".join(lines) + "\n"


def _change_table(rows: list[dict]) -> list[str]:
    lines = [
        "| task | metric | base | candidate | change | 95% CI | p |",
        "|---|---|---:|---:|---:|---|---:|",
    ]
    for row in rows:
        ci = "n/a" if row["ci_low"] is None else f"[{fmt(row['ci_low'])}, {fmt(row['ci_high'])}]"
        lines.append(
            f"| {row['task']} | {row['metric']} | {fmt(row['base'])} | {fmt(row['candidate'])} | "
            f"{_signed(row['change'])} | {ci} | {fmt_p(row['p'])} |"
        )
    return lines


def _signed(value) -> str:
    return "n/a" if value is None else f"{value:+.3f}"


def _gate_lines(gate: dict) -> list[str]:
    lines = []
    for entry in gate["regressions"]:
        lines.append(
            f"- regression ({entry['rule']}): {entry['task']} {entry['metric']} {_signed(entry['change'])} "
            f"(95% CI {fmt(entry['ci_low'])} to {fmt(entry['ci_high'])})"
        )
    lines += [
        f"- no interval, cannot gate ({entry['rule']}): {entry['task']} {entry['metric']}"
        for entry in gate["undecided"]
    ]
    lines += [f"- --fail-on {text} matches no compared metric" for text in gate["unmatched"]]
    return ["", *lines] if lines else []


def _notable_lines(result: dict) -> list[str]:
    """Per-instrument ABS changes significant after Holm, and flips with McNemar p < 0.05."""
    instruments, flips = [], []
    for label, body in result["tasks"].items():
        for name, row in body.get("instruments", {}).items():
            if row["p_holm"] is not None and np.isfinite(row["p_holm"]) and row["p_holm"] < ALPHA:
                instruments.append(
                    f"{label} {name} {_signed(row['change'])} (Holm p={fmt_p(row['p_holm'])})"
                )
        for what, test in body.get("flips", {}).items():
            if test["p_value"] < ALPHA:
                flips.append(
                    f"{label} {what}: {test['lost']} lost, {test['gained']} gained (McNemar p={fmt_p(test['p_value'])})"
                )
    return [
        f"- ABS changes significant after Holm: {'; '.join(instruments) or 'none'}",
        f"- items that flip more one way than the other: {'; '.join(flips) or 'none'}",
    ]


def write_outputs(
    result: dict, gate: dict, json_path: Path | None, markdown_path: Path | None
) -> str:
    """Writes the requested files atomically; returns the Markdown."""
    from symphony_bench.plugin.core.atomic import write_text_atomically

    markdown = render_markdown(result, gate)
    if json_path:
        write_text_atomically(
            json_path,
            json.dumps(json_ready({**result, "gate": gate}), indent=2, allow_nan=False) + "\n",
        )
    if markdown_path:
        write_text_atomically(markdown_path, markdown)
    return markdown
