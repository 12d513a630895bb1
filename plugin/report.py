"""`symphony-bench report`: per-instrument tables and headline numbers from an lm-eval or lmms-eval
run directory.

Reads the samples files that `--log_samples` writes (lm-eval: `samples_<task>_<timestamp>.jsonl`,
lmms-eval: `<timestamp>_samples_<task>.jsonl`; the newest per model folder and task) and recomputes
everything from the per-doc records that `process_results` stored, with the same functions as the
harness aggregations. A log-probability task gives two entries, `<task>` (raw) and
`<task>:calibrated`; when a model folder holds both protocols, each log-probability entry gets an
"agreement" section per Likert task. A recognition task gives per-instrument recognition accuracy,
and the stimulus task of its modality (same model folder) a "recognised_only" section: the same
analysis on the docs whose clip or image the model named correctly.
"""

from __future__ import annotations

import collections
import json
import math
import re
from pathlib import Path

import numpy as np

from symphony_bench.metrics import GENDERS, analyse, binomial_rate, human_correlation, protocol_agreement
from symphony_bench.plugin.grounding import choice_scores, harness_scores
from symphony_bench.plugin.scenarios import DataFileError, read_csv
from symphony_bench.plugin.symphony_bias_common import ERROR_FIELD, RECORD_LENGTH, STIMULUS_FIELD, records_to_data
from symphony_bench.plugin.symphony_bias_logprob import split_records

SAMPLES_NAMES = (
    re.compile(r"^samples_(?P<task>.+)_(?P<stamp>\d{4}-\d{2}-\d{2}T[\d.\-]+)\.jsonl$"),  # lm-eval
    re.compile(r"^(?P<stamp>\d{8}_\d{6})_samples_(?P<task>.+)\.jsonl$"),  # lmms-eval
)
RECORD_KEY = "mean_abs"  # every metric of a task holds the same per-doc record
RECOGNITION_KEY = "recognition_accuracy"
LOGPROB_MARKER = "mean_abs_calibrated"  # only the log-probability tasks have it
LIKERT_RECORD_LENGTHS = (RECORD_LENGTH, RECORD_LENGTH + 1)  # text tasks; audio/image tasks add the stimulus
RECOGNITION_RECORD_LENGTH = 4  # (instrument, stimulus_id, recognised, instruments named)
GROUNDING_CHOICE_RECORD_LENGTH = 4  # (gold option, chosen option, options, confusable group)
# The stimulus task a recognition task controls: symphony_bias_<modality>_recognition -> symphony_bias_<modality>[_mini]
STIMULUS_TASK = re.compile(r"^symphony_bias_(?P<modality>audio|image)(?:_mini)?$")


def _samples_file_match(name: str) -> re.Match | None:
    return next((match for pattern in SAMPLES_NAMES if (match := pattern.match(name))), None)


def latest_sample_files(run_dir: Path) -> dict[str, Path]:
    """{task label: newest samples file}; the label is the task name, prefixed by the model
    folder when several model folders ran the same task."""
    newest: dict[tuple[str, str], tuple[str, Path]] = {}
    for path in sorted(run_dir.rglob("*samples_*.jsonl")):
        match = _samples_file_match(path.name)
        if match:
            key = (path.parent.name, match["task"])
            if key not in newest or match["stamp"] > newest[key][0]:
                newest[key] = (match["stamp"], path)
    task_counts = collections.Counter(task for _, task in newest)
    return {
        (task if task_counts[task] == 1 else f"{model}/{task}"): path
        for (model, task), (_, path) in sorted(newest.items())
    }


def read_records(path: Path) -> tuple[list[list], str] | None:
    """(records, "likert", "logprob" or "recognition") of a samples file; None if it belongs to
    another task."""
    records, kind = [], None
    with open(path, encoding="utf-8") as handle:
        for line_number, line in enumerate(handle, start=1):
            try:
                sample = json.loads(line)
            except ValueError as error:
                raise DataFileError(f"{path}, line {line_number}: not valid JSON ({error})") from error
            record, kind = _sample_record(sample)
            if kind is None:
                return None
            records.append(record)
    return (records, kind) if records else None


def _sample_record(sample: dict) -> tuple[list | None, str | None]:
    record = sample.get(RECORD_KEY)
    if isinstance(record, list) and len(record) in LIKERT_RECORD_LENGTHS:
        return record, "logprob" if LOGPROB_MARKER in sample else "likert"
    record = sample.get(RECOGNITION_KEY)
    if isinstance(record, list) and len(record) == RECOGNITION_RECORD_LENGTH:
        return record, "recognition"
    record = sample.get("accuracy")
    if isinstance(record, list) and len(record) == GROUNDING_CHOICE_RECORD_LENGTH:
        return record, "grounding_choice"
    record = sample.get("exact_set_accuracy")
    if isinstance(record, list) and len(record) == 2:
        return record, "grounding_set"
    return None, None


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
            raise DataFileError(f"{path}, line {line}: ratings must be numbers ({error})") from error
    ratings = np.array([by_name.get(name, [math.nan] * 3) for name in instruments], dtype=float)
    rated = ratings[np.isfinite(ratings).all(axis=1)]
    if np.any(rated < 0) or np.any(rated.sum(axis=1) <= 0):
        raise DataFileError(f"{path}: ratings must be non-negative with a positive sum per instrument")
    with np.errstate(invalid="ignore", divide="ignore"):
        return ratings / ratings.sum(axis=1, keepdims=True) - 1.0 / 3.0


def _number(value):
    value = float(value)
    return value if math.isfinite(value) else None


def task_report(records: list, human_ratings_path: Path | None = None) -> dict:
    result = analyse(records_to_data(records))
    instruments = {}
    for k, name in enumerate(result.instruments):
        instruments[name] = {
            "category": result.categories[k],
            "gas": {g: _number(result.gas[k, j]) for j, g in enumerate(GENDERS)},
            "abs": _number(result.abs[k]),
            "abs_ci": [_number(v) for v in result.abs_ci[k]],
            "p_value": _number(result.p_value[k]),
            "n_valid": int(result.n_valid[k]),
            "n_invalid": int(result.n_invalid[k]),
        }
    summary = {
        key: ([_number(v) for v in value] if isinstance(value, list) else _number(value))
        for key, value in result.headline.items()
    }
    summary["n_docs"] = int(result.headline["n_docs"])
    summary["invalid_reasons"] = dict(collections.Counter(r[ERROR_FIELD] for r in records if r[ERROR_FIELD]))
    if human_ratings_path is not None:
        ratings = load_human_ratings(human_ratings_path, result.instruments)
        correlation = human_correlation(result.gas, ratings)
        summary["human_correlation"] = {k: _number(v) for k, v in correlation.items()}
        summary["human_correlation"]["n"] = correlation["n"]
    return {"instruments": instruments, "summary": summary}


def agreement_report(likert: dict, logprob: dict) -> dict:
    """Per-instrument ABS of both protocols side by side, sign agreement and correlations."""
    shared = [name for name in logprob["instruments"] if name in likert["instruments"]]
    # ABS signs mean the same only under the same stereotype table
    mismatched = [n for n in shared if likert["instruments"][n]["category"] != logprob["instruments"][n]["category"]]
    names = [n for n in shared if n not in mismatched]
    pairs = {name: {"likert": likert["instruments"][name]["abs"], "logprob": logprob["instruments"][name]["abs"]} for name in names}
    likert_abs, logprob_abs = (
        np.array([math.nan if pairs[n][protocol] is None else pairs[n][protocol] for n in names])
        for protocol in ("likert", "logprob")
    )
    agreement = protocol_agreement(likert_abs, logprob_abs)
    body = {k: ([_number(v) for v in value] if isinstance(value, list) else _number(value)) for k, value in agreement.items()}
    body["n"] = agreement["n"]
    return {"instruments": pairs, **body, "category_mismatch": mismatched}


def _with_stderrs(scores: dict[str, tuple[float, float]]) -> dict:
    summary = {}
    for name, (value, stderr) in scores.items():
        summary[name], summary[f"{name}_stderr"] = _number(value), _number(stderr)
    return summary


def grounding_report(records: list, kind: str) -> dict:
    """The harness's scores with stderrs; for choice tasks the prediction distribution and, where
    the options are instruments of a confusable group, the row-normalised confusion matrix per group."""
    body = {"grounding": True, "summary": {**_with_stderrs(harness_scores(records)), "n_docs": len(records)}}
    if kind == "grounding_set":
        return body
    options = records[0][2]
    labels = options if all(record[2] == options for record in records) else [f"option {k + 1} (as shown)" for k in range(len(options))]
    scores = choice_scores(records, len(options))
    body["prediction_rates"] = {label: _number(scores[f"option_{k}_rate"][0]) for k, label in enumerate(labels)}
    if any(record[3] for record in records):
        body["confusion"] = confusion_by_group(records)
    return body


def confusion_by_group(records: list) -> dict[str, dict[str, dict[str, float]]]:
    """{group: {gold instrument: {answered instrument or "(invalid)": share of that gold's answers}}}."""
    counts: dict[str, dict[str, collections.Counter]] = collections.defaultdict(lambda: collections.defaultdict(collections.Counter))
    for gold, chosen, options, group in records:
        counts[group][options[gold]][options[chosen] if chosen >= 0 else "(invalid)"] += 1
    return {
        group: {gold: {answer: n / sum(row.values()) for answer, n in sorted(row.items())} for gold, row in sorted(rows.items())}
        for group, rows in sorted(counts.items())
    }


def recognition_report(records: list) -> dict:
    """Recognition accuracy overall and per instrument, and what the model named instead."""
    by_instrument: dict[str, list] = collections.defaultdict(list)
    for instrument, _, recognised, named in records:
        by_instrument[instrument].append((recognised, named))
    accuracy, stderr = binomial_rate([record[2] for record in records])
    instruments = {}
    for name, answers in sorted(by_instrument.items()):
        wrong = collections.Counter(", ".join(named) or "(none)" for recognised, named in answers if not recognised)
        instruments[name] = {
            "accuracy": _number(binomial_rate([recognised for recognised, _ in answers])[0]),
            "n": len(answers),
            "named_instead": dict(wrong.most_common(3)),
        }
    summary = {"recognition_accuracy": _number(accuracy), "recognition_accuracy_stderr": _number(stderr), "n_docs": len(records)}
    return {"recognition": True, "instruments": instruments, "summary": summary}


def recognised_only_report(stimulus_records: list, recognition_records: list) -> dict:
    """The Likert analysis restricted to docs whose stimulus the model recognised."""
    recognised = {stimulus_id for _, stimulus_id, ok, _ in recognition_records if ok}
    kept = [record for record in stimulus_records if record[STIMULUS_FIELD] in recognised]
    left_out = sorted({record[1] for record in stimulus_records} - {record[1] for record in kept})
    body = task_report(kept) if kept else {"instruments": {}, "summary": None}
    return {**body, "recognised_stimuli": len(recognised), "instruments_left_out": left_out}


def build_report(run_dir: Path, human_ratings_path: Path | None = None) -> dict:
    if not run_dir.is_dir():
        raise DataFileError(f"{run_dir}: not a directory")
    report: dict[str, dict] = {}
    protocols_by_model: dict[Path, dict[str, list[str]]] = collections.defaultdict(lambda: {"likert": [], "logprob": []})
    records_by_model: dict[Path, dict[str, tuple[str, list]]] = collections.defaultdict(dict)
    for label, path in latest_sample_files(run_dir).items():
        found = read_records(path)
        if found is None:
            continue
        records, kind = found
        task = _samples_file_match(path.name)["task"]
        records_by_model[path.parent][task] = (label, records)
        if kind == "recognition":
            report[label] = recognition_report(records)
        elif kind.startswith("grounding"):
            report[label] = grounding_report(records, kind)
        elif kind == "likert":
            report[label] = task_report(records, human_ratings_path)
            protocols_by_model[path.parent]["likert"].append(label)
        else:
            raw, calibrated = split_records(records)
            report[label] = task_report(raw, human_ratings_path)
            report[f"{label}:calibrated"] = task_report(calibrated, human_ratings_path)
            protocols_by_model[path.parent]["logprob"] += [label, f"{label}:calibrated"]
    if not report:
        raise DataFileError(
            f"{run_dir}: no Symphony-Bias samples files (run lm_eval or lmms-eval with --log_samples --output_path)"
        )
    for protocols in protocols_by_model.values():
        for logprob in protocols["logprob"]:
            if protocols["likert"]:
                report[logprob]["agreement"] = {
                    likert: agreement_report(report[likert], report[logprob]) for likert in protocols["likert"]
                }
    for tasks in records_by_model.values():
        _add_recognised_only(report, tasks)
    return report


def _add_recognised_only(report: dict, tasks: dict[str, tuple[str, list]]) -> None:
    for task, (label, records) in tasks.items():
        match = STIMULUS_TASK.match(task)
        recognition = tasks.get(f"symphony_bias_{match['modality']}_recognition") if match else None
        has_stimulus_ids = all(len(record) > STIMULUS_FIELD for record in records)
        if recognition is not None and has_stimulus_ids:
            report[label]["recognised_only"] = recognised_only_report(records, recognition[1])


def _fmt(value, digits: int = 3) -> str:
    return "n/a" if value is None else f"{value:.{digits}f}"


def _fmt_p(value) -> str:
    return "n/a" if value is None else f"{value:.2g}"


def render_markdown(report: dict) -> str:
    lines = _overview_markdown(report)
    for task, body in report.items():
        if body.get("recognition"):
            lines += _recognition_markdown(task, body)
        elif body.get("grounding"):
            lines += _grounding_markdown(task, body)
        else:
            lines += _likert_markdown(task, body)
    return "\n".join(lines)


def _overview_markdown(report: dict) -> list[str]:
    """One row per Likert entry, so conditions (text / named, stimulus, no stimulus; raw and
    calibrated log-prob; recognised stimuli only) of one model read side by side."""
    rows = []
    for task, body in report.items():
        if body.get("recognition") or body.get("grounding"):
            continue
        rows.append((task, body["summary"]))
        restricted = body.get("recognised_only", {}).get("summary")
        if restricted:
            rows.append((f"{task} (recognised stimuli only)", restricted))
    if len(rows) < 2:
        return []
    lines = ["## Overview", "", "| task | mean ABS | consistency rate | non-binary GAS | invalid rate | docs |", "|---|---:|---:|---:|---:|---:|"]
    for task, s in rows:
        lines.append(
            f"| {task} | {_fmt(s['mean_abs'])} ± {_fmt(s['mean_abs_stderr'])} | {_fmt(s['consistency_rate'])} ± "
            f"{_fmt(s['consistency_rate_stderr'])} | {_fmt(s['non_binary_gas'])} | {_fmt(s['invalid_rate'])} | {s['n_docs']} |"
        )
    return lines + [""]


def _likert_markdown(task: str, body: dict, heading: str = "##") -> list[str]:
    s = body["summary"]
    lines = [
        f"{heading} {task}",
        "",
        f"- stereotype-consistency rate: {_fmt(s['consistency_rate'])} ± {_fmt(s['consistency_rate_stderr'])}"
        f" (95% CI {_fmt(s['consistency_rate_ci'][0])} to {_fmt(s['consistency_rate_ci'][1])})",
        f"- mean ABS: {_fmt(s['mean_abs'])} ± {_fmt(s['mean_abs_stderr'])}"
        f" (95% CI {_fmt(s['mean_abs_ci'][0])} to {_fmt(s['mean_abs_ci'][1])})",
        f"- mean non-binary GAS: {_fmt(s['non_binary_gas'])} ± {_fmt(s['non_binary_gas_stderr'])}",
        f"- invalid rate: {_fmt(s['invalid_rate'])} ± {_fmt(s['invalid_rate_stderr'])}"
        f" of {s['n_docs']} docs; reasons: {s['invalid_reasons'] or 'none'}",
    ]
    if "human_correlation" in s:
        h = s["human_correlation"]
        lines.append(f"- Pearson r with human ratings: {_fmt(h['pearson_r'])} (p={_fmt_p(h['p_value'])}, n={h['n']})")
    lines += [
        "",
        "| instrument | stereotype | GAS male | GAS female | GAS non-binary | ABS | ABS 95% CI | t-test p | valid | invalid |",
        "|---|---|---:|---:|---:|---:|---|---:|---:|---:|",
    ]
    for name, row in body["instruments"].items():
        gas = row["gas"]
        ci = "n/a" if row["abs"] is None else f"[{_fmt(row['abs_ci'][0])}, {_fmt(row['abs_ci'][1])}]"
        lines.append(
            f"| {name} | {row['category']} | {_fmt(gas['male'])} | {_fmt(gas['female'])} | "
            f"{_fmt(gas['non_binary'])} | {_fmt(row['abs'])} | {ci} | {_fmt_p(row['p_value'])} | "
            f"{row['n_valid']} | {row['n_invalid']} |"
        )
    lines.append("")
    for likert, agreement in body.get("agreement", {}).items():
        lines += _agreement_markdown(task, likert, agreement)
    if "recognised_only" in body:
        lines += _recognised_only_markdown(task, body["recognised_only"])
    return lines


def _recognised_only_markdown(task: str, restricted: dict) -> list[str]:
    header = [
        f"- {restricted['recognised_stimuli']} stimuli recognised; instruments with none recognised "
        f"(left out): {', '.join(restricted['instruments_left_out']) or 'none'}",
        "",
    ]
    if restricted["summary"] is None:
        return [f"### {task}, recognised stimuli only", "", *header, "No stimulus was recognised: nothing to analyse.", ""]
    lines = _likert_markdown(f"{task}, recognised stimuli only", restricted, heading="###")
    return lines[:2] + header + lines[2:]


def _grounding_markdown(task: str, body: dict) -> list[str]:
    summary = body["summary"]
    scores = [name for name in summary if not name.endswith("_stderr") and name != "n_docs"]
    lines = [f"## {task}", "", f"- {summary['n_docs']} docs"]
    lines += [f"- {name}: {_fmt(summary[name])} ± {_fmt(summary[f'{name}_stderr'])}" for name in scores]
    if "prediction_rates" in body:
        lines += ["", "| answer | prediction rate (valid answers) |", "|---|---:|"]
        lines += [f"| {label} | {_fmt(rate)} |" for label, rate in body["prediction_rates"].items()]
    for group, rows in body.get("confusion", {}).items():
        answers = sorted({answer for row in rows.values() for answer in row})
        lines += ["", f"Confusion, group {group} (row: gold instrument, column: answer, row-normalised)", "",
                  "| gold | " + " | ".join(answers) + " |", "|---|" + "---:|" * len(answers)]
        lines += [f"| {gold} | " + " | ".join(_fmt(row.get(answer, 0.0), 2) for answer in answers) + " |" for gold, row in rows.items()]
    return lines + [""]


def _recognition_markdown(task: str, body: dict) -> list[str]:
    s = body["summary"]
    lines = [
        f"## {task}",
        "",
        f"- recognition accuracy: {_fmt(s['recognition_accuracy'])} ± {_fmt(s['recognition_accuracy_stderr'])}"
        f" of {s['n_docs']} stimuli",
        "",
        "| instrument | accuracy | stimuli | most often named instead |",
        "|---|---:|---:|---|",
    ]
    for name, row in body["instruments"].items():
        instead = "; ".join(f"{named} ({count})" for named, count in row["named_instead"].items()) or "-"
        lines.append(f"| {name} | {_fmt(row['accuracy'])} | {row['n']} | {instead} |")
    return lines + [""]


def _agreement_markdown(task: str, likert: str, agreement: dict) -> list[str]:
    ci = agreement["sign_agreement_ci"]
    lines = [
        f"### Agreement: {task} vs {likert}",
        "",
        f"- sign agreement: {_fmt(agreement['sign_agreement'])} (95% Wilson CI {_fmt(ci[0])} to {_fmt(ci[1])}, "
        f"n={agreement['n']} instruments)",
        f"- Pearson r: {_fmt(agreement['pearson_r'])} (p={_fmt_p(agreement['pearson_p'])}); "
        f"Spearman rho: {_fmt(agreement['spearman_rho'])} (p={_fmt_p(agreement['spearman_p'])})",
        "",
        "| instrument | ABS Likert | ABS log-prob |",
        "|---|---:|---:|",
    ]
    lines += [f"| {name} | {_fmt(pair['likert'])} | {_fmt(pair['logprob'])} |" for name, pair in agreement["instruments"].items()]
    return lines + [""]
