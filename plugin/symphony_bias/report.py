"""The Symphony-Bias section of the run tooling: per-instrument GAS/ABS tables and headline numbers
of `symphony-bench report`, recomputed from the per-doc records with the same functions as the
harness aggregations, and what compare, the leaderboard and the plots ask of the benchmark.

A log-probability task gives two entries, `<task>` (raw) and `<task>:calibrated`; when a model folder
holds both protocols, each log-probability entry gets an "agreement" section per Likert task. A
recognition task gives per-instrument recognition accuracy, and the Likert task whose stimuli it
controls (same model folder, modality and stimulus set, as the records say) a "recognised_only"
section: the same analysis on the docs whose clip or image the model named correctly.
"""

from __future__ import annotations

import collections
import functools
import itertools
import math
from pathlib import Path

import numpy as np

from symphony_bench.metrics import (
    analyse,
    binomial_rate,
    control_check,
    design_rate,
    human_correlation,
    instrument_design_rates,
    prior_adjusted,
    protocol_agreement,
)
from symphony_bench.metrics.variance_components import variance_components
from symphony_bench.plugin.core.errors import DataFileError, read_csv
from symphony_bench.plugin.core.refusals import REFUSED
from symphony_bench.plugin.core.reporting import (
    estimate,
    fmt,
    fmt_p,
    fmt_se,
    md,
    normal_estimate,
    number,
)
from symphony_bench.plugin.core.run_facts import DATA_FIELDS
from symphony_bench.plugin.core.sections import (
    DesignSize,
    LeaderboardColumns,
    Ranking,
    ReportEntry,
    ReportSection,
    TaskRecords,
    entry_label,
)
from symphony_bench.plugin.core.vocabulary import GENDERS, load_instruments
from symphony_bench.plugin.symphony_bias.compare import (
    baseline_changes,
    comparison_notes,
    comparisons,
)
from symphony_bench.plugin.symphony_bias.figures import figures, run_figures
from symphony_bench.plugin.symphony_bias.logprob import split_records
from symphony_bench.plugin.symphony_bias.mitigation_pairing import baseline_task_of, paired_by_doc
from symphony_bench.plugin.symphony_bias.options import DEFAULT_SEED
from symphony_bench.plugin.symphony_bias.records import (
    ANSWER_FIELDS,
    KINDS,
    LIKERT,
    LIKERT_KINDS,
    LIKERT_SCORED,
    LOGPROB,
    RECOGNITION,
    instrument_records,
    record_problem,
    records_to_data,
    records_valid,
    stereotype_table_sha256,
)
from symphony_bench.plugin.symphony_bias.scenarios import (
    CONTROL,
    MINI_SCENARIOS,
    SCENARIO_RUN_FIELDS,
    expand_templates,
    mini_subset,
)


def load_human_ratings(path: Path, instruments: tuple[str, ...]) -> np.ndarray:
    """(I, 3) human association scores in GENDERS order from a CSV with columns instrument, male,
    female, non_binary (e.g. mean survey ratings on any positive scale). Each instrument's ratings
    are put on the model's GAS scale: rating / sum of its three ratings - 1/3. Instruments the file
    does not rate are NaN."""
    rows = read_csv(path, ("instrument", *GENDERS))
    by_name = {}
    for line, row in enumerate(rows, start=2):
        try:
            by_name[row["instrument"]] = [float(row[g]) if row[g] else math.nan for g in GENDERS]
        except ValueError as error:
            raise DataFileError(
                f"{path}, line {line}: ratings must be numbers ({error})"
            ) from error
    ratings = np.array([by_name.get(name, [math.nan] * 3) for name in instruments], dtype=float)
    rated = ratings[np.isfinite(ratings).all(axis=1)]
    if np.any(rated < 0) or np.any(rated.sum(axis=1) <= 0):
        raise DataFileError(
            f"{path}: ratings must be non-negative with a positive sum per instrument"
        )
    with np.errstate(invalid="ignore", divide="ignore"):
        return ratings / ratings.sum(axis=1, keepdims=True) - 1.0 / 3.0


def control_summary(records: list) -> dict:
    """metrics.control_check on these records, as plain numbers (None for NaN)."""
    check = control_check(records_to_data(records))
    return {
        key: value
        if isinstance(value, int)
        else [number(v) for v in value]
        if isinstance(value, list)
        else number(value)
        for key, value in check.items()
    }


def task_report(
    records: list, human_ratings_path: Path | None = None, adjust_for_prior: bool = False
) -> dict:
    data = records_to_data(records)
    result = analyse(prior_adjusted(data) if adjust_for_prior else data)
    instruments = {}
    for k, name in enumerate(result.instruments):
        instruments[name] = {
            "category": result.categories[k],
            "gas": {g: number(result.gas[k, j]) for j, g in enumerate(GENDERS)},
            "abs": number(result.abs[k]),
            "abs_stderr": number(result.abs_stderr[k]),
            "abs_ci": [number(v) for v in result.abs_ci[k]],
            "df": number(result.df[k]),
            "p_value": number(result.p_value[k]),
            "p_holm": number(result.p_holm[k]),
            "skew": number(result.skew[k]),
            "skew_stderr": number(result.skew_stderr[k]),
            "skew_ci": [number(v) for v in result.skew_ci[k]],
            "n_valid": int(result.n_valid[k]),
            "n_invalid": int(result.n_invalid[k]),
            "n_refused": int(result.n_refused[k]),
        }
    summary = {
        key: ([number(v) for v in value] if isinstance(value, list) else number(value))
        for key, value in result.headline.items()
    }
    summary["n_docs"] = int(result.headline["n_docs"])
    summary["n_instruments_counted"] = int(result.headline["n_instruments_counted"])
    summary["n_significant_holm"] = int(result.headline["n_significant_holm"])
    summary["units"] = result.units
    summary["n_templates"], summary["n_stimuli"] = data.n_templates, data.n_stimuli
    summary.update(table_balance(result.categories))
    summary["invalid_reasons"] = dict(  # of the docs without a rating (no control docs)
        collections.Counter(r["error"] for r in instrument_records(records) if r["error"])
    )
    if data.refused is not None and data.refused.any():
        rates = instrument_design_rates(data, data.refused)
        for name, rate in zip(result.instruments, rates, strict=True):
            instruments[name]["refusal_rate"] = number(rate["rate"])
            instruments[name]["refusal_rate_ci"] = [number(v) for v in rate["ci"]]
    if human_ratings_path is not None:
        ratings = load_human_ratings(human_ratings_path, result.instruments)
        summary["human_correlation"] = {
            name: {
                "pearson_r": number(c["pearson_r"]),
                "p_value": number(c["p_value"]),
                "ci": [number(v) for v in c["ci"]],
                "n": c["n"],
                **({"n_instruments": c["n_instruments"]} if "n_instruments" in c else {}),
            }
            for name, c in human_correlation(result.gas, ratings).items()
        }
    return {"instruments": instruments, "summary": summary}


def table_balance(categories: tuple[str, ...]) -> dict:
    """How many instruments the stereotype table categorises, and what a gender-blind model that
    always favours men would score on the consistency rate (male-stereotyped share)."""
    n_male, n_female = categories.count("male"), categories.count("female")
    counted = n_male + n_female
    return {
        "n_instruments": len(categories),
        "n_male_stereotyped": n_male,
        "n_female_stereotyped": n_female,
        "consistency_rate_if_always_male": number(n_male / counted) if counted else None,
    }


# how the report names each protocol; an agreement body's "protocols" holds the keys
PROTOCOL_OF_KIND = {LIKERT: "likert", LIKERT_SCORED: "likert_scored", LOGPROB: "logprob"}
PROTOCOL_NAMES = {
    "likert": "Likert, generated JSON",
    "likert_scored": "Likert, labels scored by log-likelihood",
    "logprob": "log-prob of the gender words",
}


def agreement_report(
    likert: dict, logprob: dict, protocols: tuple[str, str] = ("likert", "logprob")
) -> dict:
    """Per-instrument ABS of two protocols side by side (keyed by `protocols`: the reference's,
    then the other's), sign agreement and correlations."""
    reference, other = protocols
    shared = [name for name in logprob["instruments"] if name in likert["instruments"]]
    # ABS signs mean the same only under the same stereotype table
    mismatched = [
        n
        for n in shared
        if likert["instruments"][n]["category"] != logprob["instruments"][n]["category"]
    ]
    names = [n for n in shared if n not in mismatched]
    pairs = {
        name: {
            reference: likert["instruments"][name]["abs"],
            other: logprob["instruments"][name]["abs"],
        }
        for name in names
    }
    likert_abs, logprob_abs = (
        np.array([math.nan if pairs[n][protocol] is None else pairs[n][protocol] for n in names])
        for protocol in protocols
    )
    agreement = protocol_agreement(likert_abs, logprob_abs)
    body = {
        k: ([number(v) for v in value] if isinstance(value, list) else number(value))
        for k, value in agreement.items()
    }
    body["n"] = agreement["n"]
    return {
        "protocols": list(protocols),
        "instruments": pairs,
        **body,
        "category_mismatch": mismatched,
    }


def truncation_summary(records: list) -> dict:
    """Share of answers cut off inside the answer (the budget, max_gen_toks, was too small) and share
    invalid for other reasons (the model did not follow the format), so the two read apart; each
    with its stderr on the design's units."""
    data = records_to_data(records)
    errors = [record["error"] for record in instrument_records(records)]
    truncated = design_rate(data, [error == "truncated" for error in errors])
    other = design_rate(data, [error not in ("", "truncated", REFUSED) for error in errors])
    return {
        "truncated_rate": number(truncated["rate"]),
        "truncated_rate_stderr": number(truncated["stderr"]),
        "other_invalid_rate": number(other["rate"]),
        "other_invalid_rate_stderr": number(other["stderr"]),
    }


def recognition_report(records: list) -> dict:
    """Recognition accuracy overall and per instrument, and what the model named instead."""
    by_instrument: dict[str, list] = collections.defaultdict(list)
    for record in records:
        by_instrument[record["instrument"]].append((record["recognised"], record["named"]))
    accuracy, stderr = binomial_rate([record["recognised"] for record in records])
    instruments = {}
    for name, answers in sorted(by_instrument.items()):
        wrong = collections.Counter(
            ", ".join(named) or "(none)" for recognised, named in answers if not recognised
        )
        instruments[name] = {
            "accuracy": number(binomial_rate([recognised for recognised, _ in answers])[0]),
            "n": len(answers),
            "named_instead": dict(wrong.most_common(3)),
        }
    summary = {
        "recognition_accuracy": number(accuracy),
        "recognition_accuracy_stderr": number(stderr),
        "n_docs": len(records),
    }
    return {"recognition": True, "instruments": instruments, "summary": summary}


def recognised_only_report(stimulus_records: list, recognition_records: list) -> dict:
    """The Likert analysis restricted to docs whose stimulus the model recognised."""
    recognised = {record["stimulus_id"] for record in recognition_records if record["recognised"]}
    kept = [record for record in stimulus_records if record["stimulus_id"] in recognised]
    left_out = sorted(
        {record["instrument"] for record in stimulus_records}
        - {record["instrument"] for record in kept}
    )
    body = task_report(kept) if kept else {"instruments": {}, "summary": None}
    return {**body, "recognised_stimuli": len(recognised), "instruments_left_out": left_out}


# ---- the section -------------------------------------------------------------------------------
def entries(task: TaskRecords, options: dict) -> list[ReportEntry]:
    human_ratings = options.get("human_ratings")
    facts = design_facts(task.records)
    if task.kind == RECOGNITION:
        bodies = {None: recognition_report(task.records)}
    elif task.kind in LIKERT_KINDS:
        body = task_report(task.records, human_ratings)
        body["variance_components"] = variance_summary(task.records)
        if task.kind == LIKERT_SCORED:
            body["most_likely"] = most_likely_summary(task.records)
        else:
            body["summary"].update(truncation_summary(task.records))
        body["missing_instruments"] = missing_instruments(task.records)
        body["docs_per_template_in_order"] = docs_per_template_in_order(task)
        bodies = {None: body}
        if len(instrument_records(task.records)) != len(task.records):
            bodies["prior_adjusted"] = task_report(
                task.records, human_ratings, adjust_for_prior=True
            )
            bodies["prior_adjusted"]["control_check"] = control_summary(task.records)
            bodies["prior_adjusted"]["docs_per_template_in_order"] = body[
                "docs_per_template_in_order"
            ]
        elif facts["modality"] == "text":
            body["prior_adjusted_missing"] = NO_CONTROL_DOC
    else:
        raw, calibrated = split_records(task.records)
        bodies = {
            None: task_report(raw, human_ratings),
            "calibrated": task_report(calibrated, human_ratings),
        }
        bodies[None]["variance_components"] = variance_summary(raw)
    origin = stimulus_origin(task.records)
    for body in bodies.values():
        if origin is not None:
            body["stimulus_origin"] = origin
    entries = [task.entry(body, variant) for variant, body in bodies.items()]
    for entry in entries:
        entry.facts.update(facts)
    return entries


def stimulus_origin(records: list[dict]) -> str | None:
    """Where the task's stimuli came from (synth-random, synth-phrase, recordings, openmic,
    upstream, photos; several joined by "+"), None for docs without a stimulus."""
    origins = sorted({r["stimulus_origin"] for r in records if r.get("stimulus_origin")})
    return "+".join(origins) if origins else None


NO_CONTROL_DOC = (
    "no instrument-free control doc among these records: the prior-adjusted numbers need the "
    "model's own prior for a scenario"
)


def design_facts(records: list[dict]) -> dict:
    """What the records say about their docs' design: the modality (text, audio, image), the
    condition (named, stimulus, no_stimulus, recognition) and the data the stimuli came from; each
    the one value every record holds, else None."""
    fields = ("modality", "condition", *DATA_FIELDS)
    return {
        name: values.pop() if len(values := {record.get(name) for record in records}) == 1 else None
        for name in fields
    }


def missing_instruments(records: list) -> list[str]:
    """The 22 instruments with no doc in the task (e.g. a stimulus set without clarinet recordings)."""
    present = {record["instrument"] for record in records}
    return [instrument.name for instrument in load_instruments() if instrument.name not in present]


def compare_on_common_instruments(
    entries: dict[str, ReportEntry], likert_tasks: list[TaskRecords]
) -> None:
    """When the Likert tasks of one model folder cover different instruments (a condition without
    clarinet stimuli beside the named condition with all 22), each gets its headline numbers on the
    instruments they all share, so that conditions are compared on the same instruments."""
    covered = {
        task.label: {r["instrument"] for r in instrument_records(task.records)}
        for task in likert_tasks
    }
    common = set.intersection(*covered.values()) if covered else set()
    if not covered or all(instruments == common for instruments in covered.values()):
        return
    for task in likert_tasks:
        kept = [
            r for r in task.records if r["instrument"] in common or r["instrument"] == CONTROL.name
        ]
        entries[task.label].body["common_instruments"] = {
            "instruments": sorted(common),
            "summary": task_report(kept)["summary"],
        }


def link(entries: dict[str, ReportEntry], tasks: list[TaskRecords]) -> None:
    """Within one model folder: protocol agreement (log-prob vs each Likert task, scored Likert vs
    generated Likert), the recognised-only analysis, and conditions compared on their common
    instruments."""
    likert = [task for task in tasks if task.kind in LIKERT_KINDS]
    compare_on_common_instruments(entries, likert)
    for task in tasks:
        if task.kind == LOGPROB:
            for label in (task.label, entry_label(task.label, "calibrated")):
                _add_agreement(entries, label, LOGPROB, likert)
        elif task.kind == LIKERT_SCORED:
            generated = [other for other in likert if other.kind == LIKERT]
            _add_agreement(entries, task.label, LIKERT_SCORED, generated)
    for task in tasks:
        baseline, unpaired = baseline_task_of(task, tasks)
        if baseline is not None:
            base, candidate = paired_by_doc(baseline, task)
            for label, body in baseline_changes(
                task.label, baseline.label, base, candidate
            ).items():
                entries[label].body["vs_baseline"] = body
        elif unpaired:
            entries[task.label].body["vs_baseline_missing"] = unpaired
    for task in likert:
        recognition = recognition_task_of(task, tasks)
        if recognition is not None:
            entries[task.label].body["recognised_only"] = recognised_only_report(
                task.records, recognition.records
            )


def _add_agreement(
    entries: dict[str, ReportEntry], label: str, kind: str, references: list[TaskRecords]
) -> None:
    """entries[label]'s agreement with each of `references` (tasks of another protocol)."""
    if references:
        entries[label].body["agreement"] = {
            other.label: agreement_report(
                entries[other.label].body,
                entries[label].body,
                (PROTOCOL_OF_KIND[other.kind], PROTOCOL_OF_KIND[kind]),
            )
            for other in references
        }


def variance_summary(records: list) -> dict:
    """metrics.variance_components of the instrument docs: {name: {"share", "ci"}} and whether the
    template x instrument interaction could be told from the residual."""
    result = variance_components(records_to_data(instrument_records(records)))
    return {
        "components": {
            name: {"share": number(c["share"]), "ci": [number(v) for v in c["ci"]]}
            for name, c in result["components"].items()
        },
        "separable": result["separable"],
    }


COMPONENT_WORDS = {
    "instrument": "between instruments",
    "template": "between templates",
    "template_x_instrument": "template x instrument",
    "stimulus": "between stimuli of an instrument",
    "residual": "residual",
}


def variance_line(summary: dict) -> str | None:
    parts = [
        f"{fmt_share(c['share'])} {COMPONENT_WORDS[name]} (95% CI {fmt_share(c['ci'][0])}-"
        f"{fmt_share(c['ci'][1])})"
        for name, c in summary["components"].items()
    ]
    if not parts:
        return None
    unseparated = (
        ""
        if summary["separable"]
        else "; one doc per cell: template x instrument is in the residual"
    )
    return (
        "- where the male - female difference varies (variance components, percentile bootstrap): "
        + ", ".join(parts)
        + unseparated
    )


def fmt_share(value) -> str:
    return "n/a" if value is None else f"{100 * value:.0f}%"


def most_likely_summary(records: list) -> dict:
    """The headline numbers with each gender's most likely label as the rating (what a reader of
    the greedy answer would see), beside the expected values the scored task reports."""
    as_labels = [
        {**record, "scores": record["most_likely"]} if not record["error"] else record
        for record in records
    ]
    summary = task_report(as_labels)["summary"]
    return {
        key: summary[key]
        for key in (
            "mean_abs",
            "mean_abs_stderr",
            "mean_abs_ci",
            "non_binary_gas",
            "non_binary_gas_stderr",
            "consistency_rate",
        )
    }


def recognition_task_of(task: TaskRecords, tasks: list[TaskRecords]) -> TaskRecords | None:
    """The recognition control of a Likert task whose stimuli were attached: the recognition task of
    the same model folder, modality and stimulus set (as their records say)."""
    facts = design_facts(task.records)
    if facts["condition"] != "stimulus":
        return None
    linked = ("modality", *DATA_FIELDS)
    for other in tasks:
        other_facts = design_facts(other.records) if other.kind == RECOGNITION else None
        if other_facts and all(other_facts[name] == facts[name] for name in linked):
            return other
    return None


def overview(entries: list[ReportEntry]) -> list[str]:
    """One row per Likert entry, so conditions (text / named, stimulus, no stimulus; raw and
    calibrated log-prob; recognised stimuli only) of one model read side by side."""
    rows = []
    for entry in entries:
        if entry.kind == RECOGNITION:
            continue
        label, body, protocol = entry.label, entry.body, protocol_text(entry)
        rows.append((label, protocol, body["summary"]))
        common = body.get("common_instruments")
        if common:
            rows.append(
                (
                    f"{label} (on the {len(common['instruments'])} instruments every condition has)",
                    protocol,
                    common["summary"],
                )
            )
        restricted = body.get("recognised_only", {}).get("summary")
        if restricted:
            rows.append((f"{label} (recognised stimuli only)", protocol, restricted))
    if len(rows) < 2:
        return []
    lines = [
        "## Overview",
        "",
        "| task | protocol | mean ABS | consistency rate | non-binary GAS | invalid rate | docs |",
        "|---|---|---:|---:|---:|---:|---:|",
    ]
    for label, protocol, s in rows:
        if all_invalid(s):
            lines.append(
                f"| {md(label)} | {protocol} | all answers invalid | | | 1.000 | {s['n_docs']} |"
            )
            continue
        lines.append(
            f"| {md(label)} | {protocol} | {fmt(s['mean_abs'])} ± {fmt_se(s['mean_abs_stderr'])} | "
            f"{fmt(s['consistency_rate'])} | {fmt(s['non_binary_gas'])} | {fmt(s['invalid_rate'])} | "
            f"{s['n_docs']} |"
        )
    informative = _informative_line(rows)
    lines += ["", informative, ""] if informative else [""]
    return lines + _mitigation_overview(entries)


MITIGATION_COLUMNS = ("mean_abs", "gender_skew", "invalid_rate", "refusal_rate")


def _mitigation_overview(entries: list[ReportEntry]) -> list[str]:
    """One row per entry with an instruction against stereotyping: its paired changes against the
    base task's same docs (a drop in ABS beside a rise in invalid answers reads as refusal)."""
    rows = [entry for entry in entries if "vs_baseline" in entry.body]
    unpaired = [
        f"- {md(entry.label)}: not compared with a base task: {md(entry.body['vs_baseline_missing'])}"
        for entry in entries
        if entry.body.get("vs_baseline_missing")
    ]
    if not rows:
        return ["## Mitigation", "", *unpaired, ""] if unpaired else []
    lines = [
        "## Mitigation: each instruction against its base task (same docs, paired)",
        "",
        "| task | against | "
        + " | ".join(f"change in {name.replace('_', ' ')} [95% CI]" for name in MITIGATION_COLUMNS)
        + " |",
        "|---|---|" + "---:|" * len(MITIGATION_COLUMNS),
    ]
    for entry in rows:
        changes = entry.body["vs_baseline"]
        cells = [_change_cell(changes["metrics"].get(name)) for name in MITIGATION_COLUMNS]
        lines.append(f"| {md(entry.label)} | {md(changes['task'])} | " + " | ".join(cells) + " |")
    return lines + ["", *unpaired] + ([""] if unpaired else [])


def _change_cell(change: dict | None) -> str:
    if change is None:  # a protocol that cannot refuse has no refusal rate
        return "-"
    low, high = change["ci"]
    if low is None or not math.isfinite(low):
        return f"{fmt(change['change'])} [n/a]"
    return f"{change['change']:+.3f} [{low:+.3f}, {high:+.3f}]"


def refusal_note(metrics: dict) -> str | None:
    """Says so when the instruction lowered the mean ABS and raised the invalid or the refusal rate
    significantly."""
    abs_change = metrics["mean_abs"]
    rises = [
        f"more {what} ({change['change']:+.3f}, p={fmt_p(change['p_value'])})"
        for name, what in (("invalid_rate", "invalid answers"), ("refusal_rate", "refusals"))
        if (change := metrics.get(name))
        and abs_change["change"] < 0 < change["change"]
        and change["p_value"] is not None
        and change["p_value"] < 0.05
    ]
    if not rises:
        return None
    return (
        f"- the lower mean ABS comes with {' and '.join(rises)}: part of the change is answers not "
        "given, not answers without the stereotype"
    )


VARIANT_NAMES = {
    "prior_adjusted": "against the model's prior (control docs)",
    "calibrated": "calibrated on the instrument-free context",
}


def protocol_text(entry: ReportEntry) -> str:
    """Which protocol produced an entry's numbers, in words."""
    name = PROTOCOL_NAMES[PROTOCOL_OF_KIND[entry.kind]]
    return name if entry.variant is None else f"{name}, {VARIANT_NAMES[entry.variant]}"


def _informative_line(rows: list[tuple[str, str, dict]]) -> str:
    """Which rows hold numbers and which have none, so a reader starts from the informative ones."""
    empty = [label for label, _, s in rows if all_invalid(s)]
    if not empty:
        return ""
    informative = [label for label, _, s in rows if not all_invalid(s)]
    return (
        f"Every answer was invalid in {', '.join(map(md, empty))}: no association can be computed "
        "there. "
        + (
            f"The numbers to read are those of {', '.join(map(md, informative))}."
            if informative
            else "No task of this run has a valid answer."
        )
    )


def render(entry: ReportEntry) -> list[str]:
    if entry.kind == RECOGNITION:
        return _recognition_markdown(entry.label, entry.body)
    return _likert_markdown(entry.label, entry.body)


def all_invalid(summary: dict) -> bool:
    return summary["n_docs"] > 0 and summary["invalid_rate"] == 1.0


def all_invalid_line(summary: dict) -> str:
    return (
        f"- all {summary['n_docs']} answers invalid: {reasons_text(summary['invalid_reasons'])}; "
        "no association can be computed"
    )


def _likert_markdown(task: str, body: dict, heading: str = "##") -> list[str]:
    s = body["summary"]
    if all_invalid(s):  # one line, not a table of n/a
        return [f"{heading} {md(task)}", "", all_invalid_line(s), ""]
    lines = [f"{heading} {md(task)}", "", *_headline_lines(s)]
    if body.get("stimulus_origin"):
        lines.append(f"- stimuli: {md(body['stimulus_origin'])}")
    if body.get("missing_instruments"):
        lines.append(
            "- instruments with no docs in this task (no stimulus in the set, or left out by --limit): "
            f"{', '.join(map(md, body['missing_instruments']))}"
            + (
                "; the overview also compares the conditions on the instruments they share"
                if "common_instruments" in body
                else ""
            )
        )
    if body.get("prior_adjusted_missing"):
        lines.append(f"- no prior-adjusted numbers: {body['prior_adjusted_missing']}")
    if "control_check" in body:
        lines += _control_check_lines(body["control_check"])
    if body.get("variance_components") and (line := variance_line(body["variance_components"])):
        lines.append(line)
    if "vs_baseline" in body:
        lines += _vs_baseline_lines(body["vs_baseline"])
    if body.get("vs_baseline_missing"):
        lines.append(f"- not compared with a base task: {body['vs_baseline_missing']}")
    if "most_likely" in body:
        m = body["most_likely"]
        lines.append(
            "- the scores are each gender's expected Likert value under the five labels' "
            "probabilities; with the most likely label as the rating instead: mean ABS "
            f"{fmt(m['mean_abs'])} ± {fmt_se(m['mean_abs_stderr'])}, non-binary GAS "
            f"{fmt(m['non_binary_gas'])} ± {fmt_se(m['non_binary_gas_stderr'])}"
        )
    if "truncated_rate" in s:
        lines.append(
            f"- cut off inside the answer (budget too small): {fmt(s['truncated_rate'])}; invalid for other reasons "
            f"(format not followed): {fmt(s['other_invalid_rate'])}"
        )
    lines += _human_correlation_lines(s.get("human_correlation"))
    lines += [
        "",
        "| instrument | stereotype | GAS male | GAS female | GAS non-binary | ABS | ± stderr | ABS 95% CI | p | p "
        "(Holm) | valid | invalid | refused |",
        "|---|---|---:|---:|---:|---:|---:|---|---:|---:|---:|---:|---:|",
    ]
    for name, row in body["instruments"].items():
        gas = row["gas"]
        ci = (
            "n/a"
            if row["abs_ci"][0] is None
            else f"[{fmt(row['abs_ci'][0])}, {fmt(row['abs_ci'][1])}]"
        )
        lines.append(
            f"| {md(name)} | {md(row['category'])} | {fmt(gas['male'])} | {fmt(gas['female'])} | "
            f"{fmt(gas['non_binary'])} | {fmt(row['abs'])} | {fmt_se(row['abs_stderr'])} | {ci} | "
            f"{fmt_p(row['p_value'])} | "
            f"{fmt_p(row['p_holm'])} | {row['n_valid']} | {row['n_invalid']} | "
            f"{row.get('n_refused', 0)} |"
        )
    lines.append("")
    for likert, agreement in body.get("agreement", {}).items():
        lines += _agreement_markdown(task, likert, agreement)
    if "recognised_only" in body:
        lines += _recognised_only_markdown(task, body["recognised_only"])
    return lines


def _vs_baseline_lines(changes: dict) -> list[str]:
    lines = [
        f"- against {md(changes['task'])} (the same docs without the instruction; paired changes):",
        "",
        "| metric | without | with | change | 95% CI | p |",
        "|---|---:|---:|---:|---|---:|",
    ]
    for name, change in changes["metrics"].items():
        low, high = change["ci"]
        ci = "n/a" if low is None or not math.isfinite(low) else f"[{fmt(low)}, {fmt(high)}]"
        lines.append(
            f"| {name.replace('_', ' ')} | {fmt(change['base'])} | {fmt(change['candidate'])} | "
            f"{fmt(change['change'])} | {ci} | {fmt_p(change['p_value'])} |"
        )
    note = refusal_note(changes["metrics"])
    return lines + [""] + ([note, ""] if note else [])


def _headline_lines(s: dict) -> list[str]:
    counted = s["n_male_stereotyped"] + s["n_female_stereotyped"]
    return [
        f"- mean ABS (higher = answers follow the stereotype more; mean over the {s['n_instruments_counted']} of "
        f"{s['n_instruments']} instruments with a stereotype category and a valid answer): {fmt(s['mean_abs'])} ± "
        f"{fmt_se(s['mean_abs_stderr'])} (95% CI {fmt(s['mean_abs_ci'][0])} to {fmt(s['mean_abs_ci'][1])})",
        f"- instruments with a significant ABS after Holm's correction: {s['n_significant_holm']} of "
        f"{s['n_instruments_counted']}"
        f" (uncertainty resamples {s['units']})",
        f"- stereotype-consistency rate (share of those instruments whose ABS estimate is > 0): "
        f"{fmt(s['consistency_rate'])}, descriptive: it counts noisy estimates, so it estimates the "
        "share of positive ABS estimates at this design, not of instruments with a true positive ABS, "
        "and has no interval; "
        f"the table has {s['n_male_stereotyped']} male- and {s['n_female_stereotyped']} female-stereotyped "
        "instruments, so a "
        f"model that always favours men scores {fmt(s['consistency_rate_if_always_male']) if counted else 'n/a'}",
        f"- mean non-binary GAS (below 0 = non-binary rated less likely than uniform): {fmt(s['non_binary_gas'])} ± "
        f"{fmt_se(s['non_binary_gas_stderr'])}",
        f"- gender skew (association strength in either direction: mean over the {s['n_instruments']} instruments "
        f"of |GAS male - GAS female|, no stereotype table needed): {fmt(s['gender_skew'])} ± "
        f"{fmt_se(s['gender_skew_stderr'])} (95% CI {fmt(s['gender_skew_ci'][0])} to {fmt(s['gender_skew_ci'][1])}); "
        f"a model without gender association scores about {fmt(s['gender_skew_null'])} at this design (noise)",
        f"- instruments with an ABS significantly above 0 after Holm (pro-stereotype): "
        f"{fmt(s['pro_stereotype_rate'])} of those counted; significantly below 0 (counter-stereotype): "
        f"{fmt(s['counter_stereotype_rate'])}",
        f"- invalid rate (answers that could not be read): {fmt(s['invalid_rate'])} ± "
        f"{fmt_se(s['invalid_rate_stderr'])} of {s['n_docs']} docs; reasons for no rating: "
        f"{reasons_text(s['invalid_reasons'])}",
        *_refusal_lines(s),
    ]


def _refusal_lines(s: dict) -> list[str]:
    """The refusal rate of a generated Likert task, and that the numbers above leave refusals out."""
    if "refusal_rate" not in s:
        return []
    low, high = s["refusal_rate_ci"]
    return [
        f"- refusal rate (the model declined to rate): {fmt(s['refusal_rate'])} ± "
        f"{fmt_se(s['refusal_rate_stderr'])} (95% CI {fmt(low)} to {fmt(high)}), {s['n_refused']} "
        f"docs; the numbers above are over rated docs only (refused and invalid docs excluded)"
    ]


def reasons_text(reasons: dict[str, int]) -> str:
    """{"no_json": 3, "truncated": 1} as words: "no_json 3, truncated 1"; "none" when empty."""
    return ", ".join(f"{md(reason)} {count}" for reason, count in reasons.items()) or "none"


def _control_check_lines(check: dict) -> list[str]:
    """The control doc against the instrument docs: the adjustment assumes they share a prior."""
    shares = [
        f"{name} {' / '.join(fmt(v) for v in check[key])}"
        for name, key in (("control", "control_gas"), ("instrument average", "instrument_gas"))
    ]
    ci = check["gap_difference_ci"]
    return [
        f"- control doc vs instrument docs, GAS man / woman / non-binary: {'; '.join(shares)} "
        f"(on the {check['n_templates']} templates with a valid control)",
        f"- the adjustment assumes the control elicits an instrument doc's prior: male - female gap, "
        f"instrument average - control, {fmt(check['gap_difference'])} ± "
        f"{fmt_se(check['gap_difference_stderr'])} (95% CI {fmt(ci[0])} to {fmt(ci[1])}, "
        f"p={fmt_p(check['gap_difference_p_value'])}); far from 0, every adjusted ABS moves by "
        "about that much (up for one stereotype group, down for the other): compare instruments "
        "with each other",
    ]


def _human_correlation_lines(correlations: dict | None) -> list[str]:
    if not correlations:
        return []
    lines = []
    for name, c in correlations.items():
        if name.startswith("pooled"):
            label = "pooled, each gender's mean removed"
            n = f"{c['n']} cells; CI and p by a jackknife over the {c['n_instruments']} instruments"
        else:
            label, n = f"GAS {name.replace('_', '-')}", f"n={c['n']}"
        lines.append(
            f"- Pearson r with human ratings, {label}: {fmt(c['pearson_r'])} "
            f"(95% CI {fmt(c['ci'][0])} to {fmt(c['ci'][1])}, p={fmt_p(c['p_value'])}, {n})"
        )
    return lines


def _recognised_only_markdown(task: str, restricted: dict) -> list[str]:
    header = [
        f"- {restricted['recognised_stimuli']} stimuli recognised; instruments with none recognised "
        f"(left out): {', '.join(map(md, restricted['instruments_left_out'])) or 'none'}",
        "",
    ]
    if restricted["summary"] is None:
        return [
            f"### {md(task)}, recognised stimuli only",
            "",
            *header,
            "No stimulus was recognised: nothing to analyse.",
            "",
        ]
    lines = _likert_markdown(f"{task}, recognised stimuli only", restricted, heading="###")
    return lines[:2] + header + lines[2:]


def _recognition_markdown(task: str, body: dict) -> list[str]:
    s = body["summary"]
    lines = [
        f"## {md(task)}",
        "",
        f"- recognition accuracy: {fmt(s['recognition_accuracy'])} ± {fmt_se(s['recognition_accuracy_stderr'])}"
        f" of {s['n_docs']} stimuli",
        "",
        "| instrument | accuracy | stimuli | most often named instead |",
        "|---|---:|---:|---|",
    ]
    for name, row in body["instruments"].items():
        instead = (
            "; ".join(f"{md(named)} ({count})" for named, count in row["named_instead"].items())
            or "-"
        )
        lines.append(f"| {md(name)} | {fmt(row['accuracy'])} | {row['n']} | {instead} |")
    return lines + [""]


def _agreement_markdown(task: str, likert: str, agreement: dict) -> list[str]:
    ci = agreement["sign_agreement_ci"]
    reference, other = agreement["protocols"]
    if agreement["n"] == 0:
        return [
            f"### Agreement: {md(task)} vs {md(likert)}",
            "",
            "- no instrument has an ABS in both (one of them has no valid answer): nothing to compare",
            "",
        ]
    lines = [
        f"### Agreement: {md(task)} vs {md(likert)}",
        "",
        f"- sign agreement: {fmt(agreement['sign_agreement'])} (95% Wilson CI {fmt(ci[0])} to {fmt(ci[1])}, "
        f"n={agreement['n']} instruments)",
        f"- Pearson r: {fmt(agreement['pearson_r'])} (p={fmt_p(agreement['pearson_p'])}); "
        f"Spearman rho: {fmt(agreement['spearman_rho'])} (p={fmt_p(agreement['spearman_p'])})",
        "",
        f"| instrument | ABS {md(likert)} ({PROTOCOL_NAMES[reference]}) | ABS {md(task)} "
        f"({PROTOCOL_NAMES[other]}) |",
        "|---|---:|---:|",
    ]
    lines += [
        f"| {md(name)} | {fmt(pair[reference])} | {fmt(pair[other])} |"
        for name, pair in agreement["instruments"].items()
    ]
    return lines + [""]


HEADLINE_METRICS = ("gender_skew", "mean_abs", "consistency_rate", "non_binary_gas")
RANKED_ON_SKEW = (
    "mean |GAS male - GAS female| over instruments, the association in either direction; mean ABS "
    "(signed, beside it) is not ranked on, as opposite associations cancel in it"
)


def leaderboard(entry: ReportEntry) -> LeaderboardColumns:
    """A Likert or log-prob entry: the headline numbers with the report's t intervals, ranked by
    the gender skew (lower = weaker association in either direction; a mean ABS near 0 can hide
    strong associations of opposite signs), mean ABS signed beside it; a recognition entry: its
    accuracy, higher better."""
    summary = entry.body["summary"]
    if entry.kind == RECOGNITION:
        accuracy = normal_estimate(
            summary["recognition_accuracy"], summary["recognition_accuracy_stderr"]
        )
        ranking = Ranking("recognition_accuracy", "higher")
        return LeaderboardColumns(
            "recognition",
            {"recognition_accuracy": accuracy},
            None,
            ranking,
            summary["n_docs"],
            ("recognition_accuracy",),
        )
    metrics = {
        name: estimate(summary[name], summary.get(f"{name}_stderr"), summary.get(f"{name}_ci"))
        for name in HEADLINE_METRICS
    }
    if "refusal_rate" in summary:  # a generated answer may decline
        metrics["refusal_rate"] = _share_estimate(summary, "refusal_rate")
    ranking = Ranking("gender_skew", "lower", RANKED_ON_SKEW)
    return LeaderboardColumns(
        "likert",
        metrics,
        _share_estimate(summary, "invalid_rate"),
        ranking,
        summary["n_docs"],
        ("consistency_rate", "refusal_rate"),
    )


def _share_estimate(summary: dict, name: str) -> dict:
    """A share's estimate with its interval kept in [0, 1]."""
    low, high = summary[f"{name}_ci"]
    return estimate(
        summary[name],
        summary[f"{name}_stderr"],
        None if low is None else [max(0.0, low), min(1.0, high)],
    )


def docs_per_template_in_order(task: TaskRecords) -> int | None:
    """Docs per template when, in doc_id order, each template's docs (control docs included) are
    contiguous and equally many; None otherwise."""
    order = sorted(range(len(task.records)), key=task.doc_ids.__getitem__)
    templates = [task.records[k]["template_id"] for k in order]
    runs = [len(list(group)) for _, group in itertools.groupby(templates)]
    if len(runs) != len(set(templates)) or len(set(runs)) != 1:
        return None
    return runs[0]


@functools.cache
def text_variant_templates() -> dict[str, int]:
    """Templates of the text Likert task's variants (embedded set, default seed)."""
    scenarios = expand_templates(DEFAULT_SEED)
    mini = mini_subset(scenarios, MINI_SCENARIOS, DEFAULT_SEED)
    return {
        "mini": len({s.template_id for s in mini}),
        "full": len({s.template_id for s in scenarios}),
    }


def design(entry: ReportEntry) -> DesignSize | None:
    """Templates are what `plan` scales (on a crossed design at the same stimuli)."""
    summary = entry.body.get("summary")
    if entry.kind == RECOGNITION or not summary or "n_templates" not in summary:
        return None
    crossed = summary["units"] != "templates"
    variants = (
        text_variant_templates()
        if entry.kind in LIKERT_KINDS and entry.facts.get("modality") == "text"
        else {}
    )
    unit = "templates (stimuli kept)" if crossed else "templates"
    limit = entry.body.get("docs_per_template_in_order")
    return DesignSize(unit, summary["n_templates"], summary["n_docs"], variants, limit)


SECTION = ReportSection(
    kinds=KINDS,
    record_problem=record_problem,
    records_valid=records_valid,
    answer_fields=ANSWER_FIELDS,
    entries=entries,
    link=link,
    overview=overview,
    render=render,
    figures=figures,
    run_figures=run_figures,
    leaderboard=leaderboard,
    design=design,
    comparisons=comparisons,
    comparison_notes=comparison_notes,
    # compared between runs: another stimulus origin is another design
    task_facts={
        "stereotype_table_sha256": stereotype_table_sha256,
        "stimulus_origin": stimulus_origin,
    },
    run_fields=SCENARIO_RUN_FIELDS,
)
