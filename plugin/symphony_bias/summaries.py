"""The report entries of one Symphony-Bias task and their bodies: per-instrument GAS/ABS tables and
headline numbers of `symphony-bench report`, recomputed from the per-doc records with the same
functions as the harness aggregations, and the per-task statistics beside them (the control check
of the prior-adjusted numbers, truncation, variance components, a scored task's most likely labels,
the correlation with human ratings, recognition accuracy).

A Likert or open-ended task gives `<task>` and, when it holds instrument-free control docs,
`<task>:prior_adjusted` (an open-ended entry also holds who its stories made the person, per
instrument: `references`, and the open-ended reader's accuracy on its frozen test set:
`reader_accuracy`); a log-probability task gives `<task>` (raw) and `<task>:calibrated`; a
recognition task gives per-instrument recognition accuracy.
"""

from __future__ import annotations

import collections
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
)
from symphony_bench.metrics.variance_components import variance_components
from symphony_bench.plugin.core.errors import DataFileError, read_csv
from symphony_bench.plugin.core.refusals import REFUSED
from symphony_bench.plugin.core.reporting import number
from symphony_bench.plugin.core.run_facts import DATA_FIELDS
from symphony_bench.plugin.core.sections import ReportEntry, TaskRecords
from symphony_bench.plugin.core.vocabulary import GENDERS, load_instruments
from symphony_bench.plugin.symphony_bias import reader_measurement
from symphony_bench.plugin.symphony_bias.logprob import split_records
from symphony_bench.plugin.symphony_bias.records import (
    LIKERT,
    LIKERT_SCORED,
    ONE_HOT,
    OPEN,
    OPEN_MIN_TEMPLATES,
    OPEN_WITHHELD,
    OPEN_WITHHELD_REASON,
    RATED_KINDS,
    RECOGNITION,
    instrument_records,
    records_to_data,
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


# the headline entries that are counts of docs or instruments (whole numbers in the JSON)
COUNTS = ("n_docs", "n_instruments_counted", "n_significant_holm", "n_refused", "n_no_reference")


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
    for count in COUNTS:
        if count in result.headline:
            summary[count] = int(result.headline[count])
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


def reference_shares(records: list) -> dict:
    """Who the open-ended answers made the person, per instrument (instrument docs): of the stories
    that refer to the person, the shares read male, female and neutral; of all stories, the share
    with no reference to the person (with its interval on the instrument's own units where it has
    enough templates, `instrument_design_rates`), and the docs counted."""
    records = instrument_records(records)
    data = records_to_data(records)
    no_reference = instrument_design_rates(data, data.no_reference)
    by_instrument = collections.defaultdict(list)
    for record in records:
        by_instrument[record["instrument"]].append(record.get("reference"))
    shares = {}
    for name, rate in zip(data.instruments, no_reference, strict=True):
        references = by_instrument[name]
        read = [gender for gender in references if gender in ONE_HOT]
        shares[name] = {
            **{
                gender: number(read.count(gender) / len(read)) if read else None
                for gender in ONE_HOT
            },
            "no_reference": number(rate["rate"]),
            "no_reference_ci": [number(v) for v in rate["ci"]],
            "n_read": len(read),
            "n_docs": len(references),
        }
    return shares


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


def entries(task: TaskRecords, options: dict) -> list[ReportEntry]:
    human_ratings = options.get("human_ratings")
    facts = design_facts(task.records)
    if task.kind == RECOGNITION:
        bodies = {None: recognition_report(task.records)}
    elif task.kind in RATED_KINDS:
        body = task_report(task.records, human_ratings)
        body["variance_components"] = variance_summary(task.records)
        if task.kind == LIKERT_SCORED:
            body["most_likely"] = most_likely_summary(task.records)
        elif task.kind == LIKERT:
            body["summary"].update(truncation_summary(task.records))
        else:
            body["references"] = reference_shares(task.records)
            body["reader_accuracy"] = reader_measurement.report_summary(
                reader_measurement.published()
            )
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
        if task.kind == OPEN:
            withhold_on_few_templates(body["summary"])
    entries = [task.entry(body, variant) for variant, body in bodies.items()]
    for entry in entries:
        entry.facts.update(facts)
    return entries


def withhold_on_few_templates(summary: dict) -> None:
    """An open-ended entry on fewer than OPEN_MIN_TEMPLATES templates: the intervals that do not
    hold there are not given (their stderr kept), and the summary says why."""
    if summary["n_templates"] >= OPEN_MIN_TEMPLATES:
        return
    for name in OPEN_WITHHELD:
        summary[f"{name}_ci"] = [None, None]
    summary["withheld_intervals"] = OPEN_WITHHELD_REASON


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


def docs_per_template_in_order(task: TaskRecords) -> int | None:
    """Docs per template when, in doc_id order, each template's docs (control docs included) are
    contiguous and equally many; None otherwise."""
    order = sorted(range(len(task.records)), key=task.doc_ids.__getitem__)
    templates = [task.records[k]["template_id"] for k in order]
    runs = [len(list(group)) for _, group in itertools.groupby(templates)]
    if len(runs) != len(set(templates)) or len(set(runs)) != 1:
        return None
    return runs[0]
